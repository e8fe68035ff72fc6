// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The log capture of the daemon's unit tests (log-fixture.h).
 */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log-fixture.h"
#include "log.h"

static FILE *captured;

void log_capture(void)
{
	captured = tmpfile();
	ck_assert_ptr_nonnull(captured);
	fflush(stderr);
	ck_assert_int_ge(dup2(fileno(captured), STDERR_FILENO), 0);
	log_setup(false, true);
}

unsigned log_count_lines(const char *needle)
{
	char line[2048];
	unsigned n = 0;

	fflush(stderr);
	rewind(captured);
	while (fgets(line, sizeof(line), captured))
		if (strstr(line, needle))
			n++;
	return n;
}
