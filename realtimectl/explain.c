/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimectl explain [--offline] [USER]: what policy grants a user, key by
 * key, with the file:line (and section) that decided each value. --offline
 * evaluates the policy files here through the policy library; otherwise
 * realtimed answers (Explain), from the policy it has in force. realtimed
 * explains another user's policy only to root or with polkit's
 * org.realtimed.manage, which may ask for a password: a text agent runs
 * meanwhile on a terminal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "ctl.h"
#include "macro.h"
#include "output.h"
#ifdef HAVE_DBUS
#include "bus.h"
#endif

/* Text shows "file:line [Section]" in one column; JSON splits it. */
static const TableColumn columns_text[] = {
	{ "KEY", "key" },
	{ "VALUE", "value" },
	{ "SOURCE", "source" },
};
static const TableColumn columns_json[] = {
	{ "KEY", "key" },
	{ "VALUE", "value" },
	{ "SOURCE", "source" },
	{ "SECTION", "section" },
};

/* "root (uid 0), groups: root" for the header line, from u as the policy
 * library resolved it (NULL: r says why it could not). */
static void print_user_line(const PolicyUser *u, int r, uid_t uid, const char *prefix)
{
	if (!u) {
		if (r == -ESRCH)
			printf("%suid %u (no such user in the user database)\n", prefix,
			       (unsigned)uid);
		else
			printf("%suid %u (cannot look it up: %s)\n", prefix, (unsigned)uid,
			       strerror(-r));
		return;
	}
	printf("%s%s (uid %u), groups:", prefix, u->name, (unsigned)uid);
	for (size_t i = 0; i < u->n_gids; i++)
		if (u->group_names[i])
			printf(" %s", u->group_names[i]);
		else
			printf(" #%u", (unsigned)u->gids[i]);
	putchar('\n');
}

static int add_row(Table *t, bool json, const char *key, const char *value, const char *file,
		   unsigned line, const char *section)
{
	_cleanup_free_ char *source = NULL;
	int r;

	if (file) {
		r = line > 0 ? asprintf(&source, "%s:%u", file, line)
			     : asprintf(&source, "%s", file);
		if (r < 0)
			return -ENOMEM;
	}
	r = table_add_string(t, key);
	if (r >= 0)
		r = table_add_string(t, value);
	if (r < 0)
		return r;
	if (json) {
		r = table_add_string(t, source);
		if (r >= 0)
			r = table_add_string(t, section);
		return r;
	}
	if (source && section) {
		_cleanup_free_ char *both = NULL;

		if (asprintf(&both, "%s [%s]", source, section) < 0)
			return -ENOMEM;
		return table_add_string(t, both);
	}
	return table_add_string(t, source);
}

static int explain_offline(Ctl *ctl, uid_t uid)
{
	_cleanup_(policy_user_freep) PolicyUser *u = NULL;
	_cleanup_(policy_freep) Policy *p = NULL;
	_cleanup_table_ Table *t = NULL;
	PolicyGrant g;
	int r;

	r = ctl_load_policy(ctl, true, &p);
	if (r < 0)
		return ctl_exit_from_errno(r);

	r = policy_user_resolve_uid(uid, &u);
	if (r >= 0)
		r = policy_eval_for_user(p, u, &g);
	if (r == -ESRCH) {
		fprintf(stderr, "No such user: uid %u is not in the user database.\n",
			(unsigned)uid);
		return CTL_EXIT_NO_SUCH;
	}
	if (r < 0) {
		fprintf(stderr, "Failed to evaluate the policy for uid %u: %s\n", (unsigned)uid,
			strerror(-r));
		return ctl_exit_from_errno(r);
	}

	r = ctl->json ? table_new(columns_json, ELEMENTSOF(columns_json), &t)
		      : table_new(columns_text, ELEMENTSOF(columns_text), &t);
	if (r < 0)
		return ctl_oom();

	for (PolicyKey k = 0; k < _POLICY_KEY_MAX; k++) {
		char value[256];

		if (!g.set[k]) {
			r = add_row(t, ctl->json, policy_key_to_string(k), NULL, NULL, 0, NULL);
		} else {
			r = policy_grant_format(&g, k, value, sizeof(value));
			if (r < 0)
				snprintf(value, sizeof(value), "?");
			r = add_row(t, ctl->json, policy_key_to_string(k), value, g.source[k].file,
				    g.source[k].line, g.source[k].section);
		}
		if (r < 0)
			return ctl_oom();
	}

	if (!ctl->json && ctl->legend)
		print_user_line(u, 0, uid, "Policy for ");
	r = table_print(t, ctl_table_format(ctl), stdout);
	if (r < 0)
		return CTL_EXIT_FAILED;
	if (!ctl->json && ctl->legend) {
		if (g.covered)
			printf("\nA [User] or [Group] rule covers this user: realtimed decides by "
			       "policy alone.\n");
		else if (policy_daemon(p)->polkit)
			printf("\nNo [User] or [Group] rule covers this user: the [Default] values "
			       "apply, and realtimed asks polkit first (Polkit=yes).\n");
		else
			printf("\nNo [User] or [Group] rule covers this user: the [Default] values "
			       "apply.\n");
		if (policy_n_errors(p) > 0)
			printf("%zu rejected policy file(s) were left out (errors above).\n",
			       policy_n_errors(p));
	}
	return CTL_EXIT_OK;
}

#ifdef HAVE_DBUS
typedef struct ExplainEntry {
	const char *key, *value, *source;
} ExplainEntry;

/* Known keys first, in realtime.conf(5) order, then any the daemon adds. */
static int key_rank(const char *key)
{
	PolicyKey k = policy_key_from_string(key);

	return k >= 0 ? (int)k : _POLICY_KEY_MAX;
}

static int explain_entry_compare(const void *a, const void *b)
{
	const ExplainEntry *x = a, *y = b;
	int rx = key_rank(x->key), ry = key_rank(y->key);

	if (rx != ry)
		return rx < ry ? -1 : 1;
	return strcmp(x->key, y->key);
}

static int explain_online(Ctl *ctl, uid_t uid, const char *user)
{
	_cleanup_bus_message_ DBusMessage *reply = NULL;
	_cleanup_table_ Table *t = NULL;
	_cleanup_free_ ExplainEntry *entries = NULL;
	_cleanup_free_ char *what = NULL;
	DBusMessageIter iter, array;
	dbus_uint32_t u = uid;
	/* the daemon knows the caller by the uid its bus connection has */
	bool other = uid != geteuid();
	size_t n = 0, allocated = 0;
	int r;

	if (asprintf(&what, "ask realtimed to explain the policy for uid %u", (unsigned)uid) < 0)
		return ctl_oom();
	/* another user's policy: polkit may ask for an administrator's password */
	r = bus_call_once("Explain", what, other, "a{s(ss)}", &reply, DBUS_TYPE_UINT32, &u,
			  DBUS_TYPE_INVALID);
	if (r > 0)
		goto unreachable;

	dbus_message_iter_init(reply, &iter);
	dbus_message_iter_recurse(&iter, &array);
	while (dbus_message_iter_get_arg_type(&array) == DBUS_TYPE_DICT_ENTRY) {
		ExplainEntry e;

		bus_iter_read_explain(&array, &e.key, &e.value, &e.source);
		if (n == allocated) {
			ExplainEntry *a;

			allocated = allocated ? allocated * 2 : 8;
			a = reallocarray(entries, allocated, sizeof(*a));
			if (!a)
				return ctl_oom();
			entries = a;
		}
		entries[n++] = e;
	}
	if (n > 0)
		qsort(entries, n, sizeof(*entries), explain_entry_compare);

	r = ctl->json ? table_new(columns_json, ELEMENTSOF(columns_json), &t)
		      : table_new(columns_text, ELEMENTSOF(columns_text), &t);
	if (r < 0)
		return ctl_oom();
	for (size_t i = 0; i < n; i++) {
		/* "" for both: no file sets the key (a key set to "" has a source).
		 * The daemon names no section. */
		bool unset = isempty(entries[i].source);

		r = add_row(t, ctl->json, entries[i].key, unset ? NULL : entries[i].value,
			    unset ? NULL : entries[i].source, 0, NULL);
		if (r < 0)
			return ctl_oom();
	}
	if (!ctl->json && ctl->legend) {
		_cleanup_(policy_user_freep) PolicyUser *who = NULL;

		/* what NSS says here, for display: realtimed did its own lookup */
		r = policy_user_resolve_uid(uid, &who);
		print_user_line(who, r, uid, "Policy in force in realtimed for ");
	}
	r = table_print(t, ctl_table_format(ctl), stdout);
	return r < 0 ? CTL_EXIT_FAILED : CTL_EXIT_OK;

unreachable:
	if (r == CTL_EXIT_UNREACHABLE || (r == CTL_EXIT_REFUSED && other))
		fprintf(stderr,
			"To evaluate the policy files without realtimed: realtimectl explain "
			"--offline%s%s\n",
			user ? " " : "", user ?: "");
	return r;
}
#endif

int verb_explain(Ctl *ctl, int argc, char **argv)
{
	uid_t uid = getuid();
	int r;

	if (argc > 1)
		return ctl_usage_error("explain takes one USER (a name or #uid).");
	if (argc == 1) {
		r = args_parse_user(argv[0], &uid);
		if (r == -ESRCH) {
			fprintf(stderr, "No such user: %s\n", argv[0]);
			return CTL_EXIT_NO_SUCH;
		}
		if (r < 0)
			return ctl_usage_error("invalid user '%s': give a user name or #uid.",
					       argv[0]);
	}

#ifdef HAVE_DBUS
	if (!ctl->offline) {
		if (ctl->have_paths || ctl->n_conf_files > 0)
			return ctl_usage_error("the policy file options need --offline: realtimed "
					       "reads its own files.");
		return explain_online(ctl, uid, argc == 1 ? argv[0] : NULL);
	}
#endif
	/* Without D-Bus support, explain is always offline. */
	return explain_offline(ctl, uid);
}
