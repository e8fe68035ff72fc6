// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The grant table on disk (STATE_DIR/grants), so that a restarted daemon
 * adopts the grants that are still alive instead of losing track of them.
 * One line per thread: pid pid-start uid tid tid-start kind value since,
 * then (since v2) what the thread ran with before the grant: policy
 * priority nice reset-on-fork, which a reset puts back. A v1 line (without
 * them) is still read; its thread goes back to SCHED_OTHER at its own nice
 * level on a reset. Written atomically (temporary file + rename) once per event-loop
 * iteration after a change, not once per request. On start, a line is
 * adopted only if the process and thread still exist with the same start
 * times, the process still belongs to the uid, and the thread still runs
 * as granted; everything else is forgotten.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"
#include "irq-threads.h"
#include "log.h"
#include "pidfd.h"
#include "proc.h"

#define STATE_FILE "grants"
#define STATE_HEADER                                                                         \
	"# realtimed grant table v2: pid pid-start uid tid tid-start kind value since-usec " \
	"before-policy before-priority before-nice before-reset-on-fork\n"

static int on_save(sd_event_source *s, void *userdata)
{
	Daemon *d = userdata;

	(void)daemon_state_save(d);
	return 0;
}

void daemon_state_schedule_save(Daemon *d)
{
	if (!d->save_source) {
		if (sd_event_add_defer(d->event, &d->save_source, on_save, d) < 0) {
			(void)daemon_state_save(d);
			return;
		}
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
	fprintf(f, "%d %" PRIu64 " %u %d %" PRIu64 " %s %d %" PRIu64 " %s %d %d %d\n", (int)p->pid,
		p->start_time, (unsigned)p->uid, (int)g->tid, g->start_time,
		grant_kind_to_string(g->kind), g->value, g->since_usec,
		sched_state_known(&g->before) ? sched_policy_to_string(g->before.policy)
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

static int adopt_line(Daemon *d, const char *line)
{
	int pid, tid, value;
	unsigned uid;
	uint64_t pid_start, tid_start, since, st;
	char kind_s[16], policy_s[16];
	SchedState before = SCHED_STATE_UNKNOWN;
	int n, priority, nice, reset_on_fork;
	uid_t ruid, euid;
	GrantKind kind;
	int fd, r;

	n = sscanf(line, "%d %" SCNu64 " %u %d %" SCNu64 " %15s %d %" SCNu64 " %15s %d %d %d", &pid,
		   &pid_start, &uid, &tid, &tid_start, kind_s, &value, &since, policy_s, &priority,
		   &nice, &reset_on_fork);
	if (n != 8 && n != 12)
		return -EINVAL;
	kind = grant_kind_from_string(kind_s);
	if (kind < 0 || pid <= 0 || tid <= 0)
		return -EINVAL;
	if (n == 12 && sched_policy_from_string(policy_s) >= 0)
		before = (SchedState){ .policy = sched_policy_from_string(policy_s),
				       .priority = priority,
				       .nice = nice,
				       .reset_on_fork = reset_on_fork };

	fd = pidfd_open_cloexec(pid);
	if (fd < 0)
		return fd;
	if (proc_get_start_time(d->grants->proc, pid, 0, &st) < 0 || st != pid_start ||
	    proc_get_start_time(d->grants->proc, pid, tid, &st) < 0 || st != tid_start ||
	    proc_get_uid(d->grants->proc, pid, &ruid, &euid) < 0 || ruid != uid ||
	    sched_matches(tid, kind, value) <= 0 || pidfd_alive(fd) < 0) {
		safe_close(fd);
		return -ESRCH;
	}
	r = grant_table_add(d->grants, pid, pid_start, uid, fd, tid, tid_start, kind, value,
			    &before, since, NULL);
	return r;
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
