// SPDX-License-Identifier: GPL-2.0-or-later
/* The shield's state machine and its CPUs; see shield.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "cpu-dma.h"
#include "log.h"
#include "macro.h"
#include "shield-irqbalance.h"
#include "shield-move.h"
#include "shield.h"
#include "string-table.h"

typedef enum ShieldMode {
	SHIELD_MODE_NONE,
	SHIELD_MODE_AUTO,
	SHIELD_MODE_LIST,
} ShieldMode;

/* The shield's keys of [Daemon]. */
typedef struct ShieldConfig {
	ShieldMode mode;
	CpuSet list; /* SHIELD_MODE_LIST */
	char keep[POLICY_TEXT_MAX];
	bool pin;
	char governor[POLICY_TEXT_MAX];
} ShieldConfig;

struct Shield {
	sd_event *event;
	ShieldRoots roots;
	char *roots_mem[4];
	ShieldRecord *record;
	const Policy *policy; /* at the last update: its [IRQ] rules */
	GrantTable *grants;
	ShieldConfig config;
	ShieldState state;
	bool want;
	CpuSet cpus, rest;   /* while held */
	ShieldMovePlan plan; /* its left and kept IRQs, while held */
	unsigned moved;
	ShieldIrqbalance irqbalance;
	char problem[1024];
	char logged[1024]; /* the refusal logged last: not again until it changes */
	sd_event_source *linger, *settle, *resume;
};

/* auto takes one core in AUTO_SHARE on machines of AUTO_SHARE_FROM cores or more. */
#define AUTO_SHARE 8
#define AUTO_SHARE_FROM 16

static void shield_config_from_policy(const PolicyDaemon *pd, ShieldConfig *ret)
{
	ShieldConfig c = { .mode = SHIELD_MODE_NONE, .pin = pd->shield_pin };

	if (streq(pd->shield, "auto"))
		c.mode = SHIELD_MODE_AUTO;
	else if (!streq(pd->shield, "none") && !isempty(pd->shield) &&
		 cpu_set_parse_list(pd->shield, &c.list) >= 0 && !cpu_set_is_empty(&c.list))
		c.mode = SHIELD_MODE_LIST;
	memcpy(c.keep, pd->shield_keep, sizeof(c.keep));
	memcpy(c.governor, pd->shield_governor, sizeof(c.governor));
	*ret = c;
}

static bool shield_config_equal(const ShieldConfig *a, const ShieldConfig *b)
{
	return a->mode == b->mode && cpu_set_equal(&a->list, &b->list) && streq(a->keep, b->keep) &&
	       a->pin == b->pin && streq(a->governor, b->governor);
}

/* CPU cpu's core: its SMT siblings that are online (itself alone where the
 * kernel does not say). */
static void core_of(const char *sys, unsigned cpu, const CpuSet *online, CpuSet *ret)
{
	char rel[96];

	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%u/topology/thread_siblings_list", cpu);
	if (shield_file_read_cpus(sys, rel, false, ret) < 0 || !cpu_set_has(ret, cpu))
		cpu_set_clear(ret);
	cpu_set_add(ret, cpu);
	cpu_set_and(ret, ret, online);
}

/* Does rest hold a whole core (every online sibling of one of its CPUs)? */
static bool holds_core(const char *sys, const CpuSet *rest, const CpuSet *online)
{
	for (int cpu = cpu_set_next(rest, -1); cpu >= 0; cpu = cpu_set_next(rest, cpu)) {
		CpuSet core;

		core_of(sys, (unsigned)cpu, online, &core);
		if (cpu_set_is_subset(&core, rest))
			return true;
	}
	return false;
}

/* auto: the highest-numbered cores, one or one in AUTO_SHARE. */
static void choose_auto(const char *sys, const CpuSet *online, CpuSet *ret)
{
	unsigned n_cores = 0, want;
	CpuSet seen;

	cpu_set_clear(&seen);
	for (int cpu = cpu_set_next(online, -1); cpu >= 0; cpu = cpu_set_next(online, cpu)) {
		CpuSet core;

		if (cpu_set_has(&seen, (unsigned)cpu))
			continue;
		core_of(sys, (unsigned)cpu, online, &core);
		cpu_set_or(&seen, &seen, &core);
		n_cores++;
	}
	want = n_cores >= AUTO_SHARE_FROM ? n_cores / AUTO_SHARE : 1;
	cpu_set_clear(ret);
	/* from the highest CPU down, a core at a time */
	for (unsigned taken = 0; taken < want;) {
		CpuSet left, core;
		int top;

		cpu_set_andnot(&left, online, ret);
		top = cpu_set_last(&left);
		if (top < 0)
			break;
		core_of(sys, (unsigned)top, online, &core);
		cpu_set_or(ret, ret, &core);
		taken++;
	}
}

static int shield_cpus_choose(const char *sys, const ShieldConfig *c, CpuSet *ret_shield,
			      CpuSet *ret_rest, char *why, size_t size)
{
	char list[256], rest_list[256];
	CpuSet online, shield, rest;
	int r;

	why[0] = '\0';
	r = shield_file_read_cpus(sys, "devices/system/cpu/online", false, &online);
	if (r < 0) {
		snprintf(why, size, "cannot read %s/devices/system/cpu/online: %s", sys,
			 strerror(-r));
		return r;
	}
	switch (c->mode) {
	case SHIELD_MODE_NONE:
		snprintf(why, size, "Shield= is none");
		return -EINVAL;
	case SHIELD_MODE_AUTO:
		choose_auto(sys, &online, &shield);
		break;
	case SHIELD_MODE_LIST:
		cpu_set_and(&shield, &c->list, &online);
		if (cpu_set_is_empty(&shield)) {
			(void)cpu_set_format_list(&c->list, list, sizeof(list));
			snprintf(why, size, "none of the CPUs of Shield=%s is online", list);
			return -EINVAL;
		}
		break;
	}
	cpu_set_andnot(&rest, &online, &shield);
	(void)cpu_set_format_list(&shield, list, sizeof(list));
	(void)cpu_set_format_list(&rest, rest_list, sizeof(rest_list));
	if (!cpu_set_has(&rest, 0) || !holds_core(sys, &rest, &online)) {
		snprintf(why, size,
			 "shielding CPUs %s would leave the rest of the machine (CPUs %s) %s: "
			 "it needs CPU 0 and at least one whole core",
			 list, rest_list[0] ? rest_list : "none",
			 cpu_set_has(&rest, 0) ? "no whole core" : "without CPU 0");
		return -EINVAL;
	}
	*ret_shield = shield;
	*ret_rest = rest;
	return 0;
}

static const char *const state_names[_SHIELD_STATE_MAX] = {
	[SHIELD_UNSET] = "unset",     [SHIELD_RELEASED] = "released",
	[SHIELD_HELD] = "held",	      [SHIELD_LINGERING] = "lingering",
	[SHIELD_REFUSED] = "refused", [SHIELD_FAILED] = "failed",
};

const char *shield_state_to_string(ShieldState st)
{
	return string_table_lookup(state_names, ELEMENTSOF(state_names), st);
}

int shield_new(sd_event *event, const ShieldRoots *roots, Shield **ret)
{
	Shield *s = calloc(1, sizeof(*s));
	char **m;

	if (!s)
		return -ENOMEM;
	s->event = sd_event_ref(event);
	m = s->roots_mem;
	if (!(m[0] = strdup(roots->proc)) || !(m[1] = strdup(roots->sys)) ||
	    !(m[2] = strdup(roots->run)) || !(m[3] = strdup(roots->state_dir)) ||
	    shield_record_new(roots->state_dir, &s->record) < 0) {
		shield_free(s);
		return -ENOMEM;
	}
	s->roots = (ShieldRoots){ m[0], m[1], m[2], m[3] };
	*ret = s;
	return 0;
}

static void timers_stop(Shield *s)
{
	s->linger = sd_event_source_disable_unref(s->linger);
	s->settle = sd_event_source_disable_unref(s->settle);
	s->resume = sd_event_source_disable_unref(s->resume);
}

Shield *shield_free(Shield *s)
{
	if (!s)
		return NULL;
	timers_stop(s);
	s->record = shield_record_free(s->record);
	for (size_t i = 0; i < ELEMENTSOF(s->roots_mem); i++)
		free(s->roots_mem[i]);
	sd_event_unref(s->event);
	free(s);
	return NULL;
}

static bool held(const Shield *s)
{
	return s->state == SHIELD_HELD || s->state == SHIELD_LINGERING;
}

/* Gives everything back; the state after is unset or released. */
static void shield_release(Shield *s, const char *when)
{
	timers_stop(s);
	if (s->record->n > 0)
		shield_restore_all(&s->roots, s->record, when);
	if (held(s)) {
		char list[256];

		(void)cpu_set_format_list(&s->cpus, list, sizeof(list));
		log_info("Shield on CPUs %s given back: %s", list, when);
	}
	s->state = s->config.mode == SHIELD_MODE_NONE ? SHIELD_UNSET : SHIELD_RELEASED;
	s->plan.n_left = s->plan.n_kept = 0;
	s->moved = 0;
	s->problem[0] = '\0';
	s->irqbalance = (ShieldIrqbalance){};
}

/* Saves the record; false (and the values planned from first on dropped)
 * when it cannot be: nothing may change that could not be given back. */
static bool record_save(Shield *s, size_t first)
{
	int r = shield_record_save(s->record);

	if (r >= 0)
		return true;
	log_error_errno(r,
			"Failed to write %s: %m; the shield changes nothing it could not give "
			"back after a crash (is %s writable?)",
			s->record->path, s->roots.state_dir);
	while (s->record->n > first)
		shield_record_drop(s->record, s->record->n - 1);
	snprintf(s->problem, sizeof(s->problem), "cannot write %s: %s", s->record->path,
		 strerror(-r));
	return false;
}

typedef enum PlanWhat {
	PLAN_TAKE,    /* everything */
	PLAN_DEVICES, /* what may have appeared: IRQs, CPUs come online */
	PLAN_PINS,    /* the threads to pin */
} PlanWhat;

/* Plans what is not in the record yet, records it and applies it. Returns
 * how many values were planned, -EIO when the record could not be
 * written. */
static int plan_and_apply(Shield *s, PlanWhat what)
{
	size_t first = s->record->n;
	bool irqs = s->irqbalance.state != SHIELD_IRQBALANCE_UNREACHABLE;
	char why[256] = "";
	int r;

	if (what == PLAN_PINS)
		goto pins;
	/* the IRQs that stay are listed anew, those the kernel refused too */
	s->plan.n_left = s->plan.n_kept = 0;
	s->plan.shield = &s->cpus;
	s->plan.rest = &s->rest;
	s->plan.policy = s->policy;
	s->plan.keep = s->config.keep;
	s->plan.irqbalance = s->irqbalance.state == SHIELD_IRQBALANCE_TOLD;
	if (irqs) {
		r = shield_move_plan_irqs(&s->roots, &s->plan, s->record);
		if (r < 0)
			log_warning_errno(r,
					  "Failed to read %s/interrupts: %m; no IRQ is moved off "
					  "the shield",
					  s->roots.proc);
	}
	(void)shield_move_plan_defaults(&s->roots, &s->plan, irqs, s->record);
	if (what == PLAN_TAKE) {
		r = shield_irqbalance_plan(&s->irqbalance, &s->cpus, s->plan.kept, s->plan.n_kept,
					   s->record);
		if (r < 0)
			log_warning_errno(r, "Failed to plan irqbalance's settings: %m; it may "
					     "move the kept IRQs");
	}
	r = shield_cpufreq_plan(s->roots.sys, &s->cpus, s->config.governor, s->record, why,
				sizeof(why));
	if (why[0] && !s->problem[0])
		snprintf(s->problem, sizeof(s->problem), "%s", why);
pins:
	if (s->config.pin && s->grants)
		(void)shield_pin_plan(s->roots.proc, s->grants, &s->cpus, s->record);
	if (s->record->n == first)
		return 0;
	if (!record_save(s, first))
		return -EIO;
	s->moved += shield_apply_from(&s->roots, s->record, first, &s->plan, s->problem,
				      sizeof(s->problem));
	(void)record_save(s, s->record->n);
	return (int)(s->record->n - first);
}

/* Logs a refusal once, until it changes. */
static void refuse(Shield *s, ShieldState st, const char *why)
{
	s->state = st;
	snprintf(s->problem, sizeof(s->problem), "%s", why);
	if (!streq(s->logged, why))
		log_warning("Not shielding CPUs while realtime grants run: %s", why);
	snprintf(s->logged, sizeof(s->logged), "%s", why);
}

static int resume_arm(Shield *s);

static void shield_take(Shield *s)
{
	char why[1024], list[256];
	int r;

	r = shield_cpus_choose(s->roots.sys, &s->config, &s->cpus, &s->rest, why, sizeof(why));
	if (r < 0) {
		refuse(s, SHIELD_REFUSED, why);
		return;
	}
	s->problem[0] = '\0';
	shield_irqbalance_find(&s->roots, &s->irqbalance);
	(void)cpu_set_format_list(&s->cpus, list, sizeof(list));
	if (s->irqbalance.state == SHIELD_IRQBALANCE_UNREACHABLE) {
		snprintf(why, sizeof(why),
			 "%s: IRQs are not moved off the shield (it would move them back); "
			 "set IRQBALANCE_BANNED_CPULIST=%s in /etc/default/irqbalance, or stop it",
			 s->irqbalance.why, list);
		snprintf(s->problem, sizeof(s->problem), "%s", why);
		log_warning("%s", why);
	}
	s->state = SHIELD_HELD;
	if (plan_and_apply(s, PLAN_TAKE) == -EIO) {
		refuse(s, SHIELD_FAILED, s->problem);
		return;
	}
	s->logged[0] = '\0';
	(void)resume_arm(s);
	log_info(
		"Shielding CPUs %s while realtime grants run: %u IRQs moved off them, %zu stay%s%s",
		list, s->moved, s->plan.n_left,
		s->irqbalance.state == SHIELD_IRQBALANCE_TOLD ? ", irqbalance told" : "",
		s->problem[0] ? " (see realtimectl status)" : "");
}

/* A reload or a device: a new choice of CPUs takes the shield anew, the
 * same one moves what appeared since. */
static void shield_reapply(Shield *s, const char *why)
{
	CpuSet cpus, rest;
	char text[512];
	int r;

	if (!held(s))
		return;
	r = shield_cpus_choose(s->roots.sys, &s->config, &cpus, &rest, text, sizeof(text));
	if (r < 0 || !cpu_set_equal(&cpus, &s->cpus)) {
		shield_release(s, why);
		shield_take(s);
		return;
	}
	r = plan_and_apply(s, PLAN_DEVICES);
	if (r > 0)
		log_debug("Shield re-applied (%s): %d more values", why, r);
}

static int on_linger(sd_event_source *es, uint64_t usec, void *userdata)
{
	shield_release(userdata, "the last realtime grant ended");
	return 0;
}

static int on_settle(sd_event_source *es, uint64_t usec, void *userdata)
{
	shield_reapply(userdata, "devices or CPUs changed");
	return 0;
}

/* Arms a one-shot timer in *source (made at the first need). */
static int arm(Shield *s, sd_event_source **source, uint64_t usec, sd_event_time_handler_t cb)
{
	int r;

	if (*source) {
		r = sd_event_source_set_time_relative(*source, usec);
		return r < 0 ? r : sd_event_source_set_enabled(*source, SD_EVENT_ONESHOT);
	}
	return sd_event_add_time_relative(s->event, source, CLOCK_MONOTONIC, usec, 0, cb, s);
}

static int on_clock_set(sd_event_source *es, int fd, uint32_t revents, void *userdata)
{
	Shield *s = userdata;
	uint64_t n;

	/* ECANCELED: the clock was set, as it is at resume */
	if (read(fd, &n, sizeof(n)) < 0 && errno == ECANCELED) {
		(void)resume_arm(s);
		(void)arm(s, &s->settle, SHIELD_SETTLE_USEC, on_settle);
	}
	return 0;
}

/* A timerfd far in the future that the kernel cancels when the clock is
 * set: at resume (timekeeping_resume()) and by settimeofday(). */
static int resume_arm(Shield *s)
{
	struct itimerspec its = {};
	int fd, r;

	/* ten years on: it is never meant to expire */
	(void)clock_gettime(CLOCK_REALTIME, &its.it_value);
	its.it_value.tv_sec += 10 * 366 * 24 * 3600;
	if (!s->resume) {
		fd = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC | TFD_NONBLOCK);
		if (fd < 0)
			return log_warning_errno(errno,
						 "Failed to watch for resume: %m; the shield "
						 "is re-applied at device events only");
		r = sd_event_add_io(s->event, &s->resume, fd, EPOLLIN, on_clock_set, s);
		if (r < 0) {
			close(fd);
			return log_warning_errno(r, "Failed to watch for resume: %m");
		}
		(void)sd_event_source_set_io_fd_own(s->resume, true);
	}
	fd = sd_event_source_get_io_fd(s->resume);
	if (timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &its, NULL) < 0)
		return log_warning_errno(errno, "Failed to watch for resume: %m");
	return 0;
}

void shield_uevent(Shield *s, const char *event)
{
	if (!s || !held(s))
		return;
	if (!startswith(event, "add@") && !startswith(event, "bind@") &&
	    !startswith(event, "online@/devices/system/cpu/") &&
	    !startswith(event, "offline@/devices/system/cpu/"))
		return;
	if (s->settle && sd_event_source_get_enabled(s->settle, NULL) > 0)
		return; /* one re-apply covers a burst */
	if (arm(s, &s->settle, SHIELD_SETTLE_USEC, on_settle) < 0)
		log_warning(
			"Failed to arm the shield's re-apply: devices added now keep their IRQs "
			"on the shield until the next reload");
}

/* Pins the new realtime grants, and gives their own affinity back to the
 * threads whose grant ended. */
static void pins_sync(Shield *s)
{
	bool changed = false;

	for (size_t i = 0; i < s->record->n;) {
		const ShieldEntry *e = &s->record->entries[i];

		if (e->kind != SHIELD_KIND_THREAD ||
		    (s->config.pin && s->grants && shield_pin_granted(s->grants, e))) {
			i++;
			continue;
		}
		(void)shield_restore_entry(&s->roots, e, NULL);
		shield_record_drop(s->record, i);
		changed = true;
	}
	if (changed)
		(void)record_save(s, s->record->n);
	if (s->config.pin && s->want && s->grants)
		(void)plan_and_apply(s, PLAN_PINS);
}

void shield_update(Shield *s, const Policy *p, GrantTable *t, bool want)
{
	ShieldConfig c;

	shield_config_from_policy(policy_daemon(p), &c);
	s->policy = p;
	s->grants = t;
	s->want = want;
	if (held(s) && !shield_config_equal(&c, &s->config))
		shield_release(s, c.mode == SHIELD_MODE_NONE ? "Shield= was unset"
							     : "the shield's settings changed");
	s->config = c;
	if (c.mode == SHIELD_MODE_NONE) {
		s->state = SHIELD_UNSET;
		s->problem[0] = s->logged[0] = '\0';
		return;
	}
	if (!want) {
		if (held(s)) {
			s->state = SHIELD_LINGERING;
			if (!s->linger || sd_event_source_get_enabled(s->linger, NULL) <= 0)
				if (arm(s, &s->linger, SHIELD_LINGER_USEC, on_linger) < 0)
					shield_release(s, "the last realtime grant ended");
		} else {
			s->state = SHIELD_RELEASED;
			s->problem[0] = '\0';
		}
		if (held(s))
			pins_sync(s);
		return;
	}
	if (s->linger)
		(void)sd_event_source_set_enabled(s->linger, SD_EVENT_OFF);
	if (!held(s))
		shield_take(s);
	else {
		s->state = SHIELD_HELD;
		pins_sync(s);
	}
}

void shield_recover(Shield *s)
{
	unsigned bad = 0;
	int r;

	r = shield_record_load(s->record, &bad);
	if (r == -ENOENT)
		return;
	if (r < 0)
		log_warning_errno(
			r, "Failed to read %s: %m; what it lists stays as the shield left it",
			s->record->path);
	if (bad > 0)
		log_warning("Skipped %u damaged lines of %s: the values they named stay as the "
			    "shield left them",
			    bad, s->record->path);
	shield_restore_all(&s->roots, s->record, "left by a realtimed that did not stop");
}

void shield_stop(Shield *s)
{
	if (s)
		shield_release(s, "realtimed stops");
}

void shield_status(const Shield *s, ShieldStatus *ret)
{
	*ret = (ShieldStatus){ .state = s->state, .moved = s->moved };
	if (held(s)) {
		(void)cpu_set_format_list(&s->cpus, ret->cpus, sizeof(ret->cpus));
		ret->left = s->plan.left;
		ret->n_left = s->plan.n_left;
	}
	if (s->irqbalance.state == SHIELD_IRQBALANCE_TOLD)
		snprintf(ret->irqbalance, sizeof(ret->irqbalance), "told (pid %d)",
			 (int)s->irqbalance.pid);
	else if (s->irqbalance.state == SHIELD_IRQBALANCE_UNREACHABLE)
		snprintf(ret->irqbalance, sizeof(ret->irqbalance), "%s", s->irqbalance.why);
	snprintf(ret->problem, sizeof(ret->problem), "%s", s->problem);
}

void shield_sync(Daemon *d)
{
	if (!d->shield)
		return;
	shield_update(d->shield, d->policy, d->grants, cpu_dma_n_grants(d) > 0);
}
