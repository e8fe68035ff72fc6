// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target for the policy parser: the input is one realtime.conf(5) file.
 * It goes through policy_load_files() exactly as `realtimectl policy check`
 * and pam_realtime's conf= would read it (from a memfd, by path), and then
 * every answer the Policy gives is exercised and checked for consistency:
 * a file is either accepted or rejected with one error whose line exists,
 * every source line exists, and every value formats and parses back; and
 * loading only root's rules (policy_load_files_for_user(), as pam_realtime
 * does) answers for root exactly as the whole policy does.
 * A broken invariant aborts, which libFuzzer reports like a crash.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "macro.h"
#include "policy-internal.h"
#include "policy.h"

static unsigned count_lines(const uint8_t *data, size_t size)
{
	unsigned n = 0;

	for (size_t i = 0; i < size; i++)
		if (data[i] == '\n')
			n++;
	return size > 0 && data[size - 1] != '\n' ? n + 1 : n;
}

/* Does line n (1-based) of data contain word? Explain must point at the line
 * that really sets a key, never at a neighbour. */
static bool line_has(const uint8_t *data, size_t size, unsigned n, const char *word)
{
	size_t start = 0, end, l = strlen(word);

	for (unsigned i = 1; i < n && start < size; start++)
		if (data[start] == '\n')
			i++;
	for (end = start; end < size && data[end] != '\n'; end++)
		;
	for (size_t i = start; i + l <= end; i++)
		if (memcmp(data + i, word, l) == 0)
			return true;
	return false;
}

/* What format prints, the key's own parser (the library's table) reads
 * back to the same value. */
static void check_value(const PolicyGrant *g, PolicyKey k)
{
	const PolicyItem *it = &policy_keys[k];
	PolicyGrant again = *g;
	PolicyValue v;
	char buf[128];

	fuzz_assert(policy_grant_format(g, k, buf, sizeof(buf)) == 0);
	fuzz_assert(it->parse(buf, &v) == 0);
	policy_value_store(it, &again, &v);
	fuzz_assert(memcmp(&again, g, sizeof(again)) == 0);
}

static void check_grant(const PolicyGrant *g, const char *path, const uint8_t *data, size_t size,
			unsigned n_lines)
{
	uint64_t v;

	for (int k = 0; k < _POLICY_KEY_MAX; k++) {
		if (!g->set[k]) {
			fuzz_assert(!g->source[k].file);
			continue;
		}
		fuzz_assert(streq_ptr(g->source[k].file, path));
		fuzz_assert(g->source[k].line >= 1 && g->source[k].line <= n_lines);
		fuzz_assert(!isempty(g->source[k].section));
		fuzz_assert(line_has(data, size, g->source[k].line, policy_key_to_string(k)));
		check_value(g, k);
	}
	fuzz_assert(g->compat_policy == POLICY_SCHED_RR || g->compat_policy == POLICY_SCHED_FIFO);
	for (size_t i = 0; i < POLICY_RLIMIT_MAX; i++) {
		int r = policy_grant_rlimit(g, policy_rlimit(i)->resource, &v);

		fuzz_assert(r == 0 || r == -ENODATA);
	}
}

/* The same answer, value and source, from two policies. */
static void check_same_grant(const PolicyGrant *a, const PolicyGrant *b)
{
	fuzz_assert(a->covered == b->covered);
	for (int k = 0; k < _POLICY_KEY_MAX; k++) {
		char va[128], vb[128];

		fuzz_assert(a->set[k] == b->set[k]);
		if (!a->set[k])
			continue;
		fuzz_assert(policy_grant_format(a, k, va, sizeof(va)) == 0);
		fuzz_assert(policy_grant_format(b, k, vb, sizeof(vb)) == 0);
		fuzz_assert(streq(va, vb));
		fuzz_assert(streq_ptr(a->source[k].file, b->source[k].file));
		fuzz_assert(a->source[k].line == b->source[k].line);
		fuzz_assert(streq_ptr(a->source[k].section, b->source[k].section));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const irq_names[] = {
		"snd_hda_intel:card0", "xhci_hcd", "i8042", "", "*", "["
	};
	/* identities given here, not through NSS: each run looks nothing up */
	static gid_t gids[] = { 0, 29, 44, 100, 1000, 4242 };
	static char *group_names[] = { "root", "audio", "video", "users", "alice", NULL };
	static const PolicyUser alice = {
		.name = "alice",
		.uid = 1000,
		.gids = gids,
		.group_names = group_names,
		.n_gids = ELEMENTSOF(gids),
	};
	static const PolicyUser root_gid0 = {
		.name = "root",
		.uid = 0,
		.gids = gids,
		.group_names = group_names,
		.n_gids = 1,
	};
	static const PolicyUser nameless = { .uid = 4242 };
	static PolicyUser *root; /* for the whole run: a static, not a leak */
	static bool resolved;
	_cleanup_close_ int fd = -EBADF;
	const char *files[1];
	char path[64];
	Policy *p = NULL;
	unsigned n_lines = count_lines(data, size);
	PolicyGrant g;

	/* Bigger than any sane policy file; keeps each run fast. */
	if (size > 64 * 1024)
		return 0;
	fd = fuzz_memfd(data, size, path, sizeof(path));
	files[0] = path;

	fuzz_assert(policy_load_files(files, 1, &p) == 0);
	fuzz_assert(p);

	/* Accepted whole or rejected whole, with one error on an existing line. */
	fuzz_assert(policy_n_errors(p) + policy_n_files(p) == 1);
	if (policy_n_errors(p) == 1) {
		const PolicyError *e = policy_error(p, 0);

		fuzz_assert(streq(e->file, path));
		/* a parse error, never the file refused whole (line 0): that
		 * would leave the parser unfuzzed */
		fuzz_assert(e->line >= 1 && e->line <= n_lines);
		fuzz_assert(!isempty(e->message));
		fuzz_assert(policy_n_irq_rules(p) == 0);
	} else
		fuzz_assert(streq(policy_file(p, 0), path));
	/* the memfd is ours: a warning that realtimed would want root's,
	 * unless we are root */
	fuzz_assert(policy_n_warnings(p) == (policy_n_files(p) == 1 && geteuid() != 0 ? 1 : 0));

	for (size_t i = 0; i < policy_n_irq_rules(p); i++) {
		const PolicyIrqRule *r = policy_irq_rule(p, i);

		fuzz_assert(r->pattern && r->priority >= 1 && r->priority <= 99);
		fuzz_assert(streq(r->source.file, path));
		fuzz_assert(r->source.line >= 1 && r->source.line <= n_lines);
		fuzz_assert(line_has(data, size, r->source.line, r->pattern));
	}
	for (size_t i = 0; i < ELEMENTSOF(irq_names); i++)
		(void)policy_irq_match(p, irq_names[i]);
	(void)policy_daemon(p);

	/* A few identities; numeric sections and names both come into play. */
	fuzz_assert(policy_eval_for_user(p, &alice, &g) == 0);
	check_grant(&g, path, data, size, n_lines);
	fuzz_assert(policy_eval_for_user(p, &root_gid0, &g) == 0);
	check_grant(&g, path, data, size, n_lines);
	fuzz_assert(policy_eval_for_user(p, &nameless, &g) == 0);
	check_grant(&g, path, data, size, n_lines);

	/* root through NSS once, for the whole run */
	if (!resolved) {
		resolved = true;
		if (policy_user_resolve("root", &root) < 0)
			root = NULL;
	}
	if (root) {
		Policy *mine = NULL;
		PolicyGrant a, b;

		fuzz_assert(policy_load_files_for_user(files, 1, root, &mine) == 0);
		fuzz_assert(policy_n_errors(mine) == policy_n_errors(p));
		fuzz_assert(policy_n_files(mine) == policy_n_files(p));
		fuzz_assert(policy_n_irq_rules(mine) == policy_n_irq_rules(p));
		fuzz_assert(policy_eval_for_user(p, root, &a) == 0);
		fuzz_assert(policy_eval_for_user(mine, root, &b) == 0);
		check_same_grant(&a, &b);
		policy_free(mine);
	}

	/* policy check's load: the same verdict, the same first error, and
	 * every further error on an existing line, in order (the parser goes
	 * on after an error there, so it must survive what follows one). It
	 * looks section names up in NSS: the price of fuzzing that path. */
	{
		Policy *check = NULL;

		fuzz_assert(policy_load_files_check(files, 1, &check) == 0);
		fuzz_assert(policy_n_files(check) == policy_n_files(p));
		fuzz_assert((policy_n_errors(check) > 0) == (policy_n_errors(p) > 0));
		fuzz_assert(policy_n_errors(check) <= POLICY_FILE_ERRORS_MAX + 1);
		for (size_t i = 0; i < policy_n_errors(check); i++) {
			const PolicyError *e = policy_error(check, i);

			fuzz_assert(!isempty(e->message));
			fuzz_assert(e->line <= n_lines);
			fuzz_assert(e->line > 0 || i == POLICY_FILE_ERRORS_MAX);
			if (i > 0 && e->line > 0)
				fuzz_assert(e->line > policy_error(check, i - 1)->line);
		}
		if (policy_n_errors(p) == 1) {
			fuzz_assert(policy_error(check, 0)->line == policy_error(p, 0)->line);
			fuzz_assert(streq(policy_error(check, 0)->message,
					  policy_error(p, 0)->message));
		}
		policy_free(check);
	}

	policy_free(p);
	return 0;
}
