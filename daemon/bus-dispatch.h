/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one dispatcher of both objects: each object is a table of its
 * methods (name, signature, who may call it, handler), as sd-bus's vtables
 * and dbus-broker's driver table are, and bus_dispatch() finds the method,
 * checks the signature and the caller, and runs the handler. It answers
 * what every object has alike: org.freedesktop.DBus.Properties (bus-props.h's
 * table), org.freedesktop.DBus.Introspectable from the object's XML, and an
 * unknown method of the object's interface (or of none) with
 * org.freedesktop.DBus.Error.UnknownMethod. A call on another interface is
 * left to libdbus. The XML must list every method of the tables
 * (test-daemon-bus-dispatch checks it).
 *
 * Also the pieces the handlers share: a call parked until polkit or a
 * user's lookup answers (BusParkedCall), and replies built in an array.
 */
#pragma once

#include <dbus/dbus.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "daemon.h"

/* Who may call a method, checked after its signature. */
typedef enum BusCaller {
	BUS_CALLER_ANYONE, /* whom the bus policy lets call it */
	BUS_CALLER_ROOT,   /* uid 0 only: PermissionDenied in the object's flavour */
	/* root, or polkit's org.realtimed.manage (bus-admin.h) */
	BUS_CALLER_MANAGE,
	/* the user the first argument (a uid, signature "u...") names, or as
	 * BUS_CALLER_MANAGE */
	BUS_CALLER_SELF_OR_MANAGE,
	_BUS_CALLER_MAX,
	_BUS_CALLER_INVALID = -EINVAL,
} BusCaller;

typedef struct BusObject BusObject;

/* Runs a call whose signature and caller passed; replies to m, now or
 * later (it takes its own reference on m to answer later). */
typedef void (*bus_method_fn)(Daemon *d, DBusMessage *m, const BusObject *o);

typedef struct BusMethod {
	const char *name;
	const char *signature; /* of the arguments, exactly */
	BusCaller caller;
	/* BUS_CALLER_*MANAGE: what needs it, for the refusal
	 * ("Reloading the policy"); a static string */
	const char *what;
	bus_method_fn run;
	/* a grant request: counted against its user's ActionsPerBurst= when
	 * taken up, and not paced while that window has room (bus-queue.h) */
	bool counted;
} BusMethod;

struct BusObject {
	const char *path;
	const char *iface; /* the object's own interface */
	BusFlavour flavour;
	const BusMethod *methods; /* of iface */
	size_t n_methods;
	const char *introspection_xml;
};

/* The BusObject of methods, a static array. */
#define BUS_OBJECT(p, i, f, m, xml)                                        \
	{                                                                  \
		.path = (p), .iface = (i), .flavour = (f), .methods = (m), \
		.n_methods = ELEMENTSOF(m), .introspection_xml = (xml)     \
	}

/* The method of table[0..n) named name, or NULL. */
const BusMethod *bus_method_find(const BusMethod *table, size_t n, const char *name);
/* Whether m calls a method of o that is counted (BusMethod.counted). */
bool bus_object_counts(const BusObject *o, DBusMessage *m);

/* Answers m, a message on o's path. */
DBusHandlerResult bus_dispatch(Daemon *d, const BusObject *o, DBusMessage *m);
/* Serves o at its path on d->bus through bus_dispatch(), until
 * dbus_connection_unregister_object_path(). */
int bus_object_register(Daemon *d, const BusObject *o);

typedef struct RequestArgs RequestArgs;

/* The D-Bus error name of code (a RequestError, request.h, or a negative
 * errno: Failed) in flavour f's interface: the one table of answers. */
const char *bus_error_name(int code, BusFlavour f);
/* The answer hook (DaemonHooks.answer) of every request. */
void bus_answer(Daemon *d, DBusMessage *m, BusFlavour flavour, int code, const char *why,
		DBusMessage *reply);
/* request_start() of args for m, a call on o, with the caller's
 * credentials from the bus (answered Failed without them). */
void bus_request_start(Daemon *d, DBusMessage *m, const BusObject *o, RequestArgs *args);

/* The uid of m's sender (bus_get_creds()); without it, answers m
 * (native) Failed and returns < 0. */
int bus_get_caller_uid(Daemon *d, DBusMessage *m, uid_t *ret_uid);

/* A call that waits (polkit, a user's lookup: user-wait.h) and is carried
 * on later: it holds a reference on m. */
typedef struct BusParkedCall {
	Daemon *d;
	DBusMessage *m;
	const BusObject *o;
	const BusMethod *method; /* bus-admin.c: what runs once authorized */
	uid_t uid;		 /* the caller's, or whose grants (ListGrants) */
} BusParkedCall;

BusParkedCall *bus_parked_call_new(Daemon *d, DBusMessage *m, const BusObject *o,
				   const BusMethod *method, uid_t uid);
/* Takes a BusParkedCall (or NULL); a free_userdata function. */
void bus_parked_call_free(void *p);

/* A method return to m with an array of element signature sig opened in
 * it; false without memory, and m is answered NoMemory. */
bool bus_reply_open_array(Daemon *d, DBusMessage *m, const char *sig, DBusMessage **ret_reply,
			  DBusMessageIter *ret_it, DBusMessageIter *ret_arr);
/* Closes arr and sends reply when built (everything appended), else answers
 * NoMemory; unrefs reply. */
void bus_reply_close_array(Daemon *d, DBusMessage *m, DBusMessage *reply, DBusMessageIter *it,
			   DBusMessageIter *arr, bool built);

/* A call to the bus driver (org.freedesktop.DBus) of method with one
 * string argument, arg; NULL without memory. */
DBusMessage *bus_driver_call_new(const char *method, const char *arg);
