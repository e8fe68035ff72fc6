/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A polkit text agent for the duration of one call: when realtimectl runs
 * on a terminal as a user other than root, and the call may need an
 * administrator's password (org.realtimed.manage, auth_admin_keep: reload,
 * status --all, explain of another user),
 * pkttyagent is started for this process so polkit can ask on the
 * terminal. Without a terminal or pkttyagent nothing happens, and the
 * daemon's refusal says what to do.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "macro.h"
#include "polkit-agent.h"

#define PKTTYAGENT "/usr/bin/pkttyagent"
#define POLKIT_AGENT_TIMEOUT_MS (5 * 1000)

int polkit_agent_open(pid_t *ret_pid)
{
	char notify[32], process[32];
	int fds[2], r;
	pid_t pid;
	char c;

	*ret_pid = 0;
	/* polkit authorizes root without asking; no terminal, no one to ask. */
	if (geteuid() == 0 || !isatty(STDIN_FILENO) || access(PKTTYAGENT, X_OK) < 0)
		return 0;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;

	snprintf(process, sizeof(process), "%d", (int)getpid());
	pid = fork();
	if (pid < 0) {
		r = -errno;
		safe_close(fds[0]);
		safe_close(fds[1]);
		return r;
	}
	if (pid == 0) {
		/* The agent closes this fd once it is registered: keep it across exec. */
		int fd = fcntl(fds[1], F_DUPFD, 3);

		if (fd < 0)
			_exit(127);
		snprintf(notify, sizeof(notify), "%d", fd);
		execl(PKTTYAGENT, PKTTYAGENT, "--notify-fd", notify, "--fallback", "--process",
		      process, (char *)NULL);
		_exit(127);
	}
	safe_close(fds[1]);
	/* Wait until it is registered (or gone): EOF either way. An agent that
	 * cannot reach polkit may hang instead: give up on it after a while
	 * and go on without one. */
	struct pollfd p = { .fd = fds[0], .events = POLLIN };
	do
		r = poll(&p, 1, POLKIT_AGENT_TIMEOUT_MS);
	while (r < 0 && errno == EINTR);
	if (r > 0)
		while (read(fds[0], &c, 1) < 0 && errno == EINTR)
			;
	safe_close(fds[0]);
	if (r <= 0) {
		polkit_agent_close(pid);
		return 0;
	}
	*ret_pid = pid;
	return 0;
}

void polkit_agent_close(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}
