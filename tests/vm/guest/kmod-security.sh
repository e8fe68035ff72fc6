#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What realtime.ko(4)'s SECURITY section says membership in the configured
# group hands out, shown in a real kernel so that the page stays true. A
# member (rtaudio, in audio) and a non-member (rtplain) try the same things
# against processes of root:
# - CAP_SYS_NICE: renice, SCHED_FIFO 99, SCHED_IDLE, CPU affinity and
#   realtime I/O priority of root's processes and of a kernel thread, and
#   SCHED_FIFO 99 with RLIMIT_RTPRIO 0;
# - CAP_SYS_RESOURCE (mlock=1, the default): prlimit() of a root process,
#   its own hard limit raised, a root process killed through RLIMIT_CPU,
#   fork past RLIMIT_NPROC, /proc/sys/user/ written, oom_score_adj -1000;
# - CAP_IPC_LOCK: mlockall() with RLIMIT_MEMLOCK 0, SHM_LOCK of root's
#   System V shared memory segment;
# - mlock=2: CAP_IPC_LOCK without CAP_SYS_RESOURCE, so every prlimit-like
#   step above fails with EPERM (or EACCES where the kernel says so) while
#   locking memory still works.
# The member succeeds where the page says so, the non-member never does.
# shellcheck source=tests/vm/lib.sh
. "$TOP_SRCDIR/tests/vm/lib.sh"

ko=${RT_KO:-}	# the build's realtime.ko for this kernel (run-vm.sh)
[ -f "$ko" ] || skip "realtime.ko is not built for $(uname -r) (-Dkmod=disabled or no linux-headers-$(uname -r))"
command -v python3 >/dev/null || skip "python3 missing (mlockall and SHM_LOCK need it)"
command -v prlimit >/dev/null || skip "prlimit missing (util-linux)"
add_test_users

sysdir=/proc/sys/security/realtime
NICE_IPC=0000000000804000	# CAP_SYS_NICE (23), CAP_IPC_LOCK (14)

# fails_with ERRTEXT COMMAND...: COMMAND fails and says ERRTEXT (the
# strerror() text of the errno the kernel gave) on stderr.
fails_with()
{
	want=$1
	shift
	if err=$("$@" 2>&1 >/dev/null); then
		echo "  (it succeeded)"
		return 1
	fi
	case "$err" in
	*"$want"*) return 0 ;;
	esac
	echo "  (it failed with: $err)"
	return 1
}

# field PID N: field N of /proc/PID/stat, counting from the one after comm.
field()
{
	sed 's/^.*) //' "/proc/$1/stat" | awk -v n="$2" '{ print $(n - 2) }'
}

nice_of() { field "$1" 19; }
cpus_of() { awk '/^Cpus_allowed_list:/ { print $2 }' "/proc/$1/status"; }
# hard_nofile PID: the hard RLIMIT_NOFILE in /proc/PID/limits.
hard_nofile() { awk '/^Max open files/ { print $5 }' "/proc/$1/limits"; }

# python3 $sys CALL ARGS...: make one system call from a program of its own
# (an exec, so it gets what the module grants); prints "ok" or the errno's
# name. "python3 $sys write FILE TEXT" writes TEXT to FILE, after making the
# process dumpable again: an exec that gained capabilities is not, and its
# /proc/self files then belong to root.
sys=/tmp/rt-syscall.py
cat >$sys <<'EOP'
import ctypes, errno, sys
libc = ctypes.CDLL(None, use_errno=True)
if sys.argv[1] == "write":
    libc.prctl(4, 1, 0, 0, 0)                   # PR_SET_DUMPABLE
    try:
        with open(sys.argv[2], "w") as f:
            f.write(sys.argv[3])
        print("ok")
    except OSError as e:
        print(errno.errorcode[e.errno])
    sys.exit(0)
r = getattr(libc, sys.argv[1])(*[int(a) for a in sys.argv[2:]])
print("ok" if r != -1 else errno.errorcode[ctypes.get_errno()])
EOP
chmod 0644 $sys
SHM_LOCK=11
MCL_CURRENT=1

# fork_past_nproc USER: with RLIMIT_NPROC 1, USER's shell forks once.
fork_past_nproc()
{
	as "$1" prlimit --nproc=1:1 sh -c '/bin/true && echo forked'
}

# refused_resource WHO USER PID: USER (a WHO) lacks CAP_SYS_RESOURCE, so
# each thing that it gives is refused, with the errno the kernel uses, and
# PID, a root process, keeps its limits.
refused_resource()
{
	hard=$(hard_nofile "$3")
	up=$((hard + 1024))
	check "$1 prlimit of root's RLIMIT_NOFILE fails with EPERM" \
		fails_with "Operation not permitted" as "$2" prlimit --pid "$3" --nofile=":$up"
	check_eq "root's sleep: hard RLIMIT_NOFILE unchanged" "$hard" "$(hard_nofile "$3")"
	check "$1 may not raise its own hard RLIMIT_NOFILE (EPERM)" \
		fails_with "Operation not permitted" as "$2" prlimit --nofile=":$up" true
	check "$1 may not fork past RLIMIT_NPROC" fails_with "Cannot fork" fork_past_nproc "$2"
	check "$1 may not write /proc/sys/user/max_user_namespaces (EACCES)" \
		fails_with "Permission denied" as "$2" sh -c 'echo 77 >/proc/sys/user/max_user_namespaces'
	check_eq "$1 may not set oom_score_adj -1000" EACCES \
		"$(as "$2" python3 $sys write /proc/self/oom_score_adj -1000)"
}

# shm_mode ID: the mode of a System V segment (SHM_LOCKED is 02000).
shm_mode()
{
	awk -v id="$1" '$2 == id { print $3 }' /proc/sysvipc/shm
}

# The targets: ordinary root processes (full capabilities, uid 0).
sleep 1000 &
victim=$!
sleep 1000 &
victim2=$!
kthread=2
[ "$(cat /proc/$kthread/comm)" = kthreadd ] || skip "pid 2 is not kthreadd"
spinner=
trap 'kill $victim $victim2 $spinner 2>/dev/null' EXIT

check "insmod gid=29 (mlock defaults to 1)" insmod "$ko" gid=29
check_eq "mlock default" 1 "$(cat $sysdir/mlock)"

echo "# CAP_SYS_NICE: a non-member may not touch root's processes"
check "non-member renice of root's sleep is refused" \
	fails_with "Operation not permitted" as rtplain renice -n 10 -p "$victim"
check "non-member SCHED_FIFO 99 on root's sleep is refused" \
	fails_with "Operation not permitted" as rtplain chrt -f -p 99 "$victim"
check "non-member CPU affinity of root's sleep is refused" \
	fails_with "Operation not permitted" as rtplain taskset -p -c 0 "$victim"
check "non-member realtime I/O priority is refused" \
	fails_with "Operation not permitted" as rtplain ionice -c 1 -n 0 -p "$victim"
check_eq "root's sleep unchanged: nice" 0 "$(nice_of "$victim")"
check_eq "root's sleep unchanged: policy" "0 0" "$(sched_of "$victim")"

echo "# CAP_SYS_NICE: a member may"
check "member renices root's sleep to 10" as rtaudio renice -n 10 -p "$victim"
check_eq "root's sleep: nice" 10 "$(nice_of "$victim")"
check "member renices root's sleep to -20" as rtaudio renice -n -20 -p "$victim"
check_eq "root's sleep: nice" -20 "$(nice_of "$victim")"
check "member sets SCHED_FIFO 99 on root's sleep" as rtaudio chrt -f -p 99 "$victim"
check_eq "root's sleep: policy priority" "1 99" "$(sched_of "$victim")"
check "member pins root's sleep to CPU 0" as rtaudio taskset -p -c 0 "$victim"
check_eq "root's sleep: CPUs" 0 "$(cpus_of "$victim")"
check "member gives root's sleep realtime I/O priority" as rtaudio ionice -c 1 -n 0 -p "$victim"
check_eq "root's sleep: I/O priority" "realtime: prio 0" "$(ionice -p "$victim")"
# A root realtime thread, such as realtimed's watchdog, can be put out of play.
chrt -f -p 99 "$victim2"
check "member sets root's FIFO 99 sleep to SCHED_IDLE" as rtaudio chrt -i -p 0 "$victim2"
check_eq "root's FIFO 99 sleep: policy priority" "5 0" "$(sched_of "$victim2")"
check "member renices a kernel thread (kthreadd)" as rtaudio renice -n 5 -p "$kthread"
check_eq "kthreadd: nice" 5 "$(nice_of "$kthread")"
renice -n 0 -p "$kthread" >/dev/null
check "member takes SCHED_FIFO 99 with RLIMIT_RTPRIO 0" \
	as rtaudio prlimit --rtprio=0:0 chrt -f 99 true
check "non-member with RLIMIT_RTPRIO 0 is refused" \
	fails_with "Operation not permitted" as rtplain prlimit --rtprio=0:0 chrt -f 1 true

echo "# CAP_SYS_RESOURCE (mlock=1): a non-member may not"
refused_resource non-member rtplain "$victim"

echo "# CAP_SYS_RESOURCE (mlock=1): a member may"
up=$(($(hard_nofile "$victim") + 1024))
check "member raises root's hard RLIMIT_NOFILE" as rtaudio prlimit --pid "$victim" --nofile=":$up"
check_eq "root's sleep: hard RLIMIT_NOFILE" "$up" "$(hard_nofile "$victim")"
check_eq "member raises its own hard RLIMIT_NOFILE" "$up" \
	"$(as rtaudio prlimit --nofile=":$up" awk '/^Max open files/ { print $5 }' /proc/self/limits)"
check_eq "member forks past RLIMIT_NPROC" forked "$(fork_past_nproc rtaudio)"
userns=$(cat /proc/sys/user/max_user_namespaces)
check "member writes /proc/sys/user/max_user_namespaces" \
	as rtaudio sh -c 'echo 77 >/proc/sys/user/max_user_namespaces'
check_eq "max_user_namespaces" 77 "$(cat /proc/sys/user/max_user_namespaces)"
echo "$userns" >/proc/sys/user/max_user_namespaces
check_eq "member sets its oom_score_adj to -1000" ok \
	"$(as rtaudio python3 $sys write /proc/self/oom_score_adj -1000)"
# A root process that has used more CPU than its new hard RLIMIT_CPU is
# killed by the kernel (SIGKILL) the next time it runs.
sh -c 'while :; do :; done' &
spinner=$!
n=0
while [ "$(($(field "$spinner" 14) + $(field "$spinner" 15)))" -lt 150 ] && [ $n -lt 300 ]; do
	sleep 0.1
	n=$((n + 1))
done
check "member sets RLIMIT_CPU 1 s on root's busy loop" as rtaudio prlimit --pid "$spinner" --cpu=1:1
( sleep 20; kill -TERM "$spinner" 2>/dev/null ) &
guard=$!
wait "$spinner"
check_eq "root's busy loop was killed by SIGKILL" 137 "$?"
kill "$guard" 2>/dev/null

echo "# CAP_IPC_LOCK (mlock=1)"
# IPC_PRIVATE, IPC_CREAT | 0600: a segment of root's that outlives python.
shmid=$(python3 -c '
import ctypes
print(ctypes.CDLL(None).shmget(0, 1 << 20, 0o1600))')
check_eq "non-member mlockall() with RLIMIT_MEMLOCK 0" EPERM \
	"$(as rtplain prlimit --memlock=0:0 python3 $sys mlockall $MCL_CURRENT)"
check_eq "member mlockall() with RLIMIT_MEMLOCK 0" ok \
	"$(as rtaudio prlimit --memlock=0:0 python3 $sys mlockall $MCL_CURRENT)"
check_eq "non-member SHM_LOCK of root's segment" EPERM \
	"$(as rtplain python3 $sys shmctl "$shmid" $SHM_LOCK 0)"
check_eq "member SHM_LOCK of root's segment" ok \
	"$(as rtaudio python3 $sys shmctl "$shmid" $SHM_LOCK 0)"
check_eq "root's segment is locked (SHM_LOCKED)" 2600 "$(shm_mode "$shmid")"
ipcrm -m "$shmid"

echo "# mlock=2: CAP_IPC_LOCK without CAP_SYS_RESOURCE"
check "write mlock=2" sh -c "echo 2 >$sysdir/mlock"
check_eq "member's CapEff: CAP_SYS_NICE and CAP_IPC_LOCK" "$NICE_IPC" "$(capeff_of_exec as rtaudio)"
refused_resource member rtaudio "$victim2"
check_eq "member still mlockall()s with RLIMIT_MEMLOCK 0" ok \
	"$(as rtaudio prlimit --memlock=0:0 python3 $sys mlockall $MCL_CURRENT)"
check "member still sets SCHED_FIFO 99 on root's sleep" as rtaudio chrt -f -p 99 "$victim2"
check_eq "root's sleep: policy priority" "1 99" "$(sched_of "$victim2")"

echo "# mlock=0: CAP_SYS_NICE alone"
check "write mlock=0" sh -c "echo 0 >$sysdir/mlock"
check_eq "member mlockall() with RLIMIT_MEMLOCK 0" EPERM \
	"$(as rtaudio prlimit --memlock=0:0 python3 $sys mlockall $MCL_CURRENT)"
check "member still renices root's sleep" as rtaudio renice -n 3 -p "$victim2"

check "rmmod realtime" rmmod realtime
check "after unload, the member is refused like anyone" \
	fails_with "Operation not permitted" as rtaudio renice -n 4 -p "$victim2"
finish
