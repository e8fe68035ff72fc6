// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reads the dynamic symbol table of a shared object (see elf-exports.h):
 * the file is mapped, its section headers walked to .dynsym, and every
 * defined global or weak symbol listed.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf-exports.h"

int elf_exports_read(const char *path, ElfExports *ret)
{
	const ElfW(Ehdr) * eh;
	const ElfW(Shdr) * sh;
	const unsigned char *base;
	ElfExports e = {};
	struct stat st;
	int fd, r = -ENOEXEC;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	e.size = (size_t)st.st_size;
	e.map = mmap(NULL, e.size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (e.map == MAP_FAILED)
		return -errno;
	base = e.map;
	eh = (const ElfW(Ehdr) *)base;
	if (e.size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    e.size < eh->e_shoff + (size_t)eh->e_shnum * sizeof(ElfW(Shdr)))
		goto fail;
	sh = (const ElfW(Shdr) *)(base + eh->e_shoff);

	for (size_t i = 0; i < eh->e_shnum; i++) {
		const ElfW(Sym) * syms;
		const char *strtab;
		size_t n;

		if (sh[i].sh_type != SHT_DYNSYM)
			continue;
		syms = (const ElfW(Sym) *)(base + sh[i].sh_offset);
		strtab = (const char *)(base + sh[sh[i].sh_link].sh_offset);
		n = sh[i].sh_size / sizeof(ElfW(Sym));
		e.symbols = calloc(n ? n : 1, sizeof(ElfExport));
		if (!e.symbols) {
			r = -ENOMEM;
			goto fail;
		}
		for (size_t j = 0; j < n; j++) {
			unsigned bind = ELF64_ST_BIND(syms[j].st_info);

			if (syms[j].st_shndx == SHN_UNDEF ||
			    (bind != STB_GLOBAL && bind != STB_WEAK))
				continue;
			e.symbols[e.n++] = (ElfExport){
				.name = strtab + syms[j].st_name,
				.type = ELF64_ST_TYPE(syms[j].st_info),
				.absolute = syms[j].st_shndx == SHN_ABS,
			};
		}
		*ret = e;
		return 0;
	}
fail:
	free(e.symbols);
	munmap(e.map, e.size);
	return r;
}

void elf_exports_free(ElfExports *e)
{
	free(e->symbols);
	if (e->map)
		munmap(e->map, e->size);
	*e = (ElfExports){};
}
