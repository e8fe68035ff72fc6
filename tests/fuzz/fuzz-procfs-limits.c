// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target for the one parser of a process's limits file
 * (procfs/procfs-limits.c): the input is the text of /proc/PID/limits, and
 * every row the kernel writes is looked up in it, with "Max realtime", a
 * name that only begins other rows'. The answer is 0, -ENODATA or -EBADMSG,
 * the outputs are untouched unless it is 0, a row found begins a line of
 * the text with its name and a blank, and the reader (procfs_limits_read()
 * on a fake /proc) answers as the parser does.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "macro.h"
#include "procfs-limits.h"

/* Does a line of text begin with name and a blank? */
static bool has_row(const char *text, const char *name)
{
	size_t l = strlen(name);

	for (const char *p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, name, l) == 0 && (p[l] == ' ' || p[l] == '\t'))
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the rows of the kernel's fs/proc/base.c, in its order */
	static const char *const names[] = {
		"Max cpu time",		"Max file size",      "Max data size",
		"Max stack size",	"Max core file size", "Max resident set",
		"Max processes",	"Max open files",     "Max locked memory",
		"Max address space",	"Max file locks",     "Max pending signals",
		"Max msgqueue size",	"Max nice priority",  "Max realtime priority",
		"Max realtime timeout", "Max realtime",
	};
	_cleanup_free_ char *text = NULL;
	const char *proc = fuzz_tmpdir();
	char dir[256];
	bool read_too = size < 4096;

	if (size > 64 * 1024)
		return 0;
	text = fuzz_string(data, size);
	if (read_too) {
		snprintf(dir, sizeof(dir), "%s/7", proc);
		(void)mkdir(dir, 0755);
		fuzz_write_file(dir, "limits", data, size);
	}
	for (size_t i = 0; i < ELEMENTSOF(names); i++) {
		uint64_t soft = 1, hard = 2, soft2 = 1, hard2 = 2;
		int r = procfs_limits_parse(text, names[i], &soft, &hard);

		fuzz_assert(r == 0 || r == -ENODATA || r == -EBADMSG);
		fuzz_assert(r == 0 || (soft == 1 && hard == 2));
		fuzz_assert(r == -ENODATA || has_row(text, names[i]));
		if (read_too) {
			fuzz_assert(procfs_limits_read(proc, 7, names[i], &soft2, &hard2) == r);
			fuzz_assert(soft2 == soft && hard2 == hard);
		}
	}
	return 0;
}
