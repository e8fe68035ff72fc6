// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The NSS helper's side, in the forked child; see nss-helper-child.h and,
 * for what it drops and why, nss-helper.h. Its main thread only reads the
 * lookups asked, hands them to the workers and sends their answers; it
 * never blocks on realtimed, which may be slow to read.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "caps.h"
#include "macro.h"
#include "nss-helper-child.h"
#include "nss-helper.h"
#include "nss-wire.h"
#include "resolver-pool.h"

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

/* Everything the helper drops before it loads NSS (nss-helper.h). */
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
static void helper_read(int fd, ResolverPool *pool, unsigned threads_max, unsigned *n_jobs)
{
	for (;;) {
		NssWireHeader h;
		ResolverJob *j;
		ssize_t n = recv(fd, &h, sizeof(h), MSG_DONTWAIT | MSG_TRUNC);

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		/* realtimed closed its end (or asked something else: a bug) */
		if (n != sizeof(h) || h.kind != NSS_WIRE_ASK || *n_jobs >= NSS_HELPER_LOOKUPS_MAX)
			_exit(n == 0 ? EXIT_SUCCESS : EXIT_FAILURE);
		j = calloc(1, sizeof(*j));
		if (!j)
			_exit(EXIT_FAILURE);
		j->uid = h.uid;
		(*n_jobs)++;
		resolver_pool_queue(pool, j, threads_max);
	}
}

/* Sends j's answer, or -E2BIG in its place when the user does not fit
 * the message or the socket's buffer on this machine: 0 or -errno. */
static int answer_send(int fd, const ResolverJob *j, int error, uint8_t *buf)
{
	ssize_t len = nss_wire_encode(j->uid, error, j->user, buf, NSS_WIRE_MESSAGE_MAX);

	if (len < 0)
		return -EMSGSIZE;
	return send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 ? -errno : 0;
}

/* Sends the answers of *out while the socket takes them; what it does not
 * take yet stays in *out. */
static void helper_send(int fd, ResolverJob **out, uint8_t *buf, unsigned *n_jobs)
{
	while (*out) {
		ResolverJob *j = *out;
		int k = answer_send(fd, j, j->error, buf);

		if (k == -EMSGSIZE)
			k = answer_send(fd, j, -E2BIG, buf);
		if (k == -EAGAIN || k == -EINTR)
			return;
		if (k < 0)
			_exit(EXIT_SUCCESS);
		*out = j->next;
		resolver_job_free(j);
		(*n_jobs)--;
	}
}

_Noreturn void nss_helper_child_run(int fd, resolver_lookup_t lookup, unsigned threads_max)
{
	const char *step = NULL;
	ResolverJob *out = NULL;
	ResolverPool *pool = NULL;
	unsigned n_jobs = 0;
	uint8_t *buf;
	size_t len;
	int k, sndbuf = NSS_WIRE_MESSAGE_MAX;

	k = helper_setup(&fd, &step);
	buf = malloc(NSS_WIRE_MESSAGE_MAX);
	if (!buf)
		_exit(EXIT_FAILURE);
	/* room for the largest answer (the kernel doubles it) */
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	if (k >= 0) {
		step = "the worker pool";
		k = resolver_pool_new(lookup, &pool);
	}
	len = nss_wire_encode_ready(getuid(), k < 0 ? k : 0, k < 0 ? step : NULL, buf,
				    NSS_WIRE_MESSAGE_MAX);
	/* realtimed reads the first message when the helper is ready */
	if (send(fd, buf, len, MSG_NOSIGNAL) < 0 || k < 0)
		_exit(EXIT_FAILURE);

	for (;;) {
		struct pollfd p[] = {
			{ .fd = fd, .events = POLLIN | (out ? POLLOUT : 0) },
			{ .fd = resolver_pool_fd(pool), .events = POLLIN },
		};

		if (poll(p, ELEMENTSOF(p), -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(EXIT_FAILURE);
		}
		if (p[0].revents & POLLIN)
			helper_read(fd, pool, threads_max, &n_jobs);
		else if (p[0].revents & (POLLHUP | POLLERR | POLLNVAL))
			_exit(EXIT_SUCCESS);
		if (p[1].revents & POLLIN)
			for (ResolverJob *j = resolver_pool_take_done(pool), *next; j; j = next) {
				next = j->next;
				j->next = out;
				out = j;
			}
		helper_send(fd, &out, buf, &n_jobs);
	}
}
