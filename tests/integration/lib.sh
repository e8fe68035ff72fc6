# SPDX-License-Identifier: GPL-2.0-or-later
#
# shellcheck shell=sh
# Harness for realtimed's integration tests, sourced by tests/integration/test-*.sh,
# tests/unit/test-ctl-daemon.sh, vm guests, scripts/demo and the benches.
#
# integ_enter "$@" re-executes the calling script as root inside a private
# mount namespace, so nothing it mounts is seen by the host. integ_setup
# then builds a small private world there:
#   - copies of /etc/passwd, group, shadow with the test users, bind-mounted
#     over the real ones: rtaudio 4101 (audio), rtplain 4102, rtalice 4103 (audio)
#     and rtcaps 4110 (tests/lib/users.sh);
#   - a private system bus (dbus-daemon with a test config that includes the
#     project's own system.d policy files) on /run/dbus/system_bus_socket of
#     the namespace, also exported as DBUS_SYSTEM_BUS_ADDRESS;
#   - a real polkitd on that bus, with our actions and the test's rules
#     bind-mounted over /usr/share/polkit-1/{actions,rules.d} and /etc/polkit-1/rules.d;
# and integ_start_daemon starts realtimed from the build dir with the shipped
# vendor policy (a root-owned copy, $VENDOR_CONF: realtimed trusts only policy
# files that root owns and only root can write, and the source tree may be
# anyone's) plus a test admin policy. Everything runs under a tmpfs in a
# mktemp dir, so tests of several engineers can run at the same time.
#
# The jobs live in tests/lib/, one file each, shared with the vm guests,
# scripts/demo and the benches: tap.sh (ok, fail, skip, note, check, finish:
# TAP output), users.sh, ns.sh, bus.sh, polkit.sh, daemon.sh, calls.sh,
# sched.sh and holders.sh. This file sources them all and puts the private
# world together (integ_enter, integ_setup). Test scripts end with finish.

: "${TOP_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${TOP_BUILDDIR:=$TOP_SRCDIR/build}"
export TOP_SRCDIR TOP_BUILDDIR

# shellcheck source=tests/lib/tap.sh
. "$TOP_SRCDIR/tests/lib/tap.sh"
# shellcheck source=tests/lib/users.sh
. "$TOP_SRCDIR/tests/lib/users.sh"
# shellcheck source=tests/lib/ns.sh
. "$TOP_SRCDIR/tests/lib/ns.sh"
# shellcheck source=tests/lib/bus.sh
. "$TOP_SRCDIR/tests/lib/bus.sh"
# shellcheck source=tests/lib/polkit.sh
. "$TOP_SRCDIR/tests/lib/polkit.sh"
# shellcheck source=tests/lib/daemon.sh
. "$TOP_SRCDIR/tests/lib/daemon.sh"
# shellcheck source=tests/lib/calls.sh
. "$TOP_SRCDIR/tests/lib/calls.sh"
# shellcheck source=tests/lib/sched.sh
. "$TOP_SRCDIR/tests/lib/sched.sh"
# shellcheck source=tests/lib/holders.sh
. "$TOP_SRCDIR/tests/lib/holders.sh"

# integ_enter "$@": become root in a private mount namespace (re-exec).
integ_enter()
{
	_why="integration tests need root (they mount over /etc/passwd in a private mount namespace)"
	[ "$(id -u)" = 0 ] || skip "$_why"
	integ_require_cmd unshare dbus-daemon dbus-send setpriv mount
	[ -x "$POLKITD" ] || skip "polkitd is not installed ($POLKITD; Debian package polkitd)"
	ns_enter "$_why" "$@"
}

# integ_setup: the private world (users, bus, polkitd) in the namespace.
integ_setup()
{
	# policy files written here must be writable by root alone
	umask 022
	WORK=$(mktemp -d /tmp/realtimed-integ.XXXXXX) || skip "mktemp failed"
	mount -t tmpfs -o mode=0755 tmpfs "$WORK" || skip "cannot mount a tmpfs on $WORK"
	trap integ_cleanup EXIT
	trap 'exit 1' INT TERM
	mkdir -p "$WORK/etc" "$WORK/state" "$WORK/conf.d" "$WORK/vendor.d" "$WORK/tmp" "$WORK/vendor"
	chmod 1777 "$WORK/tmp"
	VENDOR_CONF=$WORK/vendor/realtime.conf
	install -m 644 "$TOP_SRCDIR/policy/realtime.conf" "$VENDOR_CONF" || skip "cannot copy the shipped policy"
	mount_test_users "$WORK"
	integ_start_bus
	integ_start_polkitd
	# the default test admin policy: the shipped vendor file decides
	: >"$WORK/admin.conf"
}
