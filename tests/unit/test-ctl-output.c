/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for realtimectl/output.c: aligned text tables (header, no
 * legend, the last column unpadded, "-" for missing values, UTF-8 widths)
 * and JSON (typed numbers, null, escaping of quotes, backslashes, control
 * characters and invalid UTF-8), captured through open_memstream().
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check-main.h"
#include "output.h"

static const TableColumn columns[] = {
	{ "PID", "pid" },
	{ "COMMAND", "command" },
	{ "PRIORITY", "priority" },
};

/* Runs table_print into a string the caller frees. */
static char *print(const Table *t, TableFormat format)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(table_print(t, format, f), 0);
	fclose(f);
	return buf;
}

/* t printed in format is want. */
static void assert_printed(const Table *t, TableFormat format, const char *want)
{
	char *s = print(t, format);

	ck_assert_str_eq(s, want);
	free(s);
}

static Table *sample(void)
{
	Table *t = NULL;

	ck_assert_int_eq(table_new(columns, 3, &t), 0);
	ck_assert_int_eq(table_add_uint(t, 1234, NULL), 0);
	ck_assert_int_eq(table_add_string(t, "jackd"), 0);
	ck_assert_int_eq(table_add_int(t, 70, NULL), 0);
	ck_assert_int_eq(table_add_uint(t, 5, NULL), 0);
	ck_assert_int_eq(table_add_string(t, NULL), 0);
	ck_assert_int_eq(table_add_int(t, -11, "nice -11"), 0);
	ck_assert_uint_eq(table_n_rows(t), 2);
	return t;
}

START_TEST(test_text)
{
	Table *t = sample();

	assert_printed(t, TABLE_TEXT,
		       "PID  COMMAND PRIORITY\n"
		       "1234 jackd   70\n"
		       "5    -       nice -11\n");
	assert_printed(t, TABLE_TEXT_NO_LEGEND,
		       "1234 jackd 70\n"
		       "5    -     nice -11\n");
	table_free(t);
}
END_TEST

START_TEST(test_json)
{
	Table *t = sample();

	/* Numbers stay numbers (the text form "nice -11" is for people), NULL is null. */
	assert_printed(t, TABLE_JSON,
		       "[{\"pid\":1234,\"command\":\"jackd\",\"priority\":70},"
		       "{\"pid\":5,\"command\":null,\"priority\":-11}]\n");
	table_free(t);
}
END_TEST

START_TEST(test_empty)
{
	Table *t = NULL;

	ck_assert_int_eq(table_new(columns, 3, &t), 0);
	assert_printed(t, TABLE_JSON, "[]\n");
	assert_printed(t, TABLE_TEXT, "PID COMMAND PRIORITY\n");
	assert_printed(t, TABLE_TEXT_NO_LEGEND, "");
	table_free(t);

	ck_assert_int_eq(table_new(columns, 0, &t), -EINVAL);
	ck_assert_ptr_null(table_free(NULL));
}
END_TEST

/* An empty string stays visible in text ("") and is "" in JSON, not null. */
START_TEST(test_empty_string)
{
	Table *t = NULL;

	ck_assert_int_eq(table_new(columns, 3, &t), 0);
	ck_assert_int_eq(table_add_uint(t, 1, NULL), 0);
	ck_assert_int_eq(table_add_string(t, ""), 0);
	ck_assert_int_eq(table_add_int(t, 2, NULL), 0);
	assert_printed(t, TABLE_TEXT_NO_LEGEND, "1 \"\" 2\n");
	assert_printed(t, TABLE_JSON, "[{\"pid\":1,\"command\":\"\",\"priority\":2}]\n");
	table_free(t);
}
END_TEST

START_TEST(test_utf8_width)
{
	Table *t = NULL;

	ck_assert_int_eq(table_new(columns, 3, &t), 0);
	ck_assert_int_eq(table_add_uint(t, 1, NULL), 0);
	ck_assert_int_eq(table_add_string(t, "h\xc3\xa9llo"), 0); /* 5 characters, 6 bytes */
	ck_assert_int_eq(table_add_int(t, 1, NULL), 0);
	assert_printed(t, TABLE_TEXT,
		       "PID COMMAND PRIORITY\n"
		       "1   h\xc3\xa9llo   1\n");
	table_free(t);
}
END_TEST

static char *json(const char *in)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	ck_assert_ptr_nonnull(f);
	json_print_string(f, in);
	fclose(f);
	return buf;
}

static void assert_json(const char *in, const char *want)
{
	char *s = json(in);

	ck_assert_msg(strcmp(s, want) == 0, "json(\"%s\") = %s, want %s", in ? in : "(null)", s,
		      want);
	free(s);
}

START_TEST(test_json_string)
{
	assert_json(NULL, "null");
	assert_json("", "\"\"");
	assert_json("jackd", "\"jackd\"");
	assert_json("a\"b\\c", "\"a\\\"b\\\\c\"");
	assert_json("tab\there\nnl", "\"tab\\there\\nnl\"");
	assert_json("\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"");
	/* Valid UTF-8 passes through; broken bytes become U+FFFD. */
	assert_json("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8e\xb5",
		    "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8e\xb5\"");
	assert_json("bad\xff", "\"bad\\ufffd\"");
	assert_json("\xc3", "\"\\ufffd\"");
	assert_json("\xc0\xaf", "\"\\ufffd\\ufffd\"");		  /* overlong '/' */
	assert_json("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\""); /* a surrogate */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("realtimectl-output");

	check_add_case(s, "table",
		       CHECK_TESTS(test_text, test_json, test_empty, test_empty_string,
				   test_utf8_width, test_json_string));
	return check_run(s);
}
