/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The grant table on disk (STATE_DIR/grants), so that a restarted daemon
 * adopts the grants that are still alive instead of losing track of them.
 */
#pragma once

#include "daemon.h"
#include "sched-util.h"

/* One line of the file, as daemon_state_save() writes it. */
typedef struct StateLine {
	int pid, tid;
	unsigned uid;
	uint64_t pid_start, tid_start, since;
	PolicyGrantKind kind;
	int value;
	SchedState before; /* SCHED_STATE_UNKNOWN on a v1 line */
} StateLine;

/* Saves the table once the event loop is next idle: once per iteration
 * after changes, not once per change. */
void daemon_state_schedule_save(Daemon *d);
/* Saves the table now (or removes the file when the table is empty). */
int daemon_state_save(Daemon *d);
/* Adds the grants of the file whose threads still hold them to the table.
 * Returns how many; whether policy allows them is the caller's decision
 * (manager_adopt()). */
int daemon_state_adopt(Daemon *d);
/* Parses one line; looks at no process (the fuzz target fuzz-state calls
 * it). -EINVAL for a line that is not a grant. */
int state_parse_line(const char *line, StateLine *ret);
