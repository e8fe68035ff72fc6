# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the VM tier's stage 2 scripts (init-stage2.sh, init-system.sh).
#
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
