/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimectl irq [--offline]: the IRQ threads, their scheduling, and the
 * [IRQ] rule of the local policy files that matches each. realtimed answers
 * when it runs (ListIrqThreads); otherwise, or with --offline, realtime.ko's
 * listing when the module is loaded, else /proc (procfs/procfs-irq.c).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "macro.h"
#include "output.h"
#include "procfs-irq.h"
#include "procfs-stat.h"
#ifdef HAVE_DBUS
#include "bus.h"
#endif

static const TableColumn columns_text[] = {
	{ "IRQ", "irq" },	{ "ACTION", "action" },	    { "PID", "pid" },
	{ "POLICY", "policy" }, { "PRIORITY", "priority" }, { "RULE", "rule" },
};
static const TableColumn columns_json[] = {
	{ "IRQ", "irq" },
	{ "ACTION", "action" },
	{ "PID", "pid" },
	{ "POLICY", "policy" },
	{ "PRIORITY", "priority" },
	{ "RULE", "rule" },
	{ "RULE PRIORITY", "rule_priority" },
	{ "RULE SOURCE", "rule_source" },
};

typedef struct IrqList {
	IrqThread *threads;
	size_t n;
	const char *source; /* "realtimed" or "/proc" */
} IrqList;

static void irq_list_done(IrqList *l)
{
	procfs_irq_threads_free(l->threads, l->n);
	*l = (IrqList){};
}

#ifdef HAVE_DBUS
/* Returns 0 and the list, or an exit status (CTL_EXIT_UNREACHABLE: fall back). */
static int irq_list_from_daemon(IrqList *ret)
{
	_cleanup_bus_message_ DBusMessage *reply = NULL;
	DBusMessageIter iter, array;
	IrqList l = { .source = "realtimed" };
	size_t allocated = 0;
	int r;

	r = bus_call_once("ListIrqThreads", "list IRQ threads through realtimed", false, "a(ustsi)",
			  &reply, DBUS_TYPE_INVALID);
	if (r > 0)
		return r;

	dbus_message_iter_init(reply, &iter);
	dbus_message_iter_recurse(&iter, &array);
	while (dbus_message_iter_get_arg_type(&array) == DBUS_TYPE_STRUCT) {
		dbus_uint32_t irq;
		dbus_uint64_t pid;
		dbus_int32_t priority;
		const char *action, *policy;
		IrqThread *t;

		if (l.n == allocated) {
			allocated = allocated ? allocated * 2 : 16;
			t = reallocarray(l.threads, allocated, sizeof(*t));
			if (!t) {
				irq_list_done(&l);
				return ctl_oom();
			}
			l.threads = t;
		}
		bus_iter_read_struct(&array, &irq, &action, &pid, &policy, &priority, NULL);

		t = &l.threads[l.n];
		*t = (IrqThread){ .irq = irq, .pid = (pid_t)pid, .priority = priority };
		t->policy = procfs_sched_policy_from_string(policy);
		if (t->policy < 0)
			t->policy = SCHED_OTHER;
		t->action = strdup(action);
		if (!t->action) {
			irq_list_done(&l);
			return ctl_oom();
		}
		l.n++;
	}
	*ret = l;
	return 0;
}
#endif

static int add_rule_cells(Table *t, bool json, const PolicyIrqRule *rule)
{
	_cleanup_free_ char *source = NULL, *text = NULL;

	if (!rule) {
		if (table_add_string(t, NULL) < 0)
			return -ENOMEM;
		if (json && (table_add_string(t, NULL) < 0 || table_add_string(t, NULL) < 0))
			return -ENOMEM;
		return 0;
	}
	if (asprintf(&source, "%s:%u", rule->source.file, rule->source.line) < 0)
		return -ENOMEM;
	if (json) {
		if (table_add_string(t, rule->pattern) < 0 ||
		    table_add_int(t, rule->priority, NULL) < 0 || table_add_string(t, source) < 0)
			return -ENOMEM;
		return 0;
	}
	if (asprintf(&text, "%s=%d (%s)", rule->pattern, rule->priority, source) < 0)
		return -ENOMEM;
	return table_add_string(t, text);
}

int verb_irq(Ctl *ctl, int argc, char **argv)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	_cleanup_table_ Table *t = NULL;
	IrqList l = {};
	int r, ret = CTL_EXIT_OK;

	if (argc > 0)
		return ctl_usage_error("irq takes no arguments.");

#ifdef HAVE_DBUS
	if (!ctl->offline) {
		r = irq_list_from_daemon(&l);
		if (r > 0 && r != CTL_EXIT_UNREACHABLE)
			return r;
		if (r > 0)
			fprintf(stderr, "Reading the IRQ threads without realtimed instead.\n");
	}
#endif
	if (!l.source) {
		r = procfs_irq_threads_kmod(KMOD_IRQ_THREADS_PATH, &l.threads, &l.n);
		if (r >= 0)
			l.source = KMOD_IRQ_THREADS_PATH;
		else if (r != -ENOENT)
			fprintf(stderr, "Failed to read %s (%s); reading the threads from /proc.\n",
				KMOD_IRQ_THREADS_PATH, strerror(-r));
	}
	if (!l.source) {
		l.source = "/proc";
		r = procfs_irq_threads("/proc", &l.threads, &l.n);
		if (r < 0) {
			fprintf(stderr, "Failed to read the IRQ threads from /proc: %s\n",
				strerror(-r));
			return ctl_exit_from_errno(r);
		}
	}

	/* The local policy's [IRQ] rules, to show what each thread should get. */
	r = ctl_load_policy(ctl, false, &p);
	if (r < 0) {
		ret = ctl_exit_from_errno(r);
		goto finish;
	}

	r = ctl->json ? table_new(columns_json, ELEMENTSOF(columns_json), &t)
		      : table_new(columns_text, ELEMENTSOF(columns_text), &t);
	if (r < 0) {
		ret = ctl_oom();
		goto finish;
	}
	for (size_t i = 0; i < l.n; i++) {
		const IrqThread *th = &l.threads[i];

		if (table_add_uint(t, th->irq, NULL) < 0 || table_add_string(t, th->action) < 0 ||
		    table_add_uint(t, (uint64_t)th->pid, NULL) < 0 ||
		    table_add_string(t, procfs_sched_policy_to_string(th->policy)) < 0 ||
		    table_add_int(t, th->priority, NULL) < 0 ||
		    add_rule_cells(t, ctl->json, policy_irq_match(p, th->action)) < 0) {
			ret = ctl_oom();
			goto finish;
		}
	}

	if (ctl->json || l.n > 0)
		if (table_print(t, ctl_table_format(ctl), stdout) < 0) {
			ret = CTL_EXIT_FAILED;
			goto finish;
		}
	if (!ctl->json && ctl->legend) {
		if (l.n == 0)
			printf("No IRQ threads: this kernel runs interrupt handlers in hard "
			       "interrupt context.\n"
			       "Boot with 'threadirqs' (or a PREEMPT_RT kernel) to get IRQ threads "
			       "whose priority can be set.\n");
		else
			printf("\n%zu IRQ thread%s (from %s).\n", l.n, l.n == 1 ? "" : "s",
			       l.source);
		if (policy_n_errors(p) > 0)
			printf("%zu policy file(s) rejected, their [IRQ] rules left out: see "
			       "'realtimectl policy check'.\n",
			       policy_n_errors(p));
	}
finish:
	irq_list_done(&l);
	return ret;
}
