/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for procfs/procfs-interrupts.c, the reader of /proc/interrupts
 * and /proc/softirqs for realtimectl latency: columns mapped to the CPUs
 * the header names (an offline CPU has no column), the action names of
 * numbered IRQs, named rows with fewer counts (ERR, MIS), softirq keys,
 * and hostile files: a line beyond the length bound, bytes that are not
 * printable, no header, a key twice. Then the host's own files, whatever they hold.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check-main.h"
#include "macro.h"
#include "procfs-interrupts.h"

static char path[] = "/tmp/test-procfs-interrupts.XXXXXX";

static void write_file(const char *text, size_t n)
{
	FILE *f = fopen(path, "we");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, n, f), n);
	ck_assert_int_eq(fclose(f), 0);
}

static void setup(void)
{
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
}

static void teardown(void)
{
	unlink(path);
}

/* CPU1 offline: columns are CPU0, CPU2, CPU3 */
static const char interrupts[] =
	"           CPU0       CPU2       CPU3       \n"
	"  0:         44          0          0   IO-APIC   2-edge      timer\n"
	" 16:          1          2          3   IO-APIC  16-fasteoi   ehci_hcd:usb1, "
	"snd_hda_intel\n"
	"124:     100000       1800          5  IR-PCI-MSI 524288-edge      nvme0q1\n"
	"LOC:    7654321     123456      65432   Local timer interrupts\n"
	"ERR:          9\n"
	"MIS:          0\n";

static const char softirqs[] = "                    CPU0       CPU2       CPU3\n"
			       "          HI:          0          1          2\n"
			       "       TIMER:       1000       2000       3000\n";

START_TEST(test_columns)
{
	static const int cpus[] = { 2, 0, 1 };
	IrqCounts c = {};

	write_file(interrupts, sizeof(interrupts) - 1);
	ck_assert_int_eq(procfs_irq_counts_read(path, false, cpus, 3, &c), 0);
	ck_assert_uint_eq(c.n_sources, 6);
	ck_assert_uint_eq(c.n_cpus, 3);
	ck_assert_str_eq(c.sources[0].key, "0");
	ck_assert_str_eq(c.sources[0].name, "IRQ 0 (timer)");
	ck_assert_str_eq(c.sources[1].name, "IRQ 16 (ehci_hcd:usb1, snd_hda_intel)");
	ck_assert_str_eq(c.sources[1].action, "ehci_hcd:usb1");
	ck_assert_str_eq(c.sources[2].name, "IRQ 124 (nvme0q1)");
	ck_assert_str_eq(c.sources[2].action, "nvme0q1");
	/* CPU2 is the second column; CPU0 the first; CPU1 has none: 0 */
	ck_assert_uint_eq(c.counts[2 * 3 + 0], 1800);
	ck_assert_uint_eq(c.counts[2 * 3 + 1], 100000);
	ck_assert_uint_eq(c.counts[2 * 3 + 2], 0);
	ck_assert_str_eq(c.sources[3].name, "LOC (Local timer interrupts)");
	ck_assert_str_eq(c.sources[3].action, "");
	ck_assert_uint_eq(c.counts[3 * 3 + 0], 123456);
	/* ERR has one count (all CPUs): it is CPU0's column */
	ck_assert_str_eq(c.sources[4].name, "ERR");
	ck_assert_uint_eq(c.counts[4 * 3 + 1], 9);
	ck_assert_uint_eq(c.counts[4 * 3 + 0], 0);

	write_file(softirqs, sizeof(softirqs) - 1);
	ck_assert_int_eq(procfs_irq_counts_read(path, true, cpus, 3, &c), 0);
	ck_assert_uint_eq(c.n_sources, 8);
	ck_assert_str_eq(c.sources[7].key, "s:TIMER");
	ck_assert_str_eq(c.sources[7].name, "softirq TIMER");
	ck_assert_uint_eq(c.counts[7 * 3 + 0], 2000);
	ck_assert_int_eq(procfs_irq_counts_find(&c, "s:TIMER", 0), 7);
	ck_assert_int_eq(procfs_irq_counts_find(&c, "124", 2), 2);
	ck_assert_int_eq(procfs_irq_counts_find(&c, "999", 2), -1);
	/* the same snapshot with another number of CPUs: refused */
	ck_assert_int_eq(procfs_irq_counts_read(path, true, cpus, 2, &c), -EINVAL);
	procfs_irq_counts_done(&c);
	ck_assert_uint_eq(c.n_sources, 0);
}
END_TEST

START_TEST(test_hostile)
{
	static const int cpus[] = { 0 };
	static const char twice[] = "   CPU0\n 9: 1 X-edge a\n 9: 2 X-edge b\n\xff: 3\n\x1b: 4\n";
	size_t long_len = PROCFS_IRQ_LINE_MAX + 100, n;
	IrqCounts c = {};
	char *text;

	/* no header naming a CPU */
	write_file("  0:   1   IO-APIC 2-edge timer\n", 31);
	ck_assert_int_eq(procfs_irq_counts_read(path, false, cpus, 1, &c), -EBADMSG);
	procfs_irq_counts_done(&c);
	write_file("", 0);
	ck_assert_int_eq(procfs_irq_counts_read(path, false, cpus, 1, &c), -EBADMSG);
	procfs_irq_counts_done(&c);

	/* a line beyond the bound is left out; the next one is read;
	 * bytes that are not printable ASCII become '?' */
	text = malloc(long_len + 256);
	ck_assert_ptr_nonnull(text);
	n = (size_t)sprintf(text, "   CPU0\n 7: 5 X-edge ");
	memset(text + n, 'a', long_len);
	n += long_len;
	n += (size_t)sprintf(text + n, "\n 8: 6 X-edge na\xff\x1b[31m\xc3\xa9\"<&\n");
	write_file(text, n);
	free(text);
	ck_assert_int_eq(procfs_irq_counts_read(path, false, cpus, 1, &c), 0);
	ck_assert_uint_eq(c.n_sources, 1);
	ck_assert_str_eq(c.sources[0].key, "8");
	ck_assert_uint_eq(c.counts[0], 6);
	ck_assert_str_eq(c.sources[0].name, "IRQ 8 (na??[31m??\"<&)");
	for (const char *p = c.sources[0].name; *p; p++)
		ck_assert(*p >= 0x20 && *p < 0x7f);
	procfs_irq_counts_done(&c);

	/* a key twice, or two keys that read the same once made printable:
	 * the first is kept, so that a key names one source */
	write_file(twice, sizeof(twice) - 1);
	ck_assert_int_eq(procfs_irq_counts_read(path, false, cpus, 1, &c), 0);
	ck_assert_uint_eq(c.n_sources, 2);
	ck_assert_str_eq(c.sources[0].name, "IRQ 9 (a)");
	ck_assert_uint_eq(c.counts[0], 1);
	ck_assert_str_eq(c.sources[1].key, "?");
	ck_assert_uint_eq(c.counts[1], 3);
	procfs_irq_counts_done(&c);

	ck_assert_int_eq(procfs_irq_counts_read("/nonexistent/interrupts", false, cpus, 1, &c),
			 -ENOENT);
	procfs_irq_counts_done(&c);
}
END_TEST

START_TEST(test_host)
{
	static const int cpus[] = { 0 };
	IrqCounts c = {};
	int r = procfs_irq_counts_read("/proc/softirqs", true, cpus, 1, &c);

	/* every kernel has softirqs, and TIMER among them */
	if (r == -ENOENT)
		return;
	ck_assert_int_eq(r, 0);
	ck_assert_int_ge(procfs_irq_counts_find(&c, "s:TIMER", 0), 0);
	procfs_irq_counts_done(&c);
}
END_TEST

int main(void)
{
	return check_run_case("procfs-interrupts", "interrupts",
			      CHECK_TESTS(test_columns, test_hostile, test_host), setup, teardown);
}
