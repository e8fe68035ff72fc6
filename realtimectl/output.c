/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tables and JSON for realtimectl (see output.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "output.h"
#include "utf8.h"

typedef enum CellType {
	CELL_STRING,
	CELL_INT,
	CELL_UINT,
	CELL_NULL,
} CellType;

typedef struct Cell {
	CellType type;
	char *text; /* what people see; NULL for CELL_NULL */
	union {
		int64_t i;
		uint64_t u;
	};
} Cell;

struct Table {
	const TableColumn *columns;
	size_t n_columns;
	Cell *cells;
	size_t n_cells;
	size_t allocated;
};

int table_new(const TableColumn *columns, size_t n_columns, Table **ret)
{
	Table *t;

	if (!columns || n_columns == 0)
		return -EINVAL;
	t = malloc(sizeof(*t));
	if (!t)
		return -ENOMEM;
	*t = (Table){ .columns = columns, .n_columns = n_columns };
	*ret = t;
	return 0;
}

Table *table_free(Table *t)
{
	if (!t)
		return NULL;
	for (size_t i = 0; i < t->n_cells; i++)
		free(t->cells[i].text);
	free(t->cells);
	free(t);
	return NULL;
}

static int table_add_cell(Table *t, CellType type, const char *text, int64_t i, uint64_t u)
{
	char *copy = NULL;

	if (t->n_cells == t->allocated) {
		size_t n = t->allocated ? t->allocated * 2 : 16;
		Cell *c = reallocarray(t->cells, n, sizeof(Cell));

		if (!c)
			return -ENOMEM;
		t->cells = c;
		t->allocated = n;
	}
	if (text) {
		copy = strdup(text);
		if (!copy)
			return -ENOMEM;
	}
	t->cells[t->n_cells++] = (Cell){ .type = type, .text = copy };
	if (type == CELL_INT)
		t->cells[t->n_cells - 1].i = i;
	else if (type == CELL_UINT)
		t->cells[t->n_cells - 1].u = u;
	return 0;
}

int table_add_string(Table *t, const char *s)
{
	return table_add_cell(t, s ? CELL_STRING : CELL_NULL, s, 0, 0);
}

int table_add_int(Table *t, int64_t v, const char *text)
{
	char buf[32];

	if (!text) {
		snprintf(buf, sizeof(buf), "%" PRIi64, v);
		text = buf;
	}
	return table_add_cell(t, CELL_INT, text, v, 0);
}

int table_add_uint(Table *t, uint64_t v, const char *text)
{
	char buf[32];

	if (!text) {
		snprintf(buf, sizeof(buf), "%" PRIu64, v);
		text = buf;
	}
	return table_add_cell(t, CELL_UINT, text, 0, v);
}

size_t table_n_rows(const Table *t)
{
	return (t->n_cells + t->n_columns - 1) / t->n_columns;
}

/* Display width of a UTF-8 string, counting code points (good enough for
 * user names and commands; no wide-character tables here). */
static size_t text_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

/* Missing values show as "-"; an empty string as "" so that it stays
 * visible and the columns stay apart. */
static const char *cell_text(const Cell *c)
{
	if (c->type == CELL_NULL)
		return "-";
	return c->text[0] ? c->text : "\"\"";
}

static void print_row(FILE *f, const char *const *texts, const size_t *widths, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		fputs(texts[i], f);
		if (i + 1 < n) {
			for (size_t w = text_width(texts[i]); w < widths[i]; w++)
				fputc(' ', f);
			fputc(' ', f);
		}
	}
	fputc('\n', f);
}

static int table_print_text(const Table *t, bool legend, FILE *f)
{
	_cleanup_free_ size_t *widths = calloc(t->n_columns, sizeof(size_t));
	_cleanup_free_ const char **texts = calloc(t->n_columns, sizeof(char *));
	size_t rows = table_n_rows(t);

	if (!widths || !texts)
		return -ENOMEM;
	if (legend)
		for (size_t c = 0; c < t->n_columns; c++)
			widths[c] = text_width(t->columns[c].header);
	for (size_t i = 0; i < t->n_cells; i++) {
		size_t w = text_width(cell_text(&t->cells[i]));

		if (w > widths[i % t->n_columns])
			widths[i % t->n_columns] = w;
	}

	if (legend) {
		for (size_t c = 0; c < t->n_columns; c++)
			texts[c] = t->columns[c].header;
		print_row(f, texts, widths, t->n_columns);
	}
	for (size_t r = 0; r < rows; r++) {
		for (size_t c = 0; c < t->n_columns; c++) {
			size_t i = r * t->n_columns + c;

			texts[c] = i < t->n_cells ? cell_text(&t->cells[i]) : "-";
		}
		print_row(f, texts, widths, t->n_columns);
	}
	return 0;
}

/* JSON's two-character escape of c, or NULL. */
static const char *json_escape(unsigned char c)
{
	switch (c) {
	case '"':
		return "\\\"";
	case '\\':
		return "\\\\";
	case '\n':
		return "\\n";
	case '\t':
		return "\\t";
	}
	return NULL;
}

void json_print_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	if (!s) {
		fputs("null", f);
		return;
	}
	n = strlen(s);
	fputc('"', f);
	while (*p) {
		const char *esc = json_escape(*p);
		size_t len = 1;

		if (esc)
			fputs(esc, f);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else if ((len = utf8_char_len((const char *)p, n)) > 0)
			fwrite(p, 1, len, f);
		else {
			fputs("\\ufffd", f); /* not a character libdbus would send */
			len = 1;
		}
		p += len;
		n -= len;
	}
	fputc('"', f);
}

static int table_print_json(const Table *t, FILE *f)
{
	size_t rows = table_n_rows(t);

	fputc('[', f);
	for (size_t r = 0; r < rows; r++) {
		fputs(r ? ",{" : "{", f);
		for (size_t c = 0; c < t->n_columns; c++) {
			size_t i = r * t->n_columns + c;
			const Cell *cell = i < t->n_cells ? &t->cells[i] : NULL;

			if (c)
				fputc(',', f);
			json_print_string(f, t->columns[c].json_key);
			fputc(':', f);
			if (!cell || cell->type == CELL_NULL)
				fputs("null", f);
			else if (cell->type == CELL_STRING)
				json_print_string(f, cell->text);
			else if (cell->type == CELL_INT)
				fprintf(f, "%" PRIi64, cell->i);
			else
				fprintf(f, "%" PRIu64, cell->u);
		}
		fputc('}', f);
	}
	fputs("]\n", f);
	return 0;
}

int table_print(const Table *t, TableFormat format, FILE *f)
{
	int r = -EINVAL;

	switch (format) {
	case TABLE_TEXT:
	case TABLE_TEXT_NO_LEGEND:
		r = table_print_text(t, format == TABLE_TEXT, f);
		break;
	case TABLE_JSON:
		r = table_print_json(t, f);
		break;
	case _TABLE_FORMAT_MAX:
	case _TABLE_FORMAT_INVALID:
		return -EINVAL;
	}
	if (r < 0)
		return r;
	if (fflush(f) != 0 || ferror(f))
		return -EIO;
	return 0;
}
