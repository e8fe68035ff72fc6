#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Kernel coding style of realtime.ko: runs the kernel's checkpatch.pl
# --no-tree --strict over the module's sources and fails on any error,
# warning or check. Debian ships checkpatch.pl only inside linux-source-*;
# set CHECKPATCH to its path, or the test is skipped.
#
# usage: checkpatch.sh SOURCE...
set -u

cp=${CHECKPATCH:-}
if [ -z "$cp" ]; then
	for f in /usr/src/linux-headers-*/scripts/checkpatch.pl \
		/usr/src/linux-source-*/scripts/checkpatch.pl \
		/usr/src/linux-*/scripts/checkpatch.pl; do
		[ -f "$f" ] && cp=$f && break
	done
fi
if [ -z "$cp" ] || [ ! -f "$cp" ]; then
	echo "SKIP: checkpatch.pl not found (it is in linux-source-6.1's tarball; set CHECKPATCH=/path/to/checkpatch.pl)"
	exit 77
fi
command -v perl >/dev/null || { echo "SKIP: perl missing"; exit 77; }

out=$(perl "$cp" --no-tree --strict --terse --show-types -f "$@" 2>&1)
echo "$out"
if echo "$out" | grep -qE '(ERROR|WARNING|CHECK):'; then
	echo "checkpatch found problems in the module's sources"
	exit 1
fi
exit 0
