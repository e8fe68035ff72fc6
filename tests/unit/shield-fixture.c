/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The shield's fake machine; see shield-fixture.h. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "shield-fixture.h"

#define DIR_TEMPLATE "/tmp/test-shield.XXXXXX"
#define IRQS_MAX 32

static char dir[] = DIR_TEMPLATE;
static char proc[64], sys[64], run[64], state[64];
ShieldRoots shield_roots;

static struct {
	unsigned irq;
	char actions[128];
} irqs[IRQS_MAX];
static size_t n_irqs;

static void mkdirs(const char *path)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			ck_assert_msg(mkdir(buf, 0755) == 0 || errno == EEXIST, "mkdir %s: %m",
				      buf);
			*p = '/';
		}
	ck_assert_msg(mkdir(buf, 0755) == 0 || errno == EEXIST, "mkdir %s: %m", buf);
}

void shield_fixture_write(const char *root, const char *rel, const char *text)
{
	char path[4096], parent[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(parent, sizeof(parent), "%s", path);
	*strrchr(parent, '/') = '\0';
	mkdirs(parent);
	f = fopen(path, "we");
	ck_assert_msg(f, "%s: %m", path);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

const char *shield_fixture_read(const char *root, const char *rel)
{
	static char buf[4096];

	if (shield_file_read(root, rel, buf, sizeof(buf)) < 0)
		snprintf(buf, sizeof(buf), "<missing>");
	return buf;
}

static void write_interrupts(void)
{
	char text[8192];
	size_t used;

	used = (size_t)snprintf(text, sizeof(text),
				"           CPU0       CPU1       CPU2       CPU3       \n");
	for (size_t i = 0; i < n_irqs; i++)
		used += (size_t)snprintf(text + used, sizeof(text) - used,
					 "%3u:          1          2          3          4  "
					 "PCI-MSI %u-edge      %s\n",
					 irqs[i].irq, 1000 + irqs[i].irq, irqs[i].actions);
	snprintf(text + used, sizeof(text) - used,
		 "LOC:        100        100        100        100   Local timer interrupts\n");
	shield_fixture_write(proc, "interrupts", text);
}

void shield_fixture_irq(unsigned irq, const char *actions, const char *affinity,
			const char *effective)
{
	char rel[256], value[256];
	size_t i;

	for (i = 0; i < n_irqs && irqs[i].irq != irq; i++)
		;
	ck_assert_uint_lt(i, IRQS_MAX);
	if (i == n_irqs)
		n_irqs++;
	irqs[i].irq = irq;
	snprintf(irqs[i].actions, sizeof(irqs[i].actions), "%s", actions);
	snprintf(rel, sizeof(rel), "irq/%u/smp_affinity_list", irq);
	snprintf(value, sizeof(value), "%s\n", affinity);
	shield_fixture_write(proc, rel, value);
	snprintf(rel, sizeof(rel), "irq/%u/effective_affinity_list", irq);
	snprintf(value, sizeof(value), "%s\n", effective);
	shield_fixture_write(proc, rel, value);
	/* one directory per action, as the kernel makes them */
	for (const char *p = actions; *p;) {
		size_t n = strcspn(p, ",");

		snprintf(rel, sizeof(rel), "%s/irq/%u/%.*s", proc, irq, (int)n, p);
		mkdirs(rel);
		p += n;
		p += strspn(p, ", ");
	}
	write_interrupts();
}

const char *shield_fixture_affinity(unsigned irq)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "irq/%u/smp_affinity_list", irq);
	return shield_fixture_read(proc, rel);
}

static void fake_cpu(unsigned cpu, const char *siblings)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%u/topology/thread_siblings_list", cpu);
	shield_fixture_write(sys, rel, siblings);
	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%u/cpufreq/scaling_governor", cpu);
	shield_fixture_write(sys, rel, "schedutil\n");
	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%u/cpufreq/scaling_available_governors",
		 cpu);
	shield_fixture_write(sys, rel, "performance schedutil\n");
}

/* A sound card whose device is dev (under sys/devices), linked as the
 * kernel links it from class/sound. */
static void fake_card(const char *card, const char *pci, const char *dev)
{
	char path[512], target[512];

	snprintf(path, sizeof(path), "%s/devices/%s/%s/sound/%s", sys, pci, dev, card);
	mkdirs(path);
	snprintf(path, sizeof(path), "%s/class/sound", sys);
	mkdirs(path);
	snprintf(path, sizeof(path), "%s/class/sound/%s", sys, card);
	snprintf(target, sizeof(target), "../../devices/%s/%s/sound/%s", pci, dev, card);
	ck_assert_int_eq(symlink(target, path), 0);
	snprintf(path, sizeof(path), "%s/devices/%s/%s/sound/%s/device", sys, pci, dev, card);
	ck_assert_int_eq(symlink("../..", path), 0);
}

void shield_fixture_setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(proc, sizeof(proc), "%s/proc", dir);
	snprintf(sys, sizeof(sys), "%s/sys", dir);
	snprintf(run, sizeof(run), "%s/run", dir);
	snprintf(state, sizeof(state), "%s/state", dir);
	mkdirs(run);
	mkdirs(state);
	shield_roots = (ShieldRoots){ .proc = proc, .sys = sys, .run = run, .state_dir = state };
	n_irqs = 0;

	shield_fixture_write(sys, "devices/system/cpu/online", "0-3\n");
	fake_cpu(0, "0,2\n");
	fake_cpu(1, "1,3\n");
	fake_cpu(2, "0,2\n");
	fake_cpu(3, "1,3\n");
	shield_fixture_write(sys, "devices/virtual/workqueue/cpumask", "f\n");
	shield_fixture_write(proc, "irq/default_smp_affinity", "f\n");
	shield_fixture_irq(0, "timer", "0", "0");
	shield_fixture_irq(16, "ehci_hcd:usb1, snd_hda_intel:card0", "0-3", "1");
	shield_fixture_irq(24, "nvme0q1", "0-3", "3");
	shield_fixture_irq(25, "eth0-rx-0", "3", "3");
	shield_fixture_irq(30, "xhci_hcd", "0-3", "2");
	shield_fixture_irq(40, "i8042", "0-3", "0");
	/* card0: the HDA controller's INTx line; card1: a USB interface under
	 * the xHCI controller, whose MSI vector is 30 */
	fake_card("card0", "pci0000:00", "0000:00:1b.0");
	shield_fixture_write(sys, "devices/pci0000:00/0000:00:1b.0/irq", "16\n");
	fake_card("card1", "pci0000:00/0000:00:14.0/usb1/1-1", "1-1:1.0");
	shield_fixture_write(sys, "devices/pci0000:00/0000:00:14.0/irq", "0\n");
	shield_fixture_write(sys, "devices/pci0000:00/0000:00:14.0/msi_irqs/30", "msi\n");
}

void shield_fixture_teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	strcpy(dir, DIR_TEMPLATE);
}

Policy *shield_fixture_policy(const char *text)
{
	char path[128];
	const char *files[] = { path };
	Policy *p = NULL;

	snprintf(path, sizeof(path), "%s/policy.conf", dir);
	shield_fixture_write(dir, "policy.conf", text);
	ck_assert_int_eq(policy_load_files(files, 1, &p), 0);
	ck_assert_msg(policy_n_errors(p) == 0, "%s", policy_error(p, 0)->message);
	return p;
}

bool shield_fixture_record_exists(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/shield", state);
	return access(path, F_OK) == 0;
}
