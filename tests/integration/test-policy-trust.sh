#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Policy files are trusted only when root owns them and only root can write
# them (realtime.conf(5), TRUST): realtimed refuses to take a reloaded admin
# file that others can write, another user's file, or a drop-in directory
# that others can write; the last good policy stays in force, the error
# reply and the log name the file and the command that fixes it, and
# `realtimectl policy check` says the same and exits 1. Once fixed, the
# same file is taken (policy check exits 6 then: the admin file overrides a
# vendor value, a warning). A symlink to /dev/null still masks a vendor
# drop-in, and a symlink to a root-owned file is followed.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon
[ -x "$REALTIMECTL" ] || skip "realtimectl is not built ($REALTIMECTL)"
integ_setup

ADMIN=$WORK/admin.conf
CHECK_PATHS="--vendor-conf=$VENDOR_CONF --admin-conf=$ADMIN --vendor-conf-dir=$WORK/vendor.d --admin-conf-dir=$WORK/conf.d"

# ask USER PRIO: rt-client asks for SCHED_FIFO PRIO; 0 when granted
ask()
{
	run_as "$1" "$RT_CLIENT" ask --policy fifo --prio "$2" >"$WORK/ask.out" 2>&1
}

# reload_refused DESC WORD...: Reload fails, and its error names every WORD
reload_refused()
{
	_d=$1
	shift
	out=$(native Reload)
	if ! printf '%s\n' "$out" | grep -q '^Error '; then
		fail "$_d: Reload succeeded: $out"
		return
	fi
	for _w in "$@"; do
		if ! printf '%s\n' "$out" | grep -qF -- "$_w"; then
			fail "$_d: the Reload error lacks '$_w': $out"
			return
		fi
	done
	ok "$_d: Reload refused ($(printf '%s\n' "$out" | head -n 1 | cut -c1-160))"
}

# logged DESC WORD...: a line of realtimed's log names every WORD
logged()
{
	_d=$1
	shift
	_l=$(cat "$WORK/realtimed.log")
	for _w in "$@"; do
		_l=$(printf '%s\n' "$_l" | grep -F -- "$_w")
	done
	[ -n "$_l" ] && ok "$_d: $(printf '%s\n' "$_l" | tail -n 1 | cut -c1-200)" ||
		fail "$_d: no line of realtimed's log has all of: $*"
}

# checked WANT DESC WORD...: realtimectl policy check of the installed set
# exits WANT and its stderr names every WORD
checked()
{
	_want=$1 _d=$2
	shift 2
	# shellcheck disable=SC2086
	"$REALTIMECTL" policy check $CHECK_PATHS >"$WORK/check.out" 2>"$WORK/check.err"
	_rc=$?
	if [ "$_rc" != "$_want" ]; then
		fail "$_d: realtimectl policy check exit $_rc, want $_want: $(cat "$WORK/check.err")"
		return
	fi
	for _w in "$@"; do
		if ! grep -qF -- "$_w" "$WORK/check.err"; then
			fail "$_d: realtimectl policy check does not say '$_w': $(cat "$WORK/check.err")"
			return
		fi
	done
	ok "$_d: realtimectl policy check exits $_rc"
}

# The last good policy: audio members up to 50.
printf '[Group audio]\nRealtimePriority=50\n' >"$ADMIN"
integ_start_daemon
ask rtaudio 70 && fail "fifo 70 granted under RealtimePriority=50: $(cat "$WORK/ask.out")" ||
	ok "with the admin file's RealtimePriority=50, fifo 70 is refused"
# the admin file overrides the vendor file's value: a warning (exit 6)
checked 6 "the root-owned set" "$ADMIN:2: warning: RealtimePriority= in [Group audio] overrides $VENDOR_CONF:"

# --- an admin file anyone may write --------------------------------------
printf '[Group audio]\nRealtimePriority=80\n' >"$ADMIN"
chmod 666 "$ADMIN"
reload_refused "admin.conf mode 0666" "$ADMIN" "writable by group and others (mode 0666)" \
	"chmod go-w $ADMIN"
logged "the log names the file and the fix" "$ADMIN" "writable by group and others" "chmod go-w $ADMIN"
ask rtaudio 70 && fail "fifo 70 granted from a file anyone may write: $(cat "$WORK/ask.out")" ||
	ok "the last good policy stays: fifo 70 is still refused"
ask rtaudio 50 && ok "and fifo 50 is still granted" || fail "fifo 50 after a refused reload: $(cat "$WORK/ask.out")"
checked 1 "admin.conf mode 0666" "$ADMIN: " "writable by group and others" "chmod go-w $ADMIN"

chmod 644 "$ADMIN"
out=$(native Reload)
expect_success "the same file, chmod go-w: Reload takes it" "$out"
ask rtaudio 70 && ok "now fifo 70 is granted (RealtimePriority=80)" ||
	fail "fifo 70 after the fixed reload: $(cat "$WORK/ask.out")"
checked 6 "admin.conf mode 0644" "overrides $VENDOR_CONF:"

# --- another user's admin file -------------------------------------------
printf '[Group audio]\nRealtimePriority=90\n' >"$ADMIN"
chown "$UID_AUDIO:$UID_AUDIO" "$ADMIN"
reload_refused "admin.conf owned by rtaudio" "$ADMIN" "owned by uid $UID_AUDIO, not root" \
	"chown root:root $ADMIN"
ask rtaudio 85 && fail "fifo 85 granted from rtaudio's own file: $(cat "$WORK/ask.out")" ||
	ok "rtaudio's own file does not raise rtaudio: fifo 85 refused"
checked 1 "admin.conf owned by rtaudio" "owned by uid $UID_AUDIO, not root" "chown root:root $ADMIN"
chown 0:0 "$ADMIN"
expect_success "chown root:root: Reload takes it" "$(native Reload)"

# --- a drop-in directory anyone may write --------------------------------
printf '[Group audio]\nRealtimePriority=95\n' >"$WORK/conf.d/50-more.conf"
chmod 777 "$WORK/conf.d"
reload_refused "conf.d mode 0777" "$WORK/conf.d" "drop-in directory" "chmod go-w $WORK/conf.d"
ask rtaudio 95 && fail "fifo 95 granted from a drop-in directory anyone may write" ||
	ok "the drop-in of a directory anyone may write is not read: fifo 95 refused"
checked 1 "conf.d mode 0777" "$WORK/conf.d: drop-in directory" "chmod go-w $WORK/conf.d"
chmod 755 "$WORK/conf.d"
expect_success "chmod go-w on the directory: Reload takes it" "$(native Reload)"
ask rtaudio 95 && ok "fifo 95 granted from the drop-in" || fail "fifo 95: $(cat "$WORK/ask.out")"
rm "$WORK/conf.d/50-more.conf"

# --- symlinks: to /dev/null (a mask), to a root-owned file ---------------
printf '[Group audio]\nRealtimePriority=95\n' >"$WORK/vendor.d/60-vendor.conf"
ln -s /dev/null "$WORK/conf.d/60-vendor.conf"
expect_success "a symlink to /dev/null masking a vendor drop-in: Reload takes it" "$(native Reload)"
ask rtaudio 95 && fail "the masked vendor drop-in was read: fifo 95 granted" ||
	ok "the masked vendor drop-in is not read: fifo 95 refused"
checked 6 "a /dev/null mask" "$WORK/conf.d/60-vendor.conf: warning: masks the vendor drop-in $WORK/vendor.d/60-vendor.conf"
rm "$WORK/conf.d/60-vendor.conf"
mkdir "$WORK/elsewhere"
printf '[Group audio]\nRealtimePriority=60\n' >"$WORK/elsewhere/studio.conf"
ln -s "$WORK/elsewhere/studio.conf" "$WORK/conf.d/70-studio.conf"
chown -h "$UID_AUDIO:$UID_AUDIO" "$WORK/conf.d/70-studio.conf"
expect_success "a symlink (owned by rtaudio) to a root-owned file: Reload takes it" "$(native Reload)"
out=$(native Explain uint32:$UID_AUDIO)
printf '%s\n' "$out" | grep -q "70-studio.conf:2" &&
	ok "the symlinked drop-in is in force (Explain names 70-studio.conf:2)" ||
	fail "the symlinked drop-in is not in force: $out"

# --- realtimed started with an untrusted file: runs with the others ------
integ_stop_daemon
printf '[Group audio]\nNice=-7\n' >"$ADMIN"
chmod 666 "$ADMIN"
: >"$WORK/realtimed.log"
integ_start_daemon
logged "at start, the rejected admin file is logged" "$ADMIN" "chmod go-w $ADMIN"
out=$(native Explain uint32:$UID_AUDIO)
printf '%s\n' "$out" | grep -q "admin.conf" &&
	fail "realtimed started with values from a file anyone may write: $out" ||
	ok "realtimed started without the admin file anyone may write"

finish
