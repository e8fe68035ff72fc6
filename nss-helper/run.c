// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * realtimed-nss's main thread and workers; see run.h. The main thread
 * reads the lookups asked and queues them for the worker threads, which it
 * starts on demand up to threads_max (a lookup hung in NSS holds one
 * worker, not all); it sends their answers, never blocking on realtimed.
 */
#include <errno.h>
#include <linux/capability.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "macro.h"
#include "nss-wire.h"
#include "run.h"

/* One lookup: queued by the main thread, run by a worker, handed back. */
typedef struct Job {
	uid_t uid;
	int error;
	PolicyUser *user;
	struct Job *next;
} Job;

typedef struct Helper {
	/* shared with the workers, under lock */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	nss_lookup_t lookup;
	unsigned threads_max, n_threads, n_idle;
	Job *queue, **queue_tail;
	size_t n_queued;
	Job *done;
	int efd; /* written when a job is done: wakes the main thread */

	/* the main thread's */
	int fd;
	Job *out;	 /* answers the socket did not take yet */
	unsigned n_jobs; /* asked and not answered yet */
	uint8_t *buf;	 /* one message */
} Helper;

static void *worker_main(void *userdata)
{
	Helper *h = userdata;

	/* as ps -L and the tests tell the workers from the rest */
	(void)prctl(PR_SET_NAME, NSS_HELPER_WORKER_NAME, 0, 0, 0);
	pthread_mutex_lock(&h->lock);
	for (;;) {
		Job *j;

		while (!h->queue) {
			h->n_idle++;
			pthread_cond_wait(&h->cond, &h->lock);
			h->n_idle--;
		}
		j = h->queue;
		h->queue = j->next;
		if (!h->queue)
			h->queue_tail = &h->queue;
		h->n_queued--;
		pthread_mutex_unlock(&h->lock);

		j->error = h->lookup(j->uid, &j->user);

		pthread_mutex_lock(&h->lock);
		j->next = h->done;
		h->done = j;
		/* a full counter (never, in practice) still wakes the main thread */
		(void)eventfd_write(h->efd, 1);
	}
	return NULL;
}

/* Queues j, and starts a worker when there are more jobs than idle
 * workers and fewer than threads_max run. */
static void helper_queue(Helper *h, Job *j)
{
	pthread_mutex_lock(&h->lock);
	*h->queue_tail = j;
	h->queue_tail = &j->next;
	h->n_queued++;
	if (h->n_queued > h->n_idle && h->n_threads < h->threads_max) {
		sigset_t all, old;
		pthread_t t;

		/* signals stay the main thread's: the worker blocks them all */
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		/* on failure, the job waits for a running worker */
		if (pthread_create(&t, NULL, worker_main, h) == 0) {
			(void)pthread_detach(t);
			h->n_threads++;
		}
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	pthread_cond_signal(&h->cond);
	pthread_mutex_unlock(&h->lock);
}

/* Every signal at its default, none blocked: realtimed's keeper thread
 * forked it with all blocked, and ignored ones stay so through exec. */
static void signals_reset(void)
{
	struct sigaction sa = { .sa_handler = SIG_DFL };
	sigset_t none;

	/* the signals that may not be changed (SIGKILL, SIGSTOP, libc's own)
	 * fail with EINVAL and keep their default */
	for (int sig = 1; sig < NSIG; sig++)
		(void)sigaction(sig, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Whether the process is what realtimed's child made it before exec: no
 * uid 0, no capability, no_new_privs. Else *ret_step says what is wrong. */
static bool unprivileged(const char **ret_step)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct caps[_LINUX_CAPABILITY_U32S_3] = {};
	uid_t r, e, s;

	*ret_step = "runs as uid 0";
	if (getresuid(&r, &e, &s) < 0 || r == 0 || e == 0 || s == 0)
		return false;
	/* ambient ones are permitted ones too */
	*ret_step = "holds capabilities";
	if (syscall(SYS_capget, &hdr, caps) < 0)
		return false;
	for (size_t i = 0; i < ELEMENTSOF(caps); i++)
		if (caps[i].effective || caps[i].permitted || caps[i].inheritable)
			return false;
	*ret_step = "runs without no_new_privs";
	return prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1;
}

/* The requests waiting in the socket, each queued for a worker. */
static void helper_read(Helper *h)
{
	for (;;) {
		NssWireHeader m;
		Job *j;
		ssize_t n = recv(h->fd, &m, sizeof(m), MSG_DONTWAIT | MSG_TRUNC);

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		/* realtimed closed its end (or asked something else: a bug) */
		if (n != sizeof(m) || m.kind != NSS_WIRE_ASK || h->n_jobs >= NSS_HELPER_LOOKUPS_MAX)
			_exit(n == 0 ? EXIT_SUCCESS : EXIT_FAILURE);
		j = calloc(1, sizeof(*j));
		if (!j)
			_exit(EXIT_FAILURE);
		j->uid = m.uid;
		h->n_jobs++;
		helper_queue(h, j);
	}
}

/* Sends j's answer with error: 0, -EMSGSIZE when it does not fit a
 * message or the socket's buffer, or another -errno of send(). */
static int answer_send(Helper *h, const Job *j, int error)
{
	ssize_t len = nss_wire_encode(j->uid, error, j->user, h->buf, NSS_WIRE_MESSAGE_MAX);

	if (len < 0)
		return -EMSGSIZE;
	return send(h->fd, h->buf, len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 ? -errno : 0;
}

/* Sends the answers done, while the socket takes them; the rest wait in
 * h->out. Answers go in any order: realtimed matches them by uid. */
static void helper_send(Helper *h)
{
	pthread_mutex_lock(&h->lock);
	for (Job *j = TAKE_PTR(h->done), *next; j; j = next) {
		next = j->next;
		j->next = h->out;
		h->out = j;
	}
	pthread_mutex_unlock(&h->lock);
	while (h->out) {
		Job *j = h->out;
		int k = answer_send(h, j, j->error);

		/* a user that does not fit is a failed lookup */
		if (k == -EMSGSIZE)
			k = answer_send(h, j, -E2BIG);
		if (k == -EAGAIN || k == -EINTR)
			return;
		if (k < 0)
			_exit(EXIT_SUCCESS);
		h->out = j->next;
		policy_user_free(j->user);
		free(j);
		h->n_jobs--;
	}
}

_Noreturn void nss_helper_run(int argc, char **argv, nss_lookup_t lookup)
{
	/* the workers' too: this frame lives as long as the helper */
	Helper h = { .lock = PTHREAD_MUTEX_INITIALIZER,
		     .cond = PTHREAD_COND_INITIALIZER,
		     .lookup = lookup,
		     .queue_tail = &h.queue,
		     .efd = -EBADF,
		     .fd = NSS_HELPER_FD,
		     .buf = malloc(NSS_WIRE_MESSAGE_MAX) };
	const char *step = NULL;
	char *end = NULL;
	int k = 0, sndbuf = NSS_WIRE_MESSAGE_MAX;
	size_t len;

	signals_reset();
	if (!unprivileged(&step)) {
		fprintf(stderr,
			"realtimed-nss: %s; it runs only as realtimed's NSS helper, "
			"without privileges (realtimed(8))\n",
			step);
		k = -EPERM;
	}
	if (argc == 2)
		h.threads_max = strtoul(argv[1], &end, 10);
	if (k == 0 && (!end || *end || h.threads_max == 0)) {
		fprintf(stderr, "realtimed-nss: usage: realtimed-nss THREADS (run by realtimed)\n");
		step = "its command line";
		k = -EINVAL;
	}
	if (!h.buf)
		_exit(EXIT_FAILURE);
	/* not ptraceable by other processes of its uid, no core dump: exec
	 * made it dumpable again */
	if (k == 0 && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0) {
		step = "PR_SET_DUMPABLE";
		k = -errno;
	}
	(void)prctl(PR_SET_NAME, "realtimed-nss", 0, 0, 0);
	/* room for the largest answer (the kernel doubles it) */
	(void)setsockopt(h.fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	if (k == 0) {
		step = "eventfd";
		h.efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		k = h.efd < 0 ? -errno : 0;
	}
	len = nss_wire_encode_ready(getuid(), k, k < 0 ? step : NULL, h.buf, NSS_WIRE_MESSAGE_MAX);
	/* realtimed reads the first message when the helper is ready */
	if (send(h.fd, h.buf, len, MSG_NOSIGNAL) < 0 || k < 0)
		_exit(EXIT_FAILURE);

	for (;;) {
		struct pollfd p[] = {
			{ .fd = h.fd, .events = POLLIN | (h.out ? POLLOUT : 0) },
			{ .fd = h.efd, .events = POLLIN },
		};
		eventfd_t v;

		if (poll(p, ELEMENTSOF(p), -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(EXIT_FAILURE);
		}
		if (p[0].revents & POLLIN)
			helper_read(&h);
		else if (p[0].revents & (POLLHUP | POLLERR | POLLNVAL))
			_exit(EXIT_SUCCESS);
		if (p[1].revents & POLLIN)
			(void)eventfd_read(h.efd, &v);
		helper_send(&h);
	}
}
