# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
#
# A real LDAP directory served through NSS, for tests/integration/test-directory.sh
# and bench/directory-bench.sh. Sourced after lib.sh, inside the private
# mount namespace that integ_enter made, once integ_setup has made $WORK:
#
#   - Debian's slapd on an ldapi:// socket in $WORK only (no TCP port), with
#     a throw-away mdb database in $WORK/ldap loaded by slapadd from an LDIF
#     the caller writes (dir_ldif_* help), schemas core, cosine, nis and
#     inetorgperson from /etc/ldap/schema;
#   - nslcd with a private /etc/nslcd.conf (bind-mounted) pointing at that
#     socket, and a tmpfs on /run/nslcd, where libnss_ldap.so.2 looks for
#     nslcd's socket;
#   - a private /etc/nsswitch.conf with "passwd: files ldap" and
#     "group: files ldap".
#
# Nothing on the host changes: the packages' own services stay stopped
# (scripts/deps.sh installs them so), and every file above is a bind mount
# or tmpfs of the namespace.

SLAPD=${SLAPD:-/usr/sbin/slapd}
SLAPADD=${SLAPADD:-/usr/sbin/slapadd}
NSLCD=${NSLCD:-/usr/sbin/nslcd}
DIR_SUFFIX="dc=realtimed,dc=test"
DIR_ROOTDN="cn=admin,$DIR_SUFFIX"
DIR_ROOTPW=realtimed-test

# dir_require: skip (77) unless slapd, nslcd, the NSS module and the
# client tools are installed.
dir_require()
{
	integ_require_cmd "$SLAPD" "$SLAPADD" "$NSLCD" ldapmodify ldapsearch getent
	_m=$(for d in /lib /usr/lib /lib64 /usr/lib64; do find "$d" -name libnss_ldap.so.2 2>/dev/null; done | head -n 1)
	[ -n "$_m" ] || skip "libnss_ldap.so.2 is not installed (Debian package libnss-ldapd)"
	for s in core cosine nis inetorgperson; do
		[ -f "/etc/ldap/schema/$s.schema" ] || skip "/etc/ldap/schema/$s.schema is missing (Debian package slapd)"
	done
	_b=$(for d in /usr/lib/ldap /usr/lib/x86_64-linux-gnu/ldap; do ls "$d"/back_mdb.so 2>/dev/null; done | head -n 1)
	[ -n "$_b" ] || skip "slapd's back_mdb.so module is not installed (Debian package slapd)"
	DIR_MODULEPATH=${_b%/*}
	# nslcd reads only /etc/nslcd.conf: a bind mount needs the file there
	[ -f /etc/nslcd.conf ] || skip "/etc/nslcd.conf is missing (Debian package nslcd creates it)"
}

# dir_ids_free ID...: skip unless no passwd or group entry of /etc uses these ids.
dir_ids_free()
{
	for _i in "$@"; do
		if awk -F: -v i="$_i" '$3 == i { f = 1 } END { exit !f }' /etc/passwd /etc/group; then
			skip "id $_i is used in /etc/passwd or /etc/group; the directory's ids must be its own"
		fi
	done
}

# dir_ldif_base: the suffix and the two organizational units.
dir_ldif_base()
{
	cat <<-EOF
	dn: $DIR_SUFFIX
	objectClass: dcObject
	objectClass: organization
	o: realtimed test directory
	dc: realtimed

	dn: ou=people,$DIR_SUFFIX
	objectClass: organizationalUnit
	ou: people

	dn: ou=groups,$DIR_SUFFIX
	objectClass: organizationalUnit
	ou: groups

	EOF
}

# dir_ldif_user NAME UID GID: a posixAccount (with its shadowAccount-less
# password "*": nobody logs in with a password here).
dir_ldif_user()
{
	cat <<-EOF
	dn: uid=$1,ou=people,$DIR_SUFFIX
	objectClass: inetOrgPerson
	objectClass: posixAccount
	uid: $1
	cn: $1
	sn: $1
	uidNumber: $2
	gidNumber: $3
	homeDirectory: /nonexistent
	loginShell: /bin/sh
	userPassword: *

	EOF
}

# dir_ldif_group NAME GID [MEMBER...]: a posixGroup with memberUid values.
dir_ldif_group()
{
	_n=$1 _g=$2
	shift 2
	printf 'dn: cn=%s,ou=groups,%s\nobjectClass: posixGroup\ncn: %s\ngidNumber: %s\n' \
		"$_n" "$DIR_SUFFIX" "$_n" "$_g"
	for _m in "$@"; do
		printf 'memberUid: %s\n' "$_m"
	done
	printf '\n'
}

# dir_start LDIF: load the file LDIF into a new database and start slapd on
# $DIR_URI, then nslcd and the private nsswitch.conf. Sets DIR_URI,
# SLAPD_PID, NSLCD_PID.
dir_start()
{
	mkdir -p "$WORK/ldap/db"
	chmod 700 "$WORK/ldap"
	DIR_SOCKET=$WORK/ldap/ldapi
	DIR_URI=ldapi://$(printf '%s' "$DIR_SOCKET" | sed 's|/|%2F|g')
	cat >"$WORK/ldap/slapd.conf" <<-EOF
	include /etc/ldap/schema/core.schema
	include /etc/ldap/schema/cosine.schema
	include /etc/ldap/schema/nis.schema
	include /etc/ldap/schema/inetorgperson.schema
	pidfile $WORK/ldap/slapd.pid
	modulepath $DIR_MODULEPATH
	moduleload back_mdb
	database mdb
	maxsize 1073741824
	suffix "$DIR_SUFFIX"
	rootdn "$DIR_ROOTDN"
	rootpw $DIR_ROOTPW
	directory $WORK/ldap/db
	index objectClass,uid,uidNumber,gidNumber,memberUid,cn eq
	access to * by * read
	EOF
	# a file, not stdin: a pipe into this function would run it in a
	# subshell, and the pids it tracks would be lost
	"$SLAPADD" -q -f "$WORK/ldap/slapd.conf" -l "$1" >"$WORK/ldap/slapadd.log" 2>&1 ||
		{ cat "$WORK/ldap/slapadd.log"; skip "slapadd could not load the test directory"; }
	dir_start_slapd
	dir_start_nslcd
}

# dir_start_slapd: (re)start slapd on the existing database.
dir_start_slapd()
{
	rm -f "$DIR_SOCKET"
	# -d: in the foreground, so that $! is slapd and the test can kill it
	"$SLAPD" -d 0 -h "$DIR_URI" -f "$WORK/ldap/slapd.conf" >>"$WORK/ldap/slapd.log" 2>&1 &
	SLAPD_PID=$!
	integ_track $SLAPD_PID
	wait_for 15 ldapsearch -x -H "$DIR_URI" -b "$DIR_SUFFIX" -s base ||
		{ tail -n 20 "$WORK/ldap/slapd.log"; skip "slapd did not answer on $DIR_URI"; }
}

# dir_stop_slapd: kill slapd (SIGKILL: a directory server that dies).
dir_stop_slapd()
{
	kill -KILL "$SLAPD_PID" 2>/dev/null
	wait "$SLAPD_PID" 2>/dev/null
	integ_untrack "$SLAPD_PID"
	SLAPD_PID=
}

dir_start_nslcd()
{
	cat >"$WORK/nslcd.conf" <<-EOF
	# nslcd runs as root in the test's namespace: nothing to drop to
	uri $DIR_URI
	base $DIR_SUFFIX
	base passwd ou=people,$DIR_SUFFIX
	base group ou=groups,$DIR_SUFFIX
	# a directory that is gone is given up on quickly, as a site would set it
	bind_timelimit 2
	timelimit 5
	reconnect_sleeptime 1
	reconnect_retrytime 3
	# no nss_initgroups_ignoreusers: every user's groups come from the directory too
	EOF
	chmod 600 "$WORK/nslcd.conf"
	mount --bind "$WORK/nslcd.conf" /etc/nslcd.conf || skip "cannot bind-mount over /etc/nslcd.conf"
	mkdir -p /run/nslcd 2>/dev/null
	mount -t tmpfs -o mode=0755 tmpfs /run/nslcd || skip "cannot mount a tmpfs on /run/nslcd"
	sed -e 's/^passwd:.*/passwd:         files ldap/' -e 's/^group:.*/group:          files ldap/' \
		/etc/nsswitch.conf >"$WORK/nsswitch.conf"
	grep -q '^passwd:' "$WORK/nsswitch.conf" || echo 'passwd:         files ldap' >>"$WORK/nsswitch.conf"
	grep -q '^group:' "$WORK/nsswitch.conf" || echo 'group:          files ldap' >>"$WORK/nsswitch.conf"
	chmod 644 "$WORK/nsswitch.conf"
	mount --bind "$WORK/nsswitch.conf" /etc/nsswitch.conf || skip "cannot bind-mount over /etc/nsswitch.conf"
	dir_run_nslcd
}

dir_run_nslcd()
{
	rm -f /run/nslcd/socket
	"$NSLCD" -n >>"$WORK/nslcd.log" 2>&1 &
	NSLCD_PID=$!
	integ_track $NSLCD_PID
	wait_for 10 test -S /run/nslcd/socket || { cat "$WORK/nslcd.log"; skip "nslcd did not create /run/nslcd/socket"; }
}

# dir_restart_nslcd: a new nslcd, which knows nothing of an earlier failed
# connection (after one, nslcd answers at once until its
# reconnect_retrytime has passed): for timings that start from the same state.
dir_restart_nslcd()
{
	integ_stop "$NSLCD_PID"
	dir_run_nslcd
}

# dir_modify: ldapmodify as the directory's root with the LDIF on stdin.
dir_modify()
{
	ldapmodify -x -H "$DIR_URI" -D "$DIR_ROOTDN" -w "$DIR_ROOTPW" >>"$WORK/ldap/modify.log" 2>&1
}
