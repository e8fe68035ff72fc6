/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/resolver.c's NSS helper (nss-helper.c), over the
 * fake directory of resolver-fixture.c, whose lookups run in it: the
 * helper is the program exec'd, and runs without uid 0, capabilities, fds
 * or signal handlers of realtimed's (as /proc shows it); one that dies in a lookup, or sends
 * what realtimed did not ask for (malformed, a uid not asked, too many
 * groups, an unterminated name, ...), is logged once and replaced, the
 * lookups it was asked fail, the next one works; a helper that crashes at
 * each lookup is restarted after pauses that double, not in a loop; one
 * that does not read its socket is killed all the same; one lost
 * while a wait is being answered leaves the cache whole; a helper
 * program that is not there fails realtimed's start, said in the log, and
 * one replaced after the start is not the one that runs.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check-main.h"
#include "log-fixture.h"
#include "nss-helper.h"
#include "nss-wire.h"
#include "resolver-fixture.h"

/* Field key of /proc/pid/status, without its tabs and spaces around. */
static const char *status_field(pid_t pid, const char *key, char *buf, size_t size)
{
	char path[64], line[512];
	size_t n = strlen(key);
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	ck_assert_ptr_nonnull(f);
	buf[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		char *v = line + n + 1;

		if (strncmp(line, key, n) != 0 || line[n] != ':')
			continue;
		v += strspn(v, " \t");
		v[strcspn(v, "\n")] = '\0';
		snprintf(buf, size, "%s", v);
		break;
	}
	fclose(f);
	return buf;
}

static void expect_field(pid_t pid, const char *key, const char *want)
{
	char buf[256];

	ck_assert_msg(streq(status_field(pid, key, buf, sizeof(buf)), want),
		      "the helper's %s is '%s', not '%s'", key, buf, want);
}

/* The helper runs without uid 0 and without any capability (as nobody
 * when the test runs as root, as realtimed does), no_new_privs, not
 * dumpable, every signal at its default and unblocked, and holds no fd
 * of realtimed's but its socket (0, 1 and 2 are /dev/null). */
START_TEST(test_helper_unprivileged)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 8);
	const char *zero = "0000000000000000";
	bool root = getuid() == 0;
	char buf[256], path[64];
	struct dirent *de;
	unsigned n_fds = 0;
	struct stat st;
	Answer a = {};
	ssize_t len;
	pid_t pid;
	DIR *d;

	ck_assert_int_eq(helper_pid(), 0);
	expect_wait(r, 1000, &a, 0, 29);
	pid = helper_pid();
	ck_assert_int_gt(pid, 0);

	status_field(pid, "Uid", buf, sizeof(buf));
	ck_assert_msg(strtoul(buf, NULL, 10) != 0, "the helper's Uid: %s", buf);
	ck_assert_msg(!strstr(buf, "\t0"), "the helper's Uid: %s", buf);
	if (root) {
		expect_field(pid, "Uid", "65534\t65534\t65534\t65534");
		expect_field(pid, "Gid", "65534\t65534\t65534\t65534");
		expect_field(pid, "Groups", "");
		expect_field(pid, "CapBnd", zero);
	}
	expect_field(pid, "CapInh", zero);
	expect_field(pid, "CapPrm", zero);
	expect_field(pid, "CapEff", zero);
	expect_field(pid, "CapAmb", zero);
	expect_field(pid, "NoNewPrivs", "1");
	expect_field(pid, "SigBlk", zero);
	/* no signal ignored or caught but libc's own (32, 33: thread
	 * cancellation and setxid), which no program may change through libc:
	 * an ignored 32 comes through every exec from whoever started the
	 * test (a package build did) */
	status_field(pid, "SigIgn", buf, sizeof(buf));
	ck_assert_msg((strtoull(buf, NULL, 16) & ~(3ULL << 31)) == 0, "the helper's SigIgn: %s",
		      buf);
	status_field(pid, "SigCgt", buf, sizeof(buf));
	ck_assert_msg((strtoull(buf, NULL, 16) & ~(3ULL << 31)) == 0, "the helper's SigCgt: %s",
		      buf);
	expect_field(pid, "Name", "realtimed-nss");
	if (!root)
		return;
	/* a program of its own, not a copy of the test's memory */
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	len = readlink(path, buf, sizeof(buf) - 1);
	ck_assert_int_gt(len, 0);
	buf[len] = '\0';
	ck_assert_str_eq(strrchr(buf, '/'), "/nss-helper-fake");
	/* not dumpable: its /proc files are root's, not its own uid's */
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_uid, 0);

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		char link[384], target[256];
		int fd = atoi(de->d_name);
		ssize_t n;

		if (de->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "%s/%s", path, de->d_name);
		n = readlink(link, target, sizeof(target) - 1);
		ck_assert_int_gt(n, 0);
		target[n] = '\0';
		if (fd <= 2)
			ck_assert_str_eq(target, "/dev/null");
		else if (fd == NSS_HELPER_FD)
			ck_assert_msg(strncmp(target, "socket:", 7) == 0, "its fd %d: %s", fd,
				      target);
		else
			/* its own, made after the drop: what wakes its main thread */
			ck_assert_msg(streq(target, "anon_inode:[eventfd]"),
				      "the helper holds fd %d: %s", fd, target);
		n_fds++;
	}
	closedir(d);
	ck_assert_uint_eq(n_fds, 5);
}
END_TEST

/* A helper that cannot read its socket (stopped, here; hostile, in
 * life) still ends with the resolver: the kernel kills it when the thread
 * of realtimed that forked it ends. */
START_TEST(test_helper_ends_with_resolver)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 8);
	Answer a = {};
	pid_t pid;

	expect_wait(r, 999, &a, 0, 29);
	pid = helper_pid();
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(kill(pid, SIGSTOP), 0);
	resolver_fixture_free();
	for (int i = 0; i < 2000 && kill(pid, 0) == 0; i++)
		usleep(1000);
	ck_assert_int_eq(kill(pid, 0), -1);
	ck_assert_int_eq(errno, ESRCH);
}
END_TEST

/* Count of the lines about helper pid in the log. */
static unsigned log_count_helper(pid_t pid)
{
	char needle[64];

	snprintf(needle, sizeof(needle), "NSS helper (pid %d)", (int)pid);
	return log_count_lines(needle);
}

/* A helper that dies in a lookup (killed from outside, or a module that
 * crashes): the wait gets an error, said once in the log, and the next
 * lookup works, in a new helper. */
START_TEST(test_helper_dies_mid_lookup)
{
	static const char *const how[] = { "was killed by signal 9", "was killed by signal 6" };
	Resolver *r = resolver(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 8);
	Answer a = {}, next = {};
	pid_t first;

	log_capture();
	expect_wait(r, 999, &a, 0, 29);
	first = helper_pid();
	ck_assert_int_gt(first, 0);
	if (_i == 0)
		fake_hang(1000);
	else
		fake_crash(1000);
	ck_assert_int_eq(resolver_wait(r, 1000, on_done, &a, NULL), 0);
	if (_i == 0) {
		for (int i = 0; i < 5000 && fake_n_calls() < 2; i++)
			usleep(1000);
		ck_assert_uint_eq(fake_n_calls(), 2);
		ck_assert_int_eq(kill(first, SIGKILL), 0);
	}
	expect_answered(&a, 2, -ECONNRESET, 0);
	expect_wait(r, 1001, &next, 0, 29);
	ck_assert_int_gt(helper_pid(), 0);
	ck_assert_int_ne(helper_pid(), first);
	ck_assert_uint_eq(log_count_helper(first), 1);
	ck_assert_uint_eq(log_count_lines(how[_i]), 1);
	/* and the same uid again, too */
	fake_crash((uid_t)-1);
	fake_release();
	expect_wait(r, 1000, &a, 0, 29);
}
END_TEST

/* A helper whose every lookup crashes is started again after pauses that
 * double (100, 200, 400 ms, ...), not as fast as it dies. */
START_TEST(test_helper_restarts_paced)
{
	Resolver *r = resolver(10 * USEC_PER_SEC, 5 * USEC_PER_SEC, 8);
	uint64_t start = now_usec(CLOCK_MONOTONIC), took;
	unsigned deaths;
	Answer a = {};

	log_capture();
	fake_crash(1000);
	while (now_usec(CLOCK_MONOTONIC) < start + 1500 * USEC_PER_MSEC)
		expect_wait(r, 1000, &a, -ECONNRESET, 0);
	took = now_usec(CLOCK_MONOTONIC) - start;
	/* the last one is reaped (and said) after its lookup failed */
	while (log_count_lines("was killed by signal 6") < a.n &&
	       now_usec(CLOCK_MONOTONIC) < start + 5 * USEC_PER_SEC)
		ck_assert_int_ge(sd_event_run(fixture_event, 10 * USEC_PER_MSEC), 0);
	deaths = log_count_lines("was killed by signal 6");
	ck_assert_uint_eq(deaths, a.n);
	/* in 1.5 to 3.1 s: dead at 0, 0.1, 0.3, 0.7, 1.5 and 3.1 s at most */
	ck_assert_msg(deaths >= 3 && deaths <= 6, "%u helpers died in %llu ms", deaths,
		      (unsigned long long)(took / USEC_PER_MSEC));
	ck_assert_uint_eq(log_count_lines("a new helper starts in 400 ms"), 1);
	ck_assert_uint_eq(log_count_lines("a new helper starts in 800 ms"), 1);
}
END_TEST

/* Whether pid is dead to the last thread (a zombie with no other task
 * left): its fds, the socket among them, are closed. */
static bool helper_dead(pid_t pid)
{
	char path[64], state = '?';
	unsigned n_tasks = 0;
	struct dirent *de;
	FILE *f;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f || fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
		state = '?';
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.')
			n_tasks++;
	if (d)
		closedir(d);
	return state == 'Z' && n_tasks == 1;
}

/* A wait that times out, whose callback asks for another uid after the
 * helper died (not reaped yet: the ask meets the closed socket, and the
 * timed-out uid's own lookup fails from inside that call). */
typedef struct AskOther {
	Resolver *r;
	Answer timed_out, other;
} AskOther;

static void on_timeout_ask_other(uid_t uid, int error, const PolicyUser *u, void *userdata)
{
	AskOther *c = userdata;
	pid_t pid = helper_pid();

	on_done(uid, error, u, &c->timed_out);
	ck_assert_int_eq(error, -ETIMEDOUT);
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	for (int i = 0; i < 5000 && !helper_dead(pid); i++)
		usleep(1000);
	ck_assert(helper_dead(pid));
	ck_assert_int_eq(resolver_wait(c->r, 1001, on_done, &c->other, NULL), 0);
}

/* The helper lost while a wait's answer is given leaves the cache whole:
 * a uid asked after it is not known before its lookup ends, and is
 * resolved when it does. */
START_TEST(test_helper_lost_while_answering)
{
	AskOther c = { .r = resolver(200 * USEC_PER_MSEC, 5 * USEC_PER_SEC, 8) };
	Answer later = {};

	fake_hang(1000);
	ck_assert_int_eq(resolver_wait(c.r, 1000, on_timeout_ask_other, &c, NULL), 0);
	run_until(&c.timed_out.n, 1);
	ck_assert_int_eq(resolver_wait(c.r, 1002, on_done, &later, NULL), 0);
	(void)expect_get(c.r, 1002, -ENOENT);
	expect_answered(&later, 1, 0, 29);
	expect_answered(&c.other, 1, 0, 29);
	(void)expect_get(c.r, 1002, 0);
}
END_TEST

/* An answer for the uid asked, then a second one for it, no longer asked:
 * the first counts, the second loses the helper. */
START_TEST(test_helper_answers_twice)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 8);
	PolicyUser u = { .uid = 1000, .gids = (gid_t[]){ 30 }, .n_gids = 1, .name = "forged" };
	uint8_t msg[256];
	Answer a = {}, next = {};
	uint64_t end;
	ssize_t len;

	log_capture();
	len = nss_wire_encode(1000, 0, &u, msg, sizeof(msg));
	ck_assert_int_gt(len, 0);
	fake_send(1000, msg, len);
	expect_wait(r, 1000, &a, 0, 30);
	ck_assert_str_eq(a.name, "forged");
	/* the lookup ends, and its own answer comes: not asked any more */
	fake_release();
	end = now_usec(CLOCK_MONOTONIC) + 5 * USEC_PER_SEC;
	while (log_count_lines("an answer for uid 1000, which it was not asked") == 0 &&
	       now_usec(CLOCK_MONOTONIC) < end)
		ck_assert_int_ge(sd_event_run(fixture_event, 10 * USEC_PER_MSEC), 0);
	ck_assert_uint_eq(log_count_lines("an answer for uid 1000, which it was not asked"), 1);
	expect_wait(r, 1001, &next, 0, 29);
}
END_TEST

/* A valid answer for uid 1000: u1000 in gids 29 (audio) and 30 (studio). */
static size_t valid_answer(uint8_t *buf, size_t size)
{
	PolicyUser u = { .uid = 1000,
			 .name = "u1000",
			 .gids = (gid_t[]){ 29, 30 },
			 .group_names = (char *[]){ "audio", "studio" },
			 .n_gids = 2 };
	ssize_t len = nss_wire_encode(1000, 0, &u, buf, size);

	ck_assert_int_gt(len, 0);
	return len;
}

static NssWireHeader *header(uint8_t *buf)
{
	return (NssWireHeader *)buf;
}

typedef struct Malformed {
	const char *name;
	/* the message into buf (FAKE_SEND_MAX bytes): its length */
	size_t (*make)(uint8_t *buf);
	const char *log; /* what the log says of it */
} Malformed;

static size_t short_header(uint8_t *buf)
{
	valid_answer(buf, FAKE_SEND_MAX);
	return sizeof(NssWireHeader) - 1;
}

static size_t trailing_byte(uint8_t *buf)
{
	return valid_answer(buf, FAKE_SEND_MAX) + 1;
}

static size_t gids_beyond_end(uint8_t *buf)
{
	size_t len = valid_answer(buf, FAKE_SEND_MAX);

	header(buf)->n_gids = 1000;
	return len;
}

static size_t uid_not_asked(uint8_t *buf)
{
	size_t len = valid_answer(buf, FAKE_SEND_MAX);

	header(buf)->uid = 4242;
	return len;
}

static size_t too_many_groups(uint8_t *buf)
{
	uint32_t n = NSS_WIRE_GROUPS_MAX + 1;
	uint8_t *p = buf;

	*header(buf) = (NssWireHeader){ .kind = NSS_WIRE_ANSWER, .uid = 1000, .n_gids = n };
	p += sizeof(NssWireHeader);
	for (uint32_t i = 0; i < n; i++, p += sizeof(uint32_t))
		memcpy(p, &i, sizeof(i));
	*p++ = 1;
	memcpy(p, "u1000", 6);
	p += 6;
	memset(p, 0, n); /* no group names */
	return p + n - buf;
}

static size_t unterminated(uint8_t *buf)
{
	return valid_answer(buf, FAKE_SEND_MAX) - 1;
}

static size_t name_too_long(uint8_t *buf)
{
	uint8_t *p = buf + sizeof(NssWireHeader);

	*header(buf) = (NssWireHeader){ .kind = NSS_WIRE_ANSWER, .uid = 1000 };
	*p++ = 1;
	memset(p, 'x', NSS_WIRE_NAME_MAX);
	p[NSS_WIRE_NAME_MAX] = '\0';
	return p + NSS_WIRE_NAME_MAX + 1 - buf;
}

static size_t bad_tag(uint8_t *buf)
{
	size_t len = valid_answer(buf, FAKE_SEND_MAX);

	buf[sizeof(NssWireHeader) + 2 * sizeof(uint32_t)] = 2;
	return len;
}

static size_t no_errno(uint8_t *buf)
{
	*header(buf) = (NssWireHeader){ .kind = NSS_WIRE_ANSWER, .uid = 1000, .error = 5 };
	return sizeof(NssWireHeader);
}

static size_t failure_with_user(uint8_t *buf)
{
	size_t len = valid_answer(buf, FAKE_SEND_MAX);

	header(buf)->error = -EIO;
	return len;
}

static size_t too_large(uint8_t *buf)
{
	size_t len = valid_answer(buf, FAKE_SEND_MAX);

	memset(buf + len, 0, FAKE_SEND_MAX - len);
	return FAKE_SEND_MAX;
}

static size_t unknown_kind(uint8_t *buf)
{
	size_t len = valid_answer(buf, FAKE_SEND_MAX);

	header(buf)->kind = 9;
	return len;
}

static size_t ready_again(uint8_t *buf)
{
	return nss_wire_encode_ready(65534, 0, NULL, buf, FAKE_SEND_MAX);
}

static const Malformed malformed[] = {
	{ "shorter than a header", short_header, "sent a message shorter than a header" },
	{ "a byte after the message", trailing_byte, "sent bytes after its last name" },
	{ "more gids than it holds", gids_beyond_end, "sent fewer gids than its header says" },
	{ "a uid not asked", uid_not_asked, "sent an answer for uid 4242, which it was not asked" },
	{ "too many groups", too_many_groups, "sent more groups than realtimed takes" },
	{ "an unterminated name", unterminated, "sent a name without its NUL within its bounds" },
	{ "a name too long", name_too_long, "sent a name without its NUL within its bounds" },
	{ "a bad tag", bad_tag, "sent a name with a tag that is neither 0 nor 1" },
	{ "an error that is no errno", no_errno, "sent an error that is no -errno" },
	{ "a failure with a user", failure_with_user, "sent a failed lookup that carries a user" },
	{ "too large", too_large, "sent a message too large, or with control data" },
	{ "an unknown kind", unknown_kind, "sent a message of an unknown kind" },
	{ "ready twice", ready_again, "sent a second ready message" },
};

/* Whatever the helper sends in place of an answer: the lookups it was
 * asked fail, one log line says what it sent (and no other line about
 * that helper), and the next lookup works in a new helper. */
START_TEST(test_helper_malformed)
{
	const Malformed *m = &malformed[_i];
	Resolver *r = resolver(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 8);
	static uint8_t msg[FAKE_SEND_MAX];
	Answer a = {}, next = {};
	pid_t first;

	log_capture();
	expect_wait(r, 999, &a, 0, 29);
	first = helper_pid();
	fake_send(1000, msg, m->make(msg));
	expect_wait(r, 1000, &a, -ECONNRESET, 0);
	expect_wait(r, 1001, &next, 0, 29);
	ck_assert_int_ne(helper_pid(), first);
	ck_assert_msg(log_count_lines(m->log) == 1, "%s: the log does not say '%s' once", m->name,
		      m->log);
	ck_assert_uint_eq(log_count_helper(first), 1);
}
END_TEST

/* A helper program that is not there: resolver_new() fails, and the log
 * says which program and why. */
START_TEST(test_helper_exec_fails)
{
	ResolverSettings rs = resolver_fake_settings(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 8);
	_cleanup_(resolver_freep) Resolver *r = NULL;

	log_capture();
	rs.helper = "/nonexistent/realtimed-nss";
	ck_assert_int_ge(sd_event_new(&fixture_event), 0);
	ck_assert_int_eq(resolver_new(fixture_event, &rs, &r), -ENOENT);
	ck_assert_uint_eq(
		log_count_lines("Cannot open the NSS helper /nonexistent/realtimed-nss: "
				"No such file or directory (reinstall realtimed, or point "
				"REALTIMED_NSS_HELPER at the program)"),
		1);
}
END_TEST

/* Copies file from to to, mode 0755. */
static void copy_program(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	ck_assert_int_ge(in, 0);
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	ck_assert_int_ge(out, 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		ck_assert_int_eq(write(out, buf, (size_t)n), n);
	ck_assert_int_eq(n, 0);
	close(in);
	ck_assert_int_eq(close(out), 0);
}

/* The program replaced under a running realtimed (a package upgrade,
 * before its restart): the next helper is still the program realtimed
 * opened at its start, which speaks its wire format, not the new file. */
START_TEST(test_helper_program_replaced)
{
	ResolverSettings rs = resolver_fake_settings(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 8);
	_cleanup_(resolver_freep) Resolver *r = NULL;
	char dir[] = "/tmp/rt-nss-program-XXXXXX", path[64], next_path[64];
	Answer a = {}, next = {};
	FILE *f;
	pid_t first;

	log_capture();
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(chmod(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/realtimed-nss", dir);
	snprintf(next_path, sizeof(next_path), "%s/realtimed-nss.new", dir);
	copy_program(rs.helper, path);
	rs.helper = path;
	ck_assert_int_ge(sd_event_new(&fixture_event), 0);
	ck_assert_int_eq(resolver_new(fixture_event, &rs, &r), 0);
	ck_assert_int_eq(resolver_start(r), 0);
	expect_wait(r, 1000, &a, 0, 29);
	first = helper_pid();
	ck_assert_int_gt(first, 0);

	f = fopen(next_path, "we");
	ck_assert_ptr_nonnull(f);
	fputs("#!/bin/sh\nexit 3\n", f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(next_path, 0755), 0);
	ck_assert_int_eq(rename(next_path, path), 0);
	ck_assert_int_eq(kill(first, SIGKILL), 0);
	for (int i = 0; i < 5000 && log_count_helper(first) == 0; i++)
		ck_assert_int_ge(sd_event_run(fixture_event, USEC_PER_MSEC), 0);
	ck_assert_uint_eq(log_count_helper(first), 1);

	expect_wait(r, 1001, &next, 0, 29);
	ck_assert_int_gt(helper_pid(), 0);
	ck_assert_int_ne(helper_pid(), first);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon-nss-helper");
	TCase *tc =
		check_add_case(s, "helper",
			       CHECK_TESTS(test_helper_unprivileged, test_helper_ends_with_resolver,
					   test_helper_restarts_paced, test_helper_answers_twice,
					   test_helper_lost_while_answering, test_helper_exec_fails,
					   test_helper_program_replaced));

	tcase_add_loop_test(tc, test_helper_dies_mid_lookup, 0, 2);
	tcase_add_loop_test(tc, test_helper_malformed, 0, ELEMENTSOF(malformed));
	tcase_add_checked_fixture(tc, fake_reset, resolver_fixture_teardown);
	tcase_set_timeout(tc, 30);
	return check_run(s);
}
