// SPDX-License-Identifier: GPL-2.0-only
/*
 * The exec-time grant. Modern kernels have no loadable LSMs, so a kretprobe
 * on security_bprm_creds_from_file() runs right after the kernel (and every
 * LSM) computed the new credentials of an exec, before they are committed.
 * For a task in the configured group (or every task with any=1) it adds
 * CAP_SYS_NICE, and with mlock=1 CAP_IPC_LOCK and CAP_SYS_RESOURCE, to the
 * new permitted and effective sets, as the 2004 realtime LSM did; mlock=2
 * adds CAP_IPC_LOCK without CAP_SYS_RESOURCE.
 *
 * The kernel's own exec rules stay in force: nothing is granted to an exec
 * that the kernel marked unsafe (ptraced, no_new_privs, shared fs state),
 * to a task outside the initial user namespace, or beyond the capability
 * bounding set; when the capabilities grow, secureexec is set (AT_SECURE,
 * no core dumps, no LD_PRELOAD) and the personality bits that setuid
 * programs lose are cleared. The handlers run in atomic context and only
 * read settings and change the not yet committed bprm->cred: nothing sleeps.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/binfmts.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/kprobes.h>
#include <linux/personality.h>
#include <linux/ptrace.h>
#include <linux/uidgid.h>
#include <linux/user_namespace.h>

#include "realtime.h"

static atomic_long_t rt_grants = ATOMIC_LONG_INIT(0);

struct rt_exec_data {
	struct linux_binprm *bprm;
};

/* Is gid the real or effective group of cred, or one of its supplementary groups? */
static bool rt_cred_in_group(const struct cred *cred, kgid_t gid)
{
	const struct group_info *gi = cred->group_info;
	unsigned int lo = 0, hi;

	if (gid_eq(cred->gid, gid) || gid_eq(cred->egid, gid))
		return true;
	if (!gi)
		return false;

	/* The kernel keeps group_info sorted (groups_sort()). */
	hi = gi->ngroups;
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (gid_gt(gid, gi->gid[mid]))
			lo = mid + 1;
		else if (gid_lt(gid, gi->gid[mid]))
			hi = mid;
		else
			return true;
	}
	return false;
}

/* Does the exec described by bprm qualify for the grant? */
static bool rt_exec_eligible(const struct linux_binprm *bprm)
{
	const struct cred *new = bprm->cred;
	int gid;

	if (!new || bprm->unsafe)
		return false;
	if (new->user_ns != &init_user_ns)
		return false;
	if (READ_ONCE(rt_any))
		return true;

	gid = READ_ONCE(rt_gid);
	if (gid == RT_GID_NONE)
		return false;
	return rt_cred_in_group(new, make_kgid(&init_user_ns, gid));
}

/*
 * Entry: remember bprm. The group and safety checks can already be made
 * here, since bprm->cred's ids and bprm->unsafe are final before the hook
 * runs; returning non-zero skips the return handler for everyone else.
 */
static int rt_exec_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct rt_exec_data *d = (struct rt_exec_data *)ri->data;
	struct linux_binprm *bprm;

	bprm = (struct linux_binprm *)regs_get_kernel_argument(regs, 0);
	if (!bprm || !rt_exec_eligible(bprm))
		return 1;
	d->bprm = bprm;
	return 0;
}

static int rt_exec_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct rt_exec_data *d = (struct rt_exec_data *)ri->data;
	struct linux_binprm *bprm = d->bprm;
	struct cred *new = bprm->cred;
	const struct cred *old = current_cred();
	kernel_cap_t want = CAP_EMPTY_SET, add;

	/* The kernel or an LSM refused this exec: leave it alone. */
	if (regs_return_value(regs) != 0)
		return 0;
	/* Settings may have changed since the entry handler. */
	if (!rt_exec_eligible(bprm))
		return 0;

	cap_raise(want, CAP_SYS_NICE);
	switch (READ_ONCE(rt_mlock)) {
	case RT_MLOCK_RESOURCE:
		cap_raise(want, CAP_SYS_RESOURCE);
		fallthrough;
	case RT_MLOCK_IPC_ONLY:
		cap_raise(want, CAP_IPC_LOCK);
		break;
	}
	/* Never beyond the bounding set, as for file capabilities. */
	want = cap_intersect(want, new->cap_bset);

	/* Root, file capabilities or the ambient set gave them already. */
	add = cap_drop(want, new->cap_permitted);
	if (cap_isclear(add))
		return 0;

	new->cap_permitted = cap_combine(new->cap_permitted, want);
	new->cap_effective = cap_combine(new->cap_effective, want);

	/*
	 * Capabilities grew beyond what the ambient set gave: this is a
	 * privilege-elevating exec, handled like a file-capability one.
	 */
	bprm->secureexec = 1;
	if (!cap_issubset(new->cap_permitted, old->cap_permitted))
		bprm->per_clear |= PER_CLEAR_ON_SETID;

	atomic_long_inc(&rt_grants);
	return 0;
}

static struct kretprobe rt_exec_probe = {
	.kp.symbol_name = "security_bprm_creds_from_file",
	.entry_handler = rt_exec_entry,
	.handler = rt_exec_return,
	.data_size = sizeof(struct rt_exec_data),
};

unsigned long rt_exec_grants(void)
{
	return atomic_long_read(&rt_grants);
}

unsigned long rt_exec_missed(void)
{
	return (unsigned long)rt_exec_probe.nmissed + rt_exec_probe.kp.nmissed;
}

int rt_exec_init(void)
{
	int ret;

	/*
	 * An exec may sleep inside the hooked function (LSMs read xattrs),
	 * so more instances than CPUs can be in flight. A miss means one
	 * exec went without its grant; it is counted in .../missed.
	 */
	rt_exec_probe.maxactive = max_t(int, 64, 8 * num_possible_cpus());

	ret = register_kretprobe(&rt_exec_probe);
	if (ret) {
		pr_err("cannot probe %s (%d): this kernel lacks kretprobes or the function; the exec-time grant needs Linux 5.8 or later with CONFIG_KRETPROBES\n",
		       rt_exec_probe.kp.symbol_name, ret);
		return ret;
	}
	return 0;
}

void rt_exec_exit(void)
{
	unregister_kretprobe(&rt_exec_probe);
}
