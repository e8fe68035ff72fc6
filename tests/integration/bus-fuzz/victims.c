// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What bus-fuzz aims its calls at, in tables that calls pick from: its own
 * threads (main, workers, and the sleepers of sleepers.c, which rename
 * themselves to names that are not UTF-8), the threads of its child
 * processes (children.c; killed and replaced now and then, so their pids
 * and tids turn into dead ones), and, from /proc, processes of other
 * users, root's and kernel threads. Every thread of its own is registered
 * with the scheduling it started with, its baseline for the oracle.
 */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "victims.h"

static struct {
	pthread_mutex_t lock;
	Target targets[TARGETS_MAX];
	size_t n_targets;
	pid_t dead_pids[DEAD_MAX], dead_tids[DEAD_MAX];
	size_t n_dead_pids, n_dead_tids;
	SysProc sys[SYS_MAX];
	size_t n_sys;
	Rng rng;
} v = { .lock = PTHREAD_MUTEX_INITIALIZER };

atomic_bool victims_stopping;

uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000ULL;
}

void sleep_usec(uint64_t usec)
{
	struct timespec ts = { .tv_sec = usec / 1000000, .tv_nsec = (usec % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Each victim thread starts from its own scheduling, so that a reset that
 * raises a thread above where it was shows: nice 0, nice 19, SCHED_IDLE,
 * SCHED_BATCH nice 5. Lowering oneself needs no privilege. */
void victims_set_baseline(int index)
{
	struct sched_param sp = { .sched_priority = 0 };

	switch (index % 4) {
	case 0:
		(void)setpriority(PRIO_PROCESS, 0, 0);
		break;
	case 1:
		(void)setpriority(PRIO_PROCESS, 0, 19);
		break;
	case 2:
		(void)sched_setscheduler(0, SCHED_IDLE, &sp);
		break;
	case 3:
		(void)setpriority(PRIO_PROCESS, 0, 5);
		(void)sched_setscheduler(0, SCHED_BATCH, &sp);
		break;
	}
}

void victims_add_thread(TargetKind kind, pid_t pid, pid_t tid, int sleeper)
{
	ThreadState s = { .policy = SCHED_OTHER };
	Target t = { .kind = kind, .pid = pid, .tid = tid, .sleeper = sleeper, .alive = true };

	if (thread_start_time(pid, tid, &t.start) < 0)
		return;
	(void)thread_state(tid, &s);
	t.base_policy = s.policy;
	t.base_nice = s.nice;
	pthread_mutex_lock(&v.lock);
	if (v.n_targets < TARGETS_MAX)
		v.targets[v.n_targets++] = t;
	pthread_mutex_unlock(&v.lock);
}

void victims_register_self(TargetKind kind)
{
	victims_add_thread(kind, self_pid, gettid(), -1);
}

void victims_add_dead(pid_t pid, const pid_t *tids, size_t n_tids)
{
	pthread_mutex_lock(&v.lock);
	for (size_t i = 0; i < n_tids; i++) {
		v.dead_tids[v.n_dead_tids++ % DEAD_MAX] = tids[i];
		for (size_t j = 0; j < v.n_targets; j++)
			if (v.targets[j].tid == tids[i])
				v.targets[j].alive = false;
	}
	if (pid > 0)
		v.dead_pids[v.n_dead_pids++ % DEAD_MAX] = pid;
	pthread_mutex_unlock(&v.lock);
}

static void *report_tid(void *userdata)
{
	return (void *)(intptr_t)gettid();
}

/* A dead pid and a dead tid: a process and a thread that just ended. */
static void make_dead(void)
{
	pthread_t t;
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid > 0) {
		(void)waitpid(pid, NULL, 0);
		victims_add_dead(pid, NULL, 0);
	}
	if (pthread_create(&t, NULL, report_tid, NULL) == 0) {
		void *ret;
		pid_t tid;

		pthread_join(t, &ret);
		tid = (pid_t)(intptr_t)ret;
		victims_add_dead(0, &tid, 1);
	}
}

int victims_start(unsigned n_children, unsigned threads_per_child)
{
	int r;

	rng_seed(&v.rng, (uint64_t)self_pid, 7777);
	victims_register_self(TARGET_MAIN);
	r = sleepers_start(&v.rng);
	if (r < 0)
		return r;
	r = children_start(n_children, threads_per_child);
	if (r < 0)
		return r;
	make_dead();
	return 0;
}

void victims_stop(void)
{
	victims_stopping = true;
	sleepers_stop();
	children_stop();
}

void victims_churn(void)
{
	children_churn();
	make_dead();
}

/* Is pid in the fuzzer's session (the test run that started it)? Field 6
 * of /proc/PID/stat, after the comm's last ')'. */
static bool same_session(pid_t pid)
{
	char path[64], buf[1024], *p;
	int sid = -1;
	FILE *f;
	size_t k;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	k = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[k] = 0;
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %d", &sid) != 1)
		return false;
	return sid == (int)getsid(0);
}

void victims_scan_system(uid_t self)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	size_t n = 0;
	SysProc *sys = calloc(SYS_MAX, sizeof(*sys));

	if (!d || !sys) {
		if (d)
			closedir(d);
		free(sys);
		return;
	}
	while ((de = readdir(d)) && n < SYS_MAX) {
		char path[64], buf[4096], *p;
		unsigned uid, ppid;
		pid_t pid = (pid_t)atoi(de->d_name);
		FILE *f;
		size_t k;

		if (pid <= 0 || pid == self_pid)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
		f = fopen(path, "re");
		if (!f)
			continue;
		k = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[k] = 0;
		p = strstr(buf, "\nPPid:");
		if (!p || sscanf(p + 6, "%u", &ppid) != 1)
			continue;
		p = strstr(buf, "\nUid:");
		if (!p || sscanf(p + 5, "%u", &uid) != 1)
			continue;
		/* the fuzzer's own children are targets already */
		if ((pid_t)ppid == self_pid)
			continue;
		/* Another run's processes of this user (a test run beside this
		 * one, with its own realtimed) are left alone: a grant from this
		 * realtimed there is one that the other realtimed does not
		 * supervise, which the other run's oracle reports, rightly. */
		if (uid == (unsigned)self && !same_session(pid))
			continue;
		sys[n++] = (SysProc){
			.pid = pid, .tid = pid, .uid = uid, .kthread = pid == 2 || ppid == 2
		};
		/* and one of its other threads, if it has some */
		snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
		DIR *t = opendir(path);
		if (t) {
			struct dirent *te;

			while ((te = readdir(t)) && n < SYS_MAX) {
				pid_t tid = (pid_t)atoi(te->d_name);

				if (tid > 0 && tid != pid) {
					sys[n] = sys[n - 1];
					sys[n++].tid = tid;
					break;
				}
			}
			closedir(t);
		}
	}
	closedir(d);
	pthread_mutex_lock(&v.lock);
	memcpy(v.sys, sys, n * sizeof(*sys));
	v.n_sys = n;
	pthread_mutex_unlock(&v.lock);
	free(sys);
}

size_t victims_targets(Target *ret, size_t max)
{
	size_t n = 0;

	pthread_mutex_lock(&v.lock);
	for (size_t i = 0; i < v.n_targets && n < max; i++)
		if (v.targets[i].alive)
			ret[n++] = v.targets[i];
	pthread_mutex_unlock(&v.lock);
	return n;
}

bool victims_pick_target(Rng *r, Target *ret)
{
	Target all[TARGETS_MAX];
	size_t n = victims_targets(all, TARGETS_MAX);

	if (n == 0)
		return false;
	*ret = all[rng_below(r, n)];
	return true;
}

pid_t victims_pick_dead(Rng *r, bool tid)
{
	pid_t p = 0;

	pthread_mutex_lock(&v.lock);
	if (tid && v.n_dead_tids)
		p = v.dead_tids[rng_below(r, v.n_dead_tids < DEAD_MAX ? v.n_dead_tids : DEAD_MAX)];
	else if (!tid && v.n_dead_pids)
		p = v.dead_pids[rng_below(r, v.n_dead_pids < DEAD_MAX ? v.n_dead_pids : DEAD_MAX)];
	pthread_mutex_unlock(&v.lock);
	return p;
}

bool victims_pick_sys(Rng *r, bool kthread, SysProc *ret)
{
	bool found = false;

	pthread_mutex_lock(&v.lock);
	/* a few tries for the kind asked for; any process otherwise */
	for (int i = 0; i < 32 && v.n_sys > 0 && !found; i++) {
		SysProc *s = &v.sys[rng_below(r, v.n_sys)];

		if (s->kthread == kthread || i == 31) {
			*ret = *s;
			found = true;
		}
	}
	pthread_mutex_unlock(&v.lock);
	return found;
}

void victims_refresh(void)
{
	pthread_mutex_lock(&v.lock);
	for (size_t i = 0; i < v.n_targets; i++) {
		Target *t = &v.targets[i];
		uint64_t st;

		if (t->alive && (thread_start_time(t->pid, t->tid, &st) < 0 || st != t->start))
			t->alive = false;
	}
	/* drop the dead ones, keep the table small */
	size_t n = 0;
	for (size_t i = 0; i < v.n_targets; i++)
		if (v.targets[i].alive)
			v.targets[n++] = v.targets[i];
	v.n_targets = n;
	pthread_mutex_unlock(&v.lock);
}
