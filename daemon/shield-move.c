// SPDX-License-Identifier: GPL-2.0-or-later
/* What the shield moves off its CPUs and how it writes it; see shield-move.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "parse.h"
#include "procfs-interrupts.h"
#include "procfs-irq.h"
#include "procfs-stat.h"
#include "shield-move.h"
#include "utf8.h"

#define AUDIO_IRQS_MAX 64

static void add_irq(unsigned irq, unsigned *ret, size_t max, size_t *n)
{
	size_t i = 0;

	while (i < *n && ret[i] < irq)
		i++;
	if ((i < *n && ret[i] == irq) || *n >= max)
		return;
	memmove(ret + i + 1, ret + i, (*n - i) * sizeof(*ret));
	ret[i] = irq;
	(*n)++;
}

/* The IRQs of the device at dir (a path from /): its MSI vectors, and the
 * irq file's (INTx) when it has one. How many it has. */
static size_t device_irqs(const char *dir, unsigned *ret, size_t max, size_t *n)
{
	_cleanup_(closedirp) DIR *d = NULL;
	char path[PATH_MAX + 16], buf[32];
	size_t found = 0;
	uint64_t v;
	struct dirent *de;

	snprintf(path, sizeof(path), "%s/msi_irqs", dir);
	d = opendir(path);
	while (d && (de = readdir(d)))
		if (parse_decimal(de->d_name, UINT32_MAX, &v) >= 0) {
			add_irq((unsigned)v, ret, max, n);
			found++;
		}
	/* 0 in the irq file: no INTx line */
	if (shield_file_read(dir, "irq", buf, sizeof(buf)) >= 0 &&
	    parse_decimal(buf, UINT32_MAX, &v) >= 0 && v > 0) {
		add_irq((unsigned)v, ret, max, n);
		found++;
	}
	return found;
}

static int shield_audio_irqs(const char *sys, unsigned *ret, size_t max, size_t *ret_n)
{
	_cleanup_(closedirp) DIR *d = NULL;
	char top[PATH_MAX], path[PATH_MAX + 320];
	struct dirent *de;
	size_t n = 0;
	uint64_t v;

	*ret_n = 0;
	if (!realpath(sys, top))
		return -errno;
	snprintf(path, sizeof(path), "%s/class/sound", top);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		const char *num = startswith(de->d_name, "card");
		char dev[PATH_MAX];

		if (!num || parse_decimal(num, UINT32_MAX, &v) < 0)
			continue;
		snprintf(path, sizeof(path), "%s/class/sound/%s/device", top, de->d_name);
		if (!realpath(path, dev))
			continue;
		/* up from the card's device, never above the sysfs root */
		while (startswith(dev, top) && dev[strlen(top)] == '/') {
			char *slash;

			if (device_irqs(dev, ret, max, &n) > 0)
				break;
			slash = strrchr(dev, '/');
			if (!slash)
				break;
			*slash = '\0';
		}
	}
	*ret_n = n;
	return 0;
}

void shield_move_left(ShieldMovePlan *plan, unsigned irq, const char *name, const char *fmt, ...)
{
	ShieldLeft *l;
	va_list ap;

	if (plan->n_left >= SHIELD_LEFT_MAX)
		return;
	l = &plan->left[plan->n_left++];
	l->irq = irq;
	snprintf(l->name, sizeof(l->name), "%s", name);
	va_start(ap, fmt);
	utf8_vsnprintf(l->why, sizeof(l->why), fmt, ap);
	va_end(ap);
}

/* Does a blank-separated glob of keep match name? The glob into buf. */
static bool keep_matches(const char *keep, const char *name, char *buf, size_t size)
{
	for (const char *p = keep; *p;) {
		size_t n;

		p += strspn(p, " \t");
		n = strcspn(p, " \t");
		if (n == 0)
			break;
		if (n < size) {
			memcpy(buf, p, n);
			buf[n] = '\0';
			if (fnmatch(buf, name, 0) == 0)
				return true;
		}
		p += n;
	}
	return false;
}

/* Why IRQ irq stays where it is, into why; false when it may move. */
static bool irq_kept(const ShieldRoots *roots, const ShieldMovePlan *plan, unsigned irq,
		     const unsigned *audio, size_t n_audio, char *why, size_t size)
{
	char **names = NULL, glob[POLICY_TEXT_MAX], esc[2 * POLICY_TEXT_MAX];
	size_t n = 0;
	bool kept = false;

	for (size_t i = 0; i < n_audio; i++)
		if (audio[i] == irq) {
			snprintf(why, size, "kept: a sound card's device");
			return true;
		}
	if (procfs_irq_actions(roots->proc, irq, &names, &n) < 0)
		return false;
	for (size_t i = 0; i < n && !kept; i++) {
		const PolicyIrqRule *rule =
			plan->policy ? policy_irq_match(plan->policy, names[i]) : NULL;

		if (rule) {
			utf8_escape(rule->pattern, 0, esc, sizeof(esc));
			utf8_snprintf(why, size, "kept: [IRQ] %s", esc);
			kept = true;
		} else if (plan->keep && keep_matches(plan->keep, names[i], glob, sizeof(glob))) {
			utf8_escape(glob, 0, esc, sizeof(esc));
			utf8_snprintf(why, size, "kept: ShieldKeep=%s", esc);
			kept = true;
		}
	}
	procfs_irq_actions_free(names);
	return kept;
}

/* What cpus (a value of the file at root/rel, a list or a mask) becomes
 * off the shield, into want; false when it does not reach the shield. */
static bool move_off(const ShieldMovePlan *plan, const CpuSet *cpus, bool mask, char *want,
		     size_t size)
{
	CpuSet to;

	if (!cpu_set_intersects(cpus, plan->shield))
		return false;
	cpu_set_andnot(&to, cpus, plan->shield);
	if (cpu_set_is_empty(&to))
		to = *plan->rest;
	return (mask ? cpu_set_format_mask(&to, want, size)
		     : cpu_set_format_list(&to, want, size)) >= 0;
}

int shield_move_plan_irqs(const ShieldRoots *roots, ShieldMovePlan *plan, ShieldRecord *record)
{
	unsigned audio[AUDIO_IRQS_MAX];
	size_t n_audio = 0;
	char path[4096];
	IrqCounts c = {};
	int added = 0, r;

	snprintf(path, sizeof(path), "%s/interrupts", roots->proc);
	r = procfs_irq_counts_read(path, false, NULL, 0, &c);
	if (r < 0)
		return r;
	r = shield_audio_irqs(roots->sys, audio, ELEMENTSOF(audio), &n_audio);
	if (r < 0)
		log_warning_errno(r,
				  "Failed to list the sound cards' IRQs under %s/class/sound: "
				  "%m; only [IRQ] rules and ShieldKeep= keep IRQs on the shield",
				  roots->sys);
	for (size_t i = 0; i < c.n_sources; i++) {
		const IrqSource *s = &c.sources[i];
		char rel[64], before[8192], want[8192], why[160];
		CpuSet cpus;
		uint64_t irq;

		if (parse_decimal(s->key, UINT32_MAX, &irq) < 0 ||
		    shield_record_find(record, SHIELD_KIND_IRQ, (unsigned)irq))
			continue;
		snprintf(rel, sizeof(rel), "irq/%u/smp_affinity_list", (unsigned)irq);
		if (shield_file_read(roots->proc, rel, before, sizeof(before)) < 0 ||
		    cpu_set_parse_list(before, &cpus) < 0 ||
		    !move_off(plan, &cpus, false, want, sizeof(want)))
			continue;
		if (irq_kept(roots, plan, (unsigned)irq, audio, n_audio, why, sizeof(why))) {
			shield_move_left(plan, (unsigned)irq, s->action, "%s", why);
			if (plan->n_kept < SHIELD_KEPT_MAX)
				plan->kept[plan->n_kept++] = (unsigned)irq;
			continue;
		}
		r = shield_record_add(record, SHIELD_KIND_IRQ, (unsigned)irq, s->action, before,
				      want, plan->irqbalance);
		if (r < 0) {
			log_warning_errno(r, "Failed to note IRQ %u for the shield: %m; it stays",
					  (unsigned)irq);
			break;
		}
		added++;
	}
	procfs_irq_counts_done(&c);
	return added;
}

/* Plans the mask file root/rel; 1 when added. */
static int plan_mask(const char *root, const char *rel, const ShieldMovePlan *plan, ShieldKind kind,
		     ShieldRecord *record)
{
	char before[8192], want[8192];
	CpuSet cpus;
	int r;

	if (shield_record_find(record, kind, 0))
		return 0;
	r = shield_file_read(root, rel, before, sizeof(before));
	if (r >= 0 && cpu_set_parse_mask(before, &cpus) < 0)
		r = -EBADMSG;
	if (r == -ENOENT)
		return 0; /* not on this kernel */
	if (r < 0)
		return log_warning_errno(r, "Failed to read %s/%s: %m; it stays on the shield",
					 root, rel);
	if (!move_off(plan, &cpus, true, want, sizeof(want)))
		return 0;
	r = shield_record_add(record, kind, 0, "", before, want, false);
	return r < 0 ? r : 1;
}

int shield_move_plan_defaults(const ShieldRoots *roots, const ShieldMovePlan *plan, bool irq,
			      ShieldRecord *record)
{
	int n = 0, r;

	if (irq) {
		r = plan_mask(roots->proc, "irq/default_smp_affinity", plan,
			      SHIELD_KIND_IRQ_DEFAULT, record);
		n += r > 0;
	}
	r = plan_mask(roots->sys, "devices/virtual/workqueue/cpumask", plan, SHIELD_KIND_WORKQUEUE,
		      record);
	return n + (r > 0);
}

#define CPUFREQ "devices/system/cpu/cpu%u/cpufreq/"

/* Is name one of the blank-separated words of the file root/rel? */
static bool listed(const char *sys, const char *rel, const char *name)
{
	char buf[1024];

	if (shield_file_read(sys, rel, buf, sizeof(buf)) < 0)
		return false;
	for (const char *p = buf; *p;) {
		size_t n;

		p += strspn(p, " \t");
		n = strcspn(p, " \t");
		if (n == strlen(name) && strncmp(p, name, n) == 0)
			return true;
		p += n;
	}
	return false;
}

int shield_cpufreq_plan(const char *sys, const CpuSet *shield, const char *name,
			ShieldRecord *record, char *why, size_t size)
{
	int added = 0;

	why[0] = '\0';
	if (isempty(name))
		return 0;
	for (int cpu = cpu_set_next(shield, -1); cpu >= 0; cpu = cpu_set_next(shield, cpu)) {
		ShieldEntry e = { .id = (unsigned)cpu };
		char rel[128], before[64];
		int r;

		if (shield_record_find(record, SHIELD_KIND_GOVERNOR, e.id) ||
		    shield_record_find(record, SHIELD_KIND_EPP, e.id))
			continue;
		snprintf(rel, sizeof(rel), CPUFREQ "scaling_available_governors", e.id);
		if (listed(sys, rel, name))
			e.kind = SHIELD_KIND_GOVERNOR;
		else {
			snprintf(rel, sizeof(rel),
				 CPUFREQ "energy_performance_available_preferences", e.id);
			if (!listed(sys, rel, name)) {
				if (!why[0])
					snprintf(why, size,
						 "CPU %d has no cpufreq governor or "
						 "energy-performance preference named %s "
						 "(ShieldGovernor=)",
						 cpu, name);
				continue;
			}
			e.kind = SHIELD_KIND_EPP;
		}
		(void)shield_entry_file(&(ShieldRoots){ .sys = sys }, &e, rel, sizeof(rel));
		r = shield_file_read(sys, rel, before, sizeof(before));
		if (r < 0) {
			if (!why[0])
				snprintf(why, size, "cannot read %s/%s: %s", sys, rel,
					 strerror(-r));
			continue;
		}
		if (streq(before, name))
			continue;
		r = shield_record_add(record, e.kind, e.id, "", before, name, false);
		if (r < 0)
			return r;
		added++;
	}
	return added;
}

/* The "PID-START" of a thread's entry. */
static int entry_thread(const ShieldEntry *e, pid_t *ret_pid, uint64_t *ret_start)
{
	int pid;

	if (sscanf(e->name, "%d-%" SCNu64, &pid, ret_start) != 2 || pid <= 0)
		return -EINVAL;
	*ret_pid = pid;
	return 0;
}

/* Is (pid, tid) still the thread that started at start? */
static bool same_thread(const char *proc, pid_t pid, pid_t tid, uint64_t start)
{
	uint64_t now;

	return procfs_start_time(proc, pid, tid == pid ? 0 : tid, &now) >= 0 && now == start;
}

static int get_affinity(pid_t tid, CpuSet *ret)
{
	cpu_set_t *set = CPU_ALLOC(CPU_SET_MAX);
	size_t size = CPU_ALLOC_SIZE(CPU_SET_MAX);
	int r = 0;

	if (!set)
		return -ENOMEM;
	if (sched_getaffinity(tid, size, set) < 0)
		r = -errno;
	else {
		cpu_set_clear(ret);
		for (unsigned c = 0; c < CPU_SET_MAX; c++)
			if (CPU_ISSET_S(c, size, set))
				cpu_set_add(ret, c);
	}
	CPU_FREE(set);
	return r;
}

static int set_affinity(pid_t tid, const char *list)
{
	cpu_set_t *set = CPU_ALLOC(CPU_SET_MAX);
	size_t size = CPU_ALLOC_SIZE(CPU_SET_MAX);
	CpuSet cpus;
	int r = 0;

	if (!set)
		return -ENOMEM;
	if (cpu_set_parse_list(list, &cpus) < 0)
		r = -EBADMSG;
	else {
		CPU_ZERO_S(size, set);
		for (int c = cpu_set_next(&cpus, -1); c >= 0; c = cpu_set_next(&cpus, c))
			CPU_SET_S((unsigned)c, size, set);
		if (sched_setaffinity(tid, size, set) < 0)
			r = -errno;
	}
	CPU_FREE(set);
	return r;
}

bool shield_pin_granted(GrantTable *t, const ShieldEntry *e)
{
	uint64_t start;
	pid_t pid;
	Grant *g;

	if (entry_thread(e, &pid, &start) < 0)
		return false;
	g = grant_table_find(t, pid, (pid_t)e->id);
	return g && g->start_time == start && g->kind != POLICY_GRANT_NICE;
}

int shield_pin_plan(const char *proc, GrantTable *t, const CpuSet *shield, ShieldRecord *record)
{
	char want[4096];
	unsigned pinned = 0;
	int added = 0, r;

	if (cpu_set_format_list(shield, want, sizeof(want)) < 0)
		return -E2BIG;
	for (size_t i = 0; i < record->n; i++)
		pinned += record->entries[i].kind == SHIELD_KIND_THREAD;
	GRANT_TABLE_FOREACH(p, g, t) {
		char name[SHIELD_NAME_MAX], before[4096];
		CpuSet cpus;

		if (g->kind == POLICY_GRANT_NICE || pinned >= SHIELD_PINS_MAX ||
		    shield_record_find(record, SHIELD_KIND_THREAD, (unsigned)g->tid) ||
		    !same_thread(proc, p->pid, g->tid, g->start_time) ||
		    get_affinity(g->tid, &cpus) < 0 ||
		    cpu_set_format_list(&cpus, before, sizeof(before)) < 0)
			continue;
		snprintf(name, sizeof(name), "%d-%" PRIu64, (int)p->pid, g->start_time);
		r = shield_record_add(record, SHIELD_KIND_THREAD, (unsigned)g->tid, name, before,
				      want, false);
		if (r < 0)
			return r;
		pinned++;
		added++;
	}
	return added;
}

int shield_pin_apply(const char *proc, ShieldEntry *e)
{
	char now[4096], *copy;
	uint64_t start;
	CpuSet cpus;
	pid_t pid;
	int r;

	if (entry_thread(e, &pid, &start) < 0 || !same_thread(proc, pid, (pid_t)e->id, start))
		return -ESRCH;
	r = set_affinity((pid_t)e->id, e->want);
	if (r < 0)
		return r;
	/* what the kernel made of it is what a give-back compares with */
	if (get_affinity((pid_t)e->id, &cpus) >= 0 &&
	    cpu_set_format_list(&cpus, now, sizeof(now)) >= 0 && (copy = strdup(now))) {
		free(e->want);
		e->want = copy;
	}
	return 0;
}

int shield_pin_restore(const char *proc, const ShieldEntry *e, bool *ret_gone)
{
	CpuSet now, want;
	uint64_t start;
	pid_t pid;
	int r;

	*ret_gone =
		entry_thread(e, &pid, &start) < 0 || !same_thread(proc, pid, (pid_t)e->id, start);
	if (*ret_gone)
		return 0;
	r = get_affinity((pid_t)e->id, &now);
	if (r < 0)
		return r;
	if (cpu_set_parse_list(e->want, &want) < 0 || !cpu_set_equal(&now, &want))
		return 0;
	r = set_affinity((pid_t)e->id, e->before);
	return r < 0 ? r : 1;
}

static int open_under(const char *root, const char *rel, int flags)
{
	char path[4096];
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", root, rel) >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, flags | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	return fd < 0 ? -errno : fd;
}

int shield_file_read(const char *root, const char *rel, char *buf, size_t size)
{
	_cleanup_close_ int fd = -EBADF;
	ssize_t n;

	if (size < 2)
		return -EFBIG;
	fd = open_under(root, rel, O_RDONLY);
	if (fd < 0)
		return fd;
	n = read(fd, buf, size - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	/* a line cut by the buffer is no value */
	if ((size_t)n == size - 1 && !memchr(buf, '\0', (size_t)n))
		return -EFBIG;
	return 0;
}

int shield_file_read_cpus(const char *root, const char *rel, bool mask, CpuSet *ret)
{
	char buf[8192];
	int r;

	r = shield_file_read(root, rel, buf, sizeof(buf));
	if (r < 0)
		return r;
	r = mask ? cpu_set_parse_mask(buf, ret) : cpu_set_parse_list(buf, ret);
	return r < 0 ? -EBADMSG : 0;
}

int shield_file_write(const char *root, const char *rel, const char *value)
{
	_cleanup_close_ int fd = -EBADF;
	char buf[8192];
	size_t l;
	ssize_t n;

	l = (size_t)snprintf(buf, sizeof(buf), "%s\n", value);
	if (l >= sizeof(buf))
		return -E2BIG;
	fd = open_under(root, rel, O_WRONLY | O_NOFOLLOW);
	if (fd < 0)
		return fd;
	n = write(fd, buf, l);
	if (n < 0)
		return -errno;
	return (size_t)n == l ? 0 : -EIO;
}

const char *shield_file_write_hint(int err)
{
	switch (err) {
	case -EROFS:
		return "the file is read-only to realtimed: realtimed.service's ReadWritePaths= "
		       "must name it";
	case -EACCES:
	case -EPERM:
		return "the kernel lets no one write it (a managed IRQ on 6.12) or realtimed may "
		       "not";
	case -EIO:
		return "the kernel refuses to move it (a managed IRQ, which it keeps on its "
		       "CPUs, as NVMe and virtio queues are, or one that cannot move)";
	case -EINVAL:
		return "the kernel refuses the value";
	case -ENOENT:
		return "no such file on this kernel";
	default:
		return "an unexpected error";
	}
}
