/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The machine's checks of realtimectl check (ctl-check.h): swappiness, CPU
 * frequency governors, the filesystem of the user's home, realtimed on the
 * bus, rtkit beside it, and pam_limits lines that fight the policy.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl-check.h"

#define SWAPPINESS_MAX 10

void check_swappiness(const CheckContext *c, CheckResult *r)
{
	static const char path[] = "/proc/sys/vm/swappiness";
	long long v;
	char value[32];
	int e;

	e = check_read_long(c, path, &v);
	if (e < 0) {
		check_skip_errno(r, path, e);
		return;
	}
	snprintf(value, sizeof(value), "%lld", v);
	if (v <= SWAPPINESS_MAX) {
		check_set(r, CHECK_OK, value, "vm.swappiness is %lld", v);
		return;
	}
	check_set(r, CHECK_WARN, value,
		  "vm.swappiness is %lld: the kernel swaps out readily, and a swapped-out page "
		  "of an audio program costs an xrun",
		  v);
	check_hint(r,
		   "echo 'vm.swappiness = %d' > /etc/sysctl.d/90-swappiness.conf && sysctl "
		   "--system (or lock the program's memory: MemLock= in the policy)",
		   SWAPPINESS_MAX);
}

static int cpu_dir_filter(const struct dirent *de)
{
	return startswith(de->d_name, "cpu") && isdigit((unsigned char)de->d_name[3]);
}

void check_cpu_governor(const CheckContext *c, CheckResult *r)
{
	static const char dir[] = "/sys/devices/system/cpu";
	_cleanup_free_ char *full = check_path(c, dir);
	char value[CHECK_VALUE_MAX] = "", not_perf[CHECK_VALUE_MAX] = "";
	unsigned n = 0, n_perf = 0, n_can = 0;
	struct dirent **cpus = NULL;
	int n_cpus;

	/* versionsort: cpu2 before cpu10, as people count */
	n_cpus = full ? scandir(full, &cpus, cpu_dir_filter, versionsort) : -1;
	if (n_cpus < 0) {
		check_skip_errno(r, dir, errno);
		return;
	}
	for (int i = 0; i < n_cpus; i++) {
		_cleanup_free_ char *path = NULL, *gov = NULL, *avail = NULL;
		const char *cpu = cpus[i]->d_name;

		if (asprintf(&path, "%s/%s/cpufreq/scaling_governor", dir, cpu) >= 0 &&
		    check_read(c, path, &gov) >= 0) {
			free(path);
			if (asprintf(&path, "%s/%s/cpufreq/scaling_available_governors", dir, cpu) <
			    0)
				path = NULL;
			else
				(void)check_read(c, path, &avail);
			n++;
			strbuf_append(value, sizeof(value), "%s%s:%s", value[0] ? " " : "", cpu,
				      gov);
			if (streq(gov, "performance"))
				n_perf++;
			else
				strbuf_append(not_perf, sizeof(not_perf), "%s%s",
					      not_perf[0] ? " " : "", cpu);
			n_can += avail && strstr(avail, "performance");
		}
		free(cpus[i]);
	}
	free(cpus);
	if (n == 0) {
		check_set(r, CHECK_INFO, "no cpufreq",
			  "no CPU frequency scaling (a virtual machine, or the firmware decides)");
		return;
	}
	if (n_perf == n) {
		check_set(r, CHECK_OK, value, "every CPU runs the performance governor");
		return;
	}
	if (n_can == 0) {
		check_set(r, CHECK_INFO, value,
			  "%u of %u CPUs not on the performance governor, and their driver offers "
			  "none",
			  n - n_perf, n);
		return;
	}
	check_set(r, CHECK_WARN, value,
		  "%u of %u CPUs (%s) not on the performance governor: clock changes under "
		  "load add latency",
		  n - n_perf, n, not_perf);
	check_hint(r, "cpupower frequency-set -g performance (package linux-cpupower); to keep it "
		      "over reboots, run it from a systemd unit or set GOVERNOR=performance in "
		      "/etc/default/cpufrequtils (package cpufrequtils)");
}

/* Unescapes the octal escapes (\040) of a mountinfo field in place. */
static void mountinfo_unescape(char *s)
{
	char *w = s;

	for (char *p = s; *p; p++) {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
		    p[3] >= '0' && p[3] <= '7') {
			*w++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
			p += 3;
		} else
			*w++ = *p;
	}
	*w = '\0';
}

static bool path_under(const char *path, const char *mount)
{
	size_t l = strlen(mount);

	if (streq(mount, "/"))
		return true;
	return strncmp(path, mount, l) == 0 && (path[l] == '/' || path[l] == '\0');
}

static bool has_option(const char *options, const char *opt)
{
	size_t l = strlen(opt);

	for (const char *p = options; p && *p;) {
		size_t n = strcspn(p, ",");

		if (n == l && strncmp(p, opt, l) == 0)
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

void check_filesystem(const CheckContext *c, CheckResult *r)
{
	static const char path[] = "/proc/self/mountinfo";
	_cleanup_free_ char *text = NULL;
	char best[256] = "", best_opts[128] = "", best_type[32] = "";
	char value[CHECK_VALUE_MAX];
	size_t best_len = 0;
	int e;

	if (!c->home) {
		check_set(r, CHECK_SKIP, "", "the user's home directory is unknown");
		return;
	}
	/* the mounts are the machine's, not the session's: this mount namespace */
	e = check_read(c, path, &text);
	if (e < 0) {
		check_skip_errno(r, path, e);
		return;
	}
	for (char *p = text, *nl; p && *p; p = nl ? nl + 1 : NULL) {
		char mnt[256], opts[128], type[32];

		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER */
		if (sscanf(p, "%*s %*s %*s %*s %255s %127s", mnt, opts) != 2)
			continue;
		char *sep = strstr(p, " - ");
		if (!sep || sscanf(sep + 3, "%31s", type) != 1)
			snprintf(type, sizeof(type), "?");
		mountinfo_unescape(mnt);
		if (path_under(c->home, mnt) && strlen(mnt) >= best_len) {
			best_len = strlen(mnt);
			snprintf(best, sizeof(best), "%s", mnt);
			snprintf(best_opts, sizeof(best_opts), "%s", opts);
			snprintf(best_type, sizeof(best_type), "%s", type);
		}
	}
	if (!best[0]) {
		check_set(r, CHECK_SKIP, "", "no mount holds %s", c->home);
		return;
	}
	snprintf(value, sizeof(value), "%s %s %s", best, best_type, best_opts);
	if (has_option(best_opts, "noatime") || has_option(best_opts, "relatime")) {
		check_set(r, CHECK_OK, value, "%s (holding %s) is mounted %s", best, c->home,
			  has_option(best_opts, "noatime") ? "noatime" : "relatime");
		return;
	}
	check_set(r, CHECK_WARN, value,
		  "%s (holding %s) updates the access time on every read: each read of a "
		  "sample is also a write",
		  best, c->home);
	check_hint(r,
		   "add noatime (or relatime) to the options of %s in /etc/fstab, then mount -o "
		   "remount,noatime %s",
		   best, best);
}

/* Whether a Debian package version (EPOCH:UPSTREAM-REVISION) is of the
 * upstream version running. */
static bool package_is_version(const char *package, const char *running)
{
	const char *up = strchr(package, ':') ? strchr(package, ':') + 1 : package;
	const char *dash = strrchr(up, '-');
	size_t n = dash ? (size_t)(dash - up) : strlen(up);

	return strlen(running) == n && strncmp(up, running, n) == 0;
}

void check_daemon(const CheckContext *c, CheckResult *r)
{
	char value[CHECK_VALUE_MAX], version[64] = "";
	CheckBus bus = { .max_priority = -1 };
	size_t n_files = c->policy ? policy_n_files(c->policy) : 0;
	size_t n_errors = c->policy ? policy_n_errors(c->policy) : 0;

	if (!check_dpkg_version(c, "realtimed", version, sizeof(version)))
		snprintf(version, sizeof(version), "none");
	if (!c->bus_query) {
		check_set(r, CHECK_SKIP, "", "realtimectl was built without D-Bus support");
		return;
	}
	c->bus_query(&bus);
	if (!bus.reachable) {
		snprintf(value, sizeof(value), "system bus unreachable: %s", bus.error);
		check_set(r, CHECK_FAIL, value, "the system bus cannot be reached: %s", bus.error);
		check_hint(r, "systemctl start dbus (package dbus-system-bus or dbus)");
		return;
	}
	if (!bus.realtimed) {
		bool activatable = check_exists(
			c, "/usr/share/dbus-1/system-services/org.realtimed.Realtime1.service");

		snprintf(value, sizeof(value),
			 "not running; package: %s; policy: %zu files, %zu rejected", version,
			 n_files, n_errors);
		check_set(r, CHECK_WARN, value,
			  "realtimed is not running%s: no grants without a re-login, no IRQ "
			  "priorities, no rtkit clients served",
			  activatable ? " (D-Bus would start it on the first request)" : "");
		check_hint(r, "systemctl enable --now realtimed");
		return;
	}
	snprintf(value, sizeof(value),
		 "pid %d; version %s; MaxRealtimePriority %d for you; package: %s; policy: %zu "
		 "files, %zu rejected",
		 (int)bus.realtimed_pid, bus.version[0] ? bus.version : "unknown", bus.max_priority,
		 version, n_files, n_errors);
	if (bus.version[0] && !streq(version, "none") &&
	    !package_is_version(version, bus.version)) {
		check_set(r, CHECK_WARN, value,
			  "the realtimed running (%s) is not the one installed (%s): an upgrade "
			  "waits for a restart",
			  bus.version, version);
		check_hint(r, "systemctl restart realtimed (grants stay supervised)");
		return;
	}
	if (n_errors > 0) {
		check_set(r, CHECK_WARN, value,
			  "realtimed runs, but %zu policy file%s rejected: it keeps its last good "
			  "policy",
			  n_errors, n_errors == 1 ? " is" : "s are");
		check_hint(r,
			   "realtimectl policy check, fix what it names, then realtimectl reload");
		return;
	}
	check_set(r, CHECK_OK, value, "realtimed runs (pid %d) and answers on the system bus",
		  (int)bus.realtimed_pid);
}

void check_rtkit_conflict(const CheckContext *c, CheckResult *r)
{
	CheckBus bus = { .max_priority = -1 };
	char version[64] = "", value[CHECK_VALUE_MAX];
	bool installed = check_dpkg_version(c, "rtkit", version, sizeof(version)) ||
			 check_exists(c, "/usr/libexec/rtkit-daemon") ||
			 check_exists(c, "/usr/lib/rtkit/rtkit-daemon");
	pid_t running = check_find_process(c, "rtkit-daemon");
	bool owns;

	if (c->bus_query)
		c->bus_query(&bus);
	owns = bus.rtkit_owned && !bus.rtkit_is_realtimed;
	snprintf(value, sizeof(value), "installed=%s running=%s RealtimeKit1=%s",
		 installed ? (version[0] ? version : "yes") : "no", running ? "yes" : "no",
		 !bus.reachable		  ? "unknown"
		 : !bus.rtkit_owned	  ? "none"
		 : bus.rtkit_is_realtimed ? "realtimed"
					  : "rtkit-daemon");
	if (running || owns) {
		check_set(r, CHECK_WARN, value,
			  "rtkit-daemon %s: it and realtimed both hand out realtime, by different "
			  "rules, and only one can answer rtkit's clients",
			  owns ? "owns org.freedesktop.RealtimeKit1" : "is running");
		check_hint(r, "systemctl stop rtkit-daemon && systemctl enable --now realtimed: "
			      "enabled, realtimed is rtkit-daemon.service too and answers rtkit's "
			      "clients (RtkitCompat=yes), which realtimed's Debian package sets up "
			      "itself; do not mask rtkit-daemon, that name is then realtimed's");
		return;
	}
	if (installed) {
		check_set(r, CHECK_INFO, value, "rtkit is installed but not running%s",
			  bus.rtkit_is_realtimed ? "; realtimed answers its clients" : "");
		return;
	}
	check_set(r, CHECK_OK, value, "rtkit is not installed");
}

void check_limits_conflict(const CheckContext *c, CheckResult *r)
{
	static const char *const items[] = { "rtprio", "memlock", "nice", NULL };
	_cleanup_free_ LimitsLine *lines = NULL;
	char value[CHECK_VALUE_MAX] = "", files[CHECK_HINT_MAX / 2] = "";
	size_t n = 0, n_match = 0;
	int e;

	e = check_limits_lines(c, items, &lines, &n);
	if (e < 0) {
		check_skip_errno(r, "/etc/security/limits.conf", e);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		strbuf_append(value, sizeof(value), "%s%s:%u %s %s %s %s", i ? "; " : "",
			      lines[i].file, lines[i].line, lines[i].domain, lines[i].type,
			      lines[i].item, lines[i].value);
		if (!strstr(files, lines[i].file))
			strbuf_append(files, sizeof(files), "%s%s", files[0] ? ", " : "",
				      lines[i].file);
		n_match += lines[i].matches;
	}
	if (n == 0) {
		check_set(r, CHECK_OK, "", "no pam_limits line sets rtprio, memlock or nice");
		return;
	}
	check_set(r, CHECK_WARN, value,
		  "%zu pam_limits line%s set rtprio, memlock or nice (%zu for %s): two sources "
		  "of the same limits, and whichever PAM runs last wins",
		  n, n == 1 ? "" : "s", n_match, c->user ?: "this user");
	check_hint(r,
		   "comment out those lines in %s (jackd2's audio.conf: dpkg-reconfigure jackd2 "
		   "and answer no; PipeWire's 95-pipewire.conf: delete it): pam_realtime sets "
		   "these limits from the policy",
		   files);
}
