// SPDX-License-Identifier: GPL-2.0-or-later
/* The cache of NSS lookups (an Entry per uid, with the waits on it), on
 * the loop; see resolver.h. The lookups run in the NssHelper. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "log.h"
#include "nss-helper.h"
#include "resolver.h"

/* the helper takes as many lookups as there are entries to be pending */
static_assert(NSS_HELPER_LOOKUPS_MAX == RESOLVER_CACHE_SIZE, "one lookup per cache entry");

typedef struct Wait Wait;

typedef enum EntryState {
	ENTRY_FREE,
	ENTRY_PENDING, /* a lookup in flight */
	ENTRY_DONE,    /* no lookup; the last answer is used until expires_usec */
} EntryState;

/* A uid's last answer outlives its lifetime and a flush: its user stands
 * in while NSS fails or hangs, for stale_max_usec after read_usec. */
typedef struct Entry {
	EntryState state;
	uid_t uid;
	int error;	  /* the last answer: 0 (user) or -ESRCH; 0 if none */
	PolicyUser *user; /* the last good answer (error 0), or NULL */
	uint64_t read_usec;
	uint64_t expires_usec; /* ENTRY_DONE */
	bool stale;	       /* ENTRY_PENDING: the lookup outlasted a stale wait */
	bool outage;	       /* the last good answer was served: logged once */
	uint64_t gen;	       /* ENTRY_PENDING: the resolver's generation at the ask */
	Wait *waits;
	unsigned busy; /* its waits are being answered: not to be reused */
	int giving;    /* busy: what they are answered with */
} Entry;

struct Wait {
	Resolver *r;
	Entry *e;
	resolver_done_t done;
	void *userdata;
	void (*free_userdata)(void *userdata);
	sd_event_source *timer;
	uint64_t stale_usec;	/* from then on, a last good answer will do */
	uint64_t deadline_usec; /* then -ETIMEDOUT */
	Wait *next;
};

struct Resolver {
	sd_event *event;
	NssHelper *helper;
	ResolverSettings settings;
	uint64_t gen;
	unsigned n_lookups, n_waits;
	Entry entries[RESOLVER_CACHE_SIZE];
};

/* Asks the helper for e's uid; e is ENTRY_PENDING with it. */
static int entry_start(Resolver *r, Entry *e)
{
	EntryState was = e->state;
	int k;

	/* pending first: a wait begun from inside nss_helper_ask() (a helper
	 * lost on the way answers the lookups it had) joins this lookup */
	e->state = ENTRY_PENDING;
	e->gen = r->gen;
	e->stale = false; /* the new lookup gets its stale wait */
	k = nss_helper_ask(r->helper, e->uid);
	if (k < 0) {
		e->state = was;
		return k;
	}
	r->n_lookups++;
	return 0;
}

/* Forgets e and its last answer; e has no waits. */
static void entry_clear(Entry *e)
{
	policy_user_free(e->user);
	*e = (Entry){ .state = ENTRY_FREE };
}

/* Whether e's last good answer may still stand in for a lookup. */
static bool entry_stale_ok(const Resolver *r, const Entry *e, uint64_t now)
{
	return e->user && now < e->read_usec + r->settings.stale_max_usec;
}

static bool entry_expired(const Entry *e, uint64_t now)
{
	return e->state == ENTRY_DONE && e->expires_usec <= now;
}

/* Whether e answers now, without a lookup: its last answer within the
 * lifetime, or its last good answer while a lookup hangs in an outage. */
static bool entry_at_hand(const Resolver *r, const Entry *e, uint64_t now)
{
	if (e->state == ENTRY_DONE)
		return !entry_expired(e, now);
	return e->state == ENTRY_PENDING && e->stale && entry_stale_ok(r, e, now);
}

/* The directory failed (error) or hangs (-ETIMEDOUT) and e's last good
 * answer is served: said once per outage of the user. */
static void entry_outage(const Resolver *r, Entry *e, int error, uint64_t now)
{
	char why[128];

	if (e->outage)
		return;
	e->outage = true;
	if (error == -ETIMEDOUT)
		snprintf(why, sizeof(why), "gave no answer within %llu ms",
			 (unsigned long long)(r->settings.stale_wait_usec / USEC_PER_MSEC));
	else
		snprintf(why, sizeof(why), "failed (%s)", strerror(-error));
	log_warning("uid %u: serving its last good answer (read %llu s ago) while NSS %s; "
		    "until NSS answers, for %llu min after the read at most",
		    (unsigned)e->uid, (unsigned long long)((now - e->read_usec) / USEC_PER_SEC),
		    why, (unsigned long long)(r->settings.stale_max_usec / (60 * USEC_PER_SEC)));
}

/* e's last good answer is no longer served: NSS answered, or it is too old. */
static void entry_outage_end(const Resolver *r, Entry *e, bool answered)
{
	if (!e->outage)
		return;
	e->outage = false;
	if (answered)
		log_info("uid %u: NSS answers again; its last good answer is no longer served",
			 (unsigned)e->uid);
	else
		log_warning("uid %u: its last good answer is older than %llu min and no longer "
			    "served; NSS still does not answer",
			    (unsigned)e->uid,
			    (unsigned long long)(r->settings.stale_max_usec / (60 * USEC_PER_SEC)));
}

/* answered: done was called, which owns userdata from then on */
static void wait_free(Wait *w, bool answered)
{
	w->r->n_waits--;
	sd_event_source_disable_unref(w->timer);
	if (!answered && w->free_userdata)
		w->free_userdata(w->userdata);
	free(w);
}

/* Answers the waits of list, taken off e, with error (and e->user); waits
 * that begin meanwhile are left on e, for the caller to start or answer. */
static void waits_answer(Entry *e, Wait *list, int error)
{
	int saved = e->giving;

	e->busy++;
	e->giving = error;
	while (list) {
		Wait *w = list;

		list = w->next;
		w->done(e->uid, error, error == 0 ? e->user : NULL, w->userdata);
		wait_free(w, true);
	}
	e->giving = saved;
	e->busy--;
}

static void wait_answer(Wait *w, int error)
{
	Wait **p = &w->e->waits;

	while (*p != w)
		p = &(*p)->next;
	*p = w->next;
	w->next = NULL;
	waits_answer(w->e, w, error);
}

/* A lookup read before a flush came back: its result is not used; the
 * uid is asked again for whoever still waits. */
static void entry_retry(Resolver *r, Entry *e)
{
	if (e->waits && entry_start(r, e) >= 0)
		return;
	e->state = ENTRY_DONE;
	e->expires_usec = 0;
	waits_answer(e, TAKE_PTR(e->waits), -EAGAIN);
}

static Entry *entry_find(Resolver *r, uid_t uid)
{
	for (size_t i = 0; i < RESOLVER_CACHE_SIZE; i++)
		if (r->entries[i].state != ENTRY_FREE && r->entries[i].uid == uid)
			return &r->entries[i];
	return NULL;
}

/* A lookup came back from the helper. An answer (the user, or no such
 * user) replaces the last; a failure does not: the last good answer
 * stands in while it may, else the failure is the waits' answer and is not
 * cached. */
static void resolver_lookup_done(uid_t uid, int error, PolicyUser *user, void *userdata)
{
	_cleanup_(policy_user_freep) PolicyUser *u = user;
	uint64_t now = now_usec(CLOCK_MONOTONIC);
	Resolver *r = userdata;
	Entry *e = entry_find(r, uid);

	if (!e || e->state != ENTRY_PENDING)
		return;
	if (error == 0 || error == -ESRCH)
		entry_outage_end(r, e, true);
	if (e->gen != r->gen) {
		entry_retry(r, e);
		return;
	}
	e->state = ENTRY_DONE;
	if (error == 0 || error == -ESRCH) {
		/* "no such user" too replaces the last good answer: a user
		 * deleted is never brought back by the answer from before */
		policy_user_free(e->user);
		e->user = TAKE_PTR(u);
		e->error = error;
		e->read_usec = now;
		e->expires_usec = now + r->settings.lifetime_usec;
		waits_answer(e, TAKE_PTR(e->waits), error);
		return;
	}
	if (entry_stale_ok(r, e, now)) {
		entry_outage(r, e, error, now);
		/* NSS is asked again after the lifetime, not at each request */
		e->expires_usec = now + r->settings.lifetime_usec;
		if (e->expires_usec > e->read_usec + r->settings.stale_max_usec)
			e->expires_usec = e->read_usec + r->settings.stale_max_usec;
		waits_answer(e, TAKE_PTR(e->waits), 0);
		return;
	}
	entry_outage_end(r, e, false);
	e->user = policy_user_free(e->user);
	e->error = 0;
	e->expires_usec = 0; /* a wait that begins meanwhile starts a lookup */
	waits_answer(e, TAKE_PTR(e->waits), error);
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *userdata);

/* Sets w's timer: now for an answer at hand, else its stale wait (when a
 * last good answer could stand in) or its deadline. */
static int wait_arm(Resolver *r, Wait *w, uint64_t now)
{
	Entry *e = w->e;
	uint64_t at = w->deadline_usec;

	if (entry_at_hand(r, e, now))
		at = now;
	else if (entry_stale_ok(r, e, now) && w->stale_usec < at)
		at = w->stale_usec;
	/* a new timer: the old one may be the one dispatching (freed after) */
	w->timer = sd_event_source_disable_unref(w->timer);
	return sd_event_add_time(r->event, &w->timer, CLOCK_MONOTONIC, at, 0, on_timeout, w);
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *userdata)
{
	Wait *w = userdata;
	Resolver *r = w->r;
	Entry *e = w->e;
	uint64_t now = now_usec(CLOCK_MONOTONIC);
	int k;

	if (entry_at_hand(r, e, now)) {
		wait_answer(w, e->user ? 0 : e->error);
		return 0;
	}
	/* an answer that expired (or was flushed) before w's turn is not
	 * given: an expired answer always means a new lookup */
	if (e->state == ENTRY_DONE) {
		k = entry_start(r, e);
		if (k < 0) {
			wait_answer(w, k);
			return 0;
		}
	}
	if (now >= w->stale_usec && entry_stale_ok(r, e, now)) {
		/* at hand for everyone until the lookup, which goes on, ends */
		entry_outage(r, e, -ETIMEDOUT, now);
		e->stale = true;
		waits_answer(e, TAKE_PTR(e->waits), 0);
		return 0;
	}
	if (!entry_stale_ok(r, e, now))
		entry_outage_end(r, e, false);
	/* the lookup goes on, its result cached for those who ask later */
	if (now >= w->deadline_usec) {
		wait_answer(w, -ETIMEDOUT);
		return 0;
	}
	k = wait_arm(r, w, now);
	if (k < 0)
		wait_answer(w, k);
	return 0;
}

int resolver_new(sd_event *e, const ResolverSettings *settings, Resolver **ret)
{
	_cleanup_(resolver_freep) Resolver *r = calloc(1, sizeof(*r));
	int k;

	if (!r)
		return -ENOMEM;
	r->settings = settings ? *settings
			       : (ResolverSettings){
					 .timeout_usec = RESOLVE_TIMEOUT_USEC,
					 .lifetime_usec = RESOLVE_CACHE_USEC,
					 .threads_max = RESOLVER_THREADS_MAX,
				 };
	if (r->settings.stale_wait_usec == 0)
		r->settings.stale_wait_usec = RESOLVE_STALE_WAIT_USEC;
	/* a wait that times out first would never take the last good answer */
	if (r->settings.stale_wait_usec > r->settings.timeout_usec)
		r->settings.stale_wait_usec = r->settings.timeout_usec;
	if (r->settings.stale_max_usec == 0)
		r->settings.stale_max_usec = RESOLVE_STALE_MAX_USEC;
	if (!r->settings.helper)
		r->settings.helper = getenv("REALTIMED_NSS_HELPER") ?: REALTIMED_NSS_PATH;
	r->event = sd_event_ref(e);
	k = nss_helper_new(e, r->settings.helper, r->settings.threads_max, resolver_lookup_done, r,
			   &r->helper);
	if (k < 0)
		return k;
	*ret = TAKE_PTR(r);
	return 0;
}

int resolver_start(Resolver *r)
{
	return nss_helper_start(r->helper);
}

Resolver *resolver_free(Resolver *r)
{
	if (!r)
		return NULL;
	for (size_t i = 0; i < RESOLVER_CACHE_SIZE; i++) {
		Entry *e = &r->entries[i];

		while (e->waits) {
			Wait *w = e->waits;

			e->waits = w->next;
			wait_free(w, false);
		}
		entry_clear(e);
	}
	nss_helper_free(r->helper);
	sd_event_unref(r->event);
	return mfree(r);
}

int resolver_get(Resolver *r, uid_t uid, const PolicyUser **ret_user)
{
	Entry *e = entry_find(r, uid);

	if (!e)
		return -ENOENT;
	/* while its waits are answered, what they are answered with: a wait's
	 * done and resolver_get() never disagree */
	if (!(e->busy && (e->giving == 0 || e->giving == -ESRCH)) &&
	    !entry_at_hand(r, e, now_usec(CLOCK_MONOTONIC)))
		return -ENOENT;
	if (!e->user)
		return e->error;
	*ret_user = e->user;
	return 0;
}

/* An entry for a new lookup: a free one, else the idle result that
 * expires first (expired ones first of all). NULL when every entry is a
 * lookup in flight. */
static Entry *entry_take(Resolver *r)
{
	Entry *best = NULL;

	for (size_t i = 0; i < RESOLVER_CACHE_SIZE; i++) {
		Entry *e = &r->entries[i];

		if (e->state == ENTRY_FREE)
			return e;
		if (e->state == ENTRY_DONE && !e->busy && !e->waits &&
		    (!best || e->expires_usec < best->expires_usec))
			best = e;
	}
	if (best)
		entry_clear(best);
	return best;
}

int resolver_wait(Resolver *r, uid_t uid, resolver_done_t done, void *userdata,
		  void (*free_userdata)(void *userdata))
{
	uint64_t now = now_usec(CLOCK_MONOTONIC);
	Entry *e = entry_find(r, uid);
	Wait *w;
	int k;

	if (r->n_waits >= RESOLVER_WAITS_MAX)
		return -EBUSY;
	if (!e) {
		e = entry_take(r);
		if (!e)
			return -EBUSY;
		e->uid = uid;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	*w = (Wait){ .r = r,
		     .e = e,
		     .done = done,
		     .userdata = userdata,
		     .free_userdata = free_userdata,
		     .stale_usec = now + r->settings.stale_wait_usec,
		     .deadline_usec = now + r->settings.timeout_usec };
	/* even while its waits are being answered: a wait answered from an
	 * expired answer would send its caller back to wait, again and again */
	k = 0;
	if (e->state == ENTRY_FREE || entry_expired(e, now))
		k = entry_start(r, e);
	/* a result at hand is answered from the loop, not from inside this
	 * call: the caller is not ready for done() yet */
	if (k >= 0)
		k = wait_arm(r, w, now);
	if (k < 0) {
		sd_event_source_disable_unref(w->timer);
		free(w);
		return k;
	}
	w->next = e->waits;
	e->waits = w;
	r->n_waits++;
	return 0;
}

void resolver_flush(Resolver *r)
{
	r->gen++;
	for (size_t i = 0; i < RESOLVER_CACHE_SIZE; i++)
		if (r->entries[i].state == ENTRY_DONE)
			r->entries[i].expires_usec = 0;
}

unsigned resolver_n_lookups(Resolver *r)
{
	return r->n_lookups;
}
