/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for realtimectl/bus-error.c: each error of realtimed's API
 * (and of the bus on its behalf) maps to the exit status that
 * realtimectl(1) documents, with a hint where the user can act.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "bus-error.h"
#include "check-main.h"
#include "ctl.h"

/* Spelled out rather than NATIVE_ERROR: the names on the wire are the
 * contract (realtimed(8)), whatever common/bus-names.h says. */
#define E(x) "org.realtimed.Realtime1.Error." x
#define D(x) "org.freedesktop.DBus.Error." x

START_TEST(test_exit_status)
{
	ck_assert_int_eq(bus_error_exit_status(E("PermissionDenied")), CTL_EXIT_REFUSED);
	ck_assert_int_eq(bus_error_exit_status(E("PolicyDenied")), CTL_EXIT_REFUSED);
	ck_assert_int_eq(bus_error_exit_status(E("LimitsExceeded")), CTL_EXIT_REFUSED);
	ck_assert_int_eq(bus_error_exit_status(E("RateLimited")), CTL_EXIT_REFUSED);
	ck_assert_int_eq(bus_error_exit_status(E("Refusing")), CTL_EXIT_REFUSED);
	ck_assert_int_eq(bus_error_exit_status(E("NoSuchProcess")), CTL_EXIT_NO_SUCH);
	ck_assert_int_eq(bus_error_exit_status(E("NoSuchGrant")), CTL_EXIT_NO_SUCH);
	ck_assert_int_eq(bus_error_exit_status(E("InvalidArgs")), CTL_EXIT_USAGE);
	ck_assert_int_eq(bus_error_exit_status(E("Failed")), CTL_EXIT_FAILED);

	ck_assert_int_eq(bus_error_exit_status(D("ServiceUnknown")), CTL_EXIT_UNREACHABLE);
	ck_assert_int_eq(bus_error_exit_status(D("NameHasNoOwner")), CTL_EXIT_UNREACHABLE);
	ck_assert_int_eq(bus_error_exit_status(D("NoReply")), CTL_EXIT_UNREACHABLE);
	ck_assert_int_eq(bus_error_exit_status(D("FileNotFound")), CTL_EXIT_UNREACHABLE);
	ck_assert_int_eq(bus_error_exit_status(D("NoServer")), CTL_EXIT_UNREACHABLE);
	ck_assert_int_eq(bus_error_exit_status(D("AccessDenied")), CTL_EXIT_REFUSED);
	ck_assert_int_eq(bus_error_exit_status(D("InteractiveAuthorizationRequired")),
			 CTL_EXIT_REFUSED);
	ck_assert_int_eq(bus_error_exit_status(D("InvalidArgs")), CTL_EXIT_USAGE);

	/* Every failure of D-Bus activation means realtimed is not there. */
	ck_assert_int_eq(bus_error_exit_status(D("Spawn.ExecFailed")), CTL_EXIT_UNREACHABLE);
	ck_assert_int_eq(bus_error_exit_status(D("Spawn.FailedToSetup")), CTL_EXIT_UNREACHABLE);
	ck_assert_ptr_nonnull(
		strstr(bus_error_hint(D("Spawn.ExecFailed")), "journalctl -u realtimed"));
	ck_assert_int_eq(bus_error_exit_status(D("SpawnX")), CTL_EXIT_FAILED);

	/* Unknown names and NULL are failures, never success. */
	ck_assert_int_eq(bus_error_exit_status("org.example.Whatever"), CTL_EXIT_FAILED);
	ck_assert_int_eq(bus_error_exit_status(E("NotInTheContract")), CTL_EXIT_FAILED);
	ck_assert_int_eq(bus_error_exit_status(NULL), CTL_EXIT_FAILED);
}
END_TEST

START_TEST(test_hints)
{
	const char *h = bus_error_hint(D("ServiceUnknown"));

	ck_assert_ptr_nonnull(h);
	ck_assert_ptr_nonnull(strstr(h, "systemctl start realtimed"));
	ck_assert_ptr_nonnull(strstr(bus_error_hint(E("PolicyDenied")), "realtimectl explain"));
	ck_assert_ptr_nonnull(strstr(bus_error_hint(E("NoSuchGrant")), "realtimectl status"));
	/* The daemon's own message names the process; nothing to add. */
	ck_assert_ptr_null(bus_error_hint(E("NoSuchProcess")));
	ck_assert_ptr_null(bus_error_hint("org.example.Whatever"));
	ck_assert_ptr_null(bus_error_hint(NULL));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("realtimectl-bus-error");

	check_add_case(s, "bus-error", CHECK_TESTS(test_exit_status, test_hints));
	return check_run(s);
}
