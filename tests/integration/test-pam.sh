#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# pam_realtime.so loaded by real libpam (pam_start_confdir() with a private
# PAM configuration directory, tests/integration/pam-driver.c) for a user in
# audio, a user out of it, an unknown user, broken and missing policy files,
# bad module arguments and Capabilities=. Each session's limits are read back
# with getrlimit() in the process that opened it, the module's log is caught
# with pam-syslog-shim.so and its documented lines are asserted.
#
# Before each session the driver lowers the hard limits to known values
# (RLIMIT_RTPRIO 10, RLIMIT_MEMLOCK 4 MiB, RLIMIT_NICE 10). Root on the
# project's host has no CAP_SYS_RESOURCE, so raising them past that fails and
# the documented fallback and error are asserted; where the process has it
# (the vm tier, tests/vm/guest/pam.sh) the real raise is asserted instead.
# shellcheck source=tests/integration/pam-lib.sh
. "$(dirname "$(readlink -f "$0")")/pam-lib.sh"

pam_enter "$@"
pam_setup

POLICY=$WORK/policy.conf
cat >"$POLICY" <<'EOF'
# pam_realtime integration test policy
[Daemon]
Polkit=yes

[Default]
RealtimePriority=20
Policies=rr
Nice=-15
MemLock=64M
RTTime=200ms

[Group audio]
RealtimePriority=95
Policies=fifo rr
Nice=-19
MemLock=infinity
RTTime=infinity

[User rtalice]
RealtimePriority=5
MemLock=1M
RTTime=50ms
Nice=10
Capabilities=sys_nice
EOF

# Anyone gets [Default] when polkit is not asked.
POLICY_NOPOLKIT=$WORK/policy-nopolkit.conf
sed 's/^Polkit=yes/Polkit=no/' "$POLICY" >"$POLICY_NOPOLKIT"

# A typo in a key: the whole file is rejected, the login goes on.
BROKEN=$WORK/broken.conf
printf '[Group audio]\nRealtimePriorty=95\nMemLock=infinity\n' >"$BROKEN"

# The same good policy, but anyone may write it: not trusted, the login goes on.
SHARED=$WORK/shared.conf
cp "$POLICY" "$SHARED"
chmod 666 "$SHARED"

mkdir "$WORK/pam.d"
# libpam wants an "other" service in the directory; deny everything there.
for t in auth account password session; do
	echo "$t required pam_deny.so"
done >"$WORK/pam.d/other"
# A stack that makes the module's own answer visible: libpam maps a lone
# PAM_IGNORE to PAM_PERM_DENIED, so jumps pick a pam_echo line that names
# the answer (the driver prints it as "conv pam_realtime: ANSWER").
# Real stacks say "session optional pam_realtime.so" (test-pamtester.sh).
service()
{
	cat >"$WORK/pam.d/$1" <<-EOF
	session [success=3 ignore=2 session_err=1 default=ok] $PAM_MODULE $2
	session [success=3 default=3] pam_echo.so pam_realtime: other
	session [success=2 default=2] pam_echo.so pam_realtime: PAM_SESSION_ERR
	session [success=1 default=1] pam_echo.so pam_realtime: PAM_IGNORE
	session optional pam_echo.so pam_realtime: PAM_SUCCESS
	EOF
}
service rt-test "debug conf=$POLICY"
service rt-nopolkit "debug conf=$POLICY_NOPOLKIT"
service rt-broken "debug conf=$BROKEN"
service rt-mixed "debug conf=$POLICY conf=$BROKEN"
service rt-missing "debug conf=$WORK/does-not-exist.conf"
service rt-shared "debug conf=$SHARED"
service rt-badargs "bogus conf=relative.conf debug conf=$POLICY"
service rt-nocaps "debug nocaps conf=$POLICY"
service rt-quiet "conf=$POLICY"

START="--start rtprio=0:10 --start memlock=0:4194304 --start nice=0:10"

# run NAME SERVICE USER [DRIVER OPTIONS]: one session; sets OUT and LOG.
run()
{
	_name=$1 _svc=$2 _user=$3
	shift 3
	LOG=$WORK/$_name.log
	: >"$LOG"
	chmod 666 "$LOG" # written after --setuid too
	# shellcheck disable=SC2086
	OUT=$(PAM_TEST_SYSLOG=$LOG LD_PRELOAD=$PAM_SHIM "$PAM_DRIVER" --confdir "$WORK/pam.d" \
		--service "$_svc" $START "$@" "$_user" 2>&1)
	printf '%s\n' "$OUT" >"$WORK/$_name.out"
	_open=$(open_result "$OUT")
	[ "$_open" != PAM_ABORT ] || fail "$_name: the module answered PAM_ABORT"
	[ -n "$_open" ] || fail "$_name: the driver did not open a session: $OUT"
}

# Would raising any of these hard limits fail here? Then the session is
# answered PAM_SESSION_ERR, else PAM_SUCCESS.
expected_open()
{
	_out=$1
	shift
	if have_cap_sys_resource; then
		echo PAM_SUCCESS
		return
	fi
	while [ $# -gt 0 ]; do
		le "$2" "$(field "$_out" before "$1" 2)" || {
			echo PAM_SESSION_ERR
			return
		}
		shift 2
	done
	echo PAM_SUCCESS
}

if have_cap_sys_resource; then
	note "this process holds CAP_SYS_RESOURCE: hard limits are really raised"
	took_path cap-sys-resource
else
	note "this process lacks CAP_SYS_RESOURCE: raising a hard limit takes the documented error path"
fi

# --- a member of audio: the [Group audio] values ---
run audio rt-test rtaudio
want=$(expected_open "$OUT" RLIMIT_RTPRIO 95 RLIMIT_MEMLOCK infinity RLIMIT_RTTIME infinity RLIMIT_NICE 39)
check "rtaudio: open_session answers $want" [ "$(open_result "$OUT")" = "$want" ]
expect_limit rtaudio "$OUT" "$LOG" rtaudio RLIMIT_RTPRIO 95
expect_limit rtaudio "$OUT" "$LOG" rtaudio RLIMIT_MEMLOCK infinity
expect_limit rtaudio "$OUT" "$LOG" rtaudio RLIMIT_RTTIME infinity
expect_limit rtaudio "$OUT" "$LOG" rtaudio RLIMIT_NICE 39
check "rtaudio: the failure names the policy line that decided it" \
	grep -q "RealtimePriority=95 from $POLICY:$(line_of "$POLICY" "Group audio" RealtimePriority) \[Group audio\]" "$LOG"
if le infinity "$(field "$OUT" before RLIMIT_RTTIME 2)" || have_cap_sys_resource; then
	check "rtaudio: debug logs the limit it set and the file:line that decided it" \
		logged debug "Set RLIMIT_RTTIME of rtaudio to infinity (was soft .*, hard .*): RTTime=infinity from $POLICY:$(line_of "$POLICY" "Group audio" RTTime) \[Group audio\]$"
fi
check "rtaudio: no capabilities asked, keepcaps stays off" grep -qx "keepcaps 0" "$WORK/audio.out"

# --- a [User] rule beats the group; all values lower: exact everywhere ---
run alice rt-test rtalice
want=$(expected_open "$OUT" RLIMIT_RTPRIO 5 RLIMIT_MEMLOCK 1048576 RLIMIT_RTTIME 50000 RLIMIT_NICE 10)
check "rtalice: open_session answers $want" [ "$(open_result "$OUT")" = "$want" ]
expect_limit rtalice "$OUT" "$LOG" rtalice RLIMIT_RTPRIO 5
expect_limit rtalice "$OUT" "$LOG" rtalice RLIMIT_MEMLOCK 1048576
expect_limit rtalice "$OUT" "$LOG" rtalice RLIMIT_RTTIME 50000
expect_limit rtalice "$OUT" "$LOG" rtalice RLIMIT_NICE 10
check "rtalice: [User rtalice] and its line decided RLIMIT_RTPRIO" \
	grep -q " RLIMIT_RTPRIO of rtalice .*RealtimePriority=5 from $POLICY:$(line_of "$POLICY" "User rtalice" RealtimePriority) \[User rtalice\]" "$LOG"
check "rtalice: debug logs the limit it set and the file:line that decided it" \
	logged debug "Set RLIMIT_RTTIME of rtalice to 50000 (was soft .*, hard .*): RTTime=50ms from $POLICY:$(line_of "$POLICY" "User rtalice" RTTime) \[User rtalice\]$"
check "rtalice: Nice=10 from the user's line becomes RLIMIT_NICE 10" \
	grep -q " RLIMIT_NICE of rtalice .*10 .*Nice=10 from $POLICY:$(line_of "$POLICY" "User rtalice" Nice) " "$LOG"
check "rtalice: ambient capabilities are deferred to pam_end()" \
	logged debug "Ambient capabilities cap_sys_nice for rtalice will be raised at pam_end() after the application's setuid"
check "rtalice: an application's own pam_end() undoes keepcaps" grep -qx "keepcaps 0" "$WORK/alice.out"

# --- Capabilities=sys_nice across setuid, as login's session child does ---
prm=$(sed -n 's/^CapPrm:[[:space:]]*//p' /proc/self/status)
if [ $(((0x$prm >> 23) & 1)) = 1 ] && [ $(((0x$prm >> 7) & 1)) = 1 ]; then
	took_path setuid-capabilities
	run alice-setuid rt-test rtalice --setuid
	check "rtalice --setuid: keepcaps is on until the application's setuid" grep -qx "keepcaps 1" "$WORK/alice-setuid.out"
	check "rtalice --setuid: the session runs as uid 4103" grep -qx "uid 4103" "$WORK/alice-setuid.out"
	check "rtalice --setuid: cap_sys_nice is ambient after pam_end(PAM_DATA_SILENT)" \
		grep -qx "self CapAmb 0000000000800000" "$WORK/alice-setuid.out"
	for set in CapAmb CapPrm CapEff; do
		check "rtalice --setuid: after exec, $set is exactly cap_sys_nice" \
			grep -qx "exec $set 0000000000800000" "$WORK/alice-setuid.out"
	done
	check "rtalice --setuid: debug says the capabilities were raised" \
		grep -q "^debug .*pam_realtime: Raised ambient capabilities cap_sys_nice for the session (uid 4103)" "$LOG"
	# keepcaps has served once the setuid is behind: it is put back, and
	# root's other permitted capabilities, which it kept, are given up
	check "rtalice --setuid: keepcaps is off again after pam_end(PAM_DATA_SILENT)" \
		grep -qx "session keepcaps 0" "$WORK/alice-setuid.out"
	check "rtalice --setuid: before exec, the session holds only cap_sys_nice permitted" \
		grep -qx "self CapPrm 0000000000800000" "$WORK/alice-setuid.out"
	check "rtalice --setuid: a child it forks, after its own setuid, has keepcaps off" \
		grep -qx "child keepcaps 0" "$WORK/alice-setuid.out"
	check "rtalice --setuid: that child keeps no more than cap_sys_nice permitted" \
		grep -qx "child CapPrm 0000000000800000" "$WORK/alice-setuid.out"

	# the raise fails (the driver empties its sets after setuid): keepcaps
	# is put back all the same
	run alice-dropped rt-test rtalice --setuid --drop-caps
	check "raise failed: the log says so" \
		grep -q "pam_realtime: Failed to raise ambient capabilities cap_sys_nice for the session" "$LOG"
	check "raise failed: keepcaps is off again after pam_end(PAM_DATA_SILENT)" \
		grep -qx "session keepcaps 0" "$WORK/alice-dropped.out"
	check "raise failed: nothing is permitted" grep -qx "self CapPrm 0000000000000000" "$WORK/alice-dropped.out"

	# pam_end(PAM_DATA_SILENT) while still root (systemd --user's order): the
	# raise is done and warned about, keepcaps put back, so a child that
	# then drops root keeps none of root's capabilities
	run alice-endfirst rt-test rtalice --end-first
	check "pam_end before setuid: the warning is logged" \
		grep -q "raising ambient capabilities cap_sys_nice while still root" "$LOG"
	check "pam_end before setuid: keepcaps is off again" grep -qx "keepcaps 0" "$WORK/alice-endfirst.out"
	check "pam_end before setuid: a child's setuid() to the user leaves nothing permitted" \
		grep -qx "child CapPrm 0000000000000000" "$WORK/alice-endfirst.out"

	run alice-nocaps rt-nocaps rtalice --setuid
	check "nocaps: Capabilities= is not what decides the answer" [ "$(open_result "$OUT")" = "$(open_result "$(cat "$WORK/alice.out")")" ]
	check "nocaps: keepcaps stays off" grep -qx "keepcaps 0" "$WORK/alice-nocaps.out"
	check "nocaps: nothing is ambient after exec" grep -qx "exec CapAmb 0000000000000000" "$WORK/alice-nocaps.out"
	expect_limit nocaps "$OUT" "$LOG" rtalice RLIMIT_MEMLOCK 1048576

	run alice-twice rt-test rtalice --setuid --twice
	check "two open_session calls on one handle: still raised once, after setuid" \
		grep -qx "exec CapAmb 0000000000800000" "$WORK/alice-twice.out"
else
	note "not root with cap_sys_nice and cap_setuid: the setuid checks of Capabilities= are not run"
fi

# --- a user no rule covers: nothing at login (polkit's consent is the daemon's) ---
run plain rt-test rtplain
check "rtplain: open_session answers PAM_IGNORE" [ "$(open_result "$OUT")" = PAM_IGNORE ]
for r in RLIMIT_RTPRIO RLIMIT_MEMLOCK RLIMIT_RTTIME RLIMIT_NICE; do
	expect_limit rtplain "$OUT" "$LOG" rtplain $r unchanged
done
check "rtplain: debug says why nothing was granted" \
	logged debug "No \[User\] or \[Group\] rule covers rtplain and Polkit=yes"

# --- Polkit=no: [Default] is for everyone, at login too ---
# [Default] says Policies=rr: RLIMIT_RTPRIO would open SCHED_FIFO too, so
# the session gets RLIMIT_RTPRIO 0 and realtime only per thread from realtimed.
run plain-nopolkit rt-nopolkit rtplain
want=$(expected_open "$OUT" RLIMIT_RTPRIO 0 RLIMIT_MEMLOCK 67108864 RLIMIT_RTTIME 200000 RLIMIT_NICE 35)
check "rtplain, Polkit=no: open_session answers $want" [ "$(open_result "$OUT")" = "$want" ]
expect_limit "rtplain, Polkit=no, Policies=rr" "$OUT" "$LOG" rtplain RLIMIT_RTPRIO 0
check "rtplain, Polkit=no: debug names Policies=rr as what decided RLIMIT_RTPRIO 0" \
	logged debug "Set RLIMIT_RTPRIO of rtplain to 0 (was soft .*, hard .*): Policies=rr from $POLICY_NOPOLKIT:$(line_of "$POLICY_NOPOLKIT" Default Policies) \[Default\]$"
check "rtplain, Polkit=no: RLIMIT_RTPRIO is never tried above 0" \
	sh -c "! grep -q 'RLIMIT_RTPRIO of rtplain from .* to [1-9]' '$LOG'"
expect_limit "rtplain, Polkit=no" "$OUT" "$LOG" rtplain RLIMIT_MEMLOCK 67108864
expect_limit "rtplain, Polkit=no" "$OUT" "$LOG" rtplain RLIMIT_RTTIME 200000
expect_limit "rtplain, Polkit=no" "$OUT" "$LOG" rtplain RLIMIT_NICE 35

# --- an unknown user ---
run unknown rt-test rtnobody
check "unknown user: open_session answers PAM_IGNORE" [ "$(open_result "$OUT")" = PAM_IGNORE ]
for r in RLIMIT_RTPRIO RLIMIT_MEMLOCK RLIMIT_RTTIME RLIMIT_NICE; do
	expect_limit "unknown user" "$OUT" "$LOG" rtnobody $r unchanged
done
check "unknown user: logged as an error" logged err 'User "rtnobody" is unknown to the system (NSS); granting nothing$'

# --- a typo in the only policy file ---
run broken rt-broken rtaudio
check "broken policy: open_session answers PAM_IGNORE (the login goes on)" [ "$(open_result "$OUT")" = PAM_IGNORE ]
for r in RLIMIT_RTPRIO RLIMIT_MEMLOCK RLIMIT_RTTIME RLIMIT_NICE; do
	expect_limit "broken policy" "$OUT" "$LOG" rtaudio $r unchanged
done
check "broken policy: the log names file, line and what to do" \
	logged err "Ignoring policy file $BROKEN: line 2: .*RealtimePriorty.*Nothing in that file is applied until it is fixed; check it with \"realtimectl policy check\"$"

# --- a broken drop-in next to a good file: the good one still applies ---
run mixed rt-mixed rtaudio
want=$(expected_open "$OUT" RLIMIT_RTPRIO 95 RLIMIT_MEMLOCK infinity RLIMIT_RTTIME infinity RLIMIT_NICE 39)
check "good + broken file: open_session answers $want" [ "$(open_result "$OUT")" = "$want" ]
expect_limit "good + broken file" "$OUT" "$LOG" rtaudio RLIMIT_RTPRIO 95
expect_limit "good + broken file" "$OUT" "$LOG" rtaudio RLIMIT_NICE 39
check "good + broken file: the broken one is logged" logged err "Ignoring policy file $BROKEN: line 2: "

# --- a missing conf= file ---
run missing rt-missing rtaudio
check "missing conf= file: open_session answers PAM_IGNORE" [ "$(open_result "$OUT")" = PAM_IGNORE ]
expect_limit "missing conf= file" "$OUT" "$LOG" rtaudio RLIMIT_RTPRIO unchanged
check "missing conf= file: logged with its path" logged err "Ignoring policy file $WORK/does-not-exist.conf: .*No such file"

# --- a policy file anyone may write ---
run shared rt-shared rtaudio
check "policy file mode 0666: open_session answers PAM_IGNORE (the login goes on)" [ "$(open_result "$OUT")" = PAM_IGNORE ]
for r in RLIMIT_RTPRIO RLIMIT_MEMLOCK RLIMIT_RTTIME RLIMIT_NICE; do
	expect_limit "policy file mode 0666" "$OUT" "$LOG" rtaudio $r unchanged
done
check "policy file mode 0666: the log names the file and the fix" \
	logged err "Ignoring policy file $SHARED: writable by group and others (mode 0666);.*: chmod go-w $SHARED\. Nothing in that file is applied"

# --- bad module arguments are logged and skipped ---
run badargs rt-badargs rtalice
expect_limit "bad arguments" "$OUT" "$LOG" rtalice RLIMIT_RTPRIO 5
expect_limit "bad arguments" "$OUT" "$LOG" rtalice RLIMIT_MEMLOCK 1048576
check "bad arguments: an unknown argument is logged" \
	logged err 'Ignoring unknown module argument "bogus"; known are debug, conf=FILE and nocaps, see pam_realtime(8)$'
check "bad arguments: a relative conf= is logged" \
	logged err 'Ignoring module argument "conf=relative.conf": conf= needs an absolute path'

# --- without debug, a clean session logs nothing ---
run quiet rt-quiet rtalice
check "no debug: nothing is logged at debug level" sh -c "! grep -q '^debug ' '$LOG'"
if [ "$(open_result "$OUT")" = PAM_SUCCESS ]; then
	check "no debug: a session that went well logs nothing" sh -c "! grep -q 'pam_realtime' '$LOG'"
else
	check "no debug: a session that failed logs errors only" sh -c "! grep 'pam_realtime' '$LOG' | grep -qv '^err '"
fi

finish
