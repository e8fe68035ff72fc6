/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pthread_create() in librealtime-preload.so, for two cases; every other
 * thread is created by the real pthread_create() untouched:
 *
 *  - explicit realtime attributes (PTHREAD_EXPLICIT_SCHED, SCHED_FIFO or
 *    SCHED_RR) that the kernel refuses (EPERM): the thread is created again
 *    with inherited scheduling and a copy of the caller's other attributes,
 *    and asks realtimed for the policy and priority before the start
 *    routine runs. The creator waits for that answer: pthread_create()
 *    returns 0 with the thread realtime, or EPERM as the kernel did (the
 *    thread then ends without running the start routine).
 *
 *  - inherited scheduling (the default) in a thread that realtimed made
 *    realtime: its grant carries SCHED_RESET_ON_FORK, so the kernel starts
 *    the new thread as SCHED_OTHER where the program expects it to inherit
 *    realtime. The new thread asks for its creator's policy and priority
 *    (the kernel first, then realtimed) before its start routine runs; the
 *    creator does not wait, and a refusal leaves the thread as the kernel
 *    made it.
 */
#include <errno.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdlib.h>

#include "preload.h"

struct start {
	void *(*routine)(void *);
	void *arg;
	int policy;
	int priority;
	/* explicit attributes: the creator waits on done for verdict, and frees this */
	bool creator_waits;
	sem_t done;
	int verdict;
};

static void *start_thread(void *userdata)
{
	struct start *s = userdata;
	void *(*routine)(void *) = s->routine;
	void *arg = s->arg;
	int saved = errno;

	if (s->creator_waits) {
		int r = preload_grant(0, s->policy, s->priority);

		s->verdict = r;
		sem_post(&s->done); /* s is the creator's from here on */
		if (r < 0)
			return NULL;
	} else {
		struct sched_param sp = { .sched_priority = s->priority };
		int policy = s->policy;

		free(s);
		if (REAL(sched_setscheduler)(0, policy | SCHED_RESET_ON_FORK, &sp) < 0 &&
		    errno == EPERM)
			(void)preload_grant(0, policy, sp.sched_priority);
	}
	errno = saved;
	return routine(arg);
}

static bool attr_wants_realtime(const pthread_attr_t *attr, int *ret_policy, int *ret_priority)
{
	struct sched_param sp;
	int inherit, policy;

	if (!attr || pthread_attr_getinheritsched(attr, &inherit) != 0 ||
	    inherit != PTHREAD_EXPLICIT_SCHED || pthread_attr_getschedpolicy(attr, &policy) != 0 ||
	    !policy_is_realtime(policy) || pthread_attr_getschedparam(attr, &sp) != 0)
		return false;
	*ret_policy = policy;
	*ret_priority = sp.sched_priority;
	return true;
}

/* The calling thread's realtime grant, when a thread it creates with attr
 * would lose it to SCHED_RESET_ON_FORK. */
static bool creator_grant(const pthread_attr_t *attr, int *ret_policy, int *ret_priority)
{
	int inherit = PTHREAD_INHERIT_SCHED, policy, saved = errno;
	struct sched_param sp;
	bool r = false;

	if (!preload_changed_scheduling())
		return false;
	if (attr &&
	    (pthread_attr_getinheritsched(attr, &inherit) != 0 || inherit != PTHREAD_INHERIT_SCHED))
		return false;
	policy = sched_getscheduler(0);
	if (policy >= 0 && (policy & SCHED_RESET_ON_FORK) && policy_is_realtime(policy) &&
	    sched_getparam(0, &sp) == 0) {
		*ret_policy = policy & ~SCHED_RESET_ON_FORK;
		*ret_priority = sp.sched_priority;
		r = true;
	}
	errno = saved;
	return r;
}

/* A copy of from with inherited scheduling: detach state, stack (the
 * caller's own, or its size), guard size, scope, CPU affinity and signal
 * mask. glibc has no public copy, and the caller's attributes are theirs
 * (another thread may be using them) so they are not changed in place. */
static int attr_copy_inheriting(const pthread_attr_t *from, pthread_attr_t *to)
{
	size_t guard, size, raw_size;
	int detach, scope, r;
	cpu_set_t cpus;
	sigset_t mask;
	void *addr;

	if (pthread_attr_init(to) != 0)
		return -ENOMEM;
	if (pthread_attr_getdetachstate(from, &detach) != 0 ||
	    pthread_attr_setdetachstate(to, detach) != 0 ||
	    pthread_attr_getguardsize(from, &guard) != 0 ||
	    pthread_attr_setguardsize(to, guard) != 0 || pthread_attr_getscope(from, &scope) != 0 ||
	    pthread_attr_setscope(to, scope) != 0 || pthread_attr_getstacksize(from, &size) != 0 ||
	    pthread_attr_getstack(from, &addr, &raw_size) != 0)
		goto fail;
	/* glibc reports the start of a stack the caller did not give as 0 - size */
	if ((uintptr_t)addr + raw_size == 0) {
		if (pthread_attr_setstacksize(to, size) != 0)
			goto fail;
	} else if (pthread_attr_setstack(to, addr, raw_size) != 0)
		goto fail;
	/* No affinity set reads as every CPU: setting that would undo an inherited
	 * one (taskset), so only a real set is copied. */
	if (pthread_attr_getaffinity_np(from, sizeof(cpus), &cpus) == 0 &&
	    CPU_COUNT(&cpus) < CPU_SETSIZE &&
	    pthread_attr_setaffinity_np(to, sizeof(cpus), &cpus) != 0)
		goto fail;
	r = pthread_attr_getsigmask_np(from, &mask);
	if (r == 0 && pthread_attr_setsigmask_np(to, &mask) != 0)
		goto fail;
	if (pthread_attr_setinheritsched(to, PTHREAD_INHERIT_SCHED) != 0)
		goto fail;
	return 0;
fail:
	pthread_attr_destroy(to);
	return -EINVAL;
}

/* The kernel refused attr's explicit realtime scheduling with refused. */
static int create_granted(pthread_t *thread, const pthread_attr_t *attr, void *(*routine)(void *),
			  void *arg, int policy, int priority, int refused)
{
	pthread_attr_t inherit;
	struct start *s;
	int r, detach, verdict, saved = errno;

	if (attr_copy_inheriting(attr, &inherit) < 0)
		return refused;
	s = calloc(1, sizeof(*s));
	if (!s) {
		pthread_attr_destroy(&inherit);
		errno = saved;
		return refused;
	}
	*s = (struct start){ .routine = routine,
			     .arg = arg,
			     .policy = policy,
			     .priority = priority,
			     .creator_waits = true };
	sem_init(&s->done, 0, 0);
	r = REAL(pthread_create)(thread, &inherit, start_thread, s);
	pthread_attr_getdetachstate(&inherit, &detach);
	pthread_attr_destroy(&inherit);
	if (r != 0) {
		sem_destroy(&s->done);
		free(s);
		errno = saved;
		return refused;
	}
	while (sem_wait(&s->done) < 0 && errno == EINTR)
		;
	verdict = s->verdict;
	sem_destroy(&s->done);
	free(s);
	errno = saved;
	if (verdict < 0) {
		/* it ended without running routine */
		if (detach == PTHREAD_CREATE_JOINABLE)
			pthread_join(*thread, NULL);
		return refused;
	}
	return 0;
}

static int create_inheriting(pthread_t *thread, const pthread_attr_t *attr,
			     void *(*routine)(void *), void *arg, int policy, int priority)
{
	struct start *s = malloc(sizeof(*s));
	int r;

	if (!s)
		return REAL(pthread_create)(thread, attr, routine, arg);
	*s = (struct start){
		.routine = routine, .arg = arg, .policy = policy, .priority = priority
	};
	r = REAL(pthread_create)(thread, attr, start_thread, s);
	if (r != 0)
		free(s);
	return r;
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*routine)(void *),
		   void *arg)
{
	int policy, priority, r;

	if (preload_busy())
		return REAL(pthread_create)(thread, attr, routine, arg);
	if (attr_wants_realtime(attr, &policy, &priority)) {
		r = REAL(pthread_create)(thread, attr, routine, arg);
		if (r != EPERM)
			return r;
		return create_granted(thread, attr, routine, arg, policy, priority, r);
	}
	if (creator_grant(attr, &policy, &priority))
		return create_inheriting(thread, attr, routine, arg, policy, priority);
	return REAL(pthread_create)(thread, attr, routine, arg);
}
