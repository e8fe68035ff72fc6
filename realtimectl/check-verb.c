/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimectl check [--json] [--user USER] [--latency[=TIME]]: runs every
 * check of the table (check.c) for the caller or USER's session, and with
 * --latency a measurement (check-latency.c), and prints one line each, the
 * hint under each warn and fail, and a summary line; --json prints an
 * array of {id, status, summary, value, hint}. Exit status 1 when a check
 * failed. It reads and never writes; it does not start realtimed (the bus
 * is asked with NameHasOwner and NO_AUTO_START).
 */
#include <ctype.h>
#include <dirent.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "ctl-check.h"
#include "ctl.h"
#include "latency.h"

#ifndef HAVE_DBUS
#define check_bus_query NULL
#define check_refusals_query NULL
#endif

/* The oldest process whose real uid is uid (the session leader or the
 * user's service manager): where another user's limits and groups are
 * read. -1 when none runs. */
static pid_t session_pid_of(uid_t uid)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	pid_t best = -1;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		_cleanup_free_ char *path = NULL, *text = NULL;
		CheckContext c = { .root = "" };
		unsigned ruid;
		pid_t pid;
		char *u;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = (pid_t)atoi(de->d_name);
		if ((best > 0 && pid > best) || asprintf(&path, "/proc/%d/status", (int)pid) < 0)
			continue;
		if (check_read(&c, path, &text) < 0 || !(u = strstr(text, "\nUid:")))
			continue;
		if (sscanf(u + 5, "%u", &ruid) == 1 && ruid == uid)
			best = pid;
	}
	closedir(d);
	return best;
}

/* The id of res[i]: the table's, then check --latency's line. */
static const char *result_id(size_t i)
{
	return i < check_table_n ? check_table[i].id : "latency";
}

static int print_text(const CheckResult *res, size_t n, const Ctl *ctl)
{
	unsigned count[_CHECK_STATUS_MAX] = {};

	for (size_t i = 0; i < n; i++) {
		const CheckResult *r = &res[i];

		count[r->status]++;
		printf("%-4s  %-15s  %s\n", check_status_to_string(r->status), result_id(i),
		       r->summary);
		if ((r->status == CHECK_WARN || r->status == CHECK_FAIL) && r->hint[0])
			printf("      %-15s  -> %s\n", "", r->hint);
	}
	if (ctl->legend)
		printf("\n%zu checks: %u ok, %u info, %u skipped, %u warnings, %u failed.\n", n,
		       count[CHECK_OK], count[CHECK_INFO], count[CHECK_SKIP], count[CHECK_WARN],
		       count[CHECK_FAIL]);
	return 0;
}

static int print_json(const CheckResult *res, size_t n)
{
	static const TableColumn columns[] = {
		{ "ID", "id" },	      { "STATUS", "status" }, { "SUMMARY", "summary" },
		{ "VALUE", "value" }, { "HINT", "hint" },
	};
	_cleanup_table_ Table *t = NULL;
	int r;

	r = table_new(columns, ELEMENTSOF(columns), &t);
	for (size_t i = 0; r >= 0 && i < n; i++) {
		r = table_add_string(t, result_id(i));
		if (r >= 0)
			r = table_add_string(t, check_status_to_string(res[i].status));
		if (r >= 0)
			r = table_add_string(t, res[i].summary);
		if (r >= 0)
			r = table_add_string(t, res[i].value);
		if (r >= 0)
			r = table_add_string(t, res[i].hint[0] ? res[i].hint : NULL);
	}
	if (r >= 0)
		r = table_print(t, TABLE_JSON, stdout);
	return r;
}

int verb_check(Ctl *ctl, int argc, char **argv)
{
	_cleanup_(policy_user_freep) PolicyUser *pu = NULL;
	_cleanup_(policy_freep) Policy *p = NULL;
	_cleanup_free_ CheckResult *res = NULL;
	CheckContext c = { .root = "",
			   .bus_query = check_bus_query,
			   .refusals_query = check_refusals_query };
	struct passwd *pw;
	struct group *gr;
	bool failed = false;
	size_t n = check_table_n;
	uid_t uid = getuid();
	int r;

	if (argc > 0)
		return ctl_usage_error("'check' takes no arguments (--user USER names the user).");
	if (ctl->user) {
		r = args_parse_user(ctl->user, &uid);
		if (r < 0) {
			fprintf(stderr, "No such user '%s'.\n", ctl->user);
			return CTL_EXIT_NO_SUCH;
		}
	}
	c.uid = uid;
	r = policy_user_resolve_uid(uid, &pu);
	if (r == -ENOMEM)
		return ctl_oom();
	c.pu = pu;
	c.user = pu ? pu->name : ctl->user;
	pw = getpwuid(uid);
	c.home = pw ? pw->pw_dir : NULL;
	gr = getgrnam("audio");
	c.have_audio_gid = gr != NULL;
	c.audio_gid = gr ? gr->gr_gid : 0;
	/* another user's session: one of their processes stands for it */
	if (uid != getuid())
		c.pid = session_pid_of(uid);

	if (ctl->n_conf_files > 0)
		r = policy_load_files_check(ctl->conf_files, ctl->n_conf_files, &p);
	else
		r = policy_load_check(&ctl->paths, &p);
	if (r < 0)
		return ctl_oom();
	c.policy = p;
	if (ctl->have_paths || ctl->n_conf_files > 0)
		c.policy_hint_paths = " (with the same policy file options)";

	r = check_context_load(&c);
	res = calloc(check_table_n + 1, sizeof(CheckResult));
	if (r < 0 || !res) {
		check_context_done(&c);
		return ctl_oom();
	}
	for (size_t i = 0; i < check_table_n; i++) {
		check_table[i].run(&c, &res[i]);
		failed = failed || res[i].status == CHECK_FAIL;
	}
	if (ctl->check_latency) {
		r = check_latency(ctl, &c, res, &res[n]);
		if (r >= 0) {
			check_context_done(&c);
			return r;
		}
		failed = failed || res[n].status == CHECK_FAIL;
		n++;
	}
	check_context_done(&c);

	r = ctl->json ? print_json(res, n) : print_text(res, n, ctl);
	if (r < 0)
		return r == -ENOMEM ? ctl_oom() : CTL_EXIT_FAILED;
	return failed ? CTL_EXIT_REFUSED : CTL_EXIT_OK;
}
