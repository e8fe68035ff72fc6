// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target for the reader of realtimed's state file (daemon/state.c,
 * STATE_DIR/grants): the input is a whole file, cut into lines as
 * daemon_state_adopt() cuts it, and each line goes to state_parse_line(),
 * the part that looks at no process. A line it accepts names a grant (a
 * kind, a pid and a tid above 0) whose before-state, when known, is one
 * the kernel could have reported (sched-util.h: priority 1..99 under
 * SCHED_FIFO/SCHED_RR and 0 under the others, nice -20..19), and it reads
 * back the same after being written as daemon_state_save() writes it.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <string.h>

#include "fuzz.h"
#include "macro.h"
#include "procfs-stat.h"
#include "state.h"

/* A SchedState that sched_get_state() could have read. */
static bool sched_state_possible(const SchedState *s)
{
	bool rt = s->policy == SCHED_FIFO || s->policy == SCHED_RR;

	if (streq(procfs_sched_policy_to_string(s->policy), "unknown"))
		return false;
	return (rt ? s->priority >= 1 && s->priority <= 99 : s->priority == 0) && s->nice >= -20 &&
	       s->nice <= 19;
}

static void check_line(const char *line)
{
	StateLine l, again;
	char buf[512];
	int r;

	memset(&l, 0xaa, sizeof(l));
	memcpy(&again, &l, sizeof(l));
	r = state_parse_line(line, &l);
	fuzz_assert(r == 0 || r == -EINVAL);
	if (r < 0) {
		fuzz_assert(memcmp(&l, &again, sizeof(l)) == 0); /* untouched */
		return;
	}
	fuzz_assert(l.pid > 0 && l.tid > 0);
	fuzz_assert(l.kind >= 0 && l.kind < _POLICY_GRANT_KIND_MAX);
	fuzz_assert(!sched_state_known(&l.before) || sched_state_possible(&l.before));

	/* the v2 line that daemon_state_save() writes for it */
	snprintf(buf, sizeof(buf),
		 "%d %" PRIu64 " %u %d %" PRIu64 " %s %d %" PRIu64 " %s %d %d %d\n", l.pid,
		 l.pid_start, l.uid, l.tid, l.tid_start, policy_grant_kind_to_string(l.kind),
		 l.value, l.since,
		 sched_state_known(&l.before) ? procfs_sched_policy_to_string(l.before.policy)
					      : "unknown",
		 l.before.priority, l.before.nice, l.before.reset_on_fork);
	fuzz_assert(state_parse_line(buf, &again) == 0);
	fuzz_assert(again.pid == l.pid && again.tid == l.tid && again.uid == l.uid);
	fuzz_assert(again.pid_start == l.pid_start && again.tid_start == l.tid_start);
	fuzz_assert(again.kind == l.kind && again.value == l.value && again.since == l.since);
	fuzz_assert(again.before.policy == l.before.policy);
	if (sched_state_known(&l.before))
		fuzz_assert(again.before.priority == l.before.priority &&
			    again.before.nice == l.before.nice &&
			    again.before.reset_on_fork == l.before.reset_on_fork);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *text = NULL;
	char line[512];
	FILE *f;

	if (size > 64 * 1024)
		return 0;
	text = fuzz_string(data, size);
	if (!text[0])
		return 0;
	/* daemon_state_adopt()'s loop: fgets() into 512 bytes, comments and
	 * empty lines skipped */
	f = fmemopen(text, strlen(text), "r");
	if (!f)
		abort();
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		check_line(line);
	}
	fclose(f);
	return 0;
}
