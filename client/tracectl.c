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
	{"list", "List sessions, a session's channels, or applications (-u)", tc_cmd_list},
	{"snapshot", "Record a snapshot of a snapshot session (snapshot record)", tc_cmd_snapshot},
	{"status", "Show the current session", tc_cmd_status},
	{"view", "Print a trace with babeltrace2", tc_cmd_view},
	{"version", "Print the versions of tracectl and tracectld", tc_cmd_version},
	{"monitor", "Print the service's signals as they come", tc_cmd_monitor},
	{"add-trigger", "Act when a condition becomes true (buffer usage...)", tc_cmd_add_trigger},
	{"list-triggers", "List triggers", tc_cmd_list_triggers},
	{"remove-trigger", "Remove a trigger", tc_cmd_remove_trigger},
};

static void
usage(FILE *out)
{
	fprintf(out, "Usage: tracectl [-h] [-V] [-v] COMMAND [OPTIONS] [ARGUMENTS]\n\n"
		     "Commands:\n");
	for (guint i = 0; i < G_N_ELEMENTS(commands); i++)
		fprintf(out, "  %-16s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nGlobal options:\n"
		     "  -h, --help       Show this help ('tracectl COMMAND --help' for a command)\n"
		     "  -V, --version    Print the version\n"
		     "  -v, --verbose    Print debug messages\n\n"
		     "tracectl talks to tracectld on the system bus, or, when there is none, on\n"
		     "the bus whose address is in $TRACECTL_RUNDIR/bus (default "
		     "/run/tracectl/bus).\n"
		     "Exit status: 0 on success, 1 when the service refused or failed, 2 for a\n"
		     "bad command line.\n");
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

int
main(int argc, char **argv)
{
	const TcCommand *command;
	int i;

	setlocale(LC_ALL, "");
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (g_str_equal(argv[i], "-h") || g_str_equal(argv[i], "--help")) {
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
