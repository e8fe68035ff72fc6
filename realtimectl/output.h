/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimectl's output: a table that prints either aligned for people
 * (a header line unless legend is off) or as a JSON array of objects for
 * scripts, and a JSON string writer for the commands that print objects.
 * Cells are added row by row, left to right. Unit-tested in test-ctl-output.c.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "macro.h"

typedef struct TableColumn {
	const char *header;   /* "PID": shown to people */
	const char *json_key; /* "pid": the JSON member name */
} TableColumn;

typedef enum TableFormat {
	TABLE_TEXT,
	TABLE_TEXT_NO_LEGEND,
	TABLE_JSON,
	_TABLE_FORMAT_MAX,
	_TABLE_FORMAT_INVALID = -EINVAL,
} TableFormat;

typedef struct Table Table;

/* Columns are borrowed: they must outlive the table. -ENOMEM, -EINVAL. */
int table_new(const TableColumn *columns, size_t n_columns, Table **ret);
Table *table_free(Table *t);

static inline void table_freep(Table **t)
{
	if (*t)
		*t = table_free(*t);
}
#define _cleanup_table_ _cleanup_(table_freep)

/* A string cell; NULL prints "-" and JSON null, "" prints "" (quotes). */
int table_add_string(Table *t, const char *s);
/* Number cells: JSON numbers; text shows the number, or text when given. */
int table_add_int(Table *t, int64_t v, const char *text);
int table_add_uint(Table *t, uint64_t v, const char *text);

size_t table_n_rows(const Table *t);

/* Prints the table; the last column of text rows is not padded. An empty
 * table prints only its header (TABLE_TEXT) or "[]". -EIO on write errors. */
int table_print(const Table *t, TableFormat format, FILE *f);

/* Writes s as a JSON string literal, quotes included; NULL writes null.
 * Control characters and invalid UTF-8 bytes are escaped (the latter as
 * U+FFFD) so the output is always valid JSON. */
void json_print_string(FILE *f, const char *s);
