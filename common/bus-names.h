/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * realtimed's names on the bus, for every part that speaks or answers them:
 * the daemon, realtimectl, and the test clients and stand-ins. The native
 * interface is realtimed(8)'s and daemon/org.realtimed.Realtime1.xml's; the
 * rtkit one is RealtimeKit 0.13's, which realtimed serves when
 * RtkitCompat=yes. Names only: nothing here needs libdbus.
 */
#pragma once

#define NATIVE_NAME "org.realtimed.Realtime1"
#define NATIVE_PATH "/org/realtimed/Realtime1"
#define NATIVE_IFACE "org.realtimed.Realtime1"
/* Each error of the native interface is this prefix and a word
 * ("PermissionDenied"); realtimectl maps them to exit statuses. */
#define NATIVE_ERROR "org.realtimed.Realtime1.Error."

#define RTKIT_NAME "org.freedesktop.RealtimeKit1"
#define RTKIT_PATH "/org/freedesktop/RealtimeKit1"
#define RTKIT_IFACE "org.freedesktop.RealtimeKit1"
