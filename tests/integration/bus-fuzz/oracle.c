// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The oracle of bus-fuzz: what the kernel says a thread holds (policy,
 * priority, nice, SCHED_RESET_ON_FORK through sched_getattr(); owner, start
 * time and limits through /proc), and whether that is beyond what policy
 * gives the fuzzing user; and, after every burst, whether a realtime thread
 * runs that no grant names (oracle_check_unsupervised()). Written apart
 * from the daemon's own /proc readers on purpose: an oracle that shares the
 * code it checks shares its bugs.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
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

/* A realtime thread the oracle found: pid, tid and its start time. */
typedef struct RtThread {
	pid_t pid, tid;
	uint64_t start;
} RtThread;

#define RT_BEFORE_MAX 4096
#define RT_FOUND_MAX 1024

/* The realtime threads there were before the run (realtimed's doing or
 * not: IRQ threads, another test's), which the check leaves alone. */
static RtThread rt_before[RT_BEFORE_MAX];
static size_t n_rt_before;

/* Whether thread tid of pid is a kernel thread (PF_KTHREAD in field 9 of
 * its stat). */
static bool is_kthread(pid_t pid, pid_t tid)
{
	char buf[1024], *p;
	unsigned long flags;

	if (read_task_file(pid, tid, "stat", buf, sizeof(buf)) < 0 || !(p = strrchr(buf, ')')))
		return false;
	if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return false;
	return flags & 0x00200000; /* PF_KTHREAD */
}

/* Every SCHED_FIFO/RR thread of a user other than root (of self_uid only
 * unless all), kernel threads left out, into ret (max at most). */
static size_t scan_realtime(bool all, RtThread *ret, size_t max)
{
	DIR *procs = opendir("/proc");
	struct dirent *pe;
	size_t n = 0;

	while (procs && (pe = readdir(procs)) && n < max) {
		char path[64];
		DIR *tasks;
		struct dirent *te;
		pid_t pid = (pid_t)atoi(pe->d_name);

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
		tasks = opendir(path);
		while (tasks && (te = readdir(tasks)) && n < max) {
			pid_t tid = (pid_t)atoi(te->d_name);
			ThreadState s;
			uid_t u[3];
			uint64_t st;

			if (tid <= 0 || thread_state(tid, &s) < 0 || !is_rt(s.policy) ||
			    thread_uids(pid, tid, u) < 0 || u[0] == 0 ||
			    (!all && u[0] != self_uid) || is_kthread(pid, tid) ||
			    thread_start_time(pid, tid, &st) < 0)
				continue;
			ret[n++] = (RtThread){ pid, tid, st };
		}
		if (tasks)
			closedir(tasks);
	}
	if (procs)
		closedir(procs);
	return n;
}

void oracle_snapshot_realtime(void)
{
	n_rt_before = scan_realtime(true, rt_before, RT_BEFORE_MAX);
}

static bool rt_was_before(const RtThread *t)
{
	for (size_t i = 0; i < n_rt_before; i++)
		if (rt_before[i].tid == t->tid && rt_before[i].start == t->start)
			return true;
	return false;
}

static bool listed(const ListedGrant *g, size_t n, const RtThread *t)
{
	for (size_t i = 0; i < n; i++)
		if (g[i].pid == t->pid && g[i].tid == t->tid)
			return true;
	return false;
}

/* The threads of found[0..n) still realtime, the same threads, that the
 * grants listed now do not name; moved to the front, how many. */
static size_t unsupervised(DBusConnection *bus, RtThread *found, size_t n)
{
	_cleanup_free_ ListedGrant *g = NULL;
	size_t ng = 0, k = 0;
	char error[512];

	if (list_grants_full(bus, limits.sees_all, &g, &ng, error, sizeof(error)) < 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		ThreadState s;
		uint64_t st;

		if (thread_state(found[i].tid, &s) < 0 || !is_rt(s.policy) ||
		    thread_start_time(found[i].pid, found[i].tid, &st) < 0 ||
		    st != found[i].start || listed(g, ng, &found[i]))
			continue;
		found[k++] = found[i];
	}
	return k;
}

void oracle_check_unsupervised(DBusConnection *bus, const Desc *d)
{
	static RtThread found[RT_FOUND_MAX];
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	size_t n = 0, k;

	pthread_mutex_lock(&lock);
	k = scan_realtime(limits.sees_all, found, RT_FOUND_MAX);
	for (size_t i = 0; i < k; i++)
		if (!rt_was_before(&found[i]))
			found[n++] = found[i];
	n = unsupervised(bus, found, n);
	/* A grant reset or demoted between the scan and the list, or a
	 * thread that exec'ed a moment ago (realtimed follows it at once with
	 * a thread pidfd, within a second without): look again later. */
	if (n > 0) {
		(void)nanosleep(&(struct timespec){ .tv_sec = 1, .tv_nsec = 500000000 }, NULL);
		n = unsupervised(bus, found, n);
	}
	stats.supervision_scans++;
	for (size_t i = 0; i < n; i++)
		violation(d,
			  "thread %d of process %d runs realtime, but no grant of realtimed names "
			  "it (it was not realtime before the run)",
			  (int)found[i].tid, (int)found[i].pid);
	pthread_mutex_unlock(&lock);
}
