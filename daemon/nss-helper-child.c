// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The NSS helper's side, in the forked child; see nss-helper-child.h, and
 * for what it drops and why realtimed(8), PROCESSES AND PRIVILEGES. Its
 * main thread reads the lookups asked and queues them for its worker
 * threads, which it starts on demand up to threads_max (a lookup hung in
 * NSS holds one worker, not all); it sends their answers, never blocking
 * on realtimed.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "caps.h"
#include "macro.h"
#include "nss-helper-child.h"
#include "nss-helper.h"
#include "nss-wire.h"

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
	resolver_lookup_t lookup;
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

/* Every signal at its default, none blocked: nothing of realtimed's
 * signal handling is the helper's. */
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

/* The socket *fd as NSS_HELPER_FD, /dev/null as 0, 1 and 2 (so that a
 * module that writes to stderr writes nowhere, not into a file it opened),
 * and no other fd: realtimed's bus, pidfds and files stay its own. */
static int fds_reset(int *fd, const char **ret_step)
{
	int null;

	*ret_step = "dup3 the socket";
	if (*fd != NSS_HELPER_FD && dup3(*fd, NSS_HELPER_FD, O_CLOEXEC) < 0)
		return -errno;
	*fd = NSS_HELPER_FD;
	*ret_step = "open /dev/null";
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0)
		return -errno;
	*ret_step = "dup2 /dev/null";
	for (int i = 0; i <= 2; i++)
		if (null != i && dup2(null, i) < 0)
			return -errno;
	*ret_step = "close_range";
	if (close_range(NSS_HELPER_FD + 1, ~0U, 0) < 0)
		return -errno;
	return 0;
}

/* Everything the helper drops before it loads NSS. */
static int helper_setup(int *fd, const char **ret_step)
{
	int k;

	signals_reset();
	k = fds_reset(fd, ret_step);
	if (k < 0)
		return k;
	*ret_step = "chdir /";
	if (chdir("/") < 0)
		return -errno;
	k = caps_drop_all(NSS_HELPER_UID, NSS_HELPER_GID, ret_step);
	if (k < 0)
		return k;
	*ret_step = "PR_SET_NO_NEW_PRIVS";
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	/* not ptraceable by other processes of nobody, no core dump; set
	 * after the drop, which resets it */
	*ret_step = "PR_SET_DUMPABLE";
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return -errno;
	/* killed when the thread of realtimed that forked it ends; set after
	 * the drop, which clears it. Until now no NSS code ran, and a
	 * realtimed that is gone meanwhile closed the socket: the loop
	 * below ends at once. */
	*ret_step = "PR_SET_PDEATHSIG";
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		return -errno;
	(void)prctl(PR_SET_NAME, "realtimed-nss", 0, 0, 0);
	return 0;
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

_Noreturn void nss_helper_child_run(int fd, resolver_lookup_t lookup, unsigned threads_max)
{
	/* the workers' too: this frame lives as long as the helper */
	Helper h = { .lock = PTHREAD_MUTEX_INITIALIZER,
		     .cond = PTHREAD_COND_INITIALIZER,
		     .lookup = lookup,
		     .threads_max = threads_max,
		     .queue_tail = &h.queue,
		     .efd = -EBADF,
		     .buf = malloc(NSS_WIRE_MESSAGE_MAX) };
	const char *step = NULL;
	size_t len;
	int k, sndbuf = NSS_WIRE_MESSAGE_MAX;

	k = helper_setup(&fd, &step);
	if (!h.buf)
		_exit(EXIT_FAILURE);
	h.fd = fd;
	/* room for the largest answer (the kernel doubles it) */
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	if (k >= 0) {
		step = "eventfd";
		h.efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		k = h.efd < 0 ? -errno : 0;
	}
	len = nss_wire_encode_ready(getuid(), k, k < 0 ? step : NULL, h.buf, NSS_WIRE_MESSAGE_MAX);
	/* realtimed reads the first message when the helper is ready */
	if (send(fd, h.buf, len, MSG_NOSIGNAL) < 0 || k < 0)
		_exit(EXIT_FAILURE);

	for (;;) {
		struct pollfd p[] = {
			{ .fd = fd, .events = POLLIN | (h.out ? POLLOUT : 0) },
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
