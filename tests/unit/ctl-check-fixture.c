// SPDX-License-Identifier: GPL-2.0-or-later
/* realtimectl check's test fixture; see ctl-check-fixture.h. */
#include <check.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check-main.h"
#include "ctl-check-fixture.h"

CheckContext ctx;
CheckResult res;
static Policy *policy;
static gid_t alice_gids[] = { 1000, 29 };
static char *alice_names[] = { "alice", "audio" };
PolicyUser alice = {
	.name = "alice",
	.uid = 1000,
	.gids = alice_gids,
	.group_names = alice_names,
	.n_gids = 2,
};
PolicyUser bob = {
	.name = "bob",
	.uid = 1001,
	.gids = alice_gids, /* 1000 only: not in audio */
	.group_names = alice_names,
	.n_gids = 1,
};

static const char shipped_like[] = "[Default]\nRealtimePriority=20\nPolicies=rr\nNice=-15\n"
				   "MemLock=64M\nRTTime=200ms\n"
				   "[Group audio]\nRealtimePriority=95\nPolicies=fifo rr\n"
				   "MemLock=infinity\nRTTime=infinity\n"
				   "[IRQ]\nsnd*=90\nxhci_hcd=85\n";

void put(const char *path, const char *fmt, ...)
{
	_cleanup_free_ char *content = NULL;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&content, fmt, ap);
	va_end(ap);
	ck_assert_int_ge(r, 0);
	write_file(path + (path[0] == '/'), content);
}

void mkdir_p(const char *path)
{
	const char *full = tpath(path + (path[0] == '/'));

	put(path, "%s", ""); /* makes the parents */
	ck_assert_int_eq(unlink(full), 0);
	ck_assert_msg(mkdir(full, 0755) == 0, "mkdir %s: %m", full);
}

void load_policy(const char *text)
{
	const char *files[1] = { write_file("policy.conf", text) };

	policy = policy_free(policy);
	ck_assert_int_eq(chmod(files[0], 0644), 0);
	ck_assert_int_eq(policy_load_files_check(files, 1, &policy), 0);
	ctx.policy = policy;
}

void check_as(const PolicyUser *u)
{
	ctx.pu = u;
	ctx.user = u->name;
	ctx.uid = u->uid;
}

static void setup(void)
{
	ctx = (CheckContext){
		.root = tmpdir,
		.uid = 1000,
		.user = "alice",
		.home = "/home/alice",
		.pu = &alice,
		.have_audio_gid = true,
		.audio_gid = 29,
	};
	res = (CheckResult){};
	load_policy(shipped_like);
}

static void teardown(void)
{
	check_context_done(&ctx);
	policy = policy_free(policy);
}

TCase *ctl_check_test_case(Suite *s, const char *name, const TTest *const *tests)
{
	TCase *tc = policy_test_case(s, name, tests);

	tcase_add_checked_fixture(tc, setup, teardown);
	return tc;
}

void run(const char *id)
{
	const Check *c = check_find(id);

	ck_assert_msg(c, "no check %s", id);
	check_context_done(&ctx);
	ck_assert_int_eq(check_context_load(&ctx), 0);
	res = (CheckResult){ .status = _CHECK_STATUS_INVALID };
	c->run(&ctx, &res);
	ck_assert_msg(res.status >= 0 && res.status < _CHECK_STATUS_MAX, "%s: no status", id);
	ck_assert_msg(res.summary[0], "%s: no summary", id);
	if (res.status == CHECK_WARN || res.status == CHECK_FAIL)
		ck_assert_msg(res.hint[0], "%s: %s without a hint", id,
			      check_status_to_string(res.status));
}
