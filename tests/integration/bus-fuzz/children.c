// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bus-fuzz's child processes, whose threads calls aim at: this program
 * again (bus-fuzz --victim N), started with fork() and exec() because the
 * fuzzer is threaded. It reports its tids on a pipe, the main thread's
 * and those of its N sleeping threads; killed and replaced now and then,
 * its pid and tids join the dead ones. Both sides are here: starting and
 * killing a child, and the child.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "victims.h"

typedef struct Child {
	pid_t pid;
	int fd; /* its stdout */
	pid_t tids[CHILD_THREADS_MAX + 1];
	size_t n_tids;
} Child;

static Child children[CHILDREN_MAX];
static unsigned n_children, child_threads, next_child;

static int child_read_line(Child *c, char *buf, size_t size)
{
	size_t n = 0;

	while (n + 1 < size) {
		struct pollfd p = { .fd = c->fd, .events = POLLIN };
		ssize_t k;

		/* generous: the other users' fuzzers may hold both CPUs with
		 * realtime threads while this child starts under ASan */
		if (poll(&p, 1, 60000) <= 0)
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

/* Whether child c runs bus-fuzz --victim-execed now: one of its threads
 * called execve(). */
static bool child_execed(const Child *c)
{
	char path[64], cmd[64] = "";
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)c->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, cmd, sizeof(cmd) - 1);
	safe_close(fd);
	/* "bus-fuzz\0--victim-execed\0" */
	return n > 9 && streq(cmd + 9, "--victim-execed");
}

static void child_kill(Child *c)
{
	if (c->pid <= 0)
		return;
	if (child_execed(c))
		stats.execs++;
	kill(c->pid, SIGKILL);
	(void)waitpid(c->pid, NULL, 0);
	c->fd = safe_close(c->fd);
	victims_add_dead(c->pid, c->tids, c->n_tids);
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
	snprintf(arg, sizeof(arg), "%u", child_threads);
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

		int r = child_read_line(c, line, sizeof(line));

		if (r < 0) {
			fprintf(stderr, "bus-fuzz: victim child %d: %s\n", (int)c->pid,
				r == -ETIMEDOUT ? "no word from it within 60 s"
						: "it ended before it was ready");
			child_kill(c);
			return r;
		}
		if (streq(line, "ready"))
			break;
		if (sscanf(line, "T %d", &tid) == 1 && c->n_tids < ELEMENTSOF(c->tids)) {
			c->tids[c->n_tids++] = tid;
			victims_add_thread(TARGET_CHILD, pid, tid, -1);
		}
	}
	return 0;
}

int children_start(unsigned n, unsigned threads_per_child)
{
	n_children = n < CHILDREN_MAX ? n : CHILDREN_MAX;
	child_threads =
		threads_per_child < CHILD_THREADS_MAX ? threads_per_child : CHILD_THREADS_MAX;
	for (unsigned i = 0; i < n_children; i++) {
		int r = child_start(&children[i]);

		if (r < 0)
			return r;
	}
	return 0;
}

void children_stop(void)
{
	for (unsigned i = 0; i < n_children; i++)
		child_kill(&children[i]);
}

void children_churn(void)
{
	Child *c = &children[next_child++ % n_children];

	child_kill(c);
	(void)child_start(c);
}

/* One of the child's threads. */
typedef struct ChildThread {
	pthread_t thread;
	int index;
	atomic_int tid;
	Rng rng;
} ChildThread;

/* About once in this many of its wakeups (each 1-20 ms apart), the first
 * thread of a child calls execve(): every 10 s or so per child. */
#define EXEC_ONE_IN 1000

/* the child's main thread has said "ready" */
static atomic_bool child_reported;

/* --victim N: the child process. Its threads take their baselines, it
 * reports their tids, then they sleep and rename themselves until killed;
 * the first now and then calls execve(), which ends the others and makes
 * it the main thread of bus-fuzz --victim-execed, with whatever realtime
 * grant it held: realtimed must go on supervising it. */
static void *victim_thread(void *userdata)
{
	ChildThread *s = userdata;

	victims_set_baseline(s->index);
	s->tid = gettid();
	while (!victims_stopping) {
		if (rng_chance(&s->rng, 5)) {
			char name[16];

			gen_comm(&s->rng, name);
			(void)prctl(PR_SET_NAME, name);
		}
		/* not before the parent has every tid: the exec ends the
		 * main thread that reports them */
		if (s->index == 0 && atomic_load(&child_reported) &&
		    rng_below(&s->rng, EXEC_ONE_IN) == 0) {
			char *argv[] = { "bus-fuzz", "--victim-execed", NULL };

			execv("/proc/self/exe", argv);
		}
		sleep_usec(1000 + rng_below(&s->rng, 19000));
	}
	return NULL;
}

int victim_execed_main(void)
{
	/* the parent-death signal was the old main thread's: this thread's
	 * own now */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() == 1)
		return 1;
	for (;;)
		pause();
}

int victim_main(unsigned n)
{
	static ChildThread threads[CHILD_THREADS_MAX];

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
	atomic_store(&child_reported, true);
	for (;;)
		pause();
}
