/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/irq.c, the [IRQ] rules, on the daemon fixture:
 * the IRQ kernel threads of its fake /proc are this test's sleeping
 * threads (so the scheduling the kernel reports for them is what
 * realtimed set), and realtime.ko's file, which irq.c opens under the
 * daemon's /proc root, is in that fake /proc too (the test needs root,
 * for the priorities, and a private /proc, fixture_private_proc(); it
 * skips without them).
 *   - without realtime.ko, each IRQ thread a rule matches (by its
 *     action's full name) is set to SCHED_FIFO at the rule's priority,
 *     and the journal says which rule (file:line); a thread no rule
 *     matches is left alone, and so is one /proc shows at its rule's
 *     priority already;
 *   - with realtime.ko, the rules are handed to it in one write that
 *     replaces its set ("-" first), realtimed changes no thread itself,
 *     and says so once; gone again, realtimed applies them itself;
 *   - rules the module cannot take (a pattern with a blank, too many to
 *     write at once): realtimed applies them itself, and says why;
 *   - /proc that cannot be read is a warning, not a crash.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check-main.h"
#include "daemon-fixture.h"
#include "irq.h"
#include "log-fixture.h"
#include "manager.h"

#define POLICY "[Default]\nNice=10\n\n[IRQ]\nsnd*=90\nehci_hcd=84\n"

static Daemon d;
static Sleeper snd, ehci, other;
static char kmod_rules[PATH_MAX]; /* realtime.ko's rules file in the fake /proc */

/* The daemon on policy, in a private /proc, with three IRQ threads in the
 * fake /proc: snd_hda_intel (IRQ 30) and ehci_hcd (IRQ 16), which rules
 * match, and i8042 (IRQ 1), which none does. All run SCHED_FIFO 50 as far
 * as /proc says. */
static void daemon_start(const char *policy)
{
	ck_assert_int_eq(fixture_private_proc(), 0);
	log_capture();
	fixture_write(fixture_conf, policy);
	fixture_daemon_init(&d, NULL);
	sleeper_start(&snd);
	sleeper_start(&ehci);
	sleeper_start(&other);
	fixture_irq_thread(snd.tid, "irq/30-snd_hda_in", SCHED_FIFO, 50, 0);
	fixture_irq_action(30, "snd_hda_intel");
	fixture_irq_thread(ehci.tid, "irq/16-ehci_hcd", SCHED_FIFO, 50, 0);
	fixture_irq_thread(other.tid, "irq/1-i8042", SCHED_FIFO, 50, 0);
}

static void setup(void)
{
	fixture_setup();
	memset(&snd, 0, sizeof(snd));
	memset(&ehci, 0, sizeof(ehci));
	memset(&other, 0, sizeof(other));
}

static void teardown(void)
{
	fixture_daemon_fini(&d);
	fixture_teardown();
}

/* The scheduling the kernel reports for tid: policy and priority. */
static void expect_sched(pid_t tid, int policy, int priority)
{
	struct sched_param sp;

	ck_assert_int_eq(sched_policy_of(tid), policy);
	ck_assert_int_eq(sched_getparam(tid, &sp), 0);
	ck_assert_int_eq(sp.sched_priority, priority);
}

/* realtime.ko loaded: its rules file, empty. */
static void kmod_load(void)
{
	char dir[PATH_MAX];

	ck_assert_int_lt(snprintf(dir, sizeof(dir), "%s/realtime", fixture_proc), sizeof(dir));
	ck_assert_int_lt(
		snprintf(kmod_rules, sizeof(kmod_rules), "%s/realtime/irq_rules", fixture_proc),
		sizeof(kmod_rules));
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	fixture_write(kmod_rules, "");
}

/* What realtimed wrote to realtime.ko since the last call (the file is
 * emptied again). */
static char *kmod_written(void)
{
	static char buf[8192];
	FILE *f = fopen(kmod_rules, "re");
	size_t n;

	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	ck_assert_int_eq(truncate(kmod_rules, 0), 0);
	return buf;
}

START_TEST(test_rules_applied)
{
	char line[512];

	daemon_start(POLICY);
	irq_apply(&d);
	ck_assert(!d.irq_kmod);
	expect_sched(snd.tid, SCHED_FIFO, 90);
	expect_sched(ehci.tid, SCHED_FIFO, 84);
	/* no rule: what the thread runs, untouched */
	expect_sched(other.tid, SCHED_BATCH, 0);
	snprintf(line, sizeof(line), "IRQ 30 thread %d (snd_hda_intel): SCHED_FIFO 90 (%s:5)",
		 (int)snd.tid, fixture_conf);
	ck_assert_uint_eq(log_count_lines(line), 1);
	snprintf(line, sizeof(line), "IRQ 16 thread %d (ehci_hcd): SCHED_FIFO 84 (%s:6)",
		 (int)ehci.tid, fixture_conf);
	ck_assert_uint_eq(log_count_lines(line), 1);
	ck_assert_uint_eq(log_count_lines("(i8042)"), 0);
}
END_TEST

/* A thread at its rule's priority already is left as it is, and no line
 * is logged for it at each reload. */
START_TEST(test_thread_at_its_priority_left_alone)
{
	daemon_start(POLICY);
	fixture_irq_thread(snd.tid, "irq/30-snd_hda_in", SCHED_FIFO, 90, 0);
	irq_apply(&d);
	expect_sched(snd.tid, SCHED_BATCH, 0);
	expect_sched(ehci.tid, SCHED_FIFO, 84);
	ck_assert_uint_eq(log_count_lines("(snd_hda_intel)"), 0);
}
END_TEST

START_TEST(test_no_rules)
{
	daemon_start("[Default]\nNice=10\n");
	irq_apply(&d);
	expect_sched(snd.tid, SCHED_BATCH, 0);
	/* no rules: /proc is not even read */
	d.args.proc = "/nonexistent/proc";
	irq_apply(&d);
	ck_assert_uint_eq(log_count_lines("Failed to list IRQ threads"), 0);
	d.args.proc = fixture_proc;
}
END_TEST

START_TEST(test_proc_unreadable)
{
	daemon_start(POLICY);
	d.args.proc = "/nonexistent/proc";
	irq_apply(&d);
	ck_assert_uint_eq(log_count_lines("Failed to list IRQ threads: No such file or directory"),
			  1);
	d.args.proc = fixture_proc;
}
END_TEST

START_TEST(test_kmod_takes_rules)
{
	daemon_start(POLICY);
	kmod_load();
	irq_apply(&d);
	ck_assert(d.irq_kmod);
	ck_assert_str_eq(kmod_written(), "-\nsnd* 90\nehci_hcd 84\n");
	/* the module applies them, not realtimed */
	expect_sched(snd.tid, SCHED_BATCH, 0);
	ck_assert_uint_eq(log_count_lines("Handed 2 [IRQ] rules to realtime.ko"), 1);

	/* a reload (which applies the rules) hands the new set, said once */
	fixture_write(fixture_conf, "[Default]\nNice=10\n\n[IRQ]\nsnd*=70\n");
	ck_assert_int_eq(manager_reload(&d, NULL), 0);
	ck_assert_str_eq(kmod_written(), "-\nsnd* 70\n");
	ck_assert_uint_eq(log_count_lines("rules to realtime.ko"), 1);

	/* no rules: the module's set is emptied */
	fixture_write(fixture_conf, "[Default]\nNice=10\n");
	ck_assert_int_eq(manager_reload(&d, NULL), 0);
	ck_assert_str_eq(kmod_written(), "-\n");

	/* the module unloaded: realtimed applies them itself */
	fixture_write(fixture_conf, POLICY);
	ck_assert_int_eq(unlink(kmod_rules), 0);
	ck_assert_int_eq(manager_reload(&d, NULL), 0);
	ck_assert(!d.irq_kmod);
	expect_sched(snd.tid, SCHED_FIFO, 90);
}
END_TEST

/* A pattern with a blank has no room in the module's line format:
 * realtimed applies the rules itself, and says why. */
START_TEST(test_kmod_cannot_take_blank)
{
	daemon_start("[Default]\nNice=10\n\n[IRQ]\nsnd*=90\nPCIe PME=40\n");
	kmod_load();
	irq_apply(&d);
	ck_assert(!d.irq_kmod);
	expect_sched(snd.tid, SCHED_FIFO, 90);
	ck_assert_uint_eq(log_count_lines("Failed to hand [IRQ] rules to realtime.ko"), 1);
	ck_assert_uint_eq(log_count_lines("applying them from the daemon instead"), 1);
}
END_TEST

/* More rules than one write to the module holds: the same. */
START_TEST(test_kmod_cannot_take_many)
{
	char *policy = malloc(16384);
	size_t n;

	ck_assert_ptr_nonnull(policy);
	n = (size_t)sprintf(policy, "[Default]\nNice=10\n\n[IRQ]\nsnd*=90\n");
	for (int i = 0; i < 300; i++)
		n += (size_t)sprintf(policy + n, "device_number_%03d=50\n", i);
	daemon_start(policy);
	free(policy);
	kmod_load();
	irq_apply(&d);
	ck_assert(!d.irq_kmod);
	expect_sched(snd.tid, SCHED_FIFO, 90);
	ck_assert_uint_eq(log_count_lines("Failed to hand [IRQ] rules to realtime.ko"), 1);
}
END_TEST

/*
 * realtime.ko held the rules; a reload brings rules it cannot take, and
 * realtimed applies them itself from now on. The module must not go on
 * applying the old set to IRQ threads that appear later (with snd*=90
 * still in it, a USB audio interface plugged in runs FIFO 90 although the
 * policy says 70; a rule the policy dropped stays in force): realtimed
 * empties the module's set ("-") when it takes over.
 */
START_TEST(test_kmod_fallback_clears_module)
{
	daemon_start(POLICY);
	kmod_load();
	irq_apply(&d);
	ck_assert(d.irq_kmod);
	ck_assert_str_eq(kmod_written(), "-\nsnd* 90\nehci_hcd 84\n");

	fixture_write(fixture_conf, "[Default]\nNice=10\n\n[IRQ]\nsnd*=70\nPCIe PME=40\n");
	ck_assert_int_eq(manager_reload(&d, NULL), 0);
	ck_assert(!d.irq_kmod);
	expect_sched(snd.tid, SCHED_FIFO, 70);
	ck_assert_msg(streq(kmod_written(), "-\n"),
		      "realtime.ko keeps the old rules (snd* 90, ehci_hcd 84) after realtimed "
		      "took the [IRQ] rules over");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon-irq");
	TCase *tc;

	if (!fixture_private_proc_allowed())
		return 77;
	tc = check_add_case(s, "irq",
			    CHECK_TESTS(test_rules_applied, test_thread_at_its_priority_left_alone,
					test_no_rules, test_proc_unreadable, test_kmod_takes_rules,
					test_kmod_cannot_take_blank, test_kmod_cannot_take_many,
					test_kmod_fallback_clears_module));
	tcase_add_checked_fixture(tc, setup, teardown);
	return check_run_forked(s, "each test has a private /proc of its own");
}
