/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimectl policy check [FILE...]: validates policy files through the
 * policy library, the same code the daemon and the PAM module use, so what
 * passes here is what they accept. Every error of a rejected file is
 * printed as "file:line: message", and the warnings (policy_load_check():
 * names NSS does not know, keys set twice or overridden, masked drop-ins)
 * as "file:line: warning: message"; exit status 1 if any file was
 * rejected, 6 if there were only warnings. Run by a user other than root,
 * the library also reads that user's own files (so a draft can be checked
 * before it is installed); each comes with a warning that realtimed,
 * running as root, would reject it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "ctl.h"
#include "macro.h"
#include "output.h"

/* ,"name":[{"file":...,"line":...,"message":...},...] */
static void print_json_notes(const char *name, const Policy *p, size_t n,
			     const PolicyError *(*get)(const Policy *, size_t))
{
	printf(",\"%s\":[", name);
	for (size_t i = 0; i < n; i++) {
		const PolicyError *e = get(p, i);

		fputs(i ? ",{\"file\":" : "{\"file\":", stdout);
		json_print_string(stdout, e->file);
		printf(",\"line\":%u,\"message\":", e->line);
		json_print_string(stdout, e->message);
		fputc('}', stdout);
	}
	fputc(']', stdout);
}

static void print_json(const Policy *p)
{
	fputs("{\"files\":[", stdout);
	for (size_t i = 0; i < policy_n_files(p); i++) {
		if (i)
			fputc(',', stdout);
		json_print_string(stdout, policy_file(p, i));
	}
	fputc(']', stdout);
	print_json_notes("errors", p, policy_n_errors(p), policy_error);
	print_json_notes("warnings", p, policy_n_warnings(p), policy_warning);
	fputs("}\n", stdout);
}

static int policy_check(Ctl *ctl, int argc, char **argv)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	_cleanup_free_ const char **files = NULL;
	size_t n_files = 0;
	int r;

	/* FILEs and --conf add up: exactly those files, in order. */
	if (argc > 0 || ctl->n_conf_files > 0) {
		if (ctl->have_paths)
			return ctl_usage_error(
				"give either FILEs or the --*-conf* path options, not both.");
		files = calloc(ctl->n_conf_files + (size_t)argc, sizeof(char *));
		if (!files)
			return ctl_oom();
		for (size_t i = 0; i < ctl->n_conf_files; i++)
			files[n_files++] = ctl->conf_files[i];
		for (int i = 0; i < argc; i++)
			files[n_files++] = argv[i];
		r = policy_load_files_check(files, n_files, &p);
	} else
		r = policy_load_check(&ctl->paths, &p);
	if (r < 0) {
		fprintf(stderr, "Failed to load the policy: %s\n", strerror(-r));
		return ctl_exit_from_errno(r);
	}

	for (size_t i = 0; i < policy_n_errors(p); i++)
		ctl_print_policy_error(policy_error(p, i));
	for (size_t i = 0; i < policy_n_warnings(p); i++)
		ctl_print_policy_warning(policy_warning(p, i));

	if (ctl->json)
		print_json(p);
	else {
		for (size_t i = 0; i < policy_n_files(p); i++)
			printf("%s: ok\n", policy_file(p, i));
		if (policy_n_files(p) == 0 && policy_n_errors(p) == 0)
			fprintf(stderr,
				"No policy files found (looked for %s, %s and drop-ins): realtimed "
				"grants nothing.\n",
				ctl->paths.vendor_file ?: POLICY_VENDOR_FILE,
				ctl->paths.admin_file ?: POLICY_ADMIN_FILE);
	}
	if (policy_n_errors(p) > 0) {
		if (!ctl->json)
			fprintf(stderr,
				"%zu rejected: realtimed and pam_realtime ignore a rejected "
				"file whole, and read no file of a rejected directory.\n",
				policy_n_errors(p));
		return CTL_EXIT_REFUSED;
	}
	/* warnings reject nothing, but a script may want to know of them */
	return policy_n_warnings(p) > 0 ? CTL_EXIT_WARNINGS : CTL_EXIT_OK;
}

int verb_policy(Ctl *ctl, int argc, char **argv)
{
	if (argc < 1)
		return ctl_usage_error("'policy' needs a subcommand: policy check [FILE...].");
	if (streq(argv[0], "check"))
		return policy_check(ctl, argc - 1, argv + 1);
	return ctl_usage_error("unknown subcommand 'policy %s': only 'policy check' exists.",
			       argv[0]);
}
