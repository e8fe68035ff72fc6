// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libdbus driven by sd-event; see bus.h. libdbus asks
 * for fds to watch and timeouts to run through callbacks; each becomes an
 * sd-event source whose handler gives control back to libdbus. Incoming
 * messages are dispatched from a defer source that is on only while libdbus
 * says data remains or calls wait, so an idle daemon sleeps in epoll. Method
 * calls for realtimed's objects wait in one queue per caller and are served
 * in turn (bus-queue.h): their paths are added with bus_add_path(). A
 * sender that leaves the bus has its queued calls dropped (the match
 * below).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "bus-queue.h"
#include "bus.h"
#include "log.h"
#include "time-util.h"
#include "utf8.h"

/*
 * libdbus's socket transport has two watches on the one socket, one for
 * reading and one for writing, and sd-event takes an fd only once: the two
 * share one io source (WatchFd), whose events are the enabled watches' union.
 * (With a source per watch, the write watch could never be added while the
 * read watch was: replies that did not fit the socket at once stayed in
 * libdbus's outgoing queue until something else was sent.)
 */
#define WATCH_FDS_MAX 4

typedef struct Watches Watches;

typedef struct WatchFd {
	Watches *owner;
	int fd;
	sd_event_source *source;
	DBusWatch *watch[2];
} WatchFd;

struct Watches {
	sd_event *event;
	DBusConnection *conn;
	WatchFd fds[WATCH_FDS_MAX];
	/* woken when the socket took what waited to be written, and by
	 * pace_timer when a paced user's call is due (on_dispatch()) */
	sd_event_source *dispatch;
	sd_event_source *pace_timer;
	BusQueue *queue;
};

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	WatchFd *wf = userdata;
	unsigned flags = 0;

	if (revents & EPOLLIN)
		flags |= DBUS_WATCH_READABLE;
	if (revents & EPOLLOUT)
		flags |= DBUS_WATCH_WRITABLE;
	if (revents & EPOLLHUP)
		flags |= DBUS_WATCH_HANGUP;
	if (revents & EPOLLERR)
		flags |= DBUS_WATCH_ERROR;
	for (size_t i = 0; i < ELEMENTSOF(wf->watch); i++) {
		DBusWatch *w = wf->watch[i];
		unsigned mine;

		if (!w || !dbus_watch_get_enabled(w))
			continue;
		/* a hang-up or error goes to each watch; readiness to its own */
		mine = flags & (dbus_watch_get_flags(w) | DBUS_WATCH_HANGUP | DBUS_WATCH_ERROR);
		if (mine)
			dbus_watch_handle(w, mine);
		/* handling may have removed the other watch */
		if (!wf->source)
			break;
	}
	/* calls wait for the replies before them to be written (on_dispatch) */
	if (wf->owner->dispatch && wf->owner->queue && bus_queue_length(wf->owner->queue) > 0)
		sd_event_source_set_enabled(wf->owner->dispatch, SD_EVENT_ON);
	return 0;
}

static void watch_fd_update(WatchFd *wf)
{
	uint32_t ev = 0;

	for (size_t i = 0; i < ELEMENTSOF(wf->watch); i++) {
		DBusWatch *w = wf->watch[i];
		unsigned flags;

		if (!w || !dbus_watch_get_enabled(w))
			continue;
		flags = dbus_watch_get_flags(w);
		if (flags & DBUS_WATCH_READABLE)
			ev |= EPOLLIN;
		if (flags & DBUS_WATCH_WRITABLE)
			ev |= EPOLLOUT;
	}
	/* no events asked: off, as sd-event would still report hang-ups */
	if (ev)
		sd_event_source_set_io_events(wf->source, ev);
	sd_event_source_set_enabled(wf->source, ev ? SD_EVENT_ON : SD_EVENT_OFF);
}

static dbus_bool_t add_watch(DBusWatch *w, void *data)
{
	Watches *ws = data;
	int fd = dbus_watch_get_unix_fd(w);
	WatchFd *wf = NULL, *unused = NULL;

	for (size_t i = 0; i < WATCH_FDS_MAX; i++) {
		if (ws->fds[i].source && ws->fds[i].fd == fd)
			wf = &ws->fds[i];
		else if (!ws->fds[i].source && !unused)
			unused = &ws->fds[i];
	}
	if (!wf) {
		if (!unused)
			return FALSE;
		wf = unused;
		wf->owner = ws;
		/* enabled by watch_fd_update() below, when a watch wants events */
		if (sd_event_add_io(ws->event, &wf->source, fd, EPOLLIN, on_io, wf) < 0)
			return FALSE;
		wf->fd = fd;
	}
	if (!wf->watch[0])
		wf->watch[0] = w;
	else if (!wf->watch[1])
		wf->watch[1] = w;
	else
		return FALSE;
	dbus_watch_set_data(w, wf, NULL);
	watch_fd_update(wf);
	return TRUE;
}

static void remove_watch(DBusWatch *w, void *data)
{
	WatchFd *wf = dbus_watch_get_data(w);

	if (!wf)
		return;
	dbus_watch_set_data(w, NULL, NULL);
	for (size_t i = 0; i < ELEMENTSOF(wf->watch); i++)
		if (wf->watch[i] == w)
			wf->watch[i] = NULL;
	if (wf->watch[0] || wf->watch[1]) {
		watch_fd_update(wf);
		return;
	}
	wf->source = sd_event_source_disable_unref(wf->source);
	wf->fd = -1;
}

static void toggle_watch(DBusWatch *w, void *data)
{
	WatchFd *wf = dbus_watch_get_data(w);

	if (wf)
		watch_fd_update(wf);
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *userdata)
{
	DBusTimeout *t = userdata;

	/* libdbus timeouts repeat until removed or disabled. */
	sd_event_source_set_time(s, usec + (uint64_t)dbus_timeout_get_interval(t) * 1000ULL);
	sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	dbus_timeout_handle(t);
	return 0;
}

static void arm_timeout(DBusTimeout *t, sd_event_source *s)
{
	sd_event_source_set_time(s, now_usec(CLOCK_MONOTONIC) +
					    (uint64_t)dbus_timeout_get_interval(t) * 1000ULL);
	sd_event_source_set_enabled(s,
				    dbus_timeout_get_enabled(t) ? SD_EVENT_ONESHOT : SD_EVENT_OFF);
}

static dbus_bool_t add_timeout(DBusTimeout *t, void *data)
{
	sd_event *e = data;
	sd_event_source *s;

	if (sd_event_add_time(e, &s, CLOCK_MONOTONIC, UINT64_MAX, 1000, on_timeout, t) < 0)
		return FALSE;
	dbus_timeout_set_data(t, s, NULL);
	arm_timeout(t, s);
	return TRUE;
}

static void remove_timeout(DBusTimeout *t, void *data)
{
	sd_event_source *s = dbus_timeout_get_data(t);

	if (s) {
		dbus_timeout_set_data(t, NULL, NULL);
		sd_event_source_disable_unref(s);
	}
}

static void toggle_timeout(DBusTimeout *t, void *data)
{
	sd_event_source *s = dbus_timeout_get_data(t);

	if (s)
		arm_timeout(t, s);
}

/* The connection's BusQueue, stored as connection data. */
static dbus_int32_t queue_slot = -1;

BusQueue *bus_queue_of(DBusConnection *c)
{
	return queue_slot < 0 ? NULL : dbus_connection_get_data(c, queue_slot);
}

static DBusHandlerResult on_queue_filter(DBusConnection *c, DBusMessage *m, void *data)
{
	return bus_queue_push(data, c, m, now_usec(CLOCK_MONOTONIC))
		       ? DBUS_HANDLER_RESULT_HANDLED
		       : DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
}

/* Every unique name that leaves the bus, for the queue to drop its calls
 * (bus_queue_push()): as bus-native-demoted.c's matches, with no new owner
 * (arg2) in place of one name. */
#define SENDERS_GONE_MATCH                                                   \
	"type='signal',sender='" DBUS_SERVICE_DBUS "',path='" DBUS_PATH_DBUS \
	"',interface='" DBUS_INTERFACE_DBUS "',member='NameOwnerChanged',arg2=''"

/* How many messages one turn of the loop takes in, and how many queued calls
 * it serves, so that signals, pidfds and timers get a turn. Taking in is
 * cheap (a call joins its sender's queue); it runs ahead of serving, so that
 * a caller behind a burst reaches its queue while the burst is served. */
#define DISPATCH_TAKE_MAX 1024
#define DISPATCH_SERVE_MAX 16
/* A few small replies' worth (the kernel doubles it and counts each
 * message's buffer overhead): see on_dispatch(). */
#define BUS_SNDBUF 4096

static int on_pace_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	Watches *ws = userdata;

	sd_event_source_set_enabled(ws->dispatch, SD_EVENT_ON);
	return 0;
}

/* Wakes on_dispatch() in wait usec, when a paced user's call is due. */
static void pace_timer_arm(Watches *ws, uint64_t now, uint64_t wait)
{
	if (!ws->pace_timer && sd_event_add_time(ws->event, &ws->pace_timer, CLOCK_MONOTONIC,
						 UINT64_MAX, 1000, on_pace_timer, ws) < 0) {
		/* no timer: look again at the next message */
		ws->pace_timer = NULL;
		return;
	}
	sd_event_source_set_time(ws->pace_timer, now + wait);
	sd_event_source_set_enabled(ws->pace_timer, SD_EVENT_ONESHOT);
}

static int on_dispatch(sd_event_source *s, void *userdata)
{
	Watches *ws = userdata;
	DBusConnection *c = ws->conn;
	BusQueue *q = ws->queue;
	uint64_t now = now_usec(CLOCK_MONOTONIC), wait = 0;
	bool more = false;
	int n = 0;

	while (n < DISPATCH_TAKE_MAX) {
		if (dbus_connection_dispatch(c) == DBUS_DISPATCH_DATA_REMAINS) {
			n++;
			continue;
		}
		/* what else the socket holds, without waiting */
		if (!dbus_connection_read_write(c, 0) ||
		    dbus_connection_get_dispatch_status(c) != DBUS_DISPATCH_DATA_REMAINS)
			break;
	}
	if (n >= DISPATCH_TAKE_MAX)
		more = true;
	/*
	 * A call is served only once the replies before it are written: what
	 * realtimed writes, dbus-daemon routes in order, so replies sent ahead
	 * of their turn would stand in front of the next caller's as surely
	 * as calls did. The socket's send buffer is kept small for this
	 * (bus_attach_event()); when it is full, on_io() wakes us once it
	 * has room. Calls of users past their pace wait for pace_timer.
	 */
	for (n = 0; n < DISPATCH_SERVE_MAX; n++) {
		if (dbus_connection_has_messages_to_send(c))
			break;
		if (!bus_queue_serve(q, c, now, &wait))
			break;
	}
	if (bus_queue_length(q) > 0) {
		if (n == DISPATCH_SERVE_MAX && !dbus_connection_has_messages_to_send(c))
			more = true;
		else if (wait > 0 || dbus_connection_has_messages_to_send(c))
			/* paced, or replies unwritten: on_io() wakes us when the
			 * socket takes them, but another path may write them
			 * first (a signal sent from a timer), so look again in
			 * a millisecond at the latest */
			pace_timer_arm(ws, now, wait > 0 ? wait : 1000);
		/* else every caller waits for its uid: the answer wakes us */
	}
	if (dbus_connection_get_dispatch_status(c) == DBUS_DISPATCH_DATA_REMAINS)
		more = true;
	if (!more)
		sd_event_source_set_enabled(s, SD_EVENT_OFF);
	return 0;
}

static void on_dispatch_status(DBusConnection *c, DBusDispatchStatus status, void *data)
{
	sd_event_source *s = data;

	if (status == DBUS_DISPATCH_DATA_REMAINS)
		sd_event_source_set_enabled(s, SD_EVENT_ON);
}

static void queue_free(void *q)
{
	bus_queue_free(q);
}

static void watches_free(void *data)
{
	Watches *ws = data;

	sd_event_source_disable_unref(ws->pace_timer);
	free(ws);
}

int bus_attach_event(DBusConnection *c, sd_event *e, Users *users, sd_event_source **ret_dispatch)
{
	BusQueue *q = NULL;
	sd_event_source *s;
	Watches *ws;
	int fd, r;

	if (!dbus_connection_allocate_data_slot(&queue_slot))
		return -ENOMEM;
	r = bus_queue_new(users, &q);
	if (r < 0)
		return r;
	if (!dbus_connection_set_data(c, queue_slot, q, queue_free)) {
		bus_queue_free(q);
		return -ENOMEM;
	}
	/* first, so that calls are queued before any other filter sees them */
	if (!dbus_connection_add_filter(c, on_queue_filter, q, NULL))
		return -ENOMEM;
	dbus_bus_add_match(c, SENDERS_GONE_MATCH, NULL); /* NULL: not waited for */
	ws = calloc(1, sizeof(*ws));
	if (!ws)
		return -ENOMEM;
	r = sd_event_add_defer(e, &s, on_dispatch, ws);
	if (r < 0) {
		free(ws);
		return r;
	}
	*ws = (Watches){ .event = e, .conn = c, .dispatch = s, .queue = q };
	if (!dbus_connection_set_watch_functions(c, add_watch, remove_watch, toggle_watch, ws,
						 watches_free) ||
	    !dbus_connection_set_timeout_functions(c, add_timeout, remove_timeout, toggle_timeout,
						   e, NULL)) {
		sd_event_source_unref(s);
		return -ENOMEM;
	}
	dbus_connection_set_dispatch_status_function(c, on_dispatch_status, s, NULL);
	if (dbus_connection_get_socket(c, &fd)) {
		int size = BUS_SNDBUF;

		/* best effort: a larger buffer costs fairness, not correctness */
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	}
	*ret_dispatch = s;
	return 0;
}

int bus_add_path(DBusConnection *c, const char *path, const DBusObjectPathVTable *vtable,
		 void *data)
{
	BusQueue *q = bus_queue_of(c);
	int r;

	if (q) {
		r = bus_queue_add_object(q, path, vtable, data);
		if (r < 0)
			return r;
	}
	/* libdbus keeps the object too: it lists it to introspection of the
	 * parent paths, serves what the queue does not take, and owns data
	 * (its unregister function) once this succeeded */
	if (!dbus_connection_register_object_path(c, path, vtable, data)) {
		if (q)
			bus_queue_remove_object(q, path);
		return -ENOMEM;
	}
	return 0;
}

void bus_remove_path(DBusConnection *c, const char *path)
{
	BusQueue *q = bus_queue_of(c);

	if (q)
		bus_queue_remove_object(q, path);
	dbus_connection_unregister_object_path(c, path);
}

/* Every string realtimed sends goes through bus_append_string() or
 * bus_reply_error(), which make it valid UTF-8 (utf8.h): libdbus aborts the
 * process on one that is not, and a thread's name, a file name or a
 * caller's argument cut to fit a buffer may be anything. */
void bus_send(DBusConnection *c, DBusMessage *reply)
{
	if (reply)
		dbus_connection_send(c, reply, NULL);
}

static bool append_escaped(DBusMessageIter *it, const char *s, Utf8EscapeFlags flags)
{
	_cleanup_free_ char *escaped = NULL;
	size_t n = utf8_escape(s, flags, NULL, 0);

	/* the common case: nothing to escape, nothing to copy */
	if (n == strlen(s))
		return dbus_message_iter_append_basic(it, DBUS_TYPE_STRING, &s);
	escaped = malloc(n + 1);
	if (!escaped)
		return false;
	utf8_escape(s, flags, escaped, n + 1);
	return dbus_message_iter_append_basic(it, DBUS_TYPE_STRING, &escaped);
}

bool bus_append_string(DBusMessageIter *it, const char *s)
{
	return append_escaped(it, s, 0);
}

bool bus_append_text(DBusMessageIter *it, const char *s)
{
	return append_escaped(it, s, UTF8_ESCAPE_KEEP_NEWLINE);
}

void bus_reply_error(DBusConnection *c, DBusMessage *m, const char *name, const char *format, ...)
{
	_cleanup_msg_ DBusMessage *reply = NULL;
	/* Escaping makes at most four bytes of one: the escaped text always fits. */
	char text[512], escaped[sizeof(text) * 4];
	va_list ap;

	if (dbus_message_get_no_reply(m))
		return;
	va_start(ap, format);
	utf8_vsnprintf(text, sizeof(text), format, ap);
	va_end(ap);
	utf8_escape(text, 0, escaped, sizeof(escaped));
	reply = dbus_message_new_error(m, name, escaped);
	if (reply)
		dbus_connection_send(c, reply, NULL);
}

bool bus_check_signature(DBusConnection *c, DBusMessage *m, const char *sig)
{
	if (dbus_message_has_signature(m, sig))
		return true;
	bus_reply_error(c, m, DBUS_ERROR_INVALID_ARGS,
			"Expected arguments of signature '%s', got '%s'", sig,
			dbus_message_get_signature(m));
	return false;
}

void bus_reply_empty(DBusConnection *c, DBusMessage *m)
{
	_cleanup_msg_ DBusMessage *reply = NULL;

	if (dbus_message_get_no_reply(m))
		return;
	reply = dbus_message_new_method_return(m);
	if (reply)
		dbus_connection_send(c, reply, NULL);
}

bool bus_append_variant(DBusMessageIter *it, int type, const void *value)
{
	DBusMessageIter v;
	char sig[2] = { (char)type, 0 };

	if (!dbus_message_iter_open_container(it, DBUS_TYPE_VARIANT, sig, &v))
		return false;
	if (!dbus_message_iter_append_basic(&v, type, value)) {
		dbus_message_iter_abandon_container(it, &v);
		return false;
	}
	return dbus_message_iter_close_container(it, &v);
}

bool bus_append_dict_variant(DBusMessageIter *dict, const char *key, int type, const void *value)
{
	DBusMessageIter e;

	if (!dbus_message_iter_open_container(dict, DBUS_TYPE_DICT_ENTRY, NULL, &e))
		return false;
	if (!bus_append_string(&e, key) || !bus_append_variant(&e, type, value)) {
		dbus_message_iter_abandon_container(dict, &e);
		return false;
	}
	return dbus_message_iter_close_container(dict, &e);
}
