// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * NSS lookups on worker threads, their results cached on the loop; see
 * resolver.h.
 *
 * Two halves. The loop owns the cache (Entry, one per uid, with the waits
 * on it) and never locks it. The Pool is what the loop shares with the
 * workers, under one mutex: the queue of jobs, the list of jobs done, and
 * the eventfd that wakes the loop. The Pool is reference-counted (the loop
 * and each worker), because a worker stuck in NSS may outlive the
 * Resolver: it frees the Pool when it finally ends, if it is the last.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "resolver.h"

/* One lookup: queued by the loop, run by a worker, handed back. */
typedef struct Job {
	uid_t uid;
	uint64_t gen; /* the resolver's generation when it was queued */
	int error;
	PolicyUser *user;
	struct Job *next;
} Job;

typedef struct Pool {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned refs; /* the loop's, and one per worker */
	bool quit;
	resolver_lookup_t lookup;
	unsigned n_threads, n_idle;
	Job *queue, **queue_tail;
	size_t n_queued;
	Job *done, **done_tail;
	int efd;
} Pool;

typedef struct Wait Wait;

typedef enum EntryState {
	ENTRY_FREE,
	ENTRY_PENDING, /* a job in flight */
	ENTRY_DONE,    /* a result, until expires_usec */
} EntryState;

typedef struct Entry {
	EntryState state;
	uid_t uid;
	int error;	  /* ENTRY_DONE: 0 or -ESRCH */
	PolicyUser *user; /* ENTRY_DONE, error 0 */
	uint64_t expires_usec;
	Job *job; /* ENTRY_PENDING: the job in flight (the worker's) */
	Wait *waits;
	unsigned busy; /* its waits are being answered: not to be reused */
} Entry;

struct Wait {
	Resolver *r;
	Entry *e;
	resolver_done_t done;
	void *userdata;
	void (*free_userdata)(void *userdata);
	sd_event_source *timer;
	Wait *prev, *next;
};

struct Resolver {
	sd_event *event;
	sd_event_source *io;
	Pool *pool;
	ResolverSettings settings;
	uint64_t gen;
	unsigned n_lookups;
	unsigned n_waits;
	Entry entries[RESOLVER_CACHE_SIZE];
};

static void job_free(Job *j)
{
	if (!j)
		return;
	policy_user_free(j->user);
	free(j);
}

static void pool_unref(Pool *p)
{
	bool last;

	pthread_mutex_lock(&p->lock);
	last = --p->refs == 0;
	pthread_mutex_unlock(&p->lock);
	if (!last)
		return;
	for (Job *j = p->queue, *n; j; j = n) {
		n = j->next;
		job_free(j);
	}
	for (Job *j = p->done, *n; j; j = n) {
		n = j->next;
		job_free(j);
	}
	safe_close(p->efd);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

static void *worker_main(void *userdata)
{
	Pool *p = userdata;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		Job *j;

		while (!p->quit && !p->queue) {
			p->n_idle++;
			pthread_cond_wait(&p->cond, &p->lock);
			p->n_idle--;
		}
		if (p->quit)
			break;
		j = p->queue;
		p->queue = j->next;
		if (!p->queue)
			p->queue_tail = &p->queue;
		p->n_queued--;
		pthread_mutex_unlock(&p->lock);

		j->next = NULL;
		j->error = p->lookup(j->uid, &j->user);

		pthread_mutex_lock(&p->lock);
		*p->done_tail = j;
		p->done_tail = &j->next;
		/* a full counter (never, in practice) still wakes the loop */
		(void)eventfd_write(p->efd, 1);
	}
	p->n_threads--;
	pthread_mutex_unlock(&p->lock);
	pool_unref(p);
	return NULL;
}

/* Queues j, and starts a worker when there are more jobs than idle
 * workers and room for one. Called with the lock held. */
static void pool_queue_locked(Pool *p, Job *j, unsigned threads_max)
{
	j->next = NULL;
	*p->queue_tail = j;
	p->queue_tail = &j->next;
	p->n_queued++;
	if (p->n_queued > p->n_idle && p->n_threads < threads_max) {
		pthread_attr_t attr;
		sigset_t all, old;
		pthread_t t;

		/* signals stay the loop's (signalfd): the worker blocks them all */
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		if (pthread_attr_init(&attr) == 0) {
			(void)pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
			p->refs++;
			if (pthread_create(&t, &attr, worker_main, p) == 0)
				p->n_threads++;
			else
				p->refs--; /* the queued job waits for a running worker */
			pthread_attr_destroy(&attr);
		}
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	pthread_cond_signal(&p->cond);
}

/* Queues a lookup of e's uid; e is ENTRY_PENDING with it. */
static int entry_start(Resolver *r, Entry *e)
{
	Job *j = calloc(1, sizeof(*j));

	if (!j)
		return -ENOMEM;
	j->uid = e->uid;
	j->gen = r->gen;
	e->state = ENTRY_PENDING;
	e->job = j;
	r->n_lookups++;
	pthread_mutex_lock(&r->pool->lock);
	pool_queue_locked(r->pool, j, r->settings.threads_max);
	pthread_mutex_unlock(&r->pool->lock);
	return 0;
}

static void entry_clear(Entry *e)
{
	e->user = policy_user_free(e->user);
	e->state = ENTRY_FREE;
	e->error = 0;
	e->job = NULL;
}

static Wait *wait_unlink(Wait *w)
{
	if (w->prev)
		w->prev->next = w->next;
	else
		w->e->waits = w->next;
	if (w->next)
		w->next->prev = w->prev;
	w->prev = w->next = NULL;
	return w;
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

/* Answers the waits on e with error (and e->user). Waits that begin
 * while it answers are left on e, for the caller to start or answer. */
static void entry_answer(Entry *e, int error)
{
	Wait *list = e->waits;

	e->waits = NULL;
	e->busy++;
	while (list) {
		Wait *w = list;

		list = w->next;
		if (list)
			list->prev = NULL;
		w->next = NULL;
		w->done(e->uid, error, error == 0 ? e->user : NULL, w->userdata);
		wait_free(w, true);
	}
	e->busy--;
}

static void entry_drop(Resolver *r, Entry *e);

/* A job came back. A flush while it was in flight makes its result stale:
 * the uid is asked again for whoever still waits, and nothing is cached. */
static void resolver_job_done(Resolver *r, Job *j)
{
	Entry *e = NULL;

	for (size_t i = 0; i < RESOLVER_CACHE_SIZE; i++)
		if (r->entries[i].state == ENTRY_PENDING && r->entries[i].job == j) {
			e = &r->entries[i];
			break;
		}
	if (!e) {
		job_free(j);
		return;
	}
	e->job = NULL;
	e->state = ENTRY_DONE;
	if (j->gen != r->gen) {
		job_free(j);
		entry_drop(r, e);
		return;
	}
	e->error = j->error;
	e->user = TAKE_PTR(j->user);
	e->expires_usec = now_usec(CLOCK_MONOTONIC) + r->settings.lifetime_usec;
	job_free(j);
	entry_answer(e, e->error);
	/* only answers are cached, not a directory's failure; whoever began
	 * to wait meanwhile gets a lookup of their own */
	if (e->error != 0 && e->error != -ESRCH)
		entry_drop(r, e);
}

static int on_eventfd(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	Resolver *r = userdata;
	Pool *p = r->pool;
	eventfd_t v;
	Job *done;

	(void)eventfd_read(fd, &v);
	pthread_mutex_lock(&p->lock);
	done = p->done;
	p->done = NULL;
	p->done_tail = &p->done;
	pthread_mutex_unlock(&p->lock);
	while (done) {
		Job *j = done;

		done = j->next;
		resolver_job_done(r, j);
	}
	return 0;
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *userdata)
{
	Wait *w = userdata;
	Entry *e = w->e;
	int error = e->state == ENTRY_DONE ? e->error : -ETIMEDOUT;

	wait_unlink(w);
	/* On a timeout, the lookup goes on (its thread cannot be stopped);
	 * its result is cached for those who ask later. */
	e->busy++;
	w->done(e->uid, error, error == 0 ? e->user : NULL, w->userdata);
	e->busy--;
	wait_free(w, true);
	return 0;
}

int resolver_new(sd_event *e, const ResolverSettings *settings, Resolver **ret)
{
	_cleanup_(resolver_freep) Resolver *r = NULL;
	Pool *p;
	int k;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->settings = settings ? *settings
			       : (ResolverSettings){
					 .lookup = policy_user_resolve_uid,
					 .timeout_usec = RESOLVE_TIMEOUT_USEC,
					 .lifetime_usec = RESOLVE_CACHE_USEC,
					 .threads_max = RESOLVER_THREADS_MAX,
				 };
	r->event = sd_event_ref(e);
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	p->refs = 1;
	p->lookup = r->settings.lookup;
	p->queue_tail = &p->queue;
	p->done_tail = &p->done;
	p->efd = -EBADF;
	r->pool = p;
	p->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (p->efd < 0)
		return -errno;
	k = sd_event_add_io(e, &r->io, p->efd, EPOLLIN, on_eventfd, r);
	if (k < 0)
		return k;
	*ret = TAKE_PTR(r);
	return 0;
}

Resolver *resolver_free(Resolver *r)
{
	if (!r)
		return NULL;
	for (size_t i = 0; i < RESOLVER_CACHE_SIZE; i++) {
		Entry *e = &r->entries[i];

		while (e->waits)
			wait_free(wait_unlink(e->waits), false);
		/* a job in flight is the worker's; it is freed with the Pool */
		e->job = NULL;
		entry_clear(e);
	}
	sd_event_source_disable_unref(r->io);
	if (r->pool) {
		pthread_mutex_lock(&r->pool->lock);
		r->pool->quit = true;
		pthread_cond_broadcast(&r->pool->cond);
		pthread_mutex_unlock(&r->pool->lock);
		pool_unref(r->pool);
	}
	sd_event_unref(r->event);
	return mfree(r);
}

static Entry *entry_find(Resolver *r, uid_t uid)
{
	for (size_t i = 0; i < RESOLVER_CACHE_SIZE; i++)
		if (r->entries[i].state != ENTRY_FREE && r->entries[i].uid == uid)
			return &r->entries[i];
	return NULL;
}

static bool entry_expired(const Entry *e, uint64_t now)
{
	return e->state == ENTRY_DONE && e->expires_usec <= now;
}

int resolver_get(Resolver *r, uid_t uid, const PolicyUser **ret_user)
{
	Entry *e = entry_find(r, uid);

	if (!e || e->state != ENTRY_DONE || entry_expired(e, now_usec(CLOCK_MONOTONIC)))
		return -ENOENT;
	if (e->error < 0)
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
	uint64_t now = now_usec(CLOCK_MONOTONIC), at = now + r->settings.timeout_usec;
	Entry *e = entry_find(r, uid);
	Wait *w;
	int k;

	if (r->n_waits >= RESOLVER_WAITS_MAX)
		return -EBUSY;
	if (e && entry_expired(e, now) && !e->busy && !e->waits)
		entry_clear(e);
	if (!e || e->state == ENTRY_FREE) {
		e = e ?: entry_take(r);
		if (!e)
			return -EBUSY;
		e->uid = uid;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	*w = (Wait){
		.r = r, .e = e, .done = done, .userdata = userdata, .free_userdata = free_userdata
	};
	/* a result at hand is answered from the loop, not from inside this
	 * call: the caller is not ready for done() yet */
	if (e->state == ENTRY_DONE)
		at = now;
	k = sd_event_add_time(r->event, &w->timer, CLOCK_MONOTONIC, at, 0, on_timeout, w);
	if (k >= 0 && e->state == ENTRY_FREE)
		k = entry_start(r, e);
	if (k < 0) {
		sd_event_source_disable_unref(w->timer);
		free(w);
		return k;
	}
	w->next = e->waits;
	if (w->next)
		w->next->prev = w;
	e->waits = w;
	r->n_waits++;
	return 0;
}

/* Drops e's result; a result someone waits for is asked again. */
static void entry_drop(Resolver *r, Entry *e)
{
	uint64_t now = now_usec(CLOCK_MONOTONIC);

	e->user = policy_user_free(e->user);
	e->error = 0;
	/* a wait that was to be answered from the result now waits for the
	 * lookup, as long as any */
	for (Wait *w = e->waits; w; w = w->next) {
		uint64_t at;

		if (sd_event_source_get_time(w->timer, &at) >= 0 && at <= now)
			(void)sd_event_source_set_time(w->timer, now + r->settings.timeout_usec);
	}
	if (!e->waits || entry_start(r, e) < 0) {
		entry_answer(e, -EAGAIN);
		entry_clear(e);
	}
}

void resolver_flush(Resolver *r)
{
	r->gen++;
	for (size_t i = 0; i < RESOLVER_CACHE_SIZE; i++)
		if (r->entries[i].state == ENTRY_DONE && !r->entries[i].busy)
			entry_drop(r, &r->entries[i]);
}

unsigned resolver_n_lookups(Resolver *r)
{
	return r->n_lookups;
}

unsigned resolver_n_threads(Resolver *r)
{
	unsigned n;

	pthread_mutex_lock(&r->pool->lock);
	n = r->pool->n_threads;
	pthread_mutex_unlock(&r->pool->lock);
	return n;
}
