/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bus-fuzz: random calls to realtimed's two bus interfaces, as an
 * unprivileged user, with an oracle that checks every grant against the
 * policy the test wrote. The parts:
 *   main.c         options, and setting the process up
 *   batches.c      workers sending calls in batches, the checks between
 *   report.c       violations, notes, the counters at the end
 *   calls.c        the kinds of call, picking and sending one
 *   call-build.c   one random call of a kind, aimed at a target
 *   call-check.c   whether what a call did is allowed
 *   bus.c          connections, Peer.Ping, ListGrants and ListAllGrants
 *   clients.c      clients that hang up, crowd, flood, race
 *   gen.c          random values: UTF-8 strings, names, ids, signatures
 *   bursts.c       many calls at once: bursts that park at polkit and at
 *                  the resolver, manage floods, threads that lower their
 *                  own policy and spin, tids that exit around a grant;
 *                  the per-user limits checked after each burst
 *   probe.c        bus-fuzz --probe: another user's grants, which must
 *                  keep succeeding whatever the fuzzers do
 *   victims.c      the targets of calls (victims.h: with sleepers.c, the
 *                  fuzzer's own sleeping threads, and children.c, its
 *                  child processes)
 *   oracle.c       what the kernel says about a thread, and whether policy
 *                  allows it
 */
#pragma once

#include <dbus/dbus.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bus-names.h"
#include "macro.h"

#define FUZZ_FIFO 1u
#define FUZZ_RR 2u
#define FUZZ_INFINITY UINT64_MAX
#define CALL_TIMEOUT_MS 10000

/* What the policy under test gives the fuzzing user. The test that writes
 * the policy passes it on the command line: the oracle never asks the
 * daemon, whose answers are what is being checked. */
typedef struct Limits {
	int max_prio;		/* RealtimePriority=; 0: no realtime at all */
	unsigned policies;	/* Policies=: FUZZ_FIFO | FUZZ_RR */
	bool nice_set;		/* Nice= is set */
	int min_nice;		/* Nice= */
	uint64_t rttime_usec;	/* RTTime=, FUZZ_INFINITY when unlimited */
	uint64_t memlock;	/* MemLock=, bytes */
	unsigned burst;		/* [Daemon] ActionsPerBurst= */
	unsigned burst_sec;	/* [Daemon] BurstSec= */
	bool sees_all;		/* polkit gives the user org.realtimed.manage: every grant */
	unsigned threads_max;	/* [Daemon] ThreadsPerUserMax=; 0: not checked */
	unsigned processes_max; /* [Daemon] ProcessesPerUserMax=; 0: not checked */
	unsigned users_max;	/* [Daemon] UsersMax=; checked with sees_all only */
} Limits;

/* xorshift64*: one per worker, seeded from the run's seed. */
typedef struct Rng {
	uint64_t s;
} Rng;

void rng_seed(Rng *r, uint64_t seed, unsigned stream);
uint64_t rng_next(Rng *r);
/* Uniform in [0, n); n > 0. */
uint64_t rng_below(Rng *r, uint64_t n);
bool rng_chance(Rng *r, unsigned percent);

/* A description of a call, for the crash report and violations. */
typedef struct Desc {
	char text[400];
	size_t len;
} Desc;

_printf_(2, 3) void desc_add(Desc *d, const char *format, ...);

/* gen.c */
/* A random string of valid UTF-8 (what libdbus sends), up to 64 KiB, and
 * often shaped to put a multibyte character across a truncation point of
 * the daemon's fixed buffers. Describes it in d. Free with free(). */
char *gen_string(Rng *r, Desc *d);
/* A thread name of up to 15 bytes, mostly not UTF-8 or with control bytes. */
void gen_comm(Rng *r, char name[16]);
/* Random and extreme integers. */
uint32_t gen_u32(Rng *r, uint32_t lo, uint32_t hi);
int32_t gen_i32(Rng *r, int32_t lo, int32_t hi);
/* Appends 0..4 random arguments of random types to m. */
bool gen_append_random_args(Rng *r, DBusMessage *m, Desc *d);
/* A valid member or interface name that realtimed does not serve. */
void gen_member(Rng *r, char *buf, size_t size);
void gen_interface(Rng *r, char *buf, size_t size);

/* victims.c: the threads and processes the calls aim at. */
uint64_t now_usec(void); /* CLOCK_MONOTONIC */
/* The fuzzer's own threads that calls aim at: none of them works while it
 * may be realtime (a realtime thread spinning on a lock that a preempted
 * thread holds never gets it back). The workers and the controller are no
 * targets. */
typedef enum TargetKind {
	TARGET_MAIN,	/* the fuzzer's main thread (pid 0, tid 0), which only waits */
	TARGET_SLEEPER, /* a sleeping thread of the fuzzer that renames itself */
	TARGET_CHILD,	/* a thread of a child process of the fuzzer */
	_TARGET_KIND_MAX,
} TargetKind;

typedef struct Target {
	TargetKind kind;
	pid_t pid, tid;
	uint64_t start; /* start time of the thread, against tid reuse */
	/* What the thread had before realtimed touched it: a grant or reset
	 * may leave a thread above this only as far as policy allows. */
	int base_policy, base_nice;
	int sleeper; /* index in the sleeper table, or -1 */
	bool alive;
} Target;

/* A process that is not the fuzzer's: another user's, root's, a kernel thread. */
typedef struct SysProc {
	pid_t pid, tid; /* tid: one of its threads (often pid itself) */
	uid_t uid;
	bool kthread;
} SysProc;

#define TARGETS_MAX 128
#define DEAD_MAX 64
#define SYS_MAX 512
#define SLEEPERS 8

int victims_start(unsigned n_children, unsigned threads_per_child);
void victims_stop(void);
/* Registers the calling thread as a target. */
void victims_register_self(TargetKind kind);
/* Kills one child and starts another; the dead one's pid and tids join
 * the dead pool. Also makes a short-lived thread for a dead tid. */
void victims_churn(void);
/* Re-reads /proc for other users' processes and kernel threads. */
void victims_scan_system(uid_t self);
/* Copies of the tables, under their lock. */
size_t victims_targets(Target *ret, size_t max);
bool victims_pick_target(Rng *r, Target *ret);
pid_t victims_pick_dead(Rng *r, bool tid);
bool victims_pick_sys(Rng *r, bool kthread, SysProc *ret);
/* Forgets the targets whose threads are gone. */
void victims_refresh(void);
/* sleepers.c */
pid_t victims_pick_sleeper(Rng *r, int *ret_index);
/* Asks sleeper i to rename itself with prctl(PR_SET_NAME) now. */
void victims_rename_sleeper(int i, const char name[16]);
/* Makes sleeper i spin for up to ms milliseconds, lowering its own
 * realtime priority by one the moment it sees itself realtime: the race
 * against the daemon's read-back after a grant. Returns the tid. */
pid_t victims_race_sleeper(int i, unsigned ms);
/* Waits until sleeper i has stopped spinning. */
void victims_race_wait(int i);
/* Has sleeper i, once it sees itself realtime, lower itself to
 * SCHED_OTHER and spin for ms (at most 5) milliseconds, rounds times, a
 * few milliseconds apart; returns when it is done. It spins only once the
 * kernel says it is no longer realtime. Returns the tid, 0 when busy. */
pid_t victims_lower_spin_sleeper(int i, unsigned rounds, unsigned ms);
pid_t victims_sleeper_tid(int i);
/* children.c: the child process (bus-fuzz --victim N): N sleeping threads,
 * the first of which now and then calls execve() (bus-fuzz
 * --victim-execed: the process sleeps on, that thread its main one, with
 * whatever grant it held). */
int victim_main(unsigned n);
int victim_execed_main(void);

/* oracle.c */
typedef struct ThreadState {
	int policy; /* SCHED_*, without SCHED_RESET_ON_FORK */
	bool reset_on_fork;
	int prio;
	int nice;
} ThreadState;

enum { LIM_RTPRIO, LIM_RTTIME, LIM_NICE, LIM_MEMLOCK, _LIM_MAX };

/* SCHED_FIFO or SCHED_RR. */
bool is_rt(int policy);
int thread_start_time(pid_t pid, pid_t tid, uint64_t *ret);
/* Real, effective and saved uid of the thread. */
int thread_uids(pid_t pid, pid_t tid, uid_t ret[3]);
int thread_state(pid_t tid, ThreadState *ret);
/* A limit of /proc/PID/limits by its name there ("Max realtime timeout");
 * unlimited is FUZZ_INFINITY. */
int process_limit(pid_t pid, const char *name, uint64_t *ret_soft, uint64_t *ret_hard);
/* Their names in /proc/PID/limits. */
extern const char *const limit_names[_LIM_MAX];
/* The hard limits LIM_* of process pid; *ok false when one is missing. */
void process_limits(pid_t pid, uint64_t v[_LIM_MAX], bool *ok);
/* True when s is beyond both what policy allows and the thread's baseline;
 * why says how. rttime_hard: the process's hard RLIMIT_RTTIME. */
bool state_violates(const Limits *l, const ThreadState *s, int base_policy, int base_nice,
		    uint64_t rttime_hard, char *why, size_t size);
void self_drop_realtime(void);
/* Notes the realtime threads of users other than root there are before
 * the run, which oracle_check_unsupervised() leaves alone. */
void oracle_snapshot_realtime(void);
/* Every SCHED_FIFO/RR thread of a user other than root (of the fuzzing
 * user's only, without --sees-all), kernel threads aside, that was not
 * realtime before the run must be named by a grant (ListAllGrants, or
 * ListGrants); a violation after d for each that is not, looked at twice
 * 1.5 s apart. Takes a lock: one check at a time. */
void oracle_check_unsupervised(DBusConnection *bus, const Desc *d);

/* main.c */
extern Limits limits;
extern uid_t self_uid;
extern pid_t self_pid;
extern atomic_bool daemon_suspect;

/* calls.c: the kinds of call, and sending one. */
typedef enum CallKind {
	CALL_MAKE_RT,
	CALL_MAKE_HIGH,
	CALL_RESET_THREAD,
	CALL_RESET_PROCESS,
	CALL_GRANT_LIMITS,
	CALL_EXPLAIN,
	CALL_LIST_GRANTS,
	CALL_LIST_IRQ,
	CALL_RELOAD,
	CALL_RTKIT_RT,
	CALL_RTKIT_RT_PID,
	CALL_RTKIT_HIGH,
	CALL_RTKIT_HIGH_PID,
	CALL_RTKIT_ROOT,
	CALL_PROP_GET,
	CALL_PROP_GET_ALL,
	CALL_PROP_SET,
	CALL_INTROSPECT,
	CALL_PEER,
	CALL_UNKNOWN,
	CALL_LONG_STRING,
	/* not single calls */
	CALL_RENAME_LIST,
	CALL_DISCONNECT,
	CALL_MANY_CONNECTIONS,
	CALL_RACE,
	CALL_BURST,
	CALL_MANAGE_FLOOD,
	CALL_SPIN_OTHER,
	CALL_TID_CHURN,
	_CALL_KIND_MAX,
} CallKind;

/* The thread or process a call aims at, as the daemon should read it. */
typedef struct Aim {
	uint64_t pid_arg, tid_arg;
	pid_t pid, tid; /* pid 0 = the caller, tid 0 = pid; -1 when out of range */
	bool exists;	/* tid was a thread of pid before the call */
	uint64_t start;
	bool foreign; /* not all of its real, effective, saved uids are the caller's */
	uid_t uids[3];
	int base_policy, base_nice;
} Aim;

typedef struct Call {
	CallKind kind;
	DBusMessage *m;
	Desc d;
	Aim aim;
	bool has_aim;	       /* aim is the target of a grant, reset or GrantLimits */
	const char *signature; /* what the method takes; NULL: no signature is right */
	bool random_args;
	bool has_before;
	uint64_t before[_LIM_MAX]; /* GrantLimits: hard limits before the call */
} Call;

typedef struct Worker {
	unsigned index;
	Rng rng;
	DBusConnection *bus;
	pthread_t thread;
	bool flood; /* set by the controller: flood past the rate limit in the next batch */
	bool burst; /* set by the controller: a burst past the per-user limits (bursts.c) */
	/* the last calls, for the crash report */
	Desc recent[16];
	uint64_t recent_usec[16];
	unsigned n_recent;
} Worker;

/* Only the call kinds named in list (comma-separated: make-rt, rename-list...). */
int calls_select(const char *list);
/* Not left out by --calls. */
bool call_kind_enabled(CallKind k);
void worker_call(Worker *w);
/* The single calls (not the client behaviours of clients.c): build one of
 * kind k with random arguments, read its target just before sending, send
 * it and count the answer, check the answer. */
DBusMessage *call_send(Worker *w, DBusConnection *bus, DBusMessage *m, const Desc *d);
void call_run(Worker *w, CallKind k);
CallKind call_pick_single(Rng *r);
DBusMessage *call_new(const char *dest, const char *path, const char *iface, const char *member);
void call_append(DBusMessage *m, int first_type, ...);
void call_record(Worker *w, const Desc *d);
void call_note_error(const char *name);

/* call-build.c */
void call_build(Worker *w, CallKind k, Call *c);
void call_prepare(Call *c);
/* A policy the user may hold, for calls meant to be granted. */
const char *allowed_policy(void);
/* A sleeper that started at nice 0 (its index) and a priority from
 * min_prio to the user's most, at random; false when the user may not go
 * as high as min_prio. */
bool pick_nice0_grant(Rng *r, int min_prio, int *ret_sleeper, uint32_t *ret_prio);
/* native MakeThreadRealtime(0, tid, allowed_policy(), prio), described in
 * d with what follows it (tail). */
DBusMessage *native_grant_call(uint64_t tid, uint32_t prio, Desc *d, const char *tail);

/* call-check.c */
void call_check(const Call *c, DBusMessage *reply);
/* Thread tid of ours against policy, after a grant (counts it). */
void check_target(const Desc *d, pid_t tid);
void check_thread(const Desc *d, pid_t pid, pid_t tid, int base_policy, int base_nice);

/* bus.c */
DBusConnection *bus_connect_private(void);
void bus_close_private(DBusConnection *c);
/* Flushes the n connections of c, skipping NULL ones. */
void bus_flush_all(DBusConnection *const *c, unsigned n);
/* Waits for the answer to p and unrefs p: true for a method return; else
 * false, with the error's name in error ("" when no answer came). */
bool pending_wait(DBusPendingCall *p, char *error, size_t size);
/* Peer.Ping; false when realtimed does not answer. */
bool daemon_ping(DBusConnection *bus, char *error, size_t size);
/* The caller's supervised grants, as (pid, tid) pairs; -errno on failure. */
int list_grants(DBusConnection *bus, pid_t (**ret)[2], size_t *ret_n, char *error, size_t size);
typedef struct ListedGrant {
	pid_t pid, tid;
	uid_t uid;
} ListedGrant;
/* ListGrants' answer a(ttusssit) as (pid, tid, uid); -EBADMSG when the
 * reply does not have that shape. */
int parse_grants(DBusMessage *reply, ListedGrant **ret, size_t *ret_n);
/* ListGrants (ListAllGrants when all) on bus, parsed; -errno on failure,
 * with what went wrong in error. */
int list_grants_full(DBusConnection *bus, bool all, ListedGrant **ret, size_t *ret_n, char *error,
		     size_t size);

/* batches.c */
#define WORKERS_MAX 16
/* Runs n workers, seeded from seed, against realtimed on bus until seconds
 * have passed or realtimed stops answering; returns -errno when it could
 * not start them. */
int batches_run(DBusConnection *bus, unsigned n, uint64_t seed, unsigned seconds,
		uint64_t *ret_start, unsigned long *ret_batches);

/* report.c: the run's counters and what it prints */
typedef struct Stats {
	atomic_ulong calls;
	atomic_ulong ok;
	atomic_ulong grants_checked;
	atomic_ulong limits_checked;
	atomic_ulong violations;
	atomic_ulong crashes;
	atomic_ulong disconnects;
	atomic_ulong connections;
	atomic_ulong floods;
	atomic_ulong flood_rate_limited;
	atomic_ulong renames;
	atomic_ulong races;
	atomic_ulong timeouts;
	atomic_ulong supervised_checks;
	atomic_ulong bursts;
	atomic_ulong burst_granted;
	atomic_ulong limit_checks;
	atomic_ulong manage_floods;
	atomic_ulong spins;
	atomic_ulong tid_churns;
	atomic_ulong tid_reuses;
	atomic_ulong probes;
	atomic_ulong probe_refused;
	atomic_ulong supervision_scans;
	atomic_ulong execs;
} Stats;

extern Stats stats;
extern const char *report_label; /* --label */

void count_error(const char *name);
_printf_(2, 3) void violation(const Desc *call, const char *format, ...);
/* A line of the report that is no violation. */
_printf_(1, 2) void note(const char *format, ...);
/* The last calls of every worker, oldest first: the crash report. */
void report_recent(Worker *workers, unsigned n_workers);
/* The counters and error names, at the end. */
void report_print(double secs, unsigned long batches);

/* clients.c */
void client_rename_and_list(Worker *w);
void client_hang_up(Worker *w);
void client_many_connections(Worker *w);
void client_race_read_back(Worker *w);
void worker_flood(Worker *w);

/* bursts.c */
void client_burst(Worker *w);
void client_manage_flood(Worker *w);
void client_spin_other(Worker *w);
void client_tid_churn(Worker *w);

/* probe.c: bus-fuzz --probe; the exit status of the run. */
int probe_main(unsigned seconds, unsigned interval_ms, uint64_t seed);
