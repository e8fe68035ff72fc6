#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Users and groups that live in a real LDAP directory, served through NSS
# (slapd on an ldapi:// socket, nslcd, libnss-ldapd: directory-lib.sh), as
# studios and universities keep them. pam_realtime (pamtester, su) and
# realtimed must treat a directory member of audio like a files member:
#
#   - pam_realtime gives an LDAP member of audio [Group audio]'s rlimits,
#     an LDAP non-member nothing;
#   - realtimed grants the member FIFO 70 and refuses the non-member with
#     the reason; realtimectl explain names the group and its file:line;
#   - a memberUid added in the directory counts without a new login, once
#     realtimed's short per-user cache has run out;
#   - [User #UID] and [Group #GID] work for ids only the directory knows;
#   - slapd killed: pamtester open_session costs no more than the NSS
#     lookups the login makes itself, and realtimed goes on serving users
#     that /etc resolves, and the directory member it resolved minutes ago
#     from its last good answer (logged once);
#   - libnss-ldapd's module runs in realtimed's NSS helper, as nobody,
#     never in realtimed itself.
#
# The directory's audio is its own group (gid 6029) of the same name as
# /etc's audio (29, with the files user rtaudio): the policy matches groups
# by name, so both count, and the files member is what is left when the
# directory is gone.

# shellcheck source=tests/integration/pam-lib.sh
. "$(dirname "$(readlink -f "$0")")/pam-lib.sh"
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$(readlink -f "$0")")/lib.sh"
# shellcheck source=tests/integration/directory-lib.sh
. "$(dirname "$(readlink -f "$0")")/directory-lib.sh"

integ_enter "$@"
integ_require_daemon
dir_require
integ_require_cmd pamtester su
[ -f "$PAM_MODULE" ] || skip "pam_realtime.so is not built ($PAM_MODULE); build with -Dpam=enabled"
[ -f "$PAM_SHIM" ] || skip "the syslog shim is not built ($PAM_SHIM)"
integ_setup

# uids/gids of the directory, none of them in /etc
U_MEMBER=6001 U_PLAIN=6002 U_LATE=6003 U_BYUID=6004 U_STUDIO=6005
G_AUDIO=6029 G_STUDIO=6100
dir_ids_free $U_MEMBER $U_PLAIN $U_LATE $U_BYUID $U_STUDIO $G_AUDIO $G_STUDIO
{
	dir_ldif_base
	for u in ldapmember:$U_MEMBER ldapplain:$U_PLAIN ldaplate:$U_LATE ldapbyuid:$U_BYUID ldapstudio:$U_STUDIO; do
		dir_ldif_user "${u%:*}" "${u#*:}" "${u#*:}"
		dir_ldif_group "${u%:*}" "${u#*:}"
	done
	dir_ldif_group audio $G_AUDIO ldapmember
	dir_ldif_group studio $G_STUDIO ldapstudio
} >"$WORK/directory.ldif"
dir_start "$WORK/directory.ldif"

# --- NSS sees the directory (and only the namespace does) ---------------
out=$(id ldapmember 2>&1)
printf '%s\n' "$out" | grep -q "uid=$U_MEMBER(ldapmember)" && printf '%s\n' "$out" | grep -q "$G_AUDIO(audio)" &&
	ok "NSS: ldapmember comes from the directory, in its audio ($out)" ||
	fail "NSS: id ldapmember: $out"
grep -q '^ldapmember:' /etc/passwd && fail "ldapmember is in /etc/passwd: not a directory-only user" ||
	ok "ldapmember is in no /etc file"
out=$(id ldapplain 2>&1)
printf '%s\n' "$out" | grep -q "(audio)" && fail "ldapplain is in audio: $out" || ok "NSS: ldapplain is in no audio ($out)"

# --- pam_realtime: pamtester and su through a private /etc/pam.d --------
PAM_POLICY=$WORK/pam-policy.conf
cat >"$PAM_POLICY" <<'EOF'
[Group audio]
RealtimePriority=70
Policies=fifo rr
Nice=-19
MemLock=4M
RTTime=200ms
EOF
cp -a /etc/pam.d "$WORK/pam.d"
mount --bind "$WORK/pam.d" /etc/pam.d || skip "cannot bind-mount over /etc/pam.d"
cat >/etc/pam.d/rt-directory <<-EOF
	auth     required pam_permit.so
	account  required pam_permit.so
	session  optional $PAM_MODULE debug conf=$PAM_POLICY
	session  optional pam_exec.so quiet log=$WORK/limits.out /bin/cat /proc/self/limits
EOF
# su as root: pam_rootok, then our session stack only (no pam_systemd here)
cat >/etc/pam.d/su <<-EOF
	auth     sufficient pam_rootok.so
	auth     required pam_deny.so
	account  required pam_permit.so
	session  optional $PAM_MODULE debug conf=$PAM_POLICY
EOF

# pt NAME USER: one pamtester session; sets OUT, LOG, RC.
pt()
{
	LOG=$WORK/$1.log
	: >"$LOG"
	: >"$WORK/limits.out"
	PAM_TEST_SYSLOG=$LOG LD_PRELOAD=$PAM_SHIM pamtester -v rt-directory "$2" open_session close_session \
		>"$WORK/$1.pamtester" 2>&1
	RC=$?
	OUT=$(limits_lines before /proc/self/limits; limits_lines after "$WORK/limits.out")
}

pt member ldapmember
check "pamtester ldapmember: the session opens (exit 0)" [ "$RC" = 0 ]
expect_limit "pamtester ldapmember (directory audio)" "$OUT" "$LOG" ldapmember RLIMIT_RTPRIO 70
expect_limit "pamtester ldapmember (directory audio)" "$OUT" "$LOG" ldapmember RLIMIT_MEMLOCK 4194304
expect_limit "pamtester ldapmember (directory audio)" "$OUT" "$LOG" ldapmember RLIMIT_RTTIME 200000
expect_limit "pamtester ldapmember (directory audio)" "$OUT" "$LOG" ldapmember RLIMIT_NICE 39
check "pamtester ldapmember: debug names [Group audio] behind RLIMIT_MEMLOCK" \
	logged debug "Set RLIMIT_MEMLOCK of ldapmember to 4194304 .*MemLock=4M from $PAM_POLICY:$(line_of "$PAM_POLICY" "Group audio" MemLock) \[Group audio\]$"

pt plain ldapplain
check "pamtester ldapplain: the session opens (exit 0)" [ "$RC" = 0 ]
for r in RLIMIT_RTPRIO RLIMIT_MEMLOCK RLIMIT_RTTIME RLIMIT_NICE; do
	expect_limit "pamtester ldapplain (directory non-member)" "$OUT" "$LOG" ldapplain $r unchanged
done

# su - USER -c: the shell the session starts reads its own limits
su_limits()
{
	LD_PRELOAD=$PAM_SHIM PAM_TEST_SYSLOG=$WORK/su-$1.log su - "$1" -c 'cat /proc/self/limits' 2>"$WORK/su-$1.err" |
		limits_lines after /dev/stdin
}
out=$(su_limits ldapmember)
if [ -z "$out" ]; then
	fail "su - ldapmember: no limits read: $(cat "$WORK/su-ldapmember.err")"
else
	OUT=$(limits_lines before /proc/self/limits; printf '%s\n' "$out")
	expect_limit "su - ldapmember" "$OUT" "$WORK/su-ldapmember.log" ldapmember RLIMIT_MEMLOCK 4194304
	expect_limit "su - ldapmember" "$OUT" "$WORK/su-ldapmember.log" ldapmember RLIMIT_RTTIME 200000
fi
out=$(su_limits ldapplain)
if [ -z "$out" ]; then
	fail "su - ldapplain: no limits read: $(cat "$WORK/su-ldapplain.err")"
else
	OUT=$(limits_lines before /proc/self/limits; printf '%s\n' "$out")
	expect_limit "su - ldapplain" "$OUT" "$WORK/su-ldapplain.log" ldapplain RLIMIT_MEMLOCK unchanged
	expect_limit "su - ldapplain" "$OUT" "$WORK/su-ldapplain.log" ldapplain RLIMIT_RTTIME unchanged
fi

# --- realtimed -----------------------------------------------------------
integ_admin_conf <<-EOF
	[Group audio]
	RealtimePriority=70
	Policies=fifo rr
EOF
mkdir -p "$WORK/conf.d"
cat >"$WORK/conf.d/50-directory-ids.conf" <<-EOF
	[User #$U_BYUID]
	RealtimePriority=60
	Policies=fifo rr

	[Group #$G_STUDIO]
	RealtimePriority=50
	Policies=fifo rr
EOF
L_ADMIN_PRIO=$(awk '/^RealtimePriority=/ { print NR; exit }' "$WORK/admin.conf")
integ_start_daemon

# refused: ERR: MSG of rt-client ask, as dbus-send's "Error ERR: MSG"
as_error()
{
	printf '%s\n' "$1" | sed -n 's/^refused: \([^:]*\): /Error \1: /p'
}

# fifo_granted DESC USER PRIO: USER's rt-client gets SCHED_FIFO PRIO
fifo_granted()
{
	_out=$(run_as "$2" "$RT_CLIENT" ask --policy fifo --prio "$3" 2>&1)
	_rc=$?
	if [ $_rc = 0 ] && printf '%s\n' "$_out" | grep -q "SCHED_FIFO priority $3"; then
		ok "$1"
	else
		fail "$1: $2 asking fifo $3: rc $_rc: $_out"
	fi
}

# fifo_refused DESC USER PRIO REGEX: refused with PolicyDenied matching REGEX
fifo_refused()
{
	_out=$(run_as "$2" "$RT_CLIENT" ask --policy fifo --prio "$3" 2>&1)
	expect_error "$1" "$NATIVE_ERR.PolicyDenied" "$4" "$(as_error "$_out")"
}

fifo_granted "realtimed: directory member of audio gets SCHED_FIFO 70" ldapmember 70
# the directory's NSS module ran in realtimed's NSS helper (its child), as
# nobody, never in realtimed (uid 0, with capabilities)
check_eq "realtimed's NSS helper runs as nobody" 65534 "$(ps -o uid= -p "$(integ_nss_helper)" | tr -d ' ')"
expect_nss_module_in_helper libnss_ldap.so.2
fifo_refused "realtimed: directory member asking fifo 71" ldapmember 71 \
	"priority 71 exceeds the limit 70 .*ldapmember.*admin\.conf:$L_ADMIN_PRIO\b"
fifo_refused "realtimed: directory non-member asking fifo 70 is refused with the reason" ldapplain 70 \
	"(exceeds the limit 20|fifo.*not allowed).*ldapplain"

out=$("$REALTIMECTL" explain ldapmember </dev/null 2>&1)
printf '%s\n' "$out" | grep -qE "^RealtimePriority +70 +$WORK/admin\.conf:$L_ADMIN_PRIO\b" &&
	ok "realtimectl explain ldapmember: RealtimePriority 70 from admin.conf:$L_ADMIN_PRIO" ||
	fail "realtimectl explain ldapmember: $out"
out=$("$REALTIMECTL" --vendor-conf="$VENDOR_CONF" --admin-conf="$WORK/admin.conf" \
	--vendor-conf-dir="$WORK/vendor.d" --admin-conf-dir="$WORK/conf.d" explain --offline ldapmember </dev/null 2>&1)
printf '%s\n' "$out" | grep -qE "^RealtimePriority +70 +$WORK/admin\.conf:$L_ADMIN_PRIO \[Group audio\]" &&
	ok "realtimectl explain --offline ldapmember: [Group audio] at admin.conf:$L_ADMIN_PRIO" ||
	fail "realtimectl explain --offline ldapmember: $out"

# [User #UID] and [Group #GID] of ids only the directory knows
fifo_granted "realtimed: [User #$U_BYUID] (a directory uid) gives fifo 60" ldapbyuid 60
fifo_granted "realtimed: [Group #$G_STUDIO] (a directory-only group) gives fifo 50" ldapstudio 50
fifo_refused "realtimed: [Group #$G_STUDIO] member asking fifo 51" ldapstudio 51 \
	"priority 51 exceeds the limit 50 .*ldapstudio.*50-directory-ids\.conf"

# a memberUid added in the directory counts without a new login
fifo_refused "realtimed: ldaplate, not yet in audio, is refused fifo 70" ldaplate 70 ldaplate
printf 'dn: cn=audio,ou=groups,%s\nchangetype: modify\nadd: memberUid\nmemberUid: ldaplate\n' "$DIR_SUFFIX" | dir_modify ||
	fail "ldapmodify add memberUid ldaplate: $(cat "$WORK/ldap/modify.log")"
t0=$(date +%s%N)
granted=
while [ $(($(date +%s%N) - t0)) -lt 20000000000 ]; do
	# the caller's own credentials are unchanged: ask from a process that
	# setpriv started before the change would be the same; the daemon looks
	# the uid up in NSS
	if run_as ldaplate "$RT_CLIENT" ask --policy fifo --prio 70 2>&1 | grep -q 'SCHED_FIFO priority 70'; then
		granted=$((($(date +%s%N) - t0) / 1000000))
		break
	fi
	sleep 0.2
done
if [ -z "$granted" ]; then
	fail "realtimed: ldaplate added to the directory's audio is still refused after 20 s"
else
	note "ldaplate granted fifo 70 ${granted} ms after ldapmodify"
	[ "$granted" -le 8000 ] &&
		ok "realtimed: a memberUid added in the directory counts within the cache lifetime (${granted} ms <= 5 s + 3 s)" ||
		fail "realtimed: a memberUid added in the directory took ${granted} ms (> 5 s + 3 s)"
fi

# --- slapd gone ----------------------------------------------------------
# ms COMMAND...: wall time of COMMAND in milliseconds
ms()
{
	_t0=$(date +%s%N)
	"$@" >/dev/null 2>&1
	echo $((($(date +%s%N) - _t0) / 1000000))
}
dir_stop_slapd
note "slapd killed"
# Each timing starts from a fresh nslcd: one that has just failed to
# reach slapd answers at once for a while (reconnect_retrytime), and the
# login's own lookups and pam_realtime's must pay the same.
for u in rtaudio ldapmember; do
	dir_restart_nslcd
	t_getent=$(ms getent passwd $u)
	t_id=$(ms id $u)
	t_nss=$((t_getent + t_id))
	dir_restart_nslcd
	t_pam=$(ms pamtester rt-directory $u open_session close_session)
	note "slapd down, $u: getent passwd ${t_getent} ms + id ${t_id} ms; pamtester open_session+close_session ${t_pam} ms"
	[ "$t_pam" -le $((2 * t_nss + 1000)) ] &&
		ok "slapd down: pamtester $u (${t_pam} ms) within 2x + 1 s of the login's own NSS calls (${t_nss} ms)" ||
		fail "slapd down: pamtester $u took ${t_pam} ms, its NSS calls ${t_nss} ms"
done
pt down-member ldapmember
check "slapd down: pamtester ldapmember still opens the session (exit 0)" [ "$RC" = 0 ]
expect_limit "slapd down: pamtester ldapmember (unknown to NSS now)" "$OUT" "$LOG" ldapmember RLIMIT_MEMLOCK unchanged

expect_success "slapd down: realtimed answers Peer.Ping" "$(dbus-send --system --print-reply --dest=$NATIVE_NAME $NATIVE_PATH org.freedesktop.DBus.Peer.Ping 2>&1)"
# realtimed resolves rtaudio's groups through NSS too, the directory's
# included: how long that takes with slapd gone is printed, not bounded here
t0=$(date +%s%N)
fifo_granted "slapd down: a files member of audio still gets SCHED_FIFO 70" rtaudio 70
note "slapd down: rtaudio's grant took $((($(date +%s%N) - t0) / 1000000)) ms"
# ldapmember, granted above, has a last good answer of a minute or two
# (by uid: no name resolves now; dbus-daemon knows the uid from before)
member_fifo70()
{
	_out=$(setpriv --reuid=$U_MEMBER --regid=$U_MEMBER --clear-groups -- "$RT_CLIENT" ask --policy fifo --prio 70 2>&1)
	_rc=$?
	if [ $_rc = 0 ] && printf '%s\n' "$_out" | grep -q "SCHED_FIFO priority 70"; then
		ok "$1"
	else
		fail "$1: rc $_rc: $_out"
	fi
}
t0=$(date +%s%N)
member_fifo70 "slapd down: ldapmember, resolved before, still gets SCHED_FIFO 70 from its last good answer"
note "slapd down: ldapmember's grant took $((($(date +%s%N) - t0) / 1000000)) ms"
member_fifo70 "slapd down: and again"
n=$(grep -c "uid $U_MEMBER: serving its last good answer" "$WORK/realtimed.log")
[ "$n" = 1 ] && ok "slapd down: realtimed says once that uid $U_MEMBER is served its last good answer" ||
	fail "slapd down: $n lines about uid $U_MEMBER's last good answer: $(grep "uid $U_MEMBER" "$WORK/realtimed.log")"

finish
