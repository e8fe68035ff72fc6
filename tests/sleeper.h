/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A thread that only sleeps, the target of the grants that the test and
 * bench clients ask for (rt-client, the benches of bench/, the daemon's
 * state test): it blocks reading a pipe until every write end is closed,
 * so nothing realtime ever runs. Header-only because the benches are built
 * by their scripts with a bare cc line.
 */
#pragma once

#include <errno.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

typedef struct SleeperThread {
	pthread_t thread;
	int fd;	   /* the read end it waits on */
	pid_t tid; /* once it runs (read it with __atomic_load_n()) */
} SleeperThread;

static inline void *sleeper_thread_main(void *userdata)
{
	SleeperThread *s = userdata;
	char c;

	__atomic_store_n(&s->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	while (read(s->fd, &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

/* Starts s sleeping on fd (with attr, which may be NULL) and waits until
 * its tid is known: 0, or pthread_create()'s error number. */
static inline int sleeper_thread_start(SleeperThread *s, int fd, const pthread_attr_t *attr)
{
	int r;

	s->fd = fd;
	s->tid = 0;
	r = pthread_create(&s->thread, attr, sleeper_thread_main, s);
	if (r != 0)
		return r;
	while (__atomic_load_n(&s->tid, __ATOMIC_SEQ_CST) == 0)
		usleep(100);
	return 0;
}
