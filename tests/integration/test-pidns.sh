#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Programs in a container: started by an audio member in a new user and
# pid namespace (userns_run: unshare --user --map-current-user --pid --fork
# --mount-proc, as podman, toolbox, distrobox and bwrap start them), they
# send the ids they see. realtimed maps them through the caller's namespace
# (daemon/request-pidns.c) and grants the thread named, which is checked
# here from the host by its host tid (host_pid: the NSpid field):
# rtkit-test (which exits: its own readback and realtimed's log), `realtimectl grant PID/TID`
# for another process in the namespace, librealtime's calls
# (librealtime-check, whose own readbacks pass), `realtimectl run`, jackd
# under `realtimectl run --threads`, and an SDL2 program (sdl-prio, under
# dbus-run-session). A tid of another process of the same user inside the
# namespace, the ids of one outside it, and another user's process in a
# namespace root made, are refused with a message that names the namespace; the call xdg-desktop-portal makes (the host pid with
# the app's own tid) finds the app's thread.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon
[ -x "$REALTIMECTL" ] || skip "realtimectl is not built ($REALTIMECTL)"
RTKIT_TEST=/usr/libexec/installed-tests/rtkit/rtkit-test
INTEG_BUS_EXTRA=$INTEG_BUS_RTKIT
integ_setup
userns_run rtaudio true 2>"$WORK/unshare.err" ||
	skip "a user cannot make a user and pid namespace here: $(cat "$WORK/unshare.err")"
# rtalice's compat grants are SCHED_RR, the one policy rtkit-test reports
integ_admin_conf <<-EOF
	[User rtalice]
	CompatPolicy=rr
EOF
integ_start_daemon

# --- rtkit-test: MakeThreadRealtime(its tid as it sees it) ---
if [ -x "$RTKIT_TEST" ]; then
	out=$(userns_run rtalice sh -c "$RTKIT_TEST; exit \$?" 2>&1)
	echo "$out" | grep -A3 'after realtime' | grep -q 'SCHED_RR with priority 10' &&
		ok "rtkit-test in a pid namespace became realtime: SCHED_RR 10" ||
		fail "rtkit-test in a pid namespace: $(echo "$out" | grep -i 'realtime')"
	# it exits at once: realtimed's own word for the host thread it granted
	h=$(sed -n 's/.*Granted rr 10 to thread \([0-9]*\) of process \1 (user rtalice).*/\1/p' "$WORK/realtimed.log" | tail -n 1)
	[ -n "$h" ] && [ "$h" -gt 2 ] && ok "realtimed granted rtkit-test's thread 2 under its host id $h" ||
		fail "no grant of rr 10 to rtkit-test's host thread in the log"
	echo "$out" | grep -q 'Successfully became high priority' &&
		ok "rtkit-test in a pid namespace became high priority" || fail "rtkit-test high priority"
else
	note "$RTKIT_TEST is missing (Debian package rtkit): not tried"
fi

# --- calls from inside: a holder there, realtimectl grant, dbus-send ---
holder_start rtaudio 1 || finish
outside=$(holder_tid 1)
NS=$WORK/ns
mkdir "$NS"
chown rtaudio "$NS"
cat >"$NS/calls.sh" <<-EOF
	"$RT_CLIENT" hold 2 <>"$NS/calls.in" >"$NS/calls.hold" 2>&1 &
	i=0
	while ! grep -q '^threads' "$NS/calls.hold" && [ \$i -lt 100 ]; do sleep 0.05; i=\$((i + 1)); done
	set -- \$(sed -n 's/^threads //p' "$NS/calls.hold")
	call() { dbus-send --system --print-reply --reply-timeout=20000 "\$@" 2>&1; }
	echo "== grant \$!/\$1"
	"$REALTIMECTL" grant --fifo 7 "\$!/\$1" 2>&1
	echo "== other"
	call --dest=$RTKIT_NAME $RTKIT_PATH $RTKIT_IFACE.MakeThreadRealtime uint64:\$1 uint32:5
	echo "== outside"
	call --dest=$NATIVE_NAME $NATIVE_PATH $NATIVE_IFACE.MakeThreadRealtime \\
		uint64:$HOLDER_PID uint64:$outside string:fifo uint32:5
	echo "== outside-tid"
	call --dest=$RTKIT_NAME $RTKIT_PATH $RTKIT_IFACE.MakeThreadRealtime uint64:$outside uint32:5
	echo "== end"
	wait
EOF
mkfifo "$NS/calls.in"
chown rtaudio "$NS/calls.in"
userns_bg calls rtaudio sh "$NS/calls.sh"
wait_for 20 grep -q '^== end' "$WORK/calls.out" || fail "the calls in the namespace did not end: $(cat "$WORK/calls.out")"
section()
{
	awk -v s="$1" '$1 == "==" { f = ($2 == s); next } f' "$WORK/calls.out"
}
ns_ids=$(sed -n 's/^== grant //p' "$WORK/calls.out")
hpid=$(host_pid "$USERNS" "${ns_ids%/*}")
htid=$(host_pid "$USERNS" "${ns_ids#*/}" "/proc/$hpid/task")
note "the holder in the namespace: $ns_ids there, $hpid/$htid on the host"
[ -n "$htid" ] && expect_sched "realtimectl grant --fifo 7 $ns_ids in the namespace: the host thread has it" "$htid" "fifo 7" ||
	fail "no host thread for $ns_ids: $(section grant)"
expect_error "a tid of another process of the same user in the namespace is refused" \
	org.freedesktop.DBus.Error.Failed "no thread of pid [0-9]+ in the caller's pid namespace \(pid:\[$USERNS\]\)" \
	"$(section other)"
expect_error "a process outside the namespace, named by its host ids, is refused" \
	org.realtimed.Realtime1.Error.NoSuchProcess "pid $HOLDER_PID is no process in the caller's pid namespace \(pid:\[$USERNS\]\)" \
	"$(section outside)"
expect_error "a thread outside the namespace, named by its host tid, is refused" \
	org.freedesktop.DBus.Error.Failed "tid $outside is no thread of pid [0-9]+ in the caller's pid namespace" \
	"$(section outside-tid)"
expect_sched "the thread outside is left alone" "$outside" "other 0"

# what xdg-desktop-portal sends for an app (issue 837): the host pid, the
# app's own tid; from the user's session, outside the namespace
ns_tid2=$(awk '$1 == "threads" { print $3 }' "$NS/calls.hold")
htid2=$(host_pid "$USERNS" "$ns_tid2" "/proc/$hpid/task")
out=$(rtkit --as rtaudio MakeThreadRealtimeWithPID uint64:"$hpid" uint64:"$ns_tid2" uint32:9)
expect_success "a host caller's MakeThreadRealtimeWithPID($hpid, $ns_tid2), the tid as the app sees it" "$out"
[ -n "$htid2" ] && expect_sched "the app's thread $ns_tid2 is granted, on the host $htid2" "$htid2" "fifo 9" ||
	fail "no host thread for $ns_tid2 (threads: $(cat "$NS/calls.hold"))"
userns_stop
holder_stop

# a namespace that root made (a rootful container) holds other users'
# processes too: rtplain's is not rtaudio's to name
out=$(unshare --pid --fork --mount-proc --kill-child sh -c "
	setpriv --reuid=rtplain --regid=rtplain --init-groups sleep 30 & s=\$!
	sleep 0.3
	setpriv --reuid=rtaudio --regid=rtaudio --init-groups dbus-send --system --print-reply \
		--dest=$NATIVE_NAME $NATIVE_PATH $NATIVE_IFACE.MakeThreadRealtime \
		uint64:\$s uint64:\$s string:fifo uint32:5 2>&1
	kill \$s")
expect_error "another user's process in the caller's pid namespace is refused" \
	org.realtimed.Realtime1.Error.NoSuchProcess "pid [0-9]+ is no process in the caller's pid namespace" "$out"

# --- librealtime's calls; pid 1 there is the shell, another process ---
CHECK=$TOP_BUILDDIR/tests/integration/librealtime-check
if [ -x "$CHECK" ]; then
	userns_run rtaudio sh -c "\"\$0\" realtimed 95 -19 9223372036854775807 'priority 96 exceeds the limit 95'; exit \$?" \
		"$CHECK" >"$WORK/librealtime.out" 2>&1
	rc=$?
	n=$(grep -c '^ok - ' "$WORK/librealtime.out")
	[ "$rc" = 0 ] && [ "$n" -gt 20 ] && ok "librealtime-check in a pid namespace: $n checks pass" ||
		fail "librealtime-check in a pid namespace (exit $rc): $(grep -v '^ok - ' "$WORK/librealtime.out" | head -n 8)"
	grep -q '^ok - a thread that is not ours (1): -3 ' "$WORK/librealtime.out" &&
		ok "librealtime: tid 1, the namespace's shell, is refused (-ESRCH)" || fail "librealtime: tid 1"
else
	note "librealtime-check is not built: librealtime's calls are not tried"
fi

# --- realtimectl run --fifo 40 ---
userns_bg run rtaudio "$REALTIMECTL" run --fifo 40 -- sleep 60
wait_for 5 sh -c "grep -q sleep /proc/$USERNS_INIT/comm"
expect_sched "realtimectl run --fifo 40 -- sleep in a pid namespace" "$USERNS_INIT" "fifo 40"
userns_stop

# --- jackd under realtimectl run --threads ---
if command -v jackd >/dev/null && integ_require_preload 2>/dev/null; then
	mount -t tmpfs -o mode=1777 tmpfs /dev/shm || fail "cannot mount a private /dev/shm"
	mkdir -p "$WORK/jack"
	chown rtaudio "$WORK/jack"
	userns_bg jackd rtaudio env HOME="$WORK/jack" JACK_NO_AUDIO_RESERVATION=1 JACK_NO_START_SERVER=1 \
		"$REALTIMECTL" run --threads -- jackd -R -P 70 -d dummy -r 48000 -p 256
	jack_fifo70()
	{
		rt_threads "$USERNS_INIT" | grep -q 'fifo 70'
	}
	wait_for 10 jack_fifo70 && ok "jackd -R -P 70 under realtimectl run --threads in a pid namespace: $(rt_threads "$USERNS_INIT" | wc -l) threads at SCHED_FIFO 70 ($(rt_threads "$USERNS_INIT" | head -n 1))" ||
		fail "jackd in a pid namespace has no SCHED_FIFO 70 thread: $(tail -n 5 "$WORK/jackd.out")"
	userns_stop
else
	note "jackd (jackd2) or the preload is missing: jackd is not tried"
fi

# --- SDL2: SDL_SetThreadPriority(SDL_THREAD_PRIORITY_TIME_CRITICAL) ---
SDL_PRIO=$TOP_BUILDDIR/tests/integration/sdl-prio
if [ -x "$SDL_PRIO" ] && command -v dbus-run-session >/dev/null; then
	mkfifo "$WORK/sdl.in"
	chown rtaudio "$WORK/sdl.in"
	# a session bus that activates nothing: SDL would take
	# xdg-desktop-portal's Realtime interface where one answers there
	mkdir -p "$WORK/no-services"
	userns_bg sdl rtaudio env XDG_DATA_DIRS="$WORK/no-services" dbus-run-session -- "$SDL_PRIO" <>"$WORK/sdl.in"
	wait_for 10 grep -q '^ok\|^FAIL' "$WORK/sdl.out"
	t=$(sed -n 's/^ok tid //p' "$WORK/sdl.out")
	h=""
	for s in /proc/[0-9]*; do
		[ "$(stat -L -c %i "$s/ns/pid" 2>/dev/null)" = "$USERNS" ] &&
			[ "$(cat "$s/comm" 2>/dev/null)" = sdl-prio ] && h=$(host_pid "$USERNS" "$t" "$s/task") && break
	done
	[ -n "$h" ] && expect_sched "the SDL2 program's thread $t in a pid namespace is SCHED_FIFO 95 (host tid $h)" "$h" "fifo 95" ||
		fail "the SDL2 program in a pid namespace: $(cat "$WORK/sdl.out")"
	userns_stop
else
	note "sdl-prio is not built (libsdl2-dev) or dbus-run-session is missing: SDL2 is not tried"
fi
finish
