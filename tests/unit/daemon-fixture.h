/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the daemon's unit tests of demotion, the manager and the request
 * checks build on, with no bus and no privilege: a temporary directory
 * holding a fake /proc, whose stat and status files give the start times
 * and uids a test decides (so a tid can be made to look reused, a process
 * someone else's), a state directory and a policy file;
 * and sleeping threads of the test itself to demote. A sleeper runs
 * SCHED_BATCH at nice 12, as its own choice; a grant's "before" of
 * SCHED_IDLE then shows whether a demotion put it back (SCHED_IDLE) or left
 * it alone (SCHED_BATCH).
 */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon.h"

typedef struct Sleeper {
	pthread_t thread;
	pid_t tid;
	int pipe[2];
} Sleeper;

/* The fixture's paths, valid between fixture_setup() and fixture_teardown(). */
extern char fixture_proc[], fixture_state[], fixture_conf[];

/* Check fixtures: make and remove the directory. */
void fixture_setup(void);
void fixture_teardown(void);

void fixture_write(const char *path, const char *text);
/* Every process of the fake /proc lives in realtimed's pid namespace,
 * unless a test says otherwise. */
#define FIXTURE_PIDNS 1
/* PROC/PID/ns/pid (pid 0: PROC/self/ns/pid) names pid namespace inode. */
void fixture_pidns(pid_t pid, unsigned inode);
/* PROC/PID (tid 0) or PROC/PID/task/TID in the fake /proc: a status file
 * with those real, effective and saved uids and a stat file with start
 * time st; a process in realtimed's pid namespace (FIXTURE_PIDNS). */
void fixture_task(pid_t pid, pid_t tid, uid_t ruid, uid_t euid, uid_t suid, uint64_t st);
/* The same for a thread (tid > 0) that the test's own uid owns. */
void fixture_stat(pid_t pid, pid_t tid, uint64_t st);

/* PROC/PID/task/TID/comm (tid 0: PROC/PID/comm) holding comm, any bytes,
 * and a newline, as the kernel writes it. */
void fixture_comm(pid_t pid, pid_t tid, const char *comm);
/* PROC/PID/stat of an IRQ kernel thread named comm ("irq/30-snd_hda_in",
 * cut as the kernel cuts it or not), running policy at priority
 * (SCHED_OTHER: at nice), as procfs-irq.h reads it. */
void fixture_irq_thread(pid_t pid, const char *comm, int policy, int priority, int nice);
/* PROC/irq/IRQ/ACTION/, the directory that gives an IRQ thread's action
 * its full name. */
void fixture_irq_action(unsigned irq, const char *action);

/* This process in a mount namespace of its own, with a tmpfs on /proc
 * that holds only this process's own directory (and "self"): realtime.ko's
 * files, which irq.c opens under the real /proc, are then the test's to
 * make (or leave out), and the machine's are never touched. 0, or -errno
 * where this process may not (not root). */
int fixture_private_proc(void);
/* Whether fixture_private_proc() works here, tried in a child; prints
 * "SKIP: ..." and why when not. */
bool fixture_private_proc_allowed(void);

/* Starts a thread that sleeps until the test ends, at SCHED_BATCH nice 12. */
void sleeper_start(Sleeper *s);
/* The scheduling policy of a thread, without SCHED_RESET_ON_FORK. */
int sched_policy_of(pid_t tid);

/* A Daemon on the fake /proc (a table with no exit watches: the fake /proc
 * decides what is alive) and the policy fixture_conf holds, with hooks
 * (may be NULL) and the manager's change callback. */
void fixture_daemon_init(Daemon *d, const DaemonHooks *hooks);
void fixture_daemon_fini(Daemon *d);
/* Grants tid of this process a nice level, recorded with start time st and
 * SCHED_IDLE as what it ran with before. */
void fixture_grant(Daemon *d, pid_t tid, uint64_t st, int nice);
