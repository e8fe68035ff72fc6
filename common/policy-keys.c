// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The keys of realtime.conf(5) as data: one table for [Default], [Group]
 * and [User], one for [Daemon]. Each entry holds the key's name, where its
 * value lives, its parser, the text an error shows, its initial value, and
 * for grant keys the merge rule and the formatter; the parser, the loader,
 * the evaluation and policy_grant_format() walk these tables.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>

#include "cpu-set.h"
#include "parse.h"
#include "policy-internal.h"

static int parse_realtime_priority(const char *s, PolicyValue *ret)
{
	return parse_priority(s, true, &ret->i);
}

static int parse_policies_value(const char *s, PolicyValue *ret)
{
	return parse_policies(s, &ret->u);
}

static int parse_nice_value(const char *s, PolicyValue *ret)
{
	return parse_nice(s, &ret->i);
}

static int parse_size_value(const char *s, PolicyValue *ret)
{
	return parse_size(s, &ret->u64);
}

/* RTTime=: a bare number is microseconds, as in limits.conf */
static int parse_rttime(const char *s, PolicyValue *ret)
{
	return parse_duration(s, true, &ret->u64);
}

static int parse_capabilities_value(const char *s, PolicyValue *ret)
{
	return parse_capabilities(s, &ret->u64);
}

/* CompatPolicy=: exactly one of fifo and rr */
static int parse_compat_policy(const char *s, PolicyValue *ret)
{
	unsigned u;

	if (parse_policies(s, &u) < 0 || (u != POLICY_SCHED_FIFO && u != POLICY_SCHED_RR))
		return -EINVAL;
	ret->u = u;
	return 0;
}

static int parse_boolean_value(const char *s, PolicyValue *ret)
{
	return parse_boolean(s, &ret->b);
}

/* The [Daemon] counts: 0 would refuse everything, more than a million is
 * no limit at all. */
static int parse_count(const char *s, PolicyValue *ret)
{
	unsigned u;

	if (parse_unsigned(s, &u) < 0 || u < 1 || u > 1000000)
		return -EINVAL;
	ret->u = u;
	return 0;
}

/* The [Daemon] durations: a bare number is seconds, as the names say. */
static int parse_daemon_duration(const char *s, PolicyValue *ret)
{
	uint64_t v;

	if (parse_duration(s, false, &v) < 0 || v < 1000 || v > 3600ULL * 1000000ULL)
		return -EINVAL;
	ret->u64 = v;
	return 0;
}

/* CpuDmaLatency=: a bare number is microseconds, as the kernel takes it;
 * nothing is unset. More than a second would hold nothing a CPU cares
 * about (its deepest C-state is left within milliseconds). */
static int parse_cpu_dma_latency(const char *s, PolicyValue *ret)
{
	uint64_t v;

	if (*s == '\0') {
		ret->u64 = POLICY_INFINITY;
		return 0;
	}
	if (parse_duration(s, true, &v) < 0 || v > 1000000)
		return -EINVAL;
	ret->u64 = v;
	return 0;
}

/* Shield=: none (or empty), auto, or a list of CPUs. CPU 0 stays with
 * the rest of the machine, whatever the list: the interrupts that
 * cannot move and the timekeeping need a CPU there. */
static int parse_shield(const char *s, PolicyValue *ret)
{
	CpuSet set;

	if (!streq(s, "none") && !streq(s, "auto") && !isempty(s) &&
	    (cpu_set_parse_list(s, &set) < 0 || cpu_set_is_empty(&set) || cpu_set_has(&set, 0)))
		return -EINVAL;
	ret->s = s;
	return 0;
}

/* The characters of a glob outside brackets: those of IRQ action names
 * ("snd_hda_intel:card0", "0000:00:1f.2", "virtio1-req.0") and *, ?. */
static bool is_glob_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("_-.:*?/@+],", c);
}

/* ShieldKeep=: fnmatch() patterns separated by blanks; a bracket
 * expression must close. */
static int parse_glob_words(const char *s, PolicyValue *ret)
{
	for (const char *p = s; *p;) {
		if (*p == ' ' || *p == '\t') {
			p++;
			continue;
		}
		if (*p != '[') {
			if (!is_glob_char(*p))
				return -EINVAL;
			p++;
			continue;
		}
		p++;
		if (*p == '!' || *p == '^')
			p++;
		if (*p == ']')
			p++; /* a ']' first is one of the set */
		while (*p && *p != ']' && *p != ' ' && *p != '\t')
			p++;
		if (*p != ']')
			return -EINVAL;
		p++;
	}
	ret->s = s;
	return 0;
}

/* ShieldGovernor=: a governor's or an energy-performance preference's
 * name as sysfs lists them ("performance", "balance_power"), or nothing. */
static int parse_governor(const char *s, PolicyValue *ret)
{
	size_t n = strlen(s);

	if (n > 31 || strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") != n)
		return -EINVAL;
	ret->s = s;
	return 0;
}

static int format_int(const PolicyValue *v, char *buf, size_t size)
{
	int l = snprintf(buf, size, "%d", v->i);

	return l < 0 || (size_t)l >= size ? -ENOBUFS : 0;
}

/* v as a number of the largest unit that divides it exactly: "64M", "200ms". */
static int format_scaled(char *buf, size_t size, uint64_t v, const uint64_t *factors,
			 const char *const *suffixes, size_t n)
{
	int l;

	if (v == POLICY_INFINITY)
		l = snprintf(buf, size, "infinity");
	else {
		size_t i = 0;

		while (i + 1 < n && v != 0 && v % factors[i + 1] == 0)
			i++;
		l = snprintf(buf, size, "%" PRIu64 "%s", v / factors[i], suffixes[i]);
	}
	return l < 0 || (size_t)l >= size ? -ENOBUFS : 0;
}

static int format_size(const PolicyValue *v, char *buf, size_t size)
{
	static const uint64_t factors[] = { 1, 1ULL << 10, 1ULL << 20, 1ULL << 30 };
	static const char *const suffixes[] = { "", "K", "M", "G" };

	return format_scaled(buf, size, v->u64, factors, suffixes, ELEMENTSOF(factors));
}

static int format_duration(const PolicyValue *v, char *buf, size_t size)
{
	static const uint64_t factors[] = { 1, 1000, 1000000 };
	static const char *const suffixes[] = { "us", "ms", "s" };

	return format_scaled(buf, size, v->u64, factors, suffixes, ELEMENTSOF(factors));
}

/* The words of the bits set in mask, space-separated, in table order. */
static int format_words(char *buf, size_t size, uint64_t mask, const uint64_t *bits,
			const char *const *words, size_t n)
{
	size_t used = 0;

	if (size == 0)
		return -ENOBUFS;
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		int l;

		if (!(mask & bits[i]))
			continue;
		l = snprintf(buf + used, size - used, "%s%s", used ? " " : "", words[i]);
		if (l < 0 || (size_t)l >= size - used)
			return -ENOBUFS;
		used += l;
	}
	return 0;
}

static int format_policies(const PolicyValue *v, char *buf, size_t size)
{
	static const uint64_t bits[] = { POLICY_SCHED_FIFO, POLICY_SCHED_RR };
	static const char *const words[] = { "fifo", "rr" };

	return format_words(buf, size, v->u, bits, words, ELEMENTSOF(bits));
}

static int format_capabilities(const PolicyValue *v, char *buf, size_t size)
{
	static const uint64_t bits[] = { 1ULL << CAP_SYS_NICE, 1ULL << CAP_IPC_LOCK };
	static const char *const words[] = { "sys_nice", "ipc_lock" };

	return format_words(buf, size, v->u64, bits, words, ELEMENTSOF(bits));
}

#define GRANT_FIELD(field, t) .type = t, .offset = offsetof(PolicyGrant, field)
#define DAEMON_FIELD(field, t) .type = t, .offset = offsetof(PolicyDaemon, field)

/* The keys of [Default], [Group] and [User], in realtime.conf(5)'s order. */
const PolicyItem policy_keys[_POLICY_KEY_MAX] = {
	[POLICY_KEY_REALTIME_PRIORITY] = {
		.name = "RealtimePriority",
		GRANT_FIELD(realtime_priority, POLICY_VALUE_INT),
		.parse = parse_realtime_priority,
		.expect = "a priority from 0 (no realtime) to 99",
		.merge = POLICY_MERGE_HIGHEST,
		.format = format_int,
	},
	[POLICY_KEY_POLICIES] = {
		.name = "Policies",
		GRANT_FIELD(policies, POLICY_VALUE_UNSIGNED),
		.parse = parse_policies_value,
		.expect = "scheduling policies: fifo, rr, or both",
		.merge = POLICY_MERGE_UNION,
		.format = format_policies,
	},
	[POLICY_KEY_NICE] = {
		.name = "Nice",
		GRANT_FIELD(nice, POLICY_VALUE_INT),
		.parse = parse_nice_value,
		.expect = "a nice level from -20 to 19",
		.merge = POLICY_MERGE_LOWEST,
		.format = format_int,
	},
	[POLICY_KEY_MEMLOCK] = {
		.name = "MemLock",
		GRANT_FIELD(memlock, POLICY_VALUE_U64),
		.parse = parse_size_value,
		.expect = "a size such as 65536, 64K, 64M, 1G, or infinity",
		.merge = POLICY_MERGE_HIGHEST,
		.format = format_size,
	},
	[POLICY_KEY_RTTIME] = {
		.name = "RTTime",
		GRANT_FIELD(rttime_usec, POLICY_VALUE_U64),
		.parse = parse_rttime,
		.expect = "a duration such as 200000 (microseconds), 500us, 200ms, 2s, or infinity",
		.merge = POLICY_MERGE_HIGHEST,
		.format = format_duration,
	},
	[POLICY_KEY_CAPABILITIES] = {
		.name = "Capabilities",
		GRANT_FIELD(capabilities, POLICY_VALUE_U64),
		.parse = parse_capabilities_value,
		.expect = "capability names: sys_nice, ipc_lock (or nothing)",
		.merge = POLICY_MERGE_UNION,
		.format = format_capabilities,
	},
	[POLICY_KEY_COMPAT_POLICY] = {
		.name = "CompatPolicy",
		GRANT_FIELD(compat_policy, POLICY_VALUE_UNSIGNED),
		.parse = parse_compat_policy,
		.expect = "fifo or rr",
		.initial = { .u = POLICY_SCHED_RR },
		.merge = POLICY_MERGE_FIFO,
		.format = format_policies,
	},
};

/* The keys of [Daemon], with DESIGN.md's defaults. */
const PolicyItem policy_daemon_keys[] = {
	{
		.name = "RtkitCompat",
		DAEMON_FIELD(rtkit_compat, POLICY_VALUE_BOOL),
		.parse = parse_boolean_value,
		.expect = "yes or no",
		.initial = { .b = true },
	},
	{
		.name = "Polkit",
		DAEMON_FIELD(polkit, POLICY_VALUE_BOOL),
		.parse = parse_boolean_value,
		.expect = "yes or no",
		.initial = { .b = true },
	},
	{
		.name = "UsersMax",
		DAEMON_FIELD(users_max, POLICY_VALUE_UNSIGNED),
		.parse = parse_count,
		.expect = "a whole number from 1 to 1000000",
		.initial = { .u = 2048 },
	},
	{
		.name = "ThreadsPerUserMax",
		DAEMON_FIELD(threads_per_user_max, POLICY_VALUE_UNSIGNED),
		.parse = parse_count,
		.expect = "a whole number from 1 to 1000000",
		.initial = { .u = 64 },
	},
	{
		.name = "ProcessesPerUserMax",
		DAEMON_FIELD(processes_per_user_max, POLICY_VALUE_UNSIGNED),
		.parse = parse_count,
		.expect = "a whole number from 1 to 1000000",
		.initial = { .u = 32 },
	},
	{
		.name = "BurstSec",
		DAEMON_FIELD(burst_usec, POLICY_VALUE_U64),
		.parse = parse_daemon_duration,
		.expect = "a duration such as 2, 500ms or 1s (a bare number is seconds), from 1ms "
			  "to 1h",
		.initial = { .u64 = 20ULL * 1000000ULL },
	},
	{
		.name = "ActionsPerBurst",
		DAEMON_FIELD(actions_per_burst, POLICY_VALUE_UNSIGNED),
		.parse = parse_count,
		.expect = "a whole number from 1 to 1000000",
		.initial = { .u = 100 },
	},
	{
		.name = "Canary",
		DAEMON_FIELD(canary, POLICY_VALUE_BOOL),
		.parse = parse_boolean_value,
		.expect = "yes or no",
		.initial = { .b = true },
	},
	{
		.name = "CanaryWatchdogSec",
		DAEMON_FIELD(canary_watchdog_usec, POLICY_VALUE_U64),
		.parse = parse_daemon_duration,
		.expect = "a duration such as 2, 500ms or 1s (a bare number is seconds), from 1ms "
			  "to 1h",
		.initial = { .u64 = 2ULL * 1000000ULL },
	},
	{
		.name = "CanaryRefuseSec",
		DAEMON_FIELD(canary_refuse_usec, POLICY_VALUE_U64),
		.parse = parse_daemon_duration,
		.expect = "a duration such as 2, 500ms or 1s (a bare number is seconds), from 1ms "
			  "to 1h",
		.initial = { .u64 = 60ULL * 1000000ULL },
	},
	{
		.name = "CanaryDemoteUnknown",
		DAEMON_FIELD(canary_demote_unknown, POLICY_VALUE_BOOL),
		.parse = parse_boolean_value,
		.expect = "yes or no",
		.initial = { .b = true },
	},
	{
		.name = "CpuDmaLatency",
		DAEMON_FIELD(cpu_dma_latency_usec, POLICY_VALUE_U64),
		.parse = parse_cpu_dma_latency,
		.expect = "a duration such as 0, 20us or 1ms (a bare number is microseconds), from "
			  "0 to 1s, or nothing for unset",
		.initial = { .u64 = POLICY_INFINITY },
	},
	{
		.name = "Shield",
		DAEMON_FIELD(shield, POLICY_VALUE_TEXT),
		.parse = parse_shield,
		.expect = "none, auto, or a list of CPUs such as 3 or 2-3,6-7 (not CPU 0, which "
			  "stays with the rest of the machine)",
		.initial = { .s = "none" },
	},
	{
		.name = "ShieldKeep",
		DAEMON_FIELD(shield_keep, POLICY_VALUE_TEXT),
		.parse = parse_glob_words,
		.expect = "IRQ action name patterns separated by blanks, such as snd_* xhci_hcd, "
			  "or nothing",
		.initial = { .s = "" },
	},
	{
		.name = "ShieldPin",
		DAEMON_FIELD(shield_pin, POLICY_VALUE_BOOL),
		.parse = parse_boolean_value,
		.expect = "yes or no",
		.initial = { .b = false },
	},
	{
		.name = "ShieldGovernor",
		DAEMON_FIELD(shield_governor, POLICY_VALUE_TEXT),
		.parse = parse_governor,
		.expect = "a cpufreq governor or energy-performance preference such as "
			  "performance, or nothing",
		.initial = { .s = "" },
	},
};

const size_t policy_n_daemon_keys = ELEMENTSOF(policy_daemon_keys);

void policy_value_load(const PolicyItem *it, const void *base, PolicyValue *ret)
{
	const void *field = (const char *)base + it->offset;

	switch (it->type) {
	case POLICY_VALUE_INT:
		ret->i = *(const int *)field;
		break;
	case POLICY_VALUE_UNSIGNED:
		ret->u = *(const unsigned *)field;
		break;
	case POLICY_VALUE_U64:
		ret->u64 = *(const uint64_t *)field;
		break;
	case POLICY_VALUE_BOOL:
		ret->b = *(const bool *)field;
		break;
	case POLICY_VALUE_TEXT:
		ret->s = field;
		break;
	}
}

void policy_value_store(const PolicyItem *it, void *base, const PolicyValue *v)
{
	void *field = (char *)base + it->offset;

	switch (it->type) {
	case POLICY_VALUE_INT:
		*(int *)field = v->i;
		break;
	case POLICY_VALUE_UNSIGNED:
		*(unsigned *)field = v->u;
		break;
	case POLICY_VALUE_U64:
		*(uint64_t *)field = v->u64;
		break;
	case POLICY_VALUE_BOOL:
		*(bool *)field = v->b;
		break;
	case POLICY_VALUE_TEXT:
		/* the whole field, so that equal values are equal bytes */
		memset(field, 0, POLICY_TEXT_MAX);
		memcpy(field, v->s, strnlen(v->s, POLICY_TEXT_MAX - 1));
		break;
	}
}

/* Every key of table at its initial value. */
void policy_values_init(const PolicyItem *table, size_t n, void *base)
{
	for (size_t i = 0; i < n; i++)
		policy_value_store(&table[i], base, &table[i].initial);
}

/* Sets key k of g to v, from src. */
void policy_grant_set(PolicyGrant *g, PolicyKey k, const PolicyValue *v, PolicySource src)
{
	policy_value_store(&policy_keys[k], g, v);
	g->set[k] = true;
	g->source[k] = src;
}

const char *policy_key_to_string(PolicyKey k)
{
	if (k < 0 || k >= _POLICY_KEY_MAX)
		return NULL;
	return policy_keys[k].name;
}

PolicyKey policy_key_from_string(const char *s)
{
	const PolicyItem *it = policy_item_lookup(policy_keys, _POLICY_KEY_MAX, s);

	return it ? (PolicyKey)(it - policy_keys) : _POLICY_KEY_INVALID;
}

/* "RealtimePriority, Policies, ... or CompatPolicy", for an error. */
void policy_key_names_format(char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < _POLICY_KEY_MAX; k++) {
		const char *sep = k == 0 ? "" : k + 1 < _POLICY_KEY_MAX ? ", " : " or ";
		int l = snprintf(buf + used, size - used, "%s%s", sep, policy_keys[k].name);

		if (l < 0 || (size_t)l >= size - used)
			return;
		used += l;
	}
}

int policy_grant_format(const PolicyGrant *g, PolicyKey k, char *buf, size_t size)
{
	PolicyValue v;

	if (k < 0 || k >= _POLICY_KEY_MAX)
		return -EINVAL;
	policy_value_load(&policy_keys[k], g, &v);
	return policy_keys[k].format(&v, buf, size);
}
