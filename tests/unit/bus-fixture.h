/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The bus of the daemon's unit tests that go through D-Bus (the objects'
 * methods, the requests around polkit), over daemon-fixture.h's Daemon:
 * d->bus is a private connection to a DBusServer of the test, and its far
 * end, the peer, is everyone else. A caller's call is built here with the
 * unique name the bus would have stamped on it (its uid and pid put in
 * d->creds first, as the bus daemon would have answered) and handed to
 * bus_dispatch(); whatever realtimed sends reaches the peer, where it is
 * kept in order: replies and errors, signals (with their destination),
 * and calls to polkitd (CheckAuthorization), which wait until the test
 * answers them as polkitd would. Nothing blocks: the test turns both ends
 * with bus_fixture_pump().
 */
#pragma once

#include <dbus/dbus.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bus-dispatch.h"
#include "daemon.h"

/* d->bus to a server of this test, its far end accepted, and d->polkit on
 * it. d comes from fixture_daemon_init(). */
void bus_fixture_init(Daemon *d);
/* The callers most tests need, both with this process as their pid: root,
 * and a user that is not (nobody), put in d->creds. Returns the user's
 * uid. */
#define BUS_FIXTURE_ROOT ":1.1"
#define BUS_FIXTURE_USER ":1.2"
uid_t bus_fixture_callers(Daemon *d);
/* Closes both ends and frees d->polkit; what the peer kept is dropped. */
void bus_fixture_fini(Daemon *d);

/* Turns both ends rounds times (1 ms each at most): d's (its pending
 * calls' replies) and the peer's, which keeps what arrived. */
void bus_fixture_pump(Daemon *d, unsigned rounds);

/* A method call from sender (a unique name) on path and interface,
 * with arguments as dbus_message_append_args() takes them (end with
 * DBUS_TYPE_INVALID), numbered as the bus would. */
DBusMessage *bus_fixture_call_new(const char *sender, const char *path, const char *iface,
				  const char *member, int first_arg_type, ...);
/* Hands m to bus_dispatch() on o, as libdbus would; it must be handled. */
void bus_fixture_dispatch(Daemon *d, const BusObject *o, DBusMessage *m);
/* The answer to m that reached the peer, taken from what it kept, pumping
 * up to rounds times for it; NULL when none came (the call waits). */
DBusMessage *bus_fixture_reply(Daemon *d, DBusMessage *m, unsigned rounds);
/* The same for the call of that serial. */
DBusMessage *bus_fixture_reply_serial(Daemon *d, uint32_t serial, unsigned rounds);
/* bus_fixture_call_new() on o's path and interface, dispatched, and its
 * answer (NULL: none within a second). The caller unrefs it. */
DBusMessage *bus_fixture_call(Daemon *d, const BusObject *o, const char *sender, const char *member,
			      int first_arg_type, ...);
/* The first signal named member to destination (NULL: to any or none)
 * that reached the peer, taken; NULL when none is kept. */
DBusMessage *bus_fixture_take_signal(const char *member, const char *destination);
/* The first method call named member (to the bus daemon, say) that
 * reached the peer, taken; NULL when none is kept. */
DBusMessage *bus_fixture_take_call(const char *member);
/* How many messages the peer keeps (answers and signals, not polkit's
 * calls); bus_fixture_received(i) the i-th, in the order they came. */
size_t bus_fixture_n_received(void);
DBusMessage *bus_fixture_received(size_t i);
/* Sends m from the peer to realtimed (as the bus would: a signal of the
 * bus daemon, an answer to realtimed's call, a call on an object), and
 * unrefs it. Returns its serial. */
uint32_t bus_fixture_send(DBusMessage *m);
/* Drops what the peer keeps (not polkit's calls). */
void bus_fixture_flush(void);

/* Asserts that reply is the error name whose text contains needle (may
 * be NULL), and unrefs it. */
void bus_fixture_expect_error(DBusMessage *reply, const char *name, const char *needle);
/* Asserts that reply is a method return of signature sig; returns it. */
DBusMessage *bus_fixture_expect_return(DBusMessage *reply, const char *sig);
/* The same, and unrefs it. */
void bus_fixture_expect_ok(DBusMessage *reply, const char *sig);

/* m, from sender, on o: an administrator's call, which waits while
 * polkitd is asked about org.realtimed.manage for sender's connection,
 * and polkitd's answer yes or no. Returns the call's answer; unrefs m. */
DBusMessage *bus_fixture_call_via_polkit(Daemon *d, const BusObject *o, DBusMessage *m,
					 const char *sender, bool yes);

/* The fake polkitd: the CheckAuthorization calls waiting for an answer,
 * in the order they came. */
size_t bus_fixture_n_checks(void);
DBusMessage *bus_fixture_check(size_t i);
/* polkitd's answer to check: authorized or not. */
DBusMessage *bus_fixture_polkit_answer(DBusMessage *check, bool yes);
/* Its answer to every call waiting: authorized or not. */
void bus_fixture_answer_checks(bool yes);
/* Its answer to every call waiting: the error name. */
void bus_fixture_fail_checks(const char *name);
/* Forgets the calls waiting, unanswered. */
void bus_fixture_drop_checks(void);
/* The subject of a check: its kind ("unix-process", "system-bus-name"),
 * and *ret_uid its uid detail ((uid_t)-1: none); *ret_name (may be NULL)
 * its name detail (NULL: none), valid as long as m. */
const char *bus_fixture_check_subject(DBusMessage *m, uid_t *ret_uid, const char **ret_name);
/* The action a check asks about. */
const char *bus_fixture_check_action(DBusMessage *m);
