# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2034 # the lists are for the scripts that source it
# Sourced by scripts/check and scripts/demo: the Debian packages realtimed
# needs to build and test, and a function that installs the missing ones.

RT_BUILD_PACKAGES=(
        meson ninja-build gcc pkg-config
        libdbus-1-dev libsystemd-dev libcap-dev libpam0g-dev
        check scdoc
)
RT_TEST_PACKAGES=(
        dbus-daemon polkitd rtkit pipewire-bin pipewire-jack pulseaudio jackd2 pamtester libpam-wrapper
        libpam-modules libpam-runtime libcap2-bin util-linux procps systemd
        libxml2-utils python3 clang-format git shellcheck
        # integ-portal: the Realtime portal and the sandbox its apps run in
        xdg-desktop-portal bubblewrap
        # integ-pidns: a program that asks for realtime through SDL2
        libsdl2-dev
        # integ-directory and bench/directory-bench.sh: an LDAP directory
        # through NSS, in the test's namespace only (rt_install_deps keeps
        # the host's nsswitch.conf and leaves no slapd or nslcd running)
        slapd nslcd libnss-ldapd ldap-utils
        # realtimectl latency: its picture rendered in a test (rsvg-convert);
        # bench/latency-bench.sh's peer (cyclictest, hackbench) and load
        rt-tests stress-ng librsvg2-bin
)
# The Debian packages (debian/, scripts/build-debs): what dpkg-buildpackage
# needs beyond RT_BUILD_PACKAGES (debian/control's Build-Depends), and
# lintian, which scripts/check runs on them.
RT_PKG_PACKAGES=(
        dpkg-dev debhelper dh-dkms fakeroot bash-completion lintian
)
RT_VM_PACKAGES=(
        qemu-system-x86 linux-image-amd64 linux-headers-amd64 busybox-static
        kmod cpio make
        linux-source-6.1
        # The vm tier's kernel matrix (tests/vm/meson.build):
        # Debian's 6.12 and its PREEMPT_RT flavour from bookworm-security,
        # with headers so that realtime.ko is built for each; the default
        # kernel stays linux-image-amd64's (6.1).
        linux-image-6.12-amd64 linux-headers-6.12-amd64
        linux-image-6.12-rt-amd64 linux-headers-6.12-rt-amd64
        # vm-system: systemd as the guest's PID 1, realtime.ko through DKMS
        systemd-sysv dkms
        # the shield's vm script (tests/vm/guest/shield.sh) runs irqbalance
        # in the guest, as Debian installs it on many machines; never here
        irqbalance
)

# rt_install_deps PACKAGE...: apt-get update + install of what is missing.
rt_install_deps() {
        local missing=() p
        for p in "$@"; do
                dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
                        missing+=("$p")
        done
        ((${#missing[@]})) || return 0
        if [ "$(id -u)" != 0 ]; then
                echo "Missing Debian packages: ${missing[*]}" >&2
                echo "Run this script as root (it installs them), or: apt-get install ${missing[*]}" >&2
                return 1
        fi
        echo "Installing Debian packages: ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        rt_preseed_directory
        apt-get update -qq
        # no service of a package installed here may start on this machine
        # (slapd, nslcd): a policy-rc.d that says no, unless one exists
        local rcd=""
        if [ ! -e /usr/sbin/policy-rc.d ]; then
                printf '#!/bin/sh\n# scripts/deps.sh: no service starts while it installs\nexit 101\n' \
                        >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d && rcd=1
        fi
        local rc=0
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || rc=$?
        [ -z "$rcd" ] || rm -f /usr/sbin/policy-rc.d
        # Their init scripts are enabled now, and would start at the next
        # boot of this machine, and in every systemd-booted guest of the
        # vm-system tier (which boots this machine's /etc): not on a machine
        # that only tests. Disabled whether systemd runs here or not.
        local p2
        for p2 in slapd nslcd irqbalance; do
                case " ${missing[*]} " in *" $p2 "*) ;; *) continue ;; esac
                if [ -d /run/systemd/system ]; then
                        systemctl disable --now "$p2" >/dev/null 2>&1
                else
                        update-rc.d "$p2" disable >/dev/null 2>&1
                        systemctl disable "$p2" >/dev/null 2>&1
                fi
        done
        return $rc
}

# rt_preseed_directory: the answers that keep the directory packages off
# the host: slapd makes no database of its own, libnss-ldapd adds "ldap"
# to no line of /etc/nsswitch.conf (the tests bind-mount their own), and
# nslcd is given no server.
rt_preseed_directory() {
        command -v debconf-set-selections >/dev/null 2>&1 || return 0
        printf '%s\n' \
                'slapd slapd/no_configuration boolean true' \
                'libnss-ldapd libnss-ldapd/nsswitch multiselect' \
                'libnss-ldapd libnss-ldapd/clean_nsswitch boolean false' \
                'nslcd nslcd/ldap-uris string' \
                'nslcd nslcd/ldap-base string' | debconf-set-selections
}

# rt_checkpatch DIR: the kernel's checkpatch.pl, taken out of Debian's
# linux-source tarball into DIR once (Debian ships it nowhere else); prints
# its path, or nothing when the tarball is missing.
rt_checkpatch() {
        local tarball
        tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
        [ -n "$tarball" ] || return 0
        if [ ! -f "$1/scripts/checkpatch.pl" ]; then
                mkdir -p "$1"
                tar -xJf "$tarball" -C "$1" --strip-components=1 --wildcards \
                        '*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
                        '*/scripts/const_structs.checkpatch' 2>/dev/null || return 0
        fi
        echo "$1/scripts/checkpatch.pl"
}
