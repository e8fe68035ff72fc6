/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jack-spin: a JACK client whose process thread runs away, for the VM's
 * tests/vm/guest/jack-threads.sh only (never run it on a host: a realtime
 * thread that spins starves a CPU). It opens libjack.so.0 with dlopen (no
 * development package needed), and its process callback, once libjack made
 * its thread realtime, spins until the thread is no longer realtime (the
 * canary demoted it) or SECONDS have passed, its safety net. With GOFILE it
 * starts spinning only once that file exists, so that a test can start
 * every client before any CPU is taken (a runaway on one CPU may starve the
 * IRQ thread of the disk the next client is loaded from).
 *
 *   jack-spin SECONDS [GOFILE]
 * prints "tid TID POLICY PRIO" once its process thread is realtime, then,
 * after spinning, "demoted after N ms, at CLOCK_MONOTONIC T ms" or "still
 * realtime after N ms".
 */
#include <dlfcn.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

/* The few calls of <jack/jack.h> used here, as libjack.so.0 exports them. */
typedef struct jack_client jack_client_t;
typedef int (*process_fn)(uint32_t nframes, void *arg);
static jack_client_t *(*client_open)(const char *name, int options, int *status, ...);
static int (*set_process_callback)(jack_client_t *c, process_fn f, void *arg);
static int (*activate)(jack_client_t *c);
#define JACK_NO_START_SERVER 0x01

static long seconds;
static const char *go;
static volatile int done;
static int announced;

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int is_realtime(void)
{
	int p = sched_getscheduler(0) & ~SCHED_RESET_ON_FORK;

	return p == SCHED_FIFO || p == SCHED_RR;
}

static int process(uint32_t nframes, void *arg)
{
	struct sched_param sp = {};
	long t0, t;

	/* spin only as a realtime thread, and only once */
	if (done || !is_realtime())
		return 0;
	if (!announced) {
		sched_getparam(0, &sp);
		printf("tid %d %s %d\n", gettid(),
		       (sched_getscheduler(0) & ~SCHED_RESET_ON_FORK) == SCHED_FIFO ? "fifo" : "rr",
		       sp.sched_priority);
		fflush(stdout);
		announced = 1;
	}
	if (go && access(go, F_OK) != 0)
		return 0;
	t0 = now_ms();
	do
		t = now_ms();
	while (is_realtime() && t - t0 < seconds * 1000);
	if (is_realtime())
		printf("still realtime after %ld ms\n", t - t0);
	else
		printf("demoted after %ld ms, at CLOCK_MONOTONIC %ld ms\n", t - t0, t);
	fflush(stdout);
	done = 1;
	return 0;
}

int main(int argc, char **argv)
{
	void *lib = dlopen("libjack.so.0", RTLD_NOW);
	jack_client_t *c;
	char name[64];
	int status = 0;
	long t0;

	seconds = argc > 1 ? atol(argv[1]) : 0;
	go = argc > 2 ? argv[2] : NULL;
	if (seconds <= 0 || seconds > 60 || argc > 3) {
		fprintf(stderr, "usage: jack-spin SECONDS (1..60) [GOFILE]\n");
		return 2;
	}
	if (!lib) {
		fprintf(stderr, "jack-spin: %s\n", dlerror());
		return 77;
	}
	client_open =
		(jack_client_t * (*)(const char *, int, int *, ...)) dlsym(lib, "jack_client_open");
	set_process_callback = (int (*)(jack_client_t *, process_fn, void *))dlsym(
		lib, "jack_set_process_callback");
	activate = (int (*)(jack_client_t *))dlsym(lib, "jack_activate");
	if (!client_open || !set_process_callback || !activate)
		return 77;
	snprintf(name, sizeof(name), "spin-%d", (int)getpid());
	c = client_open(name, JACK_NO_START_SERVER, &status);
	if (!c) {
		fprintf(stderr, "jack-spin: jack_client_open failed (status 0x%x)\n", status);
		return 1;
	}
	if (set_process_callback(c, process, NULL) != 0 || activate(c) != 0) {
		fprintf(stderr, "jack-spin: cannot activate\n");
		return 1;
	}
	t0 = now_ms();
	while (!done && now_ms() - t0 < (seconds + 60) * 1000)
		usleep(10000);
	/* _exit: leave libjack's threads alone, jackd notices the client gone */
	_exit(done ? 0 : 1);
}
