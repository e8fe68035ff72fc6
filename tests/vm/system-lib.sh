# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# Helpers for the vm-system tier's guest scripts (tests/vm/system/*.sh, run by
# systemd's rt-vm-guest.service; see run-vm.sh --system). Sourced after
# tests/vm/lib.sh. The guest installs, upgrades, removes and purges the
# Debian packages built from this tree with apt-get, as README's "Install"
# says.

# Our packages, and the three a desktop user installs (README, Install).
system_all_packages="realtimed libpam-realtime librealtime1 librealtime-dev realtime-dkms"
system_default_packages="realtimed libpam-realtime librealtime1"

# system_debs DIR PACKAGE...: the paths of the packages' .deb files in DIR.
system_debs()
{
	d=$1
	shift
	for p in "$@"; do
		ls "$d/${p}_"*.deb
	done
}

# system_apt ARGS...: apt-get, as an admin runs it. It downloads nothing:
# every dependency of the packages is one of the test packages installed on
# the host whose root the guest boots (the guest has no network).
system_apt()
{
	_apt_t0=$(date +%s)
	DEBIAN_FRONTEND=noninteractive apt-get -y -q -o Dpkg::Use-Pty=0 "$@" </dev/null 2>&1
	_apt_rc=$?
	echo "time: $(($(date +%s) - _apt_t0))s for apt-get $1"
	return "$_apt_rc"
}

# system_install [PACKAGE...]: `apt-get install ./PACKAGE_*.deb ...` of the
# built packages ($RT_DEBS; default: $system_default_packages). The packages'
# maintainer scripts do the rest: sysusers, tmpfiles, the bus reload, the
# unit enabled and started, pam-auth-update, dkms.
system_install()
{
	[ -d "${RT_DEBS:-}" ] || skip "no packages at RT_DEBS=${RT_DEBS:-} (run through run-vm.sh --system)"
	[ $# -gt 0 ] || set -- $system_default_packages
	# shellcheck disable=SC2046 # one path a package, no spaces in them
	system_apt install $(system_debs "$RT_DEBS" "$@")
}

# system_upgrade: the installed packages of ours to the higher version
# built from the same tree ($RT_DEBS/upgrade), as an `apt upgrade` would.
system_upgrade()
{
	set --
	for p in $system_all_packages; do
		system_installed "$p" && set -- "$@" "$p"
	done
	# shellcheck disable=SC2046
	system_apt install $(system_debs "$RT_DEBS/upgrade" "$@")
}

# system_installed PACKAGE: true when dpkg has it installed.
system_installed()
{
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q '^install ok installed$'
}

# system_purge: `apt-get purge` of every package of ours that dpkg knows.
system_purge()
{
	set --
	for p in $system_all_packages; do
		dpkg-query -W "$p" >/dev/null 2>&1 && set -- "$@" "$p"
	done
	[ $# -eq 0 ] || system_apt purge "$@"
}

# The overlay's layers (init-stage1.sh): the host's root, which the guest
# boots read-only, and what the guest changed since its first boot.
system_lower=/rt-layers/lower
system_upper=/rt-layers/upper/data

# system_files: the guest's changes to its root, one "TYPE PATH" a line,
# sorted: every path of the overlay's upper layer, TYPE its find -printf %y,
# or "-" for a whiteout (a path of the host's root deleted in the guest).
# Only the upper layer can differ between two moments of one boot, so two
# such lists tell what changed in between, as piuparts' lists of the whole
# root would (system_files_diff), without reading half a million paths over
# 9p. Left out, as piuparts leaves them out: the run time's file systems
# (/proc, /sys, /dev, /run, /tmp, /var/tmp are mounts of their own), what
# apt and dpkg keep of their own (logs, caches, lists, their database), the
# journal, and the layers' own mount points.
system_files()
{
	[ -d "$system_upper" ] || skip "no overlay layers at /rt-layers (init-stage1.sh)"
	(cd "$system_upper" && find . -xdev \( -path ./rt-layers -o -path ./var/log -o -path ./var/cache/apt \
		-o -path ./var/cache/debconf -o -path ./var/lib/apt -o -path ./var/lib/dpkg \
		-o -path ./var/cache/man -o -path ./var/cache/ldconfig -o -path ./proc -o -path ./sys \
		-o -path ./dev -o -path ./run -o -path ./tmp -o -path ./var/tmp \) -prune \
		-o ! -path . -printf '%y %M %p\n') |
		awk '{ t = $1; if (t == "c" && $2 ~ /^c---------/) t = "-"; p = substr($0, index($0, "./") + 1); print t, p }' |
		LC_ALL=C sort -k2
}

# system_files_diff BEFORE AFTER: the paths whose presence or type differs
# between two system_files lists, one "PATH: BEFORE -> AFTER" a line (TYPE,
# or "-" for absent); a path missing from a list is the host root's there.
system_files_diff()
{
	LC_ALL=C join -1 2 -2 2 -a 1 -a 2 -e '=' -o 0,1.1,2.1 "$1" "$2" |
		while read -r path before after; do
			[ "$before" = "$after" ] && continue
			host=-
			if [ -L "$system_lower$path" ]; then
				host=l
			elif [ -d "$system_lower$path" ]; then
				host=d
			elif [ -e "$system_lower$path" ]; then
				host=f
			fi
			[ "$before" = = ] && before=$host
			[ "$after" = = ] && after=$host
			[ "$before" = "$after" ] || echo "$path: $before -> $after"
		done
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
