/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The names of an enum's values, kept in an array indexed by the value. */
#pragma once

#include <errno.h>
#include <stddef.h>
#include <string.h>

/* table[i], the name of value i of an enum whose n values table names;
 * NULL when i is not one of them. */
static inline const char *string_table_lookup(const char *const *table, size_t n, int i)
{
	return i >= 0 && (size_t)i < n ? table[i] : NULL;
}

/* The value whose name in table (of n) is s; -EINVAL when none is (or s
 * is NULL). */
static inline int string_table_find(const char *const *table, size_t n, const char *s)
{
	for (size_t i = 0; s && i < n; i++)
		if (table[i] && strcmp(table[i], s) == 0)
			return (int)i;
	return -EINVAL;
}
