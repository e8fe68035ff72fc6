// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Test driver for pam_realtime: real libpam loads the module from a private
 * PAM configuration directory with pam_start_confdir(), opens a session for
 * a user and prints what a user would see, one "key values" line each:
 *
 *   before RLIMIT_RTPRIO SOFT HARD    (after --start, before the session)
 *   open CODE NAME                    (pam_open_session's result)
 *   after RLIMIT_RTPRIO SOFT HARD     (read back with getrlimit)
 *   keepcaps 0|1                      (after the pam_end() that ends it)
 *   self CapAmb HEX ...               (--setuid: after setuid + pam_end)
 *   session keepcaps 0|1              (--setuid: after setuid + pam_end)
 *   child keepcaps 0|1, child CapPrm HEX ...  (--setuid, --end-first: a
 *                                     child forked after pam_end, after its
 *                                     own setuid to the user)
 *
 * With --setuid it then behaves like login's session child: setgid,
 * initgroups, setuid to the user, pam_end(PAM_SUCCESS | PAM_DATA_SILENT),
 * and finally execs grep to show the capability sets a session program gets.
 * --drop-caps empties its capability sets between that setuid and pam_end
 * (the raise then fails). --end-first calls pam_end(PAM_SUCCESS |
 * PAM_DATA_SILENT) while still root, as the systemd --user manager does.
 * Either way a child forked after pam_end calls setuid() to the user, as a
 * program's helper would, and shows what it kept.
 *
 * usage: pam-driver [--confdir DIR] [--service NAME] [--start RES=SOFT:HARD]...
 *                   [--setuid [--drop-caps] | --end-first] [--twice] USER
 * RES is rtprio, memlock, rttime or nice; SOFT/HARD a number or "infinity";
 * a value above the current hard limit is taken as that limit.
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <stdbool.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <security/pam_appl.h>

static const struct {
	int resource;
	const char *name, *arg;
} resources[] = {
	{ RLIMIT_RTPRIO, "RLIMIT_RTPRIO", "rtprio" },
	{ RLIMIT_MEMLOCK, "RLIMIT_MEMLOCK", "memlock" },
	{ RLIMIT_RTTIME, "RLIMIT_RTTIME", "rttime" },
	{ RLIMIT_NICE, "RLIMIT_NICE", "nice" },
};
#define N_RESOURCES (sizeof(resources) / sizeof(resources[0]))

static const char *pam_code_name(int r)
{
	switch (r) {
	case PAM_SUCCESS:
		return "PAM_SUCCESS";
	case PAM_IGNORE:
		return "PAM_IGNORE";
	case PAM_SESSION_ERR:
		return "PAM_SESSION_ERR";
	case PAM_BUF_ERR:
		return "PAM_BUF_ERR";
	case PAM_ABORT:
		return "PAM_ABORT";
	case PAM_SYSTEM_ERR:
		return "PAM_SYSTEM_ERR";
	case PAM_PERM_DENIED:
		return "PAM_PERM_DENIED";
	case PAM_USER_UNKNOWN:
		return "PAM_USER_UNKNOWN";
	case PAM_SERVICE_ERR:
		return "PAM_SERVICE_ERR";
	case PAM_MODULE_UNKNOWN:
		return "PAM_MODULE_UNKNOWN";
	default:
		return "PAM_OTHER";
	}
}

static void print_value(rlim_t v)
{
	if (v == RLIM_INFINITY)
		printf(" infinity");
	else
		printf(" %llu", (unsigned long long)v);
}

static void print_limits(const char *when)
{
	for (size_t i = 0; i < N_RESOURCES; i++) {
		struct rlimit rl;

		if (getrlimit(resources[i].resource, &rl) < 0) {
			printf("%s %s error %d\n", when, resources[i].name, errno);
			continue;
		}
		printf("%s %s", when, resources[i].name);
		print_value(rl.rlim_cur);
		print_value(rl.rlim_max);
		printf("\n");
	}
}

static int parse_value(const char *s, rlim_t *ret)
{
	char *end;
	unsigned long long v;

	if (strcmp(s, "infinity") == 0) {
		*ret = RLIM_INFINITY;
		return 0;
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end)
		return -EINVAL;
	*ret = (rlim_t)v;
	return 0;
}

/* --start rtprio=0:10: lower a limit before the session, never raise it. */
static int apply_start(const char *spec)
{
	char buf[128], *eq, *colon;
	struct rlimit rl;

	snprintf(buf, sizeof(buf), "%s", spec);
	eq = strchr(buf, '=');
	colon = eq ? strchr(eq, ':') : NULL;
	if (!eq || !colon)
		return -EINVAL;
	*eq = *colon = '\0';
	if (parse_value(eq + 1, &rl.rlim_cur) < 0 || parse_value(colon + 1, &rl.rlim_max) < 0)
		return -EINVAL;
	for (size_t i = 0; i < N_RESOURCES; i++) {
		struct rlimit cur;

		if (strcmp(buf, resources[i].arg) != 0)
			continue;
		/* Only ever lower: raising needs CAP_SYS_RESOURCE, which the
		 * test may not have. The tests read "before" lines anyway. */
		if (getrlimit(resources[i].resource, &cur) < 0)
			return -errno;
		if (rl.rlim_max > cur.rlim_max)
			rl.rlim_max = cur.rlim_max;
		if (rl.rlim_cur > rl.rlim_max)
			rl.rlim_cur = rl.rlim_max;
		return setrlimit(resources[i].resource, &rl) < 0 ? -errno : 0;
	}
	return -EINVAL;
}

static int conv(int n, const struct pam_message **msg, struct pam_response **resp, void *data)
{
	for (int i = 0; i < n; i++) {
		if (msg[i]->msg_style != PAM_TEXT_INFO && msg[i]->msg_style != PAM_ERROR_MSG)
			return PAM_CONV_ERR; /* a session must not prompt */
		printf("conv %s\n", msg[i]->msg);
	}
	*resp = NULL;
	return PAM_SUCCESS;
}

static void print_caps(const char *prefix)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char name[32];
		unsigned long long v;

		if (strncmp(line, "Cap", 3) == 0 && sscanf(line, "%31[^:]: %llx", name, &v) == 2)
			printf("%s %s %016llx\n", prefix, name, v);
	}
	fclose(f);
}

/* A child that does what a program's helper would after pam_end(): setuid()
 * to the user, then shows what it kept of the parent's capabilities. */
static void fork_setuid_child(const struct passwd *pw)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "pam-driver: fork: %m\n");
		return;
	}
	if (pid == 0) {
		if (setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0) {
			printf("child setuid error %d\n", errno);
			_exit(1);
		}
		printf("child keepcaps %d\n", prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0));
		print_caps("child");
		fflush(stdout);
		_exit(0);
	}
	(void)waitpid(pid, NULL, 0);
}

/* Empties the permitted, effective and inheritable sets (always allowed). */
static int drop_caps(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = {};

	return syscall(SYS_capset, &h, data) < 0 ? -errno : 0;
}

int main(int argc, char **argv)
{
	static const struct option options[] = { { "confdir", required_argument, NULL, 'c' },
						 { "service", required_argument, NULL, 's' },
						 { "start", required_argument, NULL, 'S' },
						 { "setuid", no_argument, NULL, 'u' },
						 { "twice", no_argument, NULL, 't' },
						 { "drop-caps", no_argument, NULL, 'd' },
						 { "end-first", no_argument, NULL, 'e' },
						 {} };
	const char *confdir = NULL, *service = "rt-test", *user;
	struct pam_conv pc = { conv, NULL };
	bool do_setuid = false, twice = false, drop = false, end_first = false;
	pam_handle_t *pamh = NULL;
	struct passwd *pw;
	int c, r;

	while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0) {
		switch (c) {
		case 'c':
			confdir = optarg;
			break;
		case 's':
			service = optarg;
			break;
		case 'S':
			if (apply_start(optarg) < 0) {
				fprintf(stderr, "pam-driver: bad --start %s: %m\n", optarg);
				return 2;
			}
			break;
		case 'u':
			do_setuid = true;
			break;
		case 't':
			twice = true;
			break;
		case 'd':
			drop = true;
			break;
		case 'e':
			end_first = true;
			break;
		default:
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr,
			"usage: %s [--confdir DIR] [--service NAME] [--start RES=SOFT:HARD]... "
			"[--setuid [--drop-caps] | --end-first] [--twice] USER\n",
			argv[0]);
		return 2;
	}
	user = argv[optind];
	setvbuf(stdout, NULL, _IOLBF, 0);

	print_limits("before");
	r = pam_start_confdir(service, user, &pc, confdir, &pamh);
	if (r != PAM_SUCCESS) {
		fprintf(stderr, "pam-driver: pam_start_confdir: %s\n", pam_strerror(pamh, r));
		return 2;
	}

	r = pam_open_session(pamh, 0);
	printf("open %d %s\n", r, pam_code_name(r));
	if (twice) {
		r = pam_open_session(pamh, 0);
		printf("open %d %s\n", r, pam_code_name(r));
	}
	print_limits("after");

	if (!do_setuid && !end_first) {
		pam_close_session(pamh, 0);
		pam_end(pamh, r);
		printf("keepcaps %d\n", prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0));
		return 0;
	}

	pw = getpwnam(user);
	if (!pw) {
		fprintf(stderr, "pam-driver: unknown user %s\n", user);
		return 2;
	}
	if (end_first) {
		/* systemd's order: pam_end() in the process that runs the
		 * service, before it drops root */
		pam_end(pamh, PAM_SUCCESS | PAM_DATA_SILENT);
		printf("keepcaps %d\n", prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0));
		fork_setuid_child(pw);
		return 0;
	}

	/* What login's session child does, in this order. */
	printf("keepcaps %d\n", prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0));
	if (setgid(pw->pw_gid) < 0 || initgroups(user, pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0) {
		fprintf(stderr, "pam-driver: cannot become %s: %m\n", user);
		return 2;
	}
	print_caps("setuid");
	if (drop && drop_caps() < 0) {
		fprintf(stderr, "pam-driver: cannot drop the capabilities: %m\n");
		return 2;
	}
	pam_end(pamh, PAM_SUCCESS | PAM_DATA_SILENT);
	printf("uid %u\n", (unsigned)getuid());
	printf("session keepcaps %d\n", prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0));
	print_caps("self");
	fork_setuid_child(pw);
	fflush(stdout);
	execl("/bin/sh", "sh", "-c",
	      "sed -n 's/^\\(Cap[A-Za-z]*\\):[[:space:]]*/exec \\1 /p' /proc/self/status",
	      (char *)NULL);
	fprintf(stderr, "pam-driver: exec /bin/sh: %m\n");
	return 2;
}
