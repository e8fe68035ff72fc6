#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# PulseAudio, unmodified (Debian's pulseaudio), asks for realtime through the
# RealtimeKit interface on the system bus when its sink's IO thread starts:
# against realtimed, for a member of audio, that thread runs realtime at the
# priority PulseAudio asked for (realtime-priority = 9), and realtimed lists
# the grant; its main thread gets the nice level it asked for.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon
integ_require_cmd pulseaudio
integ_setup
integ_start_daemon

d="$WORK/pa"
mkdir -p "$d/run" "$d/home/.config/pulse"
# PulseAudio's own defaults are realtime-priority 5 and nice-level -11
printf 'realtime-scheduling = yes\nrealtime-priority = 9\nhigh-priority = yes\nnice-level = -11\n' \
	>"$d/home/.config/pulse/daemon.conf"
chown -R rtaudio "$d"
chmod 700 "$d/run"
as_bg rtaudio env -u DBUS_SESSION_BUS_ADDRESS HOME="$d/home" XDG_RUNTIME_DIR="$d/run" \
	pulseaudio -n --daemonize=no --use-pid-file=no --exit-idle-time=-1 --system=no \
	--log-target=stderr \
	--log-level=info -L module-null-sink >"$d/pa.log" 2>&1
PA_PID=$!
integ_track $PA_PID

# pa_rt_thread: "TID POLICY PRIO" of a realtime thread of PulseAudio, if any
pa_rt_thread()
{
	for t in /proc/"$PA_PID"/task/*; do
		t=${t##*/}
		s=$(sched_name_of "$t")
		case "$s" in
		fifo* | rr*)
			echo "$t $s"
			return 0
			;;
		esac
	done
	return 1
}

if wait_for 15 pa_rt_thread; then
	rt=$(pa_rt_thread)
	case "$rt" in
	*" 9") ok "PulseAudio's IO thread runs realtime at the priority it asked for ($rt)" ;;
	*) fail "PulseAudio's realtime thread is not at 9: $rt" ;;
	esac
	tid=${rt%% *}
	"$REALTIMECTL" status --json 2>/dev/null | grep -q "\"tid\": *$tid" &&
		ok "realtimed supervises PulseAudio's IO thread $tid" ||
		fail "realtimectl status does not list PulseAudio's thread $tid: $("$REALTIMECTL" status 2>&1)"
else
	fail "PulseAudio got no realtime thread: $(grep -i 'rtkit\|realtime\|priority\|scheduling' "$d/pa.log" | head -n 5)"
fi
nice=$(awk '{ print $19 }' /proc/"$PA_PID"/stat 2>/dev/null)
[ "$nice" = -11 ] && ok "PulseAudio's main thread got the nice level -11 it asked for" ||
	fail "PulseAudio's main thread nice is '$nice', not -11: $(grep -i 'nice\|high-priority' "$d/pa.log" | head -n 3)"
kill "$PA_PID" 2>/dev/null
finish
