# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# Helpers for the vm-system tier's guest scripts (tests/vm/system/*.sh, run by
# systemd's rt-vm-guest.service; see run-vm.sh --system). Sourced after
# tests/vm/lib.sh. The steps here are README's "Install for real", in order.

# system_install: lays the build's `meson install --destdir` tree
# ($RT_DESTDIR) onto / as a package would, keeping the merged-usr symlinks
# (/lib -> usr/lib, /sbin -> usr/sbin: tar's --keep-directory-symlink never
# replaces a symlink to a directory with a real one), and records what it
# laid in /var/lib/realtimed.files and .dirs for system_uninstall. Then, as
# the package's maintainer scripts would: daemon-reload, sysusers, tmpfiles,
# and a bus reload so that dbus-daemon sees the new policy and activation
# files.
system_install()
{
	[ -d "$RT_DESTDIR/usr" ] || skip "no meson install tree at $RT_DESTDIR"
	(cd "$RT_DESTDIR" && find . ! -type d | sed 's/^\.//') >/var/lib/realtimed.files
	(cd "$RT_DESTDIR" && find . -mindepth 1 -type d | sed 's/^\.//' | sort -r) >/var/lib/realtimed.dirs
	tar -C "$RT_DESTDIR" -cf - . | tar -C / -xf - --keep-directory-symlink --no-same-owner
	systemctl daemon-reload
	systemd-sysusers
	systemd-tmpfiles --create
	busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig
}

# system_uninstall: the documented removal, every step of it in every test:
# realtime.ko's boot settings, the module (if loaded) and its dkms build (if
# added), pam_realtime out of the PAM stack, the service stopped and
# disabled, every file system_install laid and the directories it created
# that are now empty, then daemon-reload and a bus reload.
system_uninstall()
{
	rm -f /etc/modules-load.d/realtime.conf /etc/modprobe.d/realtime.conf
	if [ -d /sys/module/realtime ]; then
		rmmod realtime
	fi
	# dkms's own tree says whether it was added: asking dkms status (a
	# long bash script) takes a minute under TCG on a loaded host.
	for src in /usr/src/realtime-*; do
		if [ -d "/var/lib/dkms/realtime/${src##*/realtime-}" ]; then
			dkms remove "realtime/${src##*/realtime-}" --all
		fi
	done
	DEBIAN_FRONTEND=noninteractive pam-auth-update --remove realtime
	systemctl disable --now realtimed.service 2>&1
	xargs -d '\n' rm -f </var/lib/realtimed.files
	xargs -d '\n' rmdir --ignore-fail-on-non-empty </var/lib/realtimed.dirs 2>/dev/null
	systemctl daemon-reload
	busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig
}

# system_leftovers: the installed files that are still there, one a line.
system_leftovers()
{
	while read -r f; do
		if [ -e "$f" ] || [ -L "$f" ]; then
			echo "$f"
		fi
	done </var/lib/realtimed.files
}

# system_reboot: ends this boot of the guest script: reboots the guest for
# real when every check so far passed; the script runs again from the start
# at the next boot, with RT_VM_BOOT one higher. Only with a persistent root
# ("# vm-persistent-root: MIB" in the script, see run-vm.sh): the tmpfs
# overlay would forget everything.
system_reboot()
{
	# shellcheck disable=SC2154 # rt_failures: lib.sh counts the failed checks
	[ "$rt_failures" -eq 0 ] || finish
	[ -b /dev/vda ] || skip "no persistent root disk (the script needs a '# vm-persistent-root:' line)"
	: >/rt-run/reboot
	sync
	echo "rebooting after boot ${RT_VM_BOOT:-1}"
	exit 0
}

# journal_of UNIT: the unit's journal of this boot, verbose.
journal_of()
{
	journalctl -b -u "$1" -o verbose --no-pager 2>/dev/null
}

# wait_until SECONDS COMMAND...: poll COMMAND every half second.
wait_until()
{
	n=$(($1 * 2))
	shift
	while [ "$n" -gt 0 ]; do
		"$@" && return 0
		sleep 0.5
		n=$((n - 1))
	done
	"$@"
}
