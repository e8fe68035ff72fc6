// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The built pam_realtime.so as libpam will see it: dlopen() with RTLD_NOW
 * resolves every symbol at once (an unresolved one fails here, not at
 * someone's login), the PAM session entry points are there, and the dynamic
 * symbol table exports pam_sm_* and nothing else, so the policy library and
 * helpers linked into it cannot clash with the loading program.
 *
 * usage: test-pam-symbols PATH/pam_realtime.so
 */
#include <check.h>
#include <dlfcn.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check-main.h"
#include "elf-exports.h"

static const char *module_path;

START_TEST(test_dlopen_now)
{
	void *h = dlopen(module_path, RTLD_NOW | RTLD_LOCAL);

	ck_assert_msg(h != NULL, "dlopen(%s, RTLD_NOW): %s", module_path, dlerror());
	ck_assert_msg(dlsym(h, "pam_sm_open_session") != NULL, "no pam_sm_open_session");
	ck_assert_msg(dlsym(h, "pam_sm_close_session") != NULL, "no pam_sm_close_session");
	/* Internals stay internal. */
	ck_assert_ptr_null(dlsym(h, "policy_load"));
	ck_assert_ptr_null(dlsym(h, "policy_eval_for_user"));
	ck_assert_ptr_null(dlsym(h, "parse_size"));
	ck_assert_ptr_null(dlsym(h, "rlimit_plan_from_grant"));
	ck_assert_ptr_null(dlsym(h, "ambient_raise"));
	ck_assert_ptr_null(dlsym(h, "pam_args_parse_one"));
	ck_assert_int_eq(dlclose(h), 0);
}
END_TEST

/* Every defined global or weak symbol of .dynsym must be a pam_sm_*
 * function. */
START_TEST(test_exports_only_pam_sm)
{
	ElfExports e = {};

	ck_assert_int_eq(elf_exports_read(module_path, &e), 0);
	for (size_t i = 0; i < e.n; i++) {
		ck_assert_msg(strncmp(e.symbols[i].name, "pam_sm_", 7) == 0,
			      "%s exports \"%s\"; only pam_sm_* may be exported "
			      "(pam_realtime.sym)",
			      module_path, e.symbols[i].name);
		ck_assert_int_eq(e.symbols[i].type, STT_FUNC);
	}
	ck_assert_uint_eq(e.n, 2);
	elf_exports_free(&e);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("pam-symbols");

	if (argc != 2) {
		fprintf(stderr, "usage: %s PATH/pam_realtime.so\n", argv[0]);
		return EXIT_FAILURE;
	}
	module_path = argv[1];

	check_add_case(s, "module", CHECK_TESTS(test_dlopen_now, test_exports_only_pam_sm));
	return check_run(s);
}
