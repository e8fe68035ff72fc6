/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimectl check's shield, and the lines realtimectl status prints:
 * whether realtimed shields CPUs from interrupts while realtime grants run
 * ([Daemon] Shield=, its Shield property): on which CPUs, how many IRQs it
 * moved off them, which stay and why, irqbalance, and what it could not do.
 */
#include <stdio.h>
#include <string.h>

#include "ctl-check.h"

void shield_hold_describe(const ShieldHold *h, char *buf, size_t size)
{
	if (!h->known)
		snprintf(buf, size, "not known (this realtimed does not say)");
	else if (streq(h->state, "held") || streq(h->state, "lingering"))
		snprintf(buf, size,
			 "%s on CPUs %s for %u realtime grant%s: %u IRQ%s moved off them",
			 streq(h->state, "held") ? "held" : "held a few seconds more", h->cpus,
			 h->grants, h->grants == 1 ? "" : "s", h->moved, h->moved == 1 ? "" : "s");
	else if (streq(h->state, "released"))
		snprintf(buf, size,
			 "not held: no realtime grant is supervised (Shield= takes it while one "
			 "is)");
	else if (streq(h->state, "refused") || streq(h->state, "failed"))
		snprintf(buf, size, "not held: %s", h->problem[0] ? h->problem : h->state);
	else
		snprintf(buf, size, "not configured ([Daemon] Shield= is none)");
}

void check_shield(const CheckContext *c, CheckResult *r)
{
	CheckBus bus = { .max_priority = -1 };
	const ShieldHold *h = &bus.shield;
	char value[CHECK_VALUE_MAX], text[1280];
	bool held, unreachable;

	if (c->bus_query)
		c->bus_query(&bus);
	if (!bus.realtimed) {
		check_set(r, CHECK_SKIP, "realtimed=not-running",
			  "realtimed is not running: it shields CPUs only while it grants");
		return;
	}
	if (!h->known) {
		check_set(r, CHECK_SKIP, "realtimed=unknown",
			  "this realtimed does not say whether it shields CPUs (it is older)");
		return;
	}
	held = streq(h->state, "held") || streq(h->state, "lingering");
	unreachable = strstr(h->irqbalance, "runs, but") != NULL;
	snprintf(value, sizeof(value), "state=%s", h->state);
	if (held)
		strbuf_append(value, sizeof(value), " cpus=%s moved=%u left=%zu", h->cpus, h->moved,
			      h->n_left);
	if (h->irqbalance[0])
		strbuf_append(value, sizeof(value), " irqbalance=%s",
			      unreachable ? "unreachable" : "told");
	shield_hold_describe(h, text, sizeof(text));

	if (streq(h->state, "unset")) {
		check_set(r, CHECK_INFO, value,
			  "no shield: interrupts and unbound kernel work land on the CPUs audio "
			  "runs on; Shield=auto in realtime.conf(5) moves them off while realtime "
			  "grants run (a machine-wide change, at a cost to the rest)");
		return;
	}
	if (streq(h->state, "refused") || streq(h->state, "failed")) {
		check_set(r, CHECK_WARN, value, "the shield: %s", text);
		check_hint(
			r, "%s",
			streq(h->state, "refused")
				? "name other CPUs in Shield= (realtime.conf(5)): the rest of the "
				  "machine must keep CPU 0 and one whole core"
				: "realtimed writes what it changes to /run/realtime/shield first; "
				  "journalctl -u realtimed says why it could not");
		return;
	}
	if (held && (unreachable || h->problem[0])) {
		check_set(r, CHECK_WARN, value, "the shield: %s, but: %s", text,
			  h->problem[0] ? h->problem : h->irqbalance);
		check_hint(r, "%s",
			   unreachable
				   ? "irqbalance would move the IRQs back: ban the shielded CPUs "
				     "in its IRQBALANCE_BANNED_CPULIST (/etc/default/irqbalance) "
				     "and restart it, or stop it"
				   : "journalctl -u realtimed says what failed and why");
		return;
	}
	check_set(r, CHECK_OK, value, "the shield: %s%s", text,
		  held ? " (per-CPU kernel threads and the timer tick stay; realtimectl status "
			 "lists the IRQs that stay)"
		       : "");
}
