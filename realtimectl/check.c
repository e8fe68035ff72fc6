/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The table of realtimectl check: one entry per check, by the id that
 * realtimectl(1), the JSON output, bench and the tests use. Adding a check
 * is one function and one line here (and its paragraph in the man page).
 */
#include "ctl-check.h"

/* clang-format off */
const Check check_table[] = {
	{ "kernel-preempt",  check_kernel_preempt },
	{ "threadirqs",      check_threadirqs },
	{ "rt-throttling",   check_rt_throttling },
	{ "rt-group-sched",  check_rt_group_sched },
	{ "sched-ext",       check_sched_ext },
	{ "swappiness",      check_swappiness },
	{ "cpu-governor",    check_cpu_governor },
	{ "cpu-dma-latency", check_cpu_dma_latency },
	{ "shield",          check_shield },
	{ "smt",             check_smt },
	{ "mitigations",     check_mitigations },
	{ "timer",           check_timer },
	{ "rlimit-rtprio",   check_rlimit_rtprio },
	{ "rlimit-memlock",  check_rlimit_memlock },
	{ "rlimit-rttime",   check_rlimit_rttime },
	{ "audio-group",     check_audio_group },
	{ "daemon",          check_daemon },
	{ "refusals",        check_refusals },
	{ "rtkit-conflict",  check_rtkit_conflict },
	{ "limits-conflict", check_limits_conflict },
	{ "policy",          check_policy },
	{ "irq-priorities",  check_irq_priorities },
	{ "irq-sharing",     check_irq_sharing },
	{ "irq-below-audio", check_irq_below_audio },
	{ "realtime-module", check_realtime_module },
	{ "filesystem",      check_filesystem },
};
/* clang-format on */
const size_t check_table_n = ELEMENTSOF(check_table);

static const char *const status_names[_CHECK_STATUS_MAX] = {
	[CHECK_OK] = "ok",     [CHECK_INFO] = "info", [CHECK_SKIP] = "skip",
	[CHECK_WARN] = "warn", [CHECK_FAIL] = "fail",
};

const char *check_status_to_string(CheckStatus s)
{
	return s >= 0 && s < _CHECK_STATUS_MAX ? status_names[s] : NULL;
}

const Check *check_find(const char *id)
{
	for (size_t i = 0; i < check_table_n; i++)
		if (streq(check_table[i].id, id))
			return &check_table[i];
	return NULL;
}
