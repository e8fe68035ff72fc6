// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A program that asks for realtime as SDL2 games and emulators do:
 * SDL_SetThreadPriority(SDL_THREAD_PRIORITY_TIME_CRITICAL) on a thread of
 * its own, with SDL_HINT_THREAD_FORCE_REALTIME_TIME_CRITICAL set (without
 * it SDL 2.26 asks for a nice level only). SDL then asks
 * org.freedesktop.RealtimeKit1 on the system bus,
 * MakeThreadRealtimeWithPID(getpid(), gettid(), its MaxRealtimePriority),
 * with the ids the program sees; it talks D-Bus only where it reaches a
 * session bus (test-pidns.sh runs it under dbus-run-session).
 *
 * Prints "ok tid N" (N: the thread's id as the program sees it) or
 * "FAIL: SDL's error", then keeps the thread until a line (or EOF) comes on
 * stdin, so the test can look at it from outside. Exits 1 on FAIL.
 */
#include <SDL.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static int worker(void *data)
{
	int tid = (int)syscall(SYS_gettid), rc = 0;

	(void)data;
	if (SDL_SetThreadPriority(SDL_THREAD_PRIORITY_TIME_CRITICAL) < 0) {
		printf("FAIL: %s\n", SDL_GetError());
		rc = 1;
	} else
		printf("ok tid %d\n", tid);
	fflush(stdout);
	(void)getchar();
	return rc;
}

int main(void)
{
	SDL_Thread *t;
	int rc = 1;

	SDL_SetHint(SDL_HINT_THREAD_FORCE_REALTIME_TIME_CRITICAL, "1");
	t = SDL_CreateThread(worker, "sdl-prio", NULL);
	if (!t) {
		printf("FAIL: %s\n", SDL_GetError());
		return 1;
	}
	SDL_WaitThread(t, &rc);
	return rc;
}
