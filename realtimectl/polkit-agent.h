/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A polkit text agent (pkttyagent) around one interactive call (see
 * polkit-agent.c).
 */
#pragma once

#include <sys/types.h>

/* Starts pkttyagent for this process when it can be useful (a terminal,
 * not root, pkttyagent installed) and waits until it is registered.
 * *ret_pid is its pid, or 0 when none was started. 0 or -errno. */
int polkit_agent_open(pid_t *ret_pid);

/* Stops the agent that polkit_agent_open() started; pid 0 is a no-op. */
void polkit_agent_close(pid_t pid);
