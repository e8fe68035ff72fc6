// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "macro.h"
#include "sched-attr.h"
#include "sched-util.h"

int sched_apply(pid_t tid, PolicyGrantKind kind, int value)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_flags = SCHED_FLAG_RESET_ON_FORK,
	};

	switch (kind) {
	case POLICY_GRANT_FIFO:
	case POLICY_GRANT_RR:
		if (value < 1 || value > 99)
			return -EINVAL;
		attr.sched_policy = kind == POLICY_GRANT_FIFO ? SCHED_FIFO : SCHED_RR;
		attr.sched_priority = value;
		break;
	case POLICY_GRANT_NICE:
		if (value < -20 || value > 19)
			return -EINVAL;
		attr.sched_policy = SCHED_OTHER;
		attr.sched_nice = value;
		break;
	case _POLICY_GRANT_KIND_MAX:
	case _POLICY_GRANT_KIND_INVALID:
		return -EINVAL;
	}
	return sched_attr_set(tid, &attr);
}

/* sched_getattr() tells the nice level only under the fair policies. */
static int get_nice(pid_t tid, int *ret)
{
	int nice;

	errno = 0;
	nice = getpriority(PRIO_PROCESS, (id_t)tid);
	/* errno > 0 spelt out, so that -O2 sees *ret set whenever 0 is returned */
	if (nice == -1 && errno > 0)
		return -errno;
	*ret = nice;
	return 0;
}

static bool policy_is_rt_or_deadline(int policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR || policy == SCHED_DEADLINE;
}

int sched_get_state(pid_t tid, SchedState *ret)
{
	struct sched_attr attr = {};
	int r, nice;

	r = sched_attr_get(tid, &attr);
	if (r < 0)
		return r;
	r = get_nice(tid, &nice);
	if (r < 0)
		return r;
	*ret = (SchedState){
		.policy = (int)attr.sched_policy,
		.priority = policy_is_rt_or_deadline((int)attr.sched_policy)
				    ? (int)attr.sched_priority
				    : 0,
		.nice = nice,
		.reset_on_fork = attr.sched_flags & SCHED_FLAG_RESET_ON_FORK,
	};
	return 0;
}

/* At the same nice level SCHED_BATCH, which preempts less, is below OTHER. */
static int sched_rank(const SchedState *s)
{
	switch (s->policy) {
	case SCHED_DEADLINE:
		return 1000;
	case SCHED_FIFO:
	case SCHED_RR:
		return 100 + s->priority;
	case SCHED_IDLE:
		return 0;
	case SCHED_BATCH:
		return 2 * (20 - s->nice); /* 2 (nice 19) .. 80 (nice -20) */
	default:
		return 2 * (20 - s->nice) + 1;
	}
}

/* Down to a fair policy, never up. sched_setscheduler() keeps the nice level
 * the kernel holds now; sched_setattr() would need one read earlier, which a
 * thread may have weakened since. Then the nice level, only ever weakened. */
static int sched_to_fair(pid_t tid, int policy, int nice, bool reset_on_fork)
{
	struct sched_param sp = {};
	int r, now;

	r = RET_NERRNO(
		sched_setscheduler(tid, policy | (reset_on_fork ? SCHED_RESET_ON_FORK : 0), &sp));
	if (r < 0)
		return r;
	r = get_nice(tid, &now);
	if (r < 0)
		return r;
	if (nice > now)
		return RET_NERRNO(setpriority(PRIO_PROCESS, (id_t)tid, nice));
	return 0;
}

bool sched_state_above(const SchedState *a, const SchedState *b)
{
	return sched_rank(a) > sched_rank(b);
}

int sched_restore(pid_t tid, PolicyGrantKind kind, const SchedState *before)
{
	struct sched_attr attr;
	SchedState now, to;
	int r;

	r = sched_get_state(tid, &now);
	if (r < 0)
		return r;
	if (sched_state_known(before))
		to = *before;
	else
		to = (SchedState){ .policy = SCHED_OTHER,
				   .nice = kind == POLICY_GRANT_NICE ? 0 : now.nice,
				   .reset_on_fork = now.reset_on_fork };

	if (sched_state_above(&to, &now))
		return 0;
	if (to.policy == now.policy && to.priority == now.priority && to.nice == now.nice &&
	    to.reset_on_fork == now.reset_on_fork)
		return 0;
	if (to.policy == SCHED_DEADLINE)
		return sched_reset(tid); /* its parameters are not kept */
	if (!policy_is_rt_or_deadline(to.policy))
		return sched_to_fair(tid, to.policy, to.nice, to.reset_on_fork);
	/* it ran realtime before the grant, by some other right */
	attr = (struct sched_attr){
		.size = sizeof(attr),
		.sched_policy = (uint32_t)to.policy,
		.sched_flags = to.reset_on_fork ? SCHED_FLAG_RESET_ON_FORK : 0,
		.sched_priority = (uint32_t)to.priority,
	};
	return sched_attr_set(tid, &attr);
}

int sched_reset(pid_t tid)
{
	SchedState now;
	int r;

	r = sched_get_state(tid, &now);
	if (r < 0)
		return r;
	/* A thread that went to SCHED_IDLE since the read could go back to
	 * SCHED_OTHER at its own nice level by itself: the race gives nothing. */
	if (!policy_is_rt_or_deadline(now.policy))
		return 0;
	return sched_to_fair(tid, SCHED_OTHER, now.nice, now.reset_on_fork);
}

bool sched_state_may_hold(const SchedState *now, PolicyGrantKind kind, int value)
{
	if (!now->reset_on_fork)
		return false;
	if (kind == POLICY_GRANT_NICE)
		return (now->policy == SCHED_OTHER || now->policy == SCHED_BATCH) &&
		       now->nice >= value;
	return (now->policy == SCHED_FIFO || now->policy == SCHED_RR) && now->priority <= value;
}

int sched_state_as_grant(const SchedState *s, PolicyGrantKind *ret_kind, int *ret_value)
{
	switch (s->policy) {
	case SCHED_FIFO:
	case SCHED_RR:
		*ret_kind = s->policy == SCHED_FIFO ? POLICY_GRANT_FIFO : POLICY_GRANT_RR;
		*ret_value = s->priority;
		return 0;
	case SCHED_OTHER:
	case SCHED_BATCH:
		*ret_kind = POLICY_GRANT_NICE;
		*ret_value = s->nice;
		return 0;
	default:
		return -EINVAL;
	}
}

int sched_apply_deadline(pid_t tid, uint64_t runtime_nsec, uint64_t period_nsec)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_DEADLINE,
		/* a SCHED_DEADLINE task may fork only with this flag */
		.sched_flags = SCHED_FLAG_RESET_ON_FORK,
		.sched_runtime = runtime_nsec,
		.sched_deadline = period_nsec,
		.sched_period = period_nsec,
	};

	return sched_attr_set(tid, &attr);
}
