/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracectld: the tracectl session daemon. Owns org.tracectl.Tracing1 on
 * the system bus (or on its own bus in embedded mode), serves D-Bus on the
 * GLib main loop, applications on the listener thread, and consumers from
 * worker threads.
 */
#define G_LOG_DOMAIN "tracectld"

#include <errno.h>
#include <gio/gio.h>
#include <glib-unix.h>
#include <locale.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "config.h"
#include "tc-app-listener.h"
#include "tc-authority.h"
#include "tc-consumer.h"
#include "tc-consumer-unit.h"
#include "tc-dbus-manager.h"
#include "tc-dbus-request.h"
#include "tc-embedded.h"
#include "tc-error.h"
#include "tc-idle.h"
#include "tc-kernel.h"
#include "tc-lttng-apps.h"
#include "tc-registry.h"
#include "tc-relay-watch.h"
#include "tc-rundir.h"
#include "tc-session-autoload.h"
#include "tc-session-ops.h"
#include "tc-session-op-relay.h"
#include "tc-session-rotation.h"
#include "tc-trace-clock.h"
#include "tc-triggers.h"
#include "tc-unit-watch.h"
#include "tc-user-limits.h"
#include "tc-wake.h"

typedef struct {
	GMainLoop *loop;
	char *rundir;
	TcEmbedded *embedded;
	TcAppListener *listener;
	gpointer manager;
	guint owner_id;
	gboolean is_started;
	gboolean is_lttng_ust; /* serve LTTng-UST applications on LTTng's paths */
	int exit_status;
	const char *session_dir; /* auto-loaded at start */
} TcDaemon;

static const char *
rundir_from_env(void)
{
	const char *dir = g_getenv("TRACECTL_RUNDIR");

	return dir && *dir ? dir : TRACECTL_DEFAULT_RUNDIR;
}

static void
quit_with(TcDaemon *daemon, int status)
{
	daemon->exit_status = status;
	g_main_loop_quit(daemon->loop);
}

static void
bus_acquired_cb(GDBusConnection *connection, const char *name, gpointer user_data)
{
	TcDaemon *daemon = user_data;
	g_autoptr(GError) error = NULL;

	/* Objects are exported before the name is ours, so that the first
	 * caller finds them. */
	tc_authority_watch_peers(connection);
	daemon->manager = tc_dbus_manager_export(connection, &error);
	if (daemon->manager == NULL) {
		g_critical("Cannot export %s: %s", TC_DBUS_MANAGER_PATH, error->message);
		quit_with(daemon, EXIT_FAILURE);
	}
}

static void
name_acquired_cb(GDBusConnection *connection, const char *name, gpointer user_data)
{
	TcDaemon *daemon = user_data;
	g_autoptr(GError) error = NULL;
	g_autofree char *socket_path = g_build_filename(daemon->rundir, "app.sock", NULL);

	daemon->listener = tc_app_listener_new(socket_path, &error);
	if (daemon->listener == NULL) {
		g_critical("Cannot accept applications: %s", error->message);
		quit_with(daemon, EXIT_FAILURE);
		return;
	}
	if (!tc_wake_ready(daemon->rundir, &error))
		g_warning("Applications waiting for the service will retry on their own: %s",
			  error->message);
	if (daemon->is_lttng_ust) {
		tc_lttng_apps_start(TC_LTTNG_APPS_GLOBAL_SOCKET, TC_LTTNG_APPS_GLOBAL_WAIT);
		tc_dbus_manager_refresh_lttng_status(daemon->manager);
	}
	daemon->is_started = TRUE;
	g_message("Acquired the bus name %s, ready", name);
	sd_notify(0, "READY=1\nSTATUS=Ready");
	tc_session_autoload_start(connection, daemon->session_dir, tc_dbus_manager_publish_session);
}

static void
name_lost_cb(GDBusConnection *connection, const char *name, gpointer user_data)
{
	TcDaemon *daemon = user_data;

	if (connection == NULL)
		g_warning("Cannot connect to the system bus; without one, run "
			  "'tracectld --embedded'");
	else if (!daemon->is_started)
		g_warning("Cannot own %s: is another tracectld running?", name);
	else
		g_message("Lost the bus name %s, exiting", name);
	quit_with(daemon, daemon->is_started ? EXIT_SUCCESS : EXIT_FAILURE);
}

/* Idle: give the name back first, so that a call arriving now activates
 * a new instance instead of reaching one that is leaving. */
static gboolean
idle_exit_cb(gpointer user_data)
{
	TcDaemon *daemon = user_data;

	if (daemon->owner_id)
		g_bus_unown_name(daemon->owner_id);
	daemon->owner_id = 0;
	quit_with(daemon, EXIT_SUCCESS);
	return G_SOURCE_REMOVE;
}

static gboolean
terminate_cb(gpointer user_data)
{
	TcDaemon *daemon = user_data;

	g_message("Terminating");
	quit_with(daemon, EXIT_SUCCESS);
	return G_SOURCE_CONTINUE;
}

/* One socket per registered application: take every descriptor we may. */
static void
raise_file_limit(void)
{
	struct rlimit limit;

	if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
		limit.rlim_cur = limit.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &limit) < 0)
			g_message("Cannot raise the open file limit, ignoring: %s",
				  g_strerror(errno));
	}
}

/* The per-user limits: the configuration file, with the option given for
 * the connections over its [Limits]. */
static gboolean
load_limits(const char *config_file, gint max_app_connections, GError **error)
{
	if (max_app_connections == 0)
		tc_user_limits_set_default(TC_LIMIT_CONNECTIONS, TC_LIMIT_UNLIMITED);
	else if (max_app_connections > 0)
		tc_user_limits_set_default(TC_LIMIT_CONNECTIONS, (guint64)max_app_connections);
	if (!tc_user_limits_load(config_file ? config_file : TRACECTL_CONFIG_FILE,
				 config_file != NULL, error)) {
		g_prefix_error(error, "Bad per-user limits: ");
		return FALSE;
	}
	return TRUE;
}

static void
shutdown_daemon(TcDaemon *daemon)
{
	sd_notify(0, "STOPPING=1");
	tc_wake_stopping();
	if (daemon->owner_id)
		g_bus_unown_name(daemon->owner_id);
	/* Applications first, so nothing new arrives; then the consumers,
	 * which write out what they hold when their socket closes. */
	g_clear_pointer(&daemon->listener, tc_app_listener_free);
	tc_lttng_apps_stop();
	tc_session_autoload_wait();
	tc_session_rotation_scheduler_stop();
	tc_relay_watch_stop();
	tc_unit_watch_stop();
	tc_triggers_stop();
	tc_dbus_request_pool_stop();
	tc_consumer_shutdown_all();
	tc_consumer_unit_shutdown();
	tc_kernel_shutdown();
	g_clear_object(&daemon->manager);
	g_clear_pointer(&daemon->embedded, tc_embedded_stop);
	g_main_loop_unref(daemon->loop);
	g_free(daemon->rundir);
}

/*
 * GLib makes its C locale for g_ascii_strtoull() at the first call. Threads
 * that make that first call together wait for each other inside
 * g_ascii_string_to_unsigned(), after it cleared errno and before it reads
 * it: the wait may leave EAGAIN there, and a number as good as "262144"
 * is then refused (GLib 2.74; auto-load parses users' files on threads of
 * their own). Made here, before any thread, the locale is there already.
 */
static void
make_glib_c_locale(void)
{
	(void)g_ascii_strtoull("0", NULL, 10);
}

int
main(int argc, char **argv)
{
	gboolean embedded = FALSE, verbose = FALSE, replace = FALSE, version = FALSE;
	gboolean lttng_ust = FALSE;
	gint idle_timeout_s = 0, max_app_connections = -1;
	gint consumer_rt_priority = 0;
	g_autofree char *config_file = NULL;
	g_autofree char *session_dir = NULL;
	const GOptionEntry entries[] = {
		{"config", 0, 0, G_OPTION_ARG_FILENAME, &config_file,
		 "Read the per-user limits from PATH (default " TRACECTL_CONFIG_FILE
		 ", which may be missing)",
		 "PATH"},
		{"consumer-rt-priority", 0, 0, G_OPTION_ARG_INT, &consumer_rt_priority,
		 "Run the consumers' main threads as SCHED_FIFO with priority N, 1 to 99, "
		 "so that a busy writer on their CPU cannot delay them (0: normal "
		 "scheduling, the default)",
		 "N"},
		{"embedded", 'e', 0, G_OPTION_ARG_NONE, &embedded,
		 "Start a private system bus and polkitd (no system bus on this machine)",
		 NULL},
		{"idle-timeout", 0, 0, G_OPTION_ARG_INT, &idle_timeout_s,
		 "Exit after SECS without any session or call (0: never, the default)",
		 "SECS"},
		{"lttng-ust", 0, 0, G_OPTION_ARG_NONE, &lttng_ust,
		 "Serve LTTng-UST applications on LTTng's global paths (" TC_LTTNG_APPS_GLOBAL_SOCKET
		 ", the wait page " TC_LTTNG_APPS_GLOBAL_WAIT
		 "), unless another session daemon answers there; the default as root "
		 "outside embedded mode",
		 NULL},
		{"max-app-connections", 0, 0, G_OPTION_ARG_INT, &max_app_connections,
		 "Connections to the application socket one user (root aside) may hold, "
		 "instead of MaxConnections of the configuration's [Limits] (0: no limit)",
		 "N"},
		{"replace", 'r', 0, G_OPTION_ARG_NONE, &replace,
		 "Replace the running instance", NULL},
		{"session-dir", 0, 0, G_OPTION_ARG_FILENAME, &session_dir,
		 "Load root's sessions from the root-owned session files in DIR at start "
		 "(default " TRACECTL_AUTOLOAD_DIR ", which may be missing)",
		 "DIR"},
		{"verbose", 'v', 0, G_OPTION_ARG_NONE, &verbose, "Log debug messages", NULL},
		{"version", 0, 0, G_OPTION_ARG_NONE, &version, "Print the version", NULL},
		{NULL},
	};
	g_autoptr(GOptionContext) context = g_option_context_new("- tracectl tracing service");
	g_autoptr(GError) error = NULL;
	TcDaemon daemon = {.exit_status = EXIT_SUCCESS};

	make_glib_c_locale();
	setlocale(LC_ALL, "");
	g_option_context_add_main_entries(context, entries, NULL);
	if (!g_option_context_parse(context, &argc, &argv, &error)) {
		g_printerr("tracectld: %s\n", error->message);
		return EXIT_FAILURE;
	}
	if (version) {
		g_print("tracectld %s\n", PACKAGE_VERSION);
		g_print("LTTng-UST applications: %s\n",
			TRACECTL_HAVE_LTTNG_UST ? "supported (--lttng-ust)"
						: "not supported (built without liblttng-ust-ctl)");
		return EXIT_SUCCESS;
	}
	if (!load_limits(config_file, max_app_connections, &error)) {
		g_printerr("tracectld: %s\n", error->message);
		return EXIT_FAILURE;
	}
	if (consumer_rt_priority < 0 || consumer_rt_priority > TC_CONSUMER_RT_PRIORITY_MAX) {
		g_printerr("tracectld: --consumer-rt-priority must be 0 to %d\n",
			   TC_CONSUMER_RT_PRIORITY_MAX);
		return EXIT_FAILURE;
	}
	tc_consumer_set_rt_priority(consumer_rt_priority);
	tc_consumer_set_lost_func(tc_session_ops_consumer_lost);
	tc_relay_watch_set_func(tc_session_op_relay_refresh_problem);
	if (verbose)
		g_setenv("G_MESSAGES_DEBUG", "all", TRUE);
	(void)TC_ERROR; /* register the D-Bus error names before any reply */
	raise_file_limit();
	/* LTTng's global paths are the machine's: an embedded service (a
	 * test's, a developer's) takes them only when told to. */
	daemon.is_lttng_ust = lttng_ust || (!embedded && geteuid() == 0);
	daemon.rundir = g_strdup(rundir_from_env());
	daemon.session_dir = session_dir ? session_dir : TRACECTL_AUTOLOAD_DIR;
	daemon.loop = g_main_loop_new(NULL, FALSE);
	if (!tc_rundir_prepare(daemon.rundir, &error))
		goto fail;
	if (embedded) {
		daemon.embedded = tc_embedded_start(daemon.rundir, &error);
		if (daemon.embedded == NULL)
			goto fail;
	}
	/* The main loop reads the registry: it is an RCU reader. */
	rcu_register_thread();
	tc_registry_init();
	tc_trace_clock_prepare();
	tc_authority_init();
	tc_dbus_request_pool_start();
	tc_triggers_start();
	tc_consumer_unit_init(daemon.rundir);
	tc_kernel_init(daemon.rundir);
	tc_idle_init(MAX(idle_timeout_s, 0), idle_exit_cb, &daemon);
	g_unix_signal_add(SIGTERM, terminate_cb, &daemon);
	g_unix_signal_add(SIGINT, terminate_cb, &daemon);
	daemon.owner_id = g_bus_own_name(G_BUS_TYPE_SYSTEM, TC_DBUS_NAME,
					 G_BUS_NAME_OWNER_FLAGS_ALLOW_REPLACEMENT |
						 (replace ? G_BUS_NAME_OWNER_FLAGS_REPLACE : 0),
					 bus_acquired_cb, name_acquired_cb, name_lost_cb, &daemon,
					 NULL);
	g_main_loop_run(daemon.loop);
	shutdown_daemon(&daemon);
	/* call_rcu callbacks may still run: let them finish before exit. */
	rcu_barrier();
	rcu_unregister_thread();
	return daemon.exit_status;
fail:
	g_printerr("tracectld: %s\n", error->message);
	g_clear_pointer(&daemon.embedded, tc_embedded_stop);
	g_main_loop_unref(daemon.loop);
	g_free(daemon.rundir);
	return EXIT_FAILURE;
}
