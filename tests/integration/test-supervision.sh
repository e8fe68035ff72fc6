#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Supervision of grants: a thread that exits loses its grant (and leaves
# ListGrants) at once; a restarted daemon adopts the grants whose threads
# still live and supervises them again, and forgets those that died while it
# was away; per-user caps (ThreadsPerUserMax, ProcessesPerUserMax) and the
# rate limit (ActionsPerBurst in BurstSec) refuse with LimitsExceeded and
# RateLimited; a reload that lowers the limit demotes with a Demoted signal
# whose reason is "policy".

. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon
integ_require_cmd dbus-monitor
integ_setup
integ_admin_conf <<-EOF
	[Daemon]
	ThreadsPerUserMax=3
	ProcessesPerUserMax=2
	BurstSec=60
	ActionsPerBurst=12
