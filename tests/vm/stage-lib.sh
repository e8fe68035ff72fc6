# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# Sourced by the VM tier's stage 2 scripts (init-stage2.sh; init-system.sh
# and system-guest-run.sh of the vm-system tier) and by enter-script.sh:
# what both tiers do the same way around their guest scripts, which run one
# after another in one boot (run_guest_scripts, at the end).

# fresh_tmp_dirs DIR...: mounts a fresh tmpfs on each of /run, /tmp, /var/tmp
# named. The host's /tmp seen through 9p is large and shared with others; a
# guest must neither see it as its own nor (systemd-tmpfiles' "D /tmp" at
# boot) try to empty it through the overlay. The source or build tree may
# live there on the host (a CI clone in /tmp): each is held aside first and
# put back at the same path on the fresh filesystem.
fresh_tmp_dirs()
{
	for keep in "$TOP_SRCDIR" "$TOP_BUILDDIR"; do
		case "$keep" in
		/run/* | /tmp/* | /var/tmp/*) ;;
		*) continue ;;
		esac
		mkdir -p "/rt-hold$keep" && mount --bind "$keep" "/rt-hold$keep"
	done
	for dir in "$@"; do
		mode=1777
		[ "$dir" = /run ] && mode=0755
		mount -t tmpfs -o "mode=$mode,nosuid,nodev" tmpfs "$dir"
	done
	for keep in "$TOP_SRCDIR" "$TOP_BUILDDIR"; do
		mountpoint -q "/rt-hold$keep" 2>/dev/null || continue
		mkdir -p "$keep" && mount --bind "/rt-hold$keep" "$keep"
	done
}

# The state a script may change and the next one must not see changed, saved
# once per boot before the first script: the modules loaded, and the
# scheduler's and realtime.ko's sysctls.
state=/run/rt-vm-state

# sysctls: "PATH VALUE" for each writable sysctl that is put back.
sysctls()
{
	for f in /proc/sys/kernel/sched_* /proc/sys/security/realtime/*; do
		[ -f "$f" ] || continue
		[ -w "$f" ] || continue
		v=$(cat "$f" 2>/dev/null) || continue
		printf '%s %s\n' "$f" "$v"
	done
}

state_save()
{
	mkdir -p "$state"
	cut -d' ' -f1 /proc/modules >"$state/modules"
	sysctls >"$state/sysctls"
}

# state_restore: puts back what state_save saw, saying what it changed;
# false when something could not be put back.
# new_modules: the modules loaded since state_save, newest first
# (/proc/modules' order), each before those it uses. Under systemd only
# realtime: udev loads drivers for the guest's devices whenever it gets to
# them (minutes into a boot under TCG), which is no script's doing.
new_modules()
{
	cut -d' ' -f1 /proc/modules | grep -vxF -f "$state/modules" |
		if [ "${RT_VM_SYSTEM:-0}" = 1 ]; then grep -x realtime; else cat; fi
}

state_restore()
{
	# a few passes for what depends on what
	for _ in 1 2 3; do
		new_modules | while read -r m; do
			rmmod "$m" 2>/dev/null && echo "RT-VM: unloaded module $m, which the script left loaded"
		done
	done
	left=$(new_modules | tr '\n' ' ')
	[ -z "$left" ] || echo "RT-VM: cannot unload the modules the script left loaded: $left"
	# twice: sched_rt_runtime_us must fit its period
	for _ in 1 2; do
		while read -r f v; do
			cur=$(cat "$f" 2>/dev/null) || continue
			[ "$cur" != "$v" ] || continue
			{ echo "$v" >"$f"; } 2>/dev/null &&
				echo "RT-VM: put $f back to $v (the script left $cur)"
		done <"$state/sysctls"
	done
	bad=$(sysctls | grep -vxF -f "$state/sysctls" | tr '\n' ' ')
	[ -z "$bad" ] || echo "RT-VM: cannot put these sysctls back as they were: $bad"
	[ -z "$left" ] && [ -z "$bad" ]
}

# kernel_marks: how many warnings, oopses and BUGs the kernel log holds.
kernel_marks()
{
	dmesg 2>/dev/null | grep -c -e '------------\[ cut here \]' -e 'Oops' -e 'BUG:'
}

# script_cgroup ID: makes a cgroup for the script under the runner's own
# (cgroup v2) and prints its path; prints nothing where there is none.
script_cgroup()
{
	own=$(sed -n 's/^0:://p' /proc/self/cgroup)
	cg=/sys/fs/cgroup${own%/}/rt-vm-$1
	mkdir "$cg" 2>/dev/null && echo "$cg"
}

# end_cgroup CG: kills what the script left running in CG, and removes CG.
end_cgroup()
{
	[ -n "$1" ] && [ -d "$1" ] || return 0
	left=$(sed 's|^|/proc/|; s|$|/comm|' "$1/cgroup.procs" | xargs cat 2>/dev/null | tr '\n' ' ')
	if [ -n "$left" ]; then
		echo "RT-VM: killing what the script left running: $left"
		if [ -f "$1/cgroup.kill" ]; then
			echo 1 >"$1/cgroup.kill"
		else
			xargs kill -KILL <"$1/cgroup.procs" 2>/dev/null
		fi
		n=0
		while grep -q 'populated 1' "$1/cgroup.events" && [ "$n" -lt 100 ]; do
			sleep 0.1
			n=$((n + 1))
		done
	fi
	rmdir "$1" 2>/dev/null || echo "RT-VM: cannot remove the script's cgroup $1"
}

# end_user_sessions: under systemd, ends what a script's logins left behind
# for the next one to find: the sessions, lingering and user managers of
# every user but root (logind keeps a manager UserStopDelaySec after the
# last session, with the limits PAM gave it).
end_user_sessions()
{
	[ "${RT_VM_SYSTEM:-0}" = 1 ] || return 0
	loginctl list-users --no-legend 2>/dev/null | awk '$1 != 0 { print $1 }' | while read -r uid; do
		loginctl disable-linger "$uid" 2>/dev/null
		loginctl terminate-user "$uid" 2>/dev/null
		systemctl stop "user@$uid.service" "user-runtime-dir@$uid.service" 2>/dev/null
		echo "RT-VM: ended the sessions and the user manager of uid $uid"
	done
}

# run_guest_script ID TIMEOUT PATH: runs the script as root in its own
# cgroup and mount namespace (enter-script.sh) within TIMEOUT seconds, its
# output in /rt-run/out/ID.log; then kills what it left running (and, under
# systemd, its users' sessions), checks the
# kernel's taint and puts the saved state back. Writes its exit code to
# /rt-run/out/ID.done: 1 when the kernel oopsed or warned (taint D 128, W
# 512, or a new warning in the kernel log) meanwhile, whatever the script
# said. False when this boot must end after it: the script asked for a
# reboot (system_reboot, system-lib.sh; ID.reboot), tainted the kernel, or
# left state that could not be put back.
run_guest_script()
{
	id=$1
	out=/rt-run/out
	boot=$(cat "$out/$id.boot" 2>/dev/null || echo 1)
	rm -f /rt-run/reboot
	echo "RT-VM-SCRIPT-START $id (boot $boot) $3"
	date +%s >"$out/$id.start"
	tainted_before=$(cat /proc/sys/kernel/tainted)
	marks_before=$(kernel_marks)
	cg=$(script_cgroup "$id")
	t0=$(date +%s)
	RT_VM_BOOT=$boot GUEST_SCRIPT=$3 GUEST_TIMEOUT=$2 \
		timeout -k 10 "$2" /bin/sh "$RT_VM_HERE/enter-script.sh" "$cg" "$3" </dev/null >"$out/$id.log" 2>&1
	rc=$?
	elapsed=$(($(date +%s) - t0))
	keep=0
	{
		[ -n "$cg" ] || echo "RT-VM: no cgroup of its own (cgroup v2 at /sys/fs/cgroup?); ran in the runner's"
		[ "$elapsed" -lt "$2" ] || echo "RT-VM-GUEST-TIMEOUT after ${elapsed}s (timeout ${2}s)"
		end_cgroup "$cg"
		end_user_sessions
		tainted_after=$(cat /proc/sys/kernel/tainted)
		new=$(((tainted_after & ~tainted_before) & (128 | 512)))
		if [ "$new" != 0 ] || [ "$(kernel_marks)" -gt "$marks_before" ]; then
			echo "RT-VM-KERNEL-OOPS-OR-WARNING: taint $tainted_before -> $tainted_after; kernel log tail:"
			dmesg | tail -n 60
			rc=1
			keep=1
		fi
		if [ "$rc" = 0 ] && [ -f /rt-run/reboot ]; then
			mv /rt-run/reboot "$out/$id.reboot"
			keep=1
		elif ! state_restore; then
			keep=1
		fi
		if [ "$rc" != 0 ] && [ "$rc" != 77 ] && [ "${RT_VM_SYSTEM:-0}" = 1 ]; then
			echo "---- journal of the failed run (last 60 lines) ----"
			journalctl -b --no-pager -n 60 -o short-monotonic
		fi
		echo "RT-VM-GUEST-EXIT $rc after ${elapsed}s"
	} >>"$out/$id.log" 2>&1
	echo "RT-VM-SCRIPT-END $id $rc after ${elapsed}s"
	if [ ! -f "$out/$id.reboot" ]; then
		echo "$rc" >"$out/$id.tmp" && mv "$out/$id.tmp" "$out/$id.done"
	fi
	sync
	[ "$keep" = 0 ]
}

# run_guest_scripts: runs each script of /rt-run/todo ("ID BOOTKEY TIMEOUT
# PATH" a line, run-vm.sh) that has no result yet, until one ends the boot.
# True when the guest must reboot for a script (ID.reboot).
run_guest_scripts()
{
	state_save
	while read -r id _ tmo path; do
		[ -f "/rt-run/out/$id.done" ] || [ -f "/rt-run/out/$id.rc" ] && continue
		if ! run_guest_script "$id" "$tmo" "$path"; then
			[ -f "/rt-run/out/$id.reboot" ] && return 0
			echo "RT-VM: this boot ends after $id; the rest gets a fresh one"
			break
		fi
	done </rt-run/todo
	return 1
}
