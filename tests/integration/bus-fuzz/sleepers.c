// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sleepers: threads of bus-fuzz that calls aim at. Each starts from its
 * own scheduling baseline, sleeps 1..10 ms at a time and renames itself now
 * and then to a name that is not UTF-8 or holds control bytes; on request
 * it renames itself to a given name, spins to race the daemon's read-back
 * after a grant, or lowers itself from a grant to SCHED_OTHER and spins
 * there (what a user does to make the canary count CPU time that no
 * realtime thread used).
 */
#include <sched.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "victims.h"

typedef struct Sleeper {
	pthread_t thread;
	int index;
	atomic_int tid;
	atomic_bool rename;
	char name[16];
	atomic_ullong spin_until; /* usec, CLOCK_MONOTONIC */
	atomic_bool spinning;
	atomic_uint lower_rounds, lower_ms; /* victims_lower_spin_sleeper() */
	Rng rng;
} Sleeper;

static Sleeper sleepers[SLEEPERS];

/* A realtime thread that finds itself granted while spinning lowers its
 * own priority by one at once (the daemon's read-back then disagrees with
 * what it set), and goes back to sleep. */
static void sleeper_spin(Sleeper *s)
{
	s->spinning = true;
	while (now_usec() < s->spin_until && !victims_stopping) {
		int p = sched_getscheduler(0);
		struct sched_param sp;

		if (p < 0 || ((p & ~SCHED_RESET_ON_FORK) != SCHED_FIFO &&
			      (p & ~SCHED_RESET_ON_FORK) != SCHED_RR))
			continue;
		if (sched_getparam(0, &sp) == 0 && sp.sched_priority > 1) {
			sp.sched_priority--;
			/* the same policy and flag: an unprivileged thread may lower
			 * its priority, not change its policy */
			if (sched_setscheduler(0, p, &sp) == 0)
				stats.races++;
		}
		break;
	}
	s->spin_until = 0;
	s->spinning = false;
}

/* Lowers the calling thread to SCHED_OTHER (the flag kept: an
 * unprivileged thread may not clear it) when it is realtime; true when
 * the kernel then says it is not realtime. */
static bool lower_to_other(void)
{
	struct sched_param sp = { .sched_priority = 0 };
	int p = sched_getscheduler(0);

	if (p < 0)
		return false;
	if (is_rt(p & ~SCHED_RESET_ON_FORK))
		(void)sched_setscheduler(0, SCHED_OTHER | (p & SCHED_RESET_ON_FORK), &sp);
	p = sched_getscheduler(0);
	return p >= 0 && !is_rt(p & ~SCHED_RESET_ON_FORK);
}

/* Rounds of: lower to SCHED_OTHER, spin there for at most 5 ms, sleep.
 * Never a realtime busy loop: it spins only after the kernel said the
 * thread is SCHED_OTHER, and gives up when it cannot lower itself. */
static void sleeper_lower_spin(Sleeper *s)
{
	unsigned ms = s->lower_ms < 5 ? s->lower_ms : 5;

	for (unsigned k = 0; k < s->lower_rounds && !victims_stopping; k++) {
		uint64_t until;

		if (!lower_to_other())
			break;
		until = now_usec() + ms * 1000ULL;
		while (now_usec() < until)
			;
		sleep_usec(5000);
	}
	s->lower_rounds = 0;
}

static void *sleeper_main(void *userdata)
{
	Sleeper *s = userdata;

	victims_set_baseline(s->index);
	victims_add_thread(TARGET_SLEEPER, self_pid, gettid(), s->index);
	s->tid = gettid();
	while (!victims_stopping) {
		if (s->spin_until)
			sleeper_spin(s);
		if (s->lower_rounds)
			sleeper_lower_spin(s);
		if (s->rename) {
			(void)prctl(PR_SET_NAME, s->name);
			s->rename = false;
		} else if (rng_chance(&s->rng, 3)) {
			char name[16];

			gen_comm(&s->rng, name);
			(void)prctl(PR_SET_NAME, name);
		}
		sleep_usec(1000 + rng_below(&s->rng, 9000));
	}
	/* thread exit takes locks in libc and ASan: not as a realtime thread */
	self_drop_realtime();
	return NULL;
}

int sleepers_start(Rng *r)
{
	for (int i = 0; i < SLEEPERS; i++) {
		Sleeper *s = &sleepers[i];
		int e;

		s->index = i;
		rng_seed(&s->rng, rng_next(r), 1000 + i);
		e = pthread_create(&s->thread, NULL, sleeper_main, s);
		if (e != 0)
			return -e;
	}
	for (int i = 0; i < SLEEPERS; i++)
		while (!sleepers[i].tid)
			sleep_usec(1000);
	return 0;
}

void sleepers_stop(void)
{
	for (int i = 0; i < SLEEPERS; i++)
		pthread_join(sleepers[i].thread, NULL);
}

pid_t victims_pick_sleeper(Rng *r, int *ret_index)
{
	int i = (int)rng_below(r, SLEEPERS);

	if (ret_index)
		*ret_index = i;
	return sleepers[i].tid;
}

void victims_rename_sleeper(int i, const char name[16])
{
	Sleeper *s = &sleepers[i];

	if (s->rename)
		return;
	memcpy(s->name, name, 16);
	s->rename = true;
	/* it wakes at least every 10 ms */
	for (int k = 0; k < 50 && s->rename; k++)
		sleep_usec(1000);
}

pid_t victims_race_sleeper(int i, unsigned ms)
{
	Sleeper *s = &sleepers[i];

	if (s->spin_until)
		return 0;
	s->spin_until = now_usec() + ms * 1000ULL;
	for (int k = 0; k < 50 && !s->spinning && s->spin_until; k++)
		sleep_usec(1000);
	return s->spinning ? s->tid : 0;
}

void victims_race_wait(int i)
{
	Sleeper *s = &sleepers[i];

	while (s->spin_until || s->spinning)
		sleep_usec(1000);
}

pid_t victims_lower_spin_sleeper(int i, unsigned rounds, unsigned ms)
{
	Sleeper *s = &sleepers[i];
	unsigned zero = 0;

	s->lower_ms = ms;
	if (!rounds || !atomic_compare_exchange_strong(&s->lower_rounds, &zero, rounds))
		return 0;
	/* it wakes at least every 10 ms; rounds take 10 ms at most each */
	for (unsigned k = 0; k < 100 + 20 * rounds && s->lower_rounds; k++)
		sleep_usec(1000);
	return s->tid;
}

pid_t victims_sleeper_tid(int i)
{
	return sleepers[i].tid;
}
