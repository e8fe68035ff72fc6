#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# pam_realtime.so in a real /etc/pam.d service, driven by pamtester (a PAM
# application no one here wrote): "session optional pam_realtime.so", as
# pam_realtime(8) tells admins to write it, followed by pam_exec running
# cat /proc/self/limits, so the limits a session's processes inherit are
# read back from the kernel. /etc/pam.d is a bind-mounted copy inside a
# private mount namespace, so the host's PAM configuration is untouched.
#
# Where the process lacks CAP_SYS_RESOURCE (root on the project's host),
# the hard limits cannot be raised: the session must still open, with the
# documented fallback and log; where it has it (tests/vm/guest/pam.sh) the
# policy's limits must be there exactly.
# shellcheck source=tests/integration/pam-lib.sh
. "$(dirname "$(readlink -f "$0")")/pam-lib.sh"

command -v pamtester >/dev/null 2>&1 || skip "pamtester is not installed (Debian package pamtester)"
[ -e /lib/x86_64-linux-gnu/security/pam_exec.so ] || [ -n "$(find /lib /usr/lib -name pam_exec.so 2>/dev/null | head -n 1)" ] ||
	skip "pam_exec.so is not installed (Debian package libpam-modules)"
pam_enter "$@"
pam_setup

POLICY=$WORK/policy.conf
cat >"$POLICY" <<'EOF'
[Daemon]
Polkit=yes

[Group audio]
RealtimePriority=95
Policies=fifo rr
Nice=-19
MemLock=infinity
RTTime=infinity

[User rtalice]
RealtimePriority=0
MemLock=2M
RTTime=100ms
EOF
BROKEN=$WORK/broken.conf
printf '[Group audio]\nRealtimePriority=95\nMemLock=lots\n' >"$BROKEN"

# A private copy of /etc/pam.d with our services in it.
cp -a /etc/pam.d "$WORK/pam.d"
mount --bind "$WORK/pam.d" /etc/pam.d || skip "cannot bind-mount over /etc/pam.d"
service()
{
	cat >"/etc/pam.d/$1" <<-EOF
	auth     required pam_permit.so
	account  required pam_permit.so
	session  $2 $PAM_MODULE $3
	session  optional pam_exec.so quiet log=$WORK/limits.out /bin/cat /proc/self/limits
	EOF
}
service rt-pamtester optional "debug conf=$POLICY"
service rt-pamtester-broken optional "debug conf=$BROKEN"
service rt-pamtester-required required "conf=$POLICY"

# pt NAME SERVICE USER: one pamtester session; sets OUT (before/after
# lines), LOG and RC. $PT_WRAP (a command prefix) runs pamtester under it.
pt()
{
	_name=$1
	LOG=$WORK/$_name.log
	: >"$LOG"
	: >"$WORK/limits.out"
	PAM_TEST_SYSLOG=$LOG LD_PRELOAD=$PAM_SHIM ${PT_WRAP:-} pamtester -v "$2" "$3" open_session close_session \
		>"$WORK/$_name.pamtester" 2>&1
	RC=$?
	OUT=$(limits_lines before /proc/self/limits; limits_lines after "$WORK/limits.out")
	printf '%s\n' "$OUT" >"$WORK/$_name.out"
}

pt audio rt-pamtester rtaudio
check "pamtester rtaudio: the session opens (exit 0)" [ "$RC" = 0 ]
check "pamtester rtaudio: pam_exec read the session's limits" grep -q "^Max realtime priority" "$WORK/limits.out"
expect_limit "pamtester rtaudio" "$OUT" "$LOG" rtaudio RLIMIT_RTPRIO 95
expect_limit "pamtester rtaudio" "$OUT" "$LOG" rtaudio RLIMIT_MEMLOCK infinity
expect_limit "pamtester rtaudio" "$OUT" "$LOG" rtaudio RLIMIT_RTTIME infinity
expect_limit "pamtester rtaudio" "$OUT" "$LOG" rtaudio RLIMIT_NICE 39

pt alice rt-pamtester rtalice
check "pamtester rtalice: the session opens (exit 0)" [ "$RC" = 0 ]
expect_limit "pamtester rtalice" "$OUT" "$LOG" rtalice RLIMIT_RTPRIO 0
expect_limit "pamtester rtalice" "$OUT" "$LOG" rtalice RLIMIT_MEMLOCK 2097152
expect_limit "pamtester rtalice" "$OUT" "$LOG" rtalice RLIMIT_RTTIME 100000
expect_limit "pamtester rtalice" "$OUT" "$LOG" rtalice RLIMIT_NICE 39
check "pamtester rtalice: debug names the [User] line behind RLIMIT_MEMLOCK" \
	logged debug "Set RLIMIT_MEMLOCK of rtalice to 2097152 (was soft .*, hard .*): MemLock=2M from $POLICY:$(line_of "$POLICY" "User rtalice" MemLock) \[User rtalice\]$"

pt plain rt-pamtester rtplain
check "pamtester rtplain: the session opens (exit 0)" [ "$RC" = 0 ]
for r in RLIMIT_RTPRIO RLIMIT_MEMLOCK RLIMIT_RTTIME RLIMIT_NICE; do
	expect_limit "pamtester rtplain" "$OUT" "$LOG" rtplain $r unchanged
done

# Which groups count: NSS's membership of the user, not the supplementary
# groups of the process that opens the session (pam_realtime(8),
# DIRECTORIES). A login process that carries audio gives a non-member
# nothing; one that carries no groups at all still gives a member the
# group's limits.
audio_gid=$(getent group audio | cut -d: -f3)
PT_WRAP="setpriv --groups $audio_gid" pt plain-sg rt-pamtester rtplain
check "pamtester rtplain from a process in audio ($audio_gid): the session opens" [ "$RC" = 0 ]
for r in RLIMIT_RTPRIO RLIMIT_MEMLOCK RLIMIT_RTTIME RLIMIT_NICE; do
	expect_limit "pamtester rtplain from a process in audio" "$OUT" "$LOG" rtplain $r unchanged
done
PT_WRAP="setpriv --clear-groups" pt audio-nogroups rt-pamtester rtaudio
check "pamtester rtaudio from a process with no groups: the session opens" [ "$RC" = 0 ]
expect_limit "pamtester rtaudio from a process with no groups" "$OUT" "$LOG" rtaudio RLIMIT_RTPRIO 95
expect_limit "pamtester rtaudio from a process with no groups" "$OUT" "$LOG" rtaudio RLIMIT_MEMLOCK infinity

pt unknown rt-pamtester rtnobody
check "pamtester unknown user: pam_realtime does not stop the session (exit 0)" [ "$RC" = 0 ]
check "pamtester unknown user: logged" logged err 'User "rtnobody" is unknown to the system (NSS); granting nothing$'

pt broken rt-pamtester-broken rtaudio
check "pamtester broken policy: the session opens (exit 0)" [ "$RC" = 0 ]
for r in RLIMIT_RTPRIO RLIMIT_MEMLOCK RLIMIT_RTTIME RLIMIT_NICE; do
	expect_limit "pamtester broken policy" "$OUT" "$LOG" rtaudio $r unchanged
done
check "pamtester broken policy: file and line are logged" logged err "Ignoring policy file $BROKEN: line 3: .*Nothing in that file is applied until it is fixed"

# "required" turns a limit that could not be raised into a failed session,
# as pam_realtime(8) warns; it is why the snippets say "optional".
pt required rt-pamtester-required rtaudio
if have_cap_sys_resource; then
	check "pamtester required, with CAP_SYS_RESOURCE: the session opens" [ "$RC" = 0 ]
	took_path cap-sys-resource
else
	check "pamtester required, without CAP_SYS_RESOURCE: the session fails with PAM_SESSION_ERR" \
		sh -c "[ $RC != 0 ] && grep -qi 'session' '$WORK/required.pamtester'"
fi

finish
