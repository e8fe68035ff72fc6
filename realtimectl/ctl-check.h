/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimectl check: the checks of a machine's realtime setup, one small
 * function per table entry (check.c holds the table; check-kernel.c,
 * check-system.c and check-user.c the functions; the helpers they share
 * are grouped below by file). A check reads, never
 * writes: every /proc, /sys, /etc, /boot and /var path goes through the
 * context's root prefix ("" on a live system, a canned tree in
 * test-ctl-check.c), and what the system bus says comes from a callback
 * (bus_query), so the whole table runs in a unit test. A check never
 * prints; it fills a CheckResult that check.c prints as text or JSON.
 */
#pragma once

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "macro.h"
#include "policy.h"

/* In the order of severity, for the summary and the exit status. */
typedef enum CheckStatus {
	CHECK_OK,
	CHECK_INFO, /* nothing to change; a fact worth knowing */
	CHECK_SKIP, /* could not tell: unreadable, not applicable; the value says why */
	CHECK_WARN, /* works, but worse than it could: the hint says what to change */
	CHECK_FAIL, /* realtime will not work as policy means it: the hint says what to change */
	_CHECK_STATUS_MAX,
	_CHECK_STATUS_INVALID = -EINVAL,
} CheckStatus;

#define CHECK_SUMMARY_MAX 256
#define CHECK_VALUE_MAX 512
#define CHECK_HINT_MAX 768

typedef struct CheckResult {
	CheckStatus status;
	char summary[CHECK_SUMMARY_MAX]; /* one line for people */
	char value[CHECK_VALUE_MAX];	 /* the raw finding */
	char hint[CHECK_HINT_MAX];	 /* for warn and fail: what to do, exactly */
} CheckResult;

/* realtimed's CpuDmaLatency property (daemon/org.realtimed.Realtime1.xml):
 * whether it holds /dev/cpu_dma_latency. */
typedef struct CpuDmaHold {
	bool known;	 /* realtimed answered (an older one has no such property) */
	char state[16];	 /* "unset", "released", "held" or "failed" */
	long long usec;	 /* held or to hold; -1: unset */
	unsigned grants; /* the realtime grants it is held for */
	char error[192]; /* the last failure to take hold, "" since a success */
} CpuDmaHold;

/* realtimed's Shield property (daemon/org.realtimed.Realtime1.xml): the
 * CPUs shielded from interrupts while realtime grants run. */
#define SHIELD_LEFT_SHOWN 8
typedef struct ShieldHold {
	bool known;	 /* realtimed answered (an older one has no such property) */
	char state[16];	 /* "unset", "released", "held", "lingering", "refused", "failed" */
	char cpus[128];	 /* the shielded CPUs, "" while not held */
	unsigned grants; /* the realtime grants it is held for */
	unsigned moved;	 /* IRQs moved off the shield */
	size_t n_left;	 /* IRQs that stay on it; the first SHIELD_LEFT_SHOWN: */
	struct {
		unsigned irq;
		char name[96];
		char why[160];
	} left[SHIELD_LEFT_SHOWN];
	char irqbalance[320]; /* "" when it does not run, "told (pid N)", or why not */
	char problem[1024];   /* why it is not held, or what it left undone */
} ShieldHold;

/* What the system bus says, for the daemon and rtkit-conflict checks. */
typedef struct CheckBus {
	bool reachable;	 /* the system bus answered */
	char error[128]; /* why not, when !reachable */
	bool realtimed;	 /* org.realtimed.Realtime1 has an owner */
	pid_t realtimed_pid;
	int max_priority; /* its MaxRealtimePriority for the caller; -1 unknown */
	char version[64]; /* its Version; "" unknown */
	bool rtkit_owned; /* org.freedesktop.RealtimeKit1 has an owner */
	pid_t rtkit_pid;
	bool rtkit_is_realtimed; /* ... and it is realtimed's compat interface */
	CpuDmaHold cpu_dma;	 /* realtimed's CpuDmaLatency, for cpu-dma-latency */
	ShieldHold shield;	 /* realtimed's Shield, for shield */
} CheckBus;

/* What realtimed refused the checked user lately (ListRefusals), in words
 * (refusal.h). */
#define CHECK_REFUSALS_SHOWN 3
typedef struct CheckRefusals {
	size_t n;	/* refusals since the time asked (each folded one once) */
	size_t n_shown; /* the newest of them, oldest first */
	char shown[CHECK_REFUSALS_SHOWN][CHECK_SUMMARY_MAX];
	char fix[CHECK_HINT_MAX / 2]; /* what to do about the newest */
} CheckRefusals;

typedef struct CheckContext {
	const char *root; /* prefix of every path read: "" on a live system */
	/* The user checked: the caller, or --user USER. */
	uid_t uid;
	const char *user;
	const char *home;
	const PolicyUser *pu; /* NSS's view of the user; NULL when unknown */
	pid_t pid; /* the process whose limits and groups are the session's; 0: self, -1: none */
	bool have_audio_gid;
	gid_t audio_gid;
	const Policy *policy;	       /* loaded with policy_load_check() */
	const char *policy_hint_paths; /* how policy check was run, for hints */
	/* NULL: no bus (skip what needs it). Fills ret; never prints. */
	void (*bus_query)(CheckBus *ret);
	/* uid's refusals since since_usec (CLOCK_REALTIME) into ret; NULL: no
	 * bus. -EHOSTDOWN: realtimed is not running; -EACCES: the caller may
	 * not see uid's; -EOPNOTSUPP: realtimed keeps none (an older one). */
	int (*refusals_query)(uid_t uid, uint64_t since_usec, CheckRefusals *ret);

	/* Read once by check_context_load() under root. NULL when unreadable. */
	char *cmdline;	 /* /proc/cmdline */
	char *osrelease; /* /proc/sys/kernel/osrelease */
	char *version;	 /* /proc/version */
	char *kconfig;	 /* /boot/config-OSRELEASE */
	int kconfig_errno;
} CheckContext;

typedef struct Check {
	const char *id;
	void (*run)(const CheckContext *c, CheckResult *r);
} Check;

/* The checks, each filling r from c (check-kernel.c, check-system.c,
 * check-user.c); the table names them. */
void check_kernel_preempt(const CheckContext *c, CheckResult *r);
void check_threadirqs(const CheckContext *c, CheckResult *r);
void check_rt_throttling(const CheckContext *c, CheckResult *r);
void check_rt_group_sched(const CheckContext *c, CheckResult *r);
void check_sched_ext(const CheckContext *c, CheckResult *r);
void check_swappiness(const CheckContext *c, CheckResult *r);
void check_cpu_governor(const CheckContext *c, CheckResult *r);
void check_cpu_dma_latency(const CheckContext *c, CheckResult *r);
void check_shield(const CheckContext *c, CheckResult *r);
void check_smt(const CheckContext *c, CheckResult *r);
void check_mitigations(const CheckContext *c, CheckResult *r);
void check_timer(const CheckContext *c, CheckResult *r);
void check_rlimit_rtprio(const CheckContext *c, CheckResult *r);
void check_rlimit_memlock(const CheckContext *c, CheckResult *r);
void check_rlimit_rttime(const CheckContext *c, CheckResult *r);
void check_audio_group(const CheckContext *c, CheckResult *r);
void check_daemon(const CheckContext *c, CheckResult *r);
void check_refusals(const CheckContext *c, CheckResult *r);
void check_rtkit_conflict(const CheckContext *c, CheckResult *r);
void check_limits_conflict(const CheckContext *c, CheckResult *r);
void check_policy(const CheckContext *c, CheckResult *r);
void check_irq_priorities(const CheckContext *c, CheckResult *r);
void check_irq_sharing(const CheckContext *c, CheckResult *r);
void check_irq_below_audio(const CheckContext *c, CheckResult *r);
void check_realtime_module(const CheckContext *c, CheckResult *r);
void check_filesystem(const CheckContext *c, CheckResult *r);

/* The table, in the order printed (check.c). */
extern const Check check_table[];
extern const size_t check_table_n;
const Check *check_find(const char *id);

const char *check_status_to_string(CheckStatus s);

/* check-result.c: filling a CheckResult. */

/* Sets status, value and summary (printf), leaving the hint. */
_printf_(4, 5) void check_set(CheckResult *r, CheckStatus s, const char *value, const char *fmt,
			      ...);
/* Sets the hint (printf). */
_printf_(2, 3) void check_hint(CheckResult *r, const char *fmt, ...);
/* Appends to buf (printf), cut to size. */
_printf_(3, 4) void strbuf_append(char *buf, size_t size, const char *fmt, ...);
/* skip: "cannot read PATH: reason" (EACCES: "needs root"). */
void check_skip_errno(CheckResult *r, const char *path, int err);

/* check-read.c: reading under the root prefix. */

/* c->root + path; "" root gives path itself. NULL on OOM. */
char *check_path(const CheckContext *c, const char *path);
/* Reads c->root + path whole (up to a NUL byte), NUL-terminated, with
 * trailing blanks and newlines cut. -errno. */
int check_read(const CheckContext *c, const char *path, char **ret);
int check_read_long(const CheckContext *c, const char *path, long long *ret);
/* Opens the directory c->root + path; NULL with errno set. */
DIR *check_opendir(const CheckContext *c, const char *path);
/* Does c->root + path exist? */
bool check_exists(const CheckContext *c, const char *path);
/* Reads the checked session's NAME ("limits", "status", "cgroup") from
 * /proc/self or /proc/PID; ret_path gets its path. -ESRCH when the user
 * has no process (check_skip_errno() says so). */
int check_read_session(const CheckContext *c, const char *name, char *ret_path, size_t size,
		       char **ret);
/* Is there a process named comm (its /proc/PID/comm)? Its pid, or 0. */
pid_t check_find_process(const CheckContext *c, const char *comm);

/* check-context.c: the kernel's command line and config. */

/* Reads cmdline, osrelease, version and the kernel config under c->root. */
int check_context_load(CheckContext *c);
void check_context_done(CheckContext *c);
/* Is word (or "word=...") on the kernel command line? *ret_value: what
 * follows '=', up to the next blank (NULL for a bare word). */
bool check_cmdline_word(const CheckContext *c, const char *word, char *value, size_t size);
/* The kernel config's value of name ("CONFIG_HZ"): "y", "250"...; NULL when
 * unset or the config is unknown. */
const char *check_kconfig(const CheckContext *c, const char *name, char *buf, size_t size);

/* check-pam.c: pam_limits' files and the PAM stack. */

/* One line of pam_limits' files that sets an item. */
typedef struct LimitsLine {
	char file[256];
	unsigned line;
	char domain[64];
	char type[8];
	char item[16];
	char value[32];
	bool matches; /* the domain covers the checked user */
} LimitsLine;
/* The lines of /etc/security/limits.conf and the *.conf files of limits.d (C order)
 * whose item is one of items (NULL-terminated). -errno for limits.conf
 * unreadable other than missing. */
int check_limits_lines(const CheckContext *c, const char *const *items, LimitsLine **ret,
		       size_t *ret_n);
/* Is pam_realtime.so in a session line of a file under /etc/pam.d? */
bool check_pam_realtime(const CheckContext *c);

/* check-packages.c: dpkg and apt. */

/* The installed version of a Debian package from /var/lib/dpkg/status;
 * false when not installed. */
bool check_dpkg_version(const CheckContext *c, const char *package, char *buf, size_t size);
/* Can apt install package? *buf: its candidate version. Reads the
 * uncompressed Packages files of /var/lib/apt/lists under the root prefix;
 * on a live system whose lists are compressed (lz4, gz), asks
 * `apt-cache policy`, which only reads, for APT_CACHE_TIMEOUT_MS at most
 * (-ETIMEDOUT). -ENOENT when apt knows no such package, -ENODATA when
 * there are no lists to read (apt update never ran). */
#define APT_CACHE_TIMEOUT_MS 3000
int check_apt_candidate(const CheckContext *c, const char *package, char *buf, size_t size);

/* Debian's PREEMPT_RT kernel for this architecture (metapackage). */
#if defined(__x86_64__)
#define RT_KERNEL_PACKAGE "linux-image-rt-amd64"
#elif defined(__aarch64__)
#define RT_KERNEL_PACKAGE "linux-image-rt-arm64"
#elif defined(__i386__)
#define RT_KERNEL_PACKAGE "linux-image-rt-686-pae"
#else
#define RT_KERNEL_PACKAGE "linux-image-rt"
#endif
/* Do IRQ handlers run in threads (threadirqs, or PREEMPT_RT)? */
bool check_irqs_threaded(const CheckContext *c);
/* check-irq.c: is an IRQ action on the audio path: a sound card's (snd*)
 * or a USB controller's (xhci*, ehci*, ohci*, uhci*: a USB interface's)? */
bool check_irq_is_audio_path(const char *action);
/* check-bus.c (only with D-Bus): the bus_query of a live system. */
void check_bus_query(CheckBus *ret);
struct DBusConnection; /* libdbus's, for the one below; no D-Bus header here */
/* check-bus.c (only with D-Bus): realtimed's CpuDmaLatency (sxus) on bus,
 * for check_bus_query and realtimectl status; ret untouched when the
 * realtimed there does not say (one older than the property). */
void check_bus_cpu_dma(struct DBusConnection *bus, CpuDmaHold *ret);

/* check-cpu-dma.c: realtimed's CPU latency request in words, "held at 0 µs
 * for 2 realtime grants", for check and status. */
void cpu_dma_hold_describe(const CpuDmaHold *h, char *buf, size_t size);
/* check-bus.c (only with D-Bus): realtimed's Shield on bus, as
 * check_bus_cpu_dma(). */
void check_bus_shield(struct DBusConnection *bus, ShieldHold *ret);
/* check-shield.c: realtimed's shield in words, "held on CPUs 3 for 1
 * realtime grant: 5 IRQs moved off them", for check and status. */
void shield_hold_describe(const ShieldHold *h, char *buf, size_t size);

/* check-bus.c: the refusals_query of a live system (ListRefusals, never
 * starting realtimed). */
int check_refusals_query(uid_t uid, uint64_t since_usec, CheckRefusals *ret);
