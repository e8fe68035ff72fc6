/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pam_realtime's module arguments: "debug", "nocaps" and "conf=FILE" (which
 * may be given more than once; the files are read in that order instead of
 * the default policy files). Parsed one argument at a time so that the
 * caller can log each bad one and go on: a typo in /etc/pam.d must never
 * stop a login.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define PAM_ARGS_CONF_MAX 16

typedef struct PamArgs {
	bool debug;
	bool nocaps;
	const char *conf[PAM_ARGS_CONF_MAX]; /* borrowed from argv */
	size_t n_conf;
} PamArgs;

void pam_args_init(PamArgs *a);

/* Parses one argument into a. Returns 0, or -EINVAL for an unknown argument
 * or a conf= that is not an absolute path, -E2BIG for more than
 * PAM_ARGS_CONF_MAX conf= arguments; a is unchanged on failure. */
int pam_args_parse_one(PamArgs *a, const char *arg);
