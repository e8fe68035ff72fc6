/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The grant table on disk (STATE_DIR/grants), adopted by a restarted daemon. */
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

/* Saves the table once per event-loop iteration after changes. */
void daemon_state_schedule_save(Daemon *d);
/* Saves the table now (or removes the file when the table is empty). */
int daemon_state_save(Daemon *d);
/* Adds the file's grants that threads still hold. Returns how many; whether
 * policy allows them is manager_adopt()'s decision. */
int daemon_state_adopt(Daemon *d);
/* Parses one line, looking at no process (fuzz-state). -EINVAL: no grant. */
int state_parse_line(const char *line, StateLine *ret);
