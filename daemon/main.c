// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * realtimed: start-up, signals, the event loop and shut-down. Everything runs
 * in the sd-event loop on this thread; only the canary watchdog and the NSS
 * helper's keeper have threads of their own. NSS never runs in this process.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <systemd/sd-daemon.h>

#include "bus-dispatch.h"
#include "bus-native.h"
#include "bus-queue.h"
#include "bus-rtkit.h"
#include "bus.h"
#include "canary.h"
#include "caps.h"
#include "config.h"
#include "cpu-dma.h"
#include "creds.h"
#include "daemon-policy.h"
#include "irq.h"
#include "log.h"
#include "manager.h"
#include "polkit.h"
#include "refusals.h"
#include "resolver.h"
#include "rtkit-name.h"
#include "shield.h"
#include "state.h"
#include "users.h"

static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	_cleanup_free_ char *error = NULL;

	(void)manager_reload(userdata, &error);
	return 0;
}

static int on_sigterm(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	Daemon *d = userdata;

	sd_notify(false, "STOPPING=1");
	log_debug("Exiting on signal %u; grants stay and are adopted on restart", si->ssi_signo);
	return sd_event_exit(d->event, 0);
}

static DBusHandlerResult on_filter(DBusConnection *c, DBusMessage *m, void *userdata)
{
	Daemon *d = userdata;

	if (dbus_message_is_signal(m, DBUS_INTERFACE_LOCAL, "Disconnected")) {
		log_error("Lost the connection to the system bus; exiting (grants are adopted on "
			  "restart)");
		sd_event_exit(d->event, 1);
		return DBUS_HANDLER_RESULT_HANDLED;
	}
	if (d->polkit)
		return polkit_filter(d->polkit, m);
	return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
}

static bool call_counted(DBusMessage *m)
{
	return bus_object_counts(&bus_native_object, m) || bus_object_counts(&bus_rtkit_object, m);
}

static int daemon_connect(Daemon *d)
{
	DBusError error;
	int r;

	dbus_error_init(&error);
	d->bus = dbus_bus_get_private(DBUS_BUS_SYSTEM, &error);
	if (!d->bus) {
		log_error("Failed to connect to the system bus: %s", error.message);
		dbus_error_free(&error);
		return -ECONNREFUSED;
	}
	dbus_connection_set_exit_on_disconnect(d->bus, FALSE);
	r = bus_attach_event(d->bus, d->event, d->users, &d->bus_dispatch_source);
	if (r < 0)
		return log_error_errno(r, "Failed to attach the bus to the event loop: %m");
	bus_queue_set_uid_func(bus_queue_of(d->bus), bus_creds_ask, d);
	bus_queue_set_counted_func(bus_queue_of(d->bus), call_counted);
	if (!dbus_connection_add_filter(d->bus, on_filter, d, NULL))
		return log_error_errno(ENOMEM, "Failed to add a bus filter: %m");
	r = polkit_new(d->bus, d->users, &d->polkit);
	if (r < 0)
		return log_error_errno(r, "Failed to set up polkit: %m");
	r = bus_native_register(d);
	if (r < 0)
		return log_error_errno(r, "Failed to register %s: %m", NATIVE_PATH);

	r = dbus_bus_request_name(d->bus, NATIVE_NAME, DBUS_NAME_FLAG_DO_NOT_QUEUE, &error);
	if (r != DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER) {
		log_error(
			"Failed to own %s: %s (is another realtimed running? does the D-Bus policy "
			"org.realtimed.Realtime1.conf let root own it?)",
			NATIVE_NAME, dbus_error_is_set(&error) ? error.message : "name taken");
		dbus_error_free(&error);
		return -EADDRINUSE;
	}
	return 0;
}

static int daemon_setup(Daemon *d)
{
	sigset_t mask;
	int r;

	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);

	r = sd_event_default(&d->event);
	if (r < 0)
		return log_error_errno(r, "Failed to create the event loop: %m");
	if (sd_event_add_signal(d->event, NULL, SIGHUP, on_sighup, d) < 0 ||
	    sd_event_add_signal(d->event, NULL, SIGTERM, on_sigterm, d) < 0 ||
	    sd_event_add_signal(d->event, NULL, SIGINT, on_sigterm, d) < 0)
		return log_error_errno(ENOMEM, "Failed to watch signals: %m");
	(void)sd_event_set_watchdog(d->event, true);
	r = creds_cache_new(&d->creds);
	if (r < 0)
		return log_error_errno(r, "Failed to set up the credentials cache: %m");
	r = users_new(&d->users);
	if (r < 0)
		return log_error_errno(r, "Failed to set up the users' table: %m");
	r = resolver_new(d->event, NULL, &d->resolver);
	if (r < 0)
		return log_error_errno(r, "Failed to set up the user lookups: %m");

	r = daemon_policy_load(d, true, NULL);
	if (r < 0)
		return r;

	/* under systemd too: the unit cannot keep CAP_SETUID, CAP_SETGID and
	 * CAP_SETPCAP permitted but not effective (caps.h) */
	if (d->args.drop_caps) {
		r = caps_drop_to_needed();
		if (r < 0)
			return r;
	}
	/* and NSS out of this process: the helper, forked now, while
	 * realtimed is one thread, drops everything before it loads NSS */
	r = resolver_start(d->resolver);
	if (r < 0)
		return r;

	if (mkdir(d->args.state_dir, 0755) < 0 && errno != EEXIST)
		log_warning_errno(errno, "Failed to create %s: %m; a restart will not adopt grants",
				  d->args.state_dir);

	/* before the table: the grants adopted below take hold of it */
	r = cpu_dma_new(d->args.cpu_dma_latency, &d->cpu_dma);
	if (r < 0)
		return log_error_errno(r, "Failed to set up the CPU latency request: %m");
	r = shield_new(d->event,
		       &(ShieldRoots){ .proc = d->args.proc,
				       .sys = "/sys",
				       .run = "/run",
				       .state_dir = d->args.state_dir },
		       &d->shield);
	if (r < 0)
		return log_error_errno(r, "Failed to set up the shield: %m");
	/* what a crash left shielded goes back before anything is taken */
	shield_recover(d->shield);
	r = grant_table_new(d->event, d->args.proc, manager_grants_changed, d, &d->grants);
	if (r < 0)
		return log_error_errno(r, "Failed to create the grant table: %m");
	r = canary_new(d->event, d->args.proc, manager_canary_fired, d, &d->canary);
	if (r < 0)
		return log_error_errno(r, "Failed to set up the canary watchdog: %m");

	r = daemon_connect(d);
	if (r < 0)
		return r;
	(void)manager_adopt(d);
	(void)irq_monitor_start(d);
	manager_apply_settings(d);
	return 0;
}

static void daemon_done(Daemon *d)
{
	if (d->save_source && sd_event_source_get_enabled(d->save_source, NULL) > 0)
		(void)daemon_state_save(d);
	d->resolver = resolver_free(d->resolver);
	d->canary = canary_free(d->canary);
	shield_stop(d->shield);
	d->shield = shield_free(d->shield);
	irq_monitor_stop(d);
	/* the threads keep their grants for the next start */
	d->grants = grant_table_free(d->grants);
	d->cpu_dma = cpu_dma_free(d->cpu_dma);
	d->save_source = sd_event_source_disable_unref(d->save_source);
	if (d->bus) {
		dbus_connection_close(d->bus);
		dbus_connection_unref(d->bus);
	}
	d->bus_dispatch_source = sd_event_source_disable_unref(d->bus_dispatch_source);
	d->rtkit = rtkit_name_free(d->rtkit);
	d->polkit = polkit_free(d->polkit);
	d->creds = creds_cache_free(d->creds);
	d->users = users_free(d->users);
	d->policy = policy_free(d->policy);
	d->event = sd_event_unref(d->event);
}

static const DaemonHooks bus_hooks = {
	.demoted = bus_native_emit_demoted,
	.serve_rtkit = bus_rtkit_serve,
	.answer = bus_answer,
};

int main(int argc, char *argv[])
{
	Daemon d = { .hooks = &bus_hooks };
	int r;

	r = args_parse(argc, argv, &d.args, stdout, stderr);
	if (r <= 0)
		return r < 0 ? 2 : 0;
	/* --debug under systemd (JOURNAL_STREAM) keeps the journal's MESSAGE_IDs */
	log_setup(d.args.debug, (d.args.debug && !getenv("JOURNAL_STREAM")) || !sd_booted() ||
					getenv("REALTIMED_LOG_STDERR"));

	r = daemon_setup(&d);
	if (r < 0) {
		daemon_done(&d);
		return 1;
	}
	log_id(LOG_INFO, LOG_ID_STARTED,
	       "realtimed %s serving %s, supervising %u threads, canary watchdog %s",
	       PACKAGE_VERSION, NATIVE_NAME, d.grants->n_grants,
	       canary_class_to_string(canary_class(d.canary)));
	sd_notifyf(false, "READY=1\nSTATUS=Supervising %u threads", d.grants->n_grants);

	r = sd_event_loop(d.event);
	daemon_done(&d);
	return r < 0 ? 1 : r;
}
