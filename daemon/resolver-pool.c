// SPDX-License-Identifier: GPL-2.0-or-later
/* The NSS helper's worker threads; see resolver-pool.h. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/eventfd.h>

#include "macro.h"
#include "resolver-pool.h"

struct ResolverPool {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	resolver_lookup_t lookup;
	unsigned n_threads, n_idle;
	ResolverJob *queue, **queue_tail;
	size_t n_queued;
	ResolverJob *done;
	int efd;
};

void resolver_job_free(ResolverJob *j)
{
	if (!j)
		return;
	policy_user_free(j->user);
	free(j);
}

static void *worker_main(void *userdata)
{
	ResolverPool *p = userdata;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		ResolverJob *j;

		while (!p->queue) {
			p->n_idle++;
			pthread_cond_wait(&p->cond, &p->lock);
			p->n_idle--;
		}
		j = p->queue;
		p->queue = j->next;
		if (!p->queue)
			p->queue_tail = &p->queue;
		p->n_queued--;
		pthread_mutex_unlock(&p->lock);

		j->error = p->lookup(j->uid, &j->user);

		pthread_mutex_lock(&p->lock);
		j->next = p->done;
		p->done = j;
		/* a full counter (never, in practice) still wakes the main thread */
		(void)eventfd_write(p->efd, 1);
	}
	return NULL;
}

void resolver_pool_queue(ResolverPool *p, ResolverJob *j, unsigned threads_max)
{
	pthread_mutex_lock(&p->lock);
	j->next = NULL;
	*p->queue_tail = j;
	p->queue_tail = &j->next;
	p->n_queued++;
	if (p->n_queued > p->n_idle && p->n_threads < threads_max) {
		pthread_attr_t attr;
		sigset_t all, old;
		pthread_t t;

		/* signals stay the main thread's: the worker blocks them all */
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		if (pthread_attr_init(&attr) == 0) {
			(void)pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
			/* on failure, the job waits for a running worker */
			if (pthread_create(&t, &attr, worker_main, p) == 0)
				p->n_threads++;
			pthread_attr_destroy(&attr);
		}
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

int resolver_pool_new(resolver_lookup_t lookup, ResolverPool **ret)
{
	ResolverPool *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	*p = (ResolverPool){ .lock = PTHREAD_MUTEX_INITIALIZER,
			     .cond = PTHREAD_COND_INITIALIZER,
			     .lookup = lookup,
			     .queue_tail = &p->queue,
			     .efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK) };
	if (p->efd < 0) {
		int k = -errno;

		free(p);
		return k;
	}
	*ret = p;
	return 0;
}

int resolver_pool_fd(ResolverPool *p)
{
	return p->efd;
}

ResolverJob *resolver_pool_take_done(ResolverPool *p)
{
	ResolverJob *done;
	eventfd_t v;

	(void)eventfd_read(p->efd, &v);
	pthread_mutex_lock(&p->lock);
	done = TAKE_PTR(p->done);
	pthread_mutex_unlock(&p->lock);
	return done;
}
