#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The journal catalog (catalog/realtimed.catalog) against the MESSAGE_IDs
# realtimed logs (LOG_ID_* in daemon/log.h): an entry for each id and no
# entry for another, each with a subject, Defined-By, a man page and a
# text; journalctl reads it (--update-catalog into a scratch root, then
# --list-catalog); realtimed(8) says that `journalctl -x` shows it.
#
#   test-catalog.sh SRCDIR
set -u

src=$1
# shellcheck source=tests/lib/tap.sh
. "$src/tests/lib/tap.sh"
TAP_SKIP_STATUS=0

catalog=$src/catalog/realtimed.catalog
work=$(mktemp -d "${TMPDIR:-/tmp}/test-catalog.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

# the ids, one a line: NAME ID
sed -n 's/^#define \(LOG_ID_[A-Z_]*\) "\([0-9a-f]*\)".*/\1 \2/p' "$src/daemon/log.h" >"$work/ids"
[ -s "$work/ids" ] || fail "daemon/log.h defines no LOG_ID_*"
# each entry as one line: ID SUBJECT|DEFINED-BY|DOCUMENTATION|TEXT-LINES
awk '
	function flush() {
		if (id != "")
			printf "%s %s|%s|%s|%d\n", id, subject, defined, doc, text
	}
	/^#/ { next }
	/^-- / { flush(); id = $2; subject = defined = doc = ""; text = 0; head = 1; next }
	id == "" { next }
	head && /^$/ { head = 0; next }
	head && /^Subject: / { subject = substr($0, 10) }
	head && /^Defined-By: / { defined = substr($0, 13) }
	head && /^Documentation: man:/ { doc = substr($0, 16) }
	!head && /[^ ]/ { text++ }
	END { flush() }' "$catalog" >"$work/entries"

while read -r name id; do
	if grep -q "^$id " "$work/entries"; then
		ok "$name ($id) has an entry"
	else
		fail "$name ($id) has no entry in catalog/realtimed.catalog"
	fi
done <"$work/ids"
while read -r id rest; do
	grep -q " $id\$" "$work/ids" || fail "the entry $id is no LOG_ID_* of daemon/log.h"
	# SUBJECT|DEFINED-BY|DOCUMENTATION|TEXT-LINES
	case $rest in
	?*"|realtimed|man:"?*"|"[1-9]*) ok "the entry $id has a subject, Defined-By, a man page and a text" ;;
	*) fail "the entry $id lacks a Subject:, Defined-By: realtimed, a man: Documentation: or a text ($rest)" ;;
	esac
done <"$work/entries"
check_eq "no entry twice" "" "$(cut -d' ' -f1 "$work/entries" | sort | uniq -d)"

# journalctl's own parser, on a scratch root
if command -v journalctl >/dev/null; then
	mkdir -p "$work/root/usr/lib/systemd/catalog"
	cp "$catalog" "$work/root/usr/lib/systemd/catalog/"
	if journalctl --root="$work/root" --update-catalog 2>"$work/err" &&
		journalctl --root="$work/root" --list-catalog >"$work/list" 2>>"$work/err"; then
		while read -r name id; do
			subject=$(grep "^$id " "$work/entries" | cut -d' ' -f2- | cut -d'|' -f1)
			check_eq "journalctl lists $name" "$id realtimed: $subject" \
				"$(grep "^$id " "$work/list")"
		done <"$work/ids"
	else
		fail "journalctl --update-catalog refused it: $(cat "$work/err")"
	fi
else
	note "no journalctl here: its parser is not tried"
fi

if grep -q 'journalctl -x' "$src/man/realtimed.8.scd"; then
	ok "realtimed(8) says that journalctl -x explains the lines"
else
	fail "realtimed(8) does not mention journalctl -x"
fi
finish
