/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's log (daemon/log.c) as a test reads it back: stderr goes to
 * a temporary file, and a test counts the lines that say something.
 */
#pragma once

/* Sends stderr, where log_setup(false, true) then writes, to a temporary
 * file. */
void log_capture(void);
/* How many lines logged since log_capture() contain needle. */
unsigned log_count_lines(const char *needle);
