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
# Reports each check (TAP); exits 0 pass, 77 skip (with the reason), 1 fail.
set -u

: "${TOP_SRCDIR:?}" "${TOP_BUILDDIR:?}"
# shellcheck source=tests/vm/lib.sh
. "$TOP_SRCDIR/tests/vm/lib.sh"
[ -f "$TOP_BUILDDIR/pam_realtime/pam_realtime.so" ] ||
	skip "pam_realtime.so is not built in $TOP_BUILDDIR (-Dpam=enabled)"
[ -x "$TOP_BUILDDIR/tests/integration/pam-driver" ] ||
	skip "the PAM test driver is not built in $TOP_BUILDDIR (-Dtests=enabled)"

# each must pass and take the path where the hard limits are raised for real
run_integration_real_path test-pam cap-sys-resource setuid-capabilities
run_integration_real_path test-pamtester cap-sys-resource

# --- a real login program: su, with pam_realtime in its session stack ---
for c in su prlimit chrt bash; do
	command -v $c >/dev/null 2>&1 || skip "$c is not installed"
done
[ -f /etc/pam.d/su ] || skip "/etc/pam.d/su is missing"

# The test users, in this VM's own (tmpfs overlay) /etc.
add_test_users
check "rtaudio is in audio: $(id rtaudio)" sh -c "id rtaudio | grep -q '(audio)'"

policy=$(mktemp "${TMPDIR:-/tmp}/pam-vm-policy.XXXXXX") || { fail mktemp; finish; }
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

# shellcheck disable=SC2016
out=$($start su -s /bin/bash rtaudio -c 'echo uid=$(id -u) rtprio=$(ulimit -r)/$(ulimit -Hr) nice=$(ulimit -e)/$(ulimit -He) memlock=$(ulimit -l)/$(ulimit -Hl) rttime=$(ulimit -R)/$(ulimit -HR)' 2>&1)
check_eq "su's session for rtaudio has the policy's limits" \
	"uid=4101 rtprio=95/95 nice=39/39 memlock=unlimited/unlimited rttime=unlimited/unlimited" "$out"

if out=$($start su -s /bin/sh rtaudio -c 'chrt -f 90 sh -c "chrt -p \$\$"' 2>&1) &&
	printf '%s\n' "$out" | grep -q 'SCHED_FIFO' && printf '%s\n' "$out" | grep -q 'priority: 90'; then
	ok "in that session rtaudio runs a SCHED_FIFO 90 program (chrt, no privilege)"
else
	fail "chrt -f 90 as rtaudio in su's session: $out"
fi

if $start su -s /bin/sh rtaudio -c 'chrt -f 96 true' >/dev/null 2>&1; then
	fail "chrt -f 96, above the policy, worked for rtaudio"
else
	ok "and SCHED_FIFO 96, above the policy, is refused"
fi

# Capabilities= under su: util-linux su calls pam_end(PAM_DATA_SILENT) in
# the session's process after its setuid, so cap_sys_nice must be ambient
# there; and whatever su does, the keepcaps flag set at open_session must
# let none of root's other capabilities into the session.
printf '\n[User rtcaps]\nRealtimePriority=10\nPolicies=fifo\nCapabilities=sys_nice\n' >>"$policy"
out=$($start su -s /bin/sh rtcaps -c 'grep "^Cap\(Prm\|Eff\|Amb\)" /proc/self/status; ulimit -r' 2>&1)
note "$out"
if printf '%s\n' "$out" | grep -q '^10$'; then
	ok "rtcaps, a user with Capabilities=, gets RLIMIT_RTPRIO 10 in su's session"
else
	fail "rtcaps did not get RLIMIT_RTPRIO 10: $out"
fi
for set in CapPrm CapEff; do
	v=$(printf '%s\n' "$out" | sed -n "s/^$set:[[:space:]]*//p")
	if [ "$v" = 0000000000000000 ] || [ "$v" = 0000000000800000 ]; then
		ok "$set $v in rtcaps's su session: no capability of root's"
	else
		fail "$set $v in rtcaps's su session"
	fi
done
amb=$(printf '%s\n' "$out" | sed -n 's/^CapAmb:[[:space:]]*//p')
if su --version 2>/dev/null | grep -q util-linux; then
	check_eq "util-linux su: cap_sys_nice is ambient in the session" 0000000000800000 "$amb"
else
	note "CapAmb $amb under this su"
fi

rm -f "$policy"
finish
