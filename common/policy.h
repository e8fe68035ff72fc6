/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The policy library: the one place where realtimed's policy is decided.
 *
 * It reads realtime.conf(5) files (vendor file, admin file, drop-ins) and
 * answers "what may this user get, and which file:line says so".
 * No global state, no logging, no exit(): errors come back as values, so the
 * daemon, the PAM module (inside any threaded program), the CLI and the tests
 * all use it the same way. Everything a Policy hands out (strings, sources)
 * lives as long as the Policy.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "macro.h"

/* "infinity"/"unlimited" for MemLock and RTTime; equal to RLIM_INFINITY. */
#define POLICY_INFINITY UINT64_MAX

typedef enum PolicyKey {
	POLICY_KEY_REALTIME_PRIORITY, /* RealtimePriority=, int 0..99 (0: no realtime) */
	POLICY_KEY_POLICIES,	      /* Policies=, mask of POLICY_SCHED_* */
	POLICY_KEY_NICE,	      /* Nice=, int -20..19: the lowest nice level */
	POLICY_KEY_MEMLOCK,	      /* MemLock=, bytes or POLICY_INFINITY */
	POLICY_KEY_RTTIME,	      /* RTTime=, microseconds or POLICY_INFINITY */
	POLICY_KEY_CAPABILITIES,      /* Capabilities=, mask of 1<<CAP_* */
	POLICY_KEY_COMPAT_POLICY,     /* CompatPolicy=, fifo or rr: what rtkit-compat grants use */
	_POLICY_KEY_MAX,
	_POLICY_KEY_INVALID = -EINVAL,
} PolicyKey;

/* Bits of Policies= */
#define POLICY_SCHED_FIFO (1u << 0)
#define POLICY_SCHED_RR (1u << 1)

/* Where a value came from. file == NULL: no file set it (key unset). */
typedef struct PolicySource {
	const char *file;
	unsigned line;
	const char *section; /* "Default", "Group audio", "User alice", ... as written */
} PolicySource;

/* What policy grants one user. A key with set[k] == false was set by no
 * file; callers leave the corresponding limit alone. */
typedef struct PolicyGrant {
	bool set[_POLICY_KEY_MAX];
	PolicySource source[_POLICY_KEY_MAX];
	int realtime_priority;
	unsigned policies;
	int nice;
	uint64_t memlock;
	uint64_t rttime_usec;
	uint64_t capabilities;
	unsigned compat_policy; /* POLICY_SCHED_RR (default) or POLICY_SCHED_FIFO */
	bool covered;		/* a [User] or [Group] section (not just [Default]) matched */
} PolicyGrant;

/* The room for a [Daemon] value that is text, with its NUL: more than a
 * line of a policy file holds. */
#define POLICY_TEXT_MAX 200

/* [Daemon] settings, with DESIGN.md's defaults where no file sets them. */
typedef struct PolicyDaemon {
	bool rtkit_compat;		 /* RtkitCompat=yes */
	bool polkit;			 /* Polkit=yes */
	unsigned users_max;		 /* UsersMax=2048 */
	unsigned threads_per_user_max;	 /* ThreadsPerUserMax=64 */
	unsigned processes_per_user_max; /* ProcessesPerUserMax=32 */
	uint64_t burst_usec;		 /* BurstSec=20 */
	unsigned actions_per_burst;	 /* ActionsPerBurst=100 */
	bool canary;			 /* Canary=yes */
	uint64_t canary_watchdog_usec;	 /* CanaryWatchdogSec=2 */
	uint64_t canary_refuse_usec;	 /* CanaryRefuseSec=60 */
	bool canary_demote_unknown;	 /* CanaryDemoteUnknown=yes */
	/* CpuDmaLatency=: microseconds, or POLICY_INFINITY: unset (realtimed
	 * never opens /dev/cpu_dma_latency) */
	uint64_t cpu_dma_latency_usec;
	/* The shield while audio runs (daemon/shield.h), as written: */
	char shield[POLICY_TEXT_MAX];	       /* Shield=none, auto or a CPU list without 0 */
	char shield_keep[POLICY_TEXT_MAX];     /* ShieldKeep=: IRQ name globs, blank-separated */
	bool shield_pin;		       /* ShieldPin=no */
	char shield_governor[POLICY_TEXT_MAX]; /* ShieldGovernor=: "" leaves the governor */
} PolicyDaemon;

/* One [IRQ] line: glob on the IRQ action name -> SCHED_FIFO priority. */
typedef struct PolicyIrqRule {
	const char *pattern;
	int priority;
	PolicySource source;
} PolicyIrqRule;

/* One problem of a rejected file, as "file:line: message" (the first only,
 * except from policy_load_check()), or a warning. */
typedef struct PolicyError {
	const char *file;
	unsigned line; /* 0: the file as a whole (unreadable, ...) */
	const char *message;
} PolicyError;

/* Where policy files are looked for. NULL members take the compiled-in
 * defaults (/usr/share/realtime/..., /etc/realtime/...); "" disables one. */
typedef struct PolicyPaths {
	const char *vendor_file;
	const char *admin_file;
	const char *vendor_dropin_dir;
	const char *admin_dropin_dir;
} PolicyPaths;

typedef struct Policy Policy;

/* Trust. Policy decides who may take realtime scheduling, so a file that
 * anyone but root can change is no policy at all. A policy file, and a
 * drop-in directory, is read only when
 *   - root owns it, or the effective uid of the calling process does, and
 *   - neither its group nor others may write it (whatever the group is),
 * as sshd and sudo check their files. The check is fstat() of the opened
 * file or directory: a symlink is followed and its target is what counts
 * (a symlink to a root-owned file is fine), and nothing can be swapped in
 * between the check and the read. The null device, whatever its mode,
 * reads as an empty file (a symlink to /dev/null masks a vendor drop-in):
 * nothing can be written into it, and only root makes device nodes.
 *
 * Why the caller's own uid: every process that acts on policy (realtimed,
 * pam_realtime in a login, realtimectl run as root) has effective uid 0,
 * where the rule is "root alone". A process of another user can grant
 * nothing with what it reads, but it can check and explain a file of its
 * own (realtimectl policy check ./mine.conf, the unit tests); such a file
 * is read with a warning (policy_warning()) that realtimed would not.
 * An explicit trusted-uid argument would have made every caller choose,
 * and a wrong choice in a root process would have been a hole.
 *
 * A file that breaks the rule is rejected like a file with a syntax error.
 * A drop-in directory that breaks it is recorded as an error of its own
 * and none of its files are read; when it is the admin drop-in directory,
 * the vendor drop-ins are not read either, since which of them its files
 * masked cannot be trusted. */

/* Loads vendor file, admin file, then drop-ins (C-locale order, an admin
 * drop-in masks the vendor drop-in of the same name). Missing files are not
 * errors; a file with any error, or that breaks the trust rule above, is
 * skipped whole and recorded in policy_errors(). Returns 0 and a Policy
 * even when files were rejected; -ENOMEM only on allocation failure. */
int policy_load(const PolicyPaths *paths, Policy **ret);

/* Loads exactly the given files, in order (for "policy check FILES" and
 * pam_realtime's conf=). A missing file here is an error. */
int policy_load_files(const char *const *files, size_t n_files, Policy **ret);

/* As policy_load() and policy_load_files(), for a person who reads the
 * result (realtimectl policy check): every error of a rejected file, not
 * only its first (it is rejected whole all the same), and warnings that
 * reject nothing: a [Group NAME] or [User NAME] that NSS does not know, a
 * key set twice in one section of one file, a key that a later file
 * overrides (both file:lines), an admin drop-in that masks a vendor one.
 * A rejected file's own warnings (names, keys set twice in it) are listed
 * beside its errors. Slower (NSS lookups): not for realtimed or a login. */
int policy_load_check(const PolicyPaths *paths, Policy **ret);
int policy_load_files_check(const char *const *files, size_t n_files, Policy **ret);

Policy *policy_free(Policy *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(Policy *, policy_free);

/* Errors of files that were rejected; the others are in force. */
size_t policy_n_errors(const Policy *p);
const PolicyError *policy_error(const Policy *p, size_t i);

/* Files and drop-in directories that were read only because the calling
 * process owns them, not root: realtimed and pam_realtime would reject
 * them. Never any for a process running as root. After
 * policy_load_check(), its warnings too (line 0: the file as a whole). */
size_t policy_n_warnings(const Policy *p);
const PolicyError *policy_warning(const Policy *p, size_t i);

/* Files that were read and accepted, in load order. */
size_t policy_n_files(const Policy *p);
const char *policy_file(const Policy *p, size_t i);

const PolicyDaemon *policy_daemon(const Policy *p);
/* Where the [Daemon] key named key ("UsersMax") was set, for a message
 * that cites it; NULL when no file sets it (its default applies). */
const PolicySource *policy_daemon_source(const Policy *p, const char *key);

size_t policy_n_irq_rules(const Policy *p);
const PolicyIrqRule *policy_irq_rule(const Policy *p, size_t i);
/* The rule for an IRQ action name: the first matching rule in load order
 * (a later file's line with the same pattern replaces it in place).
 * NULL if none matches. */
const PolicyIrqRule *policy_irq_match(const Policy *p, const char *action_name);

/* A user and their groups: what evaluation needs to know of an identity.
 * policy_user_resolve() and policy_user_resolve_uid() fill one through NSS
 * (so LDAP and SSSD users and groups count), and policy_user_free() frees
 * what they allocated. A caller that knows the identity otherwise (a test)
 * may fill one itself and keep its memory. */
typedef struct PolicyUser {
	char *name; /* the user name; NULL matches no [User NAME] */
	uid_t uid;
	gid_t *gids; /* primary and supplementary groups */
	/* group_names[i] names gids[i], NULL for a gid without a name; a NULL
	 * array: no names, only [Group #GID] sections can match */
	char **group_names;
	size_t n_gids;
} PolicyUser;

/* getpwnam_r, getgrouplist and getgrgid_r for each group, with buffers
 * that grow. -ESRCH for an unknown user, -ENOMEM, or another -errno NSS
 * gave. */
int policy_user_resolve(const char *name, PolicyUser **ret);
/* The same from getpwuid_r. */
int policy_user_resolve_uid(uid_t uid, PolicyUser **ret);
PolicyUser *policy_user_free(PolicyUser *u);
DEFINE_TRIVIAL_CLEANUP_FUNC(PolicyUser *, policy_user_free);

/* What policy grants u: user beats group beats default; across groups the
 * most generous value of each key wins (realtime.conf(5), EVALUATION). No
 * NSS lookup: u holds what is needed. */
int policy_eval_for_user(const Policy *p, const PolicyUser *u, PolicyGrant *ret);
/* policy_user_resolve_uid() and policy_eval_for_user() in one. -ESRCH for
 * an unknown uid. */
int policy_eval_uid(const Policy *p, uid_t uid, PolicyGrant *ret);

/* For a caller that evaluates a single user (pam_realtime at login): as
 * policy_load() and policy_load_files(), but only the [User] and [Group]
 * sections that match u are kept. Every file is still read and checked
 * whole, so errors, accepted files, [Daemon], [Default] and [IRQ] are the
 * same as a full load's, and policy_eval_for_user() on it gives exactly
 * what it gives on a full load, at a fraction of the memory. Evaluating
 * any other user on such a policy is meaningless. */
int policy_load_for_user(const PolicyPaths *paths, const PolicyUser *u, Policy **ret);
int policy_load_files_for_user(const char *const *files, size_t n_files, const PolicyUser *u,
			       Policy **ret);

/* Key names as written in files ("RealtimePriority", ...). */
const char *policy_key_to_string(PolicyKey k);
PolicyKey policy_key_from_string(const char *s);

/* Formats a grant's value for key k as a policy file would write it
 * ("95", "fifo rr", "-19", "64M", "infinity", "200ms", "sys_nice ipc_lock").
 * Returns 0, or -ENOBUFS when size is too small. */
int policy_grant_format(const PolicyGrant *g, PolicyKey k, char *buf, size_t size);

/* An rlimit that policy sets, and the key that sets it. */
typedef struct PolicyRlimit {
	int resource;	       /* RLIMIT_* */
	const char *name;      /* "RLIMIT_RTPRIO", as logs and GrantLimits' reply name it */
	const char *proc_name; /* its row in /proc/PID/limits, "Max realtime priority" */
	PolicyKey key;	       /* the key behind it */
	bool ceiling;	       /* a bound on realtime (RLIMIT_RTTIME): set to exactly
				* policy's value, lowered too, where the others are
				* rights that policy raises */
} PolicyRlimit;

#define POLICY_RLIMIT_MAX 4

/* The i-th rlimit policy sets (NULL from POLICY_RLIMIT_MAX on), in the
 * order to set them: RLIMIT_RTTIME, the ceiling, before RLIMIT_RTPRIO, so
 * that a process never holds a raised RLIMIT_RTPRIO without it. */
const PolicyRlimit *policy_rlimit(size_t i);

/* The rlimit value a grant implies for RLIMIT_{RTPRIO,NICE,MEMLOCK,RTTIME}.
 * RLIMIT_NICE uses the kernel's 20 - nice encoding. RLIMIT_RTPRIO lets a
 * process take SCHED_FIFO as well as SCHED_RR, so it is RealtimePriority=
 * only where Policies= allows fifo, and 0 otherwise: such a user gets
 * realtime per thread, from realtimed. -ENODATA when the grant does not set
 * the key behind it; -EINVAL for another resource. */
int policy_grant_rlimit(const PolicyGrant *g, int resource, uint64_t *ret);

/* An rlimit's value for people, in realtime.conf(5)'s word for no limit:
 * "infinity" for RLIM_INFINITY (the kernel's "unlimited" in
 * /proc/PID/limits), the number otherwise. pam_realtime's log and
 * realtimectl check write limits so. */
void policy_rlimit_format(uint64_t v, char *buf, size_t size);
