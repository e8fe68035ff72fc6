// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for common/policy.c, the Policy that loading fills: its [IRQ]
 * rules (first match in load order, a later line replacing in place), and
 * the library end to end on the policy realtimed ships and on the examples
 * of realtime.conf(5).
 */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "check-main.h"
#include "macro.h"
#include "policy-fixture.h"
#include "policy.h"

/* Which rule of test_irq_rules' file each IRQ name matches (NULL: none). */
static const struct {
	const char *irq, *pattern;
	int priority;
} matches[] = {
	/* The first match in order wins, not the most specific one. */
	{ "snd_hda_intel", "snd*", 90 },
	{ "xhci_hcd", "xhci_hcd", 85 },
	{ "i8042", "i8042", 80 },
	{ "eth0", "eth?", 60 },
	/* Whole-name match, case-sensitive. */
	{ "xhci_hcd:usb1" },
	{ "i8042x" },
	{ "SND_hda" },
	{ "eth10" },
	{ "nvme0q1" },
	{ "" },
};

START_TEST(test_irq_rules)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	const PolicyIrqRule *r;

	p = load_text("[IRQ]\n"
		      "snd*=90\n"
		      "snd_hda*=70\n"
		      "xhci_hcd=85\n"
		      "i8042 = 80\n"
		      "eth?=60\n",
		      &path);
	assert_no_errors(p);
	ck_assert_uint_eq(policy_n_irq_rules(p), 5);
	r = policy_irq_rule(p, 0);
	ck_assert_str_eq(r->pattern, "snd*");
	ck_assert_int_eq(r->priority, 90);
	ck_assert_str_eq(r->source.file, path);
	ck_assert_uint_eq(r->source.line, 2);
	ck_assert_str_eq(r->source.section, "IRQ");
	ck_assert_str_eq(policy_irq_rule(p, 3)->pattern, "i8042");
	ck_assert_uint_eq(policy_irq_rule(p, 3)->source.line, 5);
	ck_assert_ptr_null(policy_irq_rule(p, 5));

	for (size_t i = 0; i < ELEMENTSOF(matches); i++) {
		r = policy_irq_match(p, matches[i].irq);
		if (!matches[i].pattern) {
			ck_assert_msg(!r, "%s matches %s", matches[i].irq, r->pattern);
			continue;
		}
		ck_assert_msg(r, "%s matches no rule", matches[i].irq);
		ck_assert_str_eq(r->pattern, matches[i].pattern);
		ck_assert_int_eq(r->priority, matches[i].priority);
	}
}
END_TEST

START_TEST(test_irq_later_file_replaces_in_place)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *f[2];
	const PolicyIrqRule *r;

	f[0] = write_file("1.conf", "[IRQ]\nsnd*=90\nxhci_hcd=85\n");
	f[1] = write_file("2.conf", "# override\n[IRQ]\nsnd_usb*=95\nsnd*=60\n");
	p = load_files(f, 2);
	assert_no_errors(p);
	ck_assert_uint_eq(policy_n_irq_rules(p), 3);
	/* snd* keeps its place (first), with the later file's priority and source. */
	r = policy_irq_rule(p, 0);
	ck_assert_str_eq(r->pattern, "snd*");
	ck_assert_int_eq(r->priority, 60);
	ck_assert_str_eq(r->source.file, f[1]);
	ck_assert_uint_eq(r->source.line, 4);
	ck_assert_str_eq(policy_irq_rule(p, 1)->pattern, "xhci_hcd");
	ck_assert_str_eq(policy_irq_rule(p, 2)->pattern, "snd_usb*");
	ck_assert_int_eq(policy_irq_rule(p, 2)->priority, 95);
	/* So snd_usb_audio still matches snd* first. */
	ck_assert_int_eq(policy_irq_match(p, "snd_usb_audio")->priority, 60);
	ck_assert_ptr_eq(policy_irq_match(p, "snd_usb_audio"), policy_irq_rule(p, 0));
}
END_TEST

/* The shipped default policy must load cleanly and say what DESIGN.md says. */
START_TEST(test_shipped_policy)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	_cleanup_free_ char *text = NULL;
	const char *top = getenv("TOP_SRCDIR");
	char path[PATH_MAX];
	const char *f;
	const gid_t audio[] = { 4101, 29 }, plain[] = { 4102 };
	PolicyGrant g;
	FILE *in;
	size_t n;

	ck_assert_msg(top, "TOP_SRCDIR not set (run through meson test)");
	snprintf(path, sizeof(path), "%s/policy/realtime.conf", top);
	/* A copy of our own: the source tree may belong to another user than
	 * the one running the tests (root), or be group-writable. */
	in = fopen(path, "re");
	ck_assert_msg(in, "fopen(%s): %m", path);
	text = calloc(1, 1 << 16);
	ck_assert_ptr_nonnull(text);
	n = fread(text, 1, (1 << 16) - 1, in);
	ck_assert(feof(in) && n > 0);
	fclose(in);
	f = write_file("realtime.conf", text);
	p = load_files(&f, 1);
	assert_no_errors(p);

	eval(p, "rtplain", 4102, plain, 1, &g);
	ck_assert(!g.covered);
	ck_assert_int_eq(g.realtime_priority, 20);
	ck_assert_uint_eq(g.policies, POLICY_SCHED_RR);
	ck_assert_int_eq(g.nice, -15);
	ck_assert_uint_eq(g.rttime_usec, 200000);
	ck_assert_uint_eq(g.compat_policy, POLICY_SCHED_RR);

	eval(p, "rtaudio", 4101, audio, 2, &g);
	ck_assert(g.covered);
	ck_assert_int_eq(g.realtime_priority, 95);
	ck_assert_uint_eq(g.policies, POLICY_SCHED_FIFO | POLICY_SCHED_RR);
	ck_assert_int_eq(g.nice, -19);
	ck_assert_uint_eq(g.memlock, POLICY_INFINITY);
	ck_assert_uint_eq(g.rttime_usec, POLICY_INFINITY);
	ck_assert_uint_eq(g.capabilities, 0);
	ck_assert_uint_eq(g.compat_policy, POLICY_SCHED_FIFO);
	ck_assert_int_eq(policy_irq_match(p, "snd_hda_intel:card0")->priority, 90);
}
END_TEST

/* The EXAMPLES of realtime.conf(5), so the manual cannot drift from the code. */
START_TEST(test_man_examples)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	PolicyPaths paths = tree_paths();
	const char *alice;
	gid_t gids[3] = { 4103 };
	PolicyGrant g;

	gids[1] = audio_gid();
	gids[2] = 5000;

	write_file("usr/realtime.conf", "[Default]\n"
					"RealtimePriority=20\n"
					"Policies=rr\n"
					"Nice=-15\n"
					"MemLock=64M\n"
					"RTTime=200ms\n"
					"\n"
					"[Group audio]\n"
					"RealtimePriority=95\n"
					"Policies=fifo rr\n"
					"CompatPolicy=fifo\n"
					"Nice=-19\n"
					"MemLock=infinity\n"
					"RTTime=infinity\n"
					"\n"
					"[IRQ]\n"
					"snd*=90\n"
					"xhci_hcd=85\n");
	alice = write_file("etc/realtime.conf.d/50-alice.conf",
			   "[User alice]\nRealtimePriority=99\nMemLock=4G\n");
	write_file("etc/realtime.conf.d/60-ldap.conf", "[Group #5000]\n"
						       "RealtimePriority=90\n"
						       "Policies=fifo\n"
						       "\n"
						       "[Default]\n"
						       "RealtimePriority=0\n");
	write_file("etc/realtime.conf.d/70-irq.conf", "[IRQ]\nsnd*=80\nsnd_usb_audio=95\n");
	ck_assert_int_eq(policy_load(&paths, &p), 0);
	assert_no_errors(p);

	/* alice, in audio: 99 and 4G from her file, the rest from [Group audio]. */
	eval(p, "alice", 4103, gids, 2, &g);
	ck_assert_int_eq(g.realtime_priority, 99);
	assert_source(&g, POLICY_KEY_REALTIME_PRIORITY, alice, 2, "User alice");
	ck_assert_uint_eq(g.memlock, UINT64_C(4) << 30);
	ck_assert_uint_eq(g.policies, POLICY_SCHED_FIFO | POLICY_SCHED_RR);
	ck_assert_int_eq(g.nice, -19);
	ck_assert_uint_eq(g.rttime_usec, POLICY_INFINITY);
	ck_assert_uint_eq(g.compat_policy, POLICY_SCHED_FIFO);

	/* A member of audio and of group 5000: 95, fifo rr. */
	eval(p, "rtaudio", 4101, gids + 1, 2, &g);
	ck_assert_int_eq(g.realtime_priority, 95);
	ck_assert_uint_eq(g.policies, POLICY_SCHED_FIFO | POLICY_SCHED_RR);
	/* Only group 5000: 90, fifo; the default RTTime still applies. */
	eval(p, "x", 4102, gids + 2, 1, &g);
	ck_assert_int_eq(g.realtime_priority, 90);
	ck_assert_uint_eq(g.policies, POLICY_SCHED_FIFO);
	ck_assert_uint_eq(g.rttime_usec, 200000);
	/* Anyone else: no realtime. */
	eval(p, "x", 4102, NULL, 0, &g);
	ck_assert_int_eq(g.realtime_priority, 0);

	/* snd*=80 replaced the vendor line in place; snd_usb_audio=95 never matches. */
	ck_assert_int_eq(policy_irq_match(p, "snd_hda_intel:card0")->priority, 80);
	ck_assert_int_eq(policy_irq_match(p, "snd_usb_audio")->priority, 80);
	ck_assert_int_eq(policy_irq_match(p, "xhci_hcd")->priority, 85);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("policy");

	policy_test_case(s, "irq",
			 CHECK_TESTS(test_irq_rules, test_irq_later_file_replaces_in_place));
	policy_test_case(s, "documents", CHECK_TESTS(test_shipped_policy, test_man_examples));
	return policy_test_run(s);
}
