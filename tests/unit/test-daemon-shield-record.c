// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for daemon/shield-record.c, the record of what the shield
 * changed, which a realtimed after a crash gives back from: every value
 * (names with blanks, '%', '-', bytes outside ASCII and control bytes)
 * reads back as it was written; lines that are no value (an unknown kind,
 * a missing or extra field, a NUL or a bad escape, a field too long) are
 * skipped and counted, never guessed at; an empty record removes the file.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check-main.h"
#include "macro.h"
#include "shield-move.h"
#include "shield-fixture.h"

static void setup(void)
{
	shield_fixture_setup();
}

START_TEST(test_round_trip)
{
	static const struct {
		ShieldKind kind;
		unsigned id;
		const char *name, *before, *want;
		bool irqbalance;
	} values[] = {
		{ SHIELD_KIND_IRQ, 24, "nvme0q1", "0-3", "0,2", true },
		{ SHIELD_KIND_IRQ, 4294967295u, "PCIe PME, aerdrv", "-", "", false },
		{ SHIELD_KIND_IRQ, 7, "100% \x01\xff\xc3\xa9", "%", "%%41", false },
		{ SHIELD_KIND_IRQ_DEFAULT, 0, "", "ff,ffffffff", "1", false },
		{ SHIELD_KIND_GOVERNOR, 3, "", "schedutil", "performance", false },
		{ SHIELD_KIND_THREAD, 1234, "1200-99887766", "0-7", "1,3", false },
		{ SHIELD_KIND_IRQBALANCE_IRQS, 812, "", "", "16 30 43", false },
	};
	ShieldRecord *r = NULL, *back = NULL;
	unsigned bad = 99;

	ck_assert_int_eq(shield_record_new(shield_roots.state_dir, &r), 0);
	for (size_t i = 0; i < ELEMENTSOF(values); i++)
		ck_assert_int_eq(shield_record_add(r, values[i].kind, values[i].id, values[i].name,
						   values[i].before, values[i].want,
						   values[i].irqbalance),
				 0);
	ck_assert_int_eq(shield_record_save(r), 0);
	ck_assert(shield_fixture_record_exists());

	ck_assert_int_eq(shield_record_new(shield_roots.state_dir, &back), 0);
	ck_assert_int_eq(shield_record_load(back, &bad), 0);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(back->n, ELEMENTSOF(values));
	for (size_t i = 0; i < ELEMENTSOF(values); i++) {
		const ShieldEntry *e = &back->entries[i];

		ck_assert_int_eq(e->kind, values[i].kind);
		ck_assert_uint_eq(e->id, values[i].id);
		ck_assert_str_eq(e->name, values[i].name);
		ck_assert_str_eq(e->before, values[i].before);
		ck_assert_str_eq(e->want, values[i].want);
		ck_assert_int_eq(e->irqbalance, values[i].irqbalance);
	}
	ck_assert_ptr_eq(shield_record_find(back, SHIELD_KIND_THREAD, 1234), &back->entries[5]);
	ck_assert_ptr_null(shield_record_find(back, SHIELD_KIND_THREAD, 24));

	/* dropping moves the last into the hole */
	shield_record_drop(back, 0);
	ck_assert_uint_eq(back->n, ELEMENTSOF(values) - 1);
	ck_assert_uint_eq(back->entries[0].id, 812);
	shield_record_clear(back);
	ck_assert_int_eq(shield_record_save(back), 0);
	ck_assert(!shield_fixture_record_exists());
	ck_assert_int_eq(shield_record_load(back, &bad), -ENOENT);
	shield_record_free(r);
	shield_record_free(back);
}
END_TEST

START_TEST(test_bad_lines)
{
	static const char *const bad[] = {
		"",
		"irq",
		"irq 24 nvme0q1 0-3 0,2",
		"irq 24 nvme0q1 0-3 0,2 - extra",
		"irq 24 nvme0q1 0-3 0,2 x",
		"nosuch 24 nvme0q1 0-3 0,2 -",
		"irq -1 nvme0q1 0-3 0,2 -",
		"irq 4294967296 nvme0q1 0-3 0,2 -",
		"irq 24 nv%00me 0-3 0,2 -",
		"irq 24 nv%0 0-3 0,2 -",
		"irq 24 nv%zz 0-3 0,2 -",
		"irq 24 nv%41%4 0-3 0,2 -",
		"irq 24 nvme0q1  0-3 0,2 -",
		"irq 24 nv\tme 0-3 0,2 -",
		"irq 24 nv\xffme 0-3 0,2 -",
	};
	char name[300], line[400];
	ShieldEntry e;
	ShieldRecord *r = NULL;
	unsigned n_bad = 0;
	FILE *f;

	for (size_t i = 0; i < ELEMENTSOF(bad); i++)
		ck_assert_msg(shield_record_parse_line(bad[i], &e) == -EINVAL, "accepted '%s'",
			      bad[i]);
	/* a name longer than a record holds */
	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	snprintf(line, sizeof(line), "irq 24 %s 0-3 0,2 -", name);
	ck_assert_int_eq(shield_record_parse_line(line, &e), -EINVAL);
	ck_assert_int_eq(shield_record_parse_line("irq 24 a%20b 0-3 0,2 b\n", &e), 0);
	ck_assert_str_eq(e.name, "a b");
	ck_assert(e.irqbalance);
	shield_entry_done(&e);

	/* a file with good and bad lines: the good ones, the bad ones counted */
	snprintf(line, sizeof(line), "%s/shield", shield_roots.state_dir);
	f = fopen(line, "we");
	ck_assert_ptr_nonnull(f);
	fputs("# realtimed shield v1\nirq 24 nvme0q1 0-3 0,2 -\ngarbage\n", f);
	fwrite("irq 25 a\0b 3 0 -\n", 1, 17, f);
	fputs("workqueue 0 - f 5 -", f);
	fclose(f);
	ck_assert_int_eq(shield_record_new(shield_roots.state_dir, &r), 0);
	ck_assert_int_eq(shield_record_load(r, &n_bad), 0);
	ck_assert_uint_eq(n_bad, 2);
	ck_assert_uint_eq(r->n, 2);
	ck_assert_int_eq(r->entries[1].kind, SHIELD_KIND_WORKQUEUE);
	ck_assert_str_eq(r->entries[1].want, "5");
	shield_record_free(r);
}
END_TEST

START_TEST(test_bounds)
{
	ShieldRecord *r = NULL;

	ck_assert_int_eq(shield_record_new(shield_roots.state_dir, &r), 0);
	for (unsigned i = 0; i < SHIELD_RECORD_MAX; i++)
		ck_assert_int_eq(shield_record_add(r, SHIELD_KIND_IRQ, i, "x", "0-3", "0", false),
				 0);
	ck_assert_int_eq(shield_record_add(r, SHIELD_KIND_IRQ, 0, "x", "0-3", "0", false), -E2BIG);
	ck_assert_str_eq(shield_kind_to_string(SHIELD_KIND_IRQBALANCE_CPUS), "irqbalance-cpus");
	ck_assert_int_eq(shield_kind_from_string("irq-default"), SHIELD_KIND_IRQ_DEFAULT);
	ck_assert_int_eq(shield_kind_from_string("IRQ"), _SHIELD_KIND_INVALID);
	shield_record_free(r);
}
END_TEST

int main(void)
{
	return check_run_case("daemon-shield-record", "record",
			      CHECK_TESTS(test_round_trip, test_bad_lines, test_bounds), setup,
			      shield_fixture_teardown);
}
