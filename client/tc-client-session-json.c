/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A session as JSON ('list NAME', 'status'), from its D-Bus properties and
 * a ChannelStatistics reply: the data the text of tc_client_print_session()
 * comes from. docs/json.md documents the shape. */
#include "tc-client.h"

/* "switch-timer" -> "switch_timer": D-Bus option names use dashes, JSON
 * keys are snake_case. */
static char *
snake_case_key(const char *key)
{
	char *snake = g_strdup(key);

	g_strdelimit(snake, "-", '_');
	return snake;
}

/* Every entry of a settings dictionary: the ones a newer service adds
 * appear without a change here. */
static void
add_settings(JsonBuilder *builder, GVariant *settings)
{
	GVariantIter iter;
	const char *key;
	GVariant *value;

	json_builder_begin_object(builder);
	g_variant_iter_init(&iter, settings);
	while (g_variant_iter_next(&iter, "{&sv}", &key, &value)) {
		g_autofree char *name = snake_case_key(key);

		json_builder_set_member_name(builder, name);
		json_builder_add_value(builder, json_gvariant_serialize(value));
		g_variant_unref(value);
	}
	json_builder_end_object(builder);
}

/* The channel's entry of a ChannelStatistics reply, or null. */
static void
add_statistics(JsonBuilder *builder, GVariant *statistics, const char *domain,
	       const char *channel)
{
	const char *stat_domain, *name;
	guint64 size, used, peak, discarded, packets;
	GVariantIter iter;

	json_builder_set_member_name(builder, "statistics");
	if (statistics == NULL) {
		json_builder_add_null_value(builder);
		return;
	}
	g_variant_iter_init(&iter, statistics);
	while (g_variant_iter_next(&iter, "(&s&sttttt)", &stat_domain, &name, &size, &used, &peak,
				   &discarded, &packets)) {
		if (!g_str_equal(name, channel) || !g_str_equal(stat_domain, domain))
			continue;
		json_builder_begin_object(builder);
		tc_client_output_member_uint(builder, "buffer_bytes", size);
		tc_client_output_member_uint(builder, "used_bytes", used);
		tc_client_output_member_uint(builder, "peak_used_bytes", peak);
		tc_client_output_member_uint(builder, "discarded_events", discarded);
		tc_client_output_member_uint(builder, "packets_written", packets);
		json_builder_end_object(builder);
		return;
	}
	json_builder_add_null_value(builder);
}

static void
add_channel(JsonBuilder *builder, GVariant *channel, GVariant *statistics)
{
	g_autoptr(GVariant) patterns = NULL;
	g_autoptr(GVariant) settings = NULL;
	const char *name, *domain, *pattern;
	GVariantIter iter;
	guint64 subbuf_size;
	guint32 num_subbuf;

	g_variant_get(channel, "(&s&stu@as@a{sv})", &name, &domain, &subbuf_size, &num_subbuf,
		      &patterns, &settings);
	json_builder_begin_object(builder);
	tc_client_output_member_string(builder, "name", name);
	tc_client_output_member_string(builder, "domain", domain);
	tc_client_output_member_uint(builder, "subbuf_size", subbuf_size);
	tc_client_output_member_uint(builder, "num_subbuf", num_subbuf);
	json_builder_set_member_name(builder, "events");
	json_builder_begin_array(builder);
	g_variant_iter_init(&iter, patterns);
	while (g_variant_iter_next(&iter, "&s", &pattern))
		json_builder_add_string_value(builder, pattern);
	json_builder_end_array(builder);
	tc_client_enablings_json(builder, domain, patterns, settings);
	json_builder_set_member_name(builder, "settings");
	add_settings(builder, settings);
	add_statistics(builder, statistics, domain, name);
	json_builder_end_object(builder);
}

JsonNode *
tc_client_session_json(TcClientSession *session, GVariant *statistics)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();
	GVariant *channels = tc_client_session_get_channels(session);
	const char *problem = tc_client_session_get_problem(session);

	json_builder_begin_object(builder);
	tc_client_output_member_string(builder, "name", tc_client_session_get_name(session));
	tc_client_output_member_string(builder, "path",
				       tc_client_object_path(session));
	tc_client_output_member_uint(builder, "owner_uid", tc_client_session_get_owner_uid(session));
	tc_client_output_member_string(builder, "state", tc_client_session_get_state(session));
	tc_client_output_member_bool(builder, "snapshot", tc_client_session_get_snapshot(session));
	tc_client_output_member_string(builder, "output_directory",
				       tc_client_session_get_output_directory(session));
	tc_client_output_member_string(builder, "problem", problem && *problem ? problem : NULL);
	json_builder_set_member_name(builder, "channels");
	json_builder_begin_array(builder);
	for (gsize i = 0; channels && i < g_variant_n_children(channels); i++) {
		g_autoptr(GVariant) channel = g_variant_get_child_value(channels, i);

		add_channel(builder, channel, statistics);
	}
	json_builder_end_array(builder);
	tc_client_agent_rules_json(builder, channels);
	json_builder_end_object(builder);
	return json_builder_get_root(builder);
}
