// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The built librealtime.so.1 as a program will see it: dlopen() with
 * RTLD_NOW resolves every symbol at once, each call of librealtime.h is
 * there, and the dynamic symbol table exports exactly those calls (and the
 * version node LIBREALTIME_1 that librealtime.sym names), so nothing
 * internal (the bus helpers, the error table, rtkit.c's memory) becomes ABI
 * or clashes with the program. A call added to the header and not to
 * librealtime.sym, or the other way round, fails here.
 *
 * usage: test-librealtime-symbols PATH/librealtime.so.1
 */
#include <check.h>
#include <dlfcn.h>
#include <elf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check-main.h"
#include "elf-exports.h"

static const char *library_path;

/* The calls of librealtime.h, spelled out: the header is the contract. */
static const char *const api[] = {
	"realtime_make_thread_realtime",
	"realtime_make_thread_high_priority",
	"realtime_reset_thread",
	"realtime_grant_limits",
	"realtime_get_max_realtime_priority",
	"realtime_get_min_nice_level",
	"realtime_get_rttime_usec_max",
	"realtime_service",
	"realtime_error_message",
};

/* Internals stay internal. */
static const char *const internal[] = { "realtime_bus_get", "realtime_fail",
					"realtime_errno_from_bus_error",
					"native_make_thread_realtime", "rtkit_reset_thread" };

START_TEST(test_dlopen_now)
{
	void *h = dlopen(library_path, RTLD_NOW | RTLD_LOCAL);

	ck_assert_msg(h != NULL, "dlopen(%s, RTLD_NOW): %s", library_path, dlerror());
	for (size_t i = 0; i < sizeof(api) / sizeof(api[0]); i++)
		ck_assert_msg(dlvsym(h, api[i], "LIBREALTIME_1") != NULL, "no %s@LIBREALTIME_1",
			      api[i]);
	for (size_t i = 0; i < sizeof(internal) / sizeof(internal[0]); i++)
		ck_assert_msg(!dlsym(h, internal[i]), "%s exported", internal[i]);
	ck_assert_int_eq(dlclose(h), 0);
}
END_TEST

START_TEST(test_exports_exactly_the_api)
{
	bool seen[sizeof(api) / sizeof(api[0])] = {};
	ElfExports e = {};
	size_t n_functions = 0;

	ck_assert_int_eq(elf_exports_read(library_path, &e), 0);
	for (size_t i = 0; i < e.n; i++) {
		const ElfExport *s = &e.symbols[i];
		bool known = false;

		if (s->absolute) {
			ck_assert_msg(strcmp(s->name, "LIBREALTIME_1") == 0,
				      "unexpected version node \"%s\"", s->name);
			continue;
		}
		for (size_t j = 0; j < sizeof(api) / sizeof(api[0]); j++)
			if (strcmp(s->name, api[j]) == 0) {
				ck_assert_msg(!seen[j], "%s exported twice", api[j]);
				seen[j] = known = true;
			}
		ck_assert_msg(known,
			      "%s exports \"%s\"; only the calls of librealtime.h may be exported "
			      "(librealtime.sym)",
			      library_path, s->name);
		ck_assert_int_eq(s->type, STT_FUNC);
		n_functions++;
	}
	for (size_t j = 0; j < sizeof(api) / sizeof(api[0]); j++)
		ck_assert_msg(seen[j], "%s does not export %s", library_path, api[j]);
	ck_assert_uint_eq(n_functions, sizeof(api) / sizeof(api[0]));
	elf_exports_free(&e);
}
END_TEST

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s PATH/librealtime.so.1\n", argv[0]);
		return EXIT_FAILURE;
	}
	library_path = argv[1];
	return check_run_case("librealtime-symbols", "library",
			      CHECK_TESTS(test_dlopen_now, test_exports_exactly_the_api), NULL,
			      NULL);
}
