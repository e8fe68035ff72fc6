#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# realtime.ko's exec-time grant, in a real kernel as real root: a member of
# the configured group gets CAP_SYS_NICE (+ CAP_IPC_LOCK, CAP_SYS_RESOURCE
# with mlock=1) at exec and can run `chrt -f 50 true`; a non-member can't;
# mlock=0 withholds the memory caps, mlock=2 gives CAP_IPC_LOCK without
# CAP_SYS_RESOURCE; any=1 covers everyone; a ptraced or
# no_new_privs exec gets nothing; a granted exec is AT_SECURE; bad sysctl
# and parameter writes are refused; unload leaves no trace. What those
# capabilities let a member do to other processes is kmod-security.sh.
# shellcheck source=tests/vm/lib.sh
. "$TOP_SRCDIR/tests/vm/lib.sh"

ko=${RT_KO:-}	# the build's realtime.ko for this kernel (run-vm.sh)
[ -f "$ko" ] || skip "realtime.ko is not built for $(uname -r) (-Dkmod=disabled or no linux-headers-$(uname -r))"
command -v python3 >/dev/null || skip "python3 missing (the ptrace check needs it)"
add_test_users

sysdir=/proc/sys/security/realtime
NICE=0000000000800000		# CAP_SYS_NICE (23)
NICE_IPC=0000000000804000	# + CAP_IPC_LOCK (14)
ALL=0000000001804000		# + CAP_SYS_RESOURCE (24)
NONE=0000000000000000

# traced COMMAND...: run COMMAND under ptrace (PTRACE_TRACEME, then just
# continue it through every stop), as a debugger would; exit with its status.
traced()
{
	python3 -c '
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
pid = os.fork()
if pid == 0:
    libc.ptrace(0, 0, None, None)          # PTRACE_TRACEME
    os.execvp(sys.argv[1], sys.argv[1:])
_, st = os.waitpid(pid, 0)
while os.WIFSTOPPED(st):
    sig = os.WSTOPSIG(st)
    libc.ptrace(7, pid, None, 0 if sig == 5 else sig)   # PTRACE_CONT
    _, st = os.waitpid(pid, 0)
sys.exit(os.WEXITSTATUS(st) if os.WIFEXITED(st) else 1)
' "$@"
}

# AT_SECURE (auxv type 23) of an exec'd od: 1 when the exec raised privileges.
at_secure()
{
	"$@" od -An -v -t u8 -w16 /proc/self/auxv | awk '$1 == 23 { print $2 }'
}

echo "# without realtime.ko"
check "audio member is refused SCHED_FIFO without the module" \
	sh -c '! as rtaudio chrt -f 50 true 2>/dev/null'
check_eq "audio member has no capabilities" "$NONE" "$(capeff_of_exec as rtaudio)"

echo "# bad module parameters are refused"
check "insmod any=2 fails" sh -c "! insmod '$ko' any=2 2>/dev/null"
check "insmod gid=-2 fails" sh -c "! insmod '$ko' gid=-2 2>/dev/null"
check "insmod mlock=3 fails" sh -c "! insmod '$ko' mlock=3 2>/dev/null"
check "module not left loaded" sh -c '! grep -q "^realtime " /proc/modules'

echo "# loaded with gid=29 (audio)"
check "insmod gid=29" insmod "$ko" gid=29
check_eq "sysctl any default" 0 "$(cat $sysdir/any)"
check_eq "sysctl gid" 29 "$(cat $sysdir/gid)"
check_eq "sysctl mlock default" 1 "$(cat $sysdir/mlock)"
check_eq "module parameter gid" 29 "$(cat /sys/module/realtime/parameters/gid)"
grants0=$(cat $sysdir/grants)

check "audio member runs chrt -f 50 true" as rtaudio chrt -f 50 true
check_eq "audio member's CapEff after exec" "$ALL" "$(capeff_of_exec as rtaudio)"
check_eq "granted exec is AT_SECURE" 1 "$(at_secure as rtaudio)"
check "grants counter went up" test "$(cat $sysdir/grants)" -gt "$grants0"
check_eq "supplementary-group-only member (rtalice) gets the caps" "$ALL" \
	"$(capeff_of_exec setpriv --reuid=4103 --regid=4103 --groups=29 --inh-caps=-all --)"
check_eq "primary-group member gets the caps" "$ALL" \
	"$(capeff_of_exec setpriv --reuid=4102 --regid=29 --clear-groups --inh-caps=-all --)"
check "non-member is refused SCHED_FIFO" sh -c '! as rtplain chrt -f 50 true 2>/dev/null'
check_eq "non-member's CapEff" "$NONE" "$(capeff_of_exec as rtplain)"
check_eq "non-member's exec is not AT_SECURE" 0 "$(at_secure as rtplain)"
root_grants=$(cat $sysdir/grants)
true
check_eq "root's exec (caps did not grow) is not counted" "$root_grants" "$(cat $sysdir/grants)"

echo "# the kernel's exec rules"
check_eq "no_new_privs exec gets nothing" "$NONE" \
	"$(capeff_of_exec as rtaudio setpriv --no-new-privs --)"
check "no_new_privs member is refused SCHED_FIFO" \
	sh -c '! as rtaudio setpriv --no-new-privs -- chrt -f 50 true 2>/dev/null'
check_eq "ptraced exec gets nothing" "$NONE" "$(capeff_of_exec traced setpriv --reuid=4101 \
	--regid=4101 --init-groups --inh-caps=-all --)"
check_eq "untraced, the same command gets the caps" "$ALL" "$(capeff_of_exec setpriv --reuid=4101 \
	--regid=4101 --init-groups --inh-caps=-all --)"
traced_chrt_refused()
{
	! traced setpriv --reuid=4101 --regid=4101 --init-groups --inh-caps=-all -- \
		chrt -f 50 true 2>/dev/null
}
check "ptraced member is refused SCHED_FIFO" traced_chrt_refused
check_eq "bounding set is respected" "0000000001004000" \
	"$(capeff_of_exec setpriv --bounding-set=-sys_nice --reuid=4101 --regid=4101 --init-groups --inh-caps=-all --)"

echo "# mlock=0"
check "write mlock=0" sh -c "echo 0 >$sysdir/mlock"
check_eq "audio member gets CAP_SYS_NICE only" "$NICE" "$(capeff_of_exec as rtaudio)"
check "audio member still runs chrt -f 50 true" as rtaudio chrt -f 50 true

echo "# mlock=2"
check "write mlock=2" sh -c "echo 2 >$sysdir/mlock"
check_eq "audio member gets CAP_SYS_NICE and CAP_IPC_LOCK, not CAP_SYS_RESOURCE" "$NICE_IPC" \
	"$(capeff_of_exec as rtaudio)"
check_eq "module parameter mlock follows the sysctl" 2 "$(cat /sys/module/realtime/parameters/mlock)"
echo 1 >$sysdir/mlock

echo "# any=1"
check "write any=1" sh -c "echo 1 >$sysdir/any"
check_eq "non-member gets the caps with any=1" "$ALL" "$(capeff_of_exec as rtplain)"
check "non-member runs chrt -f 50 true with any=1" as rtplain chrt -f 50 true
echo 0 >$sysdir/any
check "write gid=-1" sh -c "echo -1 >$sysdir/gid"
check_eq "nobody gets caps with any=0 gid=-1" "$NONE" "$(capeff_of_exec as rtaudio)"
echo 29 >$sysdir/gid

echo "# bad sysctl writes are refused and change nothing"
for bad in "any 2" "any -1" "any x" "mlock 3" "mlock -1" "mlock 5" "gid -2" "gid 2147483648" "gid abc"; do
	set -- $bad
	before=$(cat $sysdir/$1)
	check "write $2 to $1 is refused" sh -c "! echo '$2' >$sysdir/$1 2>/dev/null"
	check_eq "$1 unchanged after writing $2" "$before" "$(cat $sysdir/$1)"
done
check "grants is read-only" sh -c "! echo 0 >$sysdir/grants 2>/dev/null"
check "missed is read-only" sh -c "! echo 0 >$sysdir/missed 2>/dev/null"
check "parameter write out of range refused" \
	sh -c '! echo 7 >/sys/module/realtime/parameters/any 2>/dev/null'
check "mlock parameter write out of range refused" \
	sh -c '! echo 3 >/sys/module/realtime/parameters/mlock 2>/dev/null'
check_eq "no probe hit was missed" 0 "$(cat $sysdir/missed)"

echo "# many concurrent execs"
i=0
while [ $i -lt 8 ]; do
	as rtaudio sh -c 'n=0; while [ $n -lt 20 ]; do /bin/true; n=$((n + 1)); done' &
	i=$((i + 1))
done
wait
check_eq "still no missed probe hits" 0 "$(cat $sysdir/missed)"

echo "# unload"
if [ -r /sys/kernel/debug/kprobes/list ]; then
	check "probes registered while loaded" grep -q security_bprm_creds_from_file /sys/kernel/debug/kprobes/list
fi
check "rmmod realtime" rmmod realtime
check "sysctl directory gone" test ! -e $sysdir
check "/proc/realtime gone" test ! -e /proc/realtime
check "module gone" sh -c '! grep -q "^realtime " /proc/modules'
if [ -r /sys/kernel/debug/kprobes/list ]; then
	check "no probes left" sh -c '! grep -qE "security_bprm_creds_from_file|sched_set_fifo" /sys/kernel/debug/kprobes/list'
fi
check "audio member is refused again after unload" sh -c '! as rtaudio chrt -f 50 true 2>/dev/null'
check "reload works" insmod "$ko"
check_eq "defaults after reload: any gid mlock" "0 -1 1" \
	"$(cat $sysdir/any) $(cat $sysdir/gid) $(cat $sysdir/mlock)"
check "rmmod again" rmmod realtime
check "insmod gid=29 mlock=2" insmod "$ko" gid=29 mlock=2
check_eq "mlock=2 given at load" "$NICE_IPC" "$(capeff_of_exec as rtaudio)"
check "rmmod again" rmmod realtime
dmesg | grep -i 'realtime:' | tail -n 5
finish
