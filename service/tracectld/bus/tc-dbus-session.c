/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * org.tracectl.Tracing1.Session objects.
 *
 * Properties are not stored in the generated skeleton: GDBus would answer
 * Get/GetAll to anyone and broadcast PropertiesChanged to the whole bus,
 * showing one user's sessions to the others. Reads go through
 * session_get_property(), which checks the caller's uid first, and no
 * change signal is emitted; clients read the properties when they need
 * them. The session objects are deliberately not published through an
 * ObjectManager, whose GetManagedObjects would list every user's sessions.
 */
#define G_LOG_DOMAIN "tracectld-dbus"

#include "tc-dbus-session.h"

#include "tc-channel-config.h"
#include "tc-channel.h"
#include "tc-dbus-generated.h"
#include "tc-dbus-request.h"
#include "tc-dbus-track.h"
#include "tc-dbus-rotation.h"
#include "tc-dbus-session-commands.h"
#include "tc-kernel-domain.h"
#include "tc-relay-url.h"
#include "tc-error.h"
#include "tc-event-rule.h"
#include "tc-kernel-event-rule.h"
#include "tc-kernel.h"
#include "tc-session-kernel.h"
#include "tc-session-kernel-own.h"
#include "tc-session-ops.h"
#include "tc-session-track.h"
#include "tc-session-rotation.h"
#include "tc-session.h"
#include "tc-signals.h"
#include "tc-validate.h"
#include "tc-consumer-abi.h"
#include "tc-rb.h"
#include "tracectl-abi.h"

#define TC_TYPE_SESSION_OBJECT (tc_session_object_get_type())
G_DECLARE_FINAL_TYPE(TcSessionObject, tc_session_object, TC, SESSION_OBJECT,
		     TcDbusSessionSkeleton)

struct _TcSessionObject {
	TcDbusSessionSkeleton parent;
	TcSession *session;
};

G_DEFINE_TYPE(TcSessionObject, tc_session_object, TC_DBUS_TYPE_SESSION_SKELETON)

static GVariant *
context_names_variant(guint32 contexts)
{
	GVariantBuilder names;

	g_variant_builder_init(&names, G_VARIANT_TYPE_STRING_ARRAY);
	for (const TcContextName *context = tc_channel_config_ust_contexts; context->name;
	     context++)
		if (contexts & context->bit)
			g_variant_builder_add(&names, "s", context->name);
	return g_variant_builder_end(&names);
}

/* [S] The channel's enablings as EnableEventWithOptions took them, one
 * options dictionary each with its "pattern", so that a client can save
 * and recreate the selection (tracectl save). */
static GVariant *
event_rules_variant(const TcChannel *channel)
{
	GVariantBuilder rules;

	g_variant_builder_init(&rules, G_VARIANT_TYPE("aa{sv}"));
	for (guint i = 0; i < channel->rules->len; i++) {
		const TcEventRule *rule = g_ptr_array_index(channel->rules, i);
		GVariantBuilder options;

		g_variant_builder_init(&options, G_VARIANT_TYPE_VARDICT);
		g_variant_builder_add(&options, "{sv}", "pattern",
				      g_variant_new_string(rule->pattern));
		if (rule->loglevel >= 0) {
			g_variant_builder_add(&options, "{sv}", "loglevel",
					      g_variant_new_int32(rule->loglevel));
			g_variant_builder_add(&options, "{sv}", "loglevel-only",
					      g_variant_new_boolean(rule->loglevel_only));
		}
		if (rule->exclusions[0])
			g_variant_builder_add(&options, "{sv}", "exclude",
					      g_variant_new_strv((const char *const *)rule->exclusions,
								 -1));
		if (rule->filter_text)
			g_variant_builder_add(&options, "{sv}", "filter",
					      g_variant_new_string(rule->filter_text));
		g_variant_builder_add(&rules, "@a{sv}", g_variant_builder_end(&options));
	}
	return g_variant_builder_end(&rules);
}

static GVariant *
channel_settings_variant(const TcChannel *channel)
{
	GVariantBuilder settings;

	g_variant_builder_init(&settings, G_VARIANT_TYPE_VARDICT);
	g_variant_builder_add(&settings, "{sv}", "overwrite",
			      g_variant_new_boolean(channel->config.overwrite));
	g_variant_builder_add(&settings, "{sv}", "switch-timer",
			      g_variant_new_uint32(channel->config.switch_timer_us));
	g_variant_builder_add(&settings, "{sv}", "read-timer",
			      g_variant_new_uint32(channel->config.read_timer_us));
	g_variant_builder_add(&settings, "{sv}", "monitor-timer",
			      g_variant_new_uint32(channel->config.monitor_timer_us));
	g_variant_builder_add(&settings, "{sv}", "contexts",
			      context_names_variant(channel->contexts));
	g_variant_builder_add(&settings, "{sv}", "enabled",
			      g_variant_new_boolean(!channel->is_disabled));
	g_variant_builder_add(&settings, "{sv}", "event-rules", event_rules_variant(channel));
	return g_variant_builder_end(&settings);
}

/* [S] pattern -> the tracefs filter it was enabled with. */
static GVariant *
kernel_filters_variant_locked(TcSession *session)
{
	GVariantBuilder filters;
	GHashTableIter iter;
	gpointer pattern, filter;

	g_variant_builder_init(&filters, G_VARIANT_TYPE("a{ss}"));
	g_hash_table_iter_init(&iter, session->kernel.filters);
	while (g_hash_table_iter_next(&iter, &pattern, &filter))
		g_variant_builder_add(&filters, "{ss}", (const char *)pattern,
				      (const char *)filter);
	return g_variant_builder_end(&filters);
}

/* [S] The kernel channel: its events (system calls among them, as
 * "syscalls:sys_enter_NAME" and "syscalls:sys_exit_NAME"), then its probes
 * as they are recorded ("tracectl_<session id>:<name>"). */
static GVariant *
kernel_channel_variant_locked(TcSession *session)
{
	static const char *const probe_kinds[] = {"", "kprobe", "kretprobe", "uprobe"};
	GVariantBuilder patterns, settings, contexts, probes;
	guint64 subbuf_size = session->kernel.subbuf_size;

	g_variant_builder_init(&patterns, G_VARIANT_TYPE_STRING_ARRAY);
	g_variant_builder_init(&probes, G_VARIANT_TYPE_STRING_ARRAY);
	for (guint i = 0; i < session->kernel.events->len; i++)
		g_variant_builder_add(&patterns, "s",
				      (char *)g_ptr_array_index(session->kernel.events, i));
	for (guint i = 0; i < session->kernel.probes->len; i++) {
		const TcKernelProbe *probe = g_ptr_array_index(session->kernel.probes, i);
		g_autofree char *event = g_strdup_printf("tracectl_%" G_GUINT64_FORMAT ":%s",
							 session->id, probe->name);
		g_autofree char *text = g_strdup_printf(
			"%s %s %s", probe->kind < G_N_ELEMENTS(probe_kinds) ? probe_kinds[probe->kind] : "",
			probe->name, probe->location);

		g_variant_builder_add(&patterns, "s", event);
		g_variant_builder_add(&probes, "s", text);
	}
	g_variant_builder_init(&contexts, G_VARIANT_TYPE_STRING_ARRAY);
	for (const TcContextName *context = tc_channel_config_kernel_contexts; context->name;
	     context++)
		if (session->kernel.contexts & context->bit)
			g_variant_builder_add(&contexts, "s", context->name);
	g_variant_builder_init(&settings, G_VARIANT_TYPE_VARDICT);
	g_variant_builder_add(&settings, "{sv}", "overwrite", g_variant_new_boolean(FALSE));
	g_variant_builder_add(&settings, "{sv}", "buffer-kb-per-cpu",
			      g_variant_new_uint32(session->kernel.buffer_kb));
	g_variant_builder_add(&settings, "{sv}", "contexts", g_variant_builder_end(&contexts));
	g_variant_builder_add(&settings, "{sv}", "probes", g_variant_builder_end(&probes));
	g_variant_builder_add(&settings, "{sv}", "filters", kernel_filters_variant_locked(session));
	return g_variant_new("(sstuasa{sv})", TC_DEFAULT_CHANNEL, "kernel", subbuf_size,
			     session->kernel.num_subbuf, &patterns, &settings);
}

static GVariant *
channels_variant_locked(TcSession *session)
{
	GVariantBuilder builder;

	g_variant_builder_init(&builder, G_VARIANT_TYPE("a(sstuasa{sv})"));
	for (guint i = 0; i < session->channels->len; i++) {
		TcChannel *channel = g_ptr_array_index(session->channels, i);
		GVariantBuilder patterns;

		g_variant_builder_init(&patterns, G_VARIANT_TYPE_STRING_ARRAY);
		for (guint j = 0; j < channel->patterns->len; j++)
			g_variant_builder_add(&patterns, "s",
					      (char *)g_ptr_array_index(channel->patterns, j));
		g_variant_builder_add(&builder, "(sstuas@a{sv})", channel->name, "ust",
				      (guint64)channel->config.subbuf_size,
				      channel->config.num_subbuf, &patterns,
				      channel_settings_variant(channel));
	}
	if (tc_session_has_kernel(session))
		g_variant_builder_add_value(&builder, kernel_channel_variant_locked(session));
	return g_variant_builder_end(&builder);
}

static GVariant *
output_url_variant(TcSession *session)
{
	g_autofree char *url = session->relay
				       ? tc_relay_output_to_url(session->relay)
				       : g_strconcat("file://", session->output_directory, NULL);

	return g_variant_new_string(url);
}

static GVariant *
property_value_locked(TcSession *session, const char *name)
{
	if (g_str_equal(name, "Name"))
		return g_variant_new_string(session->name);
	if (g_str_equal(name, "OwnerUid"))
		return g_variant_new_uint32(session->owner_uid);
	if (g_str_equal(name, "OutputDirectory"))
		return g_variant_new_string(session->output_directory);
	if (g_str_equal(name, "State"))
		return g_variant_new_string(session->state == TC_SESSION_ACTIVE ? "active"
										: "inactive");
	if (g_str_equal(name, "Problem"))
		return g_variant_new_string(session->problem ? session->problem : "");
	if (g_str_equal(name, "Channels"))
		return channels_variant_locked(session);
	if (g_str_equal(name, "Snapshot"))
		return g_variant_new_boolean(session->snapshot);
	if (g_str_equal(name, "Tracking"))
		return tc_session_tracking_variant_locked(session);
	if (g_str_equal(name, "TrackedUnits"))
		return tc_session_units_variant_locked(session);
	if (g_str_equal(name, "OutputUrl"))
		return output_url_variant(session);
	if (g_str_equal(name, "LiveTimer"))
		return g_variant_new_uint32(session->relay ? session->relay->live_timer_us : 0);
	if (g_str_equal(name, "TraceHostname"))
		return g_variant_new_string(session->relay ? session->relay->hostname : "");
	return tc_session_rotation_property_locked(session, name);
}

static GVariant *
session_get_property(GDBusConnection *connection, const char *sender, const char *object_path,
		     const char *interface_name, const char *property_name, GError **error,
		     gpointer user_data)
{
	TcSessionObject *self = TC_SESSION_OBJECT(user_data);
	GVariant *value;
	uid_t uid;

	if (!tc_authority_peer_uid_sync(connection, sender, &uid) ||
	    (uid != 0 && uid != self->session->owner_uid)) {
		g_set_error(error, TC_ERROR, TC_ERROR_PERMISSION_DENIED,
			    "This session belongs to another user");
		return NULL;
	}
	g_mutex_lock(&self->session->lock);
	value = property_value_locked(self->session, property_name);
	g_mutex_unlock(&self->session->lock);
	if (value == NULL)
		g_set_error(error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_PROPERTY,
			    "No property %s", property_name);
	return value;
}

static GDBusInterfaceVTable *
session_object_get_vtable(GDBusInterfaceSkeleton *skeleton)
{
	static GDBusInterfaceVTable vtable;
	GDBusInterfaceVTable *parent = G_DBUS_INTERFACE_SKELETON_CLASS(
		tc_session_object_parent_class)->get_vtable(skeleton);

	vtable = *parent;
	vtable.get_property = session_get_property;
	vtable.set_property = NULL;
	return &vtable;
}

/* Methods. */

static void
submit(TcSessionObject *self, TcRequest *request)
{
	tc_request_submit(request, TC_ACTION_MANAGE_SESSIONS, self->session->owner_uid,
			  TC_AUTHORITY_FLAGS_NONE);
}

static gboolean
start_work(TcRequest *request, GError **error)
{
	return tc_session_op_start(request->session, error);
}

static gboolean
handle_start(TcDbusSession *object, GDBusMethodInvocation *invocation)
{
	TcSessionObject *self = TC_SESSION_OBJECT(object);
	TcRequest *request = tc_request_new(invocation, self->session);

	request->work = start_work;
	submit(self, request);
	return TRUE;
}

static gboolean
stop_work(TcRequest *request, GError **error)
{
	return tc_session_op_stop(request->session, error);
}

static gboolean
handle_stop(TcDbusSession *object, GDBusMethodInvocation *invocation)
{
	TcSessionObject *self = TC_SESSION_OBJECT(object);
	TcRequest *request = tc_request_new(invocation, self->session);

	request->work = stop_work;
	submit(self, request);
	return TRUE;
}

static gboolean
check_domain(const char *domain, GError **error)
{
	if (g_str_equal(domain, "ust") || g_str_equal(domain, "kernel"))
		return TRUE;
	g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
		    "Unknown domain '%s', use \"ust\" or \"kernel\"", domain);
	return FALSE;
}

/* One option of EnableChannel into config; FALSE for an unknown one. */
static gboolean
parse_channel_option(const char *key, GVariant *value, guint64 *size, TcChannelConfig *config)
{
	if (g_str_equal(key, "subbuf-size") && g_variant_is_of_type(value, G_VARIANT_TYPE_UINT64))
		*size = g_variant_get_uint64(value);
	else if (g_str_equal(key, "num-subbuf") &&
		 g_variant_is_of_type(value, G_VARIANT_TYPE_UINT32))
		config->num_subbuf = g_variant_get_uint32(value);
	else if (g_str_equal(key, "overwrite") &&
		 g_variant_is_of_type(value, G_VARIANT_TYPE_BOOLEAN))
		config->overwrite = g_variant_get_boolean(value);
	else if (g_str_equal(key, "switch-timer") &&
		 g_variant_is_of_type(value, G_VARIANT_TYPE_UINT32))
		config->switch_timer_us = g_variant_get_uint32(value);
	else if (g_str_equal(key, "read-timer") &&
		 g_variant_is_of_type(value, G_VARIANT_TYPE_UINT32))
		config->read_timer_us = g_variant_get_uint32(value);
	else if (g_str_equal(key, "monitor-timer") &&
		 g_variant_is_of_type(value, G_VARIANT_TYPE_UINT32))
		config->monitor_timer_us = g_variant_get_uint32(value);
	else
		return FALSE;
	return TRUE;
}

static gboolean
parse_channel_options(GVariant *options, gboolean snapshot, TcChannelConfig *config,
		      GError **error)
{
	guint64 size = TC_DEFAULT_SUBBUF_SIZE;
	GVariantIter iter;
	const char *key;
	GVariant *value;

	tc_channel_config_init_default(config, snapshot);
	g_variant_iter_init(&iter, options);
	while (g_variant_iter_loop(&iter, "{&sv}", &key, &value)) {
		if (!parse_channel_option(key, value, &size, config)) {
			g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				    "Unknown channel option '%s' of type %s", key,
				    g_variant_get_type_string(value));
			g_variant_unref(value);
			return FALSE;
		}
	}
	if (!tc_channel_config_check(size, config, error))
		return FALSE;
	config->subbuf_size = size;
	return TRUE;
}

/* Work that changes the Channels property, for PropertiesChanged. */
static gboolean
channels_changed(TcRequest *request, gboolean ok)
{
	if (ok)
		tc_signals_channels_changed(request->session);
	return ok;
}

static gboolean
enable_channel_work(TcRequest *request, GError **error)
{
	return channels_changed(request,
				tc_session_op_enable_channel(request->session, request->channel,
							     &request->config, error));
}

static gboolean
kernel_channel_work(TcRequest *request, GError **error)
{
	return tc_session_op_kernel_channel(request->session, &request->config, error);
}

static gboolean
handle_enable_channel(TcDbusSession *object, GDBusMethodInvocation *invocation,
		      const char *domain, const char *name, GVariant *options)
{
	TcSessionObject *self = TC_SESSION_OBJECT(object);
	g_autoptr(GError) error = NULL;
	TcChannelConfig config;
	TcRequest *request;

	if (!check_domain(domain, &error) || !tc_validate_name("channel", name, &error) ||
	    !parse_channel_options(options, self->session->snapshot, &config, &error)) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		return TRUE;
	}
	request = tc_request_new(invocation, self->session);
	request->channel = g_strdup(name);
	request->config = config;
	if (g_str_equal(domain, "kernel")) {
		request->work = kernel_channel_work;
		tc_request_submit(request, TC_ACTION_TRACE_KERNEL, self->session->owner_uid,
				  TC_AUTHORITY_FLAGS_NONE);
		return TRUE;
	}
	request->work = enable_channel_work;
	submit(self, request);
	return TRUE;
}

static gboolean
add_context_work(TcRequest *request, GError **error)
{
	return channels_changed(request,
				tc_session_op_add_context(request->session, request->channel,
							  request->contexts, error));
}

static gboolean
kernel_context_work(TcRequest *request, GError **error)
{
	return tc_session_op_kernel_context(request->session, request->contexts, error);
}

/* The kernel domain has one channel: "" or its name. */
static gboolean
check_kernel_channel(const char *channel, GError **error)
{
	if (!*channel || g_str_equal(channel, "channel0"))
		return TRUE;
	g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
		    "The kernel domain has one channel, 'channel0', not '%.64s'", channel);
	return FALSE;
}

static gboolean
handle_add_kernel_context(TcSessionObject *self, GDBusMethodInvocation *invocation,
			  const char *channel, const char *const *contexts)
{
	g_autoptr(GError) error = NULL;
	TcRequest *request;
	guint32 bits;

	if (!check_kernel_channel(channel, &error) ||
	    !tc_channel_config_kernel_context_bits(contexts, &bits, &error)) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		return TRUE;
	}
	request = tc_request_new(invocation, self->session);
	request->contexts = bits;
	request->work = kernel_context_work;
	tc_request_submit(request, TC_ACTION_TRACE_KERNEL, self->session->owner_uid,
			  TC_AUTHORITY_FLAGS_NONE);
	return TRUE;
}

static gboolean
handle_add_context(TcDbusSession *object, GDBusMethodInvocation *invocation, const char *domain,
		   const char *channel, const char *const *contexts)
{
	TcSessionObject *self = TC_SESSION_OBJECT(object);
	g_autoptr(GError) error = NULL;
	TcRequest *request;
	guint32 bits;

	if (check_domain(domain, &error) && g_str_equal(domain, "kernel"))
		return handle_add_kernel_context(self, invocation, channel, contexts);
	if (error || (*channel && !tc_validate_name("channel", channel, &error)) ||
	    !tc_channel_config_ust_context_bits(contexts, &bits, &error)) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		return TRUE;
	}
	request = tc_request_new(invocation, self->session);
	request->channel = g_strdup(channel);
	request->contexts = bits;
	request->work = add_context_work;
	submit(self, request);
	return TRUE;
}

static gboolean
kernel_probe_work(TcRequest *request, GError **error)
{
	return tc_session_op_kernel_probe(request->session, request->probe_kind, request->name,
					  request->location, error);
}

static gboolean
parse_probe(const char *kind, const char *name, const char *location, guint32 *kind_value,
	    GError **error)
{
	static const char *const kinds[] = {"kprobe", "kretprobe", "uprobe"};

	*kind_value = 0;
	for (guint i = 0; i < G_N_ELEMENTS(kinds); i++)
		if (g_str_equal(kind, kinds[i]))
			*kind_value = i + 1; /* TC_KERNEL_PROBE_* */
	if (*kind_value == 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "Unknown probe kind '%.32s': kprobe, kretprobe or uprobe", kind);
		return FALSE;
	}
	return tc_validate_kernel_probe(*kind_value, name, location, error);
}

static gboolean
handle_add_kernel_probe(TcDbusSession *object, GDBusMethodInvocation *invocation,
			const char *kind, const char *name, const char *location)
{
	TcSessionObject *self = TC_SESSION_OBJECT(object);
	g_autoptr(GError) error = NULL;
	TcRequest *request;
	guint32 kind_value;

	if (!parse_probe(kind, name, location, &kind_value, &error)) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		return TRUE;
	}
	request = tc_request_new(invocation, self->session);
	request->probe_kind = kind_value;
	request->name = g_strdup(name);
	request->location = g_strdup(location);
	request->work = kernel_probe_work;
	tc_request_submit(request, TC_ACTION_TRACE_KERNEL, self->session->owner_uid,
			  TC_AUTHORITY_FLAGS_NONE);
	return TRUE;
}

static gboolean
record_snapshot_work(TcRequest *request, GError **error)
{
	g_autofree char *directory = NULL;

	if (!tc_session_op_record_snapshot(request->session, &directory, error))
		return FALSE;
	request->result = g_variant_new("(s)", directory);
	return TRUE;
}

static gboolean
handle_record_snapshot(TcDbusSession *object, GDBusMethodInvocation *invocation)
{
	TcSessionObject *self = TC_SESSION_OBJECT(object);
	TcRequest *request = tc_request_new(invocation, self->session);

	request->work = record_snapshot_work;
	submit(self, request);
	return TRUE;
}

static gboolean
channel_statistics_work(TcRequest *request, GError **error)
{
	g_autoptr(GArray) statistics = tc_session_op_channel_statistics(request->session, error);
	GVariantBuilder builder;

	if (statistics == NULL)
		return FALSE;
	g_variant_builder_init(&builder, G_VARIANT_TYPE("(a(ssttttt))"));
	g_variant_builder_open(&builder, G_VARIANT_TYPE("a(ssttttt)"));
	for (guint i = 0; i < statistics->len; i++) {
		const TcChannelStatistics *channel =
		    &g_array_index(statistics, TcChannelStatistics, i);

		g_variant_builder_add(&builder, "(ssttttt)", channel->domain, channel->channel,
				      channel->stats.buffer_bytes, channel->stats.bytes_used,
				      channel->stats.bytes_used_peak,
				      channel->stats.events_discarded,
				      channel->stats.packets_written);
	}
	g_variant_builder_close(&builder);
	request->result = g_variant_builder_end(&builder);
	return TRUE;
}

static gboolean
handle_channel_statistics(TcDbusSession *object, GDBusMethodInvocation *invocation)
{
	TcSessionObject *self = TC_SESSION_OBJECT(object);
	TcRequest *request = tc_request_new(invocation, self->session);

	request->work = channel_statistics_work;
	submit(self, request);
	return TRUE;
}

static gboolean
enable_event_work(TcRequest *request, GError **error)
{
	return channels_changed(request,
				tc_session_op_enable_event(request->session, request->channel,
							   request->pattern, error));
}

static gboolean
enable_event_rule_work(TcRequest *request, GError **error)
{
	return tc_session_op_enable_event_rule(request->session, request->channel,
					       g_steal_pointer(&request->rule), error);
}

static gboolean
disable_event_work(TcRequest *request, GError **error)
{
	return channels_changed(request,
				tc_session_op_disable_event(request->session, request->channel,
							    request->pattern, error));
}

static gboolean
kernel_enable_work(TcRequest *request, GError **error)
{
	return tc_session_op_kernel_event(request->session, request->pattern, TRUE, error);
}

static gboolean
kernel_disable_work(TcRequest *request, GError **error)
{
	return tc_session_op_kernel_event(request->session, request->pattern, FALSE, error);
}

static gboolean
submit_kernel_event(TcSessionObject *self, GDBusMethodInvocation *invocation,
		    const char *pattern, gboolean enable)
{
	g_autoptr(GError) error = NULL;
	TcRequest *request;

	if (!tc_kernel_validate_event(pattern, &error)) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		return TRUE;
	}
	request = tc_request_new(invocation, self->session);
	request->pattern = g_strdup(pattern);
	request->work = enable ? kernel_enable_work : kernel_disable_work;
	tc_request_submit(request, TC_ACTION_TRACE_KERNEL, self->session->owner_uid,
			  TC_AUTHORITY_FLAGS_NONE);
	return TRUE;
}

static gboolean
kernel_filtered_work(TcRequest *request, GError **error)
{
	return tc_session_op_kernel_filtered_event(request->session, request->pattern,
						   request->kernel_filter, error);
}

/* What the kernel cannot express is refused before anything is asked of
 * polkit or the helper. */
static gboolean
handle_kernel_event_with_options(TcSessionObject *self, GDBusMethodInvocation *invocation,
				 const char *pattern, GVariant *options)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *filter = NULL;
	TcRequest *request;

	if (!tc_kernel_event_rule_check(pattern, options, &filter, &error)) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		return TRUE;
	}
	if (filter == NULL)
		return submit_kernel_event(self, invocation, pattern, TRUE);
	request = tc_request_new(invocation, self->session);
	request->pattern = g_strdup(pattern);
	request->kernel_filter = g_steal_pointer(&filter);
	request->work = kernel_filtered_work;
	tc_request_submit(request, TC_ACTION_TRACE_KERNEL, self->session->owner_uid,
			  TC_AUTHORITY_FLAGS_NONE);
	return TRUE;
}

static gboolean
kernel_own_enable_work(TcRequest *request, GError **error)
{
	return tc_session_op_kernel_own_event(request->session, request->pattern, TRUE, error);
}

static gboolean
kernel_own_disable_work(TcRequest *request, GError **error)
{
	return tc_session_op_kernel_own_event(request->session, request->pattern, FALSE, error);
}

/* Domain "kernel-own": the allow-list is checked before anything else. */
static gboolean
submit_kernel_own_event(TcSessionObject *self, GDBusMethodInvocation *invocation,
			const char *channel, const char *pattern, gboolean enable)
{
	g_autoptr(GError) error = NULL;
	TcRequest *request;
	guint32 events;

	if (!check_kernel_channel(channel, &error) ||
	    !tc_kernel_own_parse(pattern, &events, &error)) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		return TRUE;
	}
	request = tc_request_new(invocation, self->session);
	request->pattern = g_strdup(pattern);
	request->work = enable ? kernel_own_enable_work : kernel_own_disable_work;
	tc_request_submit(request, TC_ACTION_TRACE_KERNEL_OWN, self->session->owner_uid,
			  TC_AUTHORITY_FLAGS_NONE);
	return TRUE;
}

static gboolean
handle_event_change(TcSessionObject *self, GDBusMethodInvocation *invocation,
		    const char *domain, const char *channel, const char *pattern,
		    TcRequestWorkFunc work)
{
	g_autoptr(GError) error = NULL;
	TcRequest *request;

	if (g_str_equal(domain, "kernel-own"))
		return submit_kernel_own_event(self, invocation, channel, pattern,
					       work == enable_event_work);
	if (!check_domain(domain, &error) ||
	    (*channel && !tc_validate_name("channel", channel, &error))) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		return TRUE;
	}
	if (g_str_equal(domain, "kernel"))
		return submit_kernel_event(self, invocation, pattern, work == enable_event_work);
	if (!tc_validate_pattern(pattern, &error)) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		return TRUE;
	}
	request = tc_request_new(invocation, self->session);
	request->channel = g_strdup(channel);
	request->pattern = g_strdup(pattern);
	request->work = work;
	submit(self, request);
	return TRUE;
}

static gboolean
handle_enable_event(TcDbusSession *object, GDBusMethodInvocation *invocation,
		    const char *domain, const char *channel, const char *pattern)
{
	return handle_event_change(TC_SESSION_OBJECT(object), invocation, domain, channel,
				   pattern, enable_event_work);
}

static gboolean
handle_enable_event_with_options(TcDbusSession *object, GDBusMethodInvocation *invocation,
				 const char *domain, const char *channel, const char *pattern,
				 GVariant *options)
{
	TcSessionObject *self = TC_SESSION_OBJECT(object);
	g_autoptr(TcEventRule) rule = NULL;
	g_autoptr(GError) error = NULL;
	TcRequest *request;

	if (!check_domain(domain, &error) ||
	    (*channel && !tc_validate_name("channel", channel, &error))) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		return TRUE;
	}
	if (g_str_equal(domain, "kernel"))
		return handle_kernel_event_with_options(self, invocation, pattern, options);
	if (!tc_validate_pattern(pattern, &error) ||
	    (rule = tc_event_rule_new_from_options(pattern, options, &error)) == NULL) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		return TRUE;
	}
	request = tc_request_new(invocation, self->session);
	request->channel = g_strdup(channel);
	request->rule = g_steal_pointer(&rule);
	request->work = enable_event_rule_work;
	submit(self, request);
	return TRUE;
}

static gboolean
handle_disable_event(TcDbusSession *object, GDBusMethodInvocation *invocation,
		     const char *domain, const char *channel, const char *pattern)
{
	return handle_event_change(TC_SESSION_OBJECT(object), invocation, domain, channel,
				   pattern, disable_event_work);
}

static void
tc_session_object_finalize(GObject *object)
{
	TcSessionObject *self = TC_SESSION_OBJECT(object);

	tc_session_unref(self->session);
	G_OBJECT_CLASS(tc_session_object_parent_class)->finalize(object);
}

static void
tc_session_object_class_init(TcSessionObjectClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	GDBusInterfaceSkeletonClass *skeleton_class = G_DBUS_INTERFACE_SKELETON_CLASS(klass);

	object_class->finalize = tc_session_object_finalize;
	skeleton_class->get_vtable = session_object_get_vtable;
}

static void
tc_session_object_init(TcSessionObject *self)
{
	g_signal_connect(self, "handle-start", G_CALLBACK(handle_start), NULL);
	g_signal_connect(self, "handle-stop", G_CALLBACK(handle_stop), NULL);
	g_signal_connect(self, "handle-enable-channel", G_CALLBACK(handle_enable_channel), NULL);
	g_signal_connect(self, "handle-enable-event", G_CALLBACK(handle_enable_event), NULL);
	g_signal_connect(self, "handle-disable-event", G_CALLBACK(handle_disable_event), NULL);
	g_signal_connect(self, "handle-enable-event-with-options",
			 G_CALLBACK(handle_enable_event_with_options), NULL);
	g_signal_connect(self, "handle-add-context", G_CALLBACK(handle_add_context), NULL);
	g_signal_connect(self, "handle-add-kernel-probe", G_CALLBACK(handle_add_kernel_probe),
			 NULL);
	g_signal_connect(self, "handle-record-snapshot", G_CALLBACK(handle_record_snapshot), NULL);
	g_signal_connect(self, "handle-channel-statistics", G_CALLBACK(handle_channel_statistics),
			 NULL);
}

gpointer
tc_session_object_export(TcSession *session, GDBusConnection *connection, GError **error)
{
	TcSessionObject *self = g_object_new(TC_TYPE_SESSION_OBJECT, NULL);

	self->session = tc_session_ref(session);
	tc_dbus_track_connect(self, session);
	tc_dbus_rotation_connect(self, session);
	tc_session_commands_connect(self, self->session);
	if (!g_dbus_interface_skeleton_export(G_DBUS_INTERFACE_SKELETON(self), connection,
					      session->object_path, error)) {
		g_object_unref(self);
		return NULL;
	}
	session->bus_data = self;
	return self;
}

void
tc_session_object_unexport(TcSession *session)
{
	TcSessionObject *self = session->bus_data;

	if (self == NULL)
		return;
	session->bus_data = NULL;
	g_dbus_interface_skeleton_unexport(G_DBUS_INTERFACE_SKELETON(self));
	g_object_unref(self);
}

GVariant *
tc_session_context_names(const char *domain)
{
	const TcContextName *known = g_str_equal(domain, "kernel")
					 ? tc_channel_config_kernel_contexts
				     : g_str_equal(domain, "ust") ? tc_channel_config_ust_contexts
								  : NULL;
	GVariantBuilder names;

	if (known == NULL)
		return NULL;
	g_variant_builder_init(&names, G_VARIANT_TYPE_STRING_ARRAY);
	for (; known->name; known++)
		g_variant_builder_add(&names, "s", known->name);
	return g_variant_builder_end(&names);
}
