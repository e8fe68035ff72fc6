/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one dispatcher of the objects' method tables: it checks a call's
 * signature and caller, then runs the handler; it answers Properties,
 * Introspect (the object's XML, which must list every method: a unit test
 * checks) and UnknownMethod alike for every object. Also what the handlers
 * share: parked calls and array replies.
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
	BUS_CALLER_MANAGE, /* root, or polkit's org.realtimed.manage */
	/* the user the first argument (a uid) names, or as BUS_CALLER_MANAGE */
	BUS_CALLER_SELF_OR_MANAGE,
	_BUS_CALLER_MAX,
	_BUS_CALLER_INVALID = -EINVAL,
} BusCaller;

typedef struct BusObject BusObject;

/* Runs a call whose signature and caller passed; replies now, or later
 * with its own reference on m. */
typedef void (*bus_method_fn)(Daemon *d, DBusMessage *m, const BusObject *o);

typedef struct BusMethod {
	const char *name;
	const char *signature; /* of the arguments, exactly */
	BusCaller caller;
	const char *what; /* BUS_CALLER_*MANAGE: for the refusal, "Reloading the policy" */
	bus_method_fn run;
	/* a grant request: counted against ActionsPerBurst= (bus-queue.h) */
	bool counted;
} BusMethod;

struct BusObject {
	const char *path;
	const char *iface; /* the object's own interface */
	BusFlavour flavour;
	const BusMethod *methods;
	size_t n_methods;
	const char *introspection_xml;
};

/* m: a static array */
#define BUS_OBJECT(p, i, f, m, xml)                                        \
	{                                                                  \
		.path = (p), .iface = (i), .flavour = (f), .methods = (m), \
		.n_methods = ELEMENTSOF(m), .introspection_xml = (xml)     \
	}

const BusMethod *bus_method_find(const BusMethod *table, size_t n, const char *name);
/* Whether m calls a counted method of o. */
bool bus_object_counts(const BusObject *o, DBusMessage *m);

DBusHandlerResult bus_dispatch(Daemon *d, const BusObject *o, DBusMessage *m);
/* Serves o at its path through bus_dispatch(). */
int bus_object_register(Daemon *d, const BusObject *o);

typedef struct RequestArgs RequestArgs;

/* The error name of code (a RequestError; a negative errno: Failed) in f. */
const char *bus_error_name(int code, BusFlavour f);
/* DaemonHooks.answer */
void bus_answer(Daemon *d, DBusMessage *m, BusFlavour flavour, int code, const char *why,
		DBusMessage *reply);
/* request_start() with the caller's credentials (answered Failed without). */
void bus_request_start(Daemon *d, DBusMessage *m, const BusObject *o, RequestArgs *args);

/* The uid of m's sender; without it, answers m Failed and returns < 0. */
int bus_get_caller_uid(Daemon *d, DBusMessage *m, uid_t *ret_uid);

/* A call waiting for polkit or a user's lookup; holds a reference on m. */
typedef struct BusParkedCall {
	Daemon *d;
	DBusMessage *m;
	const BusObject *o;
	const BusMethod *method; /* bus-admin.c: what runs once authorized */
	uid_t uid;		 /* the caller's, or whose grants (ListGrants) */
} BusParkedCall;

BusParkedCall *bus_parked_call_new(Daemon *d, DBusMessage *m, const BusObject *o,
				   const BusMethod *method, uid_t uid);
/* A free_userdata function; NULL-safe. */
void bus_parked_call_free(void *p);

/* A method return with an array of sig opened; false (m answered NoMemory)
 * without memory. */
bool bus_reply_open_array(Daemon *d, DBusMessage *m, const char *sig, DBusMessage **ret_reply,
			  DBusMessageIter *ret_it, DBusMessageIter *ret_arr);
/* Sends reply if built and closed, else answers NoMemory; unrefs reply. */
void bus_reply_close_array(Daemon *d, DBusMessage *m, DBusMessage *reply, DBusMessageIter *it,
			   DBusMessageIter *arr, bool built);

/* A call of the bus driver's method with one string argument; NULL: no memory. */
DBusMessage *bus_driver_call_new(const char *method, const char *arg);
