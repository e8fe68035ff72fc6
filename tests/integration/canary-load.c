/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * canary-load: the load of tests/vm/guest/canary.sh that is not a plain
 * runaway (rt-client spin is that). For the VM only: never grant it
 * realtime on a host.
 *
 *   canary-load lower SECS --go FILE
 *	Prints "pid P", waits until FILE exists, then until realtimed made
 *	it SCHED_FIFO/RR (10 s at most), then sets itself back to
 *	SCHED_OTHER at nice -15 (lowering needs no privilege; the nice
 *	needs an RLIMIT_NICE of 35) and busy-loops for SECS: a granted
 *	thread that holds a CPU without running realtime. Prints
 *	"lowered to SCHED_OTHER nice N, spun M ms" and exits 0.
 *   canary-load periodic SECS PERIOD_US WORK_US
 *	Prints "pid P", waits until it is SCHED_FIFO/RR (10 s at most), then
 *	for SECS wakes every PERIOD_US (absolute CLOCK_MONOTONIC), works
 *	WORK_US and sleeps again, as JACK's process thread does. Prints
 *	"periodic: realtime all along, N periods" and exits 0, or
 *	"periodic: demoted after N ms" as soon as it is no longer realtime
 *	and exits 1.
 */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "rt-self.h"

/* Until realtimed made this thread realtime: false after 10 s. */
static bool wait_realtime(void)
{
	for (int i = 0; i < 1000; i++) {
		if (is_realtime())
			return true;
		usleep(10000);
	}
	return false;
}

static int cmd_lower(long secs, const char *go)
{
	struct sched_param sp = { .sched_priority = 0 };
	volatile unsigned long n = 0;
	uint64_t start, end;

	while (access(go, F_OK) < 0)
		usleep(10000);
	if (!wait_realtime()) {
		printf("never made realtime\n");
		return 1;
	}
	/* with SCHED_RESET_ON_FORK, which realtimed set: clearing it would
	 * need CAP_SYS_NICE */
	if (sched_setscheduler(0, SCHED_OTHER | SCHED_RESET_ON_FORK, &sp) < 0 ||
	    setpriority(PRIO_PROCESS, 0, -15) < 0) {
		printf("could not lower itself: %s\n", strerror(errno));
		return 1;
	}
	start = mono_usec();
	end = start + (uint64_t)secs * 1000000u;
	while (mono_usec() < end)
		n++;
	printf("lowered to SCHED_OTHER nice %d, spun %llu ms\n", getpriority(PRIO_PROCESS, 0),
	       (unsigned long long)((mono_usec() - start) / 1000));
	return 0;
}

static int cmd_periodic(long secs, long period_us, long work_us)
{
	volatile unsigned long n = 0;
	uint64_t start, end;
	struct timespec next;
	unsigned long periods = 0;

	if (!wait_realtime()) {
		printf("never made realtime\n");
		return 1;
	}
	start = mono_usec();
	end = start + (uint64_t)secs * 1000000u;
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (mono_usec() < end) {
		uint64_t t;

		next.tv_nsec += period_us * 1000;
		while (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
		if (!is_realtime()) {
			printf("periodic: demoted after %llu ms\n",
			       (unsigned long long)((mono_usec() - start) / 1000));
			return 1;
		}
		for (t = mono_usec() + (uint64_t)work_us; mono_usec() < t;)
			n++;
		periods++;
		/* a period missed whole (the thread was kept from running)
		 * does not make it work in a burst */
		if (mono_usec() > (uint64_t)next.tv_sec * 1000000u +
					  (uint64_t)next.tv_nsec / 1000u + (uint64_t)period_us)
			clock_gettime(CLOCK_MONOTONIC, &next);
	}
	printf("periodic: realtime all along, %lu periods\n", periods);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("pid %d\n", (int)getpid());
	if (argc == 5 && strcmp(argv[1], "lower") == 0 && strcmp(argv[3], "--go") == 0)
		return cmd_lower(atol(argv[2]), argv[4]);
	if (argc == 5 && strcmp(argv[1], "periodic") == 0)
		return cmd_periodic(atol(argv[2]), atol(argv[3]), atol(argv[4]));
	fprintf(stderr, "usage: canary-load lower SECS --go FILE\n"
			"       canary-load periodic SECS PERIOD_US WORK_US\n");
	return 2;
}
