// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target for the IRQ-thread readers (procfs/procfs-irq.c). The input
 * is read three ways: as a thread's name (procfs_irq_thread_name_parse():
 * an irq number and a name inside the string), as realtime.ko's listing
 * (procfs_irq_threads_kmod(): whole lines "IRQ PID POLICY PRIORITY NAME"
 * or -EBADMSG, sorted), and as the stat file of a kernel thread in a fake
 * /proc that has an IRQ directory with actions (procfs_irq_threads(): at
 * most that thread, with a name that its comm or an action holds).
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "macro.h"
#include "procfs-irq.h"
#include "procfs-stat.h"

static void check_sorted(const IrqThread *t, size_t n)
{
	for (size_t i = 1; i < n; i++)
		fuzz_assert(t[i - 1].irq < t[i].irq ||
			    (t[i - 1].irq == t[i].irq && t[i - 1].pid <= t[i].pid));
}

/* PROC/7/stat is the input, PROC/irq/16/ holds two actions. */
static const char *fake_proc(void)
{
	static const char *const dirs[] = { "7",
					    "irq",
					    "irq/16",
					    "irq/16/snd_hda_intel:card0",
					    "irq/16/snd_hda_intel:card00",
					    "irq/17" };
	static bool made;
	const char *proc = fuzz_tmpdir();

	if (!made) {
		for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
			char path[256];

			snprintf(path, sizeof(path), "%s/%s", proc, dirs[i]);
			fuzz_assert(mkdir(path, 0755) == 0);
		}
		made = true;
	}
	return proc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *comm = NULL;
	_cleanup_close_ int fd = -EBADF;
	const char *name = NULL;
	IrqThread *t = NULL;
	char path[64];
	unsigned irq;
	size_t n = 0;
	int r;

	if (size > 64 * 1024)
		return 0;
	comm = fuzz_string(data, size);
	r = procfs_irq_thread_name_parse(comm, &irq, &name);
	fuzz_assert(r == 0 || r == -EINVAL);
	fuzz_assert(r < 0 || (name > comm && name <= comm + strlen(comm)));

	fd = fuzz_memfd(data, size, path, sizeof(path));
	r = procfs_irq_threads_kmod(path, &t, &n);
	fuzz_assert(r == 0 || r == -EBADMSG);
	if (r == 0) {
		check_sorted(t, n);
		for (size_t i = 0; i < n; i++) {
			fuzz_assert(t[i].pid > 0);
			fuzz_assert(t[i].priority >= 0 && t[i].priority <= 99);
			fuzz_assert(!streq(procfs_sched_policy_to_string(t[i].policy), "unknown"));
			fuzz_assert(t[i].action && t[i].action[0] && !strchr(t[i].action, '\n'));
		}
		procfs_irq_threads_free(t, n);
	}

	if (size < 2048) {
		const char *proc = fake_proc();
		char dir[256];

		snprintf(dir, sizeof(dir), "%s/7", proc);
		fuzz_write_file(dir, "stat", data, size);
		t = NULL;
		n = 0;
		fuzz_assert(procfs_irq_threads(proc, &t, &n) == 0);
		fuzz_assert(n <= 1);
		for (size_t i = 0; i < n; i++) {
			ProcfsStat st;

			fuzz_assert(t[i].pid == 7);
			fuzz_assert(procfs_stat_parse(comm, &st) == 0 && st.n_fields >= 41);
			fuzz_assert(procfs_irq_thread_name_parse(st.comm, &irq, &name) == 0);
			fuzz_assert(t[i].irq == irq && t[i].policy == st.policy &&
				    t[i].priority == st.rt_priority && t[i].nice == st.nice);
			/* the action directory the name begins, else the name */
			fuzz_assert(t[i].action &&
				    (streq(t[i].action, name) ||
				     (irq == 16 && strncmp(t[i].action, name, strlen(name)) == 0)));
		}
		procfs_irq_threads_free(t, n);
	}
	return 0;
}
