/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracectl rotate [SESSION]
 * tracectl enable-rotation (--timer PERIOD | --size SIZE) [-s SESSION]
 * tracectl disable-rotation [--timer] [--size] [-s SESSION]
 * and the rotation lines of list SESSION and status.
 */
#include "tc-client.h"

int
tc_cmd_rotate(int argc, char **argv)
{
	g_autoptr(GOptionContext) context = g_option_context_new("[SESSION]");
	g_autoptr(GError) error = NULL;
	g_autoptr(TcClientSession) session = NULL;
	g_autoptr(GVariant) reply = NULL;
	const char *archive;
	int status;

	g_option_context_set_summary(context,
				     "Archive the current trace chunk of a session (the current "
				     "one by default) into <output>/archives/; recording goes on "
				     "in a new chunk.");
	if (!tc_client_parse(context, &argc, &argv, &status))
		return status;
	if (argc > 2) {
		g_printerr("Error: too many arguments (try 'tracectl rotate --help')\n");
		return TC_EXIT_USAGE;
	}
	session = tc_client_session(argc == 2 ? argv[1] : NULL, &error);
	if (session)
		reply = tc_client_call(session, "Rotate", NULL, &error);
	if (reply == NULL)
		return tc_client_fail(error);
	g_variant_get(reply, "(&s)", &archive);
	g_print("Trace chunk archive for session %s is now readable at %s\n",
		tc_client_session_get_name(session), archive);
	return TC_EXIT_OK;
}

int
tc_cmd_enable_rotation(int argc, char **argv)
{
	g_autofree char *session_name = NULL, *timer = NULL, *size = NULL;
	const GOptionEntry entries[] = {
		{"session", 's', 0, G_OPTION_ARG_STRING, &session_name,
		 "The session (default: the current one)", "SESSION"},
		{"timer", 0, 0, G_OPTION_ARG_STRING, &timer,
		 "Rotate every PERIOD while recording (microseconds, or with a unit: us, ms, s, "
		 "m, h)", "PERIOD"},
		{"size", 0, 0, G_OPTION_ARG_STRING, &size,
		 "Rotate once the current chunk holds SIZE bytes (k, M, G suffixes)", "SIZE"},
		{NULL},
	};
	g_autoptr(GOptionContext) context = g_option_context_new(NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(TcClientSession) session = NULL;
	g_autoptr(GVariant) reply = NULL;
	GVariantBuilder schedule;
	guint64 timer_us = 0, size_bytes = 0;
	int status;

	g_option_context_set_summary(context, "Set a session's automatic rotation schedule.");
	g_option_context_add_main_entries(context, entries, NULL);
	if (!tc_client_parse(context, &argc, &argv, &status))
		return status;
	if (argc > 1 || (!timer && !size)) {
		g_printerr("Error: give --timer and/or --size (try 'tracectl enable-rotation "
			   "--help')\n");
		return TC_EXIT_USAGE;
	}
	if (timer && !tc_client_parse_period(timer, &timer_us)) {
		g_printerr("Error: invalid period '%s': a number of microseconds, or with a unit "
			   "(us, ms, s, m, h)\n", timer);
		return TC_EXIT_USAGE;
	}
	if (size && !tc_client_parse_size(size, &size_bytes)) {
		g_printerr("Error: invalid size '%s'\n", size);
		return TC_EXIT_USAGE;
	}
	/* 0 goes to the service, which refuses it with the bounds. */
	g_variant_builder_init(&schedule, G_VARIANT_TYPE_VARDICT);
	if (timer)
		g_variant_builder_add(&schedule, "{sv}", "timer-us", g_variant_new_uint64(timer_us));
	if (size)
		g_variant_builder_add(&schedule, "{sv}", "size-bytes",
				      g_variant_new_uint64(size_bytes));
	session = tc_client_session(session_name, &error);
	if (session)
		reply = tc_client_call(session, "SetRotationSchedule",
				       g_variant_new("(a{sv})", &schedule), &error);
	else
		g_variant_builder_clear(&schedule);
	if (reply == NULL)
		return tc_client_fail(error);
	if (timer)
		g_print("Periodic rotation every %" G_GUINT64_FORMAT " us set for session %s\n",
			timer_us, tc_client_session_get_name(session));
	if (size)
		g_print("Rotation at %" G_GUINT64_FORMAT " bytes set for session %s\n", size_bytes,
			tc_client_session_get_name(session));
	return TC_EXIT_OK;
}

int
tc_cmd_disable_rotation(int argc, char **argv)
{
	g_autofree char *session_name = NULL;
	gboolean timer = FALSE, size = FALSE;
	const GOptionEntry entries[] = {
		{"session", 's', 0, G_OPTION_ARG_STRING, &session_name,
		 "The session (default: the current one)", "SESSION"},
		{"timer", 0, 0, G_OPTION_ARG_NONE, &timer, "Turn off the periodic rotation", NULL},
		{"size", 0, 0, G_OPTION_ARG_NONE, &size, "Turn off the size rotation", NULL},
		{NULL},
	};
	g_autoptr(GOptionContext) context = g_option_context_new(NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(TcClientSession) session = NULL;
	g_autoptr(GVariant) reply = NULL;
	GVariantBuilder which;
	int status;

	g_option_context_set_summary(context, "Turn off parts of a session's rotation schedule.");
	g_option_context_add_main_entries(context, entries, NULL);
	if (!tc_client_parse(context, &argc, &argv, &status))
		return status;
	if (argc > 1 || (!timer && !size)) {
		g_printerr("Error: give --timer and/or --size (try 'tracectl disable-rotation "
			   "--help')\n");
		return TC_EXIT_USAGE;
	}
	g_variant_builder_init(&which, G_VARIANT_TYPE_STRING_ARRAY);
	if (timer)
		g_variant_builder_add(&which, "s", "timer");
	if (size)
		g_variant_builder_add(&which, "s", "size");
	session = tc_client_session(session_name, &error);
	if (session)
		reply = tc_client_call(session, "UnsetRotationSchedule",
				       g_variant_new("(as)", &which), &error);
	else
		g_variant_builder_clear(&which);
	if (reply == NULL)
		return tc_client_fail(error);
	g_print("Rotation schedule turned off for session %s\n",
		tc_client_session_get_name(session));
	return TC_EXIT_OK;
}

void
tc_client_print_rotation(TcClientSession *session)
{
	guint64 timer_us = tc_client_session_get_rotation_timer(session);
	guint64 size_bytes = tc_client_session_get_rotation_size(session);
	const char *last = tc_client_session_get_last_archive(session);

	if (timer_us)
		g_print("    Rotation: every %" G_GUINT64_FORMAT " us\n", timer_us);
	if (size_bytes)
		g_print("    Rotation: at %" G_GUINT64_FORMAT " bytes\n", size_bytes);
	if (last && *last)
		g_print("    Last archive: %s\n", last);
}
