// SPDX-License-Identifier: GPL-2.0-only
/*
 * /proc/sys/security/realtime/: the 2004 module's sysctls any, gid and mlock
 * (the same variables as the module parameters), range-checked so that a bad
 * write is refused with EINVAL and changes nothing, and the read-only
 * counters grants (capability grants made at exec) and missed (probe hits
 * lost because too many execs were in flight).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/sysctl.h>

#include "realtime.h"

/*
 * RT_CTL_TABLE_CONST (set by Kbuild from the kernel's headers) is "const"
 * where a proc_handler gets its table const, since 6.11.
 */
static int rt_sysctl_counter(RT_CTL_TABLE_CONST struct ctl_table *table,
			     int write, void *buffer, size_t *lenp, loff_t *ppos)
{
	unsigned long (*get)(void) = table->extra1;
	unsigned long value = get();
	struct ctl_table tmp = {
		.procname = table->procname,
		.data = &value,
		.maxlen = sizeof(value),
		.mode = table->mode,
	};

	if (write)
		return -EPERM;
	return proc_doulongvec_minmax(&tmp, write, buffer, lenp, ppos);
}

static unsigned long rt_missed(void)
{
	return rt_exec_missed() + rt_irq_missed();
}

/* An int of the 2004 module, read-write, refused outside [*min, *max]. */
#define RT_SYSCTL_INT(name, min, max) {					\
	.procname = #name,						\
	.data = &rt_##name,						\
	.maxlen = sizeof(int),						\
	.mode = 0644,							\
	.proc_handler = proc_dointvec_minmax,				\
	.extra1 = (min),						\
	.extra2 = (max),						\
}

/* A read-only counter, the value get() returns. */
#define RT_SYSCTL_COUNTER(name, get) {					\
	.procname = #name,						\
	.mode = 0444,							\
	.proc_handler = rt_sysctl_counter,				\
	.extra1 = (get),						\
}

static struct ctl_table rt_sysctl_table[] = {
	RT_SYSCTL_INT(any, &rt_bool_min, &rt_bool_max),
	RT_SYSCTL_INT(gid, &rt_gid_min, &rt_gid_max),
	RT_SYSCTL_INT(mlock, &rt_mlock_min, &rt_mlock_max),
	RT_SYSCTL_COUNTER(grants, rt_exec_grants),
	RT_SYSCTL_COUNTER(missed, rt_missed),
#ifndef register_sysctl
	/*
	 * Before 6.6 register_sysctl() was a function that took the table to
	 * its empty entry; since, it is a macro that counts the entries, and
	 * since 6.11 an empty one is refused.
	 */
	{ }
#endif
};

static struct ctl_table_header *rt_sysctl_header;

int rt_sysctl_init(void)
{
	rt_sysctl_header = register_sysctl("security/realtime", rt_sysctl_table);
	if (!rt_sysctl_header) {
		pr_err("cannot register /proc/sys/security/realtime (out of memory, or the names are taken by another module)\n");
		return -ENOMEM;
	}
	return 0;
}

void rt_sysctl_exit(void)
{
	unregister_sysctl_table(rt_sysctl_header);
	rt_sysctl_header = NULL;
}
