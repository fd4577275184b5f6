/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tracectl enable-channel -u NAME [--subbuf-size SIZE] [--num-subbuf N] [-s SESSION] */
#include "tc-client.h"

#define SUBBUF_SIZE_MIN (4u * 1024)
#define SUBBUF_SIZE_MAX (64u * 1024 * 1024)
#define NUM_SUBBUF_MIN 2u
#define NUM_SUBBUF_MAX 1024u

static gboolean
add_geometry(GVariantBuilder *options, const char *size_text, gint num_subbuf)
{
	guint64 size;

	if (size_text) {
		if (!tc_client_parse_size(size_text, &size) || !tc_client_is_power_of_two(size) ||
		    size < SUBBUF_SIZE_MIN || size > SUBBUF_SIZE_MAX) {
			g_printerr("Error: --subbuf-size must be a power of two from 4k to 64M, "
				   "not '%s'\n",
				   size_text);
			return FALSE;
		}
		g_variant_builder_add(options, "{sv}", "subbuf-size", g_variant_new_uint64(size));
	}
	if (num_subbuf >= 0) {
		if (!tc_client_is_power_of_two(num_subbuf) || (guint)num_subbuf < NUM_SUBBUF_MIN ||
		    (guint)num_subbuf > NUM_SUBBUF_MAX) {
			g_printerr("Error: --num-subbuf must be a power of two from 2 to 1024, "
				   "not %d\n",
				   num_subbuf);
			return FALSE;
		}
		g_variant_builder_add(options, "{sv}", "num-subbuf",
				      g_variant_new_uint32(num_subbuf));
	}
	return TRUE;
}

int
tc_cmd_enable_channel(int argc, char **argv)
{
	gboolean userspace = FALSE, kernel = FALSE;
	g_autofree char *session_name = NULL, *size_text = NULL;
	gint num_subbuf = -1;
	const GOptionEntry entries[] = {
		{"userspace", 'u', 0, G_OPTION_ARG_NONE, &userspace, "User-space domain", NULL},
		{"kernel", 'k', 0, G_OPTION_ARG_NONE, &kernel, "Kernel domain", NULL},
		{"session", 's', 0, G_OPTION_ARG_STRING, &session_name,
		 "The session (default: the current one)", "SESSION"},
		{"subbuf-size", 0, 0, G_OPTION_ARG_STRING, &size_text,
		 "Sub-buffer size, a power of two from 4k to 64M (default 64k)", "SIZE"},
		{"num-subbuf", 0, 0, G_OPTION_ARG_INT, &num_subbuf,
		 "Number of sub-buffers, a power of two from 2 to 1024 (default 4)", "N"},
		{NULL},
	};
	g_autoptr(GOptionContext) context = g_option_context_new("-u NAME");
	g_autoptr(GError) error = NULL;
	g_autoptr(TcDbusSession) session = NULL;
	g_autoptr(GVariant) reply = NULL;
	GVariantBuilder options;
	int status;

	g_option_context_set_summary(context, "Create a channel: per-CPU ring buffers of "
					      "NUM-SUBBUF sub-buffers of SUBBUF-SIZE bytes.");
	g_option_context_add_main_entries(context, entries, NULL);
	if (!tc_client_parse(context, &argc, &argv, &status))
		return status;
	if (userspace == kernel || argc != 2) {
		g_printerr("Error: give -u or -k, and one channel NAME (try 'tracectl "
			   "enable-channel --help')\n");
		return TC_EXIT_USAGE;
	}
	g_variant_builder_init(&options, G_VARIANT_TYPE_VARDICT);
	if (!add_geometry(&options, size_text, num_subbuf)) {
		g_variant_builder_clear(&options);
		return TC_EXIT_USAGE;
	}
	session = tc_client_session(session_name, &error);
	if (session)
		reply = tc_client_call(session, "EnableChannel",
				       g_variant_new("(ssa{sv})", kernel ? "kernel" : "ust", argv[1],
						     &options),
				       &error);
	else
		g_variant_builder_clear(&options);
	if (reply == NULL)
		return tc_client_fail(error);
	g_print("Channel %s enabled for session %s\n", argv[1],
		tc_dbus_session_get_name(session));
	return TC_EXIT_OK;
}
