#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# pam_realtime vs pam_limits: the cost of one pam_open_session() for a user
# in audio, both with a 1,000-rule policy that says the same thing, as a
# ratio measured in one run (bench/pam-bench.c).
#
#   realtime.conf: 899 [User benchuNNN], 100 [Group benchgNN] (existing,
#                  empty groups) and [Group audio], each with
#                  RealtimePriority=, MemLock= (and Nice= where possible)
#   limits.conf:   the same 1,000 rules as pam_limits lines (benchuNNN,
#                  @benchgNN, @audio), one line per limit
#
# The rule that matches comes last, in both. The values are the process's
# current hard limits, so no CAP_SYS_RESOURCE is needed and both modules
# make the same setrlimit() calls; pam-bench checks after every session that
# the module really applied them. Runs as root in a private mount
# namespace with the test users of tests/integration/pam-lib.sh.
#
# usage: bench/pam-bench.sh [BUILDDIR] [ROUNDS [SESSIONS]]
# PAM_BENCH_GROUPS=N (0..999, default 100) changes how many of the 999
# other rules are group rules; the rest are user rules. PAM_BENCH_USERS=N
# instead of the rest gives a smaller policy (PAM_BENCH_GROUPS=0
# PAM_BENCH_USERS=0: the matching rule alone, the fixed cost of a session).
here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
TOP_SRCDIR=${TOP_SRCDIR:-$(dirname "$here")}
TOP_BUILDDIR=${1:-${TOP_BUILDDIR:-$TOP_SRCDIR/build}}
TOP_BUILDDIR=$(readlink -f "$TOP_BUILDDIR")
export TOP_SRCDIR TOP_BUILDDIR
rounds=${2:-15}
sessions=${3:-200}
groups=${PAM_BENCH_GROUPS:-100}
users=${PAM_BENCH_USERS:-$((999 - groups))}

# shellcheck source=tests/integration/pam-lib.sh
. "$TOP_SRCDIR/tests/integration/pam-lib.sh"

[ "$(id -u)" = 0 ] || skip "run as root: the bench bind-mounts test users over /etc/passwd in a private namespace"
[ -f "$PAM_MODULE" ] || skip "pam_realtime.so is not built: $PAM_MODULE"
limits_so=$(find /lib /usr/lib -name pam_limits.so -path '*security*' 2>/dev/null | head -n 1)
[ -n "$limits_so" ] || skip "pam_limits.so not found (libpam-modules)"
command -v cc >/dev/null 2>&1 || skip "no C compiler (cc)"
if [ -z "$PAM_IN_NAMESPACE" ]; then
	# shellcheck disable=SC2093 # the skip below is for when exec fails
	PAM_BENCH_GROUPS=$groups PAM_BENCH_USERS=$users PAM_IN_NAMESPACE=1 exec unshare -m --propagation private -- /bin/sh "$(readlink -f "$0")" "$TOP_BUILDDIR" "$rounds" "$sessions"
	skip "unshare -m failed"
fi
pam_setup

i=0
while [ $i -lt "$groups" ]; do
	printf 'benchg%03d:x:%d:\n' $i $((5000 + i))
	i=$((i + 1))
done >>"$WORK/etc/group"

rtprio=$(awk '/^Max realtime priority/ { print $5 }' /proc/self/limits)
memlock=$(awk '/^Max locked memory/ { print $5 }' /proc/self/limits)
nice=$(awk '/^Max nice priority/ { print $5 }' /proc/self/limits)
[ "$rtprio" = unlimited ] && rtprio=99
if [ "$memlock" = unlimited ]; then
	memlock_rt=infinity memlock_lim=unlimited
else
	memlock=$((memlock / 1024 * 1024))
	memlock_rt=$memlock memlock_lim=$((memlock / 1024))
fi
# RLIMIT_NICE 0 cannot be written as a Nice= level (-20..19 is 40..1).
use_nice=no
if [ "$nice" != unlimited ] && [ "$nice" -ge 1 ] && [ "$nice" -le 40 ]; then
	use_nice=yes
fi

rule_rt()
{
	printf '[%s]\nRealtimePriority=%s\nMemLock=%s\n' "$1" "$rtprio" "$memlock_rt"
	[ $use_nice = yes ] && printf 'Nice=%d\n' $((20 - nice))
	echo
}
rule_lim()
{
	printf '%s - rtprio %s\n%s - memlock %s\n' "$1" "$rtprio" "$1" "$memlock_lim"
	[ $use_nice = yes ] && printf '%s - nice %d\n' "$1" $((20 - nice))
}
{
	printf '[Daemon]\nPolkit=yes\n\n'
	i=0
	while [ $i -lt "$users" ]; do
		rule_rt "User benchu$(printf %03d $i)"
		i=$((i + 1))
	done
	i=0
	while [ $i -lt "$groups" ]; do
		rule_rt "Group benchg$(printf %03d $i)"
		i=$((i + 1))
	done
	rule_rt "Group audio"
} >"$WORK/realtime.conf"
{
	i=0
	while [ $i -lt "$users" ]; do
		rule_lim "benchu$(printf %03d $i)"
		i=$((i + 1))
	done
	i=0
	while [ $i -lt "$groups" ]; do
		rule_lim "@benchg$(printf %03d $i)"
		i=$((i + 1))
	done
	rule_lim "@audio"
} >"$WORK/limits.conf"

mkdir "$WORK/pam.d"
echo "session required $PAM_MODULE conf=$WORK/realtime.conf" >"$WORK/pam.d/pam_realtime"
echo "session required $limits_so conf=$WORK/limits.conf" >"$WORK/pam.d/pam_limits"
for t in auth account password session; do
	echo "$t required pam_deny.so"
done >"$WORK/pam.d/other"

cc -O2 -o "$WORK/pam-bench" "$TOP_SRCDIR/bench/pam-bench.c" -lpam || skip "cannot build bench/pam-bench.c (libpam0g-dev)"

echo "# $(grep -c '^\[' "$WORK/realtime.conf") sections in realtime.conf ($((users + groups + 1)) rules + [Daemon]),"
echo "# $(wc -l <"$WORK/limits.conf") lines in limits.conf (the same $((users + groups + 1)) rules);"
echo "# values: rtprio $rtprio, memlock $memlock_rt, nice $([ $use_nice = yes ] && echo "RLIMIT_NICE $nice" || echo "not set (hard limit 0)")"
echo "# $users user rules, $((groups + 1)) group rules, the matching one ([Group audio], @audio) last"
echo "# user rtaudio (member of audio); $(nproc) CPUs; $(uname -r)"
"$WORK/pam-bench" "$WORK/pam.d" rtaudio pam_realtime pam_limits "$rounds" "$sessions"
