#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# mock-realtimed, the stand-in for realtimed that realtimectl's and
# librealtime's unit tests talk to, against realtimed's introspection XML
# (daemon/org.realtimed.Realtime1.xml), as test-daemon-bus-dispatch holds
# the daemon's own tables to it: every method the mock serves is in the
# XML with the same input and output signature, and every property with
# the same type; and every member of the XML that realtimectl or
# librealtime names (a quoted "Name" in realtimectl/*.c or librealtime/*.c)
# is served by the mock, so that their tests do not stop at an unknown
# method. The members of org.freedesktop.DBus.Peer are left out of that:
# libdbus answers them for every connection.
#
#   test-mock-realtimed.sh MOCK_REALTIMED SRCDIR
set -u

mock=$1
src=$2
# shellcheck source=tests/lib/tap.sh
. "$src/tests/lib/tap.sh"
TAP_SKIP_STATUS=0

work=$(mktemp -d "${TMPDIR:-/tmp}/test-mock-realtimed.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

# The XML's members, one a line, as the mock's --list prints its own:
# "method IFACE NAME (IN) (OUT)", "property IFACE NAME (TYPE)",
# "signal IFACE NAME (ARGS)".
awk '
	function attr(line, name) {
		if (!match(line, " " name "=\"[^\"]*\""))
			return ""
		return substr(line, RSTART + length(name) + 3, RLENGTH - length(name) - 4)
	}
	function flush() {
		if (kind == "method")
			printf "method %s %s (%s) (%s)\n", iface, member, ins, outs
		else if (kind == "signal")
			printf "signal %s %s (%s)\n", iface, member, ins
		kind = ""
	}
	/<!--/ { comment = 1 }
	comment { if (/-->/) comment = 0; next }
	/<interface / { iface = attr($0, "name") }
	/<(method|signal) / {
		kind = /<method / ? "method" : "signal"
		member = attr($0, "name"); ins = outs = ""
		if (/\/>/) flush()
	}
	/<arg / {
		if (attr($0, "direction") == "out") outs = outs attr($0, "type")
		else ins = ins attr($0, "type")
	}
	/<\/(method|signal)>/ { flush() }
	/<property / { printf "property %s %s (%s)\n", iface, attr($0, "name"), attr($0, "type") }
' "$src/daemon/org.realtimed.Realtime1.xml" >"$work/xml"
[ -s "$work/xml" ] || fail "no member read from the XML"

if ! "$mock" --list >"$work/mock"; then
	fail "mock-realtimed --list failed"
	finish
fi

# what the mock serves is in the XML, signatures and all
while read -r kind iface name sig; do
	if grep -qxF "$kind $iface $name $sig" "$work/xml"; then
		ok "the mock's $kind $iface.$name $sig is the XML's"
	elif there=$(grep "^$kind $iface $name " "$work/xml"); then
		fail "the mock serves $kind $iface.$name $sig, the XML has ${there#"$kind $iface $name "}"
	else
		fail "the mock serves $kind $iface.$name, which the XML does not have"
	fi
done <"$work/mock"

# what the clients name is served by the mock
while read -r kind iface name sig; do
	[ "$iface" = org.freedesktop.DBus.Peer ] && continue
	users=$(grep -lF "\"$name\"" "$src"/realtimectl/*.c "$src"/librealtime/*.c 2>/dev/null |
		sed "s|^$src/||" | tr '\n' ' ')
	[ -n "$users" ] || continue
	if grep -q "^$kind $iface $name " "$work/mock"; then
		ok "$kind $iface.$name, which ${users% } name, is served by the mock"
	else
		fail "$kind $iface.$name is named in ${users% }, but the mock does not serve it"
	fi
done <"$work/xml"
finish
