/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Small helpers shared by every userspace part: cleanup attributes, pointer
 * and fd ownership transfer, and string predicates. Header only, no state.
 */
#pragma once

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _public_ __attribute__((visibility("default")))
#define _likely_(x) __builtin_expect(!!(x), 1)
#define _unlikely_(x) __builtin_expect(!!(x), 0)

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

/* Take ownership of a pointer or fd: returns it and leaves NULL / -EBADF behind. */
#define TAKE_PTR(p)                      \
	({                               \
		__typeof__(p) _p_ = (p); \
		(p) = NULL;              \
		_p_;                     \
	})
#define TAKE_FD(fd)              \
	({                       \
		int _fd_ = (fd); \
		(fd) = -EBADF;   \
		_fd_;            \
	})

static inline void *mfree(void *p)
{
	free(p);
	return NULL;
}

/* Closes fd if valid, keeps errno, returns -EBADF so callers can write fd = safe_close(fd). */
static inline int safe_close(int fd)
{
	if (fd >= 0) {
		int saved = errno;
		close(fd);
		errno = saved;
	}
	return -EBADF;
}

static inline FILE *safe_fclose(FILE *f)
{
	if (f)
		fclose(f);
	return NULL;
}

static inline void freep(void *p)
{
	free(*(void **)p);
}

static inline void closep(int *fd)
{
	safe_close(*fd);
}

static inline void fclosep(FILE **f)
{
	safe_fclose(*f);
}

static inline void closedirp(DIR **d)
{
	if (*d)
		(void)closedir(*d);
}

#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)

/* Defines static inline void name##p(type **p) that calls func(*p) when *p is non-NULL. */
#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func) \
	static inline void func##p(type *p)     \
	{                                       \
		if (*p)                         \
			*p = func(*p);          \
	}

static inline bool streq(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

static inline bool streq_ptr(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return streq(a, b);
}

/* Returns the part of s after prefix, or NULL if s does not start with prefix. */
static inline const char *startswith(const char *s, const char *prefix)
{
	/* a loop, not strlen() + strncmp(): prefixes are short words */
	for (; *prefix; s++, prefix++)
		if (*s != *prefix)
			return NULL;
	return s;
}

static inline bool isempty(const char *s)
{
	return !s || !*s;
}

#define RET_NERRNO(expr)                \
	({                              \
		long _r_ = (expr);      \
		_r_ < 0 ? -errno : _r_; \
	})
