#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A crowd of uids takes no one's place. 4200 uids that realtimed knows no
# user of (one person's /etc/subuid range) each ask realtimed once from a
# pid namespace below realtimed's, naming another process there: realtimed
# searches for it before it looks at any policy, and refuses each
# (NoSuchProcess). Past them, rtalice, who never asked anything, is still
# granted, rtaudio's refusal from before the crowd (of rtalice's thread,
# before any policy: kept once the resolver has said rtaudio is a user) is
# still listed, none of the crowd's refusals is kept, and their journal
# lines share one pace.
#
# dbus-daemon refuses a uid that NSS does not know (other buses take any
# uid): the crowd is in the passwd file that dbus-daemon reads, and
# realtimed runs in a mount namespace of its own, over the passwd file of
# before the crowd (as test-nss-hang.sh gives it an NSS of its own).
# shellcheck source=tests/integration/lib.sh
. "$TOP_SRCDIR/tests/integration/lib.sh"

integ_require_daemon
integ_enter "$@"
integ_setup

LOG_ID_REFUSED=5b8b2c1e0c7a4d3f9a1e6d2b7c4f8a07
CROWD_FIRST=200000
CROWD_N=4200

cp "$WORK/etc/passwd" "$WORK/passwd-realtimed"
cat >"$WORK/realtimed-own-passwd" <<EOF
#!/bin/sh
# realtimed (the same pid, through exec) over the passwd file of before the crowd
exec unshare -m --propagation private -- /bin/sh -c \\
	'mount --bind "\$0" /etc/passwd && exec "\$@"' "$WORK/passwd-realtimed" "$REALTIMED" "\$@"
EOF
chmod 755 "$WORK/realtimed-own-passwd"
# appended in place: /etc/passwd is bound to this very file
i=0
while [ $i -lt $CROWD_N ]; do
	echo "crowd$i:x:$((CROWD_FIRST + i)):$((CROWD_FIRST + i))::/nonexistent:/bin/false"
	i=$((i + 1))
done >>"$WORK/etc/passwd"

# every crowd member's count lasts the whole test
integ_admin_conf <<-EOF
	[Daemon]
	BurstSec=600
EOF
REALTIMED=$WORK/realtimed-own-passwd integ_start_daemon

holder_start rtalice 1 || finish
alice_pid=$HOLDER_PID alice_tid=$(holder_tid 1)

echo "# rtaudio is refused once, before the crowd and before any policy"
# (the resolver is asked about rtaudio for the refusal alone)
out=$(native --as rtaudio MakeThreadRealtime uint64:"$alice_pid" uint64:"$alice_tid" string:fifo uint32:10)
expect_error "rtalice's thread is refused to rtaudio" "$NATIVE_ERR.PermissionDenied" "names no process of the caller" "$out"

echo "# the crowd: $CROWD_N uids, each searched for before any policy"
start=$(date +%s)
crowd=$("$RT_CLIENT" crowd $CROWD_FIRST $CROWD_N --jobs 8 2>"$WORK/crowd.err")
rc=$?
note "crowd: $(echo $crowd) in $(($(date +%s) - start)) s"
[ -s "$WORK/crowd.err" ] && note "$(head -n 5 "$WORK/crowd.err")"
check_eq "rt-client crowd ran each member" 0 "$rc"
check_eq "each member was refused NoSuchProcess, none RateLimited" \
	"$NATIVE_ERR.NoSuchProcess $CROWD_N" "$crowd"

echo "# rtalice, who never asked, is granted"
out=$(native --as rtalice MakeThreadRealtime uint64:"$alice_pid" uint64:"$alice_tid" string:fifo uint32:10)
expect_success "rtalice's first grant after the crowd" "$out"
check_eq "the kernel shows rtalice's thread FIFO 10" "1 10" "$(sched_of "$alice_tid")"

echo "# the refusals kept"
out=$(run_as rtaudio "$REALTIMECTL" status --refused 2>&1)
case "$out" in
*"asked FIFO 10"*) ok "rtaudio's refusal from before the crowd is still listed" ;;
*) fail "rtaudio's refusal is gone: $out" ;;
esac
out=$("$REALTIMECTL" --json status --refused --all 2>&1)
n=$(printf '%s' "$out" | grep -o '"uid": *2[0-9]\{5\}' | grep -c .)
check_eq "no refusal of a uid realtimed knows no user of is kept" 0 "$n"

echo "# the log: the crowd's lines share one pace"
n=$(grep "MESSAGE_ID=$LOG_ID_REFUSED" "$WORK/realtimed.log" | grep -c "REALTIMED_UID=2[0-9]\{5\}")
if [ "$n" -ge 1 ] && [ "$n" -le 12 ]; then
	ok "the crowd's $CROWD_N refusals took $n lines of the log"
else
	fail "the crowd's refusals took $n lines of the log"
fi

holder_stop
finish
