// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What bus-fuzz aims its calls at: its own threads (main, workers, and
 * sleepers that rename themselves to names that are not UTF-8), child
 * processes of its own with threads of their own (killed and replaced now
 * and then, so their pids and tids turn into dead ones), and, from /proc,
 * processes of other users, root's and kernel threads. Every thread of its
 * own is registered with the scheduling it started with, its baseline for
 * the oracle. Children are this program again (--victim N), started with
 * fork() and exec() because the fuzzer is threaded.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bus-fuzz.h"

#define CHILDREN_MAX 4
#define CHILD_THREADS_MAX 8

typedef struct Sleeper {
	pthread_t thread;
	int index;
	atomic_int tid;
	atomic_bool rename;
	char name[16];
	atomic_ullong spin_until; /* usec, CLOCK_MONOTONIC */
	atomic_bool spinning;
	Rng rng;
} Sleeper;

typedef struct Child {
	pid_t pid;
	int fd; /* its stdout */
	pid_t tids[CHILD_THREADS_MAX + 1];
	size_t n_tids;
} Child;

static struct {
	pthread_mutex_t lock;
	Target targets[TARGETS_MAX];
	size_t n_targets;
	pid_t dead_pids[DEAD_MAX], dead_tids[DEAD_MAX];
	size_t n_dead_pids, n_dead_tids;
	SysProc sys[SYS_MAX];
	size_t n_sys;

	Sleeper sleepers[SLEEPERS];
	Child children[CHILDREN_MAX];
	unsigned n_children, child_threads, next_child;
	atomic_bool stop;
	Rng rng;
} v = { .lock = PTHREAD_MUTEX_INITIALIZER };

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000ULL;
}

static void sleep_usec(uint64_t usec)
{
	struct timespec ts = { .tv_sec = usec / 1000000, .tv_nsec = (usec % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Each victim thread starts from its own scheduling, so that a reset that
 * raises a thread above where it was shows: nice 0, nice 19, SCHED_IDLE,
 * SCHED_BATCH nice 5. Lowering oneself needs no privilege. */
static void set_baseline(int index)
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

static void register_thread(TargetKind kind, pid_t pid, pid_t tid, int sleeper)
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
	register_thread(kind, self_pid, gettid_(), -1);
}

/* A realtime thread that finds itself granted while spinning lowers its
 * own priority by one at once (the daemon's read-back then disagrees with
 * what it set), and goes back to sleep. */
static void sleeper_spin(Sleeper *s)
{
	s->spinning = true;
	while (now_usec() < s->spin_until && !v.stop) {
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

static void *sleeper_main(void *userdata)
{
	Sleeper *s = userdata;

	set_baseline(s->index);
	register_thread(TARGET_SLEEPER, self_pid, gettid_(), s->index);
	s->tid = gettid_();
	while (!v.stop) {
		if (s->spin_until)
			sleeper_spin(s);
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

static int child_read_line(Child *c, char *buf, size_t size)
{
	size_t n = 0;

	while (n + 1 < size) {
		struct pollfd p = { .fd = c->fd, .events = POLLIN };
		ssize_t k;

		if (poll(&p, 1, 10000) <= 0)
			return -ETIMEDOUT;
		k = read(c->fd, buf + n, 1);
		if (k <= 0)
			return -EPIPE;
		if (buf[n] == '\n') {
			buf[n] = 0;
			return 0;
		}
		n++;
	}
	return -E2BIG;
}

static void child_kill(Child *c)
{
	if (c->pid <= 0)
		return;
	kill(c->pid, SIGKILL);
	(void)waitpid(c->pid, NULL, 0);
	c->fd = safe_close(c->fd);
	pthread_mutex_lock(&v.lock);
	for (size_t i = 0; i < c->n_tids; i++) {
		v.dead_tids[v.n_dead_tids++ % DEAD_MAX] = c->tids[i];
		for (size_t j = 0; j < v.n_targets; j++)
			if (v.targets[j].tid == c->tids[i])
				v.targets[j].alive = false;
	}
	v.dead_pids[v.n_dead_pids++ % DEAD_MAX] = c->pid;
	pthread_mutex_unlock(&v.lock);
	c->pid = 0;
	c->n_tids = 0;
}

static int child_start(Child *c)
{
	char arg[16], line[128];
	int fds[2];
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	snprintf(arg, sizeof(arg), "%u", v.child_threads);
	pid = fork();
	if (pid < 0) {
		safe_close(fds[0]);
		safe_close(fds[1]);
		return -errno;
	}
	if (pid == 0) {
		char *argv[] = { "bus-fuzz", "--victim", arg, NULL };

		dup2(fds[1], STDOUT_FILENO);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	safe_close(fds[1]);
	*c = (Child){ .pid = pid, .fd = fds[0] };
	/* "T TID" per thread, main first, then "ready" */
	for (;;) {
		int tid;

		if (child_read_line(c, line, sizeof(line)) < 0) {
			child_kill(c);
			return -EIO;
		}
		if (streq(line, "ready"))
			break;
		if (sscanf(line, "T %d", &tid) == 1 && c->n_tids < ELEMENTSOF(c->tids)) {
			c->tids[c->n_tids++] = tid;
			register_thread(TARGET_CHILD, pid, tid, -1);
		}
	}
	return 0;
}

static void *report_tid(void *userdata)
{
	return (void *)(intptr_t)gettid_();
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
		pthread_mutex_lock(&v.lock);
		v.dead_pids[v.n_dead_pids++ % DEAD_MAX] = pid;
		pthread_mutex_unlock(&v.lock);
	}
	if (pthread_create(&t, NULL, report_tid, NULL) == 0) {
		void *tid;

		pthread_join(t, &tid);
		pthread_mutex_lock(&v.lock);
		v.dead_tids[v.n_dead_tids++ % DEAD_MAX] = (pid_t)(intptr_t)tid;
		pthread_mutex_unlock(&v.lock);
	}
}

int victims_start(unsigned n_children, unsigned threads_per_child)
{
	int r;

	rng_seed(&v.rng, (uint64_t)self_pid, 7777);
	v.n_children = n_children < CHILDREN_MAX ? n_children : CHILDREN_MAX;
	v.child_threads =
		threads_per_child < CHILD_THREADS_MAX ? threads_per_child : CHILD_THREADS_MAX;
	victims_register_self(TARGET_MAIN);
	for (int i = 0; i < SLEEPERS; i++) {
		Sleeper *s = &v.sleepers[i];

		s->index = i;
		rng_seed(&s->rng, rng_next(&v.rng), 1000 + i);
		r = pthread_create(&s->thread, NULL, sleeper_main, s);
		if (r != 0)
			return -r;
	}
	for (int i = 0; i < SLEEPERS; i++)
		while (!v.sleepers[i].tid)
			sleep_usec(1000);
	for (unsigned i = 0; i < v.n_children; i++) {
		r = child_start(&v.children[i]);
		if (r < 0)
			return r;
	}
	make_dead();
	return 0;
}

void victims_stop(void)
{
	v.stop = true;
	for (int i = 0; i < SLEEPERS; i++)
		pthread_join(v.sleepers[i].thread, NULL);
	for (unsigned i = 0; i < v.n_children; i++)
		child_kill(&v.children[i]);
}

void victims_churn(void)
{
	Child *c = &v.children[v.next_child++ % v.n_children];

	child_kill(c);
	(void)child_start(c);
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

pid_t victims_pick_sleeper(Rng *r, int *ret_index)
{
	int i = (int)rng_below(r, SLEEPERS);

	if (ret_index)
		*ret_index = i;
	return v.sleepers[i].tid;
}

void victims_rename_sleeper(int i, const char name[16])
{
	Sleeper *s = &v.sleepers[i];

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
	Sleeper *s = &v.sleepers[i];

	if (s->spin_until)
		return 0;
	s->spin_until = now_usec() + ms * 1000ULL;
	for (int k = 0; k < 50 && !s->spinning && s->spin_until; k++)
		sleep_usec(1000);
	return s->spinning ? s->tid : 0;
}

void victims_race_wait(int i)
{
	Sleeper *s = &v.sleepers[i];

	while (s->spin_until || s->spinning)
		sleep_usec(1000);
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

/* --victim N: the child process. Its threads take their baselines, it
 * reports their tids, then they sleep and rename themselves until killed. */
static void *victim_thread(void *userdata)
{
	Sleeper *s = userdata;

	set_baseline(s->index);
	s->tid = gettid_();
	while (!v.stop) {
		if (rng_chance(&s->rng, 5)) {
			char name[16];

			gen_comm(&s->rng, name);
			(void)prctl(PR_SET_NAME, name);
		}
		sleep_usec(1000 + rng_below(&s->rng, 19000));
	}
	return NULL;
}

int victim_main(unsigned n)
{
	static Sleeper threads[CHILD_THREADS_MAX];

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() == 1)
		return 1;
	/* the main thread too starts from nice 0 when it may */
	(void)setpriority(PRIO_PROCESS, 0, 0);
	printf("T %d\n", (int)getpid());
	if (n > CHILD_THREADS_MAX)
		n = CHILD_THREADS_MAX;
	for (unsigned i = 0; i < n; i++) {
		threads[i].index = (int)i;
		rng_seed(&threads[i].rng, (uint64_t)getpid(), i);
		if (pthread_create(&threads[i].thread, NULL, victim_thread, &threads[i]) != 0)
			return 1;
	}
	for (unsigned i = 0; i < n; i++) {
		while (!threads[i].tid)
			sleep_usec(1000);
		printf("T %d\n", threads[i].tid);
	}
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
