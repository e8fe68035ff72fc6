/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What Debian's package manager says, for the kernel and rtkit checks
 * (ctl-check.h): the installed version of a package (dpkg's status), and
 * whether apt can install one (its lists, or apt-cache policy).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl-check.h"
#include "time-util.h"

bool check_dpkg_version(const CheckContext *c, const char *package, char *buf, size_t size)
{
	_cleanup_free_ char *text = NULL;
	size_t l = strlen(package);

	if (check_read(c, "/var/lib/dpkg/status", &text) < 0)
		return false;
	/* paragraphs of "Field: value" lines, Package: first */
	for (char *p = text; p && *p;) {
		char *end = strstr(p, "\n\n"), *f;
		bool installed = false, ours;

		if (end)
			*end = '\0';
		ours = startswith(p, "Package: ") && strncmp(p + 9, package, l) == 0 &&
		       (p[9 + l] == '\n' || p[9 + l] == '\0');
		if (ours) {
			installed = strstr(p, "\nStatus: install ok installed") != NULL;
			f = strstr(p, "\nVersion: ");
			if (installed) {
				if (f)
					snprintf(buf, size, "%.*s", (int)strcspn(f + 10, "\n"),
						 f + 10);
				else
					snprintf(buf, size, "?");
				return true;
			}
		}
		p = end ? end + 2 : NULL;
	}
	return false;
}

#define APT_LISTS "/var/lib/apt/lists"

/* The Version: of package's paragraph in one Packages file, or false. */
static bool packages_file_version(const CheckContext *c, const char *path, const char *package,
				  char *buf, size_t size)
{
	_cleanup_free_ char *full = check_path(c, path);
	_cleanup_fclose_ FILE *f = full ? fopen(full, "re") : NULL;
	_cleanup_free_ char *line = NULL;
	size_t n = 0, l = strlen(package);
	bool ours = false;
	ssize_t k;

	if (!f)
		return false;
	while ((k = getline(&line, &n, f)) >= 0) {
		if (k <= 1) /* a blank line ends a paragraph */
			ours = false;
		else if (startswith(line, "Package: "))
			ours = strncmp(line + 9, package, l) == 0 && line[9 + l] == '\n';
		else if (ours && startswith(line, "Version: ")) {
			snprintf(buf, size, "%.*s", (int)strcspn(line + 9, "\n"), line + 9);
			return true;
		}
	}
	return false;
}

/* "Candidate: V" of `apt-cache policy package`, run without a shell and
 * with apt's messages in English. apt-cache only reads. */
static int apt_cache_candidate(const char *package, char *buf, size_t size)
{
	char *argv[] = { (char *)"apt-cache", (char *)"policy", (char *)"--", (char *)package,
			 NULL };
	char *envp[] = { (char *)"LC_ALL=C", (char *)"PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL };
	posix_spawn_file_actions_t fa;
	char out[4096], *cand;
	int fds[2], status, r;
	bool timed_out = false;
	uint64_t deadline;
	size_t got = 0;
	ssize_t k;
	pid_t pid;

	if (access("/usr/bin/apt-cache", X_OK) < 0)
		return -errno;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	r = posix_spawn(&pid, "/usr/bin/apt-cache", &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	safe_close(fds[1]);
	if (r != 0) {
		safe_close(fds[0]);
		return -r;
	}
	/* Where apt keeps no binary cache (pkgcache.bin), apt-cache parses
	 * every list first: a second here, far longer on a slow machine. A
	 * check does not wait for it beyond APT_CACHE_TIMEOUT_MS. */
	deadline = now_usec(CLOCK_MONOTONIC) + APT_CACHE_TIMEOUT_MS * USEC_PER_MSEC;
	while (got + 1 < sizeof(out)) {
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
		uint64_t now = now_usec(CLOCK_MONOTONIC);

		if (now >= deadline) {
			timed_out = true;
			break;
		}
		k = poll(&pfd, 1, (int)((deadline - now) / USEC_PER_MSEC) + 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			continue; /* the deadline is checked above */
		k = read(fds[0], out + got, sizeof(out) - 1 - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	out[got] = '\0';
	safe_close(fds[0]);
	if (timed_out)
		(void)kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (timed_out)
		return -ETIMEDOUT;
	/* apt-cache prints nothing for a package it does not know */
	cand = strstr(out, "\n  Candidate: ");
	if (!cand)
		return -ENOENT;
	cand += 14;
	if (startswith(cand, "(none)"))
		return -ENOENT;
	snprintf(buf, size, "%.*s", (int)strcspn(cand, "\n"), cand);
	return 0;
}

int check_apt_candidate(const CheckContext *c, const char *package, char *buf, size_t size)
{
	DIR *d = check_opendir(c, APT_LISTS);
	bool lists = false, compressed = false;
	struct dirent *de;

	if (!d)
		return errno == ENOMEM ? -ENOMEM : -ENODATA;
	while ((de = readdir(d))) {
		_cleanup_free_ char *path = NULL;
		const char *p = strstr(de->d_name, "_Packages");

		if (!p)
			continue;
		lists = true;
		if (p[9] != '\0') {
			compressed = true; /* _Packages.lz4, .gz, .xz */
			continue;
		}
		if (asprintf(&path, APT_LISTS "/%s", de->d_name) < 0)
			break;
		if (packages_file_version(c, path, package, buf, size)) {
			closedir(d);
			return 0;
		}
	}
	closedir(d);
	if (!lists)
		return -ENODATA;
	/* compressed lists: apt itself reads them, on the live system only */
	if (compressed && !c->root[0])
		return apt_cache_candidate(package, buf, size);
	return -ENOENT;
}
