// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Value parsers for realtime.conf(5), and the one decimal number parser.
 * Pure functions: no I/O, no state. The policy library, the CLI and the
 * daemon's /proc readers use them.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "macro.h"
#include "parse.h"
#include "policy.h"

static bool is_infinity(const char *s)
{
	return (s[0] == 'i' && streq(s, "infinity")) || (s[0] == 'u' && streq(s, "unlimited"));
}

int parse_decimal_prefix(const char *s, uint64_t max, uint64_t *ret, const char **ret_end)
{
	/* divided once, not once a digit: policy files are mostly numbers */
	const uint64_t max_tens = max / 10, max_last = max % 10;
	uint64_t v = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');

		if (v > max_tens || (v == max_tens && d > max_last))
			return -ERANGE;
		v = v * 10 + d;
	}
	*ret = v;
	if (ret_end)
		*ret_end = s;
	return 0;
}

int parse_decimal(const char *s, uint64_t max, uint64_t *ret)
{
	const char *end;
	uint64_t v;
	int r;

	r = parse_decimal_prefix(s, max, &v, &end);
	if (r < 0)
		return r;
	if (*end != '\0')
		return -EINVAL;
	*ret = v;
	return 0;
}

static int parse_int_range(const char *s, long min, long max, int *ret)
{
	long v;
	char *end;

	if (isempty(s) || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno != 0 || *end != '\0' || end == s)
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*ret = (int)v;
	return 0;
}

int parse_boolean(const char *s, bool *ret)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*ret = true;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*ret = false;
			return 0;
		}
	}
	return -EINVAL;
}

int parse_unsigned(const char *s, unsigned *ret)
{
	uint64_t v;
	int r;

	r = parse_decimal(s, UINT_MAX, &v);
	if (r < 0)
		return r;
	*ret = (unsigned)v;
	return 0;
}

int parse_priority(const char *s, bool allow_zero, int *ret)
{
	return parse_int_range(s, allow_zero ? 0 : 1, 99, ret);
}

int parse_nice(const char *s, int *ret)
{
	return parse_int_range(s, -20, 19, ret);
}

typedef struct Unit {
	const char *suffix; /* "" for a bare number */
	uint64_t factor;
} Unit;

/* A number followed by one of the suffixes of units, scaled by its factor
 * to below POLICY_INFINITY (-ERANGE otherwise), or infinity/unlimited. */
static int parse_scaled(const char *s, const Unit *units, size_t n_units, uint64_t *ret)
{
	const char *end;
	uint64_t v;
	int r;

	if (is_infinity(s)) {
		*ret = POLICY_INFINITY;
		return 0;
	}
	r = parse_decimal_prefix(s, UINT64_MAX, &v, &end);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n_units; i++) {
		/* first characters first: most values have no suffix */
		if (end[0] != units[i].suffix[0] || !streq(end, units[i].suffix))
			continue;
		if (v > (POLICY_INFINITY - 1) / units[i].factor)
			return -ERANGE;
		*ret = v * units[i].factor;
		return 0;
	}
	return -EINVAL;
}

int parse_size(const char *s, uint64_t *ret)
{
	static const Unit units[] = {
		{ "", 1 },
		{ "K", 1ULL << 10 },
		{ "M", 1ULL << 20 },
		{ "G", 1ULL << 30 },
	};

	return parse_scaled(s, units, ELEMENTSOF(units), ret);
}

int parse_duration(const char *s, bool bare_usec, uint64_t *ret)
{
	/* a bare number: microseconds as in limits.conf, or seconds */
	static const Unit units_usec[] = {
		{ "", 1 }, { "us", 1 }, { "ms", 1000 }, { "s", 1000000 }
	};
	static const Unit units_sec[] = {
		{ "", 1000000 }, { "us", 1 }, { "ms", 1000 }, { "s", 1000000 }
	};

	return bare_usec ? parse_scaled(s, units_usec, ELEMENTSOF(units_usec), ret)
			 : parse_scaled(s, units_sec, ELEMENTSOF(units_sec), ret);
}

typedef struct WordBit {
	const char *word;
	uint64_t bit;
} WordBit;

/* ORs together the bits of the space-separated words of s, each looked up
 * (case-insensitively, after an optional prefix) in table. -EINVAL for a
 * word that is not there; an empty s gives 0. */
static int parse_word_mask(const char *s, const WordBit *table, size_t n_table,
			   const char *optional_prefix, uint64_t *ret)
{
	size_t lp = strlen(optional_prefix);
	uint64_t mask = 0;

	for (;;) {
		size_t n, i;

		s += strspn(s, " \t");
		n = strcspn(s, " \t");
		if (n == 0)
			break;
		if (lp > 0 && n > lp && strncasecmp(s, optional_prefix, lp) == 0) {
			s += lp;
			n -= lp;
		}
		for (i = 0; i < n_table; i++)
			if (strlen(table[i].word) == n && strncasecmp(s, table[i].word, n) == 0)
				break;
		if (i == n_table)
			return -EINVAL;
		mask |= table[i].bit;
		s += n;
	}
	*ret = mask;
	return 0;
}

int parse_policies(const char *s, unsigned *ret)
{
	static const WordBit table[] = {
		{ "fifo", POLICY_SCHED_FIFO },
		{ "rr", POLICY_SCHED_RR },
	};
	uint64_t mask;
	int r;

	r = parse_word_mask(s, table, ELEMENTSOF(table), "", &mask);
	if (r < 0)
		return r;
	*ret = (unsigned)mask;
	return 0;
}

int parse_capabilities(const char *s, uint64_t *ret)
{
	static const WordBit table[] = {
		{ "sys_nice", 1ULL << CAP_SYS_NICE },
		{ "ipc_lock", 1ULL << CAP_IPC_LOCK },
	};

	return parse_word_mask(s, table, ELEMENTSOF(table), "cap_", ret);
}
