/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The resolver tests' fake user directory, in a file that the test
 * (resolver-fixture.c) and its NSS helper (nss-helper-fake.c, exec'd by
 * realtimed's code) both map: the helper's lookups must see what the test
 * changes later. Each field is read and written whole (atomics): no lock
 * that a helper killed in a lookup could leave taken.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The environment variable that names the file, for the helper. */
#define FAKE_DIRECTORY_ENV "RESOLVER_FAKE_DIRECTORY"
/* The fake directory has no user of this uid or above: -ESRCH. */
#define NO_SUCH_UID 90000
/* The largest message fake_send() sends. */
#define FAKE_SEND_MAX (192 * 1024)

/* Answers uid N with the user "uN" (or `name`) of the one group `gid`;
 * hangs for `hang_uid` (or every uid) until released; fails every lookup
 * with `fail_error` while that is set, and that of `fail_uid` with -EIO;
 * takes `slow_usec` for `slow_uid`; aborts for `crash_uid`; sends `send` on
 * the helper's socket for `send_uid`. Counts its lookups in `calls`. */
typedef struct FakeDirectory {
	uid_t hang_uid;
	bool hang_all, released;
	gid_t gid;
	char name[32];
	unsigned calls;
	int fail_error;
	uid_t fail_uid, slow_uid, crash_uid, send_uid;
	unsigned slow_usec;
	size_t send_len;
	uint8_t send[FAKE_SEND_MAX];
} FakeDirectory;

#define FAKE_GET(fake, field) __atomic_load_n(&(fake)->field, __ATOMIC_SEQ_CST)
#define FAKE_SET(fake, field, v) __atomic_store_n(&(fake)->field, (v), __ATOMIC_SEQ_CST)
