/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/cpu-dma.c, the request on /dev/cpu_dma_latency
 * ([Daemon] CpuDmaLatency=), with a regular file, a FIFO or no file in its
 * place (DaemonArgs.cpu_dma_latency):
 *   - the request itself: held (the s32 written) only while wanted, a new
 *     value rewritten in place and the same one not written again, closed
 *     when no longer wanted or unset, never opened while unset (inotify
 *     sees no open);
 *   - a failure (no such file, a FIFO nobody reads, which must not block)
 *     is logged once however often it is tried, says so in its status, and
 *     a later success says the request holds again;
 *   - the daemon's request follows its grant table and reloads: only a
 *     realtime grant takes hold, the last one's end lets go, a reload that
 *     changes the value rewrites it, one that removes the key lets go at
 *     once, one that adds it while grants run takes hold at once.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check-main.h"
#include "cpu-dma.h"
#include "daemon-fixture.h"
#include "log-fixture.h"
#include "manager.h"
#include "pidfd.h"

static char path[PATH_MAX];

static void setup(void)
{
	fixture_setup();
	log_capture();
	snprintf(path, sizeof(path), "%s/cpu_dma_latency", fixture_state);
}

/* Is path open in this process (an fd of /proc/self/fd links to it)? */
static bool is_open(void)
{
	char link[64], target[PATH_MAX];

	for (int fd = 0; fd < 1024; fd++) {
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, target, sizeof(target) - 1);
		if (n < 0)
			continue;
		target[n] = '\0';
		if (streq(target, path))
			return true;
	}
	return false;
}

/* The size of the file and the last s32 written to it. */
static off_t last_written(int32_t *ret)
{
	struct stat st;
	int fd;

	ck_assert_int_eq(stat(path, &st), 0);
	if (st.st_size < (off_t)sizeof(*ret))
		return st.st_size;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, ret, sizeof(*ret), st.st_size - sizeof(*ret)), sizeof(*ret));
	close(fd);
	return st.st_size;
}

static CpuDmaState state_of(const CpuDma *c, int *ret_error)
{
	CpuDmaStatus st;

	cpu_dma_status(c, &st);
	if (ret_error)
		*ret_error = st.error;
	return st.state;
}

START_TEST(test_hold_rewrite_release)
{
	CpuDma *c = NULL;
	int32_t v = -1;

	fixture_write(path, "");
	ck_assert_int_eq(cpu_dma_new(path, &c), 0);
	ck_assert_int_eq(state_of(c, NULL), CPU_DMA_UNSET);

	cpu_dma_update(c, 20, false);
	ck_assert(!is_open());
	ck_assert_int_eq(state_of(c, NULL), CPU_DMA_RELEASED);

	cpu_dma_update(c, 20, true);
	ck_assert(is_open());
	ck_assert_int_eq(last_written(&v), 4);
	ck_assert_int_eq(v, 20);
	ck_assert_int_eq(state_of(c, NULL), CPU_DMA_HELD);

	/* the same value again (another grant): nothing written */
	cpu_dma_update(c, 20, true);
	ck_assert_int_eq(last_written(&v), 4);

	/* a new value: written on the same request */
	cpu_dma_update(c, 0, true);
	ck_assert(is_open());
	ck_assert_int_eq(last_written(&v), 8);
	ck_assert_int_eq(v, 0);

	cpu_dma_update(c, 0, false);
	ck_assert(!is_open());
	ck_assert_int_eq(state_of(c, NULL), CPU_DMA_RELEASED);

	cpu_dma_update(c, 0, true);
	ck_assert(is_open());
	cpu_dma_update(c, POLICY_INFINITY, true);
	ck_assert(!is_open());
	ck_assert_int_eq(state_of(c, NULL), CPU_DMA_UNSET);

	/* freed while held: closed */
	cpu_dma_update(c, 1000, true);
	ck_assert(is_open());
	c = cpu_dma_free(c);
	ck_assert(!is_open());
	ck_assert_uint_eq(log_count_lines("Failed"), 0);
}
END_TEST

START_TEST(test_unset_never_opens)
{
	struct inotify_event ev[4];
	CpuDma *c = NULL;
	int in;

	fixture_write(path, "");
	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	ck_assert_int_ge(in, 0);
	ck_assert_int_ge(inotify_add_watch(in, path, IN_OPEN), 0);
	ck_assert_int_eq(cpu_dma_new(path, &c), 0);
	for (int i = 0; i < 3; i++)
		cpu_dma_update(c, POLICY_INFINITY, i != 1);
	ck_assert_int_lt(read(in, ev, sizeof(ev)), 0);
	ck_assert_int_eq(errno, EAGAIN);
	/* and the watch works: */
	cpu_dma_update(c, 0, true);
	ck_assert_int_gt(read(in, ev, sizeof(ev)), 0);
	cpu_dma_free(c);
	close(in);
}
END_TEST

START_TEST(test_failure_logged_once)
{
	CpuDma *c = NULL;
	int error = 0;

	ck_assert_int_eq(cpu_dma_new(path, &c), 0);
	for (int i = 0; i < 5; i++) {
		cpu_dma_update(c, 0, true);
		ck_assert_int_eq(state_of(c, &error), CPU_DMA_FAILED);
		ck_assert_int_eq(error, -ENOENT);
		cpu_dma_update(c, 0, false);
	}
	ck_assert_int_eq(state_of(c, &error), CPU_DMA_RELEASED);
	ck_assert_int_eq(error, -ENOENT);
	ck_assert_uint_eq(log_count_lines("Failed to hold"), 1);
	ck_assert_uint_eq(log_count_lines("CpuDmaLatency="), 1);

	/* the file appears: held, and said once */
	fixture_write(path, "");
	cpu_dma_update(c, 0, true);
	ck_assert_int_eq(state_of(c, &error), CPU_DMA_HELD);
	ck_assert_int_eq(error, 0);
	ck_assert_uint_eq(log_count_lines("again"), 1);
	cpu_dma_free(c);
}
END_TEST

/* A FIFO that no one reads: open(O_WRONLY) would wait for a reader; the
 * request fails at once instead, and the loop goes on. */
START_TEST(test_fifo_without_reader_does_not_block)
{
	CpuDma *c = NULL;
	int error = 0, rd;
	int32_t v = -1;

	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_int_eq(cpu_dma_new(path, &c), 0);
	alarm(5);
	cpu_dma_update(c, 0, true);
	alarm(0);
	ck_assert_int_eq(state_of(c, &error), CPU_DMA_FAILED);
	ck_assert_int_eq(error, -ENXIO);

	/* with a reader, the value arrives as the kernel takes it: 4 bytes */
	rd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ck_assert_int_ge(rd, 0);
	cpu_dma_update(c, 0, false);
	cpu_dma_update(c, 15, true);
	ck_assert_int_eq(read(rd, &v, sizeof(v)), sizeof(v));
	ck_assert_int_eq(v, 15);
	/* let go: the reader sees the end of the file */
	cpu_dma_update(c, 15, false);
	ck_assert_int_eq(read(rd, &v, sizeof(v)), 0);
	close(rd);
	cpu_dma_free(c);
}
END_TEST

/* A grant of kind to thread tid of this process, recorded as the table does. */
static void grant(Daemon *d, pid_t tid, PolicyGrantKind kind, int value)
{
	const SchedState before = { .policy = SCHED_OTHER };
	pid_t self = getpid();

	ck_assert_int_eq(grant_table_add(d->grants, self, 1, getuid(), pidfd_open_cloexec(self),
					 tid, 1000, kind, value, &before, 0, NULL),
			 0);
}

static void reload_with(Daemon *d, const char *text)
{
	char *error = NULL;

	fixture_write(fixture_conf, text);
	ck_assert_int_ge(manager_reload(d, &error), 0);
	ck_assert_ptr_null(error);
}

#define ALLOW "[Default]\nRealtimePriority=20\nPolicies=fifo rr\nNice=-10\n"

START_TEST(test_daemon_follows_grants_and_reloads)
{
	pid_t self = getpid();
	Daemon d;
	int32_t v = -1;

	fixture_write(path, "");
	fixture_write(fixture_conf, "[Daemon]\nCpuDmaLatency=0\n" ALLOW);
	fixture_daemon_init(&d, NULL);
	ck_assert_int_eq(cpu_dma_new(path, &d.cpu_dma), 0);
	manager_apply_settings(&d);
	ck_assert(!is_open()); /* no grant */

	/* a nice level wakes no audio */
	grant(&d, self + 1, POLICY_GRANT_NICE, -5);
	ck_assert(!is_open());
	ck_assert_uint_eq(cpu_dma_n_grants(&d), 0);

	grant(&d, self + 2, POLICY_GRANT_FIFO, 10);
	ck_assert(is_open());
	ck_assert_int_eq(last_written(&v), 4);
	ck_assert_int_eq(v, 0);
	grant(&d, self + 3, POLICY_GRANT_RR, 5);
	ck_assert_uint_eq(cpu_dma_n_grants(&d), 2);
	ck_assert_int_eq(last_written(&v), 4);

	/* a reload that changes the value rewrites it */
	reload_with(&d, "[Daemon]\nCpuDmaLatency=20us\n" ALLOW);
	ck_assert(is_open());
	ck_assert_int_eq(last_written(&v), 8);
	ck_assert_int_eq(v, 20);

	/* one that removes the key lets go at once, grants or not */
	reload_with(&d, ALLOW);
	ck_assert(!is_open());
	ck_assert_uint_eq(d.grants->n_grants, 3);

	/* one that sets it while grants run takes hold at once (a new
	 * request: emptied, the file shows its first write) */
	fixture_write(path, "");
	reload_with(&d, "[Daemon]\nCpuDmaLatency=1ms\n" ALLOW);
	ck_assert(is_open());
	ck_assert_int_eq(last_written(&v), 4);
	ck_assert_int_eq(v, 1000);

	/* the end of the last realtime grant lets go; the nice one stays */
	grant_table_remove(d.grants, grant_table_find(d.grants, self, self + 2));
	ck_assert(is_open());
	grant_table_remove(d.grants, grant_table_find(d.grants, self, self + 3));
	ck_assert(!is_open());
	ck_assert_uint_eq(d.grants->n_grants, 1);
	ck_assert_uint_eq(log_count_lines("Failed"), 0);

	d.cpu_dma = cpu_dma_free(d.cpu_dma);
	fixture_daemon_fini(&d);
}
END_TEST

int main(void)
{
	return check_run_case("daemon-cpu-dma", "cpu-dma",
			      CHECK_TESTS(test_hold_rewrite_release, test_unset_never_opens,
					  test_failure_logged_once,
					  test_fifo_without_reader_does_not_block,
					  test_daemon_follows_grants_and_reloads),
			      setup, fixture_teardown);
}
