/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/irq.c's uevent monitor, the [IRQ] rules for IRQ threads
 * that appear after start, on the daemon fixture: the IRQ threads of its
 * fake /proc are this test's sleeping threads, and the kernel's uevents
 * are sent by the test on a network namespace of its own (where only it
 * and realtimed listen), with realtime.ko absent from a private /proc
 * (fixture_private_proc()); the test needs root and skips without it.
 *   - a device added (add@, bind@) re-applies the rules a second later,
 *     not at once (a new IRQ thread first sets itself to FIFO 50), and so
 *     does the next one;
 *   - a burst of uevents is one re-apply;
 *   - other uevents (remove@, change@), no [IRQ] rules, and rules that
 *     realtime.ko holds (it catches new threads itself) arm nothing;
 *   - stopped, the monitor hears nothing.
 */
#include <check.h>
#include <errno.h>
#include <linux/netlink.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check-main.h"
#include "daemon-fixture.h"
#include "irq.h"
#include "log-fixture.h"
#include "time-util.h"

#define POLICY "[Default]\nNice=10\n\n[IRQ]\nsnd*=90\n"

static Daemon d;
static Sleeper first, second;

static void setup(void)
{
	fixture_setup();
	memset(&first, 0, sizeof(first));
	memset(&second, 0, sizeof(second));
}

static void teardown(void)
{
	irq_monitor_stop(&d);
	fixture_daemon_fini(&d);
	fixture_teardown();
}

/* The daemon on policy, listening to uevents in a network namespace and
 * a /proc of the test's own. */
static void daemon_start(const char *policy)
{
	ck_assert_int_eq(fixture_private_proc(), 0);
	ck_assert_int_eq(unshare(CLONE_NEWNET), 0);
	log_capture();
	fixture_write(fixture_conf, policy);
	fixture_daemon_init(&d, NULL);
	ck_assert_int_eq(irq_monitor_start(&d), 0);
	sleeper_start(&first);
	sleeper_start(&second);
}

/* The kernel's uevent for action ("add", "bind", ...) of a USB device,
 * as the kernel formats it, sent to every uevent listener here. */
static void uevent(const char *action)
{
	struct sockaddr_nl to = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	char msg[256];
	int fd, n;

	n = snprintf(msg, sizeof(msg),
		     "%s@/devices/pci0000:00/0000:00:14.0/usb1/1-1/1-1:1.0%cACTION=%s%c"
		     "DEVPATH=/devices/pci0000:00/0000:00:14.0/usb1/1-1/1-1:1.0%cSUBSYSTEM=usb",
		     action, 0, action, 0, 0);
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(sendto(fd, msg, (size_t)n + 1, 0, (struct sockaddr *)&to, sizeof(to)),
			 n + 1);
	close(fd);
}

/* Runs realtimed's loop for usec. */
static void run_for(uint64_t usec)
{
	uint64_t end = now_usec(CLOCK_MONOTONIC) + usec;

	for (uint64_t now; (now = now_usec(CLOCK_MONOTONIC)) < end;)
		ck_assert_int_ge(sd_event_run(d.event, end - now), 0);
}

/* A new IRQ thread of a USB audio interface, IRQ irq, in the fake /proc:
 * the sleeper s, at FIFO 50 as far as /proc says. */
static void irq_thread_appears(Sleeper *s, unsigned irq)
{
	char comm[32];

	snprintf(comm, sizeof(comm), "irq/%u-snd_usb_au", irq);
	fixture_irq_thread(s->tid, comm, SCHED_FIFO, 50, 0);
}

static int policy_of(Sleeper *s)
{
	return sched_policy_of(s->tid);
}

/* After a while, the sleeper s is still as it set itself: nothing was
 * re-applied. */
static void expect_left_alone(Sleeper *s)
{
	run_for(1500 * USEC_PER_MSEC);
	ck_assert_int_eq(policy_of(s), SCHED_BATCH);
}

START_TEST(test_device_added)
{
	struct sched_param sp;

	daemon_start(POLICY);
	irq_thread_appears(&first, 40);
	uevent("add");
	/* not at once: the thread first sets itself up */
	run_for(500 * USEC_PER_MSEC);
	ck_assert_int_eq(policy_of(&first), SCHED_BATCH);
	run_for(1000 * USEC_PER_MSEC);
	ck_assert_int_eq(policy_of(&first), SCHED_FIFO);
	ck_assert_int_eq(sched_getparam(first.tid, &sp), 0);
	ck_assert_int_eq(sp.sched_priority, 90);

	/* and the next device: a driver bound */
	irq_thread_appears(&second, 41);
	uevent("bind");
	run_for(1500 * USEC_PER_MSEC);
	ck_assert_int_eq(policy_of(&second), SCHED_FIFO);
}
END_TEST

/* Many uevents at once (a hub with several devices): one re-apply, one
 * line in the journal. */
START_TEST(test_burst_one_reapply)
{
	char line[128];

	daemon_start(POLICY);
	irq_thread_appears(&first, 40);
	for (int i = 0; i < 5; i++) {
		uevent("add");
		uevent("bind");
		run_for(50 * USEC_PER_MSEC);
	}
	run_for(1500 * USEC_PER_MSEC);
	ck_assert_int_eq(policy_of(&first), SCHED_FIFO);
	snprintf(line, sizeof(line), "IRQ 40 thread %d (snd_usb_au): SCHED_FIFO 90",
		 (int)first.tid);
	ck_assert_uint_eq(log_count_lines(line), 1);
}
END_TEST

START_TEST(test_other_uevents)
{
	daemon_start(POLICY);
	irq_thread_appears(&first, 40);
	uevent("remove");
	uevent("change");
	uevent("unbind");
	expect_left_alone(&first);
	ck_assert_ptr_null(d.irq_timer);
}
END_TEST

START_TEST(test_no_rules)
{
	daemon_start("[Default]\nNice=10\n");
	irq_thread_appears(&first, 40);
	uevent("add");
	expect_left_alone(&first);
	ck_assert_ptr_null(d.irq_timer);
}
END_TEST

/* realtime.ko holds the rules: it catches new IRQ threads itself. */
START_TEST(test_kmod_holds_rules)
{
	daemon_start(POLICY);
	d.irq_kmod = true;
	irq_thread_appears(&first, 40);
	uevent("add");
	expect_left_alone(&first);
}
END_TEST

START_TEST(test_stopped)
{
	daemon_start(POLICY);
	irq_monitor_stop(&d);
	ck_assert_ptr_null(d.uevent_source);
	irq_thread_appears(&first, 40);
	uevent("add");
	expect_left_alone(&first);
}
END_TEST

/* Whether a child may have a network namespace of its own. */
static bool netns_allowed(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(unshare(CLONE_NEWNET) < 0 ? 1 : 0);
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		printf("SKIP: no network namespace of its own here: the test needs root\n");
		return false;
	}
	return true;
}

int main(void)
{
	Suite *s = suite_create("daemon-irq-monitor");
	TCase *tc;

	if (!fixture_private_proc_allowed() || !netns_allowed())
		return 77;
	tc = check_add_case(s, "uevents",
			    CHECK_TESTS(test_device_added, test_burst_one_reapply,
					test_other_uevents, test_no_rules, test_kmod_holds_rules,
					test_stopped));
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	return check_run_forked(s, "each test has a private /proc and network of its own");
}
