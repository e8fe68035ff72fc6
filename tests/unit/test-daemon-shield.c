// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for daemon/shield.c and what it drives (shield-move.c,
 * shield-record.c), on shield-fixture.c's fake machine:
 *   - Shield=auto takes the highest core (1,3): every IRQ that reaches it
 *     moves to its CPUs off it (or to the rest), the sound cards' IRQs (an
 *     HDA controller's INTx line shared with ehci, a USB interface's xHCI
 *     MSI vector) stay and are listed, as are those [IRQ] rules and
 *     ShieldKeep= name; the default affinity and the workqueues follow;
 *     a record is written; 3 s after the last grant ends everything is
 *     back and the record gone;
 *   - a value changed by hand meanwhile is left, and logged;
 *   - a crash (the shield freed without a give-back): the next start
 *     gives back from the record, but not an IRQ whose number names
 *     another device now;
 *   - a setting that leaves the rest no whole core is refused, logged
 *     once, and changes nothing;
 *   - an IRQ the kernel will not move (EIO, as for a managed one) is
 *     listed, not recorded;
 *   - ShieldGovernor= sets the governor, or the preference where the
 *     driver has no such governor, and gives each CPU its own back;
 *   - a reload to other CPUs takes the shield anew; a device added while
 *     held is shielded after the settle time; the daemon's shield follows
 *     its grant table (manager.c), nice-level grants not counted.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check-main.h"
#include "daemon-fixture.h"
#include "log-fixture.h"
#include "manager.h"
#include "shield-fixture.h"
#include "shield-move.h"
#include "shield.h"

/* EIO for IRQ 24's affinity: the kernel's answer for a managed IRQ. */
int __real_shield_file_write(const char *root, const char *rel, const char *value);
int __wrap_shield_file_write(const char *root, const char *rel, const char *value);
static bool managed_24;

int __wrap_shield_file_write(const char *root, const char *rel, const char *value)
{
	if (managed_24 && streq(rel, "irq/24/smp_affinity_list"))
		return -EIO;
	return __real_shield_file_write(root, rel, value);
}

static sd_event *event;

static void setup(void)
{
	shield_fixture_setup();
	log_capture();
	managed_24 = false;
	ck_assert_int_ge(sd_event_new(&event), 0);
}

static void teardown(void)
{
	event = sd_event_unref(event);
	shield_fixture_teardown();
}

static Shield *new_shield(void)
{
	Shield *s = NULL;

	ck_assert_int_eq(shield_new(event, &shield_roots, &s), 0);
	return s;
}

/* Runs the loop for usec. */
static void run_for(uint64_t usec)
{
	uint64_t end = now_usec(CLOCK_MONOTONIC) + usec;

	while (now_usec(CLOCK_MONOTONIC) < end)
		ck_assert_int_ge(sd_event_run(event, (end - now_usec(CLOCK_MONOTONIC))), 0);
}

static const ShieldLeft *left_of(const ShieldStatus *st, unsigned irq)
{
	for (size_t i = 0; i < st->n_left; i++)
		if (st->left[i].irq == irq)
			return &st->left[i];
	return NULL;
}

static void assert_given_back(void)
{
	ck_assert_str_eq(shield_fixture_affinity(0), "0");
	ck_assert_str_eq(shield_fixture_affinity(16), "0-3");
	ck_assert_str_eq(shield_fixture_affinity(24), "0-3");
	ck_assert_str_eq(shield_fixture_affinity(25), "3");
	ck_assert_str_eq(shield_fixture_affinity(40), "0-3");
	ck_assert_str_eq(shield_fixture_read(shield_roots.proc, "irq/default_smp_affinity"), "f");
	ck_assert_str_eq(shield_fixture_read(shield_roots.sys, "devices/virtual/workqueue/cpumask"),
			 "f");
	ck_assert(!shield_fixture_record_exists());
}

START_TEST(test_take_and_give_back)
{
	_cleanup_(policy_freep) Policy *p = shield_fixture_policy("[Daemon]\nShield=auto\n");
	Shield *s = new_shield();
	ShieldStatus st;
	const ShieldLeft *l;

	shield_update(s, p, NULL, false);
	shield_status(s, &st);
	ck_assert_int_eq(st.state, SHIELD_RELEASED);
	ck_assert(!shield_fixture_record_exists());

	shield_update(s, p, NULL, true);
	shield_status(s, &st);
	ck_assert_int_eq(st.state, SHIELD_HELD);
	ck_assert_str_eq(st.cpus, "1,3");
	ck_assert_uint_eq(st.moved, 3);
	ck_assert_str_eq(shield_fixture_affinity(0), "0");
	ck_assert_str_eq(shield_fixture_affinity(24), "0,2");
	ck_assert_str_eq(shield_fixture_affinity(25), "0,2");
	ck_assert_str_eq(shield_fixture_affinity(40), "0,2");
	/* the audio devices' own stay, and are said to */
	ck_assert_str_eq(shield_fixture_affinity(16), "0-3");
	ck_assert_str_eq(shield_fixture_affinity(30), "0-3");
	ck_assert_uint_eq(st.n_left, 2);
	l = left_of(&st, 16);
	ck_assert_ptr_nonnull(l);
	ck_assert_str_eq(l->name, "ehci_hcd:usb1");
	ck_assert_str_eq(l->why, "kept: a sound card's device");
	ck_assert_ptr_nonnull(left_of(&st, 30));
	ck_assert_str_eq(shield_fixture_read(shield_roots.proc, "irq/default_smp_affinity"), "5");
	ck_assert_str_eq(shield_fixture_read(shield_roots.sys, "devices/virtual/workqueue/cpumask"),
			 "5");
	ck_assert(shield_fixture_record_exists());
	ck_assert_str_eq(st.problem, "");

	/* the last grant ends: held a while longer, so a restart does not flap it */
	shield_update(s, p, NULL, false);
	shield_status(s, &st);
	ck_assert_int_eq(st.state, SHIELD_LINGERING);
	ck_assert_str_eq(shield_fixture_affinity(24), "0,2");
	run_for(SHIELD_LINGER_USEC / 2);
	/* a grant again within the time: no flap */
	shield_update(s, p, NULL, true);
	run_for(SHIELD_LINGER_USEC / 2 + 500000);
	shield_status(s, &st);
	ck_assert_int_eq(st.state, SHIELD_HELD);
	ck_assert_str_eq(shield_fixture_affinity(24), "0,2");

	shield_update(s, p, NULL, false);
	run_for(SHIELD_LINGER_USEC + 300000);
	shield_status(s, &st);
	ck_assert_int_eq(st.state, SHIELD_RELEASED);
	ck_assert_str_eq(st.cpus, "");
	assert_given_back();
	ck_assert_uint_eq(log_count_lines("given back"), 2);
	shield_free(s);
}
END_TEST

START_TEST(test_changed_by_hand_is_left)
{
	_cleanup_(policy_freep) Policy *p = shield_fixture_policy("[Daemon]\nShield=auto\n");
	_cleanup_(policy_freep) Policy *none = shield_fixture_policy("[Daemon]\nShield=none\n");
	Shield *s = new_shield();
	ShieldStatus st;

	shield_update(s, p, NULL, true);
	ck_assert_str_eq(shield_fixture_affinity(25), "0,2");
	shield_fixture_irq(25, "eth0-rx-0", "2", "2");
	shield_fixture_write(shield_roots.proc, "irq/default_smp_affinity", "3\n");
	/* a reload that unsets Shield= gives back at once */
	shield_update(s, none, NULL, true);
	shield_status(s, &st);
	ck_assert_int_eq(st.state, SHIELD_UNSET);
	ck_assert_str_eq(shield_fixture_affinity(25), "2");
	ck_assert_str_eq(shield_fixture_read(shield_roots.proc, "irq/default_smp_affinity"), "3");
	ck_assert_str_eq(shield_fixture_affinity(24), "0-3");
	ck_assert_uint_eq(log_count_lines("Left IRQ 25 (eth0-rx-0) at 2: someone changed it"), 1);
	ck_assert_uint_eq(log_count_lines("Left the default IRQ affinity at 3"), 1);
	ck_assert(!shield_fixture_record_exists());
	shield_free(s);
}
END_TEST

START_TEST(test_crash_recovery)
{
	_cleanup_(policy_freep) Policy *p = shield_fixture_policy("[Daemon]\nShield=auto\n");
	Shield *s = new_shield();

	shield_update(s, p, NULL, true);
	ck_assert_str_eq(shield_fixture_affinity(40), "0,2");
	/* killed: nothing given back */
	shield_free(s);
	ck_assert(shield_fixture_record_exists());
	ck_assert_str_eq(shield_fixture_affinity(24), "0,2");
	/* meanwhile IRQ 40 went, and its number came back for another device */
	shield_fixture_irq(40, "virtio3-config", "0,2", "0");

	s = new_shield();
	shield_recover(s);
	ck_assert_str_eq(shield_fixture_affinity(24), "0-3");
	ck_assert_str_eq(shield_fixture_affinity(25), "3");
	ck_assert_str_eq(shield_fixture_affinity(40), "0,2");
	ck_assert_uint_eq(log_count_lines("Left IRQ 40 (i8042) alone"), 1);
	ck_assert_str_eq(shield_fixture_read(shield_roots.proc, "irq/default_smp_affinity"), "f");
	ck_assert(!shield_fixture_record_exists());
	/* and nothing is left to give back a second time */
	shield_recover(s);
	shield_free(s);
}
END_TEST

START_TEST(test_refused)
{
	_cleanup_(policy_freep) Policy *p = shield_fixture_policy("[Daemon]\nShield=1-3\n");
	Shield *s = new_shield();
	ShieldStatus st;

	shield_update(s, p, NULL, true);
	shield_update(s, p, NULL, true);
	shield_status(s, &st);
	ck_assert_int_eq(st.state, SHIELD_REFUSED);
	ck_assert_msg(strstr(st.problem, "shielding CPUs 1-3 would leave the rest of the machine "
					 "(CPUs 0) no whole core"),
		      "%s", st.problem);
	ck_assert_uint_eq(log_count_lines("Not shielding CPUs"), 1);
	assert_given_back();
	shield_update(s, p, NULL, false);
	shield_status(s, &st);
	ck_assert_int_eq(st.state, SHIELD_RELEASED);
	shield_free(s);
}
END_TEST

START_TEST(test_managed_irq_is_listed)
{
	_cleanup_(policy_freep) Policy *p = shield_fixture_policy("[Daemon]\nShield=auto\n");
	Shield *s = new_shield();
	ShieldStatus st;
	const ShieldLeft *l;

	managed_24 = true;
	shield_update(s, p, NULL, true);
	shield_status(s, &st);
	ck_assert_int_eq(st.state, SHIELD_HELD);
	ck_assert_uint_eq(st.moved, 2);
	l = left_of(&st, 24);
	ck_assert_ptr_nonnull(l);
	ck_assert_str_eq(l->name, "nvme0q1");
	ck_assert_msg(strstr(l->why, "not moved: the kernel refuses to move it (a managed IRQ"),
		      "%s", l->why);
	shield_stop(s);
	ck_assert_uint_eq(log_count_lines("IRQ 24"), 0);
	shield_free(s);
}
END_TEST

START_TEST(test_rules_and_keep)
{
	_cleanup_(policy_freep) Policy *p = shield_fixture_policy(
		"[IRQ]\ni8042=80\n[Daemon]\nShield=auto\nShieldKeep=eth0-*\n");
	Shield *s = new_shield();
	ShieldStatus st;

	shield_update(s, p, NULL, true);
	shield_status(s, &st);
	ck_assert_uint_eq(st.moved, 1);
	ck_assert_str_eq(shield_fixture_affinity(24), "0,2");
	ck_assert_str_eq(shield_fixture_affinity(25), "3");
	ck_assert_str_eq(shield_fixture_affinity(40), "0-3");
	ck_assert_str_eq(left_of(&st, 40)->why, "kept: [IRQ] i8042");
	ck_assert_str_eq(left_of(&st, 25)->why, "kept: ShieldKeep=eth0-*");
	shield_stop(s);
	assert_given_back();
	shield_free(s);
}
END_TEST

START_TEST(test_governor)
{
	_cleanup_(policy_freep) Policy *p =
		shield_fixture_policy("[Daemon]\nShield=auto\nShieldGovernor=performance\n");
	const char *sys = shield_roots.sys;
	Shield *s = new_shield();

	/* CPU 1's driver has no such governor, but a preference of that name */
	shield_fixture_write(sys, "devices/system/cpu/cpu1/cpufreq/scaling_available_governors",
			     "powersave\n");
	shield_fixture_write(
		sys, "devices/system/cpu/cpu1/cpufreq/energy_performance_available_preferences",
		"default performance balance_power\n");
	shield_fixture_write(sys, "devices/system/cpu/cpu1/cpufreq/energy_performance_preference",
			     "balance_power\n");
	shield_update(s, p, NULL, true);
	ck_assert_str_eq(
		shield_fixture_read(sys, "devices/system/cpu/cpu3/cpufreq/scaling_governor"),
		"performance");
	ck_assert_str_eq(
		shield_fixture_read(
			sys, "devices/system/cpu/cpu1/cpufreq/energy_performance_preference"),
		"performance");
	ck_assert_str_eq(
		shield_fixture_read(sys, "devices/system/cpu/cpu0/cpufreq/scaling_governor"),
		"schedutil");
	shield_stop(s);
	ck_assert_str_eq(
		shield_fixture_read(sys, "devices/system/cpu/cpu3/cpufreq/scaling_governor"),
		"schedutil");
	ck_assert_str_eq(
		shield_fixture_read(
			sys, "devices/system/cpu/cpu1/cpufreq/energy_performance_preference"),
		"balance_power");
	shield_free(s);
}
END_TEST

START_TEST(test_reload_and_devices)
{
	_cleanup_(policy_freep) Policy *p = shield_fixture_policy("[Daemon]\nShield=auto\n");
	_cleanup_(policy_freep) Policy *two = shield_fixture_policy("[Daemon]\nShield=2\n");
	Shield *s = new_shield();
	ShieldStatus st;

	shield_update(s, p, NULL, true);
	shield_update(s, two, NULL, true);
	shield_status(s, &st);
	ck_assert_str_eq(st.cpus, "2");
	ck_assert_str_eq(shield_fixture_affinity(24), "0-1,3");
	ck_assert_str_eq(shield_fixture_affinity(25), "3");

	/* a device appears with its IRQ on the shield */
	shield_fixture_irq(50, "virtio0-input.1", "2", "2");
	shield_uevent(s, "change@/devices/virtual/net/eth0");
	run_for(SHIELD_SETTLE_USEC + 200000);
	ck_assert_str_eq(shield_fixture_affinity(50), "2");
	shield_uevent(s, "add@/devices/pci0000:00/0000:00:05.0/virtio0");
	shield_uevent(s, "bind@/devices/pci0000:00/0000:00:05.0/virtio0");
	run_for(SHIELD_SETTLE_USEC + 200000);
	ck_assert_str_eq(shield_fixture_affinity(50), "0-1,3");
	shield_status(s, &st);
	ck_assert_uint_eq(st.moved, 3);
	/* the IRQs that stay are listed once, however often it re-applies */
	ck_assert_uint_eq(st.n_left, 2);

	/* a CPU back online: what the kernel placed on the shield meanwhile
	 * moves off too; another device's event does not re-apply */
	shield_fixture_irq(51, "eth1-rx-0", "2", "2");
	shield_uevent(s, "change@/devices/system/cpu/cpu1");
	run_for(SHIELD_SETTLE_USEC + 200000);
	ck_assert_str_eq(shield_fixture_affinity(51), "2");
	shield_uevent(s, "online@/devices/system/cpu/cpu1");
	run_for(SHIELD_SETTLE_USEC + 200000);
	ck_assert_str_eq(shield_fixture_affinity(51), "0-1,3");
	shield_status(s, &st);
	ck_assert_uint_eq(st.moved, 4);

	shield_stop(s);
	assert_given_back();
	ck_assert_str_eq(shield_fixture_affinity(50), "2");
	ck_assert_str_eq(shield_fixture_affinity(51), "2");
	shield_free(s);
}
END_TEST

/* The daemon's: manager.c's grant-table callback and reload drive it. */
START_TEST(test_daemon_follows_grants)
{
	const SchedState before = { .policy = SCHED_OTHER };
	Grant *g = NULL;
	Daemon d;
	ShieldStatus st;

	fixture_setup();
	fixture_write(fixture_conf, "[Default]\nNice=10\n[Daemon]\nShield=auto\n");
	fixture_daemon_init(&d, NULL);
	ck_assert_int_eq(shield_new(d.event, &shield_roots, &d.shield), 0);
	fixture_stat(getpid(), gettid(), 7);
	manager_apply_settings(&d);
	shield_status(d.shield, &st);
	ck_assert_int_eq(st.state, SHIELD_RELEASED);

	fixture_grant(&d, gettid(), 7, 10);
	shield_status(d.shield, &st);
	ck_assert_int_eq(st.state, SHIELD_RELEASED);
	ck_assert_int_eq(grant_table_add(d.grants, getpid(), 1, getuid(), -EBADF, gettid(), 7,
					 POLICY_GRANT_FIFO, 10, &before, 0, &g),
			 0);
	shield_status(d.shield, &st);
	ck_assert_int_eq(st.state, SHIELD_HELD);
	ck_assert_str_eq(shield_fixture_affinity(24), "0,2");
	grant_table_remove(d.grants, g);
	shield_status(d.shield, &st);
	ck_assert_int_eq(st.state, SHIELD_LINGERING);

	shield_stop(d.shield);
	d.shield = shield_free(d.shield);
	assert_given_back();
	fixture_daemon_fini(&d);
	fixture_teardown();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon-shield");
	TCase *tc;

	tc = check_add_case(s, "shield",
			    CHECK_TESTS(test_take_and_give_back, test_changed_by_hand_is_left,
					test_crash_recovery, test_refused,
					test_managed_irq_is_listed, test_rules_and_keep,
					test_governor, test_reload_and_devices,
					test_daemon_follows_grants));
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	return check_run(s);
}
