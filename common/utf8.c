// SPDX-License-Identifier: LGPL-2.1-or-later
/* UTF-8 validation, cutting and escaping; see utf8.h. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "utf8.h"

size_t utf8_char_len(const char *s, size_t n)
{
	/* the smallest code point each length may encode: below is overlong */
	static const uint32_t min[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	const unsigned char *p = (const unsigned char *)s;
	size_t len;
	uint32_t c;

	if (n == 0 || p[0] == 0)
		return 0;
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc0 && p[0] < 0xe0) {
		len = 2;
		c = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] < 0xf0) {
		len = 3;
		c = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] < 0xf8) {
		len = 4;
		c = p[0] & 0x07;
	} else
		return 0; /* a continuation byte, or no lead byte at all */
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (p[i] & 0x3f);
	}
	if (c < min[len] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff) ||
	    (c >= 0xfdd0 && c <= 0xfdef) || (c & 0xfffe) == 0xfffe)
		return 0;
	return len;
}

size_t utf8_cut(const char *s, size_t n)
{
	/* Look back over at most three continuation bytes for a lead byte
	 * whose character would need more bytes than s[0..n) still has. */
	for (size_t back = 1; back <= 3 && back <= n; back++) {
		unsigned char c = (unsigned char)s[n - back];
		size_t need;

		if ((c & 0xc0) == 0x80)
			continue;
		need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
		return need > back ? n - back : n;
	}
	return n;
}

int utf8_vsnprintf(char *buf, size_t size, const char *format, va_list ap)
{
	int r = vsnprintf(buf, size, format, ap);

	if (r >= 0 && size > 0 && (size_t)r >= size)
		buf[utf8_cut(buf, size - 1)] = 0;
	return r;
}

int utf8_snprintf(char *buf, size_t size, const char *format, ...)
{
	va_list ap;
	int r;

	va_start(ap, format);
	r = utf8_vsnprintf(buf, size, format, ap);
	va_end(ap);
	return r;
}

static bool is_escaped_control(unsigned char c, Utf8EscapeFlags flags)
{
	if ((flags & UTF8_ESCAPE_KEEP_NEWLINE) && (c == '\n' || c == '\t'))
		return false;
	return c < 0x20 || c == 0x7f;
}

size_t utf8_escape(const char *s, Utf8EscapeFlags flags, char *buf, size_t size)
{
	size_t n = strlen(s), out = 0;
	bool full = size == 0;

	while (n > 0) {
		size_t k = utf8_char_len(s, n);
		char esc[5];
		const char *unit = s;
		size_t unit_len = k;

		if (k == 0 || (k == 1 && is_escaped_control((unsigned char)s[0], flags))) {
			snprintf(esc, sizeof(esc), "\\x%02x", (unsigned char)s[0]);
			unit = esc;
			unit_len = 4;
			k = 1;
		}
		/* once a unit does not fit, only count: the cut stays between units */
		if (!full && out + unit_len < size)
			memcpy(buf + out, unit, unit_len);
		else if (!full) {
			buf[out] = 0;
			full = true;
		}
		out += unit_len;
		s += k;
		n -= k;
	}
	if (!full)
		buf[out] = 0;
	return out;
}
