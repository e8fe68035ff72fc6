#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/directory-bench.sh: users in an LDAP directory against the same
# users in /etc, in one run. As root:
#
#	bench/directory-bench.sh [BUILD_DIR]      (default: build)
#
# In the integration harness's private namespace (tests/integration/lib.sh,
# directory-lib.sh: slapd on an ldapi socket, nslcd, libnss-ldapd, a
# private nsswitch.conf with "files ldap"), two populations of the same
# shape:
#   - directory: du00000..du09999 (uids 200000..), 1,000 groups
#     dg0000..dg0999 (each user in two of them, memberUid), and the
#     directory's audio (gid 250029) with du00000..du01999;
#   - files: fu00000..fu09999 (uids 300000..), fg0000..fg0999, and /etc's
#     audio with fu00000..fu01999, in the private /etc/passwd and group.
# It measures:
#   - the PAM session: pamtester open_session+close_session of
#     $BENCH_LOGINS random audio members of each population, with
#     pam_realtime and, as the baseline, without it (p50/p99 wall time of
#     pamtester, interleaved);
#   - realtimed's grant round trip: MakeThreadRealtime fifo 70 of
#     $BENCH_LOGINS distinct random audio members of each, each from its own
#     process (bench/directory-bench.c), so that none is answered from
#     realtimed's per-user cache (p50/p99);
#   - realtimed's VmRSS and VmHWM with 2,048 directory users each holding
#     one granted (sleeping) thread, in 2,048 processes.
# BENCH_HOLD=N and BENCH_HOLD_BASE=300000 (the files users) change the
# holders; BENCH_LOGINS=N the sample size; BENCH_NO_RESULTS=1 leaves
# RESULTS.md alone. It writes the "Directory users (LDAP) against files" section of
# bench/RESULTS.md. Nothing runs away: every granted thread sleeps.

: "${TOP_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
if [ -n "$1" ]; then
	TOP_BUILDDIR=$(cd "$1" && pwd)
fi
: "${TOP_BUILDDIR:=$TOP_SRCDIR/build}"
export TOP_SRCDIR TOP_BUILDDIR
N_USERS=10000
N_GROUPS=1000
N_AUDIO=2000
N_HOLD=${BENCH_HOLD:-2048}
BENCH_LOGINS=${BENCH_LOGINS:-200}

# shellcheck source=tests/integration/pam-lib.sh
. "$TOP_SRCDIR/tests/integration/pam-lib.sh"
# shellcheck source=tests/integration/lib.sh
. "$TOP_SRCDIR/tests/integration/lib.sh"
# shellcheck source=tests/integration/directory-lib.sh
. "$TOP_SRCDIR/tests/integration/directory-lib.sh"
integ_enter "$@"
integ_require_daemon
dir_require
integ_require_cmd cc pkg-config pamtester shuf
[ -f "$PAM_MODULE" ] || skip "pam_realtime.so is not built ($PAM_MODULE)"
T_START=$(date +%s)
# 2,048 clients of the private bus, each a user of its own (read by integ_setup)
# shellcheck disable=SC2034
INTEG_BUS_EXTRA='<limit name="max_completed_connections">16384</limit>
  <limit name="max_connections_per_user">16384</limit>
  <limit name="max_incomplete_connections">1024</limit>'
integ_setup
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)

CLIENT=$WORK/directory-bench
# shellcheck disable=SC2046
cc -O2 -std=gnu11 -D_GNU_SOURCE -I"$TOP_SRCDIR/common" $(pkg-config --cflags dbus-1) \
	"$TOP_SRCDIR/bench/directory-bench.c" -o "$CLIENT" $(pkg-config --libs dbus-1) -lpthread ||
	skip "cannot build bench/directory-bench.c"

U_DIR=200000 U_FILES=300000 G_DIR_AUDIO=250029
awk -F: '$3 >= 200000 && $3 < 310000 { print; f = 1 } END { exit f }' /etc/passwd /etc/group >/dev/null ||
	skip "/etc uses ids in 200000..309999, which the bench's users need"

# --- the two populations --------------------------------------------------
# user i is in groups i % 1000 and (7i + 3) % 1000, and in audio for i < 2000
note "writing $N_USERS users and $N_GROUPS groups, twice"
awk -v n=$N_USERS -v base=$U_FILES 'BEGIN {
	for (i = 0; i < n; i++)
		printf "fu%05d:x:%d:100:files bench user:/nonexistent:/bin/sh\n", i, base + i }' >>"$WORK/etc/passwd"
awk -v n=$N_USERS -v g=$N_GROUPS -v base=$U_FILES 'BEGIN {
	for (i = 0; i < n; i++) {
		a = i % g; b = (7 * i + 3) % g
		m[a] = m[a] (m[a] == "" ? "" : ",") sprintf("fu%05d", i)
		if (b != a) m[b] = m[b] (m[b] == "" ? "" : ",") sprintf("fu%05d", i)
	}
	for (j = 0; j < g; j++)
		printf "fg%04d:x:%d:%s\n", j, base + j, m[j] }' >>"$WORK/etc/group"
members=$(awk -v n=$N_AUDIO 'BEGIN { for (i = 0; i < n; i++) printf "%sfu%05d", i ? "," : "", i }')
awk -F: -v OFS=: -v m="$members" '$1 == "audio" { $4 = ($4 == "" ? "" : $4 ",") m } { print }' \
	"$WORK/etc/group" >"$WORK/group.new" && cat "$WORK/group.new" >"$WORK/etc/group"

{
	dir_ldif_base
	awk -v n=$N_USERS -v base=$U_DIR -v s="$DIR_SUFFIX" 'BEGIN {
		for (i = 0; i < n; i++) {
			u = sprintf("du%05d", i)
			printf "dn: uid=%s,ou=people,%s\nobjectClass: account\nobjectClass: posixAccount\n", u, s
			printf "uid: %s\ncn: %s\nuidNumber: %d\ngidNumber: 100\n", u, u, base + i
			printf "homeDirectory: /nonexistent\nloginShell: /bin/sh\n\n"
		} }'
	awk -v n=$N_USERS -v g=$N_GROUPS -v base=$U_DIR -v s="$DIR_SUFFIX" 'BEGIN {
		for (i = 0; i < n; i++) {
			a = i % g; b = (7 * i + 3) % g
			m[a] = m[a] sprintf("memberUid: du%05d\n", i)
			if (b != a) m[b] = m[b] sprintf("memberUid: du%05d\n", i)
		}
		for (j = 0; j < g; j++)
			printf "dn: cn=dg%04d,ou=groups,%s\nobjectClass: posixGroup\ncn: dg%04d\ngidNumber: %d\n%s\n",
				j, s, j, base + j, m[j] }'
	awk -v n=$N_AUDIO -v gid=$G_DIR_AUDIO -v s="$DIR_SUFFIX" 'BEGIN {
		printf "dn: cn=audio,ou=groups,%s\nobjectClass: posixGroup\ncn: audio\ngidNumber: %d\n", s, gid
		for (i = 0; i < n; i++) printf "memberUid: du%05d\n", i
		printf "\n" }'
} >"$WORK/directory.ldif"
t0=$(date +%s)
dir_start "$WORK/directory.ldif"
note "directory loaded and served in $(($(date +%s) - t0)) s"

id du01234 | grep -q "(audio)" || skip "du01234 is not in the directory's audio: $(id du01234 2>&1)"
id fu01234 | grep -q '(audio)' || skip "fu01234 is not in /etc's audio: $(id fu01234 2>&1)"
note "id du01234: $(id du01234)"

# p50/p99/max of the numbers on stdin
pct()
{
	sort -n | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "n=0"; exit }
		i50 = int((NR - 1) * 50 / 100) + 1; i99 = int((NR - 1) * 99 / 100) + 1
		printf "n=%d p50=%s p99=%s max=%s\n", NR, v[i50], v[i99], v[NR] }'
}
field()
{
	# LINE KEY
	printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# --- PAM sessions ---------------------------------------------------------
PAM_POLICY=$WORK/pam-policy.conf
# values within this host's hard limits, so that every session applies them
cat >"$PAM_POLICY" <<'EOF'
[Group audio]
RealtimePriority=0
MemLock=4M
RTTime=200ms
EOF
cp -a /etc/pam.d "$WORK/pam.d"
mount --bind "$WORK/pam.d" /etc/pam.d || skip "cannot bind-mount over /etc/pam.d"
printf 'auth required pam_permit.so\naccount required pam_permit.so\nsession optional %s conf=%s\n' \
	"$PAM_MODULE" "$PAM_POLICY" >/etc/pam.d/rt-bench
printf 'auth required pam_permit.so\naccount required pam_permit.so\nsession optional pam_permit.so\n' \
	>/etc/pam.d/rt-bench-base
printf 'auth required pam_permit.so\naccount required pam_permit.so\nsession optional %s conf=%s\nsession optional pam_exec.so quiet log=%s /bin/cat /proc/self/limits\n' \
	"$PAM_MODULE" "$PAM_POLICY" "$WORK/limits.out" >/etc/pam.d/rt-bench-check
for u in du01234 fu01234; do
	: >"$WORK/limits.out"
	pamtester rt-bench-check $u open_session close_session >/dev/null 2>&1
	grep -q '^Max locked memory *4194304 ' "$WORK/limits.out" ||
		skip "pam_realtime did not give $u [Group audio]'s MemLock=4M: $(grep locked "$WORK/limits.out")"
done

ms()
{
	_t0=$(date +%s%N)
	"$@" >/dev/null 2>&1
	echo $((($(date +%s%N) - _t0) / 1000))
}
note "PAM: $BENCH_LOGINS logins of random audio members, directory and files, with and without pam_realtime"
: >"$WORK/pam.t"
for i in $(shuf -i 0-$((N_AUDIO - 1)) -n "$BENCH_LOGINS"); do
	u=$(printf '%05d' "$i")
	echo "dir $(ms pamtester rt-bench du$u open_session close_session)" >>"$WORK/pam.t"
	echo "files $(ms pamtester rt-bench fu$u open_session close_session)" >>"$WORK/pam.t"
	echo "dir-base $(ms pamtester rt-bench-base du$u open_session close_session)" >>"$WORK/pam.t"
	echo "files-base $(ms pamtester rt-bench-base fu$u open_session close_session)" >>"$WORK/pam.t"
done
pam_pct()
{
	awk -v k="$1" '$1 == k { print $2 }' "$WORK/pam.t" | pct
}
PAM_dir=$(pam_pct dir)
PAM_files=$(pam_pct files)
PAM_dir_base=$(pam_pct dir-base)
PAM_files_base=$(pam_pct files-base)
note "pamtester us: dir $PAM_dir; files $PAM_files; dir-base $PAM_dir_base; files-base $PAM_files_base"

# --- grant round trips ----------------------------------------------------
integ_admin_conf <<-EOF
	[Daemon]
	# every bench user is granted by policy; none waits for polkit
	Polkit=no

	[Group audio]
	RealtimePriority=70
	Policies=fifo rr
EOF
INTEG_DAEMON_DEBUG='' integ_start_daemon
# 2 rounds, directory and files alternating, distinct members throughout
shuf -i 0-$((N_AUDIO - 1)) -n $((4 * BENCH_LOGINS)) >"$WORK/grant.idx"
uids()
{
	# BASE ROUND(0..3)
	sed -n "$(($2 * BENCH_LOGINS + 1)),$((($2 + 1) * BENCH_LOGINS))p" "$WORK/grant.idx" |
		awk -v b="$1" '{ print b + $1 }' | tr '\n' ' '
}
note "grants: $BENCH_LOGINS distinct users per run, each its own process"
# shellcheck disable=SC2046
G_DIR1=$("$CLIENT" grant fifo 70 $(uids $U_DIR 0))
# shellcheck disable=SC2046
G_FILES1=$("$CLIENT" grant fifo 70 $(uids $U_FILES 1))
# shellcheck disable=SC2046
G_FILES2=$("$CLIENT" grant fifo 70 $(uids $U_FILES 2))
# shellcheck disable=SC2046
G_DIR2=$("$CLIENT" grant fifo 70 $(uids $U_DIR 3))
note "directory: $G_DIR1 / $G_DIR2"
note "files:     $G_FILES1 / $G_FILES2"
integ_stop_daemon

# --- 2,048 users holding a grant -----------------------------------------
INTEG_DAEMON_DEBUG='' integ_start_daemon
sleep 1
mem()
{
	awk '/^VmRSS/ { r = $2 } /^VmHWM/ { h = $2 } END { printf "VmRSS=%d VmHWM=%d", r, h }' "/proc/$DAEMON_PID/status"
}
MEM_IDLE=$(mem)
rm -f "$WORK/hold.in"
mkfifo "$WORK/hold.in"
# shellcheck disable=SC2046
"$CLIENT" hold rr 10 $(awk -v n="$N_HOLD" -v b="${BENCH_HOLD_BASE:-$U_DIR}" 'BEGIN { for (i = 0; i < n; i++) print b + i }') \
	<>"$WORK/hold.in" >"$WORK/hold.out" 2>&1 &
HOLD_PID=$!
integ_track $HOLD_PID
exec 7<>"$WORK/hold.in"
wait_for 600 grep -q '^hold' "$WORK/hold.out"
HOLD=$(cat "$WORK/hold.out")
sleep 1
MEM_HOLD=$(mem)
# ListAllGrants names each grant's user (NSS, the directory here): how
# long it takes with 2,048 directory users, and how long a Peer.Ping sent
# 1 s into it waits
t0=$(date +%s%N)
dbus-send --system --print-reply --reply-timeout=600000 --dest=$NATIVE_NAME $NATIVE_PATH \
	$NATIVE_IFACE.ListAllGrants >"$WORK/grants.out" 2>&1 &
LIST_PID=$!
sleep 1
PING_MS=$(($(ms dbus-send --system --print-reply --reply-timeout=600000 --dest=$NATIVE_NAME $NATIVE_PATH \
	org.freedesktop.DBus.Peer.Ping) / 1000))
wait $LIST_PID
LIST_MS=$((($(date +%s%N) - t0) / 1000000))
N_GRANTS=$(grep -c "^ *struct {" "$WORK/grants.out")
[ "$N_GRANTS" -gt 0 ] || note "ListAllGrants: $(head -c 300 "$WORK/grants.out")"
note "ListAllGrants: $N_GRANTS grants in $LIST_MS ms; a Ping sent 1 s into it took $PING_MS ms"
# A reload drops realtimed's cache of users: every holder is looked up
# again, off the loop and a few at a time; none may be demoted (each is in
# the directory's audio), and a Ping answers meanwhile.
N_DEMOTED0=$(grep -c "Demoted thread" "$WORK/realtimed.log")
RELOAD_MS=$(($(ms dbus-send --system --print-reply --dest=$NATIVE_NAME $NATIVE_PATH \
	$NATIVE_IFACE.Reload) / 1000))
PING2_MS=$(($(ms dbus-send --system --print-reply --dest=$NATIVE_NAME $NATIVE_PATH \
	org.freedesktop.DBus.Peer.Ping) / 1000))
sleep 20
dbus-send --system --print-reply --reply-timeout=600000 --dest=$NATIVE_NAME $NATIVE_PATH \
	$NATIVE_IFACE.ListAllGrants >"$WORK/grants2.out" 2>&1
N_AFTER_RELOAD=$(grep -c "^ *struct {" "$WORK/grants2.out")
N_DEMOTED=$(($(grep -c "Demoted thread" "$WORK/realtimed.log") - N_DEMOTED0))
note "Reload answered in $RELOAD_MS ms, a Ping after it in $PING2_MS ms; 20 s later $N_AFTER_RELOAD grants, $N_DEMOTED demoted"
FDS=$(ls "/proc/$DAEMON_PID/fd" | wc -l)
note "$HOLD; realtimed idle $MEM_IDLE, holding $MEM_HOLD, $N_GRANTS grants listed, $FDS fds"
echo quit >&7
exec 7>&-
wait $HOLD_PID 2>/dev/null
integ_untrack $HOLD_PID
sleep 1
MEM_AFTER=$(mem)
integ_stop_daemon
T_RUN=$(($(date +%s) - T_START))

# --- report -----------------------------------------------------------------
us2ms()
{
	awk -v v="$1" 'BEGIN { printf "%.2f", v / 1000 }'
}
grant_row()
{
	# RUN DIRECTORY_LINE FILES_LINE
	echo "| realtimed grant fifo 70, run $1 (each user's first request) | $(us2ms "$(field "$2" p50_us)") ms | $(us2ms "$(field "$2" p99_us)") ms | $(us2ms "$(field "$3" p50_us)") ms | $(us2ms "$(field "$3" p99_us)") ms |"
}
cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)
bdir=$(basename "$TOP_BUILDDIR")
buildtype=$(python3 -c 'import json, sys; print(next(o["value"] for o in json.load(open(sys.argv[1])) if o["name"] == "buildtype"))' \
	"$TOP_BUILDDIR/meson-info/intro-buildoptions.json" 2>/dev/null) || buildtype=unknown
{
	echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) CPUs ($cpu), kernel $(uname -r),"
	echo "slapd $(dpkg-query -W -f='${Version}' slapd 2>/dev/null), nslcd $(dpkg-query -W -f='${Version}' nslcd 2>/dev/null), realtimed $(git -C "$TOP_SRCDIR" describe --always --dirty 2>/dev/null) ($buildtype build);"
	echo "load average when it started: $LOAD0; the whole run took $T_RUN s."
	echo "$N_USERS users and $N_GROUPS groups in the directory (slapd, mdb, ldapi socket; nslcd with no"
	echo "cache) and the same in the private /etc/passwd and group; audio has $N_AUDIO members in each."
	echo
	echo '```'
	echo "sudo bench/directory-bench.sh $bdir"
	echo '```'
	echo
	echo "pam_realtime's own cost is a row's difference to the baseline (pamtester with"
	echo "pam_permit alone): one getpwnam and one getgrouplist, plus the names of the user's"
	echo "groups. Each grant is the user's first (a process of its own per user), so"
	echo "realtimed resolves the uid and its groups through NSS on every one. Other work"
	echo "on the shared machine shows in the p99s (compare the load average above)."
	echo
	echo "| $BENCH_LOGINS random audio members | directory p50 | p99 | files p50 | p99 |"
	echo "|---|---|---|---|---|"
	echo "| pamtester open+close, with pam_realtime | $(us2ms "$(field "$PAM_dir" p50)") ms | $(us2ms "$(field "$PAM_dir" p99)") ms | $(us2ms "$(field "$PAM_files" p50)") ms | $(us2ms "$(field "$PAM_files" p99)") ms |"
	echo "| pamtester open+close, without (baseline) | $(us2ms "$(field "$PAM_dir_base" p50)") ms | $(us2ms "$(field "$PAM_dir_base" p99)") ms | $(us2ms "$(field "$PAM_files_base" p50)") ms | $(us2ms "$(field "$PAM_files_base" p99)") ms |"
	grant_row 1 "$G_DIR1" "$G_FILES1"
	grant_row 2 "$G_DIR2" "$G_FILES2"
	echo
	echo "realtimed with $N_HOLD directory users each holding one granted thread (one"
	echo "process each, started one after another: $(field "$HOLD" granted) granted, $(field "$HOLD" refused) refused, in $(field "$HOLD" secs) s;"
	echo "$N_GRANTS grants listed by ListAllGrants in $LIST_MS ms, during which a Peer.Ping sent 1 s"
	echo "in waited $PING_MS ms; a Reload, which drops realtimed's cache of users, answered in"
	echo "$RELOAD_MS ms and a Ping after it in $PING2_MS ms, and 20 s later $N_AFTER_RELOAD grants were"
	echo "listed and $N_DEMOTED threads demoted): idle $(field "$MEM_IDLE" VmRSS) KiB resident;"
	echo "holding, VmRSS $(field "$MEM_HOLD" VmRSS) KiB and VmHWM $(field "$MEM_HOLD" VmHWM) KiB ($FDS fds);"
	echo "after they all exited, VmRSS $(field "$MEM_AFTER" VmRSS) KiB."
	echo
	echo "Raw: PAM (us) dir $PAM_dir; files $PAM_files; dir-base $PAM_dir_base; files-base $PAM_files_base."
	echo "Grants: dir $G_DIR1 / $G_DIR2; files $G_FILES1 / $G_FILES2. $HOLD."
} >"$WORK/section.md"
cat "$WORK/section.md"
if [ -z "$BENCH_NO_RESULTS" ]; then
	python3 "$TOP_SRCDIR/bench/results-section.py" "$TOP_SRCDIR/bench/RESULTS.md" \
		"Directory users (LDAP) against files" "$WORK/section.md" ||
		echo "could not update bench/RESULTS.md" >&2
fi
exit 0
