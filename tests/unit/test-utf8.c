/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for common/utf8.c, the UTF-8 of realtimed, librealtime's
 * messages and realtimectl's JSON: validation against libdbus's own
 * dbus_validate_utf8() over every 1-, 2- and 3-byte string and 4-byte ones
 * around each boundary; the named invalid forms (NUL, overlong, surrogates,
 * beyond U+10FFFF, cut sequences); cutting at every byte of multibyte runs;
 * the cut of a message as librealtime keeps it; and escaping, whole and
 * cut to every buffer size, always valid.
 */
#include <check.h>
#include <dbus/dbus.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check-main.h"
#include "utf8.h"

/* The code point of a valid character s of length len (no checks). */
static uint32_t decode(const unsigned char *s, size_t len)
{
	uint32_t c = len == 1 ? s[0] : s[0] & (0xff >> (len + 1));

	for (size_t i = 1; i < len; i++)
		c = (c << 6) | (s[i] & 0x3f);
	return c;
}

/* Is all of the NUL-terminated s made of characters utf8_char_len() takes? */
static bool all_valid(const char *s)
{
	size_t n = strlen(s);

	while (n > 0) {
		size_t k = utf8_char_len(s, n);

		if (k == 0)
			return false;
		s += k;
		n -= k;
	}
	return true;
}

static bool is_noncharacter(uint32_t c)
{
	return (c >= 0xfdd0 && c <= 0xfdef) || (c & 0xfffe) == 0xfffe;
}

/* Ours and libdbus's verdict on the NUL-terminated s agree, except that we
 * also refuse noncharacters (old libdbus did). */
static void check_against_dbus(const unsigned char *s, size_t len)
{
	bool ours = all_valid((const char *)s);
	bool theirs = dbus_validate_utf8((const char *)s, NULL);

	if (ours == theirs)
		return;
	ck_assert_msg(!ours, "accepted what libdbus refuses: %02x %02x %02x %02x (len %zu)", s[0],
		      len > 1 ? s[1] : 0, len > 2 ? s[2] : 0, len > 3 ? s[3] : 0, len);
	/* we refused what libdbus accepts: only a noncharacter may be that */
	ck_assert_msg(len >= 3 && utf8_char_len((const char *)s, len) == 0 &&
			      is_noncharacter(decode(s, len)),
		      "refused what libdbus accepts: %02x %02x %02x %02x (len %zu)", s[0],
		      len > 1 ? s[1] : 0, len > 2 ? s[2] : 0, len > 3 ? s[3] : 0, len);
}

START_TEST(test_exhaustive_short)
{
	unsigned char s[4] = {};

	for (unsigned a = 1; a < 256; a++) {
		s[0] = a;
		s[1] = 0;
		check_against_dbus(s, 1);
		for (unsigned b = 1; b < 256; b++) {
			s[1] = b;
			s[2] = 0;
			check_against_dbus(s, 2);
			if (a < 0xe0)
				continue;
			for (unsigned c = 1; c < 256; c++) {
				s[2] = c;
				check_against_dbus(s, 3);
			}
		}
	}
}
END_TEST

START_TEST(test_four_bytes)
{
	/* every lead byte from 0xf0 on, with continuation bytes at and around
	 * the edges of the valid ranges */
	static const unsigned char edges[] = { 0x01, 0x7f, 0x80, 0x81, 0x8f, 0x90,
					       0x9f, 0xa0, 0xbe, 0xbf, 0xc0, 0xff };
	unsigned char s[5] = {};

	for (unsigned a = 0xf0; a < 256; a++)
		for (size_t i = 0; i < sizeof(edges); i++)
			for (size_t j = 0; j < sizeof(edges); j++)
				for (size_t k = 0; k < sizeof(edges); k++) {
					s[0] = a;
					s[1] = edges[i];
					s[2] = edges[j];
					s[3] = edges[k];
					check_against_dbus(s, 4);
				}
}
END_TEST

START_TEST(test_named_forms)
{
	/* valid */
	ck_assert(all_valid(""));
	ck_assert(all_valid("plain ascii"));
	ck_assert(all_valid("\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e")); /* é € 𝄞 */
	ck_assert(all_valid("\xf4\x8f\xbf\xbd"));		      /* U+10FFFD */
	ck_assert(all_valid("\xed\x9f\xbf\xee\x80\x80"));	      /* U+D7FF, U+E000 */
	ck_assert_uint_eq(utf8_char_len("\xf0\x9d\x84\x9e", 4), 4);
	/* NUL is no character, even inside the length given */
	ck_assert_uint_eq(utf8_char_len("\0a", 2), 0);
	ck_assert_uint_eq(utf8_char_len("a", 0), 0);
	/* overlong forms of '/' and of U+0000 */
	ck_assert(!all_valid("\xc0\xaf"));
	ck_assert(!all_valid("\xc1\xbf"));
	ck_assert(!all_valid("\xe0\x80\xaf"));
	ck_assert(!all_valid("\xf0\x80\x80\xaf"));
	ck_assert(!all_valid("\xc0\x80"));
	ck_assert(!all_valid("\xe0\x9f\xbf")); /* U+07FF in three bytes */
	/* UTF-16 surrogates */
	ck_assert(!all_valid("\xed\xa0\x80"));
	ck_assert(!all_valid("\xed\xbf\xbf"));
	ck_assert(!all_valid("\xed\xa0\xbd\xed\xb2\xa9")); /* a CESU-8 pair */
	/* beyond U+10FFFF, and lead bytes that cannot occur */
	ck_assert(!all_valid("\xf4\x90\x80\x80"));
	ck_assert(!all_valid("\xf5\x80\x80\x80"));
	ck_assert(!all_valid("\xf8\x88\x80\x80\x80"));
	ck_assert(!all_valid("\xfe"));
	ck_assert(!all_valid("\xff"));
	/* noncharacters */
	ck_assert(!all_valid("\xef\xbf\xbe"));
	ck_assert(!all_valid("\xef\xb7\x90"));
	ck_assert(!all_valid("\xf4\x8f\xbf\xbf"));
	/* a continuation byte alone, cut sequences, a bad continuation */
	ck_assert(!all_valid("\x80"));
	ck_assert(!all_valid("a\xbf"));
	ck_assert(!all_valid("\xc3"));
	ck_assert(!all_valid("\xe2\x82"));
	ck_assert(!all_valid("\xf0\x9d\x84"));
	ck_assert(!all_valid("\xc3("));
	ck_assert(!all_valid("\xe2(\xac"));
	ck_assert_uint_eq(utf8_char_len("\xe2\x82\xac", 2), 0); /* cut by n */
}
END_TEST

/* runs of 1-, 2-, 3- and 4-byte characters, each after 0..3 bytes of ASCII */
static const char *const runs[] = { "abcdefgh", "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9",
				    "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac",
				    "\xf0\x9d\x84\x9e\xf0\x9d\x84\x9e\xf0\x9d\x84\x9e",
				    "a\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e"
				    "b\xf0\x9d\x84\x9e\xe2\x82\xac\xc3\xa9" };

/* The largest boundary of the valid s that is <= n, found the slow way. */
static size_t boundary_at_most(const char *s, size_t n)
{
	size_t b = 0, len = strlen(s);

	for (size_t i = 0; i < len;) {
		i += utf8_char_len(s + i, len - i);
		if (i <= n)
			b = i;
	}
	return b;
}

START_TEST(test_cut_every_byte)
{
	char s[64];

	for (size_t r = 0; r < ELEMENTSOF(runs); r++)
		for (size_t pre = 0; pre < 4; pre++) {
			snprintf(s, sizeof(s), "%.*s%s", (int)pre, "xyz", runs[r]);
			ck_assert(all_valid(s));
			for (size_t n = 0; n <= strlen(s); n++) {
				size_t m = utf8_cut(s, n);
				char t[64];

				ck_assert_uint_eq(m, boundary_at_most(s, n));
				memcpy(t, s, m);
				t[m] = 0;
				ck_assert(all_valid(t));
			}
		}
}
END_TEST

START_TEST(test_snprintf_every_size)
{
	char s[64];

	for (size_t r = 0; r < ELEMENTSOF(runs); r++)
		for (size_t pre = 0; pre < 4; pre++) {
			snprintf(s, sizeof(s), "%.*s%s", (int)pre, "xyz", runs[r]);
			for (size_t size = 1; size <= strlen(s) + 2; size++) {
				char buf[64];
				int k = utf8_snprintf(buf, size, "%s", s);

				ck_assert_int_eq(k, (int)strlen(s));
				ck_assert_uint_eq(strlen(buf), boundary_at_most(s, size - 1));
				ck_assert(strncmp(buf, s, strlen(buf)) == 0);
				ck_assert(all_valid(buf));
			}
		}
}
END_TEST

/* librealtime's thread message is cut so (librealtime/error.c). "é" is 2
 * bytes, "€" 3: never half a character. */
START_TEST(test_snprintf_examples)
{
	static const struct {
		size_t size;
		const char *in, *out;
	} cases[] = {
		{ 8, "abc", "abc" },	   { 8, "abcdefghij", "abcdefg" },
		{ 8, "abcdeé", "abcdeé" }, { 8, "abcdefé", "abcdef" },
		{ 8, "abcde€", "abcde" },  { 8, "€€€", "€€" },
		{ 1, "abc", "" },
	};
	char buf[8];

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		utf8_snprintf(buf, cases[i].size, "%s", cases[i].in);
		ck_assert_str_eq(buf, cases[i].out);
	}
}
END_TEST

START_TEST(test_escape)
{
	char buf[128];

	ck_assert_uint_eq(utf8_escape("caf\xc3\xa9", 0, buf, sizeof(buf)), 5);
	ck_assert_str_eq(buf, "caf\xc3\xa9");
	ck_assert_uint_eq(utf8_escape("\xff\xfe\xc3(\x1b[31m", 0, buf, sizeof(buf)), 21);
	ck_assert_str_eq(buf, "\\xff\\xfe\\xc3(\\x1b[31m");
	/* an overlong '/', a surrogate, a noncharacter: byte by byte */
	utf8_escape("\xc0\xaf|\xed\xa0\x80|\xef\xbf\xbe", 0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "\\xc0\\xaf|\\xed\\xa0\\x80|\\xef\\xbf\\xbe");
	/* control characters; newline and tab only when asked to */
	utf8_escape("a\tb\nc\x7f\x01", 0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "a\\x09b\\x0ac\\x7f\\x01");
	utf8_escape("a\tb\nc\x7f", UTF8_ESCAPE_KEEP_NEWLINE, buf, sizeof(buf));
	ck_assert_str_eq(buf, "a\tb\nc\\x7f");
	/* a backslash is text: not doubled */
	utf8_escape("a\\x41", 0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "a\\x41");
	/* size 0 only counts */
	ck_assert_uint_eq(utf8_escape("\xff", 0, NULL, 0), 4);
	ck_assert_uint_eq(utf8_escape("", 0, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "");
}
END_TEST

START_TEST(test_escape_every_size)
{
	static const char *const inputs[] = {
		"a\xc3\xa9\xff\xe2\x82\xac\x1b\xf0\x9d\x84\x9e\xc3",
		"\xf0\x9d\x84\xc3\xa9\xed\xa0\x80z",
	};

	for (size_t i = 0; i < ELEMENTSOF(inputs); i++) {
		char whole[128];
		size_t n = utf8_escape(inputs[i], 0, whole, sizeof(whole));

		ck_assert_uint_eq(n, strlen(whole));
		ck_assert(all_valid(whole));
		for (size_t size = 1; size <= n + 1; size++) {
			char buf[128];

			ck_assert_uint_eq(utf8_escape(inputs[i], 0, buf, size), n);
			ck_assert_uint_lt(strlen(buf), size);
			ck_assert(strncmp(buf, whole, strlen(buf)) == 0);
			ck_assert(all_valid(buf));
			/* the cut falls before a unit that did not fit: the
			 * next unit is at most 4 bytes */
			ck_assert_uint_ge(strlen(buf) + 4, size - 1 < n ? size - 1 : n);
		}
	}
}
END_TEST

START_TEST(test_escape_random_bytes)
{
	unsigned seed = 1;

	for (int round = 0; round < 20000; round++) {
		char in[33], out[33 * 4 + 1];
		size_t len = (size_t)(rand_r(&seed) % 32);
		size_t n;

		for (size_t i = 0; i < len; i++)
			in[i] = (char)(rand_r(&seed) % 255 + 1);
		in[len] = 0;
		n = utf8_escape(in, 0, out, sizeof(out));
		ck_assert_uint_eq(n, strlen(out));
		ck_assert(dbus_validate_utf8(out, NULL));
		ck_assert(all_valid(out));
		/* nothing to escape exactly when the length did not change */
		ck_assert_int_eq(n == len, strcmp(in, out) == 0);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("utf8");
	TCase *tc;

	tc = check_add_case(s, "utf8",
			    CHECK_TESTS(test_exhaustive_short, test_four_bytes, test_named_forms,
					test_cut_every_byte, test_snprintf_every_size,
					test_snprintf_examples, test_escape, test_escape_every_size,
					test_escape_random_bytes));
	tcase_set_timeout(tc, 60);
	return check_run(s);
}
