/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The resolver tests' fake directory and waits; see resolver-fixture.h. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "check-main.h"
#include "fake-directory.h"
#include "nss-wire.h"
#include "resolver-fixture.h"
#include "time-util.h"

/* The fake directory (fake-directory.h), in a file of its own for each
 * test: a helper of the last one may still be dying with the old one. */
static FakeDirectory *fake;
static char fake_path[] = "/tmp/rt-fake-directory-XXXXXX";

#define GET(field) FAKE_GET(fake, field)
#define SET(field, v) FAKE_SET(fake, field, v)

static void fake_unlink(void)
{
	if (!fake)
		return;
	munmap(fake, sizeof(*fake));
	fake = NULL;
	(void)unlink(fake_path);
}

void fake_reset(void)
{
	int fd;

	fake_unlink();
	memcpy(fake_path + strlen(fake_path) - 6, "XXXXXX", 6);
	fd = mkostemp(fake_path, O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	/* the helper runs as nobody when the test runs as root */
	ck_assert_int_eq(fchmod(fd, 0666), 0);
	ck_assert_int_eq(ftruncate(fd, sizeof(*fake)), 0);
	fake = mmap(NULL, sizeof(*fake), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ck_assert_ptr_ne(fake, MAP_FAILED);
	close(fd);
	*fake = (FakeDirectory){ .hang_uid = (uid_t)-1,
				 .gid = 29,
				 .fail_uid = (uid_t)-1,
				 .slow_uid = (uid_t)-1,
				 .crash_uid = (uid_t)-1,
				 .send_uid = (uid_t)-1 };
	ck_assert_int_eq(setenv(FAKE_DIRECTORY_ENV, fake_path, 1), 0);
}

void fake_set(gid_t gid, int error)
{
	SET(gid, gid);
	SET(fail_error, error);
}

void fake_hang(uid_t uid)
{
	SET(released, false);
	SET(hang_uid, uid);
}

void fake_hang_all(void)
{
	SET(released, false);
	SET(hang_all, true);
}

void fake_release(void)
{
	SET(released, true);
}

void fake_name(const char *name)
{
	snprintf(fake->name, sizeof(fake->name), "%s", name);
}

void fake_fail_uid(uid_t uid)
{
	SET(fail_uid, uid);
}

void fake_slow(uid_t uid, unsigned usec)
{
	SET(slow_usec, usec);
	SET(slow_uid, uid);
}

void fake_crash(uid_t uid)
{
	SET(crash_uid, uid);
}

void fake_send(uid_t uid, const void *msg, size_t len)
{
	ck_assert_uint_le(len, FAKE_SEND_MAX);
	memcpy(fake->send, msg, len);
	SET(send_len, len);
	SET(released, false);
	SET(send_uid, uid);
}

unsigned fake_n_calls(void)
{
	return GET(calls);
}

pid_t helper_pid(void)
{
	pid_t pid = 0;
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;

	ck_assert_ptr_nonnull(d);
	/* the helper's parent is the thread that forked it */
	while (pid == 0 && (de = readdir(d))) {
		char path[300];
		FILE *f;
		int p;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/children", de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fscanf(f, "%d", &p) == 1)
			pid = p;
		fclose(f);
	}
	closedir(d);
	return pid;
}

unsigned helper_n_threads(void)
{
	char path[320], comm[32];
	pid_t pid = helper_pid();
	unsigned n = 0;
	struct dirent *de;
	DIR *dir;

	ck_assert_int_gt(pid, 0);
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	ck_assert_ptr_nonnull(dir);
	/* the workers, by their name: not the main thread, nor a sanitizer's */
	while ((de = readdir(dir))) {
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/comm", (int)pid, de->d_name);
		f = fopen(path, "re");
		if (f && fgets(comm, sizeof(comm), f) && streq(comm, NSS_HELPER_WORKER_NAME "\n"))
			n++;
		if (f)
			fclose(f);
	}
	closedir(dir);
	return n;
}

void on_done(uid_t uid, int error, const PolicyUser *u, void *userdata)
{
	Answer *a = userdata;

	a->n++;
	a->error = error;
	a->at_usec = now_usec(CLOCK_MONOTONIC);
	if (u) {
		ck_assert_uint_eq(u->uid, uid);
		a->gid = u->gids[0];
		snprintf(a->name, sizeof(a->name), "%s", u->name);
	}
}

sd_event *fixture_event;
static Resolver *fixture_resolver;

ResolverSettings resolver_fake_settings(uint64_t timeout_usec, uint64_t lifetime_usec,
					unsigned threads)
{
	return (ResolverSettings){ .helper = NSS_HELPER_FAKE,
				   .timeout_usec = timeout_usec,
				   .lifetime_usec = lifetime_usec,
				   .threads_max = threads };
}

static Resolver *resolver_with(const ResolverSettings *s)
{
	ck_assert_ptr_null(fixture_resolver);
	ck_assert_int_ge(sd_event_new(&fixture_event), 0);
	ck_assert_int_eq(resolver_new(fixture_event, s, &fixture_resolver), 0);
	return fixture_resolver;
}

Resolver *resolver(uint64_t timeout_usec, uint64_t lifetime_usec, unsigned threads)
{
	ResolverSettings s = resolver_fake_settings(timeout_usec, lifetime_usec, threads);

	return resolver_with(&s);
}

Resolver *resolver_stale(uint64_t timeout_usec, uint64_t lifetime_usec, uint64_t stale_wait_usec,
			 uint64_t stale_max_usec)
{
	ResolverSettings s = resolver_fake_settings(timeout_usec, lifetime_usec, 8);

	s.stale_wait_usec = stale_wait_usec;
	s.stale_max_usec = stale_max_usec;
	return resolver_with(&s);
}

void resolver_fixture_free(void)
{
	fixture_resolver = resolver_free(fixture_resolver);
}

void resolver_fixture_teardown(void)
{
	if (fake)
		fake_release();
	resolver_fixture_free();
	fixture_event = sd_event_unref(fixture_event);
	fake_unlink();
}

void run_until(const unsigned *n, unsigned want)
{
	uint64_t end = now_usec(CLOCK_MONOTONIC) + 5 * USEC_PER_SEC;

	while (*n < want && now_usec(CLOCK_MONOTONIC) < end)
		ck_assert_int_ge(sd_event_run(fixture_event, 10 * USEC_PER_MSEC), 0);
	ck_assert_uint_eq(*n, want);
}

const PolicyUser *expect_get(Resolver *r, uid_t uid, int error)
{
	const PolicyUser *u = NULL;

	ck_assert_int_eq(resolver_get(r, uid, &u), error);
	return u;
}

void expect_answered(Answer *a, unsigned n, int error, gid_t gid)
{
	run_until(&a->n, n);
	ck_assert_int_eq(a->error, error);
	if (error == 0)
		ck_assert_uint_eq(a->gid, gid);
}

void expect_wait(Resolver *r, uid_t uid, Answer *a, int error, gid_t gid)
{
	unsigned n = a->n;

	ck_assert_int_eq(resolver_wait(r, uid, on_done, a, NULL), 0);
	expect_answered(a, n + 1, error, gid);
}

void expect_answer(Resolver *r, uid_t uid, Answer *a, int error, gid_t gid, int get_error)
{
	const PolicyUser *u;

	expect_wait(r, uid, a, error, gid);
	u = expect_get(r, uid, get_error);
	if (get_error == 0)
		ck_assert_uint_eq(u->gids[0], gid);
}

void resolve_then_expire(Resolver *r, uid_t uid, Answer *a, useconds_t lifetime_usec)
{
	expect_wait(r, uid, a, 0, 29);
	usleep(lifetime_usec + 50000);
	(void)expect_get(r, uid, -ENOENT);
}

int resolver_check_run(const char *suite_name, const char *name, const TTest *const *tests)
{
	Suite *s = suite_create(suite_name);
	TCase *tc = check_add_case(s, name, tests);

	tcase_add_checked_fixture(tc, fake_reset, resolver_fixture_teardown);
	tcase_set_timeout(tc, 30);
	return check_run(s);
}
