// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The oracle of bus-fuzz: what the kernel says a thread holds (policy,
 * priority, nice, SCHED_RESET_ON_FORK through sched_getattr(); owner, start
 * time and limits through /proc), and whether that is beyond what policy
 * gives the fuzzing user. Written apart from the daemon's own /proc readers
 * on purpose: an oracle that shares the code it checks shares its bugs.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bus-fuzz.h"
#include "procfs-stat.h"
#include "sched-attr.h"

static int read_file(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = 0;
	return 0;
}

/* Reads /proc/PID/task/TID/FILE into buf (size bytes). */
static int read_task_file(pid_t pid, pid_t tid, const char *file, char *buf, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", (int)pid, (int)tid, file);
	return read_file(path, buf, size);
}

int thread_start_time(pid_t pid, pid_t tid, uint64_t *ret)
{
	char buf[1024], *p;
	unsigned long long v;
	int r;

	r = read_task_file(pid, tid, "stat", buf, sizeof(buf));
	if (r < 0)
		return r;
	/* the comm may hold anything, ')' too: fields count from the last ')' */
	p = strrchr(buf, ')');
	if (!p)
		return -EBADMSG;
	/* field 22 is the 20th after the comm */
	if (sscanf(p + 2,
		   "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d "
		   "%llu",
		   &v) != 1)
		return -EBADMSG;
	*ret = v;
	return 0;
}

int thread_uids(pid_t pid, pid_t tid, uid_t ret[3])
{
	char buf[4096], *p;
	unsigned a, b, c;
	int r;

	r = read_task_file(pid, tid, "status", buf, sizeof(buf));
	if (r < 0)
		return r;
	p = strstr(buf, "\nUid:");
	if (!p || sscanf(p + 5, "%u %u %u", &a, &b, &c) != 3)
		return -EBADMSG;
	ret[0] = a;
	ret[1] = b;
	ret[2] = c;
	return 0;
}

int thread_state(pid_t tid, ThreadState *ret)
{
	struct sched_attr a = {};
	int r;

	r = sched_attr_get(tid, &a);
	if (r < 0)
		return r;
	*ret = (ThreadState){
		.policy = (int)a.sched_policy,
		.reset_on_fork = a.sched_flags & SCHED_FLAG_RESET_ON_FORK,
		.prio = (int)a.sched_priority,
		.nice = a.sched_nice,
	};
	return 0;
}

int process_limit(pid_t pid, const char *name, uint64_t *ret_soft, uint64_t *ret_hard)
{
	char path[64], buf[4096], soft[32], hard[32], *p;
	int r;

	snprintf(path, sizeof(path), "/proc/%d/limits", (int)pid);
	r = read_file(path, buf, sizeof(buf));
	if (r < 0)
		return r;
	p = strstr(buf, name);
	if (!p || sscanf(p + strlen(name), "%31s %31s", soft, hard) != 2)
		return -EBADMSG;
	*ret_soft = streq(soft, "unlimited") ? FUZZ_INFINITY : strtoull(soft, NULL, 10);
	*ret_hard = streq(hard, "unlimited") ? FUZZ_INFINITY : strtoull(hard, NULL, 10);
	return 0;
}

const char *const limit_names[_LIM_MAX] = {
	[LIM_RTPRIO] = "Max realtime priority",
	[LIM_RTTIME] = "Max realtime timeout",
	[LIM_NICE] = "Max nice priority",
	[LIM_MEMLOCK] = "Max locked memory",
};

void process_limits(pid_t pid, uint64_t v[_LIM_MAX], bool *ok)
{
	*ok = true;
	for (int i = 0; i < _LIM_MAX; i++) {
		uint64_t soft;

		if (process_limit(pid, limit_names[i], &soft, &v[i]) < 0)
			*ok = false;
	}
}

bool is_rt(int policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

/* An order on what a thread may run with: SCHED_IDLE lowest, then
 * SCHED_OTHER/BATCH by nice, then realtime by priority, deadline above all. */
static int64_t rank(int policy, int prio, int nice)
{
	if (policy == SCHED_IDLE)
		return 0;
	if (policy == SCHED_OTHER || policy == SCHED_BATCH)
		return 100 - nice; /* 81 (nice 19) .. 120 (nice -20) */
	if (is_rt(policy))
		return 1000 + prio;
	return 10000;
}

static bool policy_allows(const Limits *l, const ThreadState *s, uint64_t rttime_hard, char *why,
			  size_t size)
{
	if (s->policy == SCHED_IDLE)
		return true;
	if (s->policy == SCHED_OTHER || s->policy == SCHED_BATCH) {
		if (l->nice_set && s->nice >= l->min_nice)
			return true;
		snprintf(why, size, "%s nice %d, below %s",
			 procfs_sched_policy_to_string(s->policy), s->nice,
			 l->nice_set ? "Nice=" : "0 (Nice= is not set)");
		return false;
	}
	if (!is_rt(s->policy)) {
		snprintf(why, size, "policy %s (%d)", procfs_sched_policy_to_string(s->policy),
			 s->policy);
		return false;
	}
	if (!(l->policies & (s->policy == SCHED_FIFO ? FUZZ_FIFO : FUZZ_RR))) {
		snprintf(why, size, "%s %d, a policy Policies= does not allow",
			 procfs_sched_policy_to_string(s->policy), s->prio);
		return false;
	}
	if (s->prio > l->max_prio) {
		snprintf(why, size, "%s %d, above RealtimePriority=%d",
			 procfs_sched_policy_to_string(s->policy), s->prio, l->max_prio);
		return false;
	}
	if (!s->reset_on_fork) {
		snprintf(why, size, "%s %d without SCHED_RESET_ON_FORK",
			 procfs_sched_policy_to_string(s->policy), s->prio);
		return false;
	}
	if (l->rttime_usec != FUZZ_INFINITY && rttime_hard > l->rttime_usec) {
		snprintf(why, size,
			 "%s %d with a hard RLIMIT_RTTIME of %" PRIu64 " us, above RTTime=%" PRIu64
			 " us",
			 procfs_sched_policy_to_string(s->policy), s->prio, rttime_hard,
			 l->rttime_usec);
		return false;
	}
	return true;
}

bool state_violates(const Limits *l, const ThreadState *s, int base_policy, int base_nice,
		    uint64_t rttime_hard, char *why, size_t size)
{
	char reason[200];

	if (policy_allows(l, s, rttime_hard, reason, sizeof(reason)))
		return false;
	/* Not what policy grants, but no higher than the thread had before
	 * realtimed touched it: the thread's own doing, not a grant. */
	if (rank(s->policy, s->prio, s->nice) <= rank(base_policy, 0, base_nice) &&
	    !is_rt(s->policy))
		return false;
	snprintf(why, size, "%s (the thread started as %s nice %d)", reason,
		 procfs_sched_policy_to_string(base_policy), base_nice);
	return true;
}

void self_drop_realtime(void)
{
	struct sched_param sp = { .sched_priority = 0 };
	int p = sched_getscheduler(0);

	/* Lowering is always allowed, with the flag kept (an unprivileged
	 * thread may not clear SCHED_RESET_ON_FORK). Keeps the host safe from
	 * a realtime fuzzer thread; the oracle has looked already. */
	if (p >= 0 && is_rt(p & ~SCHED_RESET_ON_FORK))
		(void)sched_setscheduler(0, SCHED_OTHER | (p & SCHED_RESET_ON_FORK), &sp);
}
