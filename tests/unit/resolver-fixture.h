/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the resolver's tests (test-daemon-resolver*.c) build on: a fake
 * user directory as the resolver's lookup, which answers uid N with the
 * user "uN" of one group, can hang until released, can fail every
 * lookup, crash, or send what the test wrote in the NSS helper's place;
 * a resolver (daemon/resolver.c) over it on a loop of its own; and the
 * waits' answers recorded, run for and checked. The lookups run in the
 * tests' NSS helper (nss-helper-fake.c), which realtimed's code execs:
 * the directory lives in a file both map (fake-directory.h).
 */
#pragma once

#include <check.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "fake-directory.h"
#include "resolver.h"

/* Check fixture: a directory that answers (gid 29), hangs for no one and
 * counts no lookup yet (also with CK_FORK=no); removed by
 * resolver_fixture_teardown(). */
void fake_reset(void);
/* The directory from now on: gid for every user, or error for every
 * lookup (down: -EIO; the user deleted: -ESRCH). */
void fake_set(gid_t gid, int error);
/* From now on, the lookups of uid, or of every uid, hang until
 * fake_release(). */
void fake_hang(uid_t uid);
void fake_hang_all(void);
void fake_release(void);
/* From now on, every user is called name (not "uN"). */
void fake_name(const char *name);
/* From now on, the lookup of uid fails with -EIO. */
void fake_fail_uid(uid_t uid);
/* From now on, the lookup of uid takes usec. */
void fake_slow(uid_t uid, unsigned usec);
/* From now on, the lookup of uid aborts, as an NSS module that crashes. */
void fake_crash(uid_t uid);
/* The lookup of uid sends msg on the NSS helper's socket, as realtimed
 * reads an answer there, then hangs until fake_release(). */
void fake_send(uid_t uid, const void *msg, size_t len);
/* How many lookups the directory was asked, hung ones included. */
unsigned fake_n_calls(void);
/* The NSS helper of the test's resolver (the test process's only
 * child), 0 when none runs. */
pid_t helper_pid(void);
/* Its worker threads, as /proc shows them (NSS_HELPER_WORKER_NAME). */
unsigned helper_n_threads(void);

/* What the waits got: how many answers, and the last one's error, the
 * user's gid and name (error 0), and when it came. */
typedef struct Answer {
	unsigned n;
	int error;
	gid_t gid;
	char name[32];
	uint64_t at_usec;
} Answer;

/* A wait's callback that records into the Answer its userdata is. */
void on_done(uid_t uid, int error, const PolicyUser *u, void *userdata);

/* The loop of the test's resolver. */
extern sd_event *fixture_event;

/* Settings for a resolver whose lookups run in the tests' helper, over
 * the fake directory (fake_reset() first). */
ResolverSettings resolver_fake_settings(uint64_t timeout_usec, uint64_t lifetime_usec,
					unsigned threads);
/* The test's resolver (one per test) over the fake directory, on a new
 * fixture_event; freed by resolver_fixture_teardown(). */
Resolver *resolver(uint64_t timeout_usec, uint64_t lifetime_usec, unsigned threads);
/* With the stale answer's settings: how long a wait gives the directory
 * before it takes the last good answer, and how old that may be. */
Resolver *resolver_stale(uint64_t timeout_usec, uint64_t lifetime_usec, uint64_t stale_wait_usec,
			 uint64_t stale_max_usec);
/* The test's resolver freed now (its loop is left to the teardown). */
void resolver_fixture_free(void);
/* Check fixture: releases the directory (a worker stuck in a lookup ends
 * on its own), frees the test's resolver and its loop. */
void resolver_fixture_teardown(void);

/* Runs the loop until *n reaches want, for at most 5 s. */
void run_until(const unsigned *n, unsigned want);
/* What resolver_get() has for uid now: error, and the user (error 0). */
const PolicyUser *expect_get(Resolver *r, uid_t uid, int error);
/* Runs the loop until a has n answers: the last is error, and the user of
 * gid when that is 0. */
void expect_answered(Answer *a, unsigned n, int error, gid_t gid);
/* One more wait for uid, run until it ends: its error, and its gid (error 0). */
void expect_wait(Resolver *r, uid_t uid, Answer *a, int error, gid_t gid);
/* expect_wait(), and then what the wait left: resolver_get() gives
 * get_error, and when that is 0 the user of that gid. */
void expect_answer(Resolver *r, uid_t uid, Answer *a, int error, gid_t gid, int get_error);
/* Resolves uid (gid 29) and lets its result expire. */
void resolve_then_expire(Resolver *r, uid_t uid, Answer *a, useconds_t lifetime_usec);

/* The whole main() of a resolver test: a suite of one test case of tests,
 * each with fake_reset() before it, resolver_fixture_teardown() after it
 * and 30 s to run. */
int resolver_check_run(const char *suite_name, const char *name, const TTest *const *tests);
