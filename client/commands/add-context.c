/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tracectl add-context -u|-k -t TYPE [-t TYPE...] [-c CHANNEL] [-s SESSION] */
#include "tc-client.h"

/* {"session", "domain", "channel" (null: every channel), "contexts"}. */
static JsonNode *
contexts_json(TcClientSession *session, const char *domain, const char *channel,
	      const char *const *types)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();

	json_builder_begin_object(builder);
	tc_client_output_member_string(builder, "session", tc_client_session_get_name(session));
	tc_client_output_member_string(builder, "domain", domain);
	tc_client_output_member_string(builder, "channel", channel);
	tc_client_output_member_strv(builder, "contexts", types);
	json_builder_end_object(builder);
	return json_builder_get_root(builder);
}

int
tc_cmd_add_context(int argc, char **argv)
{
	gboolean userspace = FALSE, kernel = FALSE;
	g_autofree char *session_name = NULL, *channel = NULL;
	g_auto(GStrv) types = NULL;
	gboolean list = FALSE;
	const GOptionEntry entries[] = {
		{"list", 'L', 0, G_OPTION_ARG_NONE, &list,
		 "List the context types of the domain (of both without -u or -k)", NULL},
		{"userspace", 'u', 0, G_OPTION_ARG_NONE, &userspace, "User-space domain", NULL},
		{"kernel", 'k', 0, G_OPTION_ARG_NONE, &kernel, "Kernel domain", NULL},
		{"session", 's', 0, G_OPTION_ARG_STRING, &session_name,
		 "The session (default: the current one)", "SESSION"},
		{"channel", 'c', 0, G_OPTION_ARG_STRING, &channel,
		 "Only this channel (default: every channel)", "CHANNEL"},
		{"type", 't', 0, G_OPTION_ARG_STRING_ARRAY, &types,
		 "Context to add: -u: vpid, vtid, procname, pthread_id, vuid, veuid, vsuid, vgid, "
		 "vegid, vsgid, cgroup_ns, ipc_ns, mnt_ns, net_ns, pid_ns, time_ns, user_ns, "
		 "uts_ns, ip, perf:thread:NAME, perf:thread:raw:rHEX:NAME (see --list), and for "
		 "tracectl's own applications only $app.PROVIDER:NAME; -k: pid, tid, procname, "
		 "prio (repeat -t for more)",
		 "TYPE"},
		{NULL},
	};
	g_autoptr(GOptionContext) context = g_option_context_new("-u|-k -t TYPE... | --list");
	g_autoptr(GError) error = NULL;
	g_autoptr(TcClientSession) session = NULL;
	g_autoptr(GVariant) reply = NULL;
	int status;

	g_option_context_set_summary(context,
				     "Add context fields to every event of a session's channels. "
				     "Only before the session is first started. With --list, "
				     "list the context types the service supports.");
	g_option_context_add_main_entries(context, entries, NULL);
	if (!tc_client_parse(context, &argc, &argv, &status))
		return status;
	if (list)
		return tc_client_list_contexts(userspace || !kernel, kernel || !userspace);
	if (userspace == kernel || argc != 1 || types == NULL) {
		g_printerr("Error: give -u or -k and at least one -t TYPE (try 'tracectl "
			   "add-context --help')\n");
		return TC_EXIT_USAGE;
	}
	session = tc_client_session(session_name, &error);
	if (session)
		reply = tc_client_call(session, "AddContext",
				       g_variant_new("(ss^as)", kernel ? "kernel" : "ust",
						     channel ? channel : "", types),
				       &error);
	if (reply == NULL)
		return tc_client_fail(error);
	if (tc_client_output_is_json()) {
		g_autoptr(JsonNode) node = contexts_json(session, kernel ? "kernel" : "ust", channel,
							 (const char *const *)types);

		tc_client_output_print_json(node);
		return TC_EXIT_OK;
	}
	for (guint i = 0; types[i]; i++)
		g_print("%s context %s added to %s of session %s%s\n", kernel ? "Kernel" : "UST",
			types[i], channel ? channel : "all channels",
			tc_client_session_get_name(session),
			!kernel && tc_client_context_is_own_only(types[i])
			    ? " (recorded by tracectl's own applications only)"
			    : "");
	return TC_EXIT_OK;
}
