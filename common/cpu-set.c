// SPDX-License-Identifier: LGPL-2.1-or-later
/* CPU lists and masks; see cpu-set.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cpu-set.h"
#include "macro.h"
#include "parse.h"

#define WORDS ELEMENTSOF(((CpuSet *)0)->bits)

void cpu_set_clear(CpuSet *s)
{
	memset(s, 0, sizeof(*s));
}

bool cpu_set_add(CpuSet *s, unsigned cpu)
{
	if (cpu >= CPU_SET_MAX)
		return false;
	s->bits[cpu / 64] |= UINT64_C(1) << (cpu % 64);
	return true;
}

void cpu_set_remove(CpuSet *s, unsigned cpu)
{
	if (cpu < CPU_SET_MAX)
		s->bits[cpu / 64] &= ~(UINT64_C(1) << (cpu % 64));
}

bool cpu_set_has(const CpuSet *s, unsigned cpu)
{
	return cpu < CPU_SET_MAX && (s->bits[cpu / 64] >> (cpu % 64)) & 1;
}

unsigned cpu_set_count(const CpuSet *s)
{
	unsigned n = 0;

	for (size_t i = 0; i < WORDS; i++)
		n += (unsigned)__builtin_popcountll(s->bits[i]);
	return n;
}

bool cpu_set_is_empty(const CpuSet *s)
{
	for (size_t i = 0; i < WORDS; i++)
		if (s->bits[i])
			return false;
	return true;
}

bool cpu_set_equal(const CpuSet *a, const CpuSet *b)
{
	return memcmp(a->bits, b->bits, sizeof(a->bits)) == 0;
}

bool cpu_set_intersects(const CpuSet *a, const CpuSet *b)
{
	for (size_t i = 0; i < WORDS; i++)
		if (a->bits[i] & b->bits[i])
			return true;
	return false;
}

bool cpu_set_is_subset(const CpuSet *a, const CpuSet *b)
{
	for (size_t i = 0; i < WORDS; i++)
		if (a->bits[i] & ~b->bits[i])
			return false;
	return true;
}

int cpu_set_next(const CpuSet *s, int after)
{
	for (unsigned cpu = after < 0 ? 0 : (unsigned)after + 1; cpu < CPU_SET_MAX;) {
		uint64_t w = s->bits[cpu / 64] >> (cpu % 64);

		if (w)
			return (int)(cpu + (unsigned)__builtin_ctzll(w));
		cpu = (cpu / 64 + 1) * 64;
	}
	return -1;
}

int cpu_set_last(const CpuSet *s)
{
	for (size_t i = WORDS; i-- > 0;)
		if (s->bits[i])
			return (int)(i * 64 + 63 - (unsigned)__builtin_clzll(s->bits[i]));
	return -1;
}

void cpu_set_and(CpuSet *ret, const CpuSet *a, const CpuSet *b)
{
	for (size_t i = 0; i < WORDS; i++)
		ret->bits[i] = a->bits[i] & b->bits[i];
}

void cpu_set_or(CpuSet *ret, const CpuSet *a, const CpuSet *b)
{
	for (size_t i = 0; i < WORDS; i++)
		ret->bits[i] = a->bits[i] | b->bits[i];
}

void cpu_set_andnot(CpuSet *ret, const CpuSet *a, const CpuSet *b)
{
	for (size_t i = 0; i < WORDS; i++)
		ret->bits[i] = a->bits[i] & ~b->bits[i];
}

/* The end of s without one trailing newline. */
static size_t strip_newline(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && s[n - 1] == '\n' ? n - 1 : n;
}

static bool is_separator(char c)
{
	return c == ',' || c == ' ' || c == '\t';
}

int cpu_set_parse_list(const char *s, CpuSet *ret)
{
	size_t n = strip_newline(s);
	const char *p = s, *end = s + n;
	CpuSet set;

	cpu_set_clear(&set);
	while (p < end) {
		uint64_t first, last;
		int r;

		if (is_separator(*p)) {
			p++;
			continue;
		}
		r = parse_decimal_prefix(p, UINT32_MAX, &first, &p);
		if (r < 0)
			return r == -ERANGE ? -ERANGE : -EINVAL;
		last = first;
		if (p < end && *p == '-') {
			r = parse_decimal_prefix(p + 1, UINT32_MAX, &last, &p);
			if (r < 0)
				return r == -ERANGE ? -ERANGE : -EINVAL;
		}
		if (p < end && !is_separator(*p))
			return -EINVAL;
		if (p > end || last < first)
			return -EINVAL;
		if (last >= CPU_SET_MAX)
			return -ERANGE;
		for (uint64_t c = first; c <= last; c++)
			cpu_set_add(&set, (unsigned)c);
	}
	*ret = set;
	return 0;
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int cpu_set_parse_mask(const char *s, CpuSet *ret)
{
	size_t n = strip_newline(s), digits = 0;
	unsigned bit = 0;
	CpuSet set;

	if (n == 0)
		return -EINVAL;
	cpu_set_clear(&set);
	/* from the lowest CPUs, at the end, up */
	for (size_t i = n; i-- > 0;) {
		int v;

		if (s[i] == ',') {
			/* a word is 8 digits but for the first (highest) one */
			if (digits == 0 || digits > 8 || i == 0)
				return -EINVAL;
			bit += (unsigned)(8 - digits) * 4;
			digits = 0;
			continue;
		}
		v = hex_value(s[i]);
		if (v < 0)
			return -EINVAL;
		if (++digits > 8 && memchr(s, ',', n))
			return -EINVAL;
		for (unsigned b = 0; b < 4; b++, bit++)
			if (v & (1 << b) && !cpu_set_add(&set, bit))
				return -ERANGE;
	}
	*ret = set;
	return 0;
}

/* Appends printf output at *used; -ENOBUFS when it does not fit. */
_printf_(4, 5) static int append(char *buf, size_t size, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int l;

	va_start(ap, fmt);
	l = vsnprintf(buf + *used, size - *used, fmt, ap);
	va_end(ap);
	if (l < 0 || (size_t)l >= size - *used) {
		buf[*used] = '\0';
		return -ENOBUFS;
	}
	*used += (size_t)l;
	return 0;
}

int cpu_set_format_list(const CpuSet *s, char *buf, size_t size)
{
	size_t used = 0;
	int first, r;

	if (size == 0)
		return -ENOBUFS;
	buf[0] = '\0';
	for (first = cpu_set_next(s, -1); first >= 0;) {
		int last = first, next;

		while ((next = cpu_set_next(s, last)) == last + 1)
			last = next;
		if (last == first)
			r = append(buf, size, &used, "%s%d", used ? "," : "", first);
		else
			r = append(buf, size, &used, "%s%d-%d", used ? "," : "", first, last);
		if (r < 0)
			return r;
		first = next;
	}
	return 0;
}

int cpu_set_format_mask(const CpuSet *s, char *buf, size_t size)
{
	int last = cpu_set_last(s), r;
	size_t used = 0;

	if (size == 0)
		return -ENOBUFS;
	buf[0] = '\0';
	if (last < 0)
		return append(buf, size, &used, "0");
	for (int w = last / 32; w >= 0; w--) {
		uint32_t v = (uint32_t)(s->bits[w / 2] >> ((w % 2) * 32));

		if (w == last / 32)
			r = append(buf, size, &used, "%x", v);
		else
			r = append(buf, size, &used, ",%08x", v);
		if (r < 0)
			return r;
	}
	return 0;
}
