// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The grant table on disk (realtimed(8), SUPERVISION). A v1 line (without
 * the before-state) or one whose before-state no kernel reports is still
 * adopted; a reset then puts its thread back to SCHED_OTHER at its nice.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"
#include "procfs-stat.h"
#include "log.h"
#include "macro.h"
#include "pidfd.h"
#include "proc.h"
#include "state.h"

#define STATE_FILE "grants"
#define STATE_HEADER                                                                         \
	"# realtimed grant table v2: pid pid-start uid tid tid-start kind value since-usec " \
	"before-policy before-priority before-nice before-reset-on-fork\n"

static int on_save(sd_event_source *s, void *userdata)
{
	(void)daemon_state_save(userdata);
	return 0;
}

void daemon_state_schedule_save(Daemon *d)
{
	if (!d->save_source && sd_event_add_defer(d->event, &d->save_source, on_save, d) < 0) {
		(void)daemon_state_save(d);
		return;
	}
	sd_event_source_set_enabled(d->save_source, SD_EVENT_ONESHOT);
}

int daemon_state_save(Daemon *d)
{
	char path[4096], tmp[4096];
	_cleanup_fclose_ FILE *f = NULL;
	int fd, r;

	snprintf(path, sizeof(path), "%s/" STATE_FILE, d->args.state_dir);
	snprintf(tmp, sizeof(tmp), "%s/." STATE_FILE ".tmp", d->args.state_dir);

	if (d->grants->n_grants == 0) {
		if (unlink(path) < 0 && errno != ENOENT)
			return log_warning_errno(errno, "Failed to remove %s: %m", path);
		return 0;
	}

	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return log_warning_errno(
			errno, "Failed to write %s: %m; a restart will not adopt grants", tmp);
	f = fdopen(fd, "w");
	if (!f) {
		safe_close(fd);
		return log_warning_errno(errno, "Failed to write %s: %m", tmp);
	}
	fputs(STATE_HEADER, f);
	GRANT_TABLE_FOREACH(p, g, d->grants)
		fprintf(f, "%d %" PRIu64 " %u %d %" PRIu64 " %s %d %" PRIu64 " %s %d %d %d\n",
			(int)p->pid, p->start_time, (unsigned)p->uid, (int)g->tid, g->start_time,
			policy_grant_kind_to_string(g->kind), g->value, g->since_usec,
			sched_state_known(&g->before)
				? procfs_sched_policy_to_string(g->before.policy)
				: "unknown",
			g->before.priority, g->before.nice, g->before.reset_on_fork);
	r = fflush(f) == 0 && !ferror(f) ? 0 : -errno;
	if (r < 0) {
		unlink(tmp);
		return log_warning_errno(r, "Failed to write %s: %m", tmp);
	}
	if (rename(tmp, path) < 0) {
		r = -errno;
		unlink(tmp);
		return log_warning_errno(r, "Failed to replace %s: %m", path);
	}
	return 0;
}

int state_parse_line(const char *line, StateLine *ret)
{
	StateLine l = { .before = SCHED_STATE_UNKNOWN };
	char kind_s[16], policy_s[16];
	int n, policy, priority, nice, reset_on_fork;
	bool rt;

	n = sscanf(line, "%d %" SCNu64 " %u %d %" SCNu64 " %15s %d %" SCNu64 " %15s %d %d %d",
		   &l.pid, &l.pid_start, &l.uid, &l.tid, &l.tid_start, kind_s, &l.value, &l.since,
		   policy_s, &priority, &nice, &reset_on_fork);
	if (n != 8 && n != 12)
		return -EINVAL;
	l.kind = policy_grant_kind_from_string(kind_s);
	if (l.kind < 0 || l.pid <= 0 || l.tid <= 0)
		return -EINVAL;
	policy = n == 12 ? procfs_sched_policy_from_string(policy_s) : -EINVAL;
	rt = policy == SCHED_FIFO || policy == SCHED_RR;
	/* only what sched_get_state() can have read: a reset puts it back */
	if (policy >= 0 && (rt ? priority >= 1 && priority <= 99 : priority == 0) && nice >= -20 &&
	    nice <= 19)
		l.before = (SchedState){ .policy = policy,
					 .priority = priority,
					 .nice = nice,
					 .reset_on_fork = reset_on_fork };
	*ret = l;
	return 0;
}

/* One line. Nothing is touched unless the process (pinned by a pidfd) and
 * thread are the ones granted: the ids may be someone else's now. What the
 * thread holds now is adopted, if still the same sort and above its before. */
static int adopt_line(Daemon *d, const char *line)
{
	StateLine l;
	uint64_t st;
	SchedState now;
	int held_value, r;
	_cleanup_close_ int fd = -EBADF, tidfd = -EBADF;
	ProcUids uids;
	PolicyGrantKind held;
	bool exec = false;

	r = state_parse_line(line, &l);
	if (r < 0)
		return r;
	fd = pidfd_open_cloexec(l.pid);
	if (fd < 0)
		return fd;
	/* pinned first (6.9+): the start time read next is that thread's */
	if (l.tid != l.pid) {
		tidfd = pidfd_open_thread(l.tid);
		if (tidfd < 0 && tidfd != -ESRCH)
			tidfd = -EBADF; /* an older kernel: start times tell */
	}
	if (procfs_start_time(d->args.proc, l.pid, 0, &st) < 0 || st != l.pid_start ||
	    pidfd_alive(fd) < 0)
		return -ESRCH;
	if (tidfd == -ESRCH || procfs_start_time(d->args.proc, l.pid, l.tid, &st) < 0 ||
	    st != l.tid_start || (tidfd >= 0 && pidfd_alive(tidfd) < 0)) {
		if (l.tid == l.pid)
			return -ESRCH;
		/* gone, or it exec()ed meanwhile and is the main thread now */
		exec = true;
		l.tid = l.pid;
		l.tid_start = l.pid_start;
		tidfd = safe_close(tidfd);
	}
	if (proc_get_uids(d->args.proc, l.pid, 0, &uids) < 0 || uids.ruid != l.uid) {
		/* someone else's now: no policy ever allowed them this grant */
		(void)sched_restore(l.tid, l.kind, &l.before);
		log_id(LOG_NOTICE, LOG_ID_DEMOTION,
		       "Demoted thread %d of process %d (%s %d): it no longer belongs to uid %u",
		       l.tid, l.pid, policy_grant_kind_to_string(l.kind), l.value, l.uid);
		return -EPERM;
	}
	if (sched_get_state(l.tid, &now) < 0 ||
	    (exec && !sched_state_may_hold(&now, l.kind, l.value)) ||
	    sched_state_as_grant(&now, &held, &held_value) < 0 ||
	    (held == POLICY_GRANT_NICE) != (l.kind == POLICY_GRANT_NICE) ||
	    (sched_state_known(&l.before) && !sched_state_above(&now, &l.before)))
		return -ESRCH;
	return grant_table_add_pinned(d->grants, l.pid, l.pid_start, l.uid, TAKE_FD(fd), l.tid,
				      TAKE_FD(tidfd), l.tid_start, held, held_value, &l.before,
				      l.since, NULL);
}

int daemon_state_adopt(Daemon *d)
{
	char path[4096], line[512];
	_cleanup_fclose_ FILE *f = NULL;
	unsigned adopted = 0, dropped = 0;

	snprintf(path, sizeof(path), "%s/" STATE_FILE, d->args.state_dir);
	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		return log_warning_errno(
			errno, "Failed to read %s: %m; earlier grants are not adopted", path);
	}
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (adopt_line(d, line) >= 0)
			adopted++;
		else
			dropped++;
	}
	if (adopted || dropped)
		log_info("Adopted %u grants from %s, %u were gone", adopted, path, dropped);
	daemon_state_schedule_save(d);
	return (int)adopted;
}
