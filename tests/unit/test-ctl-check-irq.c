/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for realtimectl/check-irq.c over a canned /proc
 * (ctl-check-fixture.h): irq-sharing on /proc/interrupts as 6.1 and 6.12
 * write it (MSI lines, a legacy line that a sound card shares with USB
 * controllers, actions with blanks in their names, a line without a
 * hardware IRQ number), and irq-below-audio: a sound card's IRQ thread
 * against the realtime threads that run now (PipeWire's data thread at
 * FIFO 88 above threadirqs' FIFO 50), realtimed's own watchdog left out,
 * a USB controller's thread counted only where a USB sound card is.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "check-main.h"
#include "ctl-check-fixture.h"

#define PF_KTHREAD 0x00200000u

/* A stat line of task pid/tid, as the kernel writes it (fields up to 41:
 * rt_priority, policy), of a kernel thread or not. */
#define STAT_FMT                                                                               \
	"%d (%s) S 1 0 0 0 -1 %u 0 0 0 0 0 0 0 0 %d 0 1 0 5 0 0 18446744073709551615 0 0 0 0 " \
	"0 0 0 2147483647 0 0 0 0 17 1 %d %d 0 0 0\n"

static void put_task(int pid, int tid, const char *comm, bool kthread, int policy, int prio)
{
	unsigned flags = kthread ? PF_KTHREAD : 0;
	char path[128];

	if (tid == pid) {
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		put(path, STAT_FMT, tid, comm, flags, prio ? -1 - prio : 0, prio, policy);
	}
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	put(path, STAT_FMT, tid, comm, flags, prio ? -1 - prio : 0, prio, policy);
}

/* An IRQ kernel thread, with the action's directory under /proc/irq/N/. */
static void put_irq_thread(int pid, int irq, const char *action, int prio)
{
	char path[128], comm[32];

	snprintf(comm, sizeof(comm), "irq/%d-%.10s", irq, action);
	put_task(pid, pid, comm, true, 1, prio);
	snprintf(path, sizeof(path), "/proc/irq/%d/%s/x", irq, action);
	put(path, "%s", "");
}

#define INTERRUPTS_HEAD "           CPU0       CPU1       \n"
/* 6.1 in QEMU: MSI lines (one action each), an xHCI with three vectors */
#define INTERRUPTS_MSI                                                               \
	INTERRUPTS_HEAD                                                              \
	"  0:         89          0   IO-APIC   2-edge      timer\n"                 \
	"  1:          0          9   IO-APIC   1-edge      i8042\n"                 \
	" 24:          0          0   PCI-MSI 16384-edge      PCIe PME, aerdrv\n"    \
	" 28:         83          0   PCI-MSI 65536-edge      snd_hda_intel:card0\n" \
	" 29:          0          0   PCI-MSI 524288-edge      xhci_hcd\n"           \
	" 30:          0          0   PCI-MSI 524289-edge      xhci_hcd\n"           \
	"LOC:       4260       3787   Local timer interrupts\n"                      \
	"ERR:          0\n"

START_TEST(test_sharing)
{
	run("irq-sharing");
	ck_assert_int_eq(res.status, CHECK_SKIP);
	ck_assert_ptr_nonnull(strstr(res.summary, "/proc/interrupts"));

	put("/proc/interrupts", INTERRUPTS_HEAD
	    "  0:         89          0   IO-APIC   2-edge      timer\n"
	    " 24:          0          0   PCI-MSI 16384-edge      PCIe PME, aerdrv\n");
	run("irq-sharing");
	assert_result(CHECK_INFO, "");

	put("/proc/interrupts", INTERRUPTS_MSI);
	run("irq-sharing");
	assert_result(CHECK_OK, "28:snd_hda_intel:card0 29:xhci_hcd 30:xhci_hcd");

	/* a legacy line: the card shares it with two USB controllers; a
	 * handler's name of 8 letters and more leaves two blanks */
	put("/proc/interrupts",
	    INTERRUPTS_HEAD " 16:       1203        577   IO-APIC  16-fasteoi   ehci_hcd:usb1, "
			    "snd_hda_intel:card0, uhci_hcd:usb3\n"
			    " 19:         12          0   IO-APIC  19-fasteoi   ata_piix\n"
			    " 23:          0          0   IO-APIC  23-fasteoi  uhci_hcd:usb4\n");
	run("irq-sharing");
	assert_result(CHECK_WARN, "16:ehci_hcd:usb1,snd_hda_intel:card0,uhci_hcd:usb3 "
				  "23:uhci_hcd:usb4");
	ck_assert_ptr_nonnull(strstr(res.summary, "a sound card's IRQ is shared"));
	ck_assert_ptr_nonnull(strstr(
		res.summary, "IRQ 16 (ehci_hcd:usb1) with snd_hda_intel:card0, uhci_hcd:usb3"));
	ck_assert_ptr_nonnull(strstr(res.hint, "another PCI slot or USB port"));

	/* a USB controller shares with a disk; no hardware IRQ number */
	put("/proc/interrupts", INTERRUPTS_HEAD
	    " 17:          5          0   IO-APIC    -fasteoi   ahci[0000:00:1f.2], xhci_hcd\n"
	    " 28:         83          0   PCI-MSI 65536-edge      snd_hda_intel:card0\n");
	run("irq-sharing");
	assert_result(CHECK_WARN, "17:ahci[0000:00:1f.2],xhci_hcd 28:snd_hda_intel:card0");
	ck_assert_ptr_nonnull(strstr(res.summary, "a USB controller's IRQ"));
	ck_assert_ptr_nonnull(strstr(res.summary, "IRQ 17 (xhci_hcd) with ahci[0000:00:1f.2]"));

	/* lines that are no numbered IRQ, or end early, are passed over */
	put("/proc/interrupts",
	    INTERRUPTS_HEAD " 5:\n 6: 1 2\n 7: 1 2 x -y\nNMI: 0 0 snd\n"
			    " 28: 1 0 PCI-MSI 65536-edge snd_hda_intel:card0\n");
	run("irq-sharing");
	assert_result(CHECK_OK, "28:snd_hda_intel:card0");
}
END_TEST

START_TEST(test_below_audio)
{
	mkdir_p("/proc");
	put("/proc/cmdline", "root=/dev/sda1\n");
	run("irq-below-audio");
	assert_result(CHECK_SKIP, "not threaded");

	put("/proc/cmdline", "root=/dev/sda1 threadirqs\n");
	run("irq-below-audio");
	assert_result(CHECK_INFO, "");

	/* threadirqs: the card's thread at FIFO 50; nothing realtime runs yet
	 * but realtimed, whose watchdog is no audio client */
	put_irq_thread(180, 28, "snd_hda_intel:card0", 50);
	put_irq_thread(193, 29, "xhci_hcd", 50);
	put_task(300, 300, "realtimed", false, 0, 0);
	put_task(300, 302, "rtd-watchdog", false, 1, 99);
	run("irq-below-audio");
	assert_result(CHECK_INFO, "irq/28-snd_hda_intel:card0:50");

	/* PipeWire's data thread at FIFO 88, granted through RealtimeKit1 */
	put_task(412, 412, "pipewire", false, 0, 0);
	put_task(412, 415, "data-loop.0", false, 1, 88);
	run("irq-below-audio");
	assert_result(CHECK_WARN, "irq/28-snd_hda_intel:card0:50 top=pipewire/data-loop.0:fifo88");
	ck_assert_str_eq(res.summary,
			 "irq/28-snd_hda_intel:card0 at 50, not above pipewire's thread "
			 "data-loop.0 (pid 415) at SCHED_FIFO 88: the card's interrupt waits "
			 "behind its own clients");
	/* the shipped policy's snd*=90 would put it above: not applied */
	ck_assert_ptr_nonnull(strstr(res.hint, "[IRQ] rule (priority 90) is not applied"));

	/* no rule at all: the hint writes one */
	load_policy("[Group audio]\nRealtimePriority=95\n");
	run("irq-below-audio");
	ck_assert_int_eq(res.status, CHECK_WARN);
	ck_assert_ptr_nonnull(strstr(res.hint, "snd*=90 (and xhci_hcd=89"));
	load_policy("[Group audio]\nRealtimePriority=95\n[IRQ]\nsnd*=92\n");

	/* applied: the card's thread runs above PipeWire's */
	put_irq_thread(180, 28, "snd_hda_intel:card0", 92);
	run("irq-below-audio");
	assert_result(CHECK_OK, "irq/28-snd_hda_intel:card0:92 top=pipewire/data-loop.0:fifo88");

	/* a USB sound card: its controller's thread counts too, and at 85
	 * it waits behind PipeWire's 88 */
	put_irq_thread(193, 29, "xhci_hcd", 85);
	put("/proc/asound/card1/usbid", "46f4:0002\n");
	run("irq-below-audio");
	assert_result(CHECK_WARN, "irq/28-snd_hda_intel:card0:92 irq/29-xhci_hcd:85 "
				  "top=pipewire/data-loop.0:fifo88");
	ck_assert_ptr_nonnull(strstr(res.summary, "irq/29-xhci_hcd at 85, not above"));

	/* the same priority is not above: FIFO does not preempt its equal */
	put_irq_thread(193, 29, "xhci_hcd", 88);
	run("irq-below-audio");
	ck_assert_int_eq(res.status, CHECK_WARN);
	put_irq_thread(193, 29, "xhci_hcd", 89);
	run("irq-below-audio");
	ck_assert_int_eq(res.status, CHECK_OK);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ctl-check-irq");

	ctl_check_test_case(s, "checks", CHECK_TESTS(test_sharing, test_below_audio));
	return policy_test_run(s);
}
