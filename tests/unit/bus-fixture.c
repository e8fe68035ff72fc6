/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The daemon's unit tests' bus and fake polkitd; see bus-fixture.h. */
#include <check.h>
#include <poll.h>
#include <pwd.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "bus-fixture.h"
#include "creds.h"
#include "macro.h"
#include "polkit.h"

#define KEPT_MAX 512
/* the serials of the calls built here, far above those the peer's
 * connection gives what it sends */
#define SERIAL0 (1u << 30)

static DBusServer *server;
static DBusWatch *server_watch;
static DBusConnection *peer;
static DBusMessage *checks[KEPT_MAX], *received[KEPT_MAX];
static size_t n_checks, n_received;
static uint32_t serial = SERIAL0;

static dbus_bool_t add_watch(DBusWatch *w, void *data)
{
	server_watch = w;
	return TRUE;
}

static void remove_watch(DBusWatch *w, void *data)
{
	if (server_watch == w)
		server_watch = NULL;
}

static void on_connection(DBusServer *s, DBusConnection *c, void *data)
{
	peer = dbus_connection_ref(c);
}

void bus_fixture_init(Daemon *d)
{
	char *address;
	DBusError err;
	struct pollfd p;

	dbus_error_init(&err);
	server = dbus_server_listen("unix:tmpdir=/tmp", &err);
	ck_assert_msg(server, "%s", err.message);
	dbus_server_set_new_connection_function(server, on_connection, NULL, NULL);
	ck_assert(
		dbus_server_set_watch_functions(server, add_watch, remove_watch, NULL, NULL, NULL));
	address = dbus_server_get_address(server);
	ck_assert_ptr_nonnull(address);
	d->bus = dbus_connection_open_private(address, &err);
	dbus_free(address);
	ck_assert_msg(d->bus, "%s", err.message);
	ck_assert_ptr_nonnull(server_watch);
	p = (struct pollfd){ .fd = dbus_watch_get_unix_fd(server_watch), .events = POLLIN };
	ck_assert_int_eq(poll(&p, 1, 5000), 1);
	ck_assert(dbus_watch_handle(server_watch, DBUS_WATCH_READABLE));
	ck_assert_ptr_nonnull(peer);
	/* the handshake done, so that the peer may send first */
	for (int i = 0; i < 5000 && !(dbus_connection_get_is_authenticated(d->bus) &&
				      dbus_connection_get_is_authenticated(peer));
	     i++) {
		dbus_connection_read_write(d->bus, 1);
		dbus_connection_read_write(peer, 1);
	}
	ck_assert(dbus_connection_get_is_authenticated(peer));
	ck_assert_int_eq(polkit_new(d->bus, d->users, &d->polkit), 0);
	n_checks = n_received = 0;
}

uid_t bus_fixture_callers(Daemon *d)
{
	struct passwd *pw = getpwnam("nobody");

	ck_assert_msg(pw, "the test needs the user nobody");
	ck_assert_int_eq(creds_cache_put(d->creds, BUS_FIXTURE_ROOT, 0, getpid()), 0);
	ck_assert_int_eq(creds_cache_put(d->creds, BUS_FIXTURE_USER, pw->pw_uid, getpid()), 0);
	return pw->pw_uid;
}

void bus_fixture_fini(Daemon *d)
{
	bus_fixture_drop_checks();
	bus_fixture_flush();
	dbus_connection_close(d->bus);
	dbus_connection_unref(d->bus);
	d->bus = NULL;
	dbus_connection_close(peer);
	dbus_connection_unref(peer);
	peer = NULL;
	dbus_server_disconnect(server);
	dbus_server_unref(server);
	server = NULL;
	d->polkit = polkit_free(d->polkit);
}

/* Keeps what reached the peer: polkit's calls apart, for an answer. */
static void peer_read(void)
{
	DBusMessage *m;

	dbus_connection_read_write(peer, 1);
	while ((m = dbus_connection_pop_message(peer))) {
		if (dbus_message_is_method_call(m, POLKIT_IFACE, "CheckAuthorization")) {
			ck_assert_uint_lt(n_checks, KEPT_MAX);
			checks[n_checks++] = m;
			continue;
		}
		ck_assert_uint_lt(n_received, KEPT_MAX);
		received[n_received++] = m;
	}
}

void bus_fixture_pump(Daemon *d, unsigned rounds)
{
	for (unsigned i = 0; i < rounds; i++) {
		dbus_connection_read_write_dispatch(d->bus, 1);
		peer_read();
	}
}

static DBusMessage *call_new_valist(const char *sender, const char *path, const char *iface,
				    const char *member, int first_arg_type, va_list ap)
{
	DBusMessage *m = dbus_message_new_method_call(NULL, path, iface, member);

	ck_assert_ptr_nonnull(m);
	ck_assert(dbus_message_set_sender(m, sender));
	ck_assert(dbus_message_append_args_valist(m, first_arg_type, ap));
	dbus_message_set_serial(m, serial++);
	return m;
}

DBusMessage *bus_fixture_call_new(const char *sender, const char *path, const char *iface,
				  const char *member, int first_arg_type, ...)
{
	DBusMessage *m;
	va_list ap;

	va_start(ap, first_arg_type);
	m = call_new_valist(sender, path, iface, member, first_arg_type, ap);
	va_end(ap);
	return m;
}

void bus_fixture_dispatch(Daemon *d, const BusObject *o, DBusMessage *m)
{
	ck_assert_int_eq(bus_dispatch(d, o, m), DBUS_HANDLER_RESULT_HANDLED);
}

/* The kept message i, taken out. */
static DBusMessage *take(size_t i)
{
	DBusMessage *m = received[i];

	memmove(received + i, received + i + 1, (n_received - i - 1) * sizeof(*received));
	n_received--;
	return m;
}

DBusMessage *bus_fixture_reply(Daemon *d, DBusMessage *m, unsigned rounds)
{
	return bus_fixture_reply_serial(d, dbus_message_get_serial(m), rounds);
}

DBusMessage *bus_fixture_reply_serial(Daemon *d, uint32_t s, unsigned rounds)
{
	for (unsigned r = 0;; r++) {
		for (size_t i = 0; i < n_received; i++)
			if (dbus_message_get_reply_serial(received[i]) == s)
				return take(i);
		if (r >= rounds)
			return NULL;
		bus_fixture_pump(d, 1);
	}
}

DBusMessage *bus_fixture_call(Daemon *d, const BusObject *o, const char *sender, const char *member,
			      int first_arg_type, ...)
{
	DBusMessage *m, *reply;
	va_list ap;

	va_start(ap, first_arg_type);
	m = call_new_valist(sender, o->path, o->iface, member, first_arg_type, ap);
	va_end(ap);
	bus_fixture_dispatch(d, o, m);
	reply = bus_fixture_reply(d, m, 1000);
	dbus_message_unref(m);
	return reply;
}

static DBusMessage *take_first(int type, const char *member, const char *destination)
{
	for (size_t i = 0; i < n_received; i++)
		if (dbus_message_get_type(received[i]) == type &&
		    streq_ptr(dbus_message_get_member(received[i]), member) &&
		    (!destination ||
		     streq_ptr(dbus_message_get_destination(received[i]), destination)))
			return take(i);
	return NULL;
}

DBusMessage *bus_fixture_take_signal(const char *member, const char *destination)
{
	return take_first(DBUS_MESSAGE_TYPE_SIGNAL, member, destination);
}

DBusMessage *bus_fixture_take_call(const char *member)
{
	return take_first(DBUS_MESSAGE_TYPE_METHOD_CALL, member, NULL);
}

size_t bus_fixture_n_received(void)
{
	return n_received;
}

DBusMessage *bus_fixture_received(size_t i)
{
	ck_assert_uint_lt(i, n_received);
	return received[i];
}

uint32_t bus_fixture_send(DBusMessage *m)
{
	uint32_t s;

	ck_assert_ptr_nonnull(m);
	ck_assert(dbus_connection_send(peer, m, &s));
	dbus_connection_flush(peer);
	dbus_message_unref(m);
	return s;
}

void bus_fixture_flush(void)
{
	for (size_t i = 0; i < n_received; i++)
		dbus_message_unref(received[i]);
	n_received = 0;
}

void bus_fixture_expect_error(DBusMessage *reply, const char *name, const char *needle)
{
	const char *text = NULL;

	ck_assert_msg(reply, "no answer, expected %s", name);
	ck_assert_msg(dbus_message_get_type(reply) == DBUS_MESSAGE_TYPE_ERROR,
		      "a return of (%s), expected %s", dbus_message_get_signature(reply), name);
	ck_assert_str_eq(dbus_message_get_error_name(reply), name);
	ck_assert(dbus_message_get_args(reply, NULL, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID));
	if (needle)
		ck_assert_msg(strstr(text, needle), "%s: \"%s\" lacks \"%s\"", name, text, needle);
	dbus_message_unref(reply);
}

DBusMessage *bus_fixture_expect_return(DBusMessage *reply, const char *sig)
{
	ck_assert_msg(reply, "no answer, expected a return of (%s)", sig);
	if (dbus_message_get_type(reply) == DBUS_MESSAGE_TYPE_ERROR) {
		const char *text = "";

		dbus_message_get_args(reply, NULL, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID);
		ck_abort_msg("%s: %s, expected a return of (%s)",
			     dbus_message_get_error_name(reply), text, sig);
	}
	ck_assert_int_eq(dbus_message_get_type(reply), DBUS_MESSAGE_TYPE_METHOD_RETURN);
	ck_assert_str_eq(dbus_message_get_signature(reply), sig);
	return reply;
}

void bus_fixture_expect_ok(DBusMessage *reply, const char *sig)
{
	dbus_message_unref(bus_fixture_expect_return(reply, sig));
}

DBusMessage *bus_fixture_call_via_polkit(Daemon *d, const BusObject *o, DBusMessage *m,
					 const char *sender, bool yes)
{
	DBusMessage *reply;
	const char *name;
	uid_t uid;

	bus_fixture_dispatch(d, o, m);
	ck_assert_ptr_null(bus_fixture_reply(d, m, 20));
	ck_assert_uint_eq(bus_fixture_n_checks(), 1);
	ck_assert_str_eq(bus_fixture_check_subject(bus_fixture_check(0), &uid, &name),
			 "system-bus-name");
	ck_assert_str_eq(name, sender);
	ck_assert_str_eq(bus_fixture_check_action(bus_fixture_check(0)), "org.realtimed.manage");
	bus_fixture_answer_checks(yes);
	reply = bus_fixture_reply(d, m, 1000);
	dbus_message_unref(m);
	return reply;
}

size_t bus_fixture_n_checks(void)
{
	return n_checks;
}

DBusMessage *bus_fixture_check(size_t i)
{
	ck_assert_uint_lt(i, n_checks);
	return checks[i];
}

DBusMessage *bus_fixture_polkit_answer(DBusMessage *check, bool yes)
{
	DBusMessage *r = dbus_message_new_method_return(check);
	dbus_bool_t authorized = yes, challenge = FALSE;
	DBusMessageIter it, st, details;

	ck_assert_ptr_nonnull(r);
	dbus_message_iter_init_append(r, &it);
	ck_assert(dbus_message_iter_open_container(&it, DBUS_TYPE_STRUCT, NULL, &st));
	ck_assert(dbus_message_iter_append_basic(&st, DBUS_TYPE_BOOLEAN, &authorized));
	ck_assert(dbus_message_iter_append_basic(&st, DBUS_TYPE_BOOLEAN, &challenge));
	ck_assert(dbus_message_iter_open_container(&st, DBUS_TYPE_ARRAY, "{ss}", &details));
	ck_assert(dbus_message_iter_close_container(&st, &details));
	ck_assert(dbus_message_iter_close_container(&it, &st));
	return r;
}

void bus_fixture_answer_checks(bool yes)
{
	for (size_t i = 0; i < n_checks; i++) {
		DBusMessage *r = bus_fixture_polkit_answer(checks[i], yes);

		ck_assert(dbus_connection_send(peer, r, NULL));
		dbus_message_unref(r);
	}
	bus_fixture_drop_checks();
	dbus_connection_flush(peer);
}

void bus_fixture_fail_checks(const char *name)
{
	for (size_t i = 0; i < n_checks; i++) {
		DBusMessage *r = dbus_message_new_error(checks[i], name, "the fake polkitd fails");

		ck_assert_ptr_nonnull(r);
		ck_assert(dbus_connection_send(peer, r, NULL));
		dbus_message_unref(r);
	}
	bus_fixture_drop_checks();
	dbus_connection_flush(peer);
}

void bus_fixture_drop_checks(void)
{
	for (size_t i = 0; i < n_checks; i++)
		dbus_message_unref(checks[i]);
	n_checks = 0;
}

const char *bus_fixture_check_subject(DBusMessage *m, uid_t *ret_uid, const char **ret_name)
{
	DBusMessageIter it, st, dict, e, v;
	const char *kind, *k;
	uint32_t u;

	*ret_uid = (uid_t)-1;
	if (ret_name)
		*ret_name = NULL;
	ck_assert(dbus_message_iter_init(m, &it));
	ck_assert_int_eq(dbus_message_iter_get_arg_type(&it), DBUS_TYPE_STRUCT);
	dbus_message_iter_recurse(&it, &st);
	dbus_message_iter_get_basic(&st, &kind);
	dbus_message_iter_next(&st);
	dbus_message_iter_recurse(&st, &dict);
	for (; dbus_message_iter_get_arg_type(&dict) == DBUS_TYPE_DICT_ENTRY;
	     dbus_message_iter_next(&dict)) {
		dbus_message_iter_recurse(&dict, &e);
		dbus_message_iter_get_basic(&e, &k);
		dbus_message_iter_next(&e);
		dbus_message_iter_recurse(&e, &v);
		if (streq(k, "uid") && dbus_message_iter_get_arg_type(&v) == DBUS_TYPE_UINT32) {
			dbus_message_iter_get_basic(&v, &u);
			*ret_uid = (uid_t)u;
		} else if (streq(k, "name") && ret_name &&
			   dbus_message_iter_get_arg_type(&v) == DBUS_TYPE_STRING)
			dbus_message_iter_get_basic(&v, ret_name);
	}
	return kind;
}

const char *bus_fixture_check_action(DBusMessage *m)
{
	DBusMessageIter it;
	const char *action;

	ck_assert(dbus_message_iter_init(m, &it));
	ck_assert(dbus_message_iter_next(&it));
	ck_assert_int_eq(dbus_message_iter_get_arg_type(&it), DBUS_TYPE_STRING);
	dbus_message_iter_get_basic(&it, &action);
	return action;
}
