// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for daemon/shield-irqbalance.c, with a fake irqbalance: a
 * process named irqbalance in the fake /proc and a thread that answers on
 * RUN/irqbalance/irqbalancePID.sock as irqbalance 1.9 does ("setup", and
 * "settings cpus" / "settings ban irqs", whose banned CPUs it takes only at
 * its next pass), checking that each message carries the sender's
 * credentials:
 *   - told: it gets the shield's CPUs banned with its own, and the kept
 *     IRQs with the ones it had; the IRQs moved are marked as its to place,
 *     so that its own placement is not reported as a change by hand; at the
 *     give-back it gets its settings back, before its next pass too;
 *   - banned CPUs someone else set meanwhile are left, and logged;
 *   - an irqbalance gone at the give-back is sent nothing;
 *   - an irqbalance whose socket does not answer: no IRQ moves (it would
 *     move them back), the workqueues do, and the status says what to do.
 */
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "check-main.h"
#include "log-fixture.h"
#include "shield-fixture.h"
#include "shield.h"

#define FAKE_PID 4242
#define MESSAGES_MAX 32

static struct {
	pthread_t thread;
	int listen_fd;
	bool stop;
	pthread_mutex_t lock;
	char banned_mask[64]; /* what "setup" says: BANNED */
	char irqs[128];	      /* IRQs it leaves alone */
	char messages[MESSAGES_MAX][512];
	size_t n_messages;
	bool creds_missing;
} fake;

static sd_event *event;

static void fake_proc_entry(void)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "%d/stat", FAKE_PID);
	shield_fixture_write(shield_roots.proc, rel,
			     "4242 (irqbalance) S 1 4242 4242 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 "
			     "0 500 0 0 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0\n");
}

static void handle(int fd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(struct ucred))];
	} control;
	char buf[512];
	struct iovec iov = { buf, sizeof(buf) - 1 };
	struct msghdr mh = { .msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = control.buf,
			     .msg_controllen = sizeof(control.buf) };
	struct cmsghdr *c;
	ssize_t n = recvmsg(fd, &mh, 0);

	if (n <= 0)
		return;
	buf[n] = '\0';
	c = CMSG_FIRSTHDR(&mh);
	pthread_mutex_lock(&fake.lock);
	if (!c || c->cmsg_type != SCM_CREDENTIALS ||
	    ((struct ucred *)CMSG_DATA(c))->uid != geteuid())
		fake.creds_missing = true;
	if (fake.n_messages < MESSAGES_MAX)
		snprintf(fake.messages[fake.n_messages++], sizeof(fake.messages[0]), "%s", buf);
	if (streq(buf, "setup")) {
		char reply[512], irqs[256] = "";

		for (const char *p = fake.irqs; *p;) {
			size_t l = strcspn(p, " ");

			snprintf(irqs + strlen(irqs), sizeof(irqs) - strlen(irqs),
				 "IRQ %.*s LOAD 0 DIFF 0 CLASS 0 ", (int)l, p);
			p += l;
			p += strspn(p, " ");
		}
		snprintf(reply, sizeof(reply), "SLEEP 10 %sBANNED %s", irqs, fake.banned_mask);
		(void)!write(fd, reply, strlen(reply));
	} else if (startswith(buf, "settings ban irqs "))
		snprintf(fake.irqs, sizeof(fake.irqs), "%.*s", (int)sizeof(fake.irqs) - 1,
			 streq(buf + 18, "NONE") ? "" : buf + 18);
	/* "settings cpus": taken at the next pass, which the test decides */
	pthread_mutex_unlock(&fake.lock);
}

static void *serve(void *userdata)
{
	while (!__atomic_load_n(&fake.stop, __ATOMIC_SEQ_CST)) {
		struct pollfd p = { .fd = fake.listen_fd, .events = POLLIN };
		int fd;

		if (poll(&p, 1, 50) <= 0)
			continue;
		fd = accept4(fake.listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		handle(fd);
		close(fd);
	}
	return NULL;
}

static void fake_start(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int one = 1;

	shield_fixture_write(shield_roots.run, "irqbalance/.keep", "");
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/irqbalance/irqbalance%d.sock",
		 shield_roots.run, FAKE_PID);
	fake.listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(fake.listen_fd, 0);
	ck_assert_int_eq(setsockopt(fake.listen_fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)), 0);
	ck_assert_int_eq(bind(fake.listen_fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(fake.listen_fd, 1), 0);
	ck_assert_int_eq(pthread_create(&fake.thread, NULL, serve, NULL), 0);
}

static void setup(void)
{
	shield_fixture_setup();
	log_capture();
	memset(&fake, 0, sizeof(fake));
	pthread_mutex_init(&fake.lock, NULL);
	snprintf(fake.banned_mask, sizeof(fake.banned_mask), "00000000");
	snprintf(fake.irqs, sizeof(fake.irqs), "43");
	fake.listen_fd = -1;
	fake_proc_entry();
	ck_assert_int_ge(sd_event_new(&event), 0);
}

static void teardown(void)
{
	if (fake.listen_fd >= 0) {
		__atomic_store_n(&fake.stop, true, __ATOMIC_SEQ_CST);
		pthread_join(fake.thread, NULL);
		close(fake.listen_fd);
	}
	event = sd_event_unref(event);
	shield_fixture_teardown();
}

/* Is msg among the messages now, from the index *from on? Moves *from past it. */
static bool got_now(const char *msg, size_t *from)
{
	bool found = false;

	pthread_mutex_lock(&fake.lock);
	for (size_t i = *from; i < fake.n_messages && !found; i++)
		if (streq(fake.messages[i], msg)) {
			*from = i + 1;
			found = true;
		}
	pthread_mutex_unlock(&fake.lock);
	return found;
}

/* Did msg come, from *from on? realtimed waits for no answer to "settings",
 * so the fake's thread may still be reading it when the call returns (the
 * test failed 4 times in 30 on a busy machine): up to 5 s. */
static bool got(const char *msg, size_t *from)
{
	for (int tries = 0; tries < 500; tries++) {
		if (got_now(msg, from))
			return true;
		usleep(10 * 1000);
	}
	return false;
}

/* Did msg not come, from from on, within a fifth of a second? */
static bool not_got(const char *msg, size_t from)
{
	usleep(200 * 1000);
	return !got_now(msg, &from);
}

static Shield *take(const char *policy_text, Policy **ret_policy)
{
	Shield *s = NULL;

	*ret_policy = shield_fixture_policy(policy_text);
	ck_assert_int_eq(shield_new(event, &shield_roots, &s), 0);
	shield_update(s, *ret_policy, NULL, true);
	return s;
}

START_TEST(test_told_and_given_back)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	ShieldStatus st;
	size_t at = 0;
	Shield *s;

	fake_start();
	s = take("[Daemon]\nShield=auto\n", &p);
	shield_status(s, &st);
	ck_assert_int_eq(st.state, SHIELD_HELD);
	ck_assert_str_eq(st.irqbalance, "told (pid 4242)");
	ck_assert(got("setup", &at));
	ck_assert(got("settings cpus 1,3", &at));
	ck_assert(got("settings ban irqs 16 30 43", &at));
	ck_assert_str_eq(shield_fixture_affinity(24), "0,2");
	ck_assert(!fake.creds_missing);

	/* irqbalance places IRQ 24 itself meanwhile, off the shield */
	shield_fixture_irq(24, "nvme0q1", "0", "0");
	shield_stop(s);
	ck_assert(got("settings ban irqs 43", &at));
	ck_assert(got("settings cpus NULL", &at));
	ck_assert_str_eq(shield_fixture_affinity(24), "0");
	ck_assert_str_eq(shield_fixture_affinity(25), "3");
	ck_assert_uint_eq(log_count_lines("Left IRQ"), 0);
	ck_assert(!shield_fixture_record_exists());
	shield_free(s);
}
END_TEST

START_TEST(test_changed_meanwhile_and_gone)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	size_t at = 0;
	Shield *s;

	fake_start();
	s = take("[Daemon]\nShield=auto\n", &p);
	/* an admin bans CPU 2 with irqbalance-ui meanwhile */
	pthread_mutex_lock(&fake.lock);
	snprintf(fake.banned_mask, sizeof(fake.banned_mask), "4");
	pthread_mutex_unlock(&fake.lock);
	shield_stop(s);
	ck_assert(got("settings ban irqs 43", &at));
	ck_assert(not_got("settings cpus NULL", at));
	ck_assert_uint_eq(log_count_lines("Left irqbalance's banned CPUs (pid 4242)"), 1);
	shield_free(s);
	p = policy_free(p);

	/* irqbalance gone by the give-back: nothing sent to anyone */
	s = take("[Daemon]\nShield=auto\n", &p);
	/* the CPU the admin banned stays banned */
	ck_assert(got("settings cpus 1-3", &at));
	shield_fixture_write(shield_roots.proc, "4242/stat", "4242 (bash) S 1\n");
	shield_stop(s);
	ck_assert(not_got("setup", at));
	ck_assert_str_eq(shield_fixture_affinity(24), "0-3");
	shield_free(s);
}
END_TEST

START_TEST(test_unreachable)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	ShieldStatus st;
	Shield *s;

	s = take("[Daemon]\nShield=auto\n", &p);
	shield_status(s, &st);
	ck_assert_int_eq(st.state, SHIELD_HELD);
	ck_assert_msg(strstr(st.irqbalance, "irqbalance (pid 4242) runs, but its socket"), "%s",
		      st.irqbalance);
	ck_assert_msg(strstr(st.problem, "IRQs are not moved off the shield") &&
			      strstr(st.problem, "IRQBALANCE_BANNED_CPULIST=1,3"),
		      "%s", st.problem);
	ck_assert_uint_eq(st.moved, 0);
	ck_assert_str_eq(shield_fixture_affinity(24), "0-3");
	ck_assert_str_eq(shield_fixture_read(shield_roots.proc, "irq/default_smp_affinity"), "f");
	ck_assert_str_eq(shield_fixture_read(shield_roots.sys, "devices/virtual/workqueue/cpumask"),
			 "5");
	shield_stop(s);
	ck_assert_str_eq(shield_fixture_read(shield_roots.sys, "devices/virtual/workqueue/cpumask"),
			 "f");
	shield_free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon-shield-irqbalance");
	TCase *tc;

	tc = check_add_case(s, "irqbalance",
			    CHECK_TESTS(test_told_and_given_back, test_changed_meanwhile_and_gone,
					test_unreachable));
	tcase_add_checked_fixture(tc, setup, teardown);
	return check_run(s);
}
