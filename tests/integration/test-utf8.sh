#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# No string that reaches realtimed can end it. libdbus aborts the process
# when asked to send a string that is not valid UTF-8, so every string the
# daemon puts into a message must be valid by construction, whatever its
# source: a caller's argument echoed in an error (cut to fit a buffer, maybe
# inside a character), a thread's name from /proc (any bytes the thread
# chose), a policy file's name or contents, a user name from NSS. Each case
# is followed by a check that the daemon still runs and answers.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon
integ_require_cmd python3
integ_setup

# users whose names are not valid UTF-8 (Latin-1) or long enough to be cut
# inside a character by a 64-byte buffer (40 x U+00E9, 80 bytes)
UID_LATIN1=4104
UID_LONGNAME=4105
LONGNAME=$(python3 -c 'print("\u00e9" * 40)')
printf 'rt\351user:x:%s:%s::/nonexistent:/bin/sh\n' $UID_LATIN1 $UID_LATIN1 >>"$WORK/etc/passwd"
printf '%s:x:%s:%s::/nonexistent:/bin/sh\n' "$LONGNAME" $UID_LONGNAME $UID_LONGNAME >>"$WORK/etc/passwd"
# a user whose passwd entry (a 2 KiB GECOS field) needs more than a 1 KiB
# buffer: NSS answers ERANGE until the buffer grows
UID_BIGENTRY=4106
printf 'rtbigentry:x:%s:%s:%s:/nonexistent:/bin/sh\n' $UID_BIGENTRY $UID_BIGENTRY \
	"$(python3 -c 'print("x" * 2048)')" >>"$WORK/etc/passwd"
integ_start_daemon

# run_uid UID COMMAND...: as a numeric uid that has no usable name
run_uid()
{
	_u=$1
	shift
	setpriv --reuid="$_u" --regid="$_u" --clear-groups -- "$@"
}

# alive DESC: realtimed still runs and answers a call; if not, it is
# started again, so that every case below is tried
alive()
{
	if kill -0 "$DAEMON_PID" 2>/dev/null &&
		native --as rtaudio Explain uint32:$UID_AUDIO | grep -q RealtimePriority; then
		ok "$1: realtimed still runs and answers"
	else
		fail "$1: realtimed died or does not answer"
		integ_stop_daemon
		integ_start_daemon
	fi
}

# rep CHAR N: CHAR repeated N times
rep()
{
	python3 -c 'import sys; print(sys.argv[1] * int(sys.argv[2]))' "$1" "$2"
}

# valid_utf8 TEXT: TEXT is valid UTF-8, without a character cut in two
# (no escaped lead byte of one of the characters this test sends)
valid_cut()
{
	printf '%s' "$1" | python3 -c 'import sys; sys.stdin.buffer.read().decode("utf-8")' 2>/dev/null &&
		! printf '%s' "$1" | grep -q '\\x[cdef][0-9a-f]'
}

# --- a caller's string echoed in an error, cut to fit ------------------------
# "Unknown policy '...'": every offset of 2-, 3- and 4-byte characters
# against the end of the error buffer
for ch in é € 𝄞; do
	for pre in "" a aa aaa; do
		s=$pre$(rep "$ch" 300)
		out=$(native --as rtaudio MakeThreadRealtime uint64:0 uint64:0 "string:$s" uint32:5)
		if printf '%s\n' "$out" | grep -q "^Error $NATIVE_ERR.InvalidArgs" && valid_cut "$out"; then
			ok "policy '$pre' + 300 x '$ch': InvalidArgs, the text cut between characters"
		else
			fail "policy '$pre' + 300 x '$ch': $(printf '%s' "$out" | head -c 200)"
		fi
		alive "after policy '$pre' + 300 x '$ch'"
	done
done

# Properties.Get/GetAll with an unknown interface or property name, both
# parities of a 2-byte character against the end of the buffer
# props IFACE METHOD ERROR-NAME DESC ARGS...
props()
{
	_dest=$NATIVE_NAME _path=$NATIVE_PATH
	[ "$1" = "$RTKIT_IFACE" ] && _dest=$RTKIT_NAME _path=$RTKIT_PATH
	_m=$2 _e=$3 _d=$4
	shift 4
	out=$(run_as rtaudio dbus-send --system --print-reply --dest=$_dest $_path \
		org.freedesktop.DBus.Properties.$_m "$@" 2>&1)
	if printf '%s\n' "$out" | grep -q "^Error org.freedesktop.DBus.Error.$_e" && valid_cut "$out"; then
		ok "$_d: $_e"
	else
		fail "$_d: $(printf '%s' "$out" | head -c 200)"
	fi
	alive "after $_d"
}
for iface in "$NATIVE_IFACE" "$RTKIT_IFACE"; do
	for pre in "" a; do
		long=$pre$(rep é 300)
		props "$iface" Get UnknownInterface "$iface Get, interface '$pre' + 300 x 'é'" \
			"string:$long" string:MaxRealtimePriority
		props "$iface" Get UnknownProperty "$iface Get, property '$pre' + 300 x 'é'" \
			"string:$iface" "string:$long"
		props "$iface" GetAll UnknownInterface "$iface GetAll, interface '$pre' + 300 x 'é'" \
			"string:$long"
	done
done

# --- a granted thread names itself with bytes that are not UTF-8 -------------
# \xff \xfe, a lone lead byte before '(', and ESC [31m (a terminal colour)
as_bg rtaudio "$RT_CLIENT" ask --policy fifo --prio 10 --name fffec3281b5b33316d --hold 60 \
	>"$WORK/named.out" 2>&1
NAMED=$!
integ_track $NAMED
if wait_for 10 grep -q '^granted' "$WORK/named.out"; then
	ok "a thread was granted fifo 10, then renamed itself to bytes that are not UTF-8"
else
	fail "rt-client ask --name: $(cat "$WORK/named.out")"
fi
out=$(native ListGrants)
alive "ListGrants by root after the rename"
if printf '%s\n' "$out" | grep -qF '"\xff\xfe\xc3(\x1b[31m"'; then
	ok "ListGrants shows the name escaped: \\xff\\xfe\\xc3(\\x1b[31m"
else
	fail "ListGrants: the renamed thread's command: $(printf '%s\n' "$out" | grep -A6 "uint32 $UID_AUDIO" | head -n 8)"
fi
out=$(native --as rtaudio ListGrants)
alive "ListGrants by the thread's owner after the rename"
out=$(run_as rtalice "$REALTIMECTL" status --all </dev/null 2>&1)
printf '%s\n' "$out" | grep -qF '\xff\xfe\xc3(\x1b[31m' &&
	ok "realtimectl status --all by another user (org.realtimed.manage) shows the escaped name" ||
	fail "realtimectl status --all by rtalice: $out"
alive "realtimectl status --all by another user after the rename"
out=$("$REALTIMECTL" status 2>&1)
printf '%s\n' "$out" | grep -qF '\xff\xfe\xc3(\x1b[31m' &&
	ok "realtimectl status shows the escaped name" || fail "realtimectl status: $out"
alive "realtimectl status by root after the rename"
kill "$NAMED" 2>/dev/null

# --- user names from NSS ------------------------------------------------------
out=$(run_uid $UID_LATIN1 "$RT_CLIENT" ask --policy fifo --prio 99 2>&1)
if printf '%s\n' "$out" | grep -q "PolicyDenied.*rt\\\\xe9user"; then
	ok "a user whose name is Latin-1: refused, named rt\\xe9user ($(printf '%s\n' "$out" | grep refused | cut -c1-100))"
else
	fail "a user whose name is Latin-1: $out"
fi
alive "after a refusal naming a user whose name is not UTF-8"
out=$(run_uid $UID_LONGNAME "$RT_CLIENT" ask --policy fifo --prio 99 2>&1)
if printf '%s\n' "$out" | grep -q "PolicyDenied.*for user éé" && valid_cut "$out"; then
	ok "a user with an 80-byte name: refused, the name cut between characters"
else
	fail "a user with an 80-byte name: $out"
fi
alive "after a refusal naming a user whose name is cut"
out=$(run_uid $UID_BIGENTRY "$RT_CLIENT" ask --policy fifo --prio 99 2>&1)
if printf '%s\n' "$out" | grep -q "PolicyDenied.*for user rtbigentry"; then
	ok "a user with a 2 KiB passwd entry: refused, named rtbigentry"
else
	fail "a user with a 2 KiB passwd entry: $out"
fi

# --- policy files: a file name and a key that are not UTF-8 -------------------
BADFILE=$(printf 'r\377t.conf')
printf '[Group audio]\nRealtimePriority=91\n' >"$WORK/conf.d/$BADFILE"
out=$(native Reload)
expect_success "Reload with a drop-in whose name is not UTF-8" "$out"
out=$(native --as rtaudio Explain uint32:$UID_AUDIO)
if printf '%s\n' "$out" | grep -A4 '"RealtimePriority"' | grep -qF 'r\xfft.conf:2"'; then
	ok "Explain names the drop-in r\\xfft.conf:2"
else
	fail "Explain with a drop-in whose name is not UTF-8: $(printf '%s\n' "$out" | grep -A4 RealtimePriority)"
fi
alive "after Explain naming a file whose name is not UTF-8"
rm -f "$WORK/conf.d/$BADFILE"

printf '[Group audio]\nRealtime\377Priority=91\n' >"$WORK/admin.conf"
out=$(native Reload)
if printf '%s\n' "$out" | grep -q '^Error ' && printf '%s\n' "$out" | grep -qF "Realtime\\xffPriority"; then
	ok "Reload of a file with a key that is not UTF-8 fails, naming Realtime\\xffPriority"
else
	fail "Reload of a file with a key that is not UTF-8: $out"
fi
alive "after a Reload error quoting bytes that are not UTF-8"
: >"$WORK/admin.conf"
expect_success "Reload of a good policy" "$(native Reload)"

finish
