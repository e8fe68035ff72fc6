// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bus-fuzz: sends realtimed random calls for a set time, as the
 * unprivileged user it runs as, and checks after every grant that the
 * thread holds no more than policy gives that user (bus-fuzz.h lists the
 * parts). This file reads the options, sets the process up and runs the
 * batches (batches.c).
 *
 *   bus-fuzz [--seconds N] [--seed N] [--workers N] [--label NAME]
 *            [--max-prio N] [--policies fifo,rr] [--min-nice N]
 *            [--rttime USEC|infinity] [--memlock BYTES|infinity]
 *            [--burst N] [--burst-sec N] [--sees-all] [--calls KIND,...]
 *            [--threads-max N] [--processes-max N] [--users-max N]
 *   bus-fuzz --probe MS [--seconds N] [--seed N] [--label NAME]
 *
 * The limits are those of the policy the test wrote for this user:
 * RealtimePriority=, Policies=, Nice= (no --min-nice: not set), RTTime=,
 * MemLock=, and [Daemon] ActionsPerBurst= and BurstSec=; --sees-all when
 * polkit gives the user org.realtimed.manage; --threads-max,
 * --processes-max and --users-max are [Daemon] ThreadsPerUserMax=,
 * ProcessesPerUserMax= and UsersMax=, checked after every burst (bursts.c;
 * UsersMax with --sees-all only). --probe runs the probe user instead
 * (probe.c): a grant about every MS milliseconds, each of which must
 * succeed. The seed is printed; the same
 * seed gives the same sequence of calls per worker (the ids they carry
 * differ from run to run). --calls limits the calls to some kinds (names in
 * calls.c), to chase one finding.
 *
 * Exit status: 0 when no violation was seen and the daemon answered to the
 * end, 1 otherwise, 2 when it could not run.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bus-fuzz.h"
#include "../../system-bus.h"

Limits limits = { .max_prio = 0, .rttime_usec = FUZZ_INFINITY, .memlock = FUZZ_INFINITY };
uid_t self_uid;
pid_t self_pid;
atomic_bool daemon_suspect;

/* RLIMIT_RTTIME's soft limit: a thread of ours ran realtime that long
 * without sleeping. Say which ones are realtime, before the hard limit's
 * SIGKILL. Only system calls here: a lock taken in a handler may be held
 * by the interrupted thread. */
static void on_sigxcpu(int sig)
{
	static const char head[] = "bus-fuzz: SIGXCPU: a realtime thread ran past the soft "
				   "RLIMIT_RTTIME; /proc/self/task/.../stat of each thread:\n";
	char dents[4096], path[64], buf[512];
	int dir = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long n;

	(void)!write(STDERR_FILENO, head, sizeof(head) - 1);
	while (dir >= 0 && (n = syscall(SYS_getdents64, dir, dents, sizeof(dents))) > 0)
		for (long off = 0; off < n;) {
			struct {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *de = (void *)(dents + off);
			size_t l = 0;
			int fd;

			off += de->reclen;
			if (de->name[0] == '.')
				continue;
			for (const char *p = "/proc/self/task/"; *p; p++)
				path[l++] = *p;
			for (const char *p = de->name; *p && l < sizeof(path) - 6; p++)
				path[l++] = *p;
			for (const char *p = "/stat"; *p; p++)
				path[l++] = *p;
			path[l] = 0;
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue;
			l = (size_t)read(fd, buf, sizeof(buf));
			close(fd);
			if ((ssize_t)l > 0)
				(void)!write(STDERR_FILENO, buf, l);
		}
	_exit(3);
}

static uint64_t parse_u64_or_infinity(const char *s)
{
	if (streq(s, "infinity") || streq(s, "unlimited"))
		return FUZZ_INFINITY;
	return strtoull(s, NULL, 10);
}

static unsigned probe_ms;

static int parse_args(int argc, char **argv, unsigned *seconds, uint64_t *seed, unsigned *n_workers)
{
	enum {
		O_SECONDS = 256,
		O_SEED,
		O_WORKERS,
		O_LABEL,
		O_MAX_PRIO,
		O_POLICIES,
		O_MIN_NICE,
		O_RTTIME,
		O_MEMLOCK,
		O_BURST,
		O_BURST_SEC,
		O_SEES_ALL,
		O_CALLS,
		O_THREADS_MAX,
		O_PROCESSES_MAX,
		O_USERS_MAX,
		O_PROBE,
	};
	static const struct option options[] = {
		{ "seconds", required_argument, NULL, O_SECONDS },
		{ "seed", required_argument, NULL, O_SEED },
		{ "workers", required_argument, NULL, O_WORKERS },
		{ "label", required_argument, NULL, O_LABEL },
		{ "max-prio", required_argument, NULL, O_MAX_PRIO },
		{ "policies", required_argument, NULL, O_POLICIES },
		{ "min-nice", required_argument, NULL, O_MIN_NICE },
		{ "rttime", required_argument, NULL, O_RTTIME },
		{ "memlock", required_argument, NULL, O_MEMLOCK },
		{ "burst", required_argument, NULL, O_BURST },
		{ "burst-sec", required_argument, NULL, O_BURST_SEC },
		{ "sees-all", no_argument, NULL, O_SEES_ALL },
		{ "calls", required_argument, NULL, O_CALLS },
		{ "threads-max", required_argument, NULL, O_THREADS_MAX },
		{ "processes-max", required_argument, NULL, O_PROCESSES_MAX },
		{ "users-max", required_argument, NULL, O_USERS_MAX },
		{ "probe", required_argument, NULL, O_PROBE },
		{}
	};
	/* the options that only set a number */
	const struct {
		int option;
		unsigned *ret;
	} numbers[] = {
		{ O_SECONDS, seconds },
		{ O_BURST, &limits.burst },
		{ O_BURST_SEC, &limits.burst_sec },
		{ O_THREADS_MAX, &limits.threads_max },
		{ O_PROCESSES_MAX, &limits.processes_max },
		{ O_USERS_MAX, &limits.users_max },
	};
	int c;

	while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0) {
		unsigned *number = NULL;

		for (size_t i = 0; i < ELEMENTSOF(numbers); i++)
			if (numbers[i].option == c)
				number = numbers[i].ret;
		if (number) {
			*number = (unsigned)strtoul(optarg, NULL, 10);
			continue;
		}
		switch (c) {
		case O_SEED:
			*seed = strtoull(optarg, NULL, 0);
			break;
		case O_WORKERS:
			*n_workers = (unsigned)strtoul(optarg, NULL, 10);
			if (*n_workers < 1 || *n_workers > WORKERS_MAX) {
				fprintf(stderr, "bus-fuzz: --workers is 1..%d\n", WORKERS_MAX);
				return -EINVAL;
			}
			break;
		case O_LABEL:
			report_label = optarg;
			break;
		case O_MAX_PRIO:
			limits.max_prio = atoi(optarg);
			break;
		case O_POLICIES:
			limits.policies = (strstr(optarg, "fifo") ? FUZZ_FIFO : 0) |
					  (strstr(optarg, "rr") ? FUZZ_RR : 0);
			break;
		case O_MIN_NICE:
			limits.nice_set = true;
			limits.min_nice = atoi(optarg);
			break;
		case O_RTTIME:
			limits.rttime_usec = parse_u64_or_infinity(optarg);
			break;
		case O_MEMLOCK:
			limits.memlock = parse_u64_or_infinity(optarg);
			break;
		case O_SEES_ALL:
			limits.sees_all = true;
			break;
		case O_CALLS:
			if (calls_select(optarg) < 0)
				return -EINVAL;
			break;
		case O_PROBE:
			probe_ms = (unsigned)strtoul(optarg, NULL, 10);
			if (probe_ms < 1)
				probe_ms = 1;
			break;
		default:
			fprintf(stderr, "bus-fuzz: unknown option; see the comment atop main.c\n");
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "bus-fuzz: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned seconds = 60, n_workers = 4;
	uint64_t seed, start;
	unsigned long batches;
	DBusConnection *bus;
	struct rlimit rl;
	char error[512];
	int r;

	if (argc == 3 && streq(argv[1], "--victim"))
		return victim_main((unsigned)strtoul(argv[2], NULL, 10));
	if (argc == 2 && streq(argv[1], "--victim-execed"))
		return victim_execed_main();

	self_uid = getuid();
	self_pid = getpid();
	seed = (uint64_t)time(NULL) ^ ((uint64_t)self_pid << 32);
	if (parse_args(argc, argv, &seconds, &seed, &n_workers) < 0)
		return 2;
	if (probe_ms)
		printf("bus-fuzz[%s]: probe, a grant every %u ms or so, %u s, uid %u, pid %d\n",
		       report_label, probe_ms, seconds, (unsigned)self_uid, (int)self_pid);
	else
		printf("bus-fuzz[%s]: seed %" PRIu64 " (rerun with --seed %" PRIu64
		       "), %u s, %u workers, uid %u, pid %d\n",
		       report_label, seed, seed, seconds, n_workers, (unsigned)self_uid,
		       (int)self_pid);
	fflush(stdout);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXCPU, on_sigxcpu);

	/* The host's safety net: a fuzzer thread that ran realtime for 2 s
	 * without sleeping gets SIGXCPU. The hard limit stays, so that the
	 * daemon's own lowering of RLIMIT_RTTIME is exercised. */
	if (getrlimit(RLIMIT_RTTIME, &rl) == 0 && rl.rlim_cur > 2000000) {
		rl.rlim_cur = 2000000;
		(void)setrlimit(RLIMIT_RTTIME, &rl);
	}

	if (!dbus_threads_init_default()) {
		fprintf(stderr, "bus-fuzz: dbus_threads_init_default() failed\n");
		return 2;
	}
	if (probe_ms)
		return probe_main(seconds, probe_ms, seed);
	bus = system_bus_open("bus-fuzz");
	if (!bus)
		return 2;
	dbus_connection_set_exit_on_disconnect(bus, FALSE);
	if (!daemon_ping(bus, error, sizeof(error))) {
		fprintf(stderr, "bus-fuzz: realtimed does not answer before the run: %s\n", error);
		return 2;
	}

	r = victims_start(2, 4);
	if (r < 0) {
		fprintf(stderr, "bus-fuzz: could not start the victim threads: %s\n", strerror(-r));
		return 2;
	}
	/* As PipeWire does, lower the hard RLIMIT_RTTIME to what policy allows:
	 * without CAP_SYS_RESOURCE (a container) the daemon cannot lower it for
	 * us and refuses realtime. The first children keep theirs, for the
	 * daemon to lower where it may. */
	if (limits.rttime_usec != FUZZ_INFINITY && getrlimit(RLIMIT_RTTIME, &rl) == 0 &&
	    rl.rlim_max > limits.rttime_usec) {
		rl.rlim_max = limits.rttime_usec;
		if (rl.rlim_cur > rl.rlim_max / 2)
			rl.rlim_cur = rl.rlim_max / 2;
		(void)setrlimit(RLIMIT_RTTIME, &rl);
	}
	victims_scan_system(self_uid);
	oracle_snapshot_realtime();

	r = batches_run(bus, n_workers, seed, seconds, &start, &batches);
	if (r < 0)
		return 2;
	victims_stop();
	if (!stats.crashes && !daemon_ping(bus, error, sizeof(error))) {
		stats.crashes++;
		printf("bus-fuzz[%s]: CRASH: realtimed does not answer at the end: %s\n",
		       report_label, error);
	}
	bus_close_private(bus);
	report_print((double)(now_usec() - start) / 1e6, batches);
	return stats.violations || stats.crashes ? 1 : 0;
}
