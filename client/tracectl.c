/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tracectl: the command line of the tracectl tracing service. */
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "tc-client.h"

static const TcCommand commands[] = {
	{"create", "Create a tracing session", tc_cmd_create},
	{"destroy", "Destroy a tracing session", tc_cmd_destroy},
	{"start", "Start recording", tc_cmd_start},
	{"stop", "Stop recording and write everything out", tc_cmd_stop},
	{"enable-channel", "Create a channel with its buffer geometry", tc_cmd_enable_channel},
	{"add-context", "Add context fields (vpid, vtid, procname...) to events", tc_cmd_add_context},
	{"enable-event", "Record events", tc_cmd_enable_event},
	{"disable-event", "Stop recording events", tc_cmd_disable_event},
	{"set-session", "Set the current session", tc_cmd_set_session},
	{"disable-channel", "Disable channels", tc_cmd_disable_channel},
	{"list", "List sessions, a session's channels, or applications (-u)", tc_cmd_list},
	{"snapshot", "Record a snapshot of a snapshot session (snapshot record)", tc_cmd_snapshot},
	{"rotate", "Archive the current trace chunk of a session", tc_cmd_rotate},
	{"enable-rotation", "Rotate a session on a timer or at a size", tc_cmd_enable_rotation},
	{"disable-rotation", "Turn off a session's rotation schedule", tc_cmd_disable_rotation},
	{"clear", "Drop what a session recorded so far", tc_cmd_clear},
	{"regenerate", "Write the kernel state dump again (regenerate statedump)",
	 tc_cmd_regenerate},
	{"status", "Show the current session", tc_cmd_status},
	{"save", "Save sessions to LTTng session configuration files", tc_cmd_save},
	{"load", "Create sessions from LTTng session configuration files", tc_cmd_load},
	{"track", "Let only some processes record (by pid, uid, gid...)", tc_cmd_track},
	{"untrack", "Keep processes from recording", tc_cmd_untrack},
	{"view", "Print a trace with babeltrace2", tc_cmd_view},
	{"export", "Export recorded spans to OpenTelemetry or Zipkin", tc_cmd_export},
	{"version", "Print the versions of tracectl and tracectld", tc_cmd_version},
	{"monitor", "Print the service's signals as they come", tc_cmd_monitor},
	{"add-trigger", "Act when a condition becomes true (buffer usage...)", tc_cmd_add_trigger},
	{"list-triggers", "List triggers", tc_cmd_list_triggers},
	{"remove-trigger", "Remove a trigger", tc_cmd_remove_trigger},
};

static void
usage(FILE *out)
{
	fprintf(out, "Usage: tracectl [-h] [-V] [-v] [-H HOST] COMMAND [OPTIONS] [ARGUMENTS]\n\n"
		     "Commands:\n");
	for (guint i = 0; i < G_N_ELEMENTS(commands); i++)
		fprintf(out, "  %-16s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nGlobal options:\n"
		     "  -h, --help       Show this help ('tracectl COMMAND --help' for a command)\n"
		     "  -V, --version    Print the version\n"
		     "  -v, --verbose    Print debug messages\n"
		     "  -H, --host=[USER@]HOST[:PORT]\n"
		     "                   Operate on HOST's service, through ssh (HOST runs\n"
		     "                   systemd-stdio-bridge); $TRACECTL_SSH names the ssh\n"
		     "                   program\n"
		     "  --no-ask-password\n"
		     "                   When polkit needs a password, refuse instead of\n"
		     "                   asking for it (on a terminal, a text agent asks)\n"
		     "  --json[=MODE]    Print results as JSON: short (one line) or pretty;\n"
		     "                   plain --json is pretty on a terminal, short otherwise.\n"
		     "                   Allowed before or after COMMAND. Errors are JSON objects\n"
		     "                   on stderr, one a line.\n\n"
		     "tracectl talks to tracectld on the system bus, or, when there is none, on\n"
		     "the bus whose address is in $TRACECTL_RUNDIR/bus (default "
		     "/run/tracectl/bus).\n"
		     "With -H, to HOST's system bus as the ssh user, authorized by HOST's\n"
		     "polkit; commands that would read this machine's files for HOST say so\n"
		     "(tracectl(1)).\n\n"
		     "Exit status:\n"
		     "  0  success\n"
		     "  1  any other failure (an argument the service refuses included)\n"
		     "  2  usage: a command line tracectl rejects before calling the service\n"
		     "  3  not found: no such session (other users' sessions included), no\n"
		     "     current session, no such channel\n"
		     "  4  permission denied: polkit or the service refused the caller\n"
		     "  5  the service is unreachable: no bus, or no tracectld on it (with -H,\n"
		     "     also ssh's failures)\n"
		     "  6  partial failure: some of the operations asked for failed\n"
		     "The JSON shapes and statuses are described in docs/json.md.\n");
}

/* -H HOST, -HHOST, --host=HOST or --host HOST at argv[*i]: the host, with
 * *i on its last argument; NULL when argv[*i] is none of them. A missing
 * HOST gives "". */
static const char *
host_option(int argc, char **argv, int *i)
{
	const char *arg = argv[*i];

	if (g_str_equal(arg, "-H") || g_str_equal(arg, "--host")) {
		if (*i + 1 == argc)
			return "";
		return argv[++*i];
	}
	if (g_str_has_prefix(arg, "--host="))
		return arg + strlen("--host=");
	if (g_str_has_prefix(arg, "-H"))
		return arg + strlen("-H");
	return NULL;
}

static gboolean
set_host(const char *host)
{
	g_autofree char *destination = NULL;
	g_autofree char *port = NULL;
	g_autoptr(GError) error = NULL;

	if (!tc_client_parse_host(host, &destination, &port, &error)) {
		g_printerr("Error: -H: %s (try 'tracectl --help')\n", error->message);
		return FALSE;
	}
	tc_client_remote_set_host(host);
	return TRUE;
}

static const TcCommand *
find_command(const char *name)
{
	for (guint i = 0; i < G_N_ELEMENTS(commands); i++)
		if (g_str_equal(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static int
run_command(const TcCommand *command, int argc, char **argv)
{
	g_autofree char *prgname = g_strdup_printf("tracectl %s", command->name);

	g_set_prgname(prgname);
	return command->run(argc, argv);
}

static int
run_tracectl(int argc, char **argv)
{
	const TcCommand *command;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *host = host_option(argc, argv, &i);

		if (host) {
			if (!set_host(host))
				return TC_EXIT_USAGE;
		} else if (g_str_equal(argv[i], "-h") || g_str_equal(argv[i], "--help")) {
			usage(stdout);
			return TC_EXIT_OK;
		} else if (g_str_equal(argv[i], "-V") || g_str_equal(argv[i], "--version")) {
			g_print("tracectl %s\n", PACKAGE_VERSION);
			return TC_EXIT_OK;
		} else if (g_str_equal(argv[i], "-v") || g_str_equal(argv[i], "--verbose")) {
			g_setenv("G_MESSAGES_DEBUG", "all", TRUE);
		} else {
			g_printerr("Error: unknown option '%s' (try 'tracectl --help')\n", argv[i]);
			return TC_EXIT_USAGE;
		}
	}
	if (i == argc) {
		usage(stderr);
		return TC_EXIT_USAGE;
	}
	if (g_str_equal(argv[i], "help")) {
		char *help_argv[] = {argv[i + 1], "--help", NULL};

		if (i + 1 == argc) {
			usage(stdout);
			return TC_EXIT_OK;
		}
		command = find_command(argv[i + 1]);
		if (command)
			return run_command(command, 2, help_argv);
	} else {
		command = find_command(argv[i]);
		if (command)
			return run_command(command, argc - i, argv + i);
	}
	g_printerr("Error: unknown command '%s' (try 'tracectl --help')\n",
		   argv[i + (g_str_equal(argv[i], "help") ? 1 : 0)]);
	return TC_EXIT_USAGE;
}

int
main(int argc, char **argv)
{
	const char *bad_json = NULL;

	setlocale(LC_ALL, "");
	/* --json is global, before or after the command: taken out here so
	 * that no command's option parser sees it. */
	if (!tc_client_output_take_option(&argc, argv, &bad_json)) {
		g_printerr("Error: '%s': the JSON modes are short and pretty (try 'tracectl "
			   "--help')\n",
			   bad_json);
		return TC_EXIT_USAGE;
	}
	tc_client_agent_take_option(&argc, argv);
	tc_client_output_begin();
	return tc_client_output_end(run_tracectl(argc, argv));
}
