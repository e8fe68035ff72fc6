// SPDX-License-Identifier: GPL-2.0-or-later
/* The shield while realtime grants run; see shield.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "shield-apply.h"
#include "shield-cpufreq.h"
#include "shield-cpus.h"
#include "shield-irqbalance.h"
#include "shield-pin.h"
#include "shield.h"
#include "string-table.h"

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
	const char *from[4] = { roots->proc, roots->sys, roots->run, roots->state_dir };
	int r;

	if (!s)
		return -ENOMEM;
	s->event = sd_event_ref(event);
	for (size_t i = 0; i < ELEMENTSOF(from); i++)
		if (!(s->roots_mem[i] = strdup(from[i])))
			goto oom;
	s->roots = (ShieldRoots){ .proc = s->roots_mem[0],
				  .sys = s->roots_mem[1],
				  .run = s->roots_mem[2],
				  .state_dir = s->roots_mem[3] };
	r = shield_record_new(roots->state_dir, &s->record);
	if (r < 0)
		goto oom;
	*ret = s;
	return 0;
oom:
	shield_free(s);
	return -ENOMEM;
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
		shield_restore_all(&s->roots, s->record, when, NULL);
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

/* Writes the record's values from first on; a value the kernel refuses is
 * dropped from the record, and an IRQ that stays on the shield is listed
 * with the reason. */
static void apply_from(Shield *s, size_t first)
{
	/* irqbalance first, so that its next pass leaves the shield alone;
	 * the values second */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = first; i < s->record->n;) {
			ShieldEntry *e = &s->record->entries[i];
			bool ib = e->kind == SHIELD_KIND_IRQBALANCE_CPUS ||
				  e->kind == SHIELD_KIND_IRQBALANCE_IRQS;
			char what[SHIELD_NAME_MAX + 64], rel[64];
			CpuSet eff;
			int r;

			if (ib != (pass == 0)) {
				i++;
				continue;
			}
			r = shield_apply_entry(&s->roots, e);
			if (r >= 0) {
				s->moved += e->kind == SHIELD_KIND_IRQ;
				i++;
				continue;
			}
			shield_entry_describe(e, what, sizeof(what));
			if (e->kind == SHIELD_KIND_IRQ) {
				/* only what still lands on the shield is worth a word */
				snprintf(rel, sizeof(rel), "irq/%u/effective_affinity_list", e->id);
				if (shield_file_read_cpus(s->roots.proc, rel, false, &eff) < 0 ||
				    cpu_set_intersects(&eff, &s->cpus))
					shield_move_left(&s->plan, e->id, e->name,
							 "not moved: %s (%s)",
							 shield_file_write_hint(r), strerror(-r));
			} else if (e->kind != SHIELD_KIND_THREAD || r != -ESRCH) {
				log_warning_errno(r,
						  "Failed to set %s to %s for the shield: %m; %s",
						  what, e->want, shield_file_write_hint(r));
				if (!s->problem[0])
					snprintf(s->problem, sizeof(s->problem),
						 "%s could not be set: %s", what, strerror(-r));
			}
			shield_record_drop(s->record, i);
		}
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

/* What plan_and_apply() looks at: everything at the take; after a device
 * event what may have appeared (IRQs, governors of CPUs come online);
 * after a change of the grant table only the threads to pin. */
typedef enum PlanWhat {
	PLAN_TAKE,
	PLAN_DEVICES,
	PLAN_PINS,
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
	apply_from(s, first);
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
	Shield *s = userdata;

	shield_release(s, "the last realtime grant ended");
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
		(void)shield_restore_entry(&s->roots, e);
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
		log_warning_errno(r,
				  "Failed to read %s: %m; what it lists stays as the shield left "
				  "it",
				  s->record->path);
	if (bad > 0)
		log_warning("Skipped %u damaged lines of %s: the values they named stay as the "
			    "shield left them",
			    bad, s->record->path);
	shield_restore_all(&s->roots, s->record, "left by a realtimed that did not stop", NULL);
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

/* Is a realtime (not nice-level) grant supervised? */
static bool any_realtime(GrantTable *t)
{
	GRANT_TABLE_FOREACH(p, g, t)
		if (g->kind != POLICY_GRANT_NICE)
			return true;
	return false;
}

void shield_sync(Daemon *d)
{
	if (!d->shield)
		return;
	shield_update(d->shield, d->policy, d->grants, d->grants && any_realtime(d->grants));
}
