// SPDX-License-Identifier: GPL-2.0-only
/*
 * realtime.ko entry point: module parameters any, gid and mlock (the same
 * variables the sysctls in /proc/sys/security/realtime/ change), and the
 * order in which the parts come up and go down.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "realtime.h"

int rt_any;
int rt_gid = RT_GID_NONE;
int rt_mlock = RT_MLOCK_RESOURCE;

int rt_bool_min;
int rt_bool_max = 1;
int rt_gid_min = RT_GID_NONE;
int rt_gid_max = INT_MAX;
int rt_mlock_min = RT_MLOCK_NONE;
int rt_mlock_max = RT_MLOCK_IPC_ONLY;

/* A parameter write out of range is refused and changes nothing. */
static int rt_param_set_range(const char *val, int *var, int min, int max)
{
	int v, ret;

	ret = kstrtoint(val, 0, &v);
	if (ret)
		return ret;
	if (v < min || v > max)
		return -EINVAL;
	WRITE_ONCE(*var, v);
	return 0;
}

static int rt_param_set_bool(const char *val, const struct kernel_param *kp)
{
	return rt_param_set_range(val, kp->arg, rt_bool_min, rt_bool_max);
}

static int rt_param_set_gid(const char *val, const struct kernel_param *kp)
{
	return rt_param_set_range(val, kp->arg, rt_gid_min, rt_gid_max);
}

static int rt_param_set_mlock(const char *val, const struct kernel_param *kp)
{
	return rt_param_set_range(val, kp->arg, rt_mlock_min, rt_mlock_max);
}

static const struct kernel_param_ops rt_bool_ops = {
	.set = rt_param_set_bool,
	.get = param_get_int,
};

static const struct kernel_param_ops rt_gid_ops = {
	.set = rt_param_set_gid,
	.get = param_get_int,
};

static const struct kernel_param_ops rt_mlock_ops = {
	.set = rt_param_set_mlock,
	.get = param_get_int,
};

module_param_cb(any, &rt_bool_ops, &rt_any, 0644);
MODULE_PARM_DESC(any, "1: every exec gets the realtime capabilities (default 0)");
module_param_cb(gid, &rt_gid_ops, &rt_gid, 0644);
MODULE_PARM_DESC(gid, "group whose members get the realtime capabilities at exec, -1 for none (default -1)");
module_param_cb(mlock, &rt_mlock_ops, &rt_mlock, 0644);
MODULE_PARM_DESC(mlock, "1: also grant CAP_IPC_LOCK and CAP_SYS_RESOURCE, 2: CAP_IPC_LOCK alone, 0: neither (default 1)");

static int __init realtime_init(void)
{
	int ret;

	ret = rt_irq_init();
	if (ret)
		return ret;

	ret = rt_exec_init();
	if (ret)
		goto err_irq;

	ret = rt_sysctl_init();
	if (ret)
		goto err_exec;

	pr_info("loaded: any=%d gid=%d mlock=%d\n", rt_any, rt_gid, rt_mlock);
	return 0;

err_exec:
	rt_exec_exit();
err_irq:
	rt_irq_exit();
	return ret;
}

static void __exit realtime_exit(void)
{
	rt_sysctl_exit();
	rt_exec_exit();
	rt_irq_exit();
	pr_info("unloaded\n");
}

module_init(realtime_init);
module_exit(realtime_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Realtime scheduling rights for a group at exec, and IRQ-thread priorities");
MODULE_AUTHOR("The realtimed authors");
MODULE_VERSION("0.1.0");
