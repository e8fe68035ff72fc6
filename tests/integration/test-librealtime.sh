#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# librealtime as a program uses it: librealtime-check.c is compiled here
# with `cc $(pkg-config --cflags --libs librealtime)` against the build
# tree's librealtime-uninstalled.pc (so the pkg-config file is what is
# tested, not meson's own wiring), and run as the audio member rtaudio,
# whose RLIMIT_RTPRIO is 0, twice:
#   - against realtimed: every call, each grant read back from the kernel,
#     a refusal whose message names the limit and the file:line, a thread
#     that is not ours (-ESRCH), a child of fork(), threads asking at once;
#   - with only Debian's rtkit-daemon on the bus (started with limits of
#     its own, so the answers are seen to be rtkit's): the fallback, with
#     the limits librealtime(3) documents (SCHED_RR only, RLIMIT_RTTIME
#     lowered, reset done by the library, no GrantLimits).
# realtime_grant_limits() needs realtimed to prlimit() another user's
# process, which root on the project's host cannot (no CAP_SYS_RESOURCE):
# there the program checks the refusal and that nothing changed; the vm
# tier (tests/vm/guest/librealtime.sh) runs this test where it succeeds.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon
integ_require_cmd cc pkg-config
PC_DIR=$TOP_BUILDDIR/meson-uninstalled
[ -f "$PC_DIR/librealtime-uninstalled.pc" ] ||
	skip "librealtime is not built ($PC_DIR/librealtime-uninstalled.pc; -Dlibrealtime=enabled)"
INTEG_BUS_EXTRA=$INTEG_BUS_RTKIT
integ_setup

# --- build the program through the pkg-config file ---
flags=$(PKG_CONFIG_PATH=$PC_DIR pkg-config --cflags --libs librealtime) ||
	{ fail "pkg-config --cflags --libs librealtime failed"; finish; }
note "pkg-config --cflags --libs librealtime: $flags"
rpath=""
for f in $flags; do
	case "$f" in
	-L*) rpath="$rpath -Wl,-rpath,${f#-L}" ;;
	esac
done
CHECK=$WORK/librealtime-check
# shellcheck disable=SC2086
if cc -std=gnu11 -Wall -Werror -pthread -o "$CHECK" "$TOP_SRCDIR/tests/integration/librealtime-check.c" \
	$flags $rpath >"$WORK/cc.log" 2>&1; then
	ok "a program builds against librealtime with only its pkg-config flags"
else
	fail "cc: $(cat "$WORK/cc.log")"
	finish
fi
ldd "$CHECK" | grep -q "librealtime.so.1 => $TOP_BUILDDIR/librealtime/" &&
	ok "it runs with the build tree's librealtime.so.1" || fail "ldd: $(ldd "$CHECK")"

# run_check DESC ARGS...: the program as rtaudio, its lines as checks
run_check()
{
	_d=$1
	shift
	run_as rtaudio "$CHECK" "$@" >"$WORK/check.out" 2>&1
	_rc=$?
	while IFS= read -r _l; do
		case "$_l" in
		"ok - "*) ok "$_d: ${_l#ok - }" ;;
		"FAIL - "*) fail "$_d: ${_l#FAIL - }" ;;
		"# realtime_grant_limits: granted")
			note "$_l"
			took_path "grant-limits-$_d"
			;;
		*) note "$_l" ;;
		esac
	done <"$WORK/check.out"
	grep -q '^ok - ' "$WORK/check.out" || fail "$_d: no check ran (exit $_rc)"
	[ $_rc = 0 ] || grep -q '^FAIL - ' "$WORK/check.out" || fail "$_d: exit status $_rc"
}

# the line of KEY= inside [SECTION] of the vendor file
line_of()
{
	awk -v s="[$1]" -v k="$2=" '$0 == s { in_s = 1; next } /^\[/ { in_s = 0 } in_s && index($0, k) == 1 { print NR; exit }' "$VENDOR_CONF"
}

# --- against realtimed (shipped policy: audio may have fifo/rr 95, nice -19,
# RTTime=infinity, which the properties answer as INT64_MAX) ---
integ_start_daemon
run_check realtimed realtimed 95 -19 9223372036854775807 \
	"priority 96 exceeds the limit 95 for user rtaudio ($VENDOR_CONF:$(line_of "Group audio" RealtimePriority))"
no_grant_of_rtaudio()
{
	! native ListGrants | grep -q "uint32 $UID_AUDIO\$"
}
wait_for 5 no_grant_of_rtaudio && ok "no grant of the program outlives it" ||
	fail "a grant is left: $(native ListGrants)"
integ_stop_daemon
name_has_owner $RTKIT_NAME && fail "$RTKIT_NAME still owned after realtimed stopped"

# --- the fallback: rtkit-daemon alone ---
[ -x "$RTKIT_DAEMON" ] || { note "rtkit-daemon is not installed: the fallback is not tested"; finish; }
# a user of its own: rtkit-daemon caps RLIMIT_NPROC of its user, which
# other rtkit-daemons on this machine (other tests, benchmarks) count against
echo "rtkitlr:x:4109:4109:rtkit-daemon for test-librealtime:/proc:/usr/sbin/nologin" >>/etc/passwd
echo "rtkitlr:x:4109:" >>/etc/group
if ! integ_start_rtkit --user-name=rtkitlr --max-realtime-priority=30 --our-realtime-priority=31 --min-nice-level=-12 \
	--rttime-usec-max=150000 --actions-per-burst-max=200; then
	fail "rtkit-daemon did not start on the private bus"
	finish
fi
name_has_owner $NATIVE_NAME && fail "$NATIVE_NAME is owned: this would not test the fallback"
run_check rtkit rtkit 30 -12 150000
took_path rtkit-fallback
integ_stop_rtkit

# --- nobody on the bus: an error, at once ---
out=$(run_as rtaudio "$CHECK" realtimed 95 -19 0 2>&1)
echo "$out" | grep -q '^FAIL - realtime_service: -6 ' &&
	echo "$out" | grep -q 'Neither realtimed' &&
	ok "with neither service on the bus: -ENXIO, and a message that says so" ||
	fail "no service: $(echo "$out" | head -n 3)"
finish
