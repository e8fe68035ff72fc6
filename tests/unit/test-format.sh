#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The userspace C code follows the repository's .clang-format (kernel style).
# realtime.ko is checked by checkpatch instead (kmod-checkpatch).
cd "${TOP_SRCDIR:?}" || exit 1
command -v clang-format >/dev/null || { echo "SKIP: clang-format is not installed"; exit 77; }
command -v git >/dev/null && [ -e .git ] || { echo "SKIP: not a git checkout: no file list"; exit 77; }
bad=0
for f in $(git ls-files '*.c' '*.h' | grep -v '^kmod/'); do
	if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
		echo "not formatted: $f (run: clang-format -i $f)"
		bad=1
	fi
done
[ $bad = 0 ] && echo "every C file follows .clang-format"
exit $bad
