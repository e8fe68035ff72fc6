# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# Sourced by the VM tier's stage 2 scripts (init-stage2.sh; init-system.sh
# and system-guest-run.sh of the vm-system tier): what both tiers do the
# same way around a guest script.

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

# run_guest_script: runs $GUEST_SCRIPT as root from /tmp within
# $GUEST_TIMEOUT seconds, its output on ours; sets rc to its exit code, or
# to 1 when the kernel oopsed or warned (taint D 128, W 512) meanwhile,
# whatever the script said.
run_guest_script()
{
	cd /tmp || return 1
	tainted_before=$(cat /proc/sys/kernel/tainted)
	# shellcheck disable=SC2016
	timeout -s KILL "${GUEST_TIMEOUT:-600}" /bin/sh -c \
		'if [ -x "$0" ]; then exec "$0"; else exec /bin/sh "$0"; fi' "$GUEST_SCRIPT" </dev/null 2>&1
	rc=$?
	[ "$rc" = 137 ] && echo "RT-VM-GUEST-TIMEOUT after ${GUEST_TIMEOUT:-600}s"
	tainted_after=$(cat /proc/sys/kernel/tainted)
	new=$(((tainted_after & ~tainted_before) & (128 | 512)))
	if [ "$new" != 0 ]; then
		echo "RT-VM-KERNEL-OOPS-OR-WARNING: taint $tainted_before -> $tainted_after; kernel log tail:"
		dmesg | tail -n 60
		rc=1
	fi
}

# write_rc: hands $rc to the host (the run directory's rc file).
write_rc()
{
	echo "$rc" >/rt-run/rc.tmp && mv /rt-run/rc.tmp /rt-run/rc
	sync
	echo "RT-VM-GUEST-EXIT $rc"
}
