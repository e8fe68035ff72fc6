/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt-client hold: sleeping threads for a test to aim realtimed at, the
 * uids of each chosen apart (rt-client.c lists the other subcommands).
 *
 *   rt-client hold N [--uids R:E:S] [--main-uids R:E:S]
 *	Starts N sleeping threads, prints "pid P" and "threads T1 .. TN", then
 *	reads commands on stdin: "exit K" ends thread K (1-based) and prints
 *	"exited K"; "exec K PROG [ARG...]" prints "execing K" and has thread K
 *	(not the main one) call execvp(PROG, ...): the kernel makes it the
 *	new program's main thread; "race-exec K PROG [ARG...]" prints "racing
 *	K" and has thread K spin (SCHED_OTHER) until it sees itself realtime,
 *	and exec then, racing realtimed's check after its change; "quit" or
 *	end of input exits. Started as root, each of the N threads can
 *	switch its own real, effective and saved uid (--uids), and the main
 *	thread its own (--main-uids), with the raw setresuid system call,
 *	which changes only the calling thread (glibc's wrapper changes every
 *	thread): a process whose threads run as different users.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "macro.h"
#include "rt-client.h"
#include "rt-self.h"

/* One of the sleeping threads that a test points the daemon at. */
struct holder {
	pthread_t thread;
	pid_t tid;
	int pipe[2];
	const uid_t *uids; /* NULL: keep */
	char **exec_argv;  /* set before an 'x' or 'r' on the pipe: exec this */
};

/* At most this many words in an exec command. */
#define EXEC_ARGS_MAX 8

/* "R:E:S" */
static int parse_uids(const char *s, uid_t ret[3])
{
	unsigned r, e, u;
	char end;

	if (sscanf(s, "%u:%u:%u%c", &r, &e, &u, &end) != 3)
		return -EINVAL;
	ret[0] = r;
	ret[1] = e;
	ret[2] = u;
	return 0;
}

/* This thread only: the raw system call, not glibc's setxid broadcast. */
static int setresuid_thread(const uid_t uids[3])
{
	return (int)syscall(SYS_setresuid, uids[0], uids[1], uids[2]);
}

static void *hold_thread(void *userdata)
{
	struct holder *h = userdata;
	ssize_t n;
	char c;

	if (h->uids && setresuid_thread(h->uids) < 0) {
		fprintf(stderr, "rt-client hold: setresuid in a thread: %m\n");
		exit(2);
	}
	__atomic_store_n(&h->tid, gettid(), __ATOMIC_SEQ_CST);
	while ((n = read(h->pipe[0], &c, 1)) < 0 && errno == EINTR)
		;
	if (n == 1 && c == 'r' && h->exec_argv)
		while (!is_realtime())
			; /* SCHED_OTHER until the grant lands: the exec races its check */
	if (n == 1 && (c == 'x' || c == 'r') && h->exec_argv) {
		execvp(h->exec_argv[0], h->exec_argv);
		fprintf(stderr, "rt-client hold: exec %s: %m\n", h->exec_argv[0]);
		exit(2);
	}
	return NULL;
}

/* "PROG ARG..." split at blanks into argv (EXEC_ARGS_MAX words at most),
 * pointing into line, which it changes. */
static int split_words(char *line, char **argv)
{
	int n = 0;

	for (char *w = strtok(line, " \t\n"); w && n < EXEC_ARGS_MAX; w = strtok(NULL, " \t\n"))
		argv[n++] = w;
	argv[n] = NULL;
	return n;
}

int cmd_hold(int argc, char **argv)
{
	_cleanup_free_ struct holder *h = NULL;
	uid_t uids[3], main_uids[3];
	bool set_uids = false, set_main_uids = false;
	char line[256], *exec_argv[EXEC_ARGS_MAX + 1];
	int n;

	if (argc < 3 || (n = atoi(argv[2])) < 1 || n > 1000) {
		fprintf(stderr, "rt-client hold: need a thread count 1..1000\n");
		return 2;
	}
	for (int i = 3; i < argc; i++) {
		if (streq(argv[i], "--uids") && i + 1 < argc && parse_uids(argv[i + 1], uids) == 0)
			set_uids = true;
		else if (streq(argv[i], "--main-uids") && i + 1 < argc &&
			 parse_uids(argv[i + 1], main_uids) == 0)
			set_main_uids = true;
		else {
			fprintf(stderr, "rt-client hold: bad argument %s\n", argv[i]);
			return 2;
		}
		i++;
	}
	h = calloc((size_t)n, sizeof(*h));
	if (!h)
		return 2;
	for (int i = 0; i < n; i++) {
		h[i].uids = set_uids ? uids : NULL;
		if (pipe2(h[i].pipe, O_CLOEXEC) < 0 ||
		    pthread_create(&h[i].thread, NULL, hold_thread, &h[i]) != 0) {
			fprintf(stderr, "rt-client hold: cannot start thread %d: %m\n", i + 1);
			return 2;
		}
	}
	for (int i = 0; i < n; i++)
		while (__atomic_load_n(&h[i].tid, __ATOMIC_SEQ_CST) == 0)
			usleep(1000);
	if (set_main_uids && setresuid_thread(main_uids) < 0) {
		fprintf(stderr, "rt-client hold: setresuid in the main thread: %m\n");
		return 2;
	}
	printf("pid %d\nthreads", getpid());
	for (int i = 0; i < n; i++)
		printf(" %d", h[i].tid);
	printf("\n");
	fflush(stdout);

	while (fgets(line, sizeof(line), stdin)) {
		int k, at = 0;

		if (sscanf(line, "exit %d", &k) == 1 && k >= 1 && k <= n && h[k - 1].pipe[1] >= 0) {
			h[k - 1].pipe[1] = safe_close(h[k - 1].pipe[1]);
			pthread_join(h[k - 1].thread, NULL);
			printf("exited %d\n", k);
			fflush(stdout);
		} else if ((sscanf(line, "exec %d %n", &k, &at) == 1 ||
			    sscanf(line, "race-exec %d %n", &k, &at) == 1) &&
			   at > 0 && k >= 1 && k <= n && h[k - 1].pipe[1] >= 0) {
			bool race = startswith(line, "race-");

			if (split_words(line + at, exec_argv) == 0)
				continue;
			h[k - 1].exec_argv = exec_argv;
			printf("%s %d\n", race ? "racing" : "execing", k);
			fflush(stdout);
			/* the write orders exec_argv before the thread's read */
			if (write(h[k - 1].pipe[1], race ? "r" : "x", 1) != 1)
				return 2;
			pause(); /* the exec ends this program */
		} else if (startswith(line, "quit"))
			break;
	}
	return 0;
}
