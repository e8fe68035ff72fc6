/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The canary watchdog: demotes the realtime threads realtimed granted when
 * realtime work starves the rest of the machine.
 *
 * Two threads, running only while realtime grants exist (an idle daemon has
 * no timers):
 *   - the canary, SCHED_OTHER at nice -20 (so ordinary fair load does not
 *     delay it), wakes every cheep interval C = CanaryWatchdogSec / 20
 *     (50 ms at least, 250 ms at most) and cheeps (an eventfd count);
 *   - the watchdog, SCHED_DEADLINE (5 ms of CPU every 50 ms, above every
 *     SCHED_FIFO/RR priority), wakes four times per CanaryWatchdogSec and
 *     judges the last CanaryWatchdogSec by the cheeps that came and the CPU
 *     time the granted threads used.
 * A canary that cannot run never cheeps; but the kernel never lets realtime
 * threads take a CPU whole: RT throttling (sched_rt_runtime_us, 950 ms per
 * 1 s on 6.1) and, from 6.12 on, the deferred fair deadline server (50 ms
 * per 1 s) still give SCHED_OTHER threads about 50 ms each second. So the
 * canary does not have to be silent to count as starving: the watchdog
 * fires when the canary was missing for half of the window, that is when
 * the time not covered by its cheeps (window - cheeps * C) reaches
 * CanaryWatchdogSec / 2. Under throttling the canary cheeps about once a
 * second instead of 1 s / C times (10 of every 100 ms slots at the
 * default): it fires about 1.1 s after a runaway starts, plus up to a
 * quarter window until the watchdog's next look.
 *
 * The fair server of 6.12 serves a short wakeup at once even on a CPU that
 * realtime threads hold (it owes SCHED_OTHER 50 ms each second, and a cheep
 * costs microseconds): a canary that only cheeps is late there only while
 * the rest of the fair load uses up those 50 ms, which an otherwise idle
 * machine does not. (Measured in the VM tier, 6.12.118 under TCG, two
 * vCPUs: 26-44% of the cheeps came behind a SCHED_FIFO runaway on each,
 * so the cheeps alone fired there; the held rule keeps the bound where
 * the server serves every wakeup.) So the watchdog
 * also adds up, at each look, the CPU time the granted threads used while
 * they ran realtime (their schedstat, counted only when the thread's
 * policy, field 41 of its stat, was SCHED_FIFO, SCHED_RR or
 * SCHED_DEADLINE at this look and the last): a granted thread set back to
 * SCHED_OTHER (which needs no privilege) competes with the canary as any
 * fair thread does and holds nothing.
 *
 * Realtime threads that used 90% of every CPU are not yet starvation: the
 * watchdog never fires on that alone while the canary's wakeups come.
 * Such a look starts a probe: the canary, pinned to the CPU it is on,
 * spins until it got a quarter of a look's interval of CPU time (125 ms
 * at the default 2 s), cheeping as it goes, and stops there. A fair
 * thread at nice -20 that cannot get a quarter of one CPU within the next
 * look's interval is deprived (realtime leaves the fair class 5% of each
 * CPU behind a runaway, 10% at the most under that 90%); only then do the
 * held look and the probed one count as wholly missed, so that a runaway
 * on every CPU fires within the same two looks as the cheeps alone would.
 * The probe costs a quarter of one CPU per look, only while granted
 * threads run realtime on 90% of every CPU. Realtime threads that
 * realtimed did not grant count only once noted (below: finding them takes
 * a scan of every thread); until then they make the canary fire only by
 * starving it. Noted, their CPU time counts towards the held time as the
 * granted threads' does, so that on 6.12 runaways of their own start the
 * probe too, and they are blamed by the CPU time they used since.
 *
 * A busy machine with only fair load, or realtime load that sleeps between
 * bursts (JACK's DSP at 70% of a CPU), delays the canary by milliseconds,
 * not by a whole cheep interval. A runaway on some CPUs but not all is not
 * starvation either, but the fair scheduler places a waking thread blind to
 * realtime load and a busy CPU does not pull it over: the canary may wait
 * behind a runaway while another CPU runs fair work. So when a look finds the canary two
 * cheeps short, the watchdog restricts the canary's CPU affinity to the
 * CPUs where no granted thread runs realtime at that moment (all of them,
 * if granted threads hold every CPU).
 *
 * When it fires, the watchdog itself, with no help from the main thread
 * (which may be starving too), first finds whom to blame: from the CPU
 * time each user's granted threads ran realtime in the starved looks of
 * the window (those in which the canary missed half the time or more),
 * every user who used 90% of one CPU over them or more, then, largest
 * first, as many more as it takes for the realtime time of the users not
 * blamed to fall below half the CPUs' time (a periodic audio thread of
 * another user, at 30% of a CPU, is not blamed beside a runaway). A
 * starving canary with no granted thread that ran realtime blames nobody.
 * Then, for the blamed users only:
 *   1. sets RLIMIT_RTPRIO 0 (soft and hard) on each process that held a
 *      realtime grant, first, so that none of its threads can take
 *      SCHED_FIFO/RR again through its own limit, and keeps the old limit;
 *   2. demotes every supervised thread that is still the thread granted;
 *   3. with CanaryDemoteUnknown=yes, does the same (1. then 2.) to every
 *      SCHED_FIFO/RR thread whose real and effective uid are not root and
 *      that realtimed did not grant (as rtkit's --canary-demote-unknown),
 *      for at most CANARY_UNKNOWN_CLAMP_MAX processes per firing;
 * then hands a report to the main thread, which drops the grants, refuses
 * the blamed users' requests (grants and GrantLimits, whoever asks) for
 * CanaryRefuseSec, logs once and emits Demoted("canary"). If the watchdog
 * fires again within two windows of a firing that demoted someone
 * (starvation persisted: the cause was not, or not only, the blamed
 * users') while realtime threads kept at least half of the CPUs busy (the
 * granted ones in the starved slots, and the unknown ones noted before),
 * it escalates: 1. to 3. for every user (as rtkit does). A firing that
 * demoted nobody is no reason to take anyone else's realtime. A canary
 * starved by fair load alone is not realtime's doing: demoting would not
 * feed it, and would let anyone who can load the machine take realtime
 * from everyone. Realtime threads that realtimed did not grant are noted
 * (CANARY_UNKNOWN_CLAMP_MAX at most) half way to a firing (when the
 * canary missed a quarter of the window) and at every firing that did
 * not escalate; at a firing, each user whose noted threads used 90% of one
 * CPU since is blamed too: a runaway that took realtime through its own
 * RLIMIT_RTPRIO is demoted and refused at the first firing, as a granted
 * one is, and cannot take the limit back through GrantLimits at once.
 * After CanaryRefuseSec the main thread gives each clamped process its
 * old RLIMIT_RTPRIO back, if it still has the 0 set here. The watchdog
 * judges nothing while a report waits for the main thread; it never
 * allocates memory (the main thread sizes its buffers with each update,
 * canary_new() the room for the unknown threads) and never logs.
 *
 * The watchdog outranks everything realtimed may grant only as
 * SCHED_DEADLINE. Where the kernel refuses that (no CAP_SYS_NICE, a CPU
 * affinity that does not span its root domain, DEADLINE admission control
 * full), it runs at SCHED_FIFO 99, which does not preempt a FIFO 99
 * runaway: canary_max_grant_priority() is then 98 and grants above it are
 * refused. The class is known before the first grant: canary_new() tries it
 * in a short-lived thread, and every start waits for the watchdog to report
 * the class it got.
 *
 * Not starvation, and not counted: a watchdog that itself woke half a slot
 * late (the daemon was stopped with SIGSTOP, the VM paused: the canary was
 * not starved by anyone) and a jump of CLOCK_BOOTTIME against
 * CLOCK_MONOTONIC (a suspend and resume) restart the window. Time is
 * CLOCK_MONOTONIC, which stops during suspend.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

/* Foreign processes (CanaryDemoteUnknown) clamped per firing; threads beyond
 * are still demoted. */
#define CANARY_UNKNOWN_CLAMP_MAX 256

typedef struct Canary Canary;

typedef struct CanaryTarget {
	pid_t pid;
	pid_t tid;
	uint64_t start_time;
	uid_t uid; /* whose grant: the user blamed for it */
} CanaryTarget;

/* A user the watchdog blamed, and the CPU time that user's granted threads
 * ran realtime in the window. */
typedef struct CanaryBlame {
	uid_t uid;
	uint64_t realtime_usec;
} CanaryBlame;

/* A process whose RLIMIT_RTPRIO the watchdog set to 0. */
typedef struct CanaryClamp {
	pid_t pid;
	uint64_t start_time; /* of the process, against pid reuse */
	struct rlimit old;
} CanaryClamp;

typedef struct CanaryReport {
	const CanaryTarget *demoted; /* supervised threads demoted */
	size_t n_demoted;
	const CanaryBlame *blamed; /* to be refused for CanaryRefuseSec */
	size_t n_blamed;
	bool escalated;	  /* starvation persisted: every user's threads demoted */
	size_t n_unknown; /* threads realtimed never granted, demoted */
	/* the first CANARY_UNKNOWN_CLAMP_MAX of those, for the signal */
	const CanaryTarget *unknown_demoted;
	size_t n_unknown_listed;
	size_t n_clamped;	 /* processes whose RLIMIT_RTPRIO is now 0 */
	unsigned cheeps_percent; /* of the cheeps expected in the window */
	uint64_t held_usec;	 /* how long granted threads held every CPU in it */
	unsigned probe_percent;	 /* of the CPU time the last probe asked, 100 if none */
	uint64_t window_usec;
} CanaryReport;

typedef enum CanaryClass {
	CANARY_CLASS_DEADLINE,
	CANARY_CLASS_FIFO,  /* SCHED_FIFO 99: the fallback */
	CANARY_CLASS_OTHER, /* neither: the watchdog preempts nothing */
	_CANARY_CLASS_MAX,
	_CANARY_CLASS_INVALID = -EINVAL,
} CanaryClass;

typedef struct CanarySettings {
	uint64_t watchdog_usec; /* CanaryWatchdogSec; 0 disables the canary */
	uint64_t refuse_usec;	/* CanaryRefuseSec: how long clamped limits stay 0 */
	bool demote_unknown;	/* CanaryDemoteUnknown */
} CanarySettings;

/* Called in the main thread after the watchdog fired. */
typedef void (*canary_fired_t)(const CanaryReport *report, void *userdata);

/* Also finds out which class the watchdog will get (see above). */
int canary_new(sd_event *e, const char *proc, canary_fired_t fired, void *userdata, Canary **ret);
/* Gives clamped processes their RLIMIT_RTPRIO back at once. */
Canary *canary_free(Canary *c);

/* Sets what the watchdog demotes (copied; any order); starts the threads when
 * n > 0 (and stops them when n == 0). Memory held stays proportional to n. */
int canary_update(Canary *c, const CanaryTarget *targets, size_t n, const CanarySettings *s);
CanaryClass canary_class(const Canary *c);
const char *canary_class_to_string(CanaryClass k);
/* The highest SCHED_FIFO/RR priority the watchdog can preempt: 99 as
 * SCHED_DEADLINE, 98 as SCHED_FIFO 99, 0 when it cannot run realtime. */
int canary_max_grant_priority(const Canary *c);
