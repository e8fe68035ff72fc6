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
#include <fcntl.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check-main.h"

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

/* Walks .dynsym of the file: every defined global or weak symbol must be
 * a pam_sm_* function. */
START_TEST(test_exports_only_pam_sm)
{
	const ElfW(Ehdr) * eh;
	const ElfW(Shdr) * sh;
	const unsigned char *base;
	struct stat st;
	size_t n_exported = 0;
	bool found_dynsym = false;
	int fd;

	fd = open(module_path, O_RDONLY | O_CLOEXEC);
	ck_assert_msg(fd >= 0, "open %s: %m", module_path);
	ck_assert_int_eq(fstat(fd, &st), 0);
	base = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	ck_assert(base != MAP_FAILED);
	close(fd);

	eh = (const ElfW(Ehdr) *)base;
	ck_assert(memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0);
	ck_assert_uint_ge((size_t)st.st_size,
			  eh->e_shoff + (size_t)eh->e_shnum * sizeof(ElfW(Shdr)));
	sh = (const ElfW(Shdr) *)(base + eh->e_shoff);

	for (size_t i = 0; i < eh->e_shnum; i++) {
		const ElfW(Sym) * syms;
		const char *strtab;

		if (sh[i].sh_type != SHT_DYNSYM)
			continue;
		found_dynsym = true;
		syms = (const ElfW(Sym) *)(base + sh[i].sh_offset);
		strtab = (const char *)(base + sh[sh[i].sh_link].sh_offset);

		for (size_t j = 0; j < sh[i].sh_size / sizeof(ElfW(Sym)); j++) {
			const char *name = strtab + syms[j].st_name;
			unsigned bind = ELF64_ST_BIND(syms[j].st_info);

			if (syms[j].st_shndx == SHN_UNDEF ||
			    (bind != STB_GLOBAL && bind != STB_WEAK))
				continue;
			ck_assert_msg(strncmp(name, "pam_sm_", 7) == 0,
				      "%s exports \"%s\"; only pam_sm_* may be exported "
				      "(pam_realtime.sym)",
				      module_path, name);
			ck_assert_int_eq(ELF64_ST_TYPE(syms[j].st_info), STT_FUNC);
			n_exported++;
		}
	}
	ck_assert_msg(found_dynsym, "no .dynsym in %s", module_path);
	ck_assert_uint_eq(n_exported, 2);
	munmap((void *)base, (size_t)st.st_size);
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
