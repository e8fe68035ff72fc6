/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The daemon's unit tests' fixture; see daemon-fixture.h. */
#include <check.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "creds.h"
#include "bus-dispatch.h"
#include "daemon-fixture.h"
#include "manager.h"
#include "pidfd.h"
#include "resolver.h"
#include "refusals.h"
#include "users.h"

#define DIR_TEMPLATE "/tmp/test-daemon.XXXXXX"

static char dir[] = DIR_TEMPLATE;
char fixture_proc[sizeof(dir) + 8], fixture_state[sizeof(dir) + 8], fixture_conf[sizeof(dir) + 16];

void fixture_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(text, f), 0);
	ck_assert_int_eq(fclose(f), 0);
}

void fixture_setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(fixture_proc, sizeof(fixture_proc), "%s/proc", dir);
	snprintf(fixture_state, sizeof(fixture_state), "%s/state", dir);
	snprintf(fixture_conf, sizeof(fixture_conf), "%s/policy.conf", dir);
	ck_assert_int_eq(mkdir(fixture_proc, 0755), 0);
	ck_assert_int_eq(mkdir(fixture_state, 0755), 0);
	fixture_pidns(0, FIXTURE_PIDNS);
	/* whoever runs the test may hold nice levels from 10 on, no realtime */
	fixture_write(fixture_conf, "[Default]\nNice=10\n");
}

void fixture_teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	strcpy(dir, DIR_TEMPLATE);
}

void fixture_pidns(pid_t pid, unsigned inode)
{
	char path[512], link[64];

	if (pid > 0)
		snprintf(path, sizeof(path), "%s/%d", fixture_proc, (int)pid);
	else
		snprintf(path, sizeof(path), "%s/self", fixture_proc);
	(void)mkdir(path, 0755);
	strcat(path, "/ns");
	(void)mkdir(path, 0755);
	strcat(path, "/pid");
	(void)unlink(path);
	snprintf(link, sizeof(link), "pid:[%u]", inode);
	ck_assert_int_eq(symlink(link, path), 0);
}

void fixture_task(pid_t pid, pid_t tid, uid_t ruid, uid_t euid, uid_t suid, uint64_t st)
{
	char task[256], path[512], text[256];

	snprintf(task, sizeof(task), "%s/%d", fixture_proc, (int)pid);
	(void)mkdir(task, 0755);
	if (tid) {
		snprintf(task, sizeof(task), "%s/%d/task", fixture_proc, (int)pid);
		(void)mkdir(task, 0755);
		snprintf(task, sizeof(task), "%s/%d/task/%d", fixture_proc, (int)pid, (int)tid);
		(void)mkdir(task, 0755);
	}
	if (!tid)
		fixture_pidns(pid, FIXTURE_PIDNS);
	snprintf(path, sizeof(path), "%s/status", task);
	snprintf(text, sizeof(text), "Name:\ttest\nUid:\t%u\t%u\t%u\t%u\nGid:\t0\t0\t0\t0\n",
		 (unsigned)ruid, (unsigned)euid, (unsigned)suid, (unsigned)ruid);
	fixture_write(path, text);
	snprintf(path, sizeof(path), "%s/stat", task);
	snprintf(text, sizeof(text), "%d (test) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 2 0 %llu 0 0\n",
		 (int)(tid ? tid : pid), (unsigned long long)st);
	fixture_write(path, text);
}

void fixture_stat(pid_t pid, pid_t tid, uint64_t st)
{
	uid_t uid = getuid();

	fixture_task(pid, tid, uid, uid, uid, st);
}

void fixture_comm(pid_t pid, pid_t tid, const char *comm)
{
	char path[512], text[256];

	if (tid)
		snprintf(path, sizeof(path), "%s/%d/task/%d/comm", fixture_proc, (int)pid,
			 (int)tid);
	else
		snprintf(path, sizeof(path), "%s/%d/comm", fixture_proc, (int)pid);
	snprintf(text, sizeof(text), "%s\n", comm);
	fixture_write(path, text);
}

/* include/linux/sched.h: a kernel thread */
#define PF_KTHREAD 0x00200000u

void fixture_irq_thread(pid_t pid, const char *comm, int policy, int priority, int nice)
{
	char path[512], text[512];

	snprintf(path, sizeof(path), "%s/%d", fixture_proc, (int)pid);
	(void)mkdir(path, 0755);
	strcat(path, "/stat");
	/* 4 ppid .. 8 tpgid, 9 flags, 10..17, 18 priority, 19 nice, 20..39,
	 * 40 rt_priority, 41 policy */
	snprintf(text, sizeof(text),
		 "%d (%s) S 2 0 0 0 -1 %u 0 0 0 0 0 0 0 0 %d %d 1 0 5 0 0 "
		 "18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 0 17 1 %d %d 0 0 0\n",
		 (int)pid, comm, PF_KTHREAD, -1 - priority, nice, priority, policy);
	fixture_write(path, text);
}

void fixture_irq_action(unsigned irq, const char *action)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/irq", fixture_proc);
	(void)mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/irq/%u", fixture_proc, irq);
	(void)mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/irq/%u/%s", fixture_proc, irq, action);
	ck_assert_int_eq(mkdir(path, 0755), 0);
}

int fixture_private_proc(void)
{
	char top[] = "/tmp/test-daemon-proc.XXXXXX", path[64], real[32], pid[16];

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	snprintf(real, sizeof(real), "/proc/%s", pid);
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    !mkdtemp(top) || mount("tmpfs", top, "tmpfs", 0, "mode=0755") < 0)
		return -errno;
	/* this process's own directory stays: the sanitizers read it */
	snprintf(path, sizeof(path), "%s/%s", top, pid);
	if (mkdir(path, 0555) < 0 || mount(real, path, NULL, MS_BIND | MS_REC, NULL) < 0)
		return -errno;
	snprintf(path, sizeof(path), "%s/self", top);
	if (symlink(pid, path) < 0 || mount(top, "/proc", NULL, MS_MOVE, NULL) < 0)
		return -errno;
	(void)rmdir(top);
	return 0;
}

bool fixture_private_proc_allowed(void)
{
	int status, r;
	pid_t pid;

	pid = fork();
	if (pid == 0)
		_exit(-fixture_private_proc());
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		r = EIO;
	else
		r = WEXITSTATUS(status);
	if (r != 0)
		printf("SKIP: no private /proc here (%s): the test needs root\n", strerror(r));
	return r == 0;
}

static void *sleeper_main(void *userdata)
{
	Sleeper *s = userdata;
	struct sched_param sp = {};
	char c;

	/* what the thread chose for itself */
	(void)sched_setscheduler(0, SCHED_BATCH, &sp);
	(void)setpriority(PRIO_PROCESS, 0, 12);
	__atomic_store_n(&s->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	while (read(s->pipe[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

void sleeper_start(Sleeper *s)
{
	ck_assert_int_eq(pipe(s->pipe), 0);
	ck_assert_int_eq(pthread_create(&s->thread, NULL, sleeper_main, s), 0);
	while (__atomic_load_n(&s->tid, __ATOMIC_SEQ_CST) == 0)
		usleep(1000);
}

int sched_policy_of(pid_t tid)
{
	return sched_getscheduler(tid) & ~SCHED_RESET_ON_FORK;
}

static const DaemonHooks fixture_hooks = { .answer = bus_answer };

void fixture_daemon_init(Daemon *d, const DaemonHooks *hooks)
{
	const char *files[] = { fixture_conf };

	memset(d, 0, sizeof(*d));
	d->args.state_dir = fixture_state;
	/* the policy the test wrote, and nothing from the machine's */
	d->args.vendor_conf = fixture_conf;
	d->args.admin_conf = d->args.vendor_conf_dir = d->args.admin_conf_dir = "";
	/* the fake /proc, whose tasks no pidfd speaks for */
	d->args.proc = fixture_proc;
	/* the requests' answers go to the bus as realtimed's do */
	d->hooks = hooks ? hooks : &fixture_hooks;
	ck_assert_int_ge(sd_event_new(&d->event), 0);
	ck_assert_int_eq(creds_cache_new(&d->creds), 0);
	ck_assert_int_eq(users_new(&d->users), 0);
	/* no event: no exit watches, the fake /proc decides */
	ck_assert_int_eq(grant_table_new(NULL, fixture_proc, manager_grants_changed, d, &d->grants),
			 0);
	ck_assert_int_eq(policy_load_files(files, 1, &d->policy), 0);
	ck_assert_uint_eq(policy_n_errors(d->policy), 0);
}

void fixture_daemon_fini(Daemon *d)
{
	d->resolver = resolver_free(d->resolver);
	d->save_source = sd_event_source_disable_unref(d->save_source);
	d->grants = grant_table_free(d->grants);
	d->policy = policy_free(d->policy);
	d->event = sd_event_unref(d->event);
	d->users = users_free(d->users);
	d->creds = creds_cache_free(d->creds);
}

void fixture_grant(Daemon *d, pid_t tid, uint64_t st, int nice)
{
	const SchedState before = { .policy = SCHED_IDLE, .nice = 12 };
	pid_t self = getpid();

	ck_assert_int_eq(grant_table_add(d->grants, self, 1, getuid(), pidfd_open_cloexec(self),
					 tid, st, POLICY_GRANT_NICE, nice, &before, 0, NULL),
			 0);
}
