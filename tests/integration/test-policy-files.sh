#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The integration files of policy/ are valid for the tools that read them:
# systemd-analyze verify and security (the unit's exposure is printed and must
# stay low), dbus-daemon (the system.d files parse and grant what they should),
# polkit's action file, the activation file, sysusers and tmpfiles snippets.
# Needs no daemon and no root (the bus part is skipped without root).

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

integ_require_cmd systemd-analyze

P=$TOP_SRCDIR/policy
T=$(mktemp -d /tmp/realtimed-policy-files.XXXXXX) || skip "mktemp failed"
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"

# systemd unit: the daemon binary may not be built here; point at /bin/true
sed 's|^ExecStart=.*|ExecStart=/bin/true|; s|@libexecdir@|/usr/libexec|g' "$P/realtimed.service.in" >"$T/realtimed.service"
if out=$(systemd-analyze verify --man=no "$T/realtimed.service" 2>&1); then
	ok "systemd-analyze verify realtimed.service"
else
	fail "systemd-analyze verify realtimed.service: $out"
fi
grep -q '^Type=notify$' "$T/realtimed.service" && grep -q '^WatchdogSec=' "$T/realtimed.service" &&
	grep -q '^BusName=org.realtimed.Realtime1$' "$T/realtimed.service" &&
	ok "unit is Type=notify with WatchdogSec= and BusName=" || fail "unit lacks Type=notify/WatchdogSec/BusName"
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$T/realtimed.service" | tr ' ' '\n' | sort | tr '\n' ' ')
[ "$caps" = "CAP_DAC_READ_SEARCH CAP_SETGID CAP_SETPCAP CAP_SETUID CAP_SYS_NICE CAP_SYS_PTRACE CAP_SYS_RESOURCE " ] &&
	ok "capability bounding set: $caps" || fail "capability bounding set is '$caps'"
# the daemon drops to its own list when started by hand: the same list
if [ -f "$TOP_SRCDIR/daemon/caps.c" ]; then
	dcaps=$(sed -n '/caps_needed\[\] = {/,/};/p' "$TOP_SRCDIR/daemon/caps.c" | grep -o 'CAP_[A-Z_]*' | sort | tr '\n' ' ')
	[ "$dcaps" = "$caps" ] && ok "the unit keeps exactly the capabilities daemon/caps.c keeps" ||
		fail "unit CapabilityBoundingSet '$caps' differs from daemon/caps.c '$dcaps'"
fi
grep -q '^RestrictRealtime=yes' "$T/realtimed.service" && fail "RestrictRealtime=yes would forbid the daemon's job"
grep -q '^ProtectProc=invisible' "$T/realtimed.service" && fail "ProtectProc=invisible would hide the processes the daemon checks"

# exposure UNIT: systemd-analyze's overall exposure level of UNIT
exposure()
{
	systemd-analyze security --offline=true --no-pager "$1" 2>/dev/null |
		sed -n 's/.*Overall exposure level for realtimed.service: \([0-9.]*\).*/\1/p'
}
# The shield writes /proc/irq, which ProtectKernelTunables=yes keeps read-only
# whatever ReadWritePaths= says (systemd keeps the read-only one of two
# mounts of one path): the unit says ProtectKernelTunables=no and lists the
# switch's paths read-only itself, but for /proc/irq. systemd-analyze scores
# the switch alone (0.2), so the score is taken with the switch on, and the
# list is checked here.
exposure=$(exposure "$T/realtimed.service")
echo "# systemd-analyze security --offline=true: exposure $exposure"
mkdir "$T/pkt"
sed 's/^ProtectKernelTunables=no$/ProtectKernelTunables=yes/' "$T/realtimed.service" >"$T/pkt/realtimed.service"
pkt=$(exposure "$T/pkt/realtimed.service")
if [ -n "$pkt" ] && awk -v e="$pkt" 'BEGIN { exit !(e <= 2.0) }'; then
	ok "security exposure $pkt <= 2.0 with ProtectKernelTunables=yes ($exposure as shipped)"
else
	fail "security exposure '$pkt' (ProtectKernelTunables=yes) is above 2.0 (or unreadable)"
fi
if grep -qx 'ProtectKernelTunables=no' "$T/realtimed.service"; then
	# every path of the ReadOnlyPaths= lines, without their "-" (may be missing)
	ro=" $(sed -n 's/^ReadOnlyPaths=//p' "$T/realtimed.service" | tr ' ' '\n' | sed 's/^-//' | tr '\n' ' ') "
	missing=
	for path in /proc/acpi /proc/apm /proc/asound /proc/bus /proc/fs /proc/latency_stats \
		/proc/mtrr /proc/scsi /proc/sys /proc/sysrq-trigger /proc/timer_stats /sys; do
		case "$ro" in *" $path "*) ;; *) missing="$missing $path" ;; esac
	done
	[ -z "$missing" ] && ok "ProtectKernelTunables=no: the unit keeps the switch's paths read-only itself, but /proc/irq" ||
		fail "ProtectKernelTunables=no, and ReadOnlyPaths= lacks$missing"
fi

# activation file
sed 's|@libexecdir@|/usr/libexec|g' "$P/org.realtimed.Realtime1.service.in" >"$T/act.service"
grep -q '^Name=org.realtimed.Realtime1$' "$T/act.service" &&
	grep -q '^SystemdService=realtimed.service$' "$T/act.service" &&
	grep -q '^Exec=/usr/libexec/realtimed$' "$T/act.service" &&
	ok "activation file names the bus name, realtimed.service and the binary" ||
	fail "activation file is wrong: $(cat "$T/act.service")"

if command -v xmllint >/dev/null; then
	# XML files are well-formed
	for f in org.realtimed.Realtime1.conf realtimed-rtkit-compat.conf org.realtimed.policy; do
		if out=$(xmllint --noout "$P/$f" 2>&1); then
			ok "$f is well-formed XML"
		else
			fail "$f: $out"
		fi
	done

	# polkit actions and their defaults
	pol_default()
	{
		xmllint --xpath "string(//action[@id='$1']/defaults/$2)" "$P/org.realtimed.policy"
	}
	for a in acquire-realtime acquire-high-priority acquire-limits; do
		d="$(pol_default org.realtimed.$a allow_any) $(pol_default org.realtimed.$a allow_inactive) $(pol_default org.realtimed.$a allow_active)"
		[ "$d" = "no no yes" ] && ok "org.realtimed.$a: any/inactive/active = $d" ||
			fail "org.realtimed.$a: any/inactive/active = '$d', want 'no no yes'"
	done
	d="$(pol_default org.realtimed.manage allow_any) $(pol_default org.realtimed.manage allow_inactive) $(pol_default org.realtimed.manage allow_active)"
	[ "$d" = "auth_admin_keep auth_admin_keep auth_admin_keep" ] && ok "org.realtimed.manage: $d" ||
		fail "org.realtimed.manage: '$d'"

else
	note "xmllint (libxml2-utils) is missing: the XML checks are left out"
fi

# sysusers and tmpfiles snippets
if command -v systemd-sysusers >/dev/null; then
	mkdir -p "$T/root/etc"
	if out=$(systemd-sysusers --root="$T/root" "$P/realtimed.sysusers" 2>&1) &&
		grep -q '^audio:' "$T/root/etc/group"; then
		ok "sysusers snippet creates the audio group in an empty root"
	else
		fail "sysusers snippet: $out"
	fi
fi
if command -v systemd-tmpfiles >/dev/null; then
	if out=$(systemd-tmpfiles --root="$T/root" --create "$P/realtimed.tmpfiles" 2>&1) &&
		[ -d "$T/root/run/realtime" ] && [ -d "$T/root/etc/realtime/realtime.conf.d" ]; then
		ok "tmpfiles snippet creates /run/realtime and /etc/realtime/realtime.conf.d"
	else
		fail "tmpfiles snippet: $out"
	fi
fi

# polkit rules example parses as JavaScript-ish: at least balanced and names audio
grep -q 'isInGroup("audio")' "$P/50-realtimed-audio.rules.example" &&
	ok "example rules file answers for the audio group" || fail "example rules file does not mention audio"

# The bus accepts the system.d files: root may own both names, a user may not.
if [ "$(id -u)" = 0 ] && command -v dbus-daemon >/dev/null; then
	bus_config "$T/bus" >"$T/bus.conf"
	dbus-daemon --config-file="$T/bus.conf" --nofork --nopidfile --print-address=3 3>"$T/addr" 2>"$T/bus.log" &
	bus=$!
	if wait_for 10 test -s "$T/addr"; then
		for n in org.realtimed.Realtime1 org.freedesktop.RealtimeKit1; do
			out=$(DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/bus dbus-send --system --print-reply --dest=org.freedesktop.DBus \
				/org/freedesktop/DBus org.freedesktop.DBus.RequestName string:$n uint32:4 2>&1)
			echo "$out" | grep -q 'uint32 1' && ok "root may own $n" || fail "root may not own $n: $out"
			out=$(DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/bus setpriv --reuid=65534 --regid=65534 --clear-groups \
				dbus-send --system --print-reply --dest=org.freedesktop.DBus \
				/org/freedesktop/DBus org.freedesktop.DBus.RequestName string:$n uint32:4 2>&1)
			echo "$out" | grep -q 'AccessDenied' && ok "nobody may not own $n" || fail "nobody may own $n: $out"
		done
	else
		fail "dbus-daemon rejected the system.d files: $(cat "$T/bus.log")"
	fi
	kill "$bus" 2>/dev/null
	wait "$bus" 2>/dev/null
fi

finish
