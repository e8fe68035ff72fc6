// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * realtimectl status --refused [--all]: the requests realtimed refused and
 * why (ListRefusals: the caller's own, root's every user's; with --all
 * ListAllRefusals, which needs root or polkit's org.realtimed.manage).
 * People get one row per refusal with its sentence (refusal.h); --json
 * every field apart.
 */
#include <pwd.h>
#include <stdio.h>
#include <unistd.h>

#include "bus.h"
#include "ctl.h"
#include "macro.h"
#include "output.h"
#include "refusal.h"

#define REFUSALS_SIGNATURE "a(tuttsssssu)"

void ctl_refusal_read(DBusMessageIter *it, CtlRefusal *ret)
{
	dbus_uint64_t time, pid, tid;
	dbus_uint32_t uid, count;

	bus_iter_read_struct(it, &time, &uid, &pid, &tid, &ret->comm, &ret->asked, &ret->error,
			     &ret->reason, &ret->source, &count, NULL);
	ret->time_usec = time;
	ret->uid = uid;
	ret->pid = pid;
	ret->tid = tid;
	ret->count = count;
}

static const TableColumn text_columns[] = {
	{ "TIME", "time" }, { "USER", "user" },	  { "PID", "pid" },
	{ "TID", "tid" },   { "ERROR", "error" }, { "REFUSED", "refused" },
};

static const TableColumn json_columns[] = {
	{ "TIME", "time" },	{ "UID", "uid" },     { "USER", "user" },
	{ "PID", "pid" },	{ "TID", "tid" },     { "COMMAND", "command" },
	{ "ASKED", "asked" },	{ "ERROR", "error" }, { "REASON", "reason" },
	{ "SOURCE", "source" }, { "COUNT", "count" },
};

/* One row of f into t. */
static int add_row(Table *t, const CtlRefusal *f, bool json)
{
	char when[64], user[64], text[1024];
	struct passwd *pw = getpwuid(f->uid);
	int r;

	ctl_format_time(f->time_usec, when, sizeof(when));
	if (pw)
		snprintf(user, sizeof(user), "%s", pw->pw_name);
	else
		snprintf(user, sizeof(user), "#%u", (unsigned)f->uid);
	r = table_add_uint(t, f->time_usec, when);
	if (r >= 0 && json)
		r = table_add_uint(t, f->uid, NULL);
	if (r >= 0)
		r = table_add_string(t, user);
	if (r >= 0)
		r = table_add_uint(t, f->pid, NULL);
	if (r >= 0)
		r = table_add_uint(t, f->tid, NULL);
	if (!json) {
		ctl_refusal_format(f, text, sizeof(text));
		if (r >= 0)
			r = table_add_string(t, f->error);
		return r >= 0 ? table_add_string(t, text) : r;
	}
	if (r >= 0)
		r = table_add_string(t, f->comm);
	if (r >= 0)
		r = table_add_string(t, f->asked);
	if (r >= 0)
		r = table_add_string(t, f->error);
	if (r >= 0)
		r = table_add_string(t, f->reason);
	if (r >= 0)
		r = table_add_string(t, isempty(f->source) ? NULL : f->source);
	return r >= 0 ? table_add_uint(t, f->count, NULL) : r;
}

int verb_status_refused(Ctl *ctl)
{
	_cleanup_bus_message_ DBusMessage *reply = NULL;
	_cleanup_table_ Table *t = NULL;
	DBusMessageIter iter, array;
	bool own = !ctl->all && geteuid() != 0;
	size_t n;
	int r;

	r = bus_call_once(ctl->all ? "ListAllRefusals" : "ListRefusals",
			  ctl->all ? "list every user's refusals" : "list realtimed's refusals",
			  ctl->all, REFUSALS_SIGNATURE, &reply, DBUS_TYPE_INVALID);
	if (r > 0)
		return r;
	if (ctl->json)
		r = table_new(json_columns, ELEMENTSOF(json_columns), &t);
	else
		r = table_new(text_columns, ELEMENTSOF(text_columns), &t);
	if (r < 0)
		return ctl_oom();
	dbus_message_iter_init(reply, &iter);
	dbus_message_iter_recurse(&iter, &array);
	while (dbus_message_iter_get_arg_type(&array) == DBUS_TYPE_STRUCT) {
		CtlRefusal f;

		ctl_refusal_read(&array, &f);
		if (add_row(t, &f, ctl->json) < 0)
			return ctl_oom();
	}
	n = table_n_rows(t);
	if ((ctl->json || n > 0) && table_print(t, ctl_table_format(ctl), stdout) < 0)
		return CTL_EXIT_FAILED;
	if (ctl->json || !ctl->legend)
		return CTL_EXIT_OK;
	if (n == 0)
		printf("No refusals: realtimed refused no request%s since it started.\n",
		       own ? " of yours ('status --refused --all' lists every user's)" : "");
	else
		printf("\n%zu refusal%s%s, oldest first (the last 64 of each user since "
		       "realtimed started).\n",
		       n, n == 1 ? "" : "s", own ? " of yours" : "");
	return CTL_EXIT_OK;
}
