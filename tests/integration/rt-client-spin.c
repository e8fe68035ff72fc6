/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt-client spin: a busy loop that notices when it is made realtime and
 * demoted again, the runaway of the VM tier (rt-client.c lists the other
 * subcommands).
 *
 *   rt-client spin SECS [DELAY_MS] [--go FILE] [--self-fifo PRIO] [--repromote MS]
 *	Prints "pid P", sleeps DELAY_MS (or, with --go, until FILE exists, so
 *	that several start together), then busy-loops: the runaway that the VM tier makes
 *	SCHED_FIFO to trigger the canary. Once it has run realtime and is
 *	demoted again, it prints "demoted after N ms of realtime
 *	(CLOCK_MONOTONIC T0 to T1 ms)" and exits 0;
 *	after SECS seconds of wall time it gives up (exit 1), its own safety
 *	net. Never make it realtime on a host.
 *	--self-fifo PRIO: it makes itself SCHED_FIFO PRIO after DELAY_MS,
 *	through its own RLIMIT_RTPRIO (a realtime thread realtimed never
 *	granted). --repromote MS: once demoted, it keeps spinning and calling
 *	sched_setscheduler(SCHED_FIFO) at the priority it had for MS more
 *	milliseconds, as a runaway that fights back would; it prints
 *	"repromote: refused N times (ERROR)" and exits 0 if the kernel never
 *	let it, or "repromote: took SCHED_FIFO again after N ms", demotes
 *	itself at once (so that the VM lives on) and exits 1.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "macro.h"
#include "rt-client.h"
#include "rt-self.h"

/* After a demotion: tries to take SCHED_FIFO prio back for ms. */
static int spin_repromote(int prio, int ms)
{
	struct sched_param sp = { .sched_priority = prio };
	uint64_t start = mono_usec(), end = start + (uint64_t)ms * 1000u;
	volatile unsigned long n = 0;
	unsigned refused = 0;
	int error = 0;

	while (mono_usec() < end) {
		for (int i = 0; i < 20000; i++)
			n++;
		if (sched_setscheduler(0, SCHED_FIFO, &sp) == 0) {
			printf("repromote: took SCHED_FIFO %d again after %" PRIu64 " ms\n", prio,
			       (mono_usec() - start) / 1000);
			sp.sched_priority = 0;
			(void)sched_setscheduler(0, SCHED_OTHER, &sp);
			return 1;
		}
		error = errno;
		refused++;
	}
	printf("repromote: refused %u times (%s)\n", refused, strerror(error));
	return 0;
}

/* spin: busy-loop until the deadline, or until made realtime and then
 * demoted again; reports how long it ran realtime. */
int cmd_spin(int argc, char **argv)
{
	volatile unsigned long n = 0;
	int secs = argc >= 3 ? atoi(argv[2]) : 0;
	int delay_ms = argc >= 4 && argv[3][0] != '-' ? atoi(argv[3]) : 0;
	int self_prio = 0, repromote_ms = 0, rt_prio = 1;
	uint64_t end, rt_since = 0, now;
	const char *go = NULL;

	for (int i = 3; i < argc; i++) {
		if (streq(argv[i], "--go") && i + 1 < argc)
			go = argv[++i];
		else if (streq(argv[i], "--self-fifo") && i + 1 < argc)
			self_prio = atoi(argv[++i]);
		else if (streq(argv[i], "--repromote") && i + 1 < argc)
			repromote_ms = atoi(argv[++i]);
		else if (i > 3 || argv[i][0] == '-') {
			fprintf(stderr, "rt-client spin: unknown argument %s\n", argv[i]);
			return 2;
		}
	}
	if (secs < 1 || secs > 600) {
		fprintf(stderr, "rt-client spin: need 1..600 seconds\n");
		return 2;
	}
	printf("pid %d\n", getpid());
	fflush(stdout);
	/* sleep first, so that the test can grant before the spinning starts */
	if (delay_ms > 0)
		usleep((useconds_t)delay_ms * 1000u);
	for (end = mono_usec() + (uint64_t)secs * 1000000u; go && access(go, F_OK) < 0;) {
		if (mono_usec() > end) {
			printf("never started: no %s\n", go);
			return 1;
		}
		usleep(10000);
	}
	if (self_prio > 0) {
		struct sched_param sp = { .sched_priority = self_prio };

		if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) < 0) {
			printf("could not make itself SCHED_FIFO %d: %s\n", self_prio,
			       strerror(errno));
			return 2;
		}
	}
	end = mono_usec() + (uint64_t)secs * 1000000u;
	do {
		for (int i = 0; i < 20000; i++)
			n++;
		now = mono_usec();
		if (is_realtime()) {
			struct sched_param sp;

			if (rt_since == 0 && sched_getparam(0, &sp) == 0)
				rt_prio = sp.sched_priority;
			if (rt_since == 0)
				rt_since = now;
		} else if (rt_since != 0) {
			printf("demoted after %" PRIu64 " ms of realtime (CLOCK_MONOTONIC %" PRIu64
			       " to %" PRIu64 " ms)\n",
			       (now - rt_since) / 1000, rt_since / 1000, now / 1000);
			fflush(stdout);
			return repromote_ms > 0 ? spin_repromote(rt_prio, repromote_ms) : 0;
		}
	} while (now < end);
	if (rt_since != 0)
		printf("still realtime after %" PRIu64 " ms: not demoted\n",
		       (now - rt_since) / 1000);
	else
		printf("never realtime\n");
	return 1;
}
