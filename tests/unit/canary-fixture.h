/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the canary's tests (test-daemon-canary*.c) build on: a forked child
 * that runs a canary (daemon/canary.c) in its own event loop and reports
 * each event as a line on a pipe, and the parent's hold on the child's
 * canary thread through ptrace (PTRACE_SEIZE + PTRACE_INTERRUPT, then
 * PTRACE_CONT), with which it plays the scheduler. The child supervises
 * sleeping threads of its own (a demotion only sets SCHED_OTHER, which they
 * already have: nothing realtime runs). Two children: start_child()'s on
 * the real /proc, one target; start_fake_child()'s on a fake /proc whose
 * stat and schedstat files a thread of the child writes (canary-fake-proc.c).
 */
#pragma once

#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "canary.h"

#define MSEC 1000ULL
#define PERIOD_USEC (1000 * MSEC)

/* The child of the test running now, while it runs. */
extern pid_t child_pid;
/* What start_child()'s child said once its canary ran: its threads before
 * and after its one target was handed over, the class the watchdog runs in
 * (CanaryClass), and its RLIMIT_RTPRIO after the clamp to at most 5. */
extern int threads_idle, threads_running, child_class;
extern unsigned long long child_rtprio;
/* In a child: where report() writes. */
extern int report_fd;

/* The load average of the last minute, for notes. */
const char *loadavg(void);
/* In a child: one line (at most 127 bytes) to the parent; exits 3 if the
 * write fails. */
void report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The tid of pid's thread named comm, 0 if none. */
pid_t find_thread(pid_t pid, const char *comm);
/* A thread body: stores its tid in *(pid_t *)arg, then sleeps for good. */
void *sleeper(void *arg);
/* A canary's report callback, in start_child()'s child: reports "fired
 * N_DEMOTED TID esc E rtprio CUR MAX", then hands the watchdog its target
 * back unless it was demoted, as the manager does. Any canary_new() may
 * take it. */
void on_fired(const CanaryReport *r, void *userdata);

/* Forks a child (child_pid) that runs body(fd, arg), writing to fd, and
 * reads its first line into buf (asserts it comes within 5 s). */
void spawn_child(void (*body)(int fd, const void *arg), const void *arg, char *buf, size_t size);
/* A child on the real /proc whose canary, with CanaryWatchdogSec
 * period_usec, supervises one sleeping thread; sets the ready values. */
void start_child(uint64_t period_usec);
/* Kills and reaps the child, and a canary thread of it still traced. */
void stop_child(void);
/* What the child reported within ms into buf: "" if nothing. */
void read_report(int ms, char *buf, size_t size);

/* The child's canary thread, seized (PTRACE_SEIZE): it runs on. */
pid_t seize_canary(void);
/* Stops the seized canary, and lets it run again. */
void canary_pause(pid_t canary);
void canary_resume(pid_t canary);
/* Lets the canary run run_ms of every period_ms, for at most total_ms or
 * until the child reports (into buf); returns the ms until the report, or
 * 0. */
uint64_t throttle_canary(pid_t canary, int run_ms, int period_ms, int total_ms, char *buf,
			 size_t size);

/* The whole main() of a canary test: a suite of one test case of tests,
 * each with 30 s to run. traced: its tests seize the canary, so it
 * returns 77 (meson's skip, with a note) where this process may not
 * ptrace a child (Yama, containers). */
int canary_check_run(const char *suite_name, const char *name, const TTest *const *tests,
		     bool traced);

/* The fake /proc (canary-fake-proc.c). Its child's targets: one thread of
 * uid 1000 per CPU (at most FAKE_MAX) at policy and 100% of a CPU, with
 * with_b one more of uid 2000 at SCHED_FIFO and 30%, and with
 * with_unknown a process of uid 3000 at SCHED_FIFO 1 that realtimed did
 * not grant (CanaryDemoteUnknown=yes), at 100% of a CPU from the start or
 * from the first firing on, or one such per CPU. Each firing reports "fired esc E blamed
 * UID... demoted UID...". False (a note printed) when the kernel refused
 * the unknown one realtime. */
enum { FAKE_MAX = 64 };
typedef enum FakeUnknown {
	FAKE_UNKNOWN_NONE,
	FAKE_UNKNOWN_RUNAWAY,	   /* 100% of a CPU from the start */
	FAKE_UNKNOWN_AFTER_FIRING, /* idle until the first firing, then 100% */
	FAKE_UNKNOWN_EVERY_CPU,	   /* one such process per CPU, from the start */
} FakeUnknown;
bool start_fake_child_with(int policy, bool with_b, FakeUnknown with_unknown);
/* The same without the unknown thread. */
void start_fake_child(int policy, bool with_b);
/* stop_child(), and the fake /proc removed. */
void stop_fake_child(void);
/* The CPUs this process may run on. */
int cpus_here(void);
