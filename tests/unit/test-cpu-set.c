// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for common/cpu-set.h, the CPU lists and masks of Shield= and
 * of realtimed's shield: lists and masks as the kernel writes them read
 * back into the same set, formatted back the way the kernel reads them,
 * and garbage (a reversed range, a CPU beyond CPU_SET_MAX, a stray
 * character, an empty word) refused with the set left untouched.
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "check-main.h"
#include "cpu-set.h"
#include "macro.h"

static const struct {
	const char *list, *mask, *canonical;
} same[] = {
	{ "", "0", "" },
	{ "0", "1", "0" },
	{ "0-3\n", "f", "0-3" },
	{ "1,3", "a", "1,3" },
	{ "0-1,3", "0000000b", "0-1,3" },
	{ "31-32", "1,80000000", "31-32" },
	{ "32", "00000001,00000000\n", "32" },
	{ "0 2\t4", "15", "0,2,4" },
	{ "8191", "80000000" /* patched below: word 255 */, "8191" },
	{ "0-7,5", "ff", "0-7" },
};

START_TEST(test_list_and_mask)
{
	CpuSet a, b, c;
	char buf[4096];

	for (size_t i = 0; i < ELEMENTSOF(same); i++) {
		ck_assert_msg(cpu_set_parse_list(same[i].list, &a) == 0, "list '%s'", same[i].list);
		ck_assert_int_eq(cpu_set_format_list(&a, buf, sizeof(buf)), 0);
		ck_assert_str_eq(buf, same[i].canonical);
		ck_assert_int_eq(cpu_set_parse_list(buf, &c), 0);
		ck_assert(cpu_set_equal(&a, &c));
		/* the mask the kernel takes back gives the same set */
		ck_assert_int_eq(cpu_set_format_mask(&a, buf, sizeof(buf)), 0);
		ck_assert_int_eq(cpu_set_parse_mask(buf, &c), 0);
		ck_assert_msg(cpu_set_equal(&a, &c), "mask %s of '%s'", buf, same[i].list);
		if (i == 8)
			continue; /* its mask is 256 words long */
		ck_assert_msg(cpu_set_parse_mask(same[i].mask, &b) == 0, "mask '%s'", same[i].mask);
		ck_assert_msg(cpu_set_equal(&a, &b), "'%s' and '%s'", same[i].list, same[i].mask);
	}
	ck_assert_int_eq(cpu_set_parse_mask("1,00000000", &a), 0);
	ck_assert_int_eq(cpu_set_format_mask(&a, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "1,00000000");
	ck_assert_int_eq(cpu_set_count(&a), 1);
	ck_assert_int_eq(cpu_set_last(&a), 32);
}
END_TEST

START_TEST(test_garbage)
{
	static const char *const lists[] = { "3-1",	    "a",     "1-",     "-1",
					     "1,,x",	    "1;2",   "0-8192", "8192",
					     "99999999999", "1\n\n", "1-2-3" };
	static const char *const masks[] = { "",     ",1",  "1,", "g", "1,000000001",
					     "1,,1", "0x1", "1 2" };
	CpuSet s, orig;

	cpu_set_clear(&s);
	cpu_set_add(&s, 5);
	orig = s;
	for (size_t i = 0; i < ELEMENTSOF(lists); i++) {
		int r = cpu_set_parse_list(lists[i], &s);

		ck_assert_msg(r == -EINVAL || r == -ERANGE, "list '%s': %d", lists[i], r);
		ck_assert(cpu_set_equal(&s, &orig));
	}
	for (size_t i = 0; i < ELEMENTSOF(masks); i++) {
		int r = cpu_set_parse_mask(masks[i], &s);

		ck_assert_msg(r == -EINVAL || r == -ERANGE, "mask '%s': %d", masks[i], r);
		ck_assert(cpu_set_equal(&s, &orig));
	}
	ck_assert_int_eq(cpu_set_parse_list("8192", &s), -ERANGE);
}
END_TEST

START_TEST(test_operations)
{
	CpuSet a, b, r;
	char small[4];

	ck_assert_int_eq(cpu_set_parse_list("0-3,8", &a), 0);
	ck_assert_int_eq(cpu_set_parse_list("3-8", &b), 0);
	cpu_set_and(&r, &a, &b);
	ck_assert_int_eq(cpu_set_count(&r), 2);
	ck_assert(cpu_set_has(&r, 3) && cpu_set_has(&r, 8));
	cpu_set_andnot(&r, &a, &b);
	ck_assert_int_eq(cpu_set_count(&r), 3);
	ck_assert(!cpu_set_has(&r, 3));
	cpu_set_or(&r, &a, &b);
	ck_assert_int_eq(cpu_set_count(&r), 9);
	ck_assert(cpu_set_is_subset(&a, &r) && !cpu_set_is_subset(&r, &a));
	ck_assert(cpu_set_intersects(&a, &b));
	ck_assert_int_eq(cpu_set_next(&a, -1), 0);
	ck_assert_int_eq(cpu_set_next(&a, 3), 8);
	ck_assert_int_eq(cpu_set_next(&a, 8), -1);
	ck_assert_int_eq(cpu_set_last(&b), 8);
	cpu_set_clear(&r);
	ck_assert(cpu_set_is_empty(&r) && cpu_set_last(&r) == -1 && cpu_set_next(&r, -1) == -1);
	ck_assert(!cpu_set_add(&r, CPU_SET_MAX));
	ck_assert(cpu_set_add(&r, CPU_SET_MAX - 1));
	ck_assert_int_eq(cpu_set_next(&r, -1), CPU_SET_MAX - 1);
	cpu_set_remove(&r, CPU_SET_MAX - 1);
	ck_assert(cpu_set_is_empty(&r));
	/* too long for the buffer: an error and a terminated buffer */
	ck_assert_int_eq(cpu_set_format_list(&a, small, sizeof(small)), -ENOBUFS);
	ck_assert_uint_lt(strlen(small), sizeof(small));
}
END_TEST

int main(void)
{
	return check_run_case("cpu-set", "cpu-set",
			      CHECK_TESTS(test_list_and_mask, test_garbage, test_operations), NULL,
			      NULL);
}
