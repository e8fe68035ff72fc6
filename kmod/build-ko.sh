#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# meson's way to run Kbuild: copies the module's sources into a scratch
# directory of the build tree (Kbuild writes next to its sources) and runs
# make -C KDIR M=that modules, then copies realtime.ko to OUTPUT.
#
# usage: build-ko.sh KDIR SCRATCH OUTPUT WERROR(true|false) SOURCE...
set -eu

kdir=$1
scratch=$2
out=$3
werror=$4
shift 4

mkdir -p "$scratch"
for f in "$@"; do
	# Only copy what changed, so make's timestamps stay meaningful.
	cmp -s "$f" "$scratch/${f##*/}" || cp "$f" "$scratch/"
done

kcflags=
[ "$werror" = true ] && kcflags=-Werror
make -s -C "$kdir" M="$(cd "$scratch" && pwd)" KCFLAGS="$kcflags" modules 2>&1 |
	grep -v 'Skipping BTF generation' >&2 || true
[ -f "$scratch/realtime.ko" ] || { echo "build-ko.sh: make did not produce realtime.ko" >&2; exit 1; }
# make's own status is lost in the pipe: a stale .ko must not pass for a new one.
# -nt is not POSIX, but dash and busybox sh, which run this, have it
# shellcheck disable=SC3013
for f in "$@"; do
	case "$f" in
	*.c) [ "$scratch/realtime.ko" -nt "$scratch/${f##*/}" ] ||
		{ echo "build-ko.sh: realtime.ko is older than ${f##*/}: the build failed" >&2; exit 1; } ;;
	esac
done
cp "$scratch/realtime.ko" "$out"
