// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for common/policy-parse.c: the syntax of realtime.conf(5)
 * (blanks, comments, section headers, a last line without newline, a
 * byte order mark) and the rejection of a broken file, whole, with the
 * file:line of its first problem and words that say what is wrong.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check-main.h"
#include "macro.h"
#include "policy-fixture.h"
#include "policy.h"

/* Texts that parse, and what one user then gets. */
static const struct {
	const char *text;
	EvalCase eval;
} parsed[] = {
	/* Comments (# and ;, whole-line and after a value), blank lines,
	 * spaces around '=' and inside the section header, CRLF line ends. */
	{ "; a comment\r\n"			/* 1 */
	  "   # an indented comment\n"		/* 2 */
	  "\n"					/* 3 */
	  "[Default]   # trailing comment\n"	/* 4 */
	  "RealtimePriority = 20   # the max\n" /* 5 */
	  "Nice=-15 ; semicolon comment\n"	/* 6 */
	  "MemLock=64M\r\n"			/* 7 */
	  "[Group  #29]\n"			/* 8 */
	  "Policies=fifo   rr\n",		/* 9 */
	  { "x",
	    1,
	    { 29 },
	    1,
	    1,
	    { { "Default", POLICY_KEY_REALTIME_PRIORITY, 20, 5 },
	      { "Default", POLICY_KEY_NICE, -15, 6 },
	      { "Default", POLICY_KEY_MEMLOCK, INT64_C(64) << 20, 7 },
	      { "", POLICY_KEY_POLICIES, POLICY_SCHED_FIFO | POLICY_SCHED_RR, 9 } } } },
	/* A last line without newline. */
	{ "[Default]\nRealtimePriority=42",
	  { "x", 1, {}, 0, -1, { { "Default", POLICY_KEY_REALTIME_PRIORITY, 42, 2 } } } },
	/* A UTF-8 byte order mark from a Windows editor is tolerated. */
	{ "\xef\xbb\xbf[Default]\nNice=-8\n",
	  { "x", 1, {}, 0, -1, { { "Default", POLICY_KEY_NICE, -8, 2 } } } },
	/* Blanks around names and values are ignored: spaces, tabs, CR, and
	 * vertical tab and form feed. A key name is measured without them. */
	{ "\f[ Default ]\v\r\n"
	  "\tNice\v=\f-5\r\n"
	  "RealtimePriority                                        = 7\n"
	  "MemLock=1M\f# comment after a form feed\n",
	  { "nobody",
	    4242,
	    {},
	    0,
	    -1,
	    { { "", POLICY_KEY_NICE, -5 },
	      { "", POLICY_KEY_REALTIME_PRIORITY, 7 },
	      { "", POLICY_KEY_MEMLOCK, 1024 * 1024 } } } },
};

START_TEST(test_parsed)
{
	assert_evals(parsed[_i].text, &parsed[_i].eval, 1);
}
END_TEST

START_TEST(test_section_header_spaces)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	const gid_t gids[] = { 29 };
	PolicyGrant g;

	/* Spaces just inside the brackets: either harmless, as around '=', or
	 * an error at the header line that names the section; never an error
	 * blamed on the key line below it. */
	p = load_text("[Default]\nNice=-1\n[ Group #29 ]\nNice=-2\n", &path);
	if (policy_n_errors(p) > 0) {
		assert_rejected(p, path, 3, "Group #29", NULL);
		return;
	}
	eval(p, "x", 1, NULL, 0, &g);
	ck_assert_int_eq(g.nice, -1);
	eval(p, "x", 1, gids, 1, &g);
	ck_assert_int_eq(g.nice, -2);
	ck_assert_uint_eq(g.source[POLICY_KEY_NICE].line, 4);
}
END_TEST

/* Texts rejected whole: each at its line, its message naming the word
 * (NULL: any message). */
static const struct {
	const char *text;
	unsigned line;
	const char *word;
} rejected[] = {
	/* Unknown section names, even with no keys under them. */
	{ "[Default]\nRealtimePriority=20\n\n[Gruop audio]\nNice=-5\n", 4, "Gruop audio" },
	{ "[Default]\nRealtimePriority=20\n[Users alice]\n", 3, "Users alice" },
	/* Section names are case-sensitive. */
	{ "[default]\nRealtimePriority=20\n", 1, "default" },
	{ "[Default]\nNice=-1\n[Default extra]\nNice=-2\n", 3, "Default extra" },
	{ "[Default]\nNice=-1\n[Group]\nNice=-2\n", 3, "Group" },
	{ "[Default]\nNice=-1\n[User ]\nNice=-2\n", 3, "User" },
	{ "[Default]\nNice=-1\n[Group two words]\nNice=-2\n", 3, NULL },
	/* Numeric ids that are no number or out of range. */
	{ "[Default]\nNice=-1\n[User #abc]\nNice=-2\n", 3, NULL },
	{ "[Default]\nNice=-1\n[User #]\nNice=-2\n", 3, NULL },
	{ "[Default]\nNice=-1\n[Group #-5]\nNice=-2\n", 3, NULL },
	{ "[Default]\nNice=-1\n[Group #4294967296]\nNice=-2\n", 3, NULL },
	/* (uid_t)-1 is no user. */
	{ "[Default]\nNice=-1\n[User #4294967295]\nNice=-2\n", 3, NULL },
	{ "# policy\n[Default]\nRealtimePriority=20\nRealtimePriorty=5\n", 4, "RealtimePriorty" },
	/* Keys are case-sensitive. */
	{ "[Default]\nnice=-5\n", 2, "nice" },
	/* A [Daemon] key where policy keys belong and the other way round. */
	{ "[Default]\nRealtimePriority=20\nCanary=no\n", 3, "Canary" },
	{ "[Daemon]\nCanary=no\nRealtimePriority=20\n", 3, "RealtimePriority" },
	{ "[Group #29]\nRealtimePriority=20\nBurstSec=3\n", 3, "BurstSec" },
	{ "[Default]\n=5\n", 2, NULL },
	/* Values out of range or of the wrong kind. */
	{ "[Default]\nNice=-25\n", 2, "-25" },
	{ "[Default]\nNice=20\n", 2, "Nice" },
	{ "[Default]\nRealtimePriority=100\n", 2, "RealtimePriority" },
	{ "[Default]\nRealtimePriority=-1\n", 2, "RealtimePriority" },
	{ "[Default]\nRealtimePriority=\n", 2, "RealtimePriority" },
	{ "[Default]\nRealtimePriority=high\n", 2, "high" },
	{ "[Group #29]\nPolicies=batch\n", 2, "batch" },
	{ "[User #1]\nMemLock=64MB\n", 2, "64MB" },
	{ "[Default]\nMemLock=17179869184G\n", 2, "MemLock" },
	{ "[Default]\nRTTime=5min\n", 2, "5min" },
	{ "[Default]\nRTTime=-1\n", 2, "RTTime" },
	{ "[Default]\nCapabilities=sys_admin\n", 2, "sys_admin" },
	{ "[Default]\nCompatPolicy=fifo rr\n", 2, "CompatPolicy" },
	{ "[Default]\nCompatPolicy=other\n", 2, "CompatPolicy" },
	{ "[Default]\nCompatPolicy=\n", 2, "CompatPolicy" },
	/* "#" starts a comment only after whitespace: this is a bad value. */
	{ "[Default]\nNice=-5#comment\n", 2, "Nice" },
	/* The line of the first problem, also deep in a file, counting
	 * comments and blank lines. */
	{ "# 1\n"
	  "\n"
	  "[Default]\n"
	  "RealtimePriority=20\n"
	  "; 5\n"
	  "\n"
	  "[Group #29]\n"
	  "RealtimePriority=95\n"
	  "\n"
	  "Nice=-30\n"
	  "MemLock=whatever\n"
	  "Bogus=1\n",
	  10, "-30" },
	/* A key before any section. */
	{ "RealtimePriority=20\n[Default]\nNice=-5\n", 1, "RealtimePriority" },
	{ "# comment\n\nNice=-5\n[Default]\n", 3, "Nice" },
	/* A line that is neither a section, a key nor a comment. */
	{ "[Default]\nRealtimePriority=20\n\ngarbage\nNice=-5\n", 4, NULL },
	/* An unterminated section header. */
	{ "[Default]\nNice=-5\n[Group #29\nNice=-19\n", 3, NULL },
	/* Text after a section header. */
	{ "[Default] Nice=-5\n", 1, NULL },
	/* Only '=' separates: "Key:value" is a mistake, with or without an
	 * '=' later on the line (inih, for one, reads the first as Key=value). */
	{ "[Default]\nRealtimePriority:50\n", 2, "':' instead of '='" },
	{ "[Default]\nNice:x=-5\n", 2, "':'" },
	/* A ';' after a blank starts a comment, so the name is not closed. */
	{ "[Default]\nNice ;x=-5\n", 2, "syntax error" },
	{ "[User ;alice]\nNice=-5\n", 1, "closing" },
	/* INI parsers such as inih read an indented line as the continuation
	 * of the previous value. Values do not continue here: such a line must be rejected
	 * rather than silently replace the value before it (Policies=rr
	 * alone, RealtimePriority=95). */
	{ "[Default]\nPolicies=fifo\n  rr\n", 3, NULL },
	{ "[Default]\nRealtimePriority=20\n  95\n", 3, NULL },
	{ "[IRQ]\nsnd*=90\n\t80\n", 3, NULL },
	/* A byte order mark is tolerated (parsed[]), but does not hide a bad
	 * section header behind it. */
	{ "\xef\xbb\xbf[Gruop audio]\nNice=-8\n", 1, "Gruop audio" },
	{ "\xef\xbb\xbf[Bogus]\n", 1, "Bogus" },
	/* [IRQ] priorities and patterns. */
	{ "[IRQ]\nsnd*=90\nxhci_hcd=100\n", 3, "xhci_hcd" },
	{ "[IRQ]\nsnd*=0\n", 2, "snd*" },
	{ "[IRQ]\nsnd*=\n", 2, "snd*" },
	{ "[IRQ]\nsnd*=high\n", 2, "high" },
	{ "[IRQ]\nsnd*=-5\n", 2, NULL },
	/* An empty pattern matches no IRQ; it is a mistake, not a rule. */
	{ "[IRQ]\n=90\n", 2, NULL },
	/* The message names the pattern as written, ':' included. */
	{ "[IRQ]\nsnd_hda_intel:card0=0\n", 2, "snd_hda_intel:card0" },
};

START_TEST(test_rejected)
{
	assert_text_rejected(rejected[_i].text, rejected[_i].line, rejected[_i].word);
}
END_TEST

START_TEST(test_error_long_line)
{
	char text[512];

	/* A longer line is refused whole: the rest of it must never be read as
	 * a line of its own, so a comment can never turn into a key. */
	snprintf(text, sizeof(text), "[Default]\nRealtimePriority=20\n# %0*dNice=-20\n", 197, 0);
	assert_text_rejected(text, 3, NULL);
	snprintf(text, sizeof(text), "[Default]\nRealtimePriority=20\n# %0*d[User #4101]\n", 197,
		 0);
	assert_text_rejected(text, 3, NULL);
}
END_TEST

START_TEST(test_long_line_limit)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	char text[512];

	/* Lines up to 198 characters (plus the newline) are fine. */
	snprintf(text, sizeof(text), "[Default]\n#%0*d\nNice=-3\n", 197, 0);
	ck_assert_uint_eq(strlen(strchr(text, '#')), 198 + 1 + 8);
	p = load_text(text, NULL);
	assert_no_errors(p);
}
END_TEST

START_TEST(test_error_long_last_line)
{
	char text[512];

	/* The last line has no newline: past the limit it is refused whole, as
	 * the same line with a newline would be. */
	snprintf(text, sizeof(text), "[Default]\nNice=-3\n#%0*d", 198, 0);
	assert_text_rejected(text, 3, "too long");
	snprintf(text, sizeof(text), "[Default]\nNice=-3%*s#", 191, "");
	assert_text_rejected(text, 2, "too long");
}
END_TEST

START_TEST(test_error_nul_byte)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path = tpath("nul.conf");
	static const char data[] = "[Default]\nNice=-5\0RealtimePriority=99\nMemLock=1K\n";
	FILE *f;

	f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fwrite(data, 1, sizeof(data) - 1, f), sizeof(data) - 1);
	ck_assert_int_eq(fclose(f), 0);
	p = load_files(&path, 1);
	assert_rejected(p, path, 2, NULL);
}
END_TEST

START_TEST(test_error_file_too_large)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path = tpath("big.conf");
	FILE *f;

	/* 4 MiB of comments and one byte more. */
	f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	for (size_t i = 0; i < 4 * 1024 * 1024 / 64; i++)
		fprintf(f, "#%062d\n", 0);
	fputc('\n', f);
	ck_assert_int_eq(fclose(f), 0);
	p = load_files(&path, 1);
	assert_rejected(p, path, 0, NULL);
}
END_TEST

START_TEST(test_error_first_of_many)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;

	/* Several problems: exactly one error, the first. */
	p = load_text("[Default]\nNice=-99\n[Nope]\nFoo=bar\nbaz\n", &path);
	ck_assert_uint_eq(policy_n_errors(p), 1);
	assert_rejected(p, path, 2, "Nice", NULL);
}
END_TEST

START_TEST(test_irq_pattern_with_colon)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	const PolicyIrqRule *r;

	/* The kernel names HDA interrupts "snd_hda_intel:card0": a pattern
	 * must be able to say which card: ':' is part of an [IRQ] pattern. */
	p = load_text("[IRQ]\nsnd_hda_intel:card1=70\nsnd_hda_intel:*=60\n", &path);
	assert_no_errors(p);
	ck_assert_uint_eq(policy_n_irq_rules(p), 2);
	ck_assert_str_eq(policy_irq_rule(p, 0)->pattern, "snd_hda_intel:card1");
	r = policy_irq_match(p, "snd_hda_intel:card1");
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(r->priority, 70);
	ck_assert_int_eq(policy_irq_match(p, "snd_hda_intel:card0")->priority, 60);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("policy-parse");
	TCase *syntax, *errors;

	syntax = policy_test_case(
		s, "syntax", CHECK_TESTS(test_section_header_spaces, test_irq_pattern_with_colon));
	tcase_add_loop_test(syntax, test_parsed, 0, ELEMENTSOF(parsed));
	errors = policy_test_case(s, "errors",
				  CHECK_TESTS(test_error_long_line, test_long_line_limit,
					      test_error_long_last_line, test_error_nul_byte,
					      test_error_file_too_large, test_error_first_of_many));
	tcase_add_loop_test(errors, test_rejected, 0, ELEMENTSOF(rejected));
	return policy_test_run(s);
}
