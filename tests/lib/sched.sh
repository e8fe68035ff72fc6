# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
#
# The scheduling of tasks as the kernel reports it in /proc, and as
# realtimed's ListGrants and Demoted say.

# sched_of TID: "POLICY PRIORITY" as numbers, as the kernel reports them
# in /proc/TID/stat (policy 0 other, 1 fifo, 2 rr, 3 batch, 5 idle,
# 6 deadline); nothing if TID is gone.
sched_of()
{
	# fields 40 (rt_priority) and 41 (policy) of /proc/TID/stat, after the comm
	sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $39 % 1073741824, $38 }'
}

# sched_name_of TID: the same with the policy's name: "fifo 70", "other 0".
sched_name_of()
{
	sched_of "$1" | awk '{
		split("other fifo rr batch iso idle deadline", n, " ");
		print n[$1 + 1], $2 }'
}

# rt_threads PID: "TID POLICY PRIO" of each SCHED_FIFO/SCHED_RR thread of PID
rt_threads()
{
	for _t in /proc/"$1"/task/*; do
		_t=${_t##*/}
		_s=$(sched_name_of "$_t")
		case "$_s" in
		fifo* | rr*) echo "$_t $_s" ;;
		esac
	done
}

# nice_of TID
nice_of()
{
	sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $17 }'
}

# expect_sched DESC TID "fifo 70"
expect_sched()
{
	_s=$(sched_name_of "$2")
	if [ "$_s" = "$3" ]; then
		ok "$1 (thread $2 runs $_s)"
	else
		fail "$1: thread $2 runs '$_s', expected '$3'"
	fi
}

# grant_of TID: the grant ListGrants lists for TID as "KIND VALUE"
# ("fifo 40", "nice -10"), or nothing
grant_of()
{
	native ListGrants | awk -v t="$1" '
		$1 == "uint64" && $2 == t && prev ~ /uint64/ { found = 1; n = 0; next }
		{ prev = $0 }
		found && $1 == "string" { n++; if (n == 3) kind = $2 }
		found && $1 == "int32" { gsub(/"/, "", kind); print kind, $2; exit }'
}

# expect_demoted DESC FILE REASON TID...: dbus-monitor's output in FILE
# shows a Demoted signal with REASON (within 3 s) naming every TID.
expect_demoted()
{
	_d=$1 _f=$2 _r=$3
	shift 3
	if wait_for 3 grep -q "\"$_r\"" "$_f"; then
		for _t in "$@"; do
			grep -q "uint64 $_t\$" "$_f" || { fail "$_d: Demoted($_r) lacks thread $_t: $(cat "$_f")"; return; }
		done
		ok "$_d"
	else
		fail "$_d: no Demoted($_r) signal: $(cat "$_f")"
	fi
}

