/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the NSS helper's worker threads (nss-helper/run.c), in
 * the tests' helper that realtimed's resolver execs, over the fake
 * directory of resolver-fixture.c, which can hang: one lookup per uid in
 * flight (later waits join it), a hung lookup holds one thread and others
 * go on, a wait ends with -ETIMEDOUT after the timeout (the late result is
 * cached), the pool, the cache and the waits are bounded, and waits never
 * answered are freed with the resolver. And the helper started with
 * privileges refuses to run, and says so in its READY message.
 */
#include <check.h>
#include <errno.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check-main.h"
#include "nss-decode.h"
#include "resolver-fixture.h"

/* Three waits for one uid while its lookup hangs: one lookup, three answers. */
START_TEST(test_one_lookup_per_uid)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 8);
	Answer a = {};

	fake_hang(1000);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(resolver_wait(r, 1000, on_done, &a, NULL), 0);
	(void)expect_get(r, 1000, -ENOENT);
	usleep(50000);
	ck_assert_uint_eq(a.n, 0);
	fake_release();
	expect_answered(&a, 3, 0, 29);
	ck_assert_str_eq(a.name, "u1000");
	ck_assert_uint_eq(resolver_n_lookups(r), 1);
	ck_assert_uint_eq(fake_n_calls(), 1);
	ck_assert_str_eq(expect_get(r, 1000, 0)->name, "u1000");
}
END_TEST

/* A hung lookup holds one thread: another user is answered meanwhile. */
START_TEST(test_hung_lookup_blocks_no_one_else)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 8);
	Answer hung = {}, other = {};

	fake_hang(1000);
	ck_assert_int_eq(resolver_wait(r, 1000, on_done, &hung, NULL), 0);
	ck_assert_int_eq(resolver_wait(r, 1001, on_done, &other, NULL), 0);
	expect_answered(&other, 1, 0, 29);
	ck_assert_uint_eq(hung.n, 0);
	ck_assert_uint_eq(helper_n_threads(), 2);
}
END_TEST

/* A wait ends after the timeout; the lookup's late result is cached. */
START_TEST(test_timeout)
{
	Resolver *r = resolver(200 * USEC_PER_MSEC, 5 * USEC_PER_SEC, 8);
	uint64_t start = now_usec(CLOCK_MONOTONIC);
	Answer a = {}, late = {};

	fake_hang(1000);
	ck_assert_int_eq(resolver_wait(r, 1000, on_done, &a, NULL), 0);
	expect_answered(&a, 1, -ETIMEDOUT, 0);
	ck_assert_uint_ge(a.at_usec - start, 200 * USEC_PER_MSEC);
	ck_assert_uint_lt(a.at_usec - start, 2 * USEC_PER_SEC);
	(void)expect_get(r, 1000, -ENOENT);
	/* a later wait joins the same lookup */
	ck_assert_int_eq(resolver_wait(r, 1000, on_done, &late, NULL), 0);
	fake_release();
	expect_answered(&late, 1, 0, 29);
	ck_assert_uint_eq(fake_n_calls(), 1);
	(void)expect_get(r, 1000, 0);
}
END_TEST

static void count_free(void *userdata)
{
	(*(unsigned *)userdata)++;
}

/* The pool stops at its cap (the rest queue), the cache at its size: when
 * every entry is a lookup in flight a new uid is refused; answered ones
 * are reused. So do the waits at RESOLVER_WAITS_MAX. */
START_TEST(test_bounded)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 3);
	Answer a = {};

	fake_hang_all();
	for (uid_t uid = 2000; uid < 2000 + RESOLVER_CACHE_SIZE; uid++)
		ck_assert_int_eq(resolver_wait(r, uid, on_done, &a, NULL), 0);
	ck_assert_int_eq(resolver_wait(r, 5000, on_done, &a, NULL), -EBUSY);
	/* the threads start (slowly on a loaded machine), and no more */
	for (int i = 0; i < 2000 && fake_n_calls() < 3; i++)
		usleep(1000);
	usleep(50000);
	ck_assert_uint_eq(helper_n_threads(), 3);
	ck_assert_uint_eq(fake_n_calls(), 3);
	fake_release();
	run_until(&a.n, RESOLVER_CACHE_SIZE);
	ck_assert_uint_eq(helper_n_threads(), 3);
	/* the oldest answer makes room */
	ck_assert_int_eq(resolver_wait(r, 5000, on_done, &a, NULL), 0);
	expect_answered(&a, RESOLVER_CACHE_SIZE + 1, 0, 29);

	/* and the waits, whatever uid they are for */
	fake_hang_all();
	for (unsigned i = 0; i < RESOLVER_WAITS_MAX; i++)
		ck_assert_int_eq(resolver_wait(r, 7000, on_done, &a, NULL), 0);
	ck_assert_int_eq(resolver_wait(r, 7000, on_done, &a, NULL), -EBUSY);
	ck_assert_int_eq(resolver_wait(r, 5000, on_done, &a, NULL), -EBUSY);
	ck_assert_uint_eq(resolver_n_lookups(r), RESOLVER_CACHE_SIZE + 2);
}
END_TEST

/* Waits never answered are freed with the resolver, and so is the NSS
 * helper, with the worker stuck in a lookup (test-daemon-nss-helper.c
 * checks it is gone). */
START_TEST(test_free_pending)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 2);
	unsigned freed = 0;
	Answer a = {};

	fake_hang(1000);
	ck_assert_int_eq(resolver_wait(r, 1000, on_done, &freed, count_free), 0);
	resolver_fixture_free();
	ck_assert_uint_eq(freed, 1);
	ck_assert_uint_eq(a.n, 0);
	fake_release();
}
END_TEST

/* Exec'd as root (not by realtimed's child, which drops it): READY with
 * -EPERM and what is wrong, exit status 1, no lookup. */
START_TEST(test_refuses_root)
{
	ResolverSettings rs = resolver_fake_settings(0, 0, 8);
	static uint8_t buf[NSS_WIRE_MESSAGE_MAX];
	const char *why = NULL;
	NssWireMessage m;
	int sv[2], status;
	ssize_t n;
	pid_t pid;

	if (getuid() != 0)
		return; /* only root can start it as root */
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (dup2(sv[1], NSS_HELPER_FD) >= 0)
			execl(rs.helper, "realtimed-nss", "8", (char *)NULL);
		_exit(127);
	}
	close(sv[1]);
	n = recv(sv[0], buf, sizeof(buf), 0);
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(nss_wire_decode(buf, n, &m, &why), 0);
	ck_assert_int_eq(m.kind, NSS_WIRE_READY);
	ck_assert_int_eq(m.error, -EPERM);
	ck_assert_str_eq(m.step, "runs as uid 0");
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 1);
	ck_assert_uint_eq(fake_n_calls(), 0);
	close(sv[0]);
}
END_TEST

int main(void)
{
	return resolver_check_run("nss-helper-run", "pool",
				  CHECK_TESTS(test_one_lookup_per_uid,
					      test_hung_lookup_blocks_no_one_else, test_timeout,
					      test_bounded, test_free_pending, test_refuses_root));
}
