/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-registry"

#include "tc-session.h"

#include "tc-channel.h"
#include "tc-kernel-domain.h"
#include "tc-random-uuid.h"
#include "tc-uid-trace.h"

static void
kernel_probe_free(gpointer data)
{
	TcKernelProbe *probe = data;

	g_free(probe->name);
	g_free(probe->location);
	g_free(probe);
}

TcSession *
tc_session_new(const char *name, uid_t owner, const char *output_directory)
{
	TcSession *session = g_new0(TcSession, 1);

	session->refcount = 1;
	session->name = g_strdup(name);
	session->owner_uid = owner;
	tc_user_limits_charge_init(&session->charge, owner);
	tc_session_set_output_directory(session, output_directory);
	tc_random_uuid(session->uuid);
	session->creation_realtime_us = g_get_real_time();
	tc_trace_clock_init(&session->clock);
	g_mutex_init(&session->op_lock);
	g_mutex_init(&session->lock);
	session->state = TC_SESSION_INACTIVE;
	session->channels = g_ptr_array_new();
	session->metadata_pending = g_string_new(NULL);
	session->metadata_body = g_string_new(NULL);
	session->kernel.events = g_ptr_array_new_with_free_func(g_free);
	session->kernel.filters = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	session->kernel.probes = g_ptr_array_new_with_free_func(kernel_probe_free);
	tc_tracker_init(&session->ust_tracker);
	tc_tracker_init(&session->kernel.tracker);
	session->units = g_ptr_array_new_with_free_func((GDestroyNotify)tc_unit_tracked_free);
	session->layouts_pending =
	    g_array_new(FALSE, TRUE, sizeof(struct tc_consumer_event_layout));
	session->layouts_body = g_array_new(FALSE, TRUE, sizeof(struct tc_consumer_event_layout));
	session->traces = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	cds_lfht_node_init(&session->id_node);
	cds_lfht_node_init(&session->name_node);
	return session;
}

void
tc_session_set_output_directory(TcSession *session, const char *output_directory)
{
	g_free(session->output_directory);
	g_free(session->trace_dir);
	session->output_directory = g_strdup(output_directory);
	session->trace_dir = tc_uid_trace_dir(output_directory, session->owner_uid);
}

TcSession *
tc_session_ref(TcSession *session)
{
	g_atomic_int_inc(&session->refcount);
	return session;
}

void
tc_session_unref(TcSession *session)
{
	if (session == NULL || !g_atomic_int_dec_and_test(&session->refcount))
		return;
	tc_user_limits_release(&session->charge); /* if it was never published */
	for (guint i = 0; i < session->channels->len; i++)
		tc_channel_free(g_ptr_array_index(session->channels, i));
	g_ptr_array_unref(session->channels);
	g_string_free(session->metadata_pending, TRUE);
	g_string_free(session->metadata_body, TRUE);
	g_ptr_array_unref(session->kernel.events);
	g_hash_table_unref(session->kernel.filters);
	g_ptr_array_unref(session->kernel.probes);
	tc_tracker_clear(&session->ust_tracker);
	tc_tracker_clear(&session->kernel.tracker);
	g_ptr_array_unref(session->units);
	g_clear_pointer(&session->snapshot_outputs, g_ptr_array_unref);
	g_array_unref(session->layouts_pending);
	g_array_unref(session->layouts_body);
	g_hash_table_unref(session->traces);
	g_free(session->problem);
	g_free(session->rotation.last_archive);
	g_mutex_clear(&session->op_lock);
	g_mutex_clear(&session->lock);
	g_free(session->name);
	g_free(session->output_directory);
	g_free(session->trace_dir);
	g_free(session->relay);
	g_free(session->object_path);
	g_free(session);
}

GHashTable *
tc_session_group_by_owner(GPtrArray *sessions)
{
	GHashTable *by_owner =
	    g_hash_table_new_full(NULL, NULL, NULL, (GDestroyNotify)g_ptr_array_unref);

	for (guint i = 0; i < sessions->len; i++) {
		TcSession *session = g_ptr_array_index(sessions, i);
		gpointer key = GUINT_TO_POINTER(session->owner_uid);
		GPtrArray *owned = g_hash_table_lookup(by_owner, key);

		if (owned == NULL) {
			owned = g_ptr_array_new_with_free_func((GDestroyNotify)tc_session_unref);
			g_hash_table_insert(by_owner, key, owned);
		}
		g_ptr_array_add(owned, tc_session_ref(session));
	}
	return by_owner;
}

TcChannel *
tc_session_find_channel_locked(TcSession *session, const char *name)
{
	for (guint i = 0; i < session->channels->len; i++) {
		TcChannel *channel = g_ptr_array_index(session->channels, i);

		if (g_str_equal(channel->name, name))
			return channel;
	}
	return NULL;
}

TcChannel *
tc_session_add_channel_locked(TcSession *session, const char *name, const TcChannelConfig *config)
{
	TcChannel *channel = tc_channel_new(session, name, session->channels->len, config);

	g_ptr_array_add(session->channels, channel);
	if (session->ust_buffers == TC_BUFFERS_UNSET)
		session->ust_buffers = TC_BUFFERS_PER_UID;
	return channel;
}
