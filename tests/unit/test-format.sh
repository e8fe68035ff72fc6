#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The userspace C code follows the repository's .clang-format (kernel style).
# realtime.ko is checked by checkpatch instead (kmod-checkpatch).
cd "${TOP_SRCDIR:?}" || exit 1
command -v clang-format >/dev/null || { echo "SKIP: clang-format is not installed"; exit 77; }
command -v git >/dev/null && [ -e .git ] || { echo "SKIP: not a git checkout: no file list"; exit 77; }
files=$(git ls-files '*.c' '*.h' | grep -v '^kmod/')
# one clang-format for all files (one per file took most of the 30 s
# timeout on a loaded machine); only when that fails, find which
# shellcheck disable=SC2086
clang-format --dry-run --Werror $files >/dev/null 2>&1 && { echo "every C file follows .clang-format"; exit 0; }
for f in $files; do
	clang-format --dry-run --Werror "$f" >/dev/null 2>&1 ||
		echo "not formatted: $f (run: clang-format -i $f)"
done
exit 1
