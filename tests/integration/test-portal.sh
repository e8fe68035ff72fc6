#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Sandboxed apps: Debian's xdg-desktop-portal (1.16) forwards its Realtime
# portal to org.freedesktop.RealtimeKit1, here served by realtimed. What the
# portal does (src/realtime.c, src/xdp-utils.c): it names the app by the
# /.flatpak-info in the root of the D-Bus caller's process; for a flatpak
# app it finds the app's pid namespace in
# $XDG_RUNTIME_DIR/.flatpak/INSTANCE/bwrapinfo.json (bwrap --info-fd),
# maps the pid, then the tid, to host ids by the last NSpid field of each
# process of that namespace (refusing ids it cannot find there or whose
# owner is not the portal's uid), and calls
# MakeThreadRealtimeWithPID(host pid, host tid, priority) on the system bus
# as the user. For an app without /.flatpak-info ("host") it maps nothing.
# Its permission store can forbid an app; an app it has no entry for may ask.
#
# Here, as the audio member rtaudio (RLIMIT_RTPRIO 0) with a session bus of
# its own: the portal itself; an app in `bwrap --unshare-pid` carrying a
# /.flatpak-info as flatpak writes it, whose sleeping thread asks the portal
# with the ids it sees (pid 3, tid 4, say). realtimed grants the right host
# thread, found independently here from /proc; a pid that is not the app's
# is refused and nothing outside the sandbox changes, as is an app that the
# permission store (xdg-permission-store) forbids; an app the portal does
# not know as sandboxed gets its namespace ids passed on untranslated, and
# realtimed refuses them (they are not the caller's threads). Last, a real
# sandboxed client: PipeWire's JACK client (pw-jack jack_metro) in the
# flatpak sandbox, whose module-rt asks the portal by itself, gets its
# process thread SCHED_FIFO 88 on the host with RLIMIT_RTPRIO still 0.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon
PORTAL=${PORTAL:-/usr/libexec/xdg-desktop-portal}
integ_require_cmd "$PORTAL" bwrap dbus-monitor
integ_setup
integ_start_daemon

U=rtaudio
PRIO=10
P=$WORK/portal
RUN=$P/run
mkdir -p "$RUN" "$P/home"
chown -R $U "$P"
chmod 700 "$RUN"
run_as $U bwrap --unshare-pid --ro-bind / / true 2>"$P/bwrap.err" ||
	skip "bwrap cannot make a pid namespace for an unprivileged user here (user namespaces?): $(cat "$P/bwrap.err")"

# the user's session bus: the portal and the apps meet there
cat >"$P/session.conf" <<-EOF
	<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
	 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
	<busconfig>
	  <type>session</type>
	  <listen>unix:path=$RUN/bus</listen>
	  <auth>EXTERNAL</auth>
	  <policy context="default">
	    <allow send_destination="*" eavesdrop="true"/>
	    <allow eavesdrop="true"/>
	    <allow own="*"/>
	  </policy>
	</busconfig>
EOF
as_bg $U dbus-daemon --config-file="$P/session.conf" --nofork --nopidfile >"$P/session.log" 2>&1
integ_track $!
wait_for 5 test -S "$RUN/bus" || { cat "$P/session.log"; skip "the session dbus-daemon did not start"; }
SESSION=unix:path=$RUN/bus

as_bg $U env HOME="$P/home" XDG_RUNTIME_DIR="$RUN" DBUS_SESSION_BUS_ADDRESS="$SESSION" \
	"$PORTAL" --verbose >"$P/portal.log" 2>&1
PORTAL_PID=$!
integ_track $PORTAL_PID
# session_has_owner NAME: true when NAME is owned on the session bus
session_has_owner()
{
	run_as $U dbus-send --bus="$SESSION" --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
		org.freedesktop.DBus.NameHasOwner "string:$1" 2>/dev/null | grep -q 'boolean true'
}
if ! wait_for 10 session_has_owner org.freedesktop.portal.Desktop; then
	tail -n 20 "$P/portal.log"
	skip "xdg-desktop-portal did not take org.freedesktop.portal.Desktop on the session bus"
fi
props=$(run_as $U dbus-send --bus="$SESSION" --print-reply --dest=org.freedesktop.portal.Desktop \
	/org/freedesktop/portal/desktop org.freedesktop.DBus.Properties.Get \
	string:org.freedesktop.portal.Realtime string:MaxRealtimePriority 2>&1)
echo "$props" | grep -q 'int32 95' &&
	ok "the portal's Realtime interface reads MaxRealtimePriority 95 from realtimed (for $U, an audio member)" ||
	fail "the portal's MaxRealtimePriority: $props"

dbus-monitor --system "type='method_call',interface='$RTKIT_IFACE'" >"$WORK/monitor.out" 2>&1 &
integ_track $!

# sandbox_run NAME flatpak|plain [BWRAP-ARG...] -- COMMAND...: COMMAND as
# $U in bwrap with its own pid namespace, in a root made of the host's /usr
# and /etc (as flatpak builds one, so that /.flatpak-info can be placed in
# it), with the session bus; "flatpak" adds a /.flatpak-info and the
# bwrapinfo.json that flatpak leaves for the portal. Its stdin is
# $P/NAME/app.in, its output $P/NAME/out.log. Sets SB_NS, the inode of the
# sandbox's pid namespace.
sandbox_run()
{
	_d=$P/$1
	mkdir -p "$_d"
	_info=$_d/bwrapinfo.json
	_fp=""
	if [ "$2" = flatpak ]; then
		_inst=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
		printf '[Application]\nname=org.realtimed.Test%s\nruntime=runtime/org.freedesktop.Platform/x86_64/23.08\n\n[Instance]\ninstance-id=%s\n' \
			"$1" "$_inst" >"$_d/flatpak-info"
		mkdir -p "$RUN/.flatpak/$_inst"
		_info=$RUN/.flatpak/$_inst/bwrapinfo.json
		_fp="--ro-bind $_d/flatpak-info /.flatpak-info"
	fi
	shift 2
	mkfifo "$_d/app.in"
	chown -R $U "$_d" "$RUN/.flatpak" 2>/dev/null
	# shellcheck disable=SC2086
	as_bg $U bwrap --unshare-pid --die-with-parent \
		--ro-bind /usr /usr --symlink usr/lib /lib --symlink usr/lib64 /lib64 \
		--symlink usr/bin /bin --symlink usr/sbin /sbin --ro-bind /etc /etc \
		--proc /proc --dev /dev --tmpfs /tmp --bind "$_d" "$_d" \
		--bind "$RUN/bus" /run/session-bus --setenv DBUS_SESSION_BUS_ADDRESS unix:path=/run/session-bus \
		$_fp --info-fd 3 "$@" 3>"$_info" <>"$_d/app.in" >"$_d/out.log" 2>&1
	integ_track $!
	wait_for 5 grep -q '"pid-namespace"' "$_info" || { fail "bwrap wrote no pid-namespace: $(cat "$_info" "$_d/out.log")"; return 1; }
	SB_NS=$(sed -n 's/.*"pid-namespace": *\([0-9]*\).*/\1/p' "$_info")
}

# sandbox_start NAME flatpak|plain: an app in a sandbox that runs
# `rt-client hold 1` and a shell that makes the portal call on "call PID
# TID PRIO" written to $P/NAME/app.in. Sets SB_NS, and SB_PID and SB_TID
# (the holder's ids as the app sees them).
sandbox_start()
{
	mkdir -p "$P/$1"
	cat >"$P/$1/app.sh" <<-'EOF'
		d=$1
		/app/rt-client hold 1 <>"$d/holder.in" >"$d/holder.out" 2>&1 &
		while read -r cmd pid tid prio; do
			[ "$cmd" = call ] || break
			dbus-send --session --print-reply --reply-timeout=20000 \
				--dest=org.freedesktop.portal.Desktop /org/freedesktop/portal/desktop \
				org.freedesktop.portal.Realtime.MakeThreadRealtimeWithPID \
				"uint64:$pid" "uint64:$tid" "uint32:$prio" >"$d/reply.new" 2>&1
			mv "$d/reply.new" "$d/reply"
		done
	EOF
	mkfifo "$P/$1/holder.in"
	sandbox_run "$1" "$2" --ro-bind "$RT_CLIENT" /app/rt-client -- /bin/sh "$P/$1/app.sh" "$P/$1" || return 1
	wait_for 5 grep -q '^threads' "$P/$1/holder.out" || { cat "$P/$1/holder.out"; fail "the app in $1 did not start"; return 1; }
	SB_PID=$(sed -n 's/^pid //p' "$P/$1/holder.out")
	SB_TID=$(sed -n 's/^threads //p' "$P/$1/holder.out")
}

# app_call NAME PID TID PRIO: the app's portal call; prints dbus-send's output
app_call()
{
	rm -f "$P/$1/reply"
	timeout 5 sh -c "echo 'call $2 $3 $4' >'$P/$1/app.in'"
	wait_for 25 test -f "$P/$1/reply" || { echo "Error (none): the app gave no answer"; return; }
	cat "$P/$1/reply"
}

calls_for()
{
	grep -A2 'member=MakeThreadRealtimeWithPID' "$WORK/monitor.out" | grep -c "uint64 $1\$"
}

# caller_of TID: the pid of the system-bus connection that called
# MakeThreadRealtimeWithPID for TID (the bus's own word for who asked)
caller_of()
{
	_sender=$(grep -A2 'member=MakeThreadRealtimeWithPID' "$WORK/monitor.out" |
		awk -v t="$1" '/member=/ { for (i = 1; i <= NF; i++) if ($i ~ /^sender=/) s = substr($i, 8) }
			$1 == "uint64" && $2 == t { print s; exit }')
	[ -n "$_sender" ] || return
	dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
		org.freedesktop.DBus.GetConnectionUnixProcessID "string:$_sender" 2>/dev/null | awk '$1 == "uint32" { print $2 }'
}

# 1. A flatpak app in its own pid namespace asks for its own thread.
sandbox_start fp flatpak || finish
hpid=$(host_pid "$SB_NS" "$SB_PID")
htid=$(host_pid "$SB_NS" "$SB_TID" "/proc/$hpid/task")
note "the app's holder: pid $SB_PID tid $SB_TID in its namespace, $hpid/$htid on the host"
[ -n "$htid" ] && [ "$hpid" != "$SB_PID" ] && [ "$htid" != "$SB_TID" ] ||
	{ fail "the sandbox does not hide the host ids ($SB_PID/$SB_TID is $hpid/$htid)"; finish; }
out=$(app_call fp "$SB_PID" "$SB_TID" $PRIO)
expect_success "the portal accepts the app's MakeThreadRealtimeWithPID($SB_PID, $SB_TID, $PRIO)" "$out"
expect_sched "the app's thread, on the host, runs the grant" "$htid" "fifo $PRIO"
[ "$(grant_of "$htid")" = "fifo $PRIO" ] && ok "realtimed lists the grant under the host ids $hpid/$htid" ||
	fail "ListGrants has no fifo $PRIO for $htid: $(native ListGrants | head -n 30)"
if grep -A3 'member=MakeThreadRealtimeWithPID' "$WORK/monitor.out" | tr -s ' \n' ' ' |
	grep -q "uint64 $hpid uint64 $htid uint32 $PRIO"; then
	ok "the portal called RealtimeKit1.MakeThreadRealtimeWithPID($hpid, $htid, $PRIO): the host ids"
else
	fail "no MakeThreadRealtimeWithPID($hpid, $htid) on the system bus: $(cat "$WORK/monitor.out")"
fi
[ "$(caller_of "$htid")" = "$PORTAL_PID" ] && ok "the caller on the system bus was the portal (pid $PORTAL_PID)" ||
	fail "the call for $htid came from pid '$(caller_of "$htid")', not the portal's $PORTAL_PID"
for t in $SB_PID $SB_TID; do
	[ "$(calls_for "$t")" = 0 ] || fail "the namespace id $t reached realtimed untranslated"
done

# 2. A pid that is not the app's: a thread of the same user outside the
# sandbox. The portal finds no such pid in the app's namespace and refuses.
holder_start $U 1 || finish
other=$(holder_tid 1)
out=$(app_call fp "$HOLDER_PID" "$other" $PRIO)
if printf '%s\n' "$out" | grep -q '^Error' && printf '%s\n' "$out" | grep -qi 'map pid'; then
	ok "a pid outside the sandbox is refused ($(printf '%s\n' "$out" | head -n 1 | cut -c1-140))"
else
	fail "the app asked for $HOLDER_PID/$other outside its sandbox: $out"
fi
expect_sched "the thread outside the sandbox is untouched" "$other" "other 0"
[ "$(calls_for "$other")" = 0 ] && ok "no request for $other reached realtimed" ||
	fail "a request for $other reached realtimed"

# ...and a tid that is not a thread of the app's pid (its shell's pid)
out=$(app_call fp "$SB_PID" 2 $PRIO)
if printf '%s\n' "$out" | grep -q '^Error' && printf '%s\n' "$out" | grep -qi 'map tid'; then
	ok "a tid that is not a thread of the pid is refused ($(printf '%s\n' "$out" | head -n 1 | cut -c1-140))"
else
	fail "the app asked for tid 2 of pid $SB_PID: $out"
fi
holder_stop

# ...and an app the user's permission store forbids: the portal refuses it
# before asking realtimed. (xdg-permission-store from the same package.)
PERMSTORE=/usr/libexec/xdg-permission-store
if [ -x "$PERMSTORE" ]; then
	as_bg $U env HOME="$P/home" XDG_RUNTIME_DIR="$RUN" DBUS_SESSION_BUS_ADDRESS="$SESSION" \
		"$PERMSTORE" --replace >"$P/permission-store.log" 2>&1
	integ_track $!
	wait_for 10 session_has_owner org.freedesktop.impl.portal.PermissionStore
	out=$(run_as $U dbus-send --bus="$SESSION" --print-reply --dest=org.freedesktop.impl.portal.PermissionStore \
		/org/freedesktop/impl/portal/PermissionStore org.freedesktop.impl.portal.PermissionStore.SetPermission \
		string:realtime boolean:true string:realtime string:org.realtimed.Testfp array:string:no 2>&1)
	expect_success "the permission store says no to org.realtimed.Testfp" "$out"
	before=$(calls_for "$htid")
	out=$(app_call fp "$SB_PID" "$SB_TID" 12)
	if printf '%s\n' "$out" | grep -q '^Error' && printf '%s\n' "$out" | grep -qi 'permission denied'; then
		ok "the portal refuses a forbidden app ($(printf '%s\n' "$out" | head -n 1 | cut -c1-140))"
	else
		fail "a forbidden app asked for fifo 12: $out"
	fi
	expect_sched "its thread keeps its grant" "$htid" "fifo $PRIO"
	[ "$(calls_for "$htid")" = "$before" ] && ok "no request of the forbidden app reached realtimed" ||
		fail "the forbidden app's request reached realtimed"
else
	note "$PERMSTORE is missing: the permission store's refusal is not tried"
fi

# 3. An app the portal does not know as sandboxed (no /.flatpak-info), in
# its own pid namespace: the portal passes its ids on as they are, and
# realtimed refuses them, as they name host threads that are not the
# caller's (or none at all).
sandbox_start plain || finish
hpid=$(host_pid "$SB_NS" "$SB_PID")
htid=$(host_pid "$SB_NS" "$SB_TID" "/proc/$hpid/task")
owner=$(stat -c %u "/proc/$SB_PID" 2>/dev/null)
note "the unknown app's holder: $SB_PID/$SB_TID in its namespace, $hpid/$htid on the host; host pid $SB_PID belongs to uid ${owner:-nobody}"
if [ "$owner" = "$UID_AUDIO" ]; then
	note "host pid $SB_PID is $U's own here; the untranslated-ids check cannot tell"
else
	out=$(app_call plain "$SB_PID" "$SB_TID" $PRIO)
	# realtimed's answer, passed back by the portal: not the caller's, or none
	if printf '%s\n' "$out" | grep -q '^Error org.freedesktop.DBus.Error.\(AccessDenied\|Failed\)' &&
		printf '%s\n' "$out" | grep -qE 'names no process of the caller|not a thread of|does not exist|exited'; then
		ok "realtimed refuses the untranslated ids $SB_PID/$SB_TID ($(printf '%s\n' "$out" | head -n 1 | cut -c1-140))"
	else
		fail "the unknown app's request for $SB_PID/$SB_TID: $out"
	fi
	[ "$(calls_for "$SB_TID")" -ge 1 ] && ok "the portal passed the ids on untranslated to RealtimeKit1" ||
		fail "the untranslated request never reached realtimed: $(cat "$WORK/monitor.out")"
	expect_sched "the unknown app's thread stays as it was" "$htid" "other 0"
	[ -z "$(grant_of "$SB_TID")" ] && ok "host thread $SB_TID, not the app's, got no grant" ||
		fail "host thread $SB_TID, not the app's, has a grant: $(grant_of "$SB_TID")"
fi

# 4. A real sandboxed client: PipeWire's JACK client (pw-jack jack_metro)
# in the flatpak sandbox. Its module-rt finds the portal on the session bus
# and asks it with the ids it sees; PipeWire itself runs outside. PipeWire
# makes a flatpak client wait until the session manager sets its
# permissions; with no session manager here, pw-cli does that.
if ! command -v pipewire >/dev/null || ! command -v pw-jack >/dev/null ||
	! command -v jack_metro >/dev/null || ! command -v pw-cli >/dev/null; then
	note "pipewire, pw-jack, pw-cli or jack_metro is missing: no sandboxed JACK client (pipewire-bin, pipewire-jack, jackd2)"
	finish
fi
mount -t tmpfs -o mode=1777 tmpfs /dev/shm || { fail "cannot mount a private /dev/shm"; finish; }
PW="env -u DBUS_SESSION_BUS_ADDRESS HOME=$P/home XDG_RUNTIME_DIR=$RUN"
# shellcheck disable=SC2086
as_bg $U $PW PIPEWIRE_DEBUG=3 pipewire >"$P/pipewire.log" 2>&1
integ_track $!
wait_for 10 test -S "$RUN/pipewire-0" || { tail -n 20 "$P/pipewire.log"; fail "pipewire did not start"; finish; }
sandbox_run jack flatpak --tmpfs /dev/shm --dir /run/pw --bind "$RUN/pipewire-0" /run/pw/pipewire-0 \
	--setenv XDG_RUNTIME_DIR /run/pw --setenv HOME /tmp --setenv PIPEWIRE_DEBUG 3 \
	-- pw-jack jack_metro -b 120 || finish
# pw_flatpak_client: the id of the PipeWire client that waits as "flatpak"
pw_flatpak_client()
{
	# shellcheck disable=SC2086
	run_as $U $PW pw-cli ls Client 2>/dev/null | awk '
		$1 == "id" { id = $2; sub(",", "", id) }
		/pipewire.access = "flatpak"/ { print id; exit }'
}
pw_has_flatpak_client()
{
	[ -n "$(pw_flatpak_client)" ]
}
wait_for 10 pw_has_flatpak_client
cid=$(pw_flatpak_client)
[ -n "$cid" ] || { fail "PipeWire has no flatpak client: $(tail -n 5 "$P/jack/out.log")"; finish; }
# shellcheck disable=SC2086
run_as $U $PW pw-cli -- permissions "$cid" -1 0710 >/dev/null 2>&1
wait_for 10 grep -q 'impl_create()] create thread' "$P/jack/out.log" ||
	{ fail "jack_metro in the sandbox did not activate: $(tail -n 5 "$P/jack/out.log")"; finish; }
wait_for 10 sh -c "grep -A20 'create thread' '$P/jack/out.log' | grep -q 'acquired realtime priority'"
jpid=""
for h in /proc/[0-9]*; do
	h=${h#/proc/}
	[ "$(stat -L -c %i "/proc/$h/ns/pid" 2>/dev/null)" = "$SB_NS" ] &&
		[ "$(cat "/proc/$h/comm" 2>/dev/null)" = jack_metro ] && jpid=$h && break
done
jtid=""
for t in /proc/"$jpid"/task/*; do
	t=${t##*/}
	[ "$(cat "/proc/$jpid/task/$t/comm" 2>/dev/null)" = jack_metro ] && [ "$t" != "$jpid" ] && jtid=$t
done
asked=$(grep -A20 'create thread' "$P/jack/out.log" | sed -n 's/.*acquired realtime priority 88 for thread \([0-9]*\) .*/\1/p' | head -n 1)
inner=$(awk '/^NSpid:/ { print $NF }' "/proc/$jpid/task/$jtid/status" 2>/dev/null)
note "jack_metro in the sandbox: host $jpid, process thread $jtid (in the sandbox $inner); module-rt says it asked for thread ${asked:-?}"
expect_sched "the sandboxed JACK client's process thread runs SCHED_FIFO 88 on the host" "$jtid" "fifo 88"
[ -n "$asked" ] && [ "$asked" = "$inner" ] && [ "$asked" != "$jtid" ] &&
	ok "the client asked for its thread by its sandbox id $asked; the host thread is $jtid" ||
	fail "the client's own id for its thread: '$asked', NSpid says '$inner', host '$jtid'"
[ "$(grant_of "$jtid")" = "fifo 88" ] && ok "realtimed lists the grant for $jpid/$jtid" ||
	fail "ListGrants has no fifo 88 for $jtid"
[ "$(caller_of "$jtid")" = "$PORTAL_PID" ] && ok "RealtimeKit1 was asked by the portal, with the host ids" ||
	fail "the RealtimeKit1 call for $jtid came from '$(caller_of "$jtid")', not the portal's $PORTAL_PID"
grep -q '^Max realtime priority *0 *0 ' "/proc/$jpid/limits" && ok "the sandboxed client's RLIMIT_RTPRIO is still 0" ||
	fail "the sandboxed client's RLIMIT_RTPRIO: $(grep -i 'realtime priority' "/proc/$jpid/limits")"

finish
