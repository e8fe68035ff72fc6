#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Prints the kernel release (KVER) that Debian's kernel meta-package PACKAGE
# (default linux-image-amd64) depends on, when that kernel's image and
# modules are installed; prints nothing otherwise. The vm tier boots this
# kernel by default, so that installing another one (linux-image-6.12-amd64
# for vm-6.12) never changes which kernel the other tests get.
#
# usage: kernel-of.sh [PACKAGE]

pkg=${1:-linux-image-amd64}
info=$(dpkg-query -W -f='${Status}|${Depends}\n' "$pkg" 2>/dev/null) || exit 0
case "$info" in
"install ok installed|"*) ;;
*) exit 0 ;;
esac
for dep in $(echo "${info#*|}" | tr '|' ',' | tr ',' '\n' | sed 's/(.*//'); do
	case "$dep" in
	linux-image-*)
		kver=${dep#linux-image-}
		if [ -f "/boot/vmlinuz-$kver" ] && [ -d "/lib/modules/$kver" ]; then
			echo "$kver"
			exit 0
		fi
		;;
	esac
done
exit 0
