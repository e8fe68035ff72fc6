# SPDX-License-Identifier: GPL-2.0-or-later
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
        libxml2-utils python3 clang-format git
        # integ-portal: the Realtime portal and the sandbox its apps run in
        xdg-desktop-portal bubblewrap
)
RT_VM_PACKAGES=(
        qemu-system-x86 linux-image-amd64 linux-headers-amd64 busybox-static
        kmod cpio make
        linux-source-6.1
        # The vm tier's kernel matrix (tests/vm/meson.build, vm-also-on):
        # Debian's 6.12 and its PREEMPT_RT flavour from bookworm-security,
        # with headers so that realtime.ko is built for each; the default
        # kernel stays linux-image-amd64's (6.1).
        linux-image-6.12-amd64 linux-headers-6.12-amd64
        linux-image-6.12-rt-amd64 linux-headers-6.12-rt-amd64
        # vm-system: systemd as the guest's PID 1, realtime.ko through DKMS
        systemd-sysv dkms
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
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
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
