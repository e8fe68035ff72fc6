/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * UTF-8 as D-Bus and JSON want it, the one place that knows what a
 * character is. libdbus aborts the process when it is asked to send a
 * string that is not valid UTF-8, and many strings realtimed sends come
 * from sources that nobody validated: a caller's argument quoted in an
 * error and cut to fit a buffer, a thread's name from /proc (a thread may
 * name itself with any bytes but NUL), policy file names and contents, user
 * names from NSS. daemon/bus.c passes every string it puts into a message
 * through utf8_escape(), and text cut to fit a buffer is cut between
 * characters: by realtimed (utf8_vsnprintf()), by librealtime for the
 * calling thread's message (librealtime/error.c), and realtimectl's JSON
 * writer takes only the characters utf8_char_len() takes
 * (realtimectl/output.c).
 *
 * In common/ because the daemon, the client library and the CLI all need
 * it; pure functions that allocate nothing, no global state.
 * test-utf8.c checks them against libdbus's own dbus_validate_utf8().
 */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "macro.h"

/* The length (1..4) of the character at the start of s[0..n), or 0 when s
 * does not start with a character that every libdbus accepts: NUL, a
 * continuation byte, a sequence cut short or with a bad continuation byte,
 * an overlong form, a UTF-16 surrogate (U+D800..U+DFFF), a code point beyond
 * U+10FFFF, or a noncharacter (U+FDD0..U+FDEF, U+nFFFE, U+nFFFF: libdbus
 * accepts those since 1.9, older versions abort on them too). */
size_t utf8_char_len(const char *s, size_t n);

/* The largest length m <= n such that s[0..m) does not end with the first
 * bytes of a multibyte character: where to cut s, of which at least n bytes
 * are readable, so that no character is split. */
size_t utf8_cut(const char *s, size_t n);

/* vsnprintf(), except that text that does not fit is cut between two
 * characters, not inside one. Returns what vsnprintf() returns. */
int utf8_vsnprintf(char *buf, size_t size, const char *format, va_list ap) _printf_(3, 0);
int utf8_snprintf(char *buf, size_t size, const char *format, ...) _printf_(3, 4);

typedef enum Utf8EscapeFlags {
	UTF8_ESCAPE_KEEP_NEWLINE = 1 << 0, /* leave \n and \t alone (multi-line text) */
} Utf8EscapeFlags;

/* Writes s to buf made valid UTF-8, in a form an admin can read: each byte
 * that does not start a valid character (see utf8_char_len()), and each
 * control character (U+0001..U+001F, U+007F), becomes "\xNN" (lower-case
 * hex); all else is copied unchanged. As snprintf(): writes at most size - 1
 * bytes and a NUL (nothing when size is 0), cut only between characters or
 * escapes, and returns the length of the whole result, which equals
 * strlen(s) exactly when nothing needed escaping. */
size_t utf8_escape(const char *s, Utf8EscapeFlags flags, char *buf, size_t size);
