/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/manager.c, with no bus: the manager's hooks are the
 * test's own and record each Demoted signal and each change of the rtkit
 * name. On a fake /proc and a grant table (daemon-fixture.h):
 *   - a reload whose policy disallows one of two grants demotes exactly that
 *     thread, back to what it had, with Demoted(policy), and applies the
 *     new settings (RtkitCompat=no stops the rtkit name);
 *   - a reload of a broken file keeps the policy and every grant;
 *   - with the resolver (NSS off the loop), a reload judges a user when
 *     the lookup ends: one whose lookup hangs past the timeout is judged
 *     without name and groups ([Default] only) and demoted then, one that
 *     is resolved keeps what [User NAME] allows;
 *   - a reset takes the grants of one thread, then of the whole process;
 *   - the canary's report drops the grants, names every thread the
 *     watchdog demoted in Demoted (one gone since too), and refuses new
 *     grants;
 *   - a demotion whose list cannot be allocated (calloc fails, through the
 *     linker's --wrap=calloc) still demotes every thread, in batches.
 */
#include <check.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bus-dispatch.h"
#include "check-main.h"
#include "daemon-fixture.h"
#include "resolver-fixture.h"
#include "manager.h"
#include "users.h"
#include "pidfd.h"
#include "resolver.h"

#define SIGNALS_MAX 8

typedef struct Signal {
	char reason[16];
	pid_t tids[DEMOTE_BATCH];
	size_t n;
} Signal;

static Signal signals[SIGNALS_MAX];
static size_t n_signals, n_demoted;
static int rtkit_serve_calls, rtkit_served = -1;

static void on_demoted(Daemon *d, const DemoteThread *threads, size_t n, const char *reason)
{
	Signal *s = &signals[n_signals < SIGNALS_MAX ? n_signals : SIGNALS_MAX - 1];

	n_signals++;
	n_demoted += n;
	snprintf(s->reason, sizeof(s->reason), "%s", reason);
	s->n = n;
	for (size_t i = 0; i < n && i < DEMOTE_BATCH; i++)
		s->tids[i] = threads[i].tid;
}

static void on_serve_rtkit(Daemon *d, bool serve)
{
	rtkit_serve_calls++;
	rtkit_served = serve;
}

static const DaemonHooks hooks = {
	.answer = bus_answer,
	.demoted = on_demoted,
	.serve_rtkit = on_serve_rtkit,
};

/* calloc(fail_nmemb, sizeof(DemoteThread)) fails while fail_nmemb is set:
 * the list of a demotion of fail_nmemb grants. The daemon's code is linked
 * into this test statically, so --wrap=calloc reaches its calls. */
void *__real_calloc(size_t nmemb, size_t size);
void *__wrap_calloc(size_t nmemb, size_t size);
static size_t fail_nmemb, failed_callocs;

void *__wrap_calloc(size_t nmemb, size_t size)
{
	if (fail_nmemb && nmemb == fail_nmemb && size == sizeof(DemoteThread)) {
		failed_callocs++;
		return NULL;
	}
	return __real_calloc(nmemb, size);
}

/* The resolver tests below: every user of the fake directory is
 * "rtfake"; fake_hang_all() stalls it (the resolver waits 200 ms). */
static void setup(void)
{
	fixture_setup();
	fake_reset();
	fake_name("rtfake");
	memset(signals, 0, sizeof(signals));
	n_signals = n_demoted = 0;
	rtkit_serve_calls = 0;
	rtkit_served = -1;
	fail_nmemb = failed_callocs = 0;
}

static void teardown(void)
{
	fixture_teardown();
	resolver_fixture_teardown();
}

/* Writes text as the policy and reloads it: manager_reload()'s answer. */
static int reload_with(Daemon *d, const char *text, char **error)
{
	fixture_write(fixture_conf, text);
	return manager_reload(d, error);
}

/* Two sleepers granted nice 5 and nice 12 under a policy that allows both. */
static void init_two(Daemon *d, Sleeper *low, Sleeper *high)
{
	sleeper_start(low);
	sleeper_start(high);
	fixture_write(fixture_conf, "[Default]\nNice=0\n");
	fixture_daemon_init(d, &hooks);
	fixture_grant(d, low->tid, 1000, 5);
	fixture_grant(d, high->tid, 1000, 12);
	fixture_stat(getpid(), low->tid, 1000);
	fixture_stat(getpid(), high->tid, 1000);
}

START_TEST(test_reload_demotes_disallowed)
{
	Sleeper low = {}, high = {};
	char *error = NULL;
	Daemon d;

	init_two(&d, &low, &high);
	ck_assert_int_ge(reload_with(&d, "[Daemon]\nRtkitCompat=no\n[Default]\nNice=10\n", &error),
			 0);
	ck_assert_ptr_null(error);

	/* exactly the nice-5 grant, which Nice=10 no longer allows */
	ck_assert_uint_eq(n_signals, 1);
	ck_assert_str_eq(signals[0].reason, "policy");
	ck_assert_uint_eq(signals[0].n, 1);
	ck_assert_int_eq(signals[0].tids[0], low.tid);
	ck_assert_int_eq(sched_policy_of(low.tid), SCHED_IDLE);
	ck_assert_int_eq(sched_policy_of(high.tid), SCHED_BATCH);
	ck_assert_uint_eq(d.grants->n_grants, 1);
	ck_assert_ptr_nonnull(grant_table_find(d.grants, getpid(), high.tid));
	/* and the reloaded settings are applied */
	ck_assert_int_eq(rtkit_serve_calls, 1);
	ck_assert_int_eq(rtkit_served, 0);
	fixture_daemon_fini(&d);
}
END_TEST

/* init_two() with a resolver, then a reload whose [Default] allows nice 10
 * and whose [User rtfake] allows nice 0. Runs the loop until a demotion
 * came or the lookup ended (3 s at most); returns how long that took. */
static uint64_t reload_with_resolver(Daemon *d, Sleeper *low, Sleeper *high, bool hang)
{
	ResolverSettings rs = resolver_fake_settings(200 * USEC_PER_MSEC, 5 * USEC_PER_SEC, 2);
	const PolicyUser *u;
	uint64_t start, end;
	char *error = NULL;

	init_two(d, low, high);
	ck_assert_int_eq(resolver_new(d->event, &rs, &d->resolver), 0);
	if (hang)
		fake_hang_all();
	fixture_write(fixture_conf, "[Default]\nNice=10\n[User rtfake]\nNice=0\n");
	start = now_usec(CLOCK_MONOTONIC);
	ck_assert_int_ge(manager_reload(d, &error), 0);
	/* nothing is decided on the loop's time: the lookup is under way */
	ck_assert_uint_eq(n_signals, 0);
	end = start + 3 * USEC_PER_SEC;
	while (n_signals == 0 && resolver_get(d->resolver, getuid(), &u) == -ENOENT &&
	       now_usec(CLOCK_MONOTONIC) < end)
		ck_assert_int_ge(sd_event_run(d->event, 10 * USEC_PER_MSEC), 0);
	return now_usec(CLOCK_MONOTONIC) - start;
}

START_TEST(test_reload_unresolved_judged_without_groups)
{
	Sleeper low = {}, high = {};
	uint64_t waited;
	Daemon d;

	waited = reload_with_resolver(&d, &low, &high, true);
	/* after the timeout, as a user without a name: [Default] Nice=10 */
	ck_assert_uint_eq(n_signals, 1);
	ck_assert_str_eq(signals[0].reason, "policy");
	ck_assert_int_eq(signals[0].tids[0], low.tid);
	ck_assert_uint_ge(waited, 200 * USEC_PER_MSEC);
	ck_assert_uint_lt(waited, 2 * USEC_PER_SEC);
	ck_assert_int_eq(sched_policy_of(low.tid), SCHED_IDLE);
	ck_assert_uint_eq(d.grants->n_grants, 1);
	fixture_daemon_fini(&d);
}
END_TEST

START_TEST(test_reload_resolved_keeps_grants)
{
	Sleeper low = {}, high = {};
	Daemon d;

	ck_assert_uint_lt(reload_with_resolver(&d, &low, &high, false), 2 * USEC_PER_SEC);
	/* rtfake's [User] section allows both */
	ck_assert_uint_eq(n_signals, 0);
	ck_assert_uint_eq(d.grants->n_grants, 2);
	fixture_daemon_fini(&d);
}
END_TEST

/* More users hold grants than the resolver has entries (RESOLVER_CACHE_SIZE)
 * or waits: a reload must still judge every one with its groups, never
 * without them because the resolver was full. 300 processes of 300 uids
 * (a fake /proc; their tids are not real, so a demotion would find nothing
 * to undo, but it would be counted), each granted nice 5; after the reload
 * [Default] allows nice 10 and [User rtfake] (every uid, as the fake
 * directory says) nice 0: nothing may be demoted. */
START_TEST(test_reload_more_users_than_entries)
{
	const SchedState before = { .policy = SCHED_IDLE, .nice = 12 };
	ResolverSettings rs = resolver_fake_settings(5 * USEC_PER_SEC, 60 * USEC_PER_SEC, 2);
	enum { N = RESOLVER_CACHE_SIZE + 44 };
	char *error = NULL;
	uint64_t end;
	Daemon d;

	fixture_write(fixture_conf, "[Default]\nNice=0\n");
	fixture_daemon_init(&d, &hooks);
	for (int i = 0; i < N; i++) {
		pid_t pid = 3000000 + i;

		fixture_task(pid, pid, 20000 + i, 20000 + i, 20000 + i, 1);
		ck_assert_int_eq(grant_table_add(d.grants, pid, 1, 20000 + i,
						 pidfd_open_cloexec(getpid()), pid, 1,
						 POLICY_GRANT_NICE, 5, &before, 0, NULL),
				 0);
	}
	ck_assert_int_eq(resolver_new(d.event, &rs, &d.resolver), 0);
	ck_assert_int_ge(reload_with(&d, "[Default]\nNice=10\n[User rtfake]\nNice=0\n", &error), 0);
	end = now_usec(CLOCK_MONOTONIC) + 2 * USEC_PER_SEC;
	while (n_demoted == 0 && resolver_n_lookups(d.resolver) < N &&
	       now_usec(CLOCK_MONOTONIC) < end)
		ck_assert_int_ge(sd_event_run(d.event, 10 * USEC_PER_MSEC), 0);
	/* the last answers */
	for (int i = 0; i < 20 && n_demoted == 0; i++)
		ck_assert_int_ge(sd_event_run(d.event, 10 * USEC_PER_MSEC), 0);
	ck_assert_uint_eq(n_demoted, 0);
	ck_assert_uint_eq(resolver_n_lookups(d.resolver), N);
	ck_assert_uint_eq(d.grants->n_grants, N);
	fixture_daemon_fini(&d);
}
END_TEST

START_TEST(test_broken_reload_keeps_policy)
{
	Sleeper low = {}, high = {};
	char *error = NULL;
	Daemon d;

	init_two(&d, &low, &high);
	ck_assert_int_lt(reload_with(&d, "[Default]\nNice=10\nBogus=1\n", &error), 0);
	ck_assert_ptr_nonnull(error);
	ck_assert_ptr_nonnull(strstr(error, "Bogus"));
	free(error);
	ck_assert_uint_eq(n_signals, 0);
	ck_assert_int_eq(rtkit_serve_calls, 0);
	ck_assert_uint_eq(d.grants->n_grants, 2);
	ck_assert_int_eq(sched_policy_of(low.tid), SCHED_BATCH);
	fixture_daemon_fini(&d);
}
END_TEST

START_TEST(test_reset_thread_then_process)
{
	Sleeper low = {}, high = {};
	Daemon d;

	init_two(&d, &low, &high);
	ck_assert_uint_eq(demote_reset(&d, getpid(), high.tid), 1);
	ck_assert_uint_eq(n_signals, 1);
	ck_assert_str_eq(signals[0].reason, "reset");
	ck_assert_int_eq(signals[0].tids[0], high.tid);
	ck_assert_int_eq(sched_policy_of(high.tid), SCHED_IDLE);
	ck_assert_int_eq(sched_policy_of(low.tid), SCHED_BATCH);
	/* nothing granted to that thread any more */
	ck_assert_uint_eq(demote_reset(&d, getpid(), high.tid), 0);
	ck_assert_uint_eq(n_signals, 1);
	ck_assert_uint_eq(demote_reset(&d, getpid(), 0), 1);
	ck_assert_int_eq(sched_policy_of(low.tid), SCHED_IDLE);
	ck_assert_uint_eq(d.grants->n_grants, 0);
	fixture_daemon_fini(&d);
}
END_TEST

START_TEST(test_canary_fired)
{
	Sleeper low = {}, high = {}, pending = {};
	CanaryTarget list[3];
	/* the watchdog blamed uid 1000 alone */
	const CanaryBlame blamed[] = { { .uid = 1000, .realtime_usec = 1900 * USEC_PER_MSEC } };
	CanaryReport report = { .demoted = list,
				.n_demoted = 3,
				.blamed = blamed,
				.n_blamed = 1,
				.window_usec = 2 * USEC_PER_SEC };
	uint64_t now;
	Daemon d;

	init_two(&d, &low, &high);
	/* a thread granted realtime a moment ago: watched, but not in the table yet */
	sleeper_start(&pending);
	fixture_stat(getpid(), pending.tid, 1000);
	list[0] = (CanaryTarget){ .pid = getpid(), .tid = low.tid, .start_time = 1000 };
	list[1] = (CanaryTarget){ .pid = getpid(), .tid = pending.tid, .start_time = 1000 };
	/* a runaway that exited between the watchdog's demotion and this look
	 * (no stat file): the watchdog demoted it all the same */
	list[2] = (CanaryTarget){ .pid = getpid(), .tid = 5000000, .start_time = 1000 };

	manager_canary_fired(&report, &d);
	ck_assert_uint_eq(n_signals, 1);
	ck_assert_str_eq(signals[0].reason, "canary");
	ck_assert_uint_eq(signals[0].n, 3);
	ck_assert_int_eq(signals[0].tids[0], low.tid);
	ck_assert_int_eq(signals[0].tids[1], pending.tid);
	ck_assert_int_eq(signals[0].tids[2], 5000000);
	ck_assert_uint_eq(d.grants->n_grants, 1);
	ck_assert_ptr_null(grant_table_find(d.grants, getpid(), low.tid));
	/* the blamed user is refused for CanaryRefuseSec; root and other
	 * users are not */
	now = now_usec(CLOCK_MONOTONIC);
	ck_assert_uint_gt(user_cooldown_until(users_find(d.users, 1000), now), now);
	ck_assert_uint_eq(user_cooldown_until(users_find(d.users, 0), now), 0);
	ck_assert_uint_eq(user_cooldown_until(users_find(d.users, 1001), now), 0);
	fixture_daemon_fini(&d);
}
END_TEST

START_TEST(test_demote_without_memory)
{
	/* more grants than fit a batch on the stack: the list is allocated */
	const size_t n_fake = DEMOTE_BATCH + 4;
	Sleeper low = {}, high = {};
	char *error = NULL;
	Daemon d;

	init_two(&d, &low, &high);
	/* tids above the kernel's PID_MAX_LIMIT (4194304): no thread has them,
	 * so restoring them changes nothing on this machine */
	for (size_t i = 0; i < n_fake; i++) {
		fixture_grant(&d, (pid_t)(5000000 + i), 1000, 5);
		fixture_stat(getpid(), (pid_t)(5000000 + i), 1000);
	}
	fail_nmemb = d.grants->n_grants;
	ck_assert_int_ge(reload_with(&d, "[Default]\nNice=10\n", &error), 0);

	ck_assert_uint_eq(failed_callocs, 1);
	/* every disallowed thread demoted, DEMOTE_BATCH at a time */
	ck_assert_uint_eq(n_demoted, n_fake + 1);
	ck_assert_uint_eq(n_signals, 2);
	ck_assert_uint_eq(signals[0].n, DEMOTE_BATCH);
	ck_assert_int_eq(sched_policy_of(low.tid), SCHED_IDLE);
	ck_assert_int_eq(sched_policy_of(high.tid), SCHED_BATCH);
	ck_assert_uint_eq(d.grants->n_grants, 1);
	fixture_daemon_fini(&d);
}
END_TEST

int main(void)
{
	return check_run_case(
		"daemon-manager", "manager",
		CHECK_TESTS(test_reload_demotes_disallowed,
			    test_reload_unresolved_judged_without_groups,
			    test_reload_resolved_keeps_grants, test_reload_more_users_than_entries,
			    test_broken_reload_keeps_policy, test_reset_thread_then_process,
			    test_canary_fired, test_demote_without_memory),
		setup, teardown);
}
