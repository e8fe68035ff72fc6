// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bus-fuzz --probe: another user, not part of the fuzzing, whose grants
 * must keep succeeding whatever the fuzzers do. It holds one grant all
 * along (a sleeping thread at rr 1: it counts among the users, so that
 * UsersMax cannot shut it out), and every interval asks for realtime on
 * the main thread of a new child process, then resets it. A new process
 * each time, so that a user whom polkit authorizes is asked about each
 * time (polkit's "yes" is cached per process). Any failure but the
 * canary's documented refusal (Realtime1.Error.Refusing) is a violation,
 * and LimitsExceeded while the standing grant is gone (the canary demotes
 * it too; it is asked for again then);
 * so is no answer within PROBE_TIMEOUT_MS (libdbus's default timeout, what
 * a client waits; longer than the fuzzers' own, so that a loaded machine
 * alone does not fail it).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../system-bus.h"
#include "bus-fuzz.h"

#define PROBE_SAMPLES 65536
#define PROBE_TIMEOUT_MS 25000

static int pipefd[2] = { -EBADF, -EBADF };
static atomic_int standing_tid;

static void *standing_main(void *userdata)
{
	char c;

	standing_tid = gettid();
	while (read(pipefd[0], &c, 1) < 0 && errno == EINTR)
		;
	self_drop_realtime();
	return NULL;
}

/* MakeThreadRealtime(pid, tid, "rr", 1); NULL and the error in e on failure. */
static bool grant(DBusConnection *bus, pid_t pid, pid_t tid, DBusError *e)
{
	uint64_t p = (uint64_t)pid, t = (uint64_t)tid;
	uint32_t prio = 1;
	const char *pol = "rr";
	DBusMessage *m = call_new(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, "MakeThreadRealtime");

	call_append(m, DBUS_TYPE_UINT64, &p, DBUS_TYPE_UINT64, &t, DBUS_TYPE_STRING, &pol,
		    DBUS_TYPE_UINT32, &prio, DBUS_TYPE_INVALID);
	return bus_call(bus, m, PROBE_TIMEOUT_MS, e);
}

static void reset(DBusConnection *bus, pid_t pid, pid_t tid)
{
	uint64_t p = (uint64_t)pid, t = (uint64_t)tid;
	DBusMessage *m = call_new(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, "ResetThread");
	DBusMessage *reply;

	call_append(m, DBUS_TYPE_UINT64, &p, DBUS_TYPE_UINT64, &t, DBUS_TYPE_INVALID);
	reply = dbus_connection_send_with_reply_and_block(bus, m, PROBE_TIMEOUT_MS, NULL);
	dbus_message_unref(m);
	if (reply)
		dbus_message_unref(reply);
}

/* Whether ListGrants lists the standing grant; true when it cannot tell. */
static bool standing_listed(DBusConnection *bus)
{
	_cleanup_free_ ListedGrant *g = NULL;
	size_t n = 0;
	char error[512];

	if (list_grants_full(bus, false, &g, &n, error, sizeof(error)) < 0)
		return true;
	for (size_t i = 0; i < n; i++)
		if (g[i].pid == self_pid && g[i].tid == standing_tid)
			return true;
	return false;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int probe_main(unsigned seconds, unsigned interval_ms, uint64_t seed)
{
	static uint64_t took[PROBE_SAMPLES];
	struct rlimit rl = { 100000, 200000 };
	DBusConnection *bus;
	pthread_t standing;
	uint64_t start, end;
	size_t n_took = 0;
	Rng rng;
	DBusError e;
	Desc d = { .len = 0 };
	bool held = false;

	rng_seed(&rng, seed, 4242);
	/* RTTime= of [Default], which covers the probe user */
	(void)setrlimit(RLIMIT_RTTIME, &rl);
	bus = bus_connect_private();
	if (!bus || pipe2(pipefd, O_CLOEXEC) < 0 ||
	    pthread_create(&standing, NULL, standing_main, NULL) != 0) {
		fprintf(stderr, "bus-fuzz: the probe could not start\n");
		return 2;
	}
	while (!standing_tid)
		usleep(100);
	/* the standing grant, before the fuzzers start; polkitd may still be
	 * reading the probe's rule */
	start = now_usec();
	while (!held && now_usec() - start < 15000000ULL) {
		dbus_error_init(&e);
		held = grant(bus, self_pid, standing_tid, &e);
		if (!held) {
			note("probe: no standing grant yet: %s: %s", e.name, e.message);
			dbus_error_free(&e);
			usleep(500000);
		}
	}
	if (!held) {
		fprintf(stderr, "bus-fuzz: the probe got no standing grant in 15 s\n");
		return 2;
	}
	self_drop_realtime();
	printf("bus-fuzz[%s]: probe ready, standing grant on thread %d\n", report_label,
	       (int)standing_tid);
	fflush(stdout);

	start = now_usec();
	end = start + seconds * 1000000ULL;
	desc_add(&d, "(the probe user's grant for a new process)");
	while (now_usec() < end) {
		pid_t child;
		uint64_t t0;

		held = standing_listed(bus);
		if (!held) {
			dbus_error_init(&e);
			held = grant(bus, self_pid, standing_tid, &e);
			note("probe: the standing grant was gone; asked again: %s%s%s",
			     held ? "granted" : e.name, held ? "" : ": ", held ? "" : e.message);
			dbus_error_free(&e);
			self_drop_realtime();
		}
		child = fork();

		if (child < 0)
			break;
		if (child == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (;;)
				pause();
		}
		stats.probes++;
		stats.calls++;
		dbus_error_init(&e);
		t0 = now_usec();
		if (grant(bus, child, child, &e)) {
			stats.ok++;
			if (n_took < PROBE_SAMPLES)
				took[n_took++] = now_usec() - t0;
			reset(bus, child, child);
		} else {
			count_error(e.name ? e.name : "(none)");
			if (streq_ptr(e.name, NATIVE_ERROR "Refusing")) {
				stats.probe_refused++;
				note("probe: refused by the canary's cool-down: %s", e.message);
			} else if (!held && streq_ptr(e.name, NATIVE_ERROR "LimitsExceeded"))
				note("probe: without its standing grant: %s", e.message);
			else
				violation(&d, "another user's grant failed after %.1f s: %s: %s",
					  (double)(now_usec() - t0) / 1e6, e.name, e.message);
			dbus_error_free(&e);
		}
		self_drop_realtime();
		kill(child, SIGKILL);
		(void)waitpid(child, NULL, 0);
		usleep(interval_ms * 1000 / 2 + (useconds_t)rng_below(&rng, interval_ms * 1000));
	}
	qsort(took, n_took, sizeof(took[0]), cmp_u64);
	if (n_took)
		printf("bus-fuzz[%s]: probe grants p50 %" PRIu64 " us, p99 %" PRIu64
		       " us, max %" PRIu64 " us\n",
		       report_label, took[(n_took - 1) / 2], took[(n_took - 1) * 99 / 100],
		       took[n_took - 1]);
	(void)!write(pipefd[1], "x", 1);
	pthread_join(standing, NULL);
	if (!daemon_ping(bus, (char[256]){ 0 }, 256))
		stats.crashes++;
	bus_close_private(bus);
	report_print((double)(now_usec() - start) / 1e6, 0);
	return stats.violations || stats.crashes ? 1 : 0;
}
