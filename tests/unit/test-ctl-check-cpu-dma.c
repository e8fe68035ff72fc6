/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for realtimectl/check-cpu-dma.c, over a canned tree
 * (ctl-check-fixture.h) whose /dev/cpu_dma_latency is a file holding the
 * s32 the kernel would read back, /proc/PID/fd links to it, and a fake
 * system bus: realtimed's request in words (status's line), and
 * cpu-dma-latency's verdicts: no device, nothing held, realtimed holding
 * it, another process or a driver holding it, realtimed failing to.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check-main.h"
#include "ctl-check-fixture.h"

static CheckBus fake_bus;
static void fake_bus_query(CheckBus *ret)
{
	*ret = fake_bus;
}

/* The device reads back v, as the kernel's effective value. */
static void put_effective(int32_t v)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/dev", tmpdir);
	ck_assert(mkdir(path, 0755) == 0 || errno == EEXIST);
	snprintf(path, sizeof(path), "%s/dev/cpu_dma_latency", tmpdir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, &v, sizeof(v)), sizeof(v));
	close(fd);
}

/* Process pid, named comm, has the device open as its fd 3. */
static void put_holder(int pid, const char *comm)
{
	char dir[64], link[512];

	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	mkdir_p(dir);
	snprintf(link, sizeof(link), "%s%s/3", tmpdir, dir);
	ck_assert_int_eq(symlink("/dev/cpu_dma_latency", link), 0);
	snprintf(link, sizeof(link), "%s%s/4", tmpdir, dir);
	ck_assert_int_eq(symlink("/dev/null", link), 0);
	snprintf(dir, sizeof(dir), "/proc/%d/comm", pid);
	put(dir, "%s\n", comm);
}

/* realtimed is on the bus (pid 42) and says this of its request. */
static void daemon_says(const char *state, long long usec, unsigned grants, const char *error)
{
	ctx.bus_query = fake_bus_query;
	fake_bus = (CheckBus){ .reachable = true, .realtimed = true, .realtimed_pid = 42 };
	fake_bus.cpu_dma = (CpuDmaHold){ .known = true, .usec = usec, .grants = grants };
	snprintf(fake_bus.cpu_dma.state, sizeof(fake_bus.cpu_dma.state), "%s", state);
	snprintf(fake_bus.cpu_dma.error, sizeof(fake_bus.cpu_dma.error), "%s", error);
}

static const char *describe(void)
{
	static char text[256];

	cpu_dma_hold_describe(&fake_bus.cpu_dma, text, sizeof(text));
	return text;
}

/* Runs cpu-dma-latency: its status, value, and words of its summary. */
static void expect(CheckStatus st, const char *value, const char *in_summary)
{
	run("cpu-dma-latency");
	assert_result(st, value);
	ck_assert_msg(strstr(res.summary, in_summary), "'%s' not in '%s'", in_summary, res.summary);
}

START_TEST(test_describe)
{
	daemon_says("held", 0, 2, "");
	ck_assert_str_eq(describe(), "held at 0 µs for 2 realtime grants");
	daemon_says("held", 20, 1, "");
	ck_assert_str_eq(describe(), "held at 20 µs for 1 realtime grant");
	daemon_says("released", 20, 0, "");
	ck_assert_str_eq(describe(), "not held: no realtime grant is supervised "
				     "(CpuDmaLatency=20us holds it while one is)");
	daemon_says("failed", 0, 3, "/dev/cpu_dma_latency: Permission denied");
	ck_assert_str_eq(describe(), "not held: /dev/cpu_dma_latency: Permission denied "
				     "(CpuDmaLatency=0us, 3 realtime grants)");
	daemon_says("unset", -1, 3, "");
	ck_assert_str_eq(describe(), "not configured ([Daemon] CpuDmaLatency= is unset)");
	fake_bus.cpu_dma.known = false;
	ck_assert_ptr_nonnull(strstr(describe(), "not known"));
}
END_TEST

START_TEST(test_no_device)
{
	daemon_says("unset", -1, 0, "");
	expect(CHECK_SKIP, "effective=? realtimed=unset others=none", "no /dev/cpu_dma_latency");
}
END_TEST

START_TEST(test_nothing_held)
{
	put_effective(2000000000);
	daemon_says("unset", -1, 0, "");
	/* a process that has it open at the default holds nothing */
	put_holder(77, "tuned");
	expect(CHECK_INFO, "effective=2000000000 realtimed=unset others=tuned (pid 77)",
	       "nothing holds the CPUs");
	ck_assert_ptr_nonnull(strstr(res.summary, "not configured"));

	/* no realtimed (or none on the bus): the same */
	fake_bus = (CheckBus){ .reachable = true };
	expect(CHECK_INFO, "effective=2000000000 realtimed=not-running others=tuned (pid 77)",
	       "realtimed is not running");
	ctx.bus_query = NULL;
	run("cpu-dma-latency");
	ck_assert_int_eq(res.status, CHECK_INFO);
}
END_TEST

START_TEST(test_realtimed_holds)
{
	put_effective(0);
	/* realtimed's own fd is not someone else's */
	put_holder(42, "realtimed");
	daemon_says("held", 0, 2, "");
	expect(CHECK_OK, "effective=0 realtimed=held:0us:2 others=none",
	       "realtimed's CPU latency request: held at 0 µs for 2 realtime grants");

	daemon_says("released", 0, 0, "");
	put_effective(2000000000);
	expect(CHECK_OK, "effective=2000000000 realtimed=released:0us:0 others=none",
	       "no realtime grant is supervised");
}
END_TEST

/* Another process, a driver, and realtimed failing to hold it. */
START_TEST(test_others_and_failure)
{
	char link[512];

	put_effective(0);
	put_holder(904, "cyclictest");
	daemon_says("unset", -1, 0, "");
	expect(CHECK_INFO, "effective=0 realtimed=unset others=cyclictest (pid 904)",
	       "is held at 0 µs by cyclictest (pid 904)");
	/* below what realtimed holds: someone asks for less */
	daemon_says("held", 20, 1, "");
	expect(CHECK_INFO, "effective=0 realtimed=held:20us:1 others=cyclictest (pid 904)",
	       "held at 20 µs for 1 realtime grant");

	/* no process holds it: a driver does */
	snprintf(link, sizeof(link), "%s/proc/904/fd/3", tmpdir);
	ck_assert_int_eq(unlink(link), 0);
	put_effective(100);
	daemon_says("released", 0, 0, "");
	expect(CHECK_INFO, "effective=100 realtimed=released:0us:0 others=none",
	       "held at 100 µs by a driver");

	put_effective(2000000000);
	daemon_says("failed", 0, 1, "/dev/cpu_dma_latency: Permission denied");
	expect(CHECK_WARN, "effective=2000000000 realtimed=failed:0us:1 others=none",
	       "Permission denied");
	ck_assert_ptr_nonnull(strstr(res.hint, "DeviceAllow="));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ctl-check-cpu-dma");

	ctl_check_test_case(s, "checks",
			    CHECK_TESTS(test_describe, test_no_device, test_nothing_held,
					test_realtimed_holds, test_others_and_failure));
	return policy_test_run(s);
}
