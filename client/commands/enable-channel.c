/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracectl enable-channel -u NAME [--subbuf-size SIZE] [--num-subbuf N]
 *     [--overwrite | --discard] [--switch-timer US] [--read-timer US]
 *     [--monitor-timer US] [-s SESSION]
 */
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

#define TIMER_MIN_US 1000u
#define TIMER_MAX_US 3600000000u

/* A timer option in microseconds: 0 (off) or TIMER_MIN_US..TIMER_MAX_US. */
static gboolean
add_timer(GVariantBuilder *options, const char *key, const char *text)
{
	guint64 us;

	if (text == NULL)
		return TRUE;
	if (!g_ascii_string_to_unsigned(text, 10, 0, G_MAXUINT64, &us, NULL) ||
	    (us != 0 && (us < TIMER_MIN_US || us > TIMER_MAX_US))) {
		g_printerr("Error: --%s is in microseconds, 0 (off) or %u to %u, not '%s'\n", key,
			   TIMER_MIN_US, TIMER_MAX_US, text);
		return FALSE;
	}
	g_variant_builder_add(options, "{sv}", key, g_variant_new_uint32((guint32)us));
	return TRUE;
}

typedef struct {
	gboolean overwrite, discard;
	gboolean buffers_uid, buffers_pid;
	char *switch_timer, *read_timer, *monitor_timer;
} ModeOptions;

/* --buffers-uid or --buffers-pid: user space only; neither leaves the
 * session's (its first channel's, per-UID by default). */
static gboolean
add_buffers(GVariantBuilder *options, const ModeOptions *mode, gboolean kernel)
{
	if (!mode->buffers_uid && !mode->buffers_pid)
		return TRUE;
	if (mode->buffers_uid && mode->buffers_pid) {
		g_printerr("Error: give --buffers-uid or --buffers-pid, not both\n");
		return FALSE;
	}
	if (kernel) {
		g_printerr("Error: --buffers-uid and --buffers-pid are for -u channels\n");
		return FALSE;
	}
	g_variant_builder_add(options, "{sv}", "buffers",
			      g_variant_new_string(mode->buffers_pid ? "pid" : "uid"));
	return TRUE;
}

static gboolean
add_mode(GVariantBuilder *options, const ModeOptions *mode)
{
	if (mode->overwrite && mode->discard) {
		g_printerr("Error: give --overwrite or --discard, not both\n");
		return FALSE;
	}
	if (mode->overwrite || mode->discard)
		g_variant_builder_add(options, "{sv}", "overwrite",
				      g_variant_new_boolean(mode->overwrite));
	return add_timer(options, "switch-timer", mode->switch_timer) &&
	       add_timer(options, "read-timer", mode->read_timer) &&
	       add_timer(options, "monitor-timer", mode->monitor_timer);
}

static void
mode_options_clear(ModeOptions *mode)
{
	g_free(mode->switch_timer);
	g_free(mode->read_timer);
	g_free(mode->monitor_timer);
}

/* {"session", "domain", "channel"} of the channel created. */
static JsonNode *
channel_json(TcClientSession *session, const char *domain, const char *channel)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();

	json_builder_begin_object(builder);
	tc_client_output_member_string(builder, "session", tc_client_session_get_name(session));
	tc_client_output_member_string(builder, "domain", domain);
	tc_client_output_member_string(builder, "channel", channel);
	json_builder_end_object(builder);
	return json_builder_get_root(builder);
}

int
tc_cmd_enable_channel(int argc, char **argv)
{
	gboolean userspace = FALSE, kernel = FALSE;
	g_autofree char *session_name = NULL, *size_text = NULL;
	gint num_subbuf = -1;
	ModeOptions mode = {0};
	const GOptionEntry entries[] = {
		{"userspace", 'u', 0, G_OPTION_ARG_NONE, &userspace, "User-space domain", NULL},
		{"kernel", 'k', 0, G_OPTION_ARG_NONE, &kernel, "Kernel domain", NULL},
		{"session", 's', 0, G_OPTION_ARG_STRING, &session_name,
		 "The session (default: the current one)", "SESSION"},
		{"subbuf-size", 0, 0, G_OPTION_ARG_STRING, &size_text,
		 "Sub-buffer size, a power of two from 4k to 64M (default 512k)", "SIZE"},
		{"num-subbuf", 0, 0, G_OPTION_ARG_INT, &num_subbuf,
		 "Number of sub-buffers, a power of two from 2 to 1024 (default 4)", "N"},
		{"overwrite", 0, 0, G_OPTION_ARG_NONE, &mode.overwrite,
		 "Flight recorder: when full, the newest events replace the oldest", NULL},
		{"discard", 0, 0, G_OPTION_ARG_NONE, &mode.discard,
		 "When full, discard new events and count them (default)", NULL},
		{"switch-timer", 0, 0, G_OPTION_ARG_STRING, &mode.switch_timer,
		 "Close partly filled sub-buffers every US microseconds (default 0: off)", "US"},
		{"read-timer", 0, 0, G_OPTION_ARG_STRING, &mode.read_timer,
		 "Collect full sub-buffers every US microseconds (default 100000)", "US"},
		{"monitor-timer", 0, 0, G_OPTION_ARG_STRING, &mode.monitor_timer,
		 "Sample buffer usage every US microseconds (default 1000000, 0: off)", "US"},
		{"buffers-uid", 0, 0, G_OPTION_ARG_NONE, &mode.buffers_uid,
		 "LTTng-UST applications of one user share buffers (default)", NULL},
		{"buffers-pid", 0, 0, G_OPTION_ARG_NONE, &mode.buffers_pid,
		 "Each LTTng-UST application has buffers and a trace of its own", NULL},
		{NULL},
	};
	g_autoptr(GOptionContext) context = g_option_context_new("-u NAME");
	g_autoptr(GError) error = NULL;
	g_autoptr(TcClientSession) session = NULL;
	g_autoptr(GVariant) reply = NULL;
	GVariantBuilder options;
	int status;

	g_option_context_set_summary(context, "Create a channel: per-CPU ring buffers of "
					      "NUM-SUBBUF sub-buffers of SUBBUF-SIZE bytes, in "
					      "discard or overwrite mode.");
	g_option_context_add_main_entries(context, entries, NULL);
	if (!tc_client_parse(context, &argc, &argv, &status)) {
		mode_options_clear(&mode);
		return status;
	}
	if (userspace == kernel || argc != 2) {
		g_printerr("Error: give -u or -k, and one channel NAME (try 'tracectl "
			   "enable-channel --help')\n");
		mode_options_clear(&mode);
		return TC_EXIT_USAGE;
	}
	g_variant_builder_init(&options, G_VARIANT_TYPE_VARDICT);
	if (!add_geometry(&options, size_text, num_subbuf) || !add_mode(&options, &mode) ||
	    !add_buffers(&options, &mode, kernel)) {
		g_variant_builder_clear(&options);
		mode_options_clear(&mode);
		return TC_EXIT_USAGE;
	}
	mode_options_clear(&mode);
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
	if (tc_client_output_is_json()) {
		g_autoptr(JsonNode) node = channel_json(session, kernel ? "kernel" : "ust", argv[1]);

		tc_client_output_print_json(node);
	} else {
		g_print("Channel %s enabled for session %s\n", argv[1],
			tc_client_session_get_name(session));
	}
	return TC_EXIT_OK;
}
