#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Which groups count: only NSS membership at the time of the decision (the
# passwd entry's primary group and getgrouplist), never the supplementary
# groups a process carries in its credentials, so that adding or removing
# a member takes effect without a re-login (within the 5 s the resolver
# keeps a lookup), and realtimed answers as pam_realtime does.
#   A. rtplain, no member of audio, in a process that carries gid 29
#      (`setpriv --groups audio`, as `sg audio` or SupplementaryGroups=audio
#      give): fifo 50 is refused, with the policy's reason;
#   B. rtaudio, a member through /etc/group, in a process that dropped
#      every supplementary group (`setpriv --clear-groups`): granted;
#   C. rtalice, removed from audio in /etc/group while her process still
#      carries gid 29: refused once the cache lifetime has passed; added
#      back: granted again within that lifetime.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon
integ_setup
integ_start_daemon

CACHE_SECONDS=5
AUDIO_GID=$(getent group audio | cut -d: -f3)
[ -n "$AUDIO_GID" ] || skip "no audio group"

# hold NAME SETPRIV-ARGS...: rt-client hold with 3 sleeping threads under
# setpriv SETPRIV-ARGS; sets H_PID and H_TIDS
hold()
{
	_n=$1
	shift
	rm -f "$WORK/$_n.in"
	mkfifo "$WORK/$_n.in"
	chmod 666 "$WORK/$_n.in"
	setpriv "$@" -- "$RT_CLIENT" hold 3 <>"$WORK/$_n.in" >"$WORK/$_n.out" 2>&1 &
	H_PID=$!
	integ_track $H_PID
	wait_for 5 grep -q '^threads' "$WORK/$_n.out" ||
		{ fail "rt-client hold under setpriv $* did not start: $(cat "$WORK/$_n.out")"; finish; }
	H_TIDS=$(sed -n 's/^threads //p' "$WORK/$_n.out")
}

# groups_of PID: the supplementary groups of PID's credentials
groups_of()
{
	awk '/^Groups:/ { $1 = ""; sub(/^ /, ""); print }' "/proc/$1/status"
}

# tid N: the N-th thread of the last hold
tid()
{
	echo "$H_TIDS" | awk -v n="$1" '{ print $n }'
}

# ask SETPRIV-ARGS... -- PID TID: MakeThreadRealtime fifo 50 from a dbus-send
# that runs with the same credentials as the holder
ask()
{
	_args=""
	while [ "$1" != -- ]; do
		_args="$_args $1"
		shift
	done
	shift
	# shellcheck disable=SC2086
	setpriv $_args -- dbus-send --system --print-reply --reply-timeout=20000 \
		--dest=$NATIVE_NAME $NATIVE_PATH $NATIVE_IFACE.MakeThreadRealtime \
		"uint64:$1" "uint64:$2" string:fifo uint32:50 2>&1
}

# rewrite_audio MEMBERS: audio's member list in the test's /etc/group (the
# bound file itself, not a new one)
rewrite_audio()
{
	awk -F: -v OFS=: -v m="$1" '$1 == "audio" { $4 = m } { print }' "$WORK/etc/group" >"$WORK/group.new"
	cat "$WORK/group.new" >"$WORK/etc/group"
}

# --- A: not a member, but the process carries audio ------------------------
PLAIN="--reuid=$UID_PLAIN --regid=$UID_PLAIN --groups=$AUDIO_GID"
# shellcheck disable=SC2086
hold plain $PLAIN
[ "$(groups_of "$H_PID")" = "$AUDIO_GID" ] && ok "rtplain's process carries gid $AUDIO_GID (audio)" ||
	fail "rtplain's process has groups '$(groups_of "$H_PID")'"
id -nG rtplain | grep -qw audio && fail "rtplain is a member of audio in /etc/group" ||
	ok "rtplain is no member of audio through NSS"
# shellcheck disable=SC2086
out=$(ask $PLAIN -- "$H_PID" "$(tid 1)")
expect_error "rtplain's fifo 50, asked with audio among its process's groups" \
	"$NATIVE_ERR.PolicyDenied" "policy fifo is not allowed for user rtplain" "$out"
expect_sched "rtplain's thread stays SCHED_OTHER" "$(tid 1)" "other 0"

# --- B: a member, but the process dropped its groups -------------------------
AUDIO="--reuid=$UID_AUDIO --regid=$UID_AUDIO --clear-groups"
# shellcheck disable=SC2086
hold audio $AUDIO
[ -z "$(groups_of "$H_PID")" ] && ok "rtaudio's process carries no supplementary group" ||
	fail "rtaudio's process has groups '$(groups_of "$H_PID")'"
# shellcheck disable=SC2086
out=$(ask $AUDIO -- "$H_PID" "$(tid 1)")
expect_success "rtaudio (audio through /etc/group) is granted fifo 50 without the gid in its process" "$out"
expect_sched "rtaudio's thread runs fifo 50" "$(tid 1)" "fifo 50"

# --- C: removed from the group, added back ------------------------------------
ALICE="--reuid=$UID_ALICE --regid=$UID_ALICE --init-groups"
# shellcheck disable=SC2086
hold alice $ALICE
groups_of "$H_PID" | grep -qw "$AUDIO_GID" && ok "rtalice's process carries gid $AUDIO_GID from her login" ||
	fail "rtalice's process has groups '$(groups_of "$H_PID")'"
# shellcheck disable=SC2086
out=$(ask $ALICE -- "$H_PID" "$(tid 1)")
expect_success "rtalice, a member, is granted fifo 50" "$out"

members=$(getent group audio | cut -d: -f4)
rewrite_audio "$(echo "$members" | tr ',' '\n' | grep -vx rtalice | paste -sd, -)"
t0=$(date +%s%N)
id -nG rtalice | grep -qw audio && fail "rtalice is still in audio through NSS" ||
	ok "rtalice removed from audio in /etc/group; her process keeps gid $AUDIO_GID"
refused=""
while [ $((($(date +%s%N) - t0) / 1000000)) -lt $(((CACHE_SECONDS + 3) * 1000)) ]; do
	# shellcheck disable=SC2086
	out=$(ask $ALICE -- "$H_PID" "$(tid 2)")
	if printf '%s' "$out" | grep -q "^Error $NATIVE_ERR.PolicyDenied"; then
		refused=$((($(date +%s%N) - t0) / 1000000))
		break
	fi
	# still cached as a member: granted; undo it for the next turn
	native --as rtalice ResetThread "uint64:$H_PID" "uint64:$(tid 2)" >/dev/null 2>&1
	sleep 0.25
done
if [ -n "$refused" ]; then
	ok "after $refused ms (cache lifetime ${CACHE_SECONDS} s) rtalice is refused fifo 50: $(printf '%s' "$out" | head -n 1)"
else
	fail "rtalice was still granted fifo 50 $((CACHE_SECONDS + 3)) s after leaving audio: $out"
fi
expect_sched "her new thread stays SCHED_OTHER" "$(tid 2)" "other 0"

rewrite_audio "$members"
t0=$(date +%s%N)
granted=""
while [ $((($(date +%s%N) - t0) / 1000000)) -lt $(((CACHE_SECONDS + 1) * 1000)) ]; do
	# shellcheck disable=SC2086
	out=$(ask $ALICE -- "$H_PID" "$(tid 3)")
	if ! printf '%s' "$out" | grep -q '^Error '; then
		granted=$((($(date +%s%N) - t0) / 1000000))
		break
	fi
	sleep 0.25
done
if [ -n "$granted" ]; then
	ok "added back to audio, rtalice is granted again after $granted ms, without a re-login"
else
	fail "rtalice, back in audio, was still refused after $((CACHE_SECONDS + 1)) s: $out"
fi
expect_sched "her thread runs fifo 50" "$(tid 3)" "fifo 50"

finish
