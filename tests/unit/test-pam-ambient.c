// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for pam_realtime's ambient capabilities (pam_realtime/
 * pam-ambient.h): only cap_sys_nice and cap_ipc_lock are ever raised, a
 * process without them is refused before anything changes, and the
 * keepcaps technique really carries them across a setuid() away from root
 * into the ambient set, and its release leaves neither the flag nor root's
 * other permitted capabilities behind. Each test runs in its own forked
 * process.
 */
#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "check-main.h"
#include "macro.h"
#include "pam-ambient.h"

#define NICE (1ULL << CAP_SYS_NICE)
#define IPC_LOCK (1ULL << CAP_IPC_LOCK)

/* The mask of one "CapXxx:" line of /proc/self/status. */
static unsigned long long status_caps(const char *field)
{
	char line[256];
	unsigned long long v = 0;
	size_t l = strlen(field);
	FILE *f = fopen("/proc/self/status", "re");
	bool found = false;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, field, l) == 0 && line[l] == ':') {
			ck_assert_int_eq(sscanf(line + l + 1, "%llx", &v), 1);
			found = true;
		}
	fclose(f);
	ck_assert_msg(found, "no %s in /proc/self/status", field);
	return v;
}

START_TEST(test_format)
{
	char buf[64];

	ambient_format(0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "");
	ambient_format(NICE, buf, sizeof(buf));
	ck_assert_str_eq(buf, "cap_sys_nice");
	ambient_format(NICE | IPC_LOCK, buf, sizeof(buf));
	ck_assert_str_eq(buf, "cap_ipc_lock cap_sys_nice");
	/* Too small a buffer truncates, never overflows. */
	memset(buf, 'x', sizeof(buf));
	ambient_format(NICE | IPC_LOCK, buf, 8);
	ck_assert(memchr(buf, '\0', 8) != NULL);
	ck_assert_int_eq(buf[8], 'x');
}
END_TEST

START_TEST(test_allowed_mask)
{
	ck_assert(AMBIENT_ALLOWED_CAPS == (NICE | IPC_LOCK));
}
END_TEST

START_TEST(test_refuses_other_caps)
{
	AmbientSaved saved = { .old_keepcaps = 42 };

	ck_assert_int_eq(ambient_prepare(1ULL << CAP_SYS_ADMIN, &saved), -EINVAL);
	ck_assert_int_eq(ambient_prepare(NICE | (1ULL << CAP_SYS_RESOURCE), &saved), -EINVAL);
	ck_assert_int_eq(saved.old_keepcaps, 42);
	ck_assert_int_eq(prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0), 0);
	ck_assert_int_eq(ambient_raise(1ULL << CAP_SETUID), -EINVAL);
	ck_assert_int_eq(status_caps("CapAmb"), 0);
}
END_TEST

/* Without the capability in the permitted set: -EPERM, keepcaps untouched. */
START_TEST(test_refuses_when_not_permitted)
{
	cap_t c = cap_get_proc();
	cap_value_t v = CAP_IPC_LOCK;
	AmbientSaved saved = { .old_keepcaps = 42 };

	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(cap_set_flag(c, CAP_EFFECTIVE, 1, &v, CAP_CLEAR), 0);
	ck_assert_int_eq(cap_set_flag(c, CAP_PERMITTED, 1, &v, CAP_CLEAR), 0);
	ck_assert_int_eq(cap_set_proc(c), 0);
	cap_free(c);

	ck_assert_int_eq(ambient_prepare(IPC_LOCK, &saved), -EPERM);
	ck_assert_int_eq(saved.old_keepcaps, 42);
	ck_assert_int_eq(prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0), 0);
}
END_TEST

/* Root with cap_setuid and cap_sys_nice, or the test says why not. */
static bool root_with_caps(const char *test)
{
	unsigned long long prm = status_caps("CapPrm");

	if (geteuid() == 0 && (prm & (1ULL << CAP_SETUID)) && (prm & NICE))
		return true;
	printf("%s: not root with cap_setuid and cap_sys_nice, not run\n", test);
	return false;
}

/* The whole technique: prepare as root, setuid away, raise afterwards,
 * release: keepcaps off again, and of root's permitted set only what was
 * raised stays (the rest would otherwise last until the execve()). */
START_TEST(test_survives_setuid)
{
	AmbientSaved saved;

	if (!root_with_caps("test_survives_setuid"))
		return;

	ck_assert_int_eq(ambient_prepare(NICE, &saved), 0);
	ck_assert_int_eq(saved.old_keepcaps, 0);
	ck_assert(saved.was_root);
	ck_assert_int_eq(prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0), 1);

	/* uid 4102 need not exist: setuid() takes any number. */
	ck_assert_int_eq(setresgid(4102, 4102, 4102), 0);
	ck_assert_int_eq(setresuid(4102, 4102, 4102), 0);
	ck_assert_msg(status_caps("CapPrm") & NICE, "keepcaps did not keep cap_sys_nice permitted");
	ck_assert_int_eq(status_caps("CapAmb"), 0);

	ck_assert_int_eq(ambient_raise(NICE), 0);
	ck_assert_int_eq(status_caps("CapAmb"), NICE);
	ck_assert(status_caps("CapInh") & NICE);

	ck_assert_int_eq(ambient_release(&saved, NICE), 0);
	ck_assert_int_eq(prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0), 0);
	ck_assert_int_eq(status_caps("CapPrm"), NICE);
	ck_assert_int_eq(status_caps("CapEff"), 0);
	ck_assert_int_eq(status_caps("CapAmb"), NICE);
}
END_TEST

/* ambient_release() after each way a pam_end() may come. */
typedef struct ReleaseCase {
	const char *name;
	bool app_keepcaps; /* the application had set keepcaps itself */
	bool setuid_first; /* pam_end() after the setuid away from root */
	bool raise;	   /* ... with the raise */
	int want_keepcaps;
	bool want_cut; /* the permitted set cut to what was raised */
} ReleaseCase;

static const ReleaseCase release_cases[] = {
	/* no PAM_DATA_SILENT after the setuid, or a raise that failed:
	 * nothing of root's stays */
	{ "no raise after the setuid", false, true, false, 0, true },
	/* pam_end() before the setuid: root's sets stay root's, and the
	 * flag goes back, so a later setuid() keeps nothing */
	{ "raised while root", false, false, true, 0, false },
	/* the application's own keepcaps: its wish, flag and set kept */
	{ "the application's keepcaps", true, true, false, 1, false },
};

START_TEST(test_release)
{
	const ReleaseCase *c = &release_cases[_i];
	unsigned long long prm = status_caps("CapPrm");
	uint64_t raised = c->raise ? NICE : 0;
	AmbientSaved saved;

	if (!root_with_caps(c->name))
		return;
	if (c->app_keepcaps)
		ck_assert_int_eq(prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0), 0);
	ck_assert_int_eq(ambient_prepare(NICE, &saved), 0);
	ck_assert_int_eq(saved.old_keepcaps, c->app_keepcaps);
	if (c->setuid_first)
		ck_assert_int_eq(setresuid(4102, 4102, 4102), 0);
	if (c->raise)
		ck_assert_int_eq(ambient_raise(NICE), 0);
	ck_assert_int_eq(ambient_release(&saved, raised), 0);
	ck_assert_msg(prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0) == c->want_keepcaps, "%s", c->name);
	ck_assert_msg(status_caps("CapPrm") == (c->want_cut ? raised : prm), "%s", c->name);
	if (!c->setuid_first && !c->want_keepcaps) {
		ck_assert_int_eq(setresuid(4102, 4102, 4102), 0);
		ck_assert_msg(status_caps("CapPrm") == 0, "%s", c->name);
	}
}
END_TEST

/* Without keepcaps the same setuid loses them: why the module sets it. */
START_TEST(test_setuid_without_keepcaps_loses_them)
{
	if (geteuid() != 0 || !(status_caps("CapPrm") & (1ULL << CAP_SETUID))) {
		printf("test_setuid_without_keepcaps_loses_them: not root with cap_setuid, not "
		       "run\n");
		return;
	}
	ck_assert_int_eq(prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0), 0);
	ck_assert_int_eq(setresuid(4102, 4102, 4102), 0);
	ck_assert_int_eq(status_caps("CapPrm"), 0);
	ck_assert_int_eq(ambient_raise(NICE), -EPERM);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pam-ambient");

	TCase *tc;

	tc = check_add_case(s, "ambient",
			    CHECK_TESTS(test_format, test_allowed_mask, test_refuses_other_caps,
					test_refuses_when_not_permitted, test_survives_setuid,
					test_setuid_without_keepcaps_loses_them));
	tcase_add_loop_test(tc, test_release, 0, ELEMENTSOF(release_cases));
	return check_run_forked(s, "the tests change this process's credentials");
}
