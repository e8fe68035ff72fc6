/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimectl status [--all]: the grants realtimed supervises, one row per
 * thread: pid, tid, command, user, policy, priority (or nice), since. The
 * caller's own grants (ListGrants; root's are every grant), or with --all
 * every user's (ListAllGrants: root or polkit's org.realtimed.manage, which
 * may ask for an administrator's password: bus_call() runs a text agent
 * meanwhile on a terminal). Under the table, whether realtimed holds the
 * CPUs awake ([Daemon] CpuDmaLatency=) and shields some from interrupts
 * (Shield=). status --refused: refused.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "bus.h"
#include "ctl-check.h"
#include "ctl.h"
#include "macro.h"
#include "output.h"
#include "refusal.h"

static const TableColumn columns[] = {
	{ "PID", "pid" }, { "TID", "tid" },	  { "COMMAND", "command" },   { "USER", "user" },
	{ "UID", "uid" }, { "POLICY", "policy" }, { "PRIORITY", "priority" }, { "SINCE", "since" },
};

/* Whether realtimed holds the CPUs out of deep C-states ([Daemon]
 * CpuDmaLatency=): nothing from a realtimed that does not say. */
static void print_cpu_dma(DBusConnection *bus)
{
	CpuDmaHold h = {};
	char text[256];

	/* the one property, on the connection ListGrants used */
	check_bus_cpu_dma(bus, &h);
	if (!h.known)
		return;
	cpu_dma_hold_describe(&h, text, sizeof(text));
	printf("CPU latency request (/dev/cpu_dma_latency): %s.\n", text);
}

/* The shield ([Daemon] Shield=): its CPUs, the IRQs that stay and why,
 * irqbalance, what it could not do; nothing from a realtimed that does not
 * say. */
static void print_shield(DBusConnection *bus)
{
	ShieldHold h = {};
	char text[1280];
	bool held;

	check_bus_shield(bus, &h);
	if (!h.known)
		return;
	shield_hold_describe(&h, text, sizeof(text));
	printf("Shield (Shield=): %s.\n", text);
	held = streq(h.state, "held") || streq(h.state, "lingering");
	if (!held)
		return;
	for (size_t i = 0; i < h.n_left && i < SHIELD_LEFT_SHOWN; i++)
		printf("  IRQ %u (%s) stays: %s\n", h.left[i].irq, h.left[i].name, h.left[i].why);
	if (h.n_left > SHIELD_LEFT_SHOWN)
		printf("  and %zu more IRQs stay\n", h.n_left - SHIELD_LEFT_SHOWN);
	if (h.irqbalance[0])
		printf("  irqbalance: %s\n", h.irqbalance);
	if (h.problem[0])
		printf("  Not done: %s\n", h.problem);
	printf("  Per-CPU kernel threads and the timer tick stay on CPUs %s.\n", h.cpus);
}

int verb_status(Ctl *ctl, int argc, char **argv)
{
	_cleanup_bus_connection_ DBusConnection *bus = NULL;
	_cleanup_bus_message_ DBusMessage *reply = NULL;
	_cleanup_table_ Table *t = NULL;
	DBusMessageIter iter, array;
	int r;

	if (argc > 0)
		return ctl_usage_error("status takes no arguments.");
	if (ctl->refused)
		return verb_status_refused(ctl);

	r = bus_open(&bus);
	if (r > 0)
		return r;
	r = bus_call(bus, ctl->all ? "ListAllGrants" : "ListGrants",
		     ctl->all ? "list every user's grants" : "list realtimed's grants", ctl->all,
		     "a(ttusssit)", &reply, DBUS_TYPE_INVALID);
	if (r > 0)
		return r;

	if (table_new(columns, ELEMENTSOF(columns), &t) < 0)
		return ctl_oom();
	dbus_message_iter_init(reply, &iter);
	dbus_message_iter_recurse(&iter, &array);
	while (dbus_message_iter_get_arg_type(&array) == DBUS_TYPE_STRUCT) {
		dbus_uint64_t pid, tid, since;
		dbus_uint32_t uid;
		const char *user, *command, *kind;
		dbus_int32_t priority;
		char text[64];

		bus_iter_read_struct(&array, &pid, &tid, &uid, &user, &command, &kind, &priority,
				     &since, NULL);

		ctl_format_time(since, text, sizeof(text));
		if (table_add_uint(t, pid, NULL) < 0 || table_add_uint(t, tid, NULL) < 0 ||
		    table_add_string(t, command) < 0 ||
		    table_add_string(t, isempty(user) ? NULL : user) < 0 ||
		    table_add_uint(t, uid, NULL) < 0 || table_add_string(t, kind) < 0 ||
		    table_add_int(t, priority, NULL) < 0 || table_add_uint(t, since, text) < 0)
			return ctl_oom();
	}

	if (ctl->json || table_n_rows(t) > 0)
		if (table_print(t, ctl_table_format(ctl), stdout) < 0)
			return CTL_EXIT_FAILED;
	if (!ctl->json && ctl->legend) {
		size_t n = table_n_rows(t);

		/* root's ListGrants is every grant already */
		bool own = !ctl->all && geteuid() != 0;

		if (n == 0)
			printf("No grants: realtimed supervises no thread%s.\n",
			       own ? " of yours ('status --all' lists every user's)" : "");
		else
			printf("\n%zu thread%s%s supervised.\n", n, n == 1 ? "" : "s",
			       own ? " of yours" : "");
		print_cpu_dma(bus);
		print_shield(bus);
	}
	return CTL_EXIT_OK;
}
