// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <getopt.h>

#include "args.h"
#include "config.h"

enum {
	ARG_VERSION = 0x100,
	ARG_VENDOR_CONF,
	ARG_ADMIN_CONF,
	ARG_VENDOR_CONF_DIR,
	ARG_ADMIN_CONF_DIR,
	ARG_STATE_DIR,
	ARG_NO_DROP_CAPS,
};

static void help(FILE *out)
{
	fprintf(out,
		"realtimed [OPTIONS...]\n\n"
		"Hands out realtime scheduling, nice levels and resource limits within\n"
		"policy (realtime.conf(5)) over D-Bus, and supervises them.\n\n"
		"  -h --help                 Show this help\n"
		"     --version              Show the version\n"
		"  -d --debug                Log every request (to stderr; to the journal\n"
		"                            when systemd runs it)\n"
		"     --vendor-conf=FILE     Vendor policy file (default %s)\n"
		"     --admin-conf=FILE      Admin policy file (default %s)\n"
		"     --vendor-conf-dir=DIR  Vendor drop-in directory (default %s)\n"
		"     --admin-conf-dir=DIR   Admin drop-in directory (default %s)\n"
		"     --state-dir=DIR        Where the grant table is kept (default %s)\n"
		"     --no-drop-caps         Keep all capabilities when started as root\n\n"
		"An empty FILE or DIR disables that source. See realtimed(8).\n",
		POLICY_VENDOR_FILE, POLICY_ADMIN_FILE, POLICY_VENDOR_DROPIN_DIR,
		POLICY_ADMIN_DROPIN_DIR, REALTIME_RUNDIR);
}

int args_parse(int argc, char *argv[], DaemonArgs *ret, FILE *out, FILE *err)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, ARG_VERSION },
		{ "debug", no_argument, NULL, 'd' },
		{ "vendor-conf", required_argument, NULL, ARG_VENDOR_CONF },
		{ "admin-conf", required_argument, NULL, ARG_ADMIN_CONF },
		{ "vendor-conf-dir", required_argument, NULL, ARG_VENDOR_CONF_DIR },
		{ "admin-conf-dir", required_argument, NULL, ARG_ADMIN_CONF_DIR },
		{ "state-dir", required_argument, NULL, ARG_STATE_DIR },
		{ "no-drop-caps", no_argument, NULL, ARG_NO_DROP_CAPS },
		{}
	};
	DaemonArgs a = {
		.drop_caps = true,
		.state_dir = REALTIME_RUNDIR,
		.proc = "/proc",
		.use_pidfds = true,
		.cpu_dma_latency = "/dev/cpu_dma_latency",
	};
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "hd", options, NULL)) >= 0) {
		switch (c) {
		case 'h':
			help(out);
			return 0;
		case ARG_VERSION:
			fprintf(out, "realtimed %s\n", PACKAGE_VERSION);
			return 0;
		case 'd':
			a.debug = true;
			break;
		case ARG_VENDOR_CONF:
			a.vendor_conf = optarg;
			break;
		case ARG_ADMIN_CONF:
			a.admin_conf = optarg;
			break;
		case ARG_VENDOR_CONF_DIR:
			a.vendor_conf_dir = optarg;
			break;
		case ARG_ADMIN_CONF_DIR:
			a.admin_conf_dir = optarg;
			break;
		case ARG_STATE_DIR:
			if (!*optarg) {
				fprintf(err, "realtimed: --state-dir= needs a directory\n");
				return -EINVAL;
			}
			a.state_dir = optarg;
			break;
		case ARG_NO_DROP_CAPS:
			a.drop_caps = false;
			break;
		case '?':
		default:
			if (optopt)
				fprintf(err,
					"realtimed: unknown or incomplete option -%c; see --help\n",
					optopt);
			else
				fprintf(err,
					"realtimed: unknown or incomplete option %s; see --help\n",
					argv[optind - 1]);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(err, "realtimed: unexpected argument '%s'; see --help\n", argv[optind]);
		return -EINVAL;
	}
	*ret = a;
	return 1;
}
