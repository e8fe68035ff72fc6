// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench/grant-path-trace.c: the function entries of a program built with
 * -finstrument-functions, for bench/grant-path.sh. Preloaded; each entry
 * is appended to $GRANT_PATH_TRACE as one line "NSEC PID TID OFFSET": the
 * CLOCK_REALTIME time, the process, the thread, and the function's offset in the
 * executable (it is position-independent), which addr2line names. Not
 * itself instrumented (built without the flag). One write() an entry, with
 * O_APPEND: slow, but the daemon is idle but for the grant measured. Only
 * the process that opened the file writes: a forked child may close it and
 * get its number for another file (realtimed's NSS helper does).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NOTRACE __attribute__((no_instrument_function))

static int trace_fd = -1;
static pid_t trace_pid; /* the process that opened it: a child may reuse the fd */

NOTRACE __attribute__((constructor)) static void trace_open(void)
{
	const char *path = getenv("GRANT_PATH_TRACE");

	if (path) {
		trace_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		trace_pid = getpid();
	}
}

NOTRACE void __cyg_profile_func_enter(void *fn, void *site);
NOTRACE void __cyg_profile_func_exit(void *fn, void *site);

void __cyg_profile_func_enter(void *fn, void *site)
{
	struct timespec ts;
	char line[80];
	Dl_info info;
	int n;

	(void)site;
	if (trace_fd < 0 || getpid() != trace_pid || !dladdr(fn, &info) || !info.dli_fbase)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	n = snprintf(line, sizeof(line), "%lld %d %d %lx\n",
		     (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec, (int)trace_pid,
		     (int)gettid(), (unsigned long)((char *)fn - (char *)info.dli_fbase));
	if (n > 0 && n < (int)sizeof(line))
		(void)!write(trace_fd, line, (size_t)n);
}

void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
}
