/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The percentile of a set of timings, for the bench clients
 * (daemon-bench.c, preload-bench.c). Header only.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

static inline int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The p-th percentile of v[0..n) (sorts v); 0 when n is 0. */
static inline uint64_t percentile(uint64_t *v, size_t n, unsigned p)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[(n - 1) * p / 100];
}
