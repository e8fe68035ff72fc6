# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh disable=SC2034 # its variables are for the scripts that source it
#
# The project's test users, written here once for every tier: rtaudio and
# rtalice are members of audio (the shipped policy's privileged group),
# rtplain is in no extra group, rtcaps has a policy of its own where a test
# writes one (Capabilities=, tests/vm/guest/pam.sh). Each has a group of its
# own name and id.

UID_AUDIO=4101
UID_PLAIN=4102
UID_ALICE=4103
UID_CAPS=4110
# NAME UID MEMBER-OF-AUDIO
TEST_USERS="rtaudio $UID_AUDIO yes
rtplain $UID_PLAIN no
rtalice $UID_ALICE yes
rtcaps $UID_CAPS no"

# users_append ETC HOME: writes the test users into ETC/passwd, group and
# shadow (in place of any lines of theirs there), with HOME as their home,
# and makes the audio members members of audio (gid 29 if there is no audio).
users_append()
{
	_members=""
	while read -r _n _u _a; do
		sed -i "/^$_n:/d" "$1/passwd" "$1/group" "$1/shadow"
		echo "$_n:x:$_u:$_u:realtimed test user:$2:/bin/sh" >>"$1/passwd"
		echo "$_n:x:$_u:" >>"$1/group"
		echo "$_n:*:19000:0:99999:7:::" >>"$1/shadow"
		[ "$_a" = no ] || _members="$_members,$_n"
	done <<-EOU
	$TEST_USERS
	EOU
	_members=${_members#,}
	if grep -q '^audio:' "$1/group"; then
		awk -F: -v OFS=: -v m="$_members" '$1 == "audio" {
			n = split(m, add, ",")
			for (i = 1; i <= n; i++)
				if (("," $4 ",") !~ ("," add[i] ","))
					$4 = ($4 == "" ? "" : $4 ",") add[i]
		} { print }' "$1/group" >"$1/group.new" && cat "$1/group.new" >"$1/group" && rm -f "$1/group.new"
	else
		echo "audio:x:29:$_members" >>"$1/group"
	fi
}

# add_test_users: the test users in this system's own /etc (a VM's, whose
# /etc is a tmpfs overlay or its own disk), home /tmp.
add_test_users()
{
	users_append /etc /tmp
}

# mount_test_users DIR: the test users in copies of /etc/passwd, group and
# shadow under DIR/etc, bind-mounted over the real ones (in a private mount
# namespace: the host's files never change); skips unless NSS then sees them.
mount_test_users()
{
	mkdir -p "$1/etc"
	cp /etc/passwd /etc/group /etc/shadow "$1/etc/"
	users_append "$1/etc" /nonexistent
	chmod 644 "$1/etc/passwd" "$1/etc/group"
	chmod 640 "$1/etc/shadow"
	for _f in passwd group shadow; do
		mount --bind "$1/etc/$_f" "/etc/$_f" || skip "cannot bind-mount over /etc/$_f"
	done
	id rtaudio 2>/dev/null | grep -q '(audio)' ||
		skip "NSS does not see the test users (is /etc/passwd read through nscd or another service?)"
}
