/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tracectl destroy [NAME] [-a] [-n] */
#include "tc-client.h"

/* With --json, the sessions destroyed are collected in destroyed, an
 * open array of {"name", "path", "owner_uid"}; as text, each is printed. */
static gboolean
destroy_one(TcClientManager *manager, const char *path, const char *name, guint32 owner,
	    const char *output, gboolean no_wait, JsonBuilder *destroyed, GError **error)
{
	g_autoptr(GVariant) reply = NULL;
	GVariantBuilder options;

	if (no_wait) {
		g_variant_builder_init(&options, G_VARIANT_TYPE_VARDICT);
		g_variant_builder_add(&options, "{sv}", "no-wait", g_variant_new_boolean(TRUE));
		reply = tc_client_call(manager, "DestroySessionWithOptions",
				       g_variant_new("(oa{sv})", path, &options), error);
	} else {
		reply =
		    tc_client_call(manager, "DestroySession", g_variant_new("(o)", path), error);
	}
	if (reply == NULL)
		return FALSE;
	if (tc_client_output_is_json()) {
		json_builder_begin_object(destroyed);
		tc_client_output_member_string(destroyed, "name", name);
		tc_client_output_member_string(destroyed, "path", path);
		tc_client_output_member_uint(destroyed, "owner_uid", owner);
		json_builder_end_object(destroyed);
	} else if (owner == tc_client_caller_uid()) {
		g_print("Session %s destroyed.\n", name);
	} else {
		g_print("Session %s of uid %u destroyed.\n", name, owner);
	}
	if (owner == tc_client_caller_uid()) {
		tc_client_clear_current_session(name);
		/* For 'tracectl view NAME' once the session is gone. */
		tc_client_remember_destroyed(name, output);
	}
	return TRUE;
}

static JsonBuilder *
destroyed_begin(void)
{
	JsonBuilder *builder = json_builder_new();

	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "destroyed");
	json_builder_begin_array(builder);
	return builder;
}

/* Prints {"destroyed": [...]} with --json, unless nothing was destroyed
 * because of a failure (stdout stays empty then). */
static void
destroyed_end(JsonBuilder *builder, int status)
{
	json_builder_end_array(builder);
	json_builder_end_object(builder);
	if (tc_client_output_is_json() && (status == TC_EXIT_OK || status == TC_EXIT_PARTIAL))
		tc_client_output_print_builder(builder);
}

static int
destroy_all(TcClientManager *manager, gboolean no_wait)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GVariant) reply = tc_client_call(manager, "ListSessions", NULL, &error);
	g_autoptr(GVariantIter) iter = NULL;
	g_autoptr(JsonBuilder) destroyed = NULL;
	const char *path, *name, *state, *output;
	guint32 owner;
	guint n_destroyed = 0;
	int failed_status = TC_EXIT_OK, status;

	if (reply == NULL)
		return tc_client_fail(error);
	destroyed = destroyed_begin();
	/* The service lists the caller's own sessions, or every user's to a
	 * caller authorized for manage-other-users: --all is what it lists. */
	g_variant_get(reply, "(a(osuss))", &iter);
	while (g_variant_iter_next(iter, "(&o&su&s&s)", &path, &name, &owner, &state, &output)) {
		if (destroy_one(manager, path, name, owner, output, no_wait, destroyed, &error)) {
			n_destroyed++;
		} else {
			failed_status = tc_client_fail(error);
			g_clear_error(&error);
		}
	}
	status = tc_client_output_combine(n_destroyed, failed_status);
	destroyed_end(destroyed, status);
	return status;
}

int
tc_cmd_destroy(int argc, char **argv)
{
	gboolean all = FALSE, no_wait = FALSE;
	const GOptionEntry entries[] = {
	    {"all", 'a', 0, G_OPTION_ARG_NONE, &all,
	     "Destroy all your sessions (every user's, for an administrator)", NULL},
	    {"no-wait", 'n', 0, G_OPTION_ARG_NONE, &no_wait,
	     "Return without waiting for the trace to be written out", NULL},
	    {NULL},
	};
	g_autoptr(GOptionContext) context = g_option_context_new("[NAME]");
	g_autoptr(GError) error = NULL;
	g_autoptr(TcClientManager) manager = NULL;
	g_autoptr(TcClientSession) session = NULL;
	g_autofree char *name = NULL;
	g_autofree char *output = NULL;
	g_autoptr(JsonBuilder) destroyed = NULL;
	int status;

	g_option_context_set_summary(
	    context, "Destroy a tracing session (the current one by default): recording stops, "
		     "everything recorded is written out, and the session is gone; its trace "
		     "stays on disk, and 'tracectl view NAME' still shows it. By default the "
		     "command returns once the trace is written out; with --no-wait it returns "
		     "at once. With --all, destroy all your sessions, or every user's sessions "
		     "when you are authorized to manage other users' sessions.");
	g_option_context_add_main_entries(context, entries, NULL);
	if (!tc_client_parse(context, &argc, &argv, &status))
		return status;
	if (argc > 2 || (all && argc > 1)) {
		g_printerr("Error: give one NAME or --all (try 'tracectl destroy --help')\n");
		return TC_EXIT_USAGE;
	}
	manager = tc_client_manager(&error);
	if (manager == NULL)
		return tc_client_fail(error);
	if (all)
		return destroy_all(manager, no_wait);
	session = tc_client_session(argc == 2 ? argv[1] : NULL, &error);
	if (session == NULL)
		return tc_client_fail(error);
	name = g_strdup(tc_client_session_get_name(session));
	output = g_strdup(tc_client_session_get_output_directory(session));
	destroyed = destroyed_begin();
	if (!destroy_one(manager, tc_client_object_path(session), name,
			 tc_client_session_get_owner_uid(session), output ? output : "", no_wait,
			 destroyed, &error))
		return tc_client_fail(error);
	destroyed_end(destroyed, TC_EXIT_OK);
	return TC_EXIT_OK;
}
