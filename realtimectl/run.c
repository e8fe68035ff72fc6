/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimectl run [--fifo PRIO|--rr PRIO] [--nice N] [--limits] [--] COMMAND...:
 * asks realtimed for the policy's rlimits (GrantLimits), a realtime
 * priority or a nice level for this very process, then execs COMMAND in
 * it, which keeps them. This is how an unmodified program started outside
 * a login session with the limits (e.g. jackd -R, which sets its own
 * SCHED_FIFO within RLIMIT_RTPRIO) gets what policy allows. With none of
 * the options, --limits is implied.
 *
 * realtimectl run --threads [--] COMMAND...: asks for nothing; execs COMMAND
 * with librealtime-preload.so added to LD_PRELOAD, so that each thread
 * COMMAND asks the kernel to make realtime and the kernel refuses is
 * granted by realtimed, one by one, supervised (librealtime(3)).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bus.h"
#include "ctl.h"
#include "macro.h"

static int request_grants(const Ctl *ctl)
{
	_cleanup_bus_connection_ DBusConnection *c = NULL;
	dbus_uint64_t self = 0; /* pid 0, tid 0: the caller's main thread */
	int r;

	r = bus_open(&c);
	if (r > 0)
		return r;

	if (ctl->limits) {
		_cleanup_bus_message_ DBusMessage *reply = NULL;

		r = bus_call(c, "GrantLimits", "get the policy's resource limits from realtimed",
			     false, "a{st}", &reply, DBUS_TYPE_UINT64, &self, DBUS_TYPE_INVALID);
		if (r > 0)
			return r;
	}
	if (ctl->sched_policy) {
		_cleanup_free_ char *what = NULL;

		if (asprintf(&what, "get SCHED_%s %d from realtimed",
			     streq(ctl->sched_policy, "fifo") ? "FIFO" : "RR",
			     ctl->run_priority) < 0)
			return ctl_oom();
		r = bus_make_thread_realtime(c, 0, 0, ctl->sched_policy, ctl->run_priority, what);
		if (r > 0)
			return r;
	}
	if (ctl->have_nice) {
		_cleanup_free_ char *what = NULL;

		if (asprintf(&what, "get nice level %d from realtimed", ctl->nice) < 0)
			return ctl_oom();
		r = bus_make_thread_high_priority(c, 0, 0, ctl->nice, what);
		if (r > 0)
			return r;
	}
	/* The private connection is closed here, before exec: COMMAND inherits no bus fd. */
	return CTL_EXIT_OK;
}

/* LD_PRELOAD with the preload after what is there already ($REALTIME_PRELOAD,
 * else the installed one). Returns an exit status on failure, -1 on success. */
static int set_preload(void)
{
	const char *path = secure_getenv("REALTIME_PRELOAD") ?: REALTIME_PRELOAD_PATH;
	const char *old = getenv("LD_PRELOAD");
	_cleanup_free_ char *new = NULL;

	/* ld.so splits LD_PRELOAD at spaces and colons */
	if (isempty(path) || strpbrk(path, " :\t")) {
		fprintf(stderr,
			"Cannot preload '%s': LD_PRELOAD takes no paths with spaces or colons.\n",
			path);
		return CTL_EXIT_USAGE;
	}
	if (access(path, R_OK) < 0) {
		fprintf(stderr, "Cannot use %s: %s.\n%s", path, strerror(errno),
			getenv("REALTIME_PRELOAD")
				? ""
				: "Set REALTIME_PRELOAD to where librealtime-preload.so is.\n");
		return CTL_EXIT_FAILED;
	}
	if (isempty(old))
		return setenv("LD_PRELOAD", path, 1) < 0 ? ctl_oom() : -1;
	if (asprintf(&new, "%s %s", old, path) < 0 || setenv("LD_PRELOAD", new, 1) < 0)
		return ctl_oom();
	return -1;
}

int verb_run(Ctl *ctl, int argc, char **argv)
{
	Ctl c = *ctl;
	int r;

	if (argc > 0 && streq(argv[0], "--")) {
		argc--;
		argv++;
	}
	if (argc < 1)
		return ctl_usage_error("usage: realtimectl run [--fifo PRIO|--rr PRIO] [--nice N] "
				       "[--limits] [--threads] [--] COMMAND [ARG...]");
	if (c.json)
		return ctl_usage_error("run prints nothing of its own; --json does not apply.");
	/* "--fifo" before the verb is grant's flag, without a priority. */
	if (c.sched_policy && c.run_priority < 0)
		return ctl_usage_error(
			"run takes the priority with the policy: run --%s PRIO -- COMMAND",
			c.sched_policy);
	/* --threads asks for no rlimits: realtimed grants thread by thread */
	if (!c.sched_policy && !c.have_nice && !c.threads)
		c.limits = true;

	if (c.limits || c.sched_policy || c.have_nice) {
		r = request_grants(&c);
		if (r > 0) {
			fprintf(stderr, "Not starting %s.\n", argv[0]);
			return r;
		}
	}
	if (c.threads) {
		r = set_preload();
		if (r >= 0) {
			fprintf(stderr, "Not starting %s.\n", argv[0]);
			return r;
		}
	}

	execvp(argv[0], argv);
	r = errno;
	fprintf(stderr, "Failed to execute %s: %s\n", argv[0], strerror(r));
	/* As the shell does: 127 not found, 126 found but not executable. */
	return r == ENOENT ? 127 : 126;
}
