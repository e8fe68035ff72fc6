#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm tier, pam_realtime: what the project's host cannot show, because its
# root lacks CAP_SYS_RESOURCE. Here root has every capability, so a session
# must end with the policy's limits raised for real, hard and soft:
#   1. the integration tests test-pam.sh (real libpam, pam_start_confdir)
#      and test-pamtester.sh (pamtester, /etc/pam.d) run as they are and
#      must take the "raised" path, not the fallback;
#   2. a real su(1) session for an audio member, with pam_realtime in su's
#      PAM stack, shows RLIMIT_RTPRIO 95 and the other limits in the shell
#      it starts, and a SCHED_FIFO 90 program runs there as that user.
# Prints each check; exits 0 pass, 77 skip (with the reason), 1 fail.
set -u

fail()
{
	echo "FAIL: $*"
	exit 1
}

skip()
{
	echo "SKIP: $*"
	exit 77
}

: "${TOP_SRCDIR:?}" "${TOP_BUILDDIR:?}"
integ=$TOP_SRCDIR/tests/integration
[ -f "$TOP_BUILDDIR/pam_realtime/pam_realtime.so" ] ||
	skip "pam_realtime.so is not built in $TOP_BUILDDIR (-Dpam=enabled)"
[ -x "$TOP_BUILDDIR/tests/integration/pam-driver" ] ||
	skip "the PAM test driver is not built in $TOP_BUILDDIR (-Dtests=enabled)"

echo "check: this is root with CAP_SYS_RESOURCE (else the raise cannot be shown)"
eff=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)
[ "$(id -u)" = 0 ] && [ $(((0x$eff >> 24) & 1)) = 1 ] || fail "uid $(id -u), CapEff $eff"

# run_test NAME MUST_MATCH...: runs tests/integration/NAME.sh; it must pass
# and its output must contain each MUST_MATCH line (fixed strings).
run_test()
{
	name=$1
	shift
	echo "check: tests/integration/$name.sh passes here"
	out=$(sh "$integ/$name.sh" 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed 's/^/    /'
	[ "$rc" = 0 ] || fail "$name.sh exited $rc"
	for m in "$@"; do
		echo "check: $name.sh took the real path: $m"
		printf '%s\n' "$out" | grep -qF -- "$m" || fail "no line \"$m\""
	done
	printf '%s\n' "$out" | grep -q 'no CAP_SYS_RESOURCE' && fail "$name.sh took the fallback path"
	return 0
}

run_test test-pam \
	"ok   - rtaudio: open_session answers PAM_SUCCESS" \
	"ok   - rtaudio: RLIMIT_RTPRIO set to 95 soft and hard" \
	"ok   - rtaudio: RLIMIT_MEMLOCK set to infinity soft and hard" \
	"ok   - rtaudio: RLIMIT_NICE set to 39 soft and hard" \
	"ok   - rtalice --setuid: after exec, CapAmb is exactly cap_sys_nice" \
	"ok   - rtplain, Polkit=no: RLIMIT_MEMLOCK set to 67108864 soft and hard"
run_test test-pamtester \
	"ok   - pamtester rtaudio: RLIMIT_RTPRIO set to 95 soft and hard" \
	"ok   - pamtester rtaudio: RLIMIT_MEMLOCK set to infinity soft and hard" \
	"ok   - pamtester rtaudio: RLIMIT_NICE set to 39 soft and hard" \
	"ok   - pamtester required, with CAP_SYS_RESOURCE: the session opens"

# --- a real login program: su, with pam_realtime in its session stack ---
for c in su prlimit chrt bash; do
	command -v $c >/dev/null 2>&1 || skip "$c is not installed"
done
[ -f /etc/pam.d/su ] || skip "/etc/pam.d/su is missing"

# The test users, in this VM's own (tmpfs overlay) /etc.
grep -q '^rtaudio:' /etc/passwd || {
	echo "rtaudio:x:4101:4101:pam_realtime vm test:/tmp:/bin/sh" >>/etc/passwd
	echo "rtaudio:x:4101:" >>/etc/group
	echo "rtaudio:*:19000:0:99999:7:::" >>/etc/shadow
}
if grep -q '^audio:' /etc/group; then
	awk -F: -v OFS=: '$1 == "audio" && $4 !~ /(^|,)rtaudio(,|$)/ { $4 = ($4 == "" ? "" : $4 ",") "rtaudio" } { print }' \
		/etc/group >/tmp/group.new && cat /tmp/group.new >/etc/group && rm -f /tmp/group.new
else
	echo "audio:x:29:rtaudio" >>/etc/group
fi
id rtaudio | grep -q '(audio)' || fail "rtaudio is not in audio: $(id rtaudio)"

policy=$(mktemp "${TMPDIR:-/tmp}/pam-vm-policy.XXXXXX") || fail mktemp
cat >"$policy" <<'EOF'
[Group audio]
RealtimePriority=95
Policies=fifo rr
Nice=-19
MemLock=infinity
RTTime=infinity
EOF
chmod 644 "$policy"
echo "session optional $TOP_BUILDDIR/pam_realtime/pam_realtime.so conf=$policy" >>/etc/pam.d/su

# su starts from the kernel's defaults for a login: no realtime, no nice
# below 0, 8 MiB locked, 1 s of realtime CPU; pam_realtime must raise them.
start="prlimit --rtprio=0:0 --nice=0:0 --memlock=8388608:8388608 --rttime=1000000:1000000"

echo "check: su's session for rtaudio has the policy's limits"
# shellcheck disable=SC2016
out=$($start su -s /bin/bash rtaudio -c 'echo uid=$(id -u) rtprio=$(ulimit -r)/$(ulimit -Hr) nice=$(ulimit -e)/$(ulimit -He) memlock=$(ulimit -l)/$(ulimit -Hl) rttime=$(ulimit -R)/$(ulimit -HR)' 2>&1)
echo "    $out"
[ "$out" = "uid=4101 rtprio=95/95 nice=39/39 memlock=unlimited/unlimited rttime=unlimited/unlimited" ] ||
	fail "su session limits: $out"

echo "check: in that session rtaudio runs a SCHED_FIFO 90 program (chrt, no privilege)"
out=$($start su -s /bin/sh rtaudio -c 'chrt -f 90 sh -c "chrt -p \$\$"' 2>&1) || fail "chrt -f 90 as rtaudio: $out"
echo "    $out"
printf '%s\n' "$out" | grep -q 'SCHED_FIFO' && printf '%s\n' "$out" | grep -q 'priority: 90' ||
	fail "not SCHED_FIFO 90: $out"

echo "check: and SCHED_FIFO 96, above the policy, is refused"
if $start su -s /bin/sh rtaudio -c 'chrt -f 96 true' >/dev/null 2>&1; then
	fail "chrt -f 96 worked for rtaudio"
fi

# Capabilities= under su: util-linux su calls pam_end(PAM_DATA_SILENT) in
# the session's process after its setuid, so cap_sys_nice must be ambient
# there; and whatever su does, the keepcaps flag set at open_session must
# let none of root's other capabilities into the session.
grep -q '^rtcaps:' /etc/passwd || {
	echo "rtcaps:x:4104:4104:pam_realtime vm test:/tmp:/bin/sh" >>/etc/passwd
	echo "rtcaps:x:4104:" >>/etc/group
	echo "rtcaps:*:19000:0:99999:7:::" >>/etc/shadow
}
printf '\n[User rtcaps]\nRealtimePriority=10\nPolicies=fifo\nCapabilities=sys_nice\n' >>"$policy"
echo "check: su's session for a user with Capabilities= holds no capability of root's"
out=$($start su -s /bin/sh rtcaps -c 'grep "^Cap\(Prm\|Eff\|Amb\)" /proc/self/status; ulimit -r' 2>&1)
printf '%s\n' "$out" | sed 's/^/    /'
printf '%s\n' "$out" | grep -q '^10$' || fail "rtcaps did not get RLIMIT_RTPRIO 10: $out"
for set in CapPrm CapEff; do
	v=$(printf '%s\n' "$out" | sed -n "s/^$set:[[:space:]]*//p")
	[ "$v" = 0000000000000000 ] || [ "$v" = 0000000000800000 ] || fail "$set $v in rtcaps's su session"
done
amb=$(printf '%s\n' "$out" | sed -n 's/^CapAmb:[[:space:]]*//p')
if su --version 2>/dev/null | grep -q util-linux; then
	echo "check: util-linux su: cap_sys_nice is ambient in the session"
	[ "$amb" = 0000000000800000 ] || fail "CapAmb $amb under util-linux su"
else
	echo "    note: CapAmb $amb under this su"
fi

rm -f "$policy"
echo "PASS"
