/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The resolver tests' fake directory and waits; see resolver-fixture.h. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "check-main.h"
#include "nss-helper.h"
#include "resolver-fixture.h"
#include "time-util.h"

/* The fake directory, in memory shared with the NSS helper: the lookups
 * run there, in a child forked when the test's resolver started its
 * first one, and must see what the test changes later. Hangs for
 * `hang_uid` (or every uid) until released; fails every lookup with
 * `fail_error` while that is set (down: -EIO; the user deleted: -ESRCH);
 * aborts for `crash_uid`; sends `send` on the helper's socket for
 * `send_uid`. Each field is read and written whole (atomics): no lock
 * that a helper killed in a lookup could leave taken. */
typedef struct FakeDirectory {
	uid_t hang_uid;
	bool hang_all, released;
	gid_t gid;
	unsigned calls;
	int fail_error;
	uid_t crash_uid;
	uid_t send_uid;
	size_t send_len;
	uint8_t send[FAKE_SEND_MAX];
} FakeDirectory;

static FakeDirectory *fake;

#define GET(field) __atomic_load_n(&fake->field, __ATOMIC_SEQ_CST)
#define SET(field, v) __atomic_store_n(&fake->field, (v), __ATOMIC_SEQ_CST)

/* Whether fd is the NSS helper's socket (nss-helper.h): a lookup that
 * runs anywhere else sends nothing. */
static bool is_helper_socket(int fd)
{
	int type = 0;
	socklen_t len = sizeof(type);

	return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_SEQPACKET;
}

static int fake_lookup(uid_t uid, PolicyUser **ret)
{
	PolicyUser *u;
	int error;

	__atomic_add_fetch(&fake->calls, 1, __ATOMIC_SEQ_CST);
	if (uid == GET(crash_uid))
		abort(); /* an NSS module that crashes */
	if (uid == GET(send_uid) && is_helper_socket(NSS_HELPER_FD))
		(void)send(NSS_HELPER_FD, fake->send, GET(send_len), MSG_NOSIGNAL);
	while ((GET(hang_all) || uid == GET(hang_uid) || uid == GET(send_uid)) && !GET(released))
		usleep(1000);
	error = GET(fail_error);
	if (error < 0)
		return error;
	if (uid >= NO_SUCH_UID)
		return -ESRCH;
	/* no ck_assert here: Check would write to its pipe's fd, which in
	 * the helper is the socket */
	u = calloc(1, sizeof(*u));
	if (!u || asprintf(&u->name, "u%u", (unsigned)uid) < 0)
		abort();
	u->uid = uid;
	u->gids = calloc(1, sizeof(gid_t));
	if (!u->gids)
		abort();
	u->gids[0] = GET(gid);
	u->n_gids = 1;
	*ret = u;
	return 0;
}

void fake_reset(void)
{
	/* a new directory for each test: a helper of the last one may
	 * still be dying with the old one */
	if (fake)
		munmap(fake, sizeof(*fake));
	fake = mmap(NULL, sizeof(*fake), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(fake, MAP_FAILED);
	*fake = (FakeDirectory){
		.hang_uid = (uid_t)-1, .gid = 29, .crash_uid = (uid_t)-1, .send_uid = (uid_t)-1
	};
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
	char path[64], line[128];
	pid_t pid = helper_pid();
	unsigned n = 0;
	FILE *f;

	ck_assert_int_gt(pid, 0);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f) && sscanf(line, "Threads: %u", &n) != 1)
		;
	fclose(f);
	ck_assert_uint_gt(n, 0);
	return n - 1;
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

static Resolver *resolver_with(const ResolverSettings *s)
{
	ck_assert_ptr_null(fixture_resolver);
	ck_assert_int_ge(sd_event_new(&fixture_event), 0);
	ck_assert_int_eq(resolver_new(fixture_event, s, &fixture_resolver), 0);
	return fixture_resolver;
}

Resolver *resolver(uint64_t timeout_usec, uint64_t lifetime_usec, unsigned threads)
{
	return resolver_with(&(ResolverSettings){ .lookup = fake_lookup,
						  .timeout_usec = timeout_usec,
						  .lifetime_usec = lifetime_usec,
						  .threads_max = threads });
}

Resolver *resolver_stale(uint64_t timeout_usec, uint64_t lifetime_usec, uint64_t stale_wait_usec,
			 uint64_t stale_max_usec)
{
	return resolver_with(&(ResolverSettings){ .lookup = fake_lookup,
						  .timeout_usec = timeout_usec,
						  .lifetime_usec = lifetime_usec,
						  .threads_max = 8,
						  .stale_wait_usec = stale_wait_usec,
						  .stale_max_usec = stale_max_usec });
}

void resolver_fixture_free(void)
{
	fixture_resolver = resolver_free(fixture_resolver);
}

void resolver_fixture_teardown(void)
{
	fake_release();
	resolver_fixture_free();
	fixture_event = sd_event_unref(fixture_event);
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
