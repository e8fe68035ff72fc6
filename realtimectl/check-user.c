/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The user's checks of realtimectl check (ctl-check.h): the session's rlimits
 * against what policy grants and where a lower one comes from, audio
 * membership in NSS and in the session, the policy files and whether a
 * rule covers the user, and the IRQ threads the user's audio depends on.
 */
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "ctl-check.h"
#include "procfs-irq.h"
#include "procfs-limits.h"

static bool user_grant(const CheckContext *c, PolicyGrant *ret)
{
	return c->pu && c->policy && policy_eval_for_user(c->policy, c->pu, ret) >= 0;
}

static const PolicyRlimit *rlimit_of(int resource)
{
	const PolicyRlimit *l;

	for (size_t i = 0; (l = policy_rlimit(i)); i++)
		if (l->resource == resource)
			return l;
	return NULL;
}

/* The soft and hard limit of row name in the session's limits file. */
static int session_limit(const CheckContext *c, const char *name, uint64_t *ret_soft,
			 uint64_t *ret_hard, char *ret_path, size_t size)
{
	_cleanup_free_ char *text = NULL;
	int e;

	e = check_read_session(c, "limits", ret_path, size, &text);
	if (e < 0)
		return e;
	return procfs_limits_parse(text, name, ret_soft, ret_hard);
}

/* Why the session's limit is below policy's: the pam_limits lines that set
 * item for the user, a missing pam_realtime, or a session older than the
 * policy. */
static void rlimit_low_hint(const CheckContext *c, CheckResult *r, const char *item, uint64_t want,
			    uint64_t hard)
{
	const char *const items[] = { item, NULL };
	_cleanup_free_ LimitsLine *lines = NULL;
	char why[CHECK_HINT_MAX] = "", want_s[32];
	size_t n = 0;

	policy_rlimit_format(want, want_s, sizeof(want_s));
	if (item && check_limits_lines(c, items, &lines, &n) >= 0)
		for (size_t i = 0; i < n; i++)
			if (lines[i].matches)
				strbuf_append(why, sizeof(why),
					      "%s:%u sets %s %s %s for %s: remove that line; ",
					      lines[i].file, lines[i].line, lines[i].type, item,
					      lines[i].value, lines[i].domain);
	if (!check_pam_realtime(c))
		strbuf_append(
			why, sizeof(why),
			"no PAM service runs pam_realtime: add 'session optional "
			"pam_realtime.so' to /etc/pam.d/common-session (pam_realtime(8)), then "
			"log out and in again");
	else
		strbuf_append(why, sizeof(why),
			      "log out and in again (the session began before the policy gave "
			      "this), or start the program with 'realtimectl run --limits'");
	if (hard != RLIM_INFINITY && hard < want)
		check_hint(r, "%s", why);
	else
		check_hint(r,
			   "%s; the hard limit allows it already: the program (or 'ulimit') may "
			   "raise its soft limit to %s",
			   why, want_s);
}

static void check_rlimit(const CheckContext *c, CheckResult *r, int resource, const char *item)
{
	const PolicyRlimit *pr = rlimit_of(resource);
	char path[64], value[CHECK_VALUE_MAX], soft_s[32], hard_s[32], want_s[32];
	uint64_t soft, hard, want;
	PolicyGrant g;
	int e;

	e = session_limit(c, pr->proc_name, &soft, &hard, path, sizeof(path));
	if (e < 0) {
		check_skip_errno(r, path, e);
		return;
	}
	policy_rlimit_format(soft, soft_s, sizeof(soft_s));
	policy_rlimit_format(hard, hard_s, sizeof(hard_s));
	if (!user_grant(c, &g)) {
		snprintf(value, sizeof(value), "%s/%s", soft_s, hard_s);
		check_set(r, CHECK_SKIP, value, "%s is %s/%s; the user is unknown to NSS", pr->name,
			  soft_s, hard_s);
		return;
	}
	if (policy_grant_rlimit(&g, resource, &want) < 0) {
		snprintf(value, sizeof(value), "%s/%s policy=unset", soft_s, hard_s);
		check_set(r, CHECK_INFO, value, "%s is %s/%s; the policy sets no %s= for %s",
			  pr->name, soft_s, hard_s, policy_key_to_string(pr->key), c->user);
		return;
	}
	policy_rlimit_format(want, want_s, sizeof(want_s));
	snprintf(value, sizeof(value), "%s/%s policy=%s", soft_s, hard_s, want_s);
	if (soft == want || (!pr->ceiling && soft > want)) {
		check_set(r, CHECK_OK, value, "%s is %s, as the policy grants (%s)", pr->name,
			  soft_s, want_s);
		return;
	}
	if (pr->ceiling && soft > want) {
		check_set(r, CHECK_INFO, value,
			  "%s is %s, above the policy's %s: realtimed's grants run under the "
			  "policy's value all the same",
			  pr->name, soft_s, want_s);
		return;
	}
	check_set(r, CHECK_WARN, value, "%s is %s, below the %s the policy grants %s", pr->name,
		  soft_s, want_s, c->user);
	rlimit_low_hint(c, r, item, want, hard);
}

void check_rlimit_rtprio(const CheckContext *c, CheckResult *r)
{
	check_rlimit(c, r, RLIMIT_RTPRIO, "rtprio");
}

void check_rlimit_memlock(const CheckContext *c, CheckResult *r)
{
	check_rlimit(c, r, RLIMIT_MEMLOCK, "memlock");
}

void check_rlimit_rttime(const CheckContext *c, CheckResult *r)
{
	/* pam_limits has no rttime item: only pam_realtime sets it */
	check_rlimit(c, r, RLIMIT_RTTIME, NULL);
}

/* Is gid among the session's groups (the Groups: line of its status)? */
static int session_has_gid(const CheckContext *c, gid_t gid, char *ret_path, size_t size)
{
	_cleanup_free_ char *text = NULL;
	char *g;
	int e;

	e = check_read_session(c, "status", ret_path, size, &text);
	if (e < 0)
		return e;
	g = strstr(text, "\nGroups:");
	if (!g)
		return -EBADMSG;
	g += 8;
	for (;;) {
		char *end;
		unsigned long v;

		g += strspn(g, " \t");
		if (*g == '\n' || *g == '\0')
			return 0;
		v = strtoul(g, &end, 10);
		if (end == g)
			return -EBADMSG;
		if (v == gid)
			return 1;
		g = end;
	}
}

void check_audio_group(const CheckContext *c, CheckResult *r)
{
	char path[64], value[CHECK_VALUE_MAX];
	bool nss = false;
	PolicyGrant g;
	int session;

	if (!c->have_audio_gid) {
		check_set(r, CHECK_INFO, "no group", "there is no group 'audio' on this machine");
		return;
	}
	if (!c->pu) {
		check_set(r, CHECK_SKIP, "", "the user is unknown to NSS");
		return;
	}
	for (size_t i = 0; i < c->pu->n_gids; i++)
		nss = nss || c->pu->gids[i] == c->audio_gid;
	session = session_has_gid(c, c->audio_gid, path, sizeof(path));
	snprintf(value, sizeof(value), "nss=%s session=%s", nss ? "member" : "no",
		 session < 0 ? "unknown"
		 : session   ? "member"
			     : "no");
	if (nss && session > 0) {
		check_set(r, CHECK_OK, value, "%s is in 'audio', and so is this session", c->user);
		return;
	}
	if (nss && session == 0) {
		check_set(r, CHECK_WARN, value,
			  "%s was added to 'audio', but this session started before", c->user);
		check_hint(r,
			   "log out and in again (or reboot) so that the session gets the group");
		return;
	}
	if (nss) {
		check_set(r, CHECK_OK, value, "%s is in 'audio' (the session's groups: %s)",
			  c->user, session == -EACCES ? "unreadable" : "unknown");
		return;
	}
	if (c->uid == 0) {
		check_set(r, CHECK_INFO, value, "root needs no group for realtime");
		return;
	}
	if (session > 0) {
		check_set(r, CHECK_INFO, value,
			  "%s is no longer in 'audio', but this session still has the group",
			  c->user);
		return;
	}
	if (user_grant(c, &g) && g.covered) {
		check_set(r, CHECK_INFO, value,
			  "%s is not in 'audio'; another [User] or [Group] rule covers them",
			  c->user);
		return;
	}
	check_set(r, CHECK_WARN, value,
		  "%s is not in 'audio': the policy gives them only [Default]'s little", c->user);
	check_hint(r, "sudo usermod -aG audio %s, then log out and in again", c->user);
}

void check_policy(const CheckContext *c, CheckResult *r)
{
	char value[CHECK_VALUE_MAX];
	size_t n_files, n_errors, n_warnings;
	PolicyGrant g;

	if (!c->policy) {
		check_set(r, CHECK_SKIP, "", "the policy could not be loaded");
		return;
	}
	n_files = policy_n_files(c->policy);
	n_errors = policy_n_errors(c->policy);
	n_warnings = policy_n_warnings(c->policy);
	snprintf(value, sizeof(value), "files=%zu errors=%zu warnings=%zu", n_files, n_errors,
		 n_warnings);
	if (n_errors > 0) {
		const PolicyError *e = policy_error(c->policy, 0);

		strbuf_append(value, sizeof(value), " first=%s:%u", e->file, e->line);
		check_set(r, CHECK_FAIL, value, "%zu error%s in the policy files, first %s:%u: %s",
			  n_errors, n_errors == 1 ? "" : "s", e->file, e->line, e->message);
		check_hint(r,
			   "realtimectl policy check%s lists every error; fix them and run "
			   "realtimectl reload (a rejected file is ignored whole)",
			   c->policy_hint_paths ?: "");
		return;
	}
	if (n_files == 0) {
		check_set(r, CHECK_FAIL, value, "no policy file is read: realtimed grants nothing");
		check_hint(r,
			   "reinstall realtimed (its vendor file is %s), or write "
			   "/etc/realtime/realtime.conf (realtime.conf(5))",
			   "/usr/share/realtime/realtime.conf");
		return;
	}
	if (!user_grant(c, &g)) {
		check_set(r, CHECK_SKIP, value, "the policy is fine; the user is unknown to NSS");
		return;
	}
	for (int k = 0; k < _POLICY_KEY_MAX; k++)
		if (g.set[k] && g.source[k].section) {
			strbuf_append(value, sizeof(value), " by=[%s]", g.source[k].section);
			break;
		}
	if (!g.covered && c->uid != 0) {
		check_set(r, CHECK_WARN, value,
			  "no [User] or [Group] section covers %s: only [Default] applies",
			  c->user);
		check_hint(r,
			   "sudo usermod -aG audio %s (then log in again), or give them a section "
			   "of their own: [User %s] in /etc/realtime/realtime.conf.d/50-%s.conf",
			   c->user, c->user, c->user);
		return;
	}
	check_set(r, CHECK_OK, value, "%zu policy file%s, no errors%s; %s %s", n_files,
		  n_files == 1 ? "" : "s",
		  n_warnings ? " (warnings: realtimectl policy check)" : "", c->user,
		  g.covered ? "is covered by a [User] or [Group] section"
			    : "needs no section (root may have any priority)");
}

void check_irq_priorities(const CheckContext *c, CheckResult *r)
{
	_cleanup_free_ char *proc = check_path(c, "/proc");
	char value[CHECK_VALUE_MAX] = "", below_rule[CHECK_HINT_MAX / 2] = "";
	char below_user[CHECK_HINT_MAX / 2] = "";
	IrqThread *t = NULL;
	size_t n = 0, n_audio = 0;
	int user_max = -1, e;
	PolicyGrant g;

	if (!proc)
		return;
	e = procfs_irq_threads(proc, &t, &n);
	if (e < 0) {
		check_skip_errno(r, "/proc", e);
		return;
	}
	if (user_grant(c, &g) && g.set[POLICY_KEY_REALTIME_PRIORITY])
		user_max = g.realtime_priority;
	for (size_t i = 0; i < n; i++) {
		const PolicyIrqRule *rule;
		int prio = t[i].policy == SCHED_FIFO || t[i].policy == SCHED_RR ? t[i].priority : 0;

		if (!check_irq_is_audio_path(t[i].action))
			continue;
		n_audio++;
		rule = c->policy ? policy_irq_match(c->policy, t[i].action) : NULL;
		strbuf_append(value, sizeof(value), "%sirq/%u-%s:%d", value[0] ? " " : "", t[i].irq,
			      t[i].action, prio);
		if (rule)
			strbuf_append(value, sizeof(value), "(rule %d)", rule->priority);
		if (rule && prio < rule->priority)
			strbuf_append(below_rule, sizeof(below_rule), "%s%s at %d (rule %s=%d)",
				      below_rule[0] ? ", " : "", t[i].action, prio, rule->pattern,
				      rule->priority);
		else if (user_max >= prio)
			strbuf_append(below_user, sizeof(below_user), "%s%s at %d",
				      below_user[0] ? ", " : "", t[i].action, prio);
	}
	procfs_irq_threads_free(t, n);
	if (n_audio == 0 && !check_irqs_threaded(c)) {
		/* a few drivers thread their own handlers; sound cards do not */
		check_set(r, CHECK_SKIP, "not threaded",
			  "IRQ handlers are not threaded (see threadirqs): no sound card or USB "
			  "controller IRQ thread to give a priority");
		return;
	}
	if (n_audio == 0) {
		check_set(r, CHECK_INFO, "", "no sound card or USB controller IRQ thread found");
		return;
	}
	if (below_rule[0]) {
		check_set(r, CHECK_WARN, value, "IRQ threads below their [IRQ] rule: %s",
			  below_rule);
		check_hint(r,
			   "start realtimed, which applies the [IRQ] rules (systemctl enable --now "
			   "realtimed), or load realtime.ko, which holds them for new IRQ threads");
		return;
	}
	if (below_user[0]) {
		check_set(r, CHECK_WARN, value,
			  "%s's audio threads may get priority %d, at or above %s: the device they "
			  "wait on would wait for them",
			  c->user, user_max, below_user);
		check_hint(
			r,
			"raise the rule above %d in [IRQ] (e.g. snd*=%d in "
			"/etc/realtime/realtime.conf.d/60-irq.conf, then realtimectl reload), or "
			"keep audio threads below it (PipeWire asks 88, JACK's -P)",
			user_max, user_max < 99 ? user_max + 1 : 99);
		return;
	}
	check_set(r, CHECK_OK, value,
		  "sound card and USB IRQ threads run above priority %d, the highest %s's audio "
		  "threads may get",
		  user_max, c->user);
}
