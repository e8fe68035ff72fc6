// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target for the reader of /proc/interrupts and /proc/softirqs
 * (procfs/procfs-interrupts.c), whose header calls both files hostile
 * input: the input is read as each, for a few CPUs (one the header may
 * lack), into one snapshot. What it keeps is bounded (PROCFS_IRQ_SOURCES_MAX
 * sources), its names are printable ASCII within their buffers, a softirq's
 * key begins with "s:", and no key is there twice (the header's
 * "unique in a snapshot").
 */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "macro.h"
#include "procfs-interrupts.h"

static void check_text(const char *s, size_t size)
{
	size_t l = strnlen(s, size);

	fuzz_assert(l < size);
	for (size_t i = 0; i < l; i++)
		fuzz_assert(s[i] >= 0x20 && s[i] < 0x7f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int cpus[] = { 0, 1, 3, 1000 };
	_cleanup_close_ int fd = -EBADF;
	IrqCounts c = {};
	char path[64];
	size_t before = 0;

	if (size > 256 * 1024)
		return 0;
	fd = fuzz_memfd(data, size, path, sizeof(path));
	for (int softirqs = 0; softirqs <= 1; softirqs++) {
		int r = procfs_irq_counts_read(path, softirqs, cpus, ELEMENTSOF(cpus), &c);

		fuzz_assert(r == 0 || r == -EBADMSG);
		fuzz_assert(c.n_cpus == ELEMENTSOF(cpus));
		fuzz_assert(c.n_sources <= 2 * PROCFS_IRQ_SOURCES_MAX);
		for (size_t i = before; i < c.n_sources; i++) {
			const IrqSource *s = &c.sources[i];

			check_text(s->key, sizeof(s->key));
			check_text(s->name, sizeof(s->name));
			check_text(s->action, sizeof(s->action));
			fuzz_assert(s->key[0]);
			fuzz_assert(!!startswith(s->key, "s:") == softirqs);
			/* unique: the first with the key is this one */
			fuzz_assert(procfs_irq_counts_find(&c, s->key, SIZE_MAX) == (long)i);
		}
		fuzz_assert(c.n_sources - before <= PROCFS_IRQ_SOURCES_MAX);
		before = c.n_sources;
	}
	procfs_irq_counts_done(&c);
	fuzz_assert(c.n_sources == 0 && !c.sources && !c.counts);
	return 0;
}
