// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Random values for bus-fuzz: strings of valid UTF-8 shaped to cut a
 * multibyte character at the daemon's buffer sizes (512 bytes for error
 * texts, 1024 for log lines), thread names that are not UTF-8, extreme
 * integers, and arguments of random types for calls with a wrong signature.
 * libdbus refuses to send invalid UTF-8, so every string here is valid: the
 * daemon may only break it by cutting it.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-fuzz.h"

void rng_seed(Rng *r, uint64_t seed, unsigned stream)
{
	/* splitmix64 of seed and stream, never 0 */
	uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (stream + 1);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	r->s = (z ^ (z >> 31)) | 1;
}

uint64_t rng_next(Rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dULL;
}

uint64_t rng_below(Rng *r, uint64_t n)
{
	return rng_next(r) % n;
}

bool rng_chance(Rng *r, unsigned percent)
{
	return rng_below(r, 100) < percent;
}

void desc_add(Desc *d, const char *format, ...)
{
	va_list ap;
	int n;

	if (d->len >= sizeof(d->text) - 1)
		return;
	va_start(ap, format);
	n = vsnprintf(d->text + d->len, sizeof(d->text) - d->len, format, ap);
	va_end(ap);
	if (n > 0)
		d->len = d->len + (size_t)n < sizeof(d->text) ? d->len + (size_t)n
							      : sizeof(d->text) - 1;
}

/* A code point of w bytes that every version of libdbus accepts: no NUL,
 * no surrogates, no noncharacters. */
static uint32_t random_code_point(Rng *r, unsigned w)
{
	uint32_t c;

	switch (w) {
	case 1:
		/* control bytes too: valid UTF-8, and a test of the log's escaping */
		return rng_chance(r, 10) ? 1 + (uint32_t)rng_below(r, 0x1f)
					 : 0x20 + (uint32_t)rng_below(r, 0x5f);
	case 2:
		return 0x80 + (uint32_t)rng_below(r, 0x800 - 0x80);
	case 3:
		do
			c = 0x800 + (uint32_t)rng_below(r, 0x10000 - 0x800);
		while ((c >= 0xd800 && c <= 0xdfff) || (c >= 0xfdd0 && c <= 0xfdef) ||
		       (c & 0xfffe) == 0xfffe);
		return c;
	default:
		do
			c = 0x10000 + (uint32_t)rng_below(r, 0x110000 - 0x10000);
		while ((c & 0xfffe) == 0xfffe);
		return c;
	}
}

static size_t utf8_put(char *p, uint32_t c)
{
	if (c < 0x80) {
		p[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		p[0] = (char)(0xc0 | (c >> 6));
		p[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		p[0] = (char)(0xe0 | (c >> 12));
		p[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		p[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	p[0] = (char)(0xf0 | (c >> 18));
	p[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	p[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	p[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

#define STRING_MAX (64 * 1024)

static const char *const literals[] = {
	"fifo",
	"rr",
	"FIFO",
	"Rr",
	"fifo ",
	" rr",
	"fifo\t",
	"",
	"deadline",
	"other",
	"batch",
	"idle",
	"fifo rr",
	"rr\n",
	"%s%s%s%n",
	"fifo\xc3\xa9",
	"\xc3\xa9",
	NATIVE_IFACE,
	RTKIT_IFACE,
	"org.freedesktop.DBus.Properties",
	"MaxRealtimePriority",
	"MinNiceLevel",
	"RTTimeUSecMax",
	"maxrealtimepriority",
};

/* Multibyte characters of random widths (2..4 bytes, some ASCII between)
 * from p, at most max bytes; returns the length. */
static size_t put_multibyte_run(Rng *r, char *p, size_t max)
{
	size_t n = 0;

	while (n + 4 <= max) {
		unsigned w = rng_chance(r, 10) ? 1 : 2 + (unsigned)rng_below(r, 3);

		n += utf8_put(p + n, random_code_point(r, w));
	}
	return n;
}

char *gen_string(Rng *r, Desc *d)
{
	uint64_t mode = rng_below(r, 100);
	size_t n = 0, k, run, tail;
	char *s;

	if (mode < 15) {
		const char *l = literals[rng_below(r, ELEMENTSOF(literals))];

		desc_add(d, "s'%.40s'", l);
		return strdup(l);
	}
	s = malloc(STRING_MAX + 1);
	if (!s)
		abort();
	if (mode < 35) {
		/* "é" n times: the reproducer is n = 300 */
		static const size_t counts[] = { 255, 256, 257, 300, 511, 512, 1024 };
		size_t c = rng_chance(r, 50) ? counts[rng_below(r, ELEMENTSOF(counts))]
					     : 1 + rng_below(r, 4000);

		for (size_t i = 0; i < c; i++)
			n += utf8_put(s + n, 0xe9);
		desc_add(d, "s[%zuB: \xc3\xa9 x %zu]", n, c);
	} else if (mode < 75) {
		/* ASCII up to byte k, then multibyte characters: k covers every
		 * offset of the 512- and 1024-byte buffers, whatever text the
		 * daemon puts in front of the string */
		k = rng_below(r, 1100);
		memset(s, 'a' + (int)rng_below(r, 26), k);
		run = put_multibyte_run(r, s + k, 4 + rng_below(r, 96));
		n = k + run;
		tail = rng_chance(r, 50) ? rng_below(r, 64) : 0;
		memset(s + n, 'z', tail);
		n += tail;
		desc_add(d, "s[%zuB: ascii %zu, multibyte %zu, ascii %zu]", n, k, run, tail);
	} else if (mode < 95) {
		/* random characters, up to 64 KiB, sizes spread over the scales */
		size_t want = (size_t)1 << rng_below(r, 17);

		want = want + rng_below(r, want);
		if (want > STRING_MAX)
			want = STRING_MAX;
		n = put_multibyte_run(r, s, want);
		desc_add(d, "s[%zuB: random characters]", n);
	} else {
		n = 1 + rng_below(r, STRING_MAX);
		memset(s, 'x', n);
		desc_add(d, "s[%zuB: ascii]", n);
	}
	s[n] = 0;
	return s;
}

void gen_comm(Rng *r, char name[16])
{
	static const char *const names[] = {
		"\xff\xfe\xfd",
		"\xc3",
		"abc\xe2\x82",
		"\xc0\xaf",
		"\xed\xa0\x80",
		"\xf4\x90\x80\x80",
		"\x1b[31mred\x1b[0m",
		"\t\n\r\x7f",
		"\x01\x02\x03",
		/* 18 and 16 bytes: the kernel keeps 15, half a character */
		"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9",
		"a\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac",
		"\"quoted\" '",
		"sleeper",
	};

	if (rng_chance(r, 40)) {
		size_t n = 1 + rng_below(r, 15);

		for (size_t i = 0; i < n; i++)
			name[i] = (char)(1 + rng_below(r, 255));
		name[n] = 0;
	} else {
		snprintf(name, 16, "%s", names[rng_below(r, ELEMENTSOF(names))]);
	}
}

/* Around a range: its ends and their neighbours, values special to the
 * type (its extremes, 0, 99 and 100), or one inside. */
static int64_t gen_integer(Rng *r, int64_t lo, int64_t hi, const int64_t *special, size_t n)
{
	switch (rng_below(r, 12)) {
	case 0:
		return lo - 1;
	case 1:
		return lo;
	case 2:
		return hi;
	case 3:
		return hi + 1;
	case 4:
	case 5:
	case 6:
	case 7:
		return special[rng_below(r, n)];
	default:
		return hi >= lo ? lo + (int64_t)rng_below(r, (uint64_t)(hi - lo) + 1) : lo;
	}
}

uint32_t gen_u32(Rng *r, uint32_t lo, uint32_t hi)
{
	const int64_t special[] = {
		0, 99, 100, INT32_MAX, (int64_t)INT32_MAX + 1, UINT32_MAX, (uint32_t)rng_next(r)
	};

	return (uint32_t)gen_integer(r, lo, hi, special, ELEMENTSOF(special));
}

int32_t gen_i32(Rng *r, int32_t lo, int32_t hi)
{
	const int64_t special[] = { INT32_MIN, -21, 0, 20, INT32_MAX, (int32_t)rng_next(r) };

	return (int32_t)gen_integer(r, lo, hi, special, ELEMENTSOF(special));
}

static bool append_one(Rng *r, DBusMessageIter *it, Desc *d)
{
	static const char sigs[] = "ybnqiuxtdsog";
	char sig;
	DBusMessageIter sub, e, var;
	uint64_t v = rng_next(r);
	double dv = (double)(int64_t)v / 7.0;
	const char *s;
	Desc ignored = { .len = 0 };
	bool ok = true;
	char *str;

	switch (rng_below(r, 16)) {
	case 12: /* as */
		desc_add(d, "as,");
		if (!dbus_message_iter_open_container(it, DBUS_TYPE_ARRAY, "s", &sub))
			return false;
		for (unsigned i = rng_below(r, 4); i > 0 && ok; i--) {
			str = gen_string(r, &ignored);
			ok = dbus_message_iter_append_basic(&sub, DBUS_TYPE_STRING, &str);
			free(str);
		}
		return ok && dbus_message_iter_close_container(it, &sub);
	case 13: /* ay */
		desc_add(d, "ay,");
		if (!dbus_message_iter_open_container(it, DBUS_TYPE_ARRAY, "y", &sub))
			return false;
		for (unsigned i = rng_below(r, 64); i > 0 && ok; i--) {
			uint8_t b = (uint8_t)rng_next(r);

			ok = dbus_message_iter_append_basic(&sub, DBUS_TYPE_BYTE, &b);
		}
		return ok && dbus_message_iter_close_container(it, &sub);
	case 14: /* v(i) */
		desc_add(d, "v,");
		if (!dbus_message_iter_open_container(it, DBUS_TYPE_VARIANT, "i", &sub) ||
		    !dbus_message_iter_append_basic(&sub, DBUS_TYPE_INT32, &v))
			return false;
		return dbus_message_iter_close_container(it, &sub);
	case 15: /* a{sv}, empty or with one entry */
		desc_add(d, "a{sv},");
		if (!dbus_message_iter_open_container(it, DBUS_TYPE_ARRAY, "{sv}", &sub))
			return false;
		s = "MaxRealtimePriority";
		if (rng_chance(r, 50) &&
		    (!dbus_message_iter_open_container(&sub, DBUS_TYPE_DICT_ENTRY, NULL, &e) ||
		     !dbus_message_iter_append_basic(&e, DBUS_TYPE_STRING, &s) ||
		     !dbus_message_iter_open_container(&e, DBUS_TYPE_VARIANT, "t", &var) ||
		     !dbus_message_iter_append_basic(&var, DBUS_TYPE_UINT64, &v) ||
		     !dbus_message_iter_close_container(&e, &var) ||
		     !dbus_message_iter_close_container(&sub, &e)))
			return false;
		return dbus_message_iter_close_container(it, &sub);
	default:
		break;
	}

	sig = sigs[rng_below(r, sizeof(sigs) - 1)];
	desc_add(d, "%c,", sig);
	switch (sig) {
	case 'b': {
		dbus_bool_t b = v & 1;

		return dbus_message_iter_append_basic(it, DBUS_TYPE_BOOLEAN, &b);
	}
	case 'd':
		return dbus_message_iter_append_basic(it, DBUS_TYPE_DOUBLE, &dv);
	case 'o':
		s = rng_chance(r, 50) ? NATIVE_PATH : "/";
		return dbus_message_iter_append_basic(it, DBUS_TYPE_OBJECT_PATH, &s);
	case 'g':
		s = rng_chance(r, 50) ? "ttsu" : "a{sv}";
		return dbus_message_iter_append_basic(it, DBUS_TYPE_SIGNATURE, &s);
	case 's':
		str = gen_string(r, d);
		ok = dbus_message_iter_append_basic(it, DBUS_TYPE_STRING, &str);
		free(str);
		return ok;
	default:
		/* the integers: libdbus reads as many bytes of v as the type has */
		return dbus_message_iter_append_basic(it, sig, &v);
	}
}

bool gen_append_random_args(Rng *r, DBusMessage *m, Desc *d)
{
	DBusMessageIter it;

	dbus_message_iter_init_append(m, &it);
	desc_add(d, "(random ");
	for (unsigned n = rng_below(r, 5); n > 0; n--)
		if (!append_one(r, &it, d))
			return false;
	desc_add(d, ")");
	return true;
}

static void gen_name_element(Rng *r, char *buf, size_t size, size_t max_len)
{
	static const char first[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_";
	static const char rest[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789";
	size_t n = 1 + rng_below(r, max_len);

	if (n >= size)
		n = size - 1;
	buf[0] = first[rng_below(r, sizeof(first) - 1)];
	for (size_t i = 1; i < n; i++)
		buf[i] = rest[rng_below(r, sizeof(rest) - 1)];
	buf[n] = 0;
}

void gen_member(Rng *r, char *buf, size_t size)
{
	static const char *const names[] = { "NoSuchMethod",
					     "makethreadrealtime",
					     "MakeThreadRealtimeWithPID",
					     "MakeThreadRealtime2",
					     "ResetKnown",
					     "Exit",
					     "Ping",
					     "Get",
					     "_" };

	if (rng_chance(r, 50))
		snprintf(buf, size, "%s", names[rng_below(r, ELEMENTSOF(names))]);
	else
		gen_name_element(r, buf, size, rng_chance(r, 90) ? 32 : 255);
}

void gen_interface(Rng *r, char *buf, size_t size)
{
	static const char *const names[] = { "org.realtimed.Realtime2", "org.realtimed",
					     "org.freedesktop.RealtimeKit1.Extra",
					     "org.freedesktop.DBus.Properties2", "a.b" };
	size_t n;

	if (rng_chance(r, 50)) {
		snprintf(buf, size, "%s", names[rng_below(r, ELEMENTSOF(names))]);
		return;
	}
	/* elements joined by dots, at most 255 bytes in all */
	gen_name_element(r, buf, size < 64 ? size : 64, 20);
	n = strlen(buf);
	for (unsigned i = 1 + rng_below(r, 6); i > 0 && n + 2 < size && n < 200; i--) {
		buf[n++] = '.';
		gen_name_element(r, buf + n, size - n < 40 ? size - n : 40, 30);
		n += strlen(buf + n);
	}
}
