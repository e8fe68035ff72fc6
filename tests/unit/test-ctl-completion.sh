#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# realtimectl's bash completion (realtimectl/completion.bash) against the
# built realtimectl: verbs and each verb's options as --help lists them, user
# names where a USER goes, pids and PID/TID where a thread goes, files and
# directories for the policy paths, and a command's own completion after
# run's options.
#
#   test-ctl-completion.sh REALTIMECTL SRCDIR
set -u

ctl=$1
src=$2
# shellcheck source=tests/lib/tap.sh
. "$src/tests/lib/tap.sh"
TAP_SKIP_STATUS=0

[ -f /usr/share/bash-completion/bash_completion ] ||
	skip "bash-completion is not installed: apt-get install bash-completion"
# shellcheck disable=SC1091
. /usr/share/bash-completion/bash_completion
PATH=$(dirname "$(realpath "$ctl")"):$PATH
# shellcheck source=realtimectl/completion.bash
. "$src/realtimectl/completion.bash"

# complete WORD...: what completing the last WORD of "realtimectl WORD..."
# offers, one a line, sorted.
complete_words()
{
	COMP_WORDS=(realtimectl "$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="realtimectl $*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_realtimectl
	printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort
}

# has WORD LINES: LINES holds WORD as a line of its own.
has()
{
	printf '%s\n' "$2" | grep -qxF -- "$1"
}

verbs=$(complete_words "")
for v in policy explain status grant reset run reload irq check; do
	check "the verb $v is offered" has "$v" "$verbs"
done
check_eq "verbs are completed from a prefix" status "$(complete_words st)"
check_eq "policy's sub-verb" check "$(complete_words policy "")"

run_opts=$(complete_words run --)
for o in --fifo --rr --nice --limits --threads --help; do
	check "run offers $o" has "$o" "$run_opts"
done
check "run does not offer status's --all" sh -c '! printf "%s\n" "$1" | grep -qx -- --all' sh "$run_opts"
check "status offers --all" has --all "$(complete_words status --)"
check "check offers --user" has --user "$(complete_words check --)"

check "explain: user names" has root "$(complete_words explain ro)"
check "check --user: user names" has root "$(complete_words check --user ro)"
check "check --user=: user names" has root "$(complete_words check --user=ro)"

check "grant --fifo PRIO: this shell's pid" has "$$" "$(complete_words grant --fifo 50 "$$")"
check "grant --fifo: no pid for the PRIO" sh -c '[ -z "$1" ]' sh "$(complete_words grant --fifo "")"
check "grant --nice N: this shell's pid" has "$$" "$(complete_words grant --nice -5 "$$")"
check "reset PID/: the thread ids" has "$$/$$" "$(complete_words reset "$$/")"

work=$(mktemp -d "${TMPDIR:-/tmp}/test-ctl-completion.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
touch "$work/a.conf"
mkdir "$work/dir"
check "--conf: files" has "$work/a.conf" "$(complete_words --conf "$work/a")"
check "--admin-conf-dir: directories" has "$work/dir" "$(complete_words --admin-conf-dir "$work/d")"
check "after run's options: the command" has realtimectl "$(complete_words run --fifo 50 realtimect)"
check "after run's command: its arguments, not realtimectl's options" \
	sh -c '! printf "%s\n" "$1" | grep -qx -- --threads' sh "$(complete_words run --fifo 50 -- realtimectl --th)"
finish
