/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the checks of realtimectl check share (ctl-check.h): reading files
 * under the root prefix, the kernel command line and config, pam_limits'
 * files, the PAM stack, dpkg's status, and filling a CheckResult.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl-check.h"
#include "time-util.h"

void strbuf_append(char *buf, size_t size, const char *fmt, ...)
{
	size_t l = strnlen(buf, size);
	va_list ap;

	if (l + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + l, size - l, fmt, ap);
	va_end(ap);
}

void check_set(CheckResult *r, CheckStatus s, const char *value, const char *fmt, ...)
{
	va_list ap;

	r->status = s;
	snprintf(r->value, sizeof(r->value), "%s", value ?: "");
	va_start(ap, fmt);
	vsnprintf(r->summary, sizeof(r->summary), fmt, ap);
	va_end(ap);
}

void check_hint(CheckResult *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->hint, sizeof(r->hint), fmt, ap);
	va_end(ap);
}

void check_skip_errno(CheckResult *r, const char *path, int err)
{
	err = err < 0 ? -err : err;
	if (err == ESRCH)
		check_set(r, CHECK_SKIP, "",
			  "no process of the user runs: log in, then check again");
	else if (err == EACCES || err == EPERM)
		check_set(r, CHECK_SKIP, "",
			  "cannot read %s: permission denied (run as root to see it)", path);
	else
		check_set(r, CHECK_SKIP, "", "cannot read %s: %s", path, strerror(err));
}

char *check_path(const CheckContext *c, const char *path)
{
	char *p;

	if (asprintf(&p, "%s%s", c->root ?: "", path) < 0)
		return NULL;
	return p;
}

int check_read(const CheckContext *c, const char *path, char **ret)
{
	_cleanup_free_ char *full = check_path(c, path), *buf = NULL;
	_cleanup_fclose_ FILE *f = NULL;
	size_t allocated = 0;
	ssize_t n;
	int fd;

	if (!full)
		return -ENOMEM;
	/* O_NONBLOCK: nothing under the root may make a check hang */
	fd = open(full, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	/* the files read are text: the whole of it, up to a NUL if any */
	errno = 0;
	n = getdelim(&buf, &allocated, '\0', f);
	if (n < 0) {
		if (errno)
			return -errno;
		n = 0; /* empty */
		if (!buf && !(buf = malloc(1)))
			return -ENOMEM;
	}
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		n--;
	buf[n] = '\0';
	*ret = TAKE_PTR(buf);
	return 0;
}

/* The session's file name ("limits", "status", "cgroup") under /proc/self
 * or /proc/PID; ret_path: its path, for a skip. */
int check_read_session(const CheckContext *c, const char *name, char *ret_path, size_t size,
		       char **ret)
{
	if (c->pid < 0) {
		snprintf(ret_path, size, "/proc/PID/%s", name);
		return -ESRCH;
	}
	if (c->pid > 0)
		snprintf(ret_path, size, "/proc/%d/%s", (int)c->pid, name);
	else
		snprintf(ret_path, size, "/proc/self/%s", name);
	return check_read(c, ret_path, ret);
}

int check_read_long(const CheckContext *c, const char *path, long long *ret)
{
	_cleanup_free_ char *s = NULL;
	char *end;
	long long v;
	int r;

	r = check_read(c, path, &s);
	if (r < 0)
		return r;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end)
		return -EBADMSG;
	*ret = v;
	return 0;
}

bool check_exists(const CheckContext *c, const char *path)
{
	_cleanup_free_ char *full = check_path(c, path);

	return full && access(full, F_OK) == 0;
}

bool check_cmdline_word(const CheckContext *c, const char *word, char *value, size_t size)
{
	size_t l = strlen(word);

	if (value && size)
		value[0] = '\0';
	for (const char *p = c->cmdline; p && *p;) {
		size_t n;

		p += strspn(p, " \t\n");
		n = strcspn(p, " \t\n");
		if (n >= l && strncmp(p, word, l) == 0 && (n == l || p[l] == '=')) {
			if (value && size && n > l)
				snprintf(value, size, "%.*s", (int)(n - l - 1), p + l + 1);
			return true;
		}
		p += n;
	}
	return false;
}

const char *check_kconfig(const CheckContext *c, const char *name, char *buf, size_t size)
{
	size_t l = strlen(name);

	for (const char *p = c->kconfig; p && *p;) {
		const char *nl = strchrnul(p, '\n');

		if ((size_t)(nl - p) > l && strncmp(p, name, l) == 0 && p[l] == '=') {
			const char *v = p + l + 1;
			size_t n = nl - v;

			if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
				v++;
				n -= 2;
			}
			snprintf(buf, size, "%.*s", (int)n, v);
			return buf;
		}
		p = *nl ? nl + 1 : nl;
	}
	return NULL;
}

int check_context_load(CheckContext *c)
{
	_cleanup_free_ char *path = NULL;
	int r;

	(void)check_read(c, "/proc/cmdline", &c->cmdline);
	(void)check_read(c, "/proc/sys/kernel/osrelease", &c->osrelease);
	(void)check_read(c, "/proc/version", &c->version);
	c->kconfig_errno = ENOENT;
	if (c->osrelease) {
		if (asprintf(&path, "/boot/config-%s", c->osrelease) < 0) {
			path = NULL;
			return -ENOMEM;
		}
		r = check_read(c, path, &c->kconfig);
		if (r == -ENOMEM)
			return r;
		c->kconfig_errno = r < 0 ? -r : 0;
	}
	return 0;
}

void check_context_done(CheckContext *c)
{
	free(c->cmdline);
	free(c->osrelease);
	free(c->version);
	free(c->kconfig);
	c->cmdline = c->osrelease = c->version = c->kconfig = NULL;
}

static bool user_in_group(const CheckContext *c, const char *group)
{
	if (!c->pu || !c->pu->group_names)
		return false;
	for (size_t i = 0; i < c->pu->n_gids; i++)
		if (streq_ptr(c->pu->group_names[i], group))
			return true;
	return false;
}

/* Does a pam_limits domain cover the checked user? "*", the name, @group,
 * %group (maxlogins' form, matched the same here). uid ranges count as
 * not covering: rare on the lines that set realtime items. */
static bool limits_domain_matches(const CheckContext *c, const char *domain)
{
	if (streq(domain, "*"))
		return c->uid != 0; /* pam_limits: '*' does not apply to root */
	if (domain[0] == '@' || domain[0] == '%')
		return user_in_group(c, domain + 1);
	return streq_ptr(c->user, domain);
}

static int limits_file_scan(const CheckContext *c, const char *path, const char *const *items,
			    LimitsLine **list, size_t *n)
{
	_cleanup_free_ char *text = NULL;
	unsigned line = 0;
	int r;

	r = check_read(c, path, &text);
	if (r < 0)
		return r;
	for (char *p = text, *nl; p && *p; p = nl ? nl + 1 : NULL) {
		char domain[64], type[8], item[16], value[32];
		LimitsLine *l;

		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		line++;
		p += strspn(p, " \t");
		if (*p == '#' || sscanf(p, "%63s %7s %15s %31s", domain, type, item, value) != 4)
			continue;
		bool wanted = false;
		for (size_t i = 0; items[i]; i++)
			wanted = wanted || streq(item, items[i]);
		if (!wanted)
			continue;
		l = reallocarray(*list, *n + 1, sizeof(LimitsLine));
		if (!l)
			return -ENOMEM;
		*list = l;
		l = &l[(*n)++];
		*l = (LimitsLine){ .line = line, .matches = limits_domain_matches(c, domain) };
		snprintf(l->file, sizeof(l->file), "%s", path);
		snprintf(l->domain, sizeof(l->domain), "%s", domain);
		snprintf(l->type, sizeof(l->type), "%s", type);
		snprintf(l->item, sizeof(l->item), "%s", item);
		snprintf(l->value, sizeof(l->value), "%s", value);
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.conf names of dir under the root, sorted. */
static int dir_conf_names(const CheckContext *c, const char *dir, char ***ret, size_t *ret_n)
{
	_cleanup_free_ char *full = check_path(c, dir);
	char **names = NULL;
	size_t n = 0;
	struct dirent *de;
	DIR *d;

	if (!full)
		return -ENOMEM;
	d = opendir(full);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		char **nn;

		if (de->d_name[0] == '.' || l < 6 || !streq(de->d_name + l - 5, ".conf"))
			continue;
		nn = reallocarray(names, n + 1, sizeof(char *));
		if (!nn)
			break;
		names = nn;
		if (asprintf(&names[n], "%s/%s", dir, de->d_name) < 0)
			break;
		n++;
	}
	closedir(d);
	if (n > 0)
		qsort(names, n, sizeof(char *), cmp_str);
	*ret = names;
	*ret_n = n;
	return 0;
}

int check_limits_lines(const CheckContext *c, const char *const *items, LimitsLine **ret,
		       size_t *ret_n)
{
	LimitsLine *list = NULL;
	char **names = NULL;
	size_t n = 0, n_names = 0;
	int r;

	r = limits_file_scan(c, "/etc/security/limits.conf", items, &list, &n);
	if (r == -ENOENT)
		r = 0;
	if (r >= 0 && dir_conf_names(c, "/etc/security/limits.d", &names, &n_names) >= 0)
		for (size_t i = 0; i < n_names; i++) {
			if (r >= 0) {
				r = limits_file_scan(c, names[i], items, &list, &n);
				if (r != -ENOMEM)
					r = 0; /* an unreadable drop-in: pam_limits skips it too */
			}
			free(names[i]);
		}
	free(names);
	if (r < 0) {
		free(list);
		return r;
	}
	*ret = list;
	*ret_n = n;
	return 0;
}

bool check_pam_realtime(const CheckContext *c)
{
	_cleanup_free_ char *full = check_path(c, "/etc/pam.d");
	struct dirent *de;
	bool found = false;
	DIR *d;

	if (!full || !(d = opendir(full)))
		return false;
	while (!found && (de = readdir(d))) {
		_cleanup_free_ char *path = NULL, *text = NULL;

		if (de->d_name[0] == '.' || asprintf(&path, "/etc/pam.d/%s", de->d_name) < 0)
			continue;
		if (check_read(c, path, &text) < 0)
			continue;
		for (char *p = text; p && *p && !found;) {
			char *nl = strchrnul(p, '\n');

			p += strspn(p, " \t");
			found = startswith(p, "session") &&
				memmem(p, nl - p, "pam_realtime.so", 15);
			p = *nl ? nl + 1 : nl;
		}
	}
	closedir(d);
	return found;
}

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

/* The Version: of package's paragraph in one Packages file, or false. */
static bool packages_file_version(const char *path, const char *package, char *buf, size_t size)
{
	_cleanup_fclose_ FILE *f = fopen(path, "re");
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
	_cleanup_free_ char *dir = check_path(c, "/var/lib/apt/lists");
	bool lists = false, compressed = false;
	struct dirent *de;
	DIR *d;

	if (!dir)
		return -ENOMEM;
	d = opendir(dir);
	if (!d)
		return -ENODATA;
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
		if (asprintf(&path, "%s/%s", dir, de->d_name) < 0)
			break;
		if (packages_file_version(path, package, buf, size)) {
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

pid_t check_find_process(const CheckContext *c, const char *comm)
{
	_cleanup_free_ char *full = check_path(c, "/proc");
	struct dirent *de;
	pid_t found = 0;
	DIR *d;

	if (!full || !(d = opendir(full)))
		return 0;
	while (!found && (de = readdir(d))) {
		_cleanup_free_ char *path = NULL, *name = NULL;

		if (!isdigit((unsigned char)de->d_name[0]) ||
		    asprintf(&path, "/proc/%s/comm", de->d_name) < 0)
			continue;
		if (check_read(c, path, &name) >= 0 && streq(name, comm))
			found = (pid_t)atoi(de->d_name);
	}
	closedir(d);
	return found;
}
