/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The interrupts of the audio path in realtimectl check (ctl-check.h): a
 * sound card's or USB controller's IRQ line shared with other devices
 * (/proc/interrupts, as rtcqs reads it), and, where IRQ handlers run in
 * threads, an audio IRQ thread at or below the realtime threads that run
 * now, whoever granted them (the card's interrupt then waits behind its
 * own clients). irq-priorities (check-user.c) compares the same threads
 * with what policy would allow; these two look at what is.
 */
#include <ctype.h>
#include <dirent.h>
#include <fnmatch.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl-check.h"
#include "procfs-irq.h"
#include "procfs-stat.h"

#define PF_KTHREAD 0x00200000u

bool check_irq_is_audio_path(const char *action)
{
	static const char *const patterns[] = { "snd*", "xhci*", "ehci*", "ohci*", "uhci*" };

	for (size_t i = 0; i < ELEMENTSOF(patterns); i++)
		if (fnmatch(patterns[i], action, 0) == 0)
			return true;
	return false;
}

static bool irq_is_sound(const char *action)
{
	return startswith(action, "snd");
}

/* The actions of one line of /proc/interrupts, "  16:  12  0  IO-APIC
 * 16-fasteoi   ehci_hcd:usb1, snd_hda_intel:card0": what follows the
 * handler's name (a word after a hardware IRQ number and '-', "16-fasteoi",
 * or after '-' alone), split at ", ". NULL for a line that is no numbered
 * IRQ or has no such word. The kernel writes the handler's name padded to
 * 8 and two blanks before the first action, whose name may hold blanks
 * ("PCIe PME"). */
static char *interrupts_actions(char *line, unsigned *ret_irq)
{
	char *p = line, *end;
	unsigned long irq;

	while (*p == ' ')
		p++;
	if (!isdigit((unsigned char)*p))
		return NULL;
	irq = strtoul(p, &end, 10);
	if (*end != ':' || irq > UINT32_MAX)
		return NULL;
	p = end + 1;
	for (;;) {
		char *word;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return NULL;
		word = p;
		while (isdigit((unsigned char)*p))
			p++;
		if (*p == '-' && isalpha((unsigned char)p[1])) {
			p += strcspn(p, " \t");
			while (*p == ' ' || *p == '\t')
				p++;
			*ret_irq = (unsigned)irq;
			return *p ? p : NULL;
		}
		p = word + strcspn(word, " \t");
	}
}

void check_irq_sharing(const CheckContext *c, CheckResult *r)
{
	static const char path[] = "/proc/interrupts";
	char value[CHECK_VALUE_MAX] = "", shared[CHECK_SUMMARY_MAX] = "";
	_cleanup_free_ char *text = NULL;
	unsigned n_audio = 0, n_shared = 0;
	bool sound_shared = false;
	char *line, *save = NULL;
	int e;

	e = check_read(c, path, &text);
	if (e < 0) {
		check_skip_errno(r, path, e);
		return;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *actions, *a, *save_a = NULL, *audio = NULL, others[CHECK_SUMMARY_MAX] = "";
		char all[CHECK_SUMMARY_MAX] = "";
		unsigned irq, n = 0;

		actions = interrupts_actions(line, &irq);
		if (!actions)
			continue;
		actions[strcspn(actions, "\r")] = '\0';
		for (a = strtok_r(actions, ",", &save_a); a; a = strtok_r(NULL, ",", &save_a)) {
			while (*a == ' ')
				a++;
			a[strcspn(a, "\r\n")] = '\0';
			for (size_t l = strlen(a); l > 0 && a[l - 1] == ' '; l--)
				a[l - 1] = '\0';
			if (!*a)
				continue;
			n++;
			strbuf_append(all, sizeof(all), "%s%s", all[0] ? "," : "", a);
			if (!audio && check_irq_is_audio_path(a))
				audio = a;
			else
				strbuf_append(others, sizeof(others), "%s%s", others[0] ? ", " : "",
					      a);
		}
		if (!audio)
			continue;
		n_audio++;
		strbuf_append(value, sizeof(value), "%s%u:%s", value[0] ? " " : "", irq, all);
		if (n < 2)
			continue;
		n_shared++;
		sound_shared = sound_shared || irq_is_sound(all) || strstr(all, ",snd");
		strbuf_append(shared, sizeof(shared), "%sIRQ %u (%s) with %s",
			      shared[0] ? "; " : "", irq, audio, others);
	}
	if (n_audio == 0) {
		check_set(r, CHECK_INFO, "", "no sound card or USB controller IRQ in %s", path);
		return;
	}
	if (n_shared == 0) {
		check_set(r, CHECK_OK, value,
			  "no sound card or USB controller shares its IRQ with another device");
		return;
	}
	check_set(r, CHECK_WARN, value,
		  "%s shared: %s; each of their interrupts runs the other drivers' handlers too, "
		  "and the audio device's waits behind them",
		  sound_shared ? "a sound card's IRQ is"
			       : "a USB controller's IRQ (a USB audio "
				 "interface's) is",
		  shared);
	check_hint(r,
		   "give the audio device a line of its own: another PCI slot or USB port, MSI "
		   "where its driver offers it (lspci -v shows MSI), or unbind the other device's "
		   "driver if it is not needed");
}

/* A realtime thread of a program, and of which. */
typedef struct RtThread {
	pid_t pid, tid;
	int policy, priority;
	char comm[128];	  /* the process's */
	char thread[128]; /* the thread's own name */
} RtThread;

/* The realtime threads that are no audio client: realtimed's and
 * rtkit-daemon's own watchdogs run at the top on purpose. */
static bool process_is_watchdog(const char *comm)
{
	return streq(comm, "realtimed") || streq(comm, "rtkit-daemon");
}

/* The highest SCHED_FIFO or SCHED_RR thread of a program (no kernel
 * thread) under proc; false when there is none. */
static bool top_rt_thread(const char *proc, RtThread *ret)
{
	DIR *d = opendir(proc);
	struct dirent *de;
	bool found = false;

	if (!d)
		return false;
	while ((de = readdir(d))) {
		char task[PATH_MAX];
		ProcfsStat ps;
		struct dirent *te;
		DIR *td;
		pid_t pid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = (pid_t)atoi(de->d_name);
		if (procfs_stat_read(proc, pid, 0, &ps) < 0 || (ps.flags & PF_KTHREAD) ||
		    process_is_watchdog(ps.comm))
			continue;
		snprintf(task, sizeof(task), "%s/%d/task", proc, (int)pid);
		td = opendir(task);
		if (!td)
			continue;
		while ((te = readdir(td))) {
			ProcfsStat ts;

			if (!isdigit((unsigned char)te->d_name[0]) ||
			    procfs_stat_read(proc, pid, (pid_t)atoi(te->d_name), &ts) < 0 ||
			    ts.n_fields < 41 || (ts.policy != SCHED_FIFO && ts.policy != SCHED_RR))
				continue;
			if (found && ts.rt_priority <= ret->priority)
				continue;
			*ret = (RtThread){ .pid = pid,
					   .tid = (pid_t)atoi(te->d_name),
					   .policy = ts.policy,
					   .priority = ts.rt_priority };
			snprintf(ret->comm, sizeof(ret->comm), "%s", ps.comm);
			snprintf(ret->thread, sizeof(ret->thread), "%s", ts.comm);
			found = true;
		}
		closedir(td);
	}
	closedir(d);
	return found;
}

/* Is a sound card on USB? snd-usb-audio gives each of its cards a usbid
 * file under /proc/asound. */
static bool usb_sound_card(const CheckContext *c)
{
	DIR *d = check_opendir(c, "/proc/asound");
	struct dirent *de;
	bool found = false;

	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		char path[300];

		if (!startswith(de->d_name, "card") || !isdigit((unsigned char)de->d_name[4]))
			continue;
		snprintf(path, sizeof(path), "/proc/asound/%s/usbid", de->d_name);
		found = check_exists(c, path);
	}
	closedir(d);
	return found;
}

void check_irq_below_audio(const CheckContext *c, CheckResult *r)
{
	_cleanup_free_ char *proc = check_path(c, "/proc");
	char value[CHECK_VALUE_MAX] = "", below[CHECK_SUMMARY_MAX] = "";
	bool usb = usb_sound_card(c), have_top;
	IrqThread *t = NULL;
	size_t n = 0, n_audio = 0;
	RtThread top = { 0 };
	int e, rule = -1;

	if (!proc)
		return;
	e = procfs_irq_threads(proc, &t, &n);
	if (e < 0) {
		check_skip_errno(r, "/proc", e);
		return;
	}
	have_top = top_rt_thread(proc, &top);
	for (size_t i = 0; i < n; i++) {
		int prio = t[i].policy == SCHED_FIFO || t[i].policy == SCHED_RR ? t[i].priority : 0;
		const PolicyIrqRule *match;

		/* a USB controller carries audio only where a USB card is */
		if (!irq_is_sound(t[i].action) && !(usb && check_irq_is_audio_path(t[i].action)))
			continue;
		n_audio++;
		strbuf_append(value, sizeof(value), "%sirq/%u-%s:%d", value[0] ? " " : "", t[i].irq,
			      t[i].action, prio);
		if (!have_top || prio > top.priority)
			continue;
		strbuf_append(below, sizeof(below), "%sirq/%u-%s at %d", below[0] ? ", " : "",
			      t[i].irq, t[i].action, prio);
		match = c->policy ? policy_irq_match(c->policy, t[i].action) : NULL;
		if (match && match->priority > top.priority)
			rule = match->priority;
	}
	procfs_irq_threads_free(t, n);
	if (n_audio == 0 && !check_irqs_threaded(c)) {
		check_set(
			r, CHECK_SKIP, "not threaded",
			"IRQ handlers are not threaded (see threadirqs): a sound card's interrupt "
			"runs before any thread");
		return;
	}
	if (n_audio == 0) {
		check_set(r, CHECK_INFO, "", "no sound card IRQ thread found%s",
			  usb ? " (nor a USB controller's)" : "");
		return;
	}
	if (!have_top) {
		check_set(r, CHECK_INFO, value,
			  "no program runs a realtime thread now: nothing for the sound card's IRQ "
			  "thread to wait behind (irq-priorities compares it with what policy "
			  "allows)");
		return;
	}
	strbuf_append(value, sizeof(value), " top=%s/%s:%s%d", top.comm, top.thread,
		      procfs_sched_policy_to_string(top.policy), top.priority);
	if (below[0]) {
		check_set(r, CHECK_WARN, value,
			  "%s, not above %s's thread %s (pid %d) at SCHED_%s %d: the card's "
			  "interrupt waits behind its own clients",
			  below, top.comm, top.thread, (int)top.tid,
			  top.policy == SCHED_FIFO ? "FIFO" : "RR", top.priority);
		if (rule > 0)
			check_hint(
				r,
				"the [IRQ] rule (priority %d) is not applied: start realtimed "
				"(systemctl enable --now realtimed), which applies it now and to "
				"IRQ threads created later",
				rule);
		else
			check_hint(r,
				   "raise the IRQ thread above %d: snd*=%d (and xhci_hcd=%d for a "
				   "USB interface) under [IRQ] in "
				   "/etc/realtime/realtime.conf.d/60-irq.conf, then realtimectl "
				   "reload; or ask less of the audio server (PipeWire's rt.prio, "
				   "jackd -P)",
				   top.priority, top.priority < 98 ? top.priority + 2 : 99,
				   top.priority < 99 ? top.priority + 1 : 99);
		return;
	}
	check_set(r, CHECK_OK, value,
		  "the sound card's IRQ threads run above every realtime thread running (the "
		  "highest: %s's %s at %d)",
		  top.comm, top.thread, top.priority);
}
