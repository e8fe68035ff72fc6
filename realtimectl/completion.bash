# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# bash completion for realtimectl(1): its verbs, options, user names and
# pids. The verbs and options come from `realtimectl --help` itself, so a
# verb added to realtimectl is completed without a change here. Installed to
# bash-completion's completionsdir (realtimectl/meson.build).

# _realtimectl_help: realtimectl's --help, read once per shell.
_realtimectl_help()
{
	[ -n "${_realtimectl_help_text-}" ] ||
		_realtimectl_help_text=$(LC_ALL=C realtimectl --help 2>/dev/null)
	printf '%s\n' "$_realtimectl_help_text"
}

# _realtimectl_verbs: the verbs, one a line ("policy check" gives policy).
_realtimectl_verbs()
{
	_realtimectl_help | awk '/^Options:/ { exit } /^  [a-z]/ { print $1 }' | sort -u
}

# _realtimectl_verb_options VERB: the options --help shows on VERB's usage
# lines ("run [--fifo PRIO|--rr PRIO] ..." gives --fifo --rr ...), then the
# ones of the Options: list, which every verb takes.
_realtimectl_verb_options()
{
	_realtimectl_help | awk -v verb="$1" '
		/^Options:/ { opts = 1; next }
		opts && /^ *(-h )?--/ { sub(/^ *(-h )?/, ""); sub(/[= ].*/, ""); print; next }
		!opts && /^  [a-z]/ {
			if ($1 != verb)
				next
			# the usage: up to the two spaces before the description
			line = substr($0, 3)
			sub(/  .*/, "", line)
			while (match(line, /--[a-z-]+/)) {
				print substr(line, RSTART, RLENGTH)
				line = substr(line, RSTART + RLENGTH)
			}
		}'
}

# _realtimectl_pids: the pids of the processes here, or with PID/ given, that
# process's thread ids as PID/TID.
_realtimectl_pids()
{
	local cur=$1 pid
	if [[ $cur == */* ]]; then
		pid=${cur%%/*}
		[[ $pid =~ ^[0-9]+$ ]] || return
		mapfile -t COMPREPLY < <(compgen -P "$pid/" -W "$(command ls "/proc/$pid/task" 2>/dev/null)" -- "${cur#*/}")
		return
	fi
	mapfile -t COMPREPLY < <(compgen -W "$(command ls /proc 2>/dev/null | grep -E '^[0-9]+$')" -- "$cur")
}

_realtimectl()
{
	local cur prev words cword split
	_init_completion -s -n / || return

	local i verb='' verb_at=0 operands=0
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		--conf | --vendor-conf | --admin-conf | --vendor-conf-dir | --admin-conf-dir | --user | --nice)
			((i++))
			;;
		--) [[ $verb == run ]] && { _command_offset $((i + 1)); return; } ;;
		-*) ;;
		*)
			if [[ -z $verb ]]; then
				verb=${words[i]}
				verb_at=$i
			elif [[ $verb == run && ${words[i - 1]} != --fifo && ${words[i - 1]} != --rr ]]; then
				# run's COMMAND: complete its own arguments
				_command_offset "$i"
				return
			else
				((operands++))
			fi
			;;
		esac
	done

	case $prev in
	--conf | --vendor-conf | --admin-conf)
		_filedir
		return
		;;
	--vendor-conf-dir | --admin-conf-dir)
		_filedir -d
		return
		;;
	--user)
		mapfile -t COMPREPLY < <(compgen -u -- "$cur")
		return
		;;
	--nice)
		mapfile -t COMPREPLY < <(compgen -W "$(seq -20 19)" -- "$cur")
		return
		;;
	esac
	$split && return

	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_realtimectl_verb_options "$verb" | sort -u)" -- "$cur")
		[[ ${COMPREPLY-} == *= ]] && compopt -o nospace
		return
	fi
	if [[ -z $verb ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_realtimectl_verbs)" -- "$cur")
		return
	fi

	case $verb in
	policy)
		if ((operands == 0)); then
			mapfile -t COMPREPLY < <(compgen -W check -- "$cur")
		else
			_filedir conf
		fi
		;;
	explain)
		((operands == 0)) && mapfile -t COMPREPLY < <(compgen -u -- "$cur")
		;;
	grant)
		# grant [--fifo|--rr] PRIO PID[/TID], grant --nice N PID[/TID]
		local pid_at=1
		[[ " ${words[*]:verb_at:cword-verb_at} " == *" --nice "* ]] && pid_at=0
		((operands == pid_at)) && _realtimectl_pids "$cur"
		;;
	reset)
		((operands == 0)) && _realtimectl_pids "$cur"
		;;
	run)
		[[ $prev == --fifo || $prev == --rr ]] && return
		mapfile -t COMPREPLY < <(compgen -c -- "$cur")
		;;
	esac
}
complete -F _realtimectl realtimectl
