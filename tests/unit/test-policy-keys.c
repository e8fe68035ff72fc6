// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for common/policy-keys.c, the tables of keys: every key of
 * [Default]/[Group]/[User] and of [Daemon] is found by its name, parses,
 * merges by its rule, formats back to what a file writes, and says what it
 * expects of a wrong value; [Daemon]'s defaults and limits.
 */
#include <check.h>
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check-main.h"
#include "macro.h"
#include "parse.h"
#include "policy-fixture.h"
#include "policy-internal.h"
#include "policy.h"

START_TEST(test_grant_format)
{
	/* Each key of full_default as user "x", and of full_audio as a
	 * member of group 29, as policy_grant_format() writes it. */
	static const char *const want[2][_POLICY_KEY_MAX] = {
		{ "20", "rr", "-15", "64M", "200ms", "", "rr" },
		{ "95", "fifo rr", "-19", "infinity", "infinity", "sys_nice ipc_lock", "fifo" },
	};
	const gid_t audio[] = { 29 };

	for (size_t i = 0; i < ELEMENTSOF(want); i++) {
		_cleanup_(policy_freep) Policy *p = load_text(i ? full_audio : full_default, NULL);
		PolicyGrant g;

		eval(p, "x", 1, audio, i, &g);
		for (PolicyKey k = 0; k < _POLICY_KEY_MAX; k++)
			assert_format(&g, k, want[i][k]);
	}
}
END_TEST

START_TEST(test_grant_format_units)
{
	PolicyGrant g = {};

	g.memlock = 0;
	assert_format(&g, POLICY_KEY_MEMLOCK, "0");
	g.memlock = 1024;
	assert_format(&g, POLICY_KEY_MEMLOCK, "1K");
	g.memlock = UINT64_C(3) << 30;
	assert_format(&g, POLICY_KEY_MEMLOCK, "3G");
	g.memlock = UINT64_C(1) << 40;
	assert_format(&g, POLICY_KEY_MEMLOCK, "1024G");
	g.rttime_usec = 2000000;
	assert_format(&g, POLICY_KEY_RTTIME, "2s");
	g.rttime_usec = 500;
	assert_format(&g, POLICY_KEY_RTTIME, "500us");
	g.rttime_usec = 1500000;
	assert_format(&g, POLICY_KEY_RTTIME, "1500ms");
	g.policies = POLICY_SCHED_FIFO;
	assert_format(&g, POLICY_KEY_POLICIES, "fifo");
	g.capabilities = CAP(CAP_IPC_LOCK);
	assert_format(&g, POLICY_KEY_CAPABILITIES, "ipc_lock");
}
END_TEST

START_TEST(test_grant_format_roundtrip)
{
	static const uint64_t sizes[] = { 0,
					  1,
					  1023,
					  1024,
					  1025,
					  1536,
					  4096,
					  UINT64_C(1) << 20,
					  (UINT64_C(1) << 20) + 1,
					  UINT64_C(7) << 30,
					  UINT64_MAX - 1,
					  POLICY_INFINITY };
	static const uint64_t durations[] = { 0,
					      1,
					      999,
					      1000,
					      1001,
					      200000,
					      999999,
					      1000000,
					      1000001,
					      UINT64_C(86400) * 1000000,
					      UINT64_MAX - 1,
					      POLICY_INFINITY };
	PolicyGrant g = {};
	char buf[64];
	uint64_t v;

	/* What format prints, parse reads back to the same value. */
	for (size_t i = 0; i < ELEMENTSOF(sizes); i++) {
		g.memlock = sizes[i];
		ck_assert_int_eq(policy_grant_format(&g, POLICY_KEY_MEMLOCK, buf, sizeof(buf)), 0);
		ck_assert_msg(parse_size(buf, &v) == 0 && v == sizes[i], "%ju -> \"%s\"",
			      (uintmax_t)sizes[i], buf);
	}
	for (size_t i = 0; i < ELEMENTSOF(durations); i++) {
		g.rttime_usec = durations[i];
		ck_assert_int_eq(policy_grant_format(&g, POLICY_KEY_RTTIME, buf, sizeof(buf)), 0);
		ck_assert_msg(parse_duration(buf, true, &v) == 0 && v == durations[i],
			      "%ju -> \"%s\"", (uintmax_t)durations[i], buf);
	}
	for (int n = -20; n <= 19; n++) {
		int i;

		g.nice = n;
		ck_assert_int_eq(policy_grant_format(&g, POLICY_KEY_NICE, buf, sizeof(buf)), 0);
		ck_assert_int_eq(parse_nice(buf, &i), 0);
		ck_assert_int_eq(i, n);
	}
}
END_TEST

START_TEST(test_grant_format_nobufs)
{
	PolicyGrant g = { .realtime_priority = 95,
			  .policies = POLICY_SCHED_FIFO | POLICY_SCHED_RR,
			  .memlock = POLICY_INFINITY };
	char buf[16];

	memset(buf, 'x', sizeof(buf));
	ck_assert_int_eq(policy_grant_format(&g, POLICY_KEY_REALTIME_PRIORITY, buf, 2), -ENOBUFS);
	ck_assert_int_eq(policy_grant_format(&g, POLICY_KEY_REALTIME_PRIORITY, buf, 0), -ENOBUFS);
	ck_assert_int_eq(policy_grant_format(&g, POLICY_KEY_REALTIME_PRIORITY, buf, 3), 0);
	ck_assert_str_eq(buf, "95");
	ck_assert_int_eq(policy_grant_format(&g, POLICY_KEY_POLICIES, buf, 7), -ENOBUFS);
	ck_assert_int_eq(policy_grant_format(&g, POLICY_KEY_POLICIES, buf, 8), 0);
	ck_assert_int_eq(policy_grant_format(&g, POLICY_KEY_MEMLOCK, buf, 8), -ENOBUFS);
	ck_assert_int_eq(policy_grant_format(&g, _POLICY_KEY_MAX, buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(policy_grant_format(&g, _POLICY_KEY_INVALID, buf, sizeof(buf)), -EINVAL);
}
END_TEST

/* Two values of each key as a policy file writes them, the second the more
 * generous by the key's merge rule. A key added to the table without an
 * entry here fails test_key_table. */
static const struct {
	const char *less, *more;
} key_examples[_POLICY_KEY_MAX] = {
	[POLICY_KEY_REALTIME_PRIORITY] = { "20", "95" },
	[POLICY_KEY_POLICIES] = { "rr", "fifo rr" },
	[POLICY_KEY_NICE] = { "-5", "-19" },
	[POLICY_KEY_MEMLOCK] = { "64M", "infinity" },
	[POLICY_KEY_RTTIME] = { "200ms", "infinity" },
	[POLICY_KEY_CAPABILITIES] = { "sys_nice", "sys_nice ipc_lock" },
	[POLICY_KEY_COMPAT_POLICY] = { "rr", "fifo" },
};

/* Evaluates uid 7 with gids and checks key k's value and its line. */
static void assert_key_eval(const Policy *p, PolicyKey k, const gid_t *gids, size_t n_gids,
			    const char *want, unsigned line)
{
	PolicyGrant g;
	char buf[64];

	eval(p, "u", 7, gids, n_gids, &g);
	ck_assert_msg(g.set[k], "%s unset", policy_key_to_string(k));
	ck_assert_int_eq(policy_grant_format(&g, k, buf, sizeof(buf)), 0);
	ck_assert_msg(streq(buf, want), "%s=%s, want %s", policy_key_to_string(k), buf, want);
	ck_assert_uint_eq(g.source[k].line, line);
}

/* Walks the library's table of keys: every key is found by its name,
 * parses, formats back to what was written, merges by its rule, is beaten
 * by a [User] section, and says what it expects when a value is wrong. */
START_TEST(test_key_table)
{
	for (int k = 0; k < _POLICY_KEY_MAX; k++) {
		const PolicyItem *it = &policy_keys[k];
		const char *less = key_examples[k].less, *more = key_examples[k].more;
		_cleanup_(policy_freep) Policy *p = NULL;
		const gid_t one[] = { 1 }, two[] = { 2 }, both[] = { 2, 1 };
		char text[512], buf[64];
		const char *path;
		PolicyValue v;
		PolicyGrant g = {};

		ck_assert_msg(less && more, "no examples for key %d (%s)", k, it->name);
		for (int j = 0; j < k; j++)
			ck_assert_msg(policy_keys[j].offset != it->offset,
				      "%s and %s share a field", policy_keys[j].name, it->name);
		ck_assert_str_eq(policy_key_to_string(k), it->name);
		ck_assert_int_eq(policy_key_from_string(it->name), k);

		/* parse and format are each other's inverse */
		ck_assert_int_eq(it->parse(more, &v), 0);
		policy_value_store(it, &g, &v);
		ck_assert_int_eq(policy_grant_format(&g, k, buf, sizeof(buf)), 0);
		ck_assert_str_eq(buf, more);

		/* CompatPolicy=fifo holds only where Policies= allows fifo */
		snprintf(text, sizeof(text),
			 "[Group #1]\n%s=%s\n" /* 1, 2 */
			 "[Group #2]\n%s=%s\n" /* 3, 4 */
			 "[Default]\n%s\n",    /* 5, 6 */
			 it->name, more, it->name, less,
			 k == POLICY_KEY_POLICIES ? "" : "Policies=fifo");
		p = load_text(text, &path);
		assert_no_errors(p);
		/* the group alone, the more generous of two in either order */
		assert_key_eval(p, k, two, 1, less, 4);
		assert_key_eval(p, k, both, 2, more, 2);
		assert_key_eval(p, k, both + 1, 1, more, 2);
		p = policy_free(p);

		snprintf(text, sizeof(text), "[Group #2]\n%s=%s\n[Group #1]\n%s=%s\n%s\n", it->name,
			 less, it->name, more, k == POLICY_KEY_POLICIES ? "" : "Policies=fifo");
		p = load_text(text, NULL);
		assert_key_eval(p, k, both, 2, more, 4);
		p = policy_free(p);

		/* [User] beats [Group], even when less generous */
		snprintf(text, sizeof(text), "[Group #1]\n%s=%s\n[User #7]\n%s=%s\n", it->name,
			 more, it->name, less);
		p = load_text(text, NULL);
		assert_key_eval(p, k, one, 1, less, 4);
		p = policy_free(p);

		snprintf(text, sizeof(text), "[Default]\n%s=x!\n", it->name);
		assert_text_rejected(text, 2, it->expect);
	}
}
END_TEST

/* [Daemon]'s values, by key name; each differs from the key's default. */
static const struct {
	const char *name, *value;
} daemon_examples[] = {
	{ "RtkitCompat", "no" },
	{ "Polkit", "no" },
	{ "UsersMax", "10" },
	{ "ThreadsPerUserMax", "5" },
	{ "ProcessesPerUserMax", "3" },
	{ "BurstSec", "5" },
	{ "ActionsPerBurst", "7" },
	{ "Canary", "no" },
	{ "CanaryWatchdogSec", "500ms" },
	{ "CanaryRefuseSec", "1s" },
	{ "CanaryDemoteUnknown", "no" },
	{ "CpuDmaLatency", "20us" },
	{ "Shield", "auto" },
	{ "ShieldKeep", "snd_* xhci_hcd" },
	{ "ShieldPin", "yes" },
	{ "ShieldGovernor", "performance" },
};

/* Walks the [Daemon] table: a policy without files has every key at its
 * initial value, and each key's value lands in its field. */
START_TEST(test_daemon_key_table)
{
	_cleanup_(policy_freep) Policy *empty = NULL;
	const char *none[] = {};

	empty = load_files(none, 0);
	ck_assert_uint_eq(policy_n_daemon_keys, ELEMENTSOF(daemon_examples));
	for (size_t i = 0; i < policy_n_daemon_keys; i++) {
		const PolicyItem *it = &policy_daemon_keys[i];
		_cleanup_(policy_freep) Policy *p = NULL;
		PolicyDaemon want = *policy_daemon(empty), start;
		PolicyValue v;
		const char *value = NULL;
		char text[256];

		for (size_t j = 0; j < ELEMENTSOF(daemon_examples); j++)
			if (streq(daemon_examples[j].name, it->name))
				value = daemon_examples[j].value;
		ck_assert_msg(value, "no example for [Daemon] %s", it->name);
		for (size_t j = 0; j < i; j++)
			ck_assert_msg(policy_daemon_keys[j].offset != it->offset,
				      "%s and %s share a field", policy_daemon_keys[j].name,
				      it->name);

		start = want;
		policy_value_store(it, &start, &it->initial);
		ck_assert_msg(memcmp(&start, &want, sizeof(want)) == 0,
			      "%s does not start at its initial value", it->name);

		snprintf(text, sizeof(text), "[Daemon]\n%s=%s\n", it->name, value);
		p = load_text(text, NULL);
		assert_no_errors(p);
		ck_assert_int_eq(it->parse(value, &v), 0);
		policy_value_store(it, &want, &v);
		ck_assert_msg(memcmp(&want, policy_daemon(p), sizeof(want)) == 0,
			      "%s=%s did not set its field, or set another", it->name, value);
		ck_assert_msg(memcmp(&want, policy_daemon(empty), sizeof(want)) != 0,
			      "%s=%s is its default", it->name, value);

		snprintf(text, sizeof(text), "[Daemon]\n%s=x!\n", it->name);
		assert_text_rejected(text, 2, it->expect);
	}
}
END_TEST

START_TEST(test_key_names)
{
	ck_assert_ptr_null(policy_key_to_string(_POLICY_KEY_MAX));
	ck_assert_ptr_null(policy_key_to_string(_POLICY_KEY_INVALID));
	ck_assert_int_eq(policy_key_from_string("realtimepriority"), _POLICY_KEY_INVALID);
	ck_assert_int_eq(policy_key_from_string("Canary"), _POLICY_KEY_INVALID);
	ck_assert_int_eq(policy_key_from_string(""), _POLICY_KEY_INVALID);
}
END_TEST

/* The value of [Daemon] key name in d, whatever the type of its field. */
static uint64_t daemon_value(const PolicyDaemon *d, const char *name)
{
	const PolicyItem *it = policy_item_lookup(policy_daemon_keys, policy_n_daemon_keys, name);
	PolicyValue v;

	ck_assert_msg(it, "no [Daemon] key %s", name);
	policy_value_load(it, d, &v);
	switch (it->type) {
	case POLICY_VALUE_BOOL:
		return v.b;
	case POLICY_VALUE_U64:
		return v.u64;
	default:
		return v.u;
	}
}

/* Each [Daemon] key: its default (DESIGN.md's), and what two files give:
 * 1.conf sets every key, a later 2.conf overrides single keys (Canary=,
 * UsersMax=). A bare number of a *Sec= key is seconds. */
static const struct {
	const char *name;
	uint64_t by_default, set;
} daemon_keys[] = {
	{ "RtkitCompat", true, false },
	{ "Polkit", true, false },
	{ "UsersMax", 2048, 11 },
	{ "ThreadsPerUserMax", 64, 5 },
	{ "ProcessesPerUserMax", 32, 3 },
	{ "BurstSec", 20000000, 30000000 },
	{ "ActionsPerBurst", 100, 7 },
	{ "Canary", true, true },
	{ "CanaryWatchdogSec", 2000000, 500000 },
	{ "CanaryRefuseSec", 60000000, 2000000 },
	{ "CanaryDemoteUnknown", true, false },
	{ "CpuDmaLatency", POLICY_INFINITY, 0 },
};

START_TEST(test_daemon_keys)
{
	static const char *const texts[] = { "[Daemon]\n"
					     "RtkitCompat=no\n"
					     "Polkit=false\n"
					     "UsersMax=10\n"
					     "ThreadsPerUserMax=5\n"
					     "ProcessesPerUserMax=3\n"
					     "BurstSec=30\n"
					     "ActionsPerBurst=7\n"
					     "Canary=off\n"
					     "CanaryWatchdogSec=500ms\n"
					     "CanaryRefuseSec=2s\n"
					     "CanaryDemoteUnknown=no\n"
					     "CpuDmaLatency=0\n",
					     "[Daemon]\nCanary=yes\nUsersMax=11\n" };
	_cleanup_(policy_freep) Policy *defaults = load_text("[Default]\nNice=-1\n", NULL);
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *f[2];

	f[0] = write_file("1.conf", texts[0]);
	f[1] = write_file("2.conf", texts[1]);
	p = load_files(f, 2);
	assert_no_errors(p);
	for (size_t i = 0; i < ELEMENTSOF(daemon_keys); i++) {
		const char *name = daemon_keys[i].name;

		ck_assert_msg(daemon_value(policy_daemon(defaults), name) ==
				      daemon_keys[i].by_default,
			      "%s: not the default", name);
		ck_assert_msg(daemon_value(policy_daemon(p), name) == daemon_keys[i].set,
			      "%s: not what the files set", name);
	}
}
END_TEST

START_TEST(test_daemon_bad_values)
{
	assert_text_rejected("[Daemon]\nCanary=maybe\n", 2, "Canary");
	assert_text_rejected("[Daemon]\nCanaryDemoteUnknown=some\n", 2, "CanaryDemoteUnknown");
	assert_text_rejected("[Daemon]\nUsersMax=-1\n", 2, "UsersMax");
	assert_text_rejected("[Daemon]\nUsersMax=0\n", 2, "UsersMax");
	assert_text_rejected("[Daemon]\nThreadsPerUserMax=many\n", 2, "ThreadsPerUserMax");
	assert_text_rejected("[Daemon]\nBurstSec=0\n", 2, "BurstSec");
	assert_text_rejected("[Daemon]\nBurstSec=infinity\n", 2, "BurstSec");
	assert_text_rejected("[Daemon]\nCanaryWatchdogSec=10ns\n", 2, "CanaryWatchdogSec");
	assert_text_rejected("[Daemon]\nRtkitCompat=yes\nBogus=1\n", 3, "Bogus");
}
END_TEST

/* CpuDmaLatency=: a duration whose bare number is microseconds, up to a
 * second; an empty value unsets it (a later file takes back an earlier
 * one's). */
START_TEST(test_daemon_cpu_dma_latency)
{
	static const struct {
		const char *value;
		uint64_t usec;
	} good[] = {
		{ "0", 0 },	 { "20", 20 },	    { "20us", 20 },
		{ "1ms", 1000 }, { "1s", 1000000 }, { "", POLICY_INFINITY },
		{ " 5 ", 5 },
	};
	static const char *const bad[] = { "infinity", "2s",   "1000001", "-1",
					   "fast",     "10ns", "1.5ms",	  "0x10" };
	_cleanup_(policy_freep) Policy *both = NULL;
	const char *f[2];

	for (size_t i = 0; i < ELEMENTSOF(good); i++) {
		_cleanup_(policy_freep) Policy *p = NULL;
		char text[128];

		snprintf(text, sizeof(text), "[Daemon]\nCpuDmaLatency=%s\n", good[i].value);
		p = load_text(text, NULL);
		assert_no_errors(p);
		ck_assert_msg(policy_daemon(p)->cpu_dma_latency_usec == good[i].usec,
			      "CpuDmaLatency=%s", good[i].value);
	}
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		char text[128];

		snprintf(text, sizeof(text), "[Daemon]\nCpuDmaLatency=%s\n", bad[i]);
		assert_text_rejected(text, 2, "expected a duration such as 0, 20us or 1ms");
	}

	f[0] = write_file("1.conf", "[Daemon]\nCpuDmaLatency=20us\n");
	f[1] = write_file("2.conf", "[Daemon]\nCpuDmaLatency=\n");
	both = load_files(f, 2);
	assert_no_errors(both);
	ck_assert(policy_daemon(both)->cpu_dma_latency_usec == POLICY_INFINITY);
}
END_TEST

/* Shield=: none (the default, or empty), auto, or a CPU list that leaves
 * CPU 0 to the rest; ShieldKeep=: blank-separated globs of IRQ action
 * names; ShieldGovernor=: one word, or nothing. A later file's value
 * replaces an earlier one's whole. */
START_TEST(test_daemon_shield)
{
	static const struct {
		const char *key, *value, *want;
	} good[] = {
		{ "Shield", "none", "none" },
		{ "Shield", "", "" },
		{ "Shield", "auto", "auto" },
		{ "Shield", "3", "3" },
		{ "Shield", "2-3,6-7", "2-3,6-7" },
		{ "Shield", " 1 ", "1" },
		{ "ShieldKeep", "snd_hda_intel:card0 xhci_hcd", "snd_hda_intel:card0 xhci_hcd" },
		{ "ShieldKeep", "ahci[[]0000:00:1f.2] snd-*", "ahci[[]0000:00:1f.2] snd-*" },
		{ "ShieldKeep", "eth[!0]", "eth[!0]" },
		{ "ShieldKeep", "", "" },
		{ "ShieldGovernor", "performance", "performance" },
		{ "ShieldGovernor", "balance_power", "balance_power" },
		{ "ShieldGovernor", "", "" },
	};
	static const struct {
		const char *key, *value, *expect;
	} bad[] = {
		{ "Shield", "0", "not CPU 0" },
		{ "Shield", "0-3", "not CPU 0" },
		{ "Shield", "3-1", "not CPU 0" },
		{ "Shield", "all", "not CPU 0" },
		{ "Shield", "8192", "not CPU 0" },
		{ "Shield", "auto 3", "not CPU 0" },
		{ "ShieldKeep", "snd_[", "IRQ action name patterns" },
		{ "ShieldKeep", "a=b", "IRQ action name patterns" },
		{ "ShieldKeep", "x!", "IRQ action name patterns" },
		{ "ShieldGovernor", "Performance", "a cpufreq governor" },
		{ "ShieldGovernor", "per formance", "a cpufreq governor" },
		{ "ShieldGovernor", "../x", "a cpufreq governor" },
		{ "ShieldPin", "sometimes", "yes or no" },
	};
	_cleanup_(policy_freep) Policy *defaults = load_text("[Default]\nNice=-1\n", NULL);
	_cleanup_(policy_freep) Policy *both = NULL;
	const PolicyDaemon *pd = policy_daemon(defaults);
	const char *f[2];

	ck_assert_str_eq(pd->shield, "none");
	ck_assert_str_eq(pd->shield_keep, "");
	ck_assert(!pd->shield_pin);
	ck_assert_str_eq(pd->shield_governor, "");
	for (size_t i = 0; i < ELEMENTSOF(good); i++) {
		_cleanup_(policy_freep) Policy *p = NULL;
		const PolicyItem *it =
			policy_item_lookup(policy_daemon_keys, policy_n_daemon_keys, good[i].key);
		char text[256];
		PolicyValue v;

		snprintf(text, sizeof(text), "[Daemon]\n%s=%s\n", good[i].key, good[i].value);
		p = load_text(text, NULL);
		assert_no_errors(p);
		policy_value_load(it, policy_daemon(p), &v);
		ck_assert_msg(streq(v.s, good[i].want), "%s=%s: '%s'", good[i].key, good[i].value,
			      v.s);
	}
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		char text[256];

		snprintf(text, sizeof(text), "[Daemon]\n%s=%s\n", bad[i].key, bad[i].value);
		assert_text_rejected(text, 2, bad[i].expect);
	}

	f[0] = write_file("1.conf", "[Daemon]\nShield=2-3\nShieldKeep=snd_* xhci_hcd\n");
	f[1] = write_file("2.conf", "[Daemon]\nShield=auto\nShieldKeep=nvme0q1\n");
	both = load_files(f, 2);
	assert_no_errors(both);
	ck_assert_str_eq(policy_daemon(both)->shield, "auto");
	ck_assert_str_eq(policy_daemon(both)->shield_keep, "nvme0q1");
}
END_TEST

START_TEST(test_daemon_broken_file_keeps_defaults)
{
	_cleanup_(policy_freep) Policy *p = NULL;

	p = load_text("[Daemon]\nCanary=no\nUsersMax=zero\n", NULL);
	ck_assert_uint_eq(policy_n_errors(p), 1);
	ck_assert(policy_daemon(p)->canary);
	ck_assert_uint_eq(policy_daemon(p)->users_max, 2048);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("policy-keys");

	policy_test_case(s, "grant",
			 CHECK_TESTS(test_grant_format, test_grant_format_units,
				     test_grant_format_roundtrip, test_grant_format_nobufs,
				     test_key_table, test_key_names));
	policy_test_case(s, "daemon",
			 CHECK_TESTS(test_daemon_key_table, test_daemon_keys,
				     test_daemon_bad_values, test_daemon_cpu_dma_latency,
				     test_daemon_shield, test_daemon_broken_file_keeps_defaults));
	return policy_test_run(s);
}
