// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * realtimed's side of the NSS helper; see nss-helper.h. A helper is
 * running (fd open), lost (asked no more, not reaped yet) or none (pid 0).
 * Each lookup is in lookups[] until it is answered.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "caps.h"
#include "log.h"
#include "nss-decode.h"
#include "nss-helper.h"
#include "pidfd.h"

/* Messages read at one turn of the loop: others are served in between. */
#define RECEIVE_BATCH 64

struct NssHelper {
	sd_event *event;
	int exe;	      /* the program, opened once: an upgrade does not change it */
	char threads_max[12]; /* its argument */
	nss_helper_answer_t answer;
	void *userdata;

	pid_t pid;     /* running or lost */
	int fd;	       /* our end of its socket, while it runs */
	int pidfd;     /* until it is reaped */
	int keeper_fd; /* closed: its keeper thread ends, the kernel kills it */
	sd_event_source *io, *exited;
	bool ready;	   /* it said it dropped its privileges */
	bool logged;	   /* its loss is told already */
	unsigned n_failed; /* lookups it took with it */
	uint64_t started_usec;

	sd_event_source *restart; /* the pause before the next helper */
	uint64_t pause_usec;

	/* in the order asked; the first n_sent were sent to the running helper */
	uid_t lookups[NSS_HELPER_LOOKUPS_MAX];
	size_t n_lookups, n_sent;
	uint8_t buf[NSS_WIRE_MESSAGE_MAX]; /* one message */
};

/* What the keeper thread and the loop share until the fork is done. */
typedef struct Keeper {
	const NssHelper *h;
	int sock, stop;
	sem_t forked;
	pid_t pid; /* or -errno */
} Keeper;

/* In the child the keeper forked: drops all that realtimed holds, then
 * execs the helper on the socket sock, at NSS_HELPER_FD. A step that
 * fails is told as the helper would tell it (READY with an error). */
static _Noreturn void helper_exec(const NssHelper *h, int sock)
{
	char *argv[] = { (char *)"realtimed-nss", (char *)h->threads_max, NULL };
	uint8_t buf[sizeof(NssWireHeader) + 1 + NSS_WIRE_NAME_MAX];
	const char *step = "dup the program";
	int null, exe, k = 0;

	/* above the fds that are set next; closed by the exec */
	exe = fcntl(h->exe, F_DUPFD_CLOEXEC, NSS_HELPER_FD + 1);
	if (exe < 0)
		goto fail;
	step = "dup2 the socket";
	if (sock == NSS_HELPER_FD ? fcntl(sock, F_SETFD, 0) < 0 : dup2(sock, NSS_HELPER_FD) < 0)
		goto fail;
	sock = NSS_HELPER_FD;
	/* 0, 1 and 2 are /dev/null, so that a module that writes to stderr
	 * writes nowhere; no other fd of realtimed's is left after the exec */
	step = "open /dev/null";
	null = open("/dev/null", O_RDWR);
	if (null < 0)
		goto fail;
	step = "dup2 /dev/null";
	for (int i = 0; i <= 2; i++)
		if (null != i && dup2(null, i) < 0)
			goto fail;
	step = "close_range";
	if (close_range(NSS_HELPER_FD + 1, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
		goto fail;
	step = "chdir /";
	if (chdir("/") < 0)
		goto fail;
	k = caps_drop_all(NSS_HELPER_UID, NSS_HELPER_GID, &step);
	if (k < 0)
		goto fail;
	step = "PR_SET_NO_NEW_PRIVS";
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		goto fail;
	/* killed when the keeper ends; set after the drop, which clears it,
	 * and kept through exec. A realtimed gone meanwhile closed the
	 * socket: the helper ends at once. */
	step = "PR_SET_PDEATHSIG";
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		goto fail;
	step = "execve";
	execveat(exe, "", argv, environ, AT_EMPTY_PATH);
fail:
	if (k == 0)
		k = -errno;
	(void)send(sock, buf, nss_wire_encode_ready(getuid(), k, step, buf, sizeof(buf)),
		   MSG_NOSIGNAL);
	_exit(EXIT_FAILURE);
}

/* Forks the helper and lives as long as it should: until the loop closes
 * the other end of stop. The helper is killed when this thread ends
 * (PR_SET_PDEATHSIG names the thread that forked, not the process). */
static void *keeper_main(void *userdata)
{
	Keeper *k = userdata;
	int stop = k->stop;
	pid_t pid = fork();
	char c;

	if (pid == 0)
		helper_exec(k->h, k->sock);
	k->pid = pid < 0 ? -errno : pid;
	sem_post(&k->forked);
	/* k is the loop's again; stop is ours */
	(void)prctl(PR_SET_NAME, "rtd-nss-keeper", 0, 0, 0);
	while (pid > 0 && read(stop, &c, 1) < 0 && errno == EINTR)
		;
	safe_close(stop);
	return NULL;
}

/* Starts a keeper thread, which forks the helper on the socket's other
 * end sock; its pid, and the end of stop that ends it. */
static int keeper_start(NssHelper *h, int sock, pid_t *ret_pid, int *ret_stop)
{
	Keeper k = { .h = h, .sock = sock };
	int stop[2], r;
	sigset_t all, old;
	pthread_t t;

	if (pipe2(stop, O_CLOEXEC) < 0)
		return -errno;
	k.stop = stop[0];
	(void)sem_init(&k.forked, 0, 0);
	/* signals stay the loop's (signalfd): the keeper, and the helper
	 * until it resets them after exec, block them all */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	r = -pthread_create(&t, NULL, keeper_main, &k);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r < 0) {
		safe_close(stop[0]);
		safe_close(stop[1]);
		return r;
	}
	(void)pthread_detach(t);
	while (sem_wait(&k.forked) < 0 && errno == EINTR)
		;
	sem_destroy(&k.forked);
	if (k.pid < 0) {
		safe_close(stop[1]); /* the keeper closed its end */
		return k.pid;
	}
	*ret_pid = k.pid;
	*ret_stop = stop[1];
	return 0;
}

/* Ends the helper (its keeper ends, the kernel kills it) and reaps it if
 * it is gone within a second, as it should be (else init does, later). */
static void helper_stop(NssHelper *h)
{
	struct pollfd p = { .fd = h->pidfd, .events = POLLIN };
	siginfo_t si;

	h->io = sd_event_source_disable_unref(h->io);
	h->exited = sd_event_source_disable_unref(h->exited);
	h->fd = safe_close(h->fd);
	h->keeper_fd = safe_close(h->keeper_fd);
	if (h->pid > 0 && (h->pidfd < 0 || poll(&p, 1, 1000) > 0))
		(void)waitid(P_PID, h->pid, &si, WEXITED);
	h->pidfd = safe_close(h->pidfd);
	h->pid = 0;
}

/* The pause before the next helper, after one that lived since started:
 * doubled while they die young. */
static void helper_next_pause(NssHelper *h)
{
	uint64_t lived = now_usec(CLOCK_MONOTONIC) - h->started_usec;

	if (h->pause_usec == 0 || lived >= NSS_HELPER_RESTART_MAX_USEC)
		h->pause_usec = NSS_HELPER_RESTART_MIN_USEC;
	else if (h->pause_usec < NSS_HELPER_RESTART_MAX_USEC / 2)
		h->pause_usec *= 2;
	else
		h->pause_usec = NSS_HELPER_RESTART_MAX_USEC;
}

/* Asks the helper nothing more: its keeper ends (the kernel kills it), and
 * the lookups it was asked fail; those not sent yet wait for the next.
 * why (NULL: the reaping says how the helper ended) is logged now. */
static _printf_(2, 3) void helper_lose(NssHelper *h, const char *why, ...)
{
	uid_t failed[NSS_HELPER_LOOKUPS_MAX];
	size_t n = h->n_sent;

	if (h->fd < 0)
		return;
	h->io = sd_event_source_disable_unref(h->io);
	h->fd = safe_close(h->fd);
	h->keeper_fd = safe_close(h->keeper_fd);
	helper_next_pause(h);
	memcpy(failed, h->lookups, n * sizeof(uid_t));
	h->n_lookups -= n;
	memmove(h->lookups, h->lookups + n, h->n_lookups * sizeof(uid_t));
	h->n_sent = 0;
	h->n_failed = n;
	if (why && !h->logged) {
		char what[160];
		va_list ap;

		va_start(ap, why);
		vsnprintf(what, sizeof(what), why, ap);
		va_end(ap);
		log_warning("NSS helper (pid %d) %s: killed it; %zu lookups it was asked fail, a "
			    "new helper starts in %llu ms",
			    (int)h->pid, what, n,
			    (unsigned long long)(h->pause_usec / USEC_PER_MSEC));
		h->logged = true;
	}
	for (size_t i = 0; i < n; i++)
		h->answer(failed[i], -ECONNRESET, NULL, h->userdata);
}

/* One message of the helper, of len bytes in h->buf. */
static void helper_message(NssHelper *h, size_t len)
{
	_cleanup_(policy_user_freep) PolicyUser *u = NULL;
	const char *why = NULL;
	NssWireMessage m;
	size_t i;
	int k;

	k = nss_wire_decode(h->buf, len, &m, &why);
	if (k == -ENOMEM) {
		helper_lose(h, "answered when realtimed had no memory to read it");
		return;
	}
	if (k < 0) {
		helper_lose(h, "sent %s", why);
		return;
	}
	u = m.user;
	if (m.kind == NSS_WIRE_READY) {
		if (h->ready) {
			helper_lose(h, "sent a second ready message");
			return;
		}
		if (m.error < 0) {
			log_error("NSS helper (pid %d) could not start (%s: %s): "
				  "no user can be resolved",
				  (int)h->pid, m.step, strerror(-m.error));
			h->logged = true;
			helper_lose(h, NULL);
			return;
		}
		h->ready = true;
		log_debug("NSS helper (pid %d) ready, as uid %u", (int)h->pid, (unsigned)m.uid);
		return;
	}
	if (!h->ready) {
		helper_lose(h, "sent an answer before it was ready");
		return;
	}
	for (i = 0; i < h->n_sent; i++)
		if (h->lookups[i] == m.uid)
			break;
	if (i == h->n_sent) {
		helper_lose(h, "sent an answer for uid %u, which it was not asked",
			    (unsigned)m.uid);
		return;
	}
	/* the sent ones stay first, in the order asked */
	memmove(&h->lookups[i], &h->lookups[i + 1], (--h->n_lookups - i) * sizeof(uid_t));
	h->n_sent--;
	h->answer(m.uid, m.error, TAKE_PTR(u), h->userdata);
}

/* Reads what the helper sent, a batch at a time. */
static void helper_receive(NssHelper *h)
{
	for (int i = 0; i < RECEIVE_BATCH && h->fd >= 0; i++) {
		struct iovec iov = { .iov_base = h->buf, .iov_len = sizeof(h->buf) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		/* no room for control data: fds it would pass are dropped */
		ssize_t n = recvmsg(h->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			/* it closed its end (it ended), or sent an empty message */
			helper_lose(h, NULL);
			return;
		}
		if (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
			helper_lose(h, "sent a message too large, or with control data");
			return;
		}
		helper_message(h, n);
	}
}

/* Sends the lookups not sent yet, while the socket takes them. */
static void helper_send(NssHelper *h)
{
	if (h->fd < 0)
		return;
	for (; h->n_sent < h->n_lookups; h->n_sent++) {
		NssWireHeader m = { .kind = NSS_WIRE_ASK, .uid = h->lookups[h->n_sent] };

		if (send(h->fd, &m, sizeof(m), MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
			if (errno == EAGAIN || errno == ENOBUFS)
				break;
			helper_lose(h, NULL); /* gone: reaped soon */
			return;
		}
	}
	(void)sd_event_source_set_io_events(h->io,
					    EPOLLIN | (h->n_sent < h->n_lookups ? EPOLLOUT : 0));
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	NssHelper *h = userdata;

	if (revents & (EPOLLIN | EPOLLHUP | EPOLLERR))
		helper_receive(h);
	if (revents & EPOLLOUT)
		helper_send(h);
	return 0;
}

static int on_restart(sd_event_source *s, uint64_t usec, void *userdata);

static void helper_start_later(NssHelper *h)
{
	int k = sd_event_add_time(h->event, &h->restart, CLOCK_MONOTONIC,
				  now_usec(CLOCK_MONOTONIC) + h->pause_usec, 0, on_restart, h);

	/* without a timer, the next lookup starts one */
	if (k < 0)
		log_warning_errno(k, "Failed to time the next NSS helper: %m");
}

static int on_exited(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	NssHelper *h = userdata;
	siginfo_t si = {};
	char how[64];

	/* ECHILD: reaped by someone else, its status unknown */
	if (waitid(P_PIDFD, h->pidfd, &si, WEXITED | WNOHANG) < 0) {
		if (errno != ECHILD)
			return 0;
	} else if (si.si_pid == 0)
		return 0; /* not yet */
	helper_lose(h, NULL);
	if (si.si_code == CLD_EXITED)
		snprintf(how, sizeof(how), "exited with status %d", si.si_status);
	else
		snprintf(how, sizeof(how), "was killed by signal %d (%s)", si.si_status,
			 strsignal(si.si_status));
	if (!h->logged)
		log_warning("NSS helper (pid %d) %s; %u lookups it was asked failed, a new helper "
			    "starts in %llu ms",
			    (int)h->pid, how, h->n_failed,
			    (unsigned long long)(h->pause_usec / USEC_PER_MSEC));
	h->exited = sd_event_source_disable_unref(h->exited);
	h->pidfd = safe_close(h->pidfd);
	h->pid = 0;
	h->ready = h->logged = false;
	helper_start_later(h);
	return 0;
}

/* A new helper, running: not ready yet, but it may be asked already. */
static int helper_spawn(NssHelper *h)
{
	_cleanup_close_ int theirs = -EBADF;
	int sv[2], k;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) < 0)
		return -errno;
	h->fd = sv[0];
	theirs = sv[1];
	k = keeper_start(h, theirs, &h->pid, &h->keeper_fd);
	if (k >= 0) {
		h->pidfd = pidfd_open_cloexec(h->pid);
		k = h->pidfd;
	}
	if (k >= 0)
		k = sd_event_add_io(h->event, &h->exited, h->pidfd, EPOLLIN, on_exited, h);
	if (k >= 0)
		k = sd_event_add_io(h->event, &h->io, h->fd, EPOLLIN, on_io, h);
	if (k < 0) {
		helper_stop(h); /* only without memory */
		return k;
	}
	h->started_usec = now_usec(CLOCK_MONOTONIC);
	return 0;
}

/* Starts a helper now, or after a pause when it cannot. */
static void helper_start_now(NssHelper *h)
{
	int k = helper_spawn(h);

	if (k < 0) {
		h->started_usec = now_usec(CLOCK_MONOTONIC);
		helper_next_pause(h);
		log_warning_errno(k, "Failed to start the NSS helper: %m; trying again in %llu ms",
				  (unsigned long long)(h->pause_usec / USEC_PER_MSEC));
		helper_start_later(h);
		return;
	}
	helper_send(h);
}

static int on_restart(sd_event_source *s, uint64_t usec, void *userdata)
{
	NssHelper *h = userdata;

	h->restart = sd_event_source_disable_unref(h->restart);
	helper_start_now(h);
	return 0;
}

int nss_helper_new(sd_event *e, const char *path, unsigned threads_max, nss_helper_answer_t answer,
		   void *userdata, NssHelper **ret)
{
	NssHelper *h = calloc(1, sizeof(*h));

	if (!h)
		return -ENOMEM;
	/* as root: nobody need not reach its directory (a test's) */
	h->exe = open(path, O_PATH | O_CLOEXEC);
	if (h->exe < 0) {
		int error = errno;

		free(h);
		return log_error_errno(
			error,
			"Cannot open the NSS helper %s: %m (reinstall realtimed, or point "
			"REALTIMED_NSS_HELPER at the program)",
			path);
	}
	h->event = sd_event_ref(e);
	snprintf(h->threads_max, sizeof(h->threads_max), "%u", threads_max);
	h->answer = answer;
	h->userdata = userdata;
	h->fd = h->pidfd = h->keeper_fd = -EBADF;
	*ret = h;
	return 0;
}

NssHelper *nss_helper_free(NssHelper *h)
{
	if (!h)
		return NULL;
	h->restart = sd_event_source_disable_unref(h->restart);
	helper_stop(h);
	sd_event_unref(h->event);
	safe_close(h->exe);
	return mfree(h);
}

int nss_helper_start(NssHelper *h)
{
	struct pollfd p;
	int k;

	k = helper_spawn(h);
	if (k < 0)
		return log_error_errno(k, "Failed to start the NSS helper: %m");
	p = (struct pollfd){ .fd = h->fd, .events = POLLIN };
	k = poll(&p, 1, NSS_HELPER_READY_USEC / USEC_PER_MSEC);
	if (k > 0)
		helper_receive(h);
	if (h->ready)
		return 0;
	if (k == 0)
		helper_lose(h, "was not ready within 5 s");
	else if (!h->logged)
		log_error("NSS helper (pid %d) ended before it was ready", (int)h->pid);
	return -ECHILD;
}

int nss_helper_ask(NssHelper *h, uid_t uid)
{
	if (h->n_lookups >= NSS_HELPER_LOOKUPS_MAX)
		return -EBUSY;
	h->lookups[h->n_lookups++] = uid;
	if (h->pid == 0 && !h->restart)
		helper_start_now(h);
	else
		helper_send(h);
	return 0;
}
