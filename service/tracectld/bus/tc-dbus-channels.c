/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The channel and event methods of org.tracectl.Tracing1.Session
 * (EnableChannel, DisableChannel, AddContext, AddKernelProbe, EnableEvent,
 * EnableEventWithOptions, DisableEvent, ChannelStatistics) and the
 * Channels property they change: parse, submit under manage-sessions (the
 * kernel actions for the kernel domain), and let tc-session-ops.c,
 * tc-session-op-kernel.c and tc-session-op-statistics.c do the work.
 */
#define G_LOG_DOMAIN "tracectld-dbus"

#include "tc-dbus-channels.h"

#include "tc-agent-rule.h"
#include "tc-channel-config.h"
#include "tc-dbus-generated.h"
#include "tc-dbus-request.h"
#include "tc-error.h"
#include "tc-event-rule.h"
#include "tc-dbus-event-rule.h"
#include "tc-perf-counter.h"
#include "tc-kernel.h"
#include "tc-session-kernel-own.h"
#include "tc-session-kernel.h"
#include "tc-session-op-kernel.h"
#include "tc-session-op-statistics.h"
#include "tc-perf-probe.h"
#include "tc-session-ops.h"
#include "tc-dbus-signals.h"
#include "tc-validate.h"
#include "tracectl-abi.h"

/* The channel's contexts by name; with lttng_ust_only, those tracectl's
 * own applications do not record. */
static GVariant *
context_names_variant(const TcChannel *channel, gboolean lttng_ust_only)
{
	g_auto(GStrv) names = tc_channel_config_ust_context_names(
	    channel->contexts, channel->perf_counters, channel->app_contexts, lttng_ust_only);

	return g_variant_new_strv((const char *const *)names, -1);
}

/* An agent's rule as EnableEventWithOptions took it for its domain: the
 * logger as "pattern", the level in the agent's numbering, the caller's
 * filter, and its "domain". */
static GVariant *
agent_rule_variant(const TcAgentRule *agent)
{
	GVariantBuilder options;

	g_variant_builder_init(&options, G_VARIANT_TYPE_VARDICT);
	g_variant_builder_add(&options, "{sv}", "domain", g_variant_new_string(agent->domain_name));
	g_variant_builder_add(&options, "{sv}", "pattern", g_variant_new_string(agent->logger));
	if (agent->loglevel_type != TC_AGENT_LOGLEVEL_ALL) {
		g_variant_builder_add(&options, "{sv}", "loglevel",
				      g_variant_new_int32(agent->loglevel));
		g_variant_builder_add(&options, "{sv}", "loglevel-only",
				      g_variant_new_boolean(agent->loglevel_type ==
							    TC_AGENT_LOGLEVEL_SINGLE));
	}
	if (agent->filter_text)
		g_variant_builder_add(&options, "{sv}", "filter",
				      g_variant_new_string(agent->filter_text));
	return g_variant_builder_end(&options);
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

		if (rule->agent) {
			g_variant_builder_add_value(&rules, agent_rule_variant(rule->agent));
			continue;
		}
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
	g_variant_builder_add(&settings, "{sv}", "contexts", context_names_variant(channel, FALSE));
	g_variant_builder_add(&settings, "{sv}", "lttng-ust-only-contexts",
			      context_names_variant(channel, TRUE));
	g_variant_builder_add(&settings, "{sv}", "enabled",
			      g_variant_new_boolean(!channel->is_disabled));
	g_variant_builder_add(&settings, "{sv}", "event-rules", event_rules_variant(channel));
	g_variant_builder_add(&settings, "{sv}", "buffers",
			      g_variant_new_string(channel->session->ust_buffers == TC_BUFFERS_PER_PID
						       ? "pid"
						       : "uid"));
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

GVariant *
tc_dbus_channels_variant_locked(TcSession *session)
{
	GVariantBuilder builder;

	g_variant_builder_init(&builder, G_VARIANT_TYPE("a(sstuasa{sv})"));
	for (guint i = 0; i < session->channels->len; i++) {
		TcChannel *channel = g_ptr_array_index(session->channels, i);
		GVariantBuilder patterns;

		g_variant_builder_init(&patterns, G_VARIANT_TYPE_STRING_ARRAY);
		/* The agents' rules are listed in "event-rules" only, with
		 * their domain. */
		for (guint j = 0; j < channel->patterns->len; j++)
			if (((TcEventRule *)g_ptr_array_index(channel->rules, j))->agent == NULL)
				g_variant_builder_add(&patterns, "s",
						      (char *)g_ptr_array_index(channel->patterns,
										j));
		g_variant_builder_add(&builder, "(sstuas@a{sv})", channel->name, "ust",
				      (guint64)channel->config.subbuf_size,
				      channel->config.num_subbuf, &patterns,
				      channel_settings_variant(channel));
	}
	if (tc_session_kernel_in_use(session))
		g_variant_builder_add_value(&builder, kernel_channel_variant_locked(session));
	return g_variant_builder_end(&builder);
}

/* Methods. */

static gboolean
check_domain(const char *domain, GError **error)
{
	if (g_str_equal(domain, "ust") || g_str_equal(domain, "kernel"))
		return TRUE;
	g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
		    "Unknown domain '%.32s', use \"ust\", \"kernel\", \"python\", \"jul\" or "
		    "\"log4j\"",
		    domain);
	return FALSE;
}

/* The "buffers" option of EnableChannel: "uid" or "pid", user space
 * only (the kernel's buffers are the machine's). */
static gboolean
parse_buffer_scheme(const char *domain, GVariant *options, TcBufferScheme *buffers,
		    GError **error)
{
	const char *text;

	*buffers = TC_BUFFERS_UNSET;
	if (!g_variant_lookup(options, "buffers", "&s", &text))
		return TRUE;
	if (g_str_equal(domain, "ust") && g_str_equal(text, "uid"))
		*buffers = TC_BUFFERS_PER_UID;
	else if (g_str_equal(domain, "ust") && g_str_equal(text, "pid"))
		*buffers = TC_BUFFERS_PER_PID;
	else {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "Channel option 'buffers' is \"uid\" or \"pid\", in the \"ust\" "
			    "domain only, not '%.16s' in '%s'",
			    text, domain);
		return FALSE;
	}
	return TRUE;
}

/* One option of EnableChannel into config; FALSE for an unknown one. */
static gboolean
parse_channel_option(const char *key, GVariant *value, guint64 *size, TcChannelConfig *config)
{
	if (g_str_equal(key, "buffers") && g_variant_is_of_type(value, G_VARIANT_TYPE_STRING))
		return TRUE; /* parse_buffer_scheme() */
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
		tc_dbus_signals_channels_changed(request->session);
	return ok;
}

static gboolean
enable_channel_work(TcRequest *request, GError **error)
{
	return channels_changed(request,
				tc_session_ops_enable_channel(request->session, request->channel,
							      &request->config, request->buffers,
							      error));
}

static gboolean
kernel_channel_work(TcRequest *request, GError **error)
{
	return tc_session_op_kernel_channel(request->session, &request->config, error);
}

/* A kernel channel's read and monitor timers, refused when given: the
 * consumer reads the kernel's buffers when the kernel wakes it and every
 * 100 ms, and the statistics are the kernel's, read at each call. The
 * rest is tc_channel_config_kernel_check()'s. */
static gboolean
check_kernel_channel_options(const char *domain, const char *name, GVariant *options,
			     const TcChannelConfig *config, GError **error)
{
	static const char *const timers[] = {"read-timer", "monitor-timer"};

	if (!g_str_equal(domain, "kernel"))
		return TRUE;
	for (guint i = 0; i < G_N_ELEMENTS(timers); i++) {
		g_autoptr(GVariant) value = g_variant_lookup_value(options, timers[i], NULL);

		if (value == NULL)
			continue;
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
			    "The kernel channel has no %s: the consumer reads the kernel's "
			    "buffers when the kernel wakes it (a quarter full) and every 100 ms, "
			    "and its statistics are the kernel's, read at each call",
			    timers[i]);
		return FALSE;
	}
	return tc_channel_config_kernel_check(name, config, error);
}

static gboolean
handle_enable_channel(TcDbusSession *object, GDBusMethodInvocation *invocation, const char *domain,
		      const char *name, GVariant *options, TcSession *session)
{
	g_autoptr(GError) error = NULL;
	TcChannelConfig config;
	TcBufferScheme buffers;
	TcRequest *request;

	if (!check_domain(domain, &error) || !tc_validate_name("channel", name, &error) ||
	    !parse_channel_options(options, session->snapshot, &config, &error) ||
	    !parse_buffer_scheme(domain, options, &buffers, &error) ||
	    !check_kernel_channel_options(domain, name, options, &config, &error)) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		return TRUE;
	}
	request = tc_dbus_request_new(invocation, session);
	request->channel = g_strdup(name);
	request->config = config;
	request->buffers = buffers;
	if (g_str_equal(domain, "kernel")) {
		request->work = kernel_channel_work;
		tc_dbus_request_submit(request, TC_ACTION_TRACE_KERNEL, session->owner_uid,
				       TC_AUTHORITY_FLAGS_NONE);
		return TRUE;
	}
	request->work = enable_channel_work;
	tc_dbus_request_submit_manage(request, session);
	return TRUE;
}

/* AddContext's parsed names besides the bits. */
typedef struct {
	GArray *perf_counters;	 /* struct tc_perf_counter */
	GPtrArray *app_contexts; /* char *, "provider:name" */
} AddContextData;

static void
add_context_data_free(AddContextData *data)
{
	g_array_unref(data->perf_counters);
	g_ptr_array_unref(data->app_contexts);
	g_free(data);
}

static gboolean
add_context_work(TcRequest *request, GError **error)
{
	const AddContextData *data = request->data;

	/* Refused now, naming why, rather than recorded as 0 by tracectl's
	 * own applications and refused by each LTTng-UST one. */
	if (!tc_perf_probe_check_all(data->perf_counters, request->session->owner_uid, error))
		return FALSE;
	return channels_changed(request,
				tc_session_ops_add_context(request->session, request->channel,
							   request->contexts, data->perf_counters,
							   data->app_contexts, error));
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
handle_add_kernel_context(TcSession *session, GDBusMethodInvocation *invocation,
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
	request = tc_dbus_request_new(invocation, session);
	request->contexts = bits;
	request->work = kernel_context_work;
	tc_dbus_request_submit(request, TC_ACTION_TRACE_KERNEL, session->owner_uid,
			       TC_AUTHORITY_FLAGS_NONE);
	return TRUE;
}

static gboolean
handle_add_context(TcDbusSession *object, GDBusMethodInvocation *invocation, const char *domain,
		   const char *channel, const char *const *contexts, TcSession *session)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GArray) perf_counters = g_array_new(FALSE, FALSE, sizeof(struct tc_perf_counter));
	g_autoptr(GPtrArray) app_contexts = g_ptr_array_new_with_free_func(g_free);
	AddContextData *data;
	TcRequest *request;
	guint32 bits;

	if (check_domain(domain, &error) && g_str_equal(domain, "kernel"))
		return handle_add_kernel_context(session, invocation, channel, contexts);
	if (error || (*channel && !tc_validate_name("channel", channel, &error)) ||
	    !tc_channel_config_ust_contexts_parse(contexts, &bits, perf_counters, app_contexts,
						  &error)) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		return TRUE;
	}
	request = tc_dbus_request_new(invocation, session);
	request->channel = g_strdup(channel);
	request->contexts = bits;
	data = g_new0(AddContextData, 1);
	data->perf_counters = g_steal_pointer(&perf_counters);
	data->app_contexts = g_steal_pointer(&app_contexts);
	request->data = data;
	request->data_free = (GDestroyNotify)add_context_data_free;
	request->work = add_context_work;
	tc_dbus_request_submit_manage(request, session);
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
handle_add_kernel_probe(TcDbusSession *object, GDBusMethodInvocation *invocation, const char *kind,
			const char *name, const char *location, TcSession *session)
{
	g_autoptr(GError) error = NULL;
	TcRequest *request;
	guint32 kind_value;

	/* LTTng's "elf:" names the function form explicitly: the same probe. */
	if (g_str_equal(kind, "uprobe") && g_str_has_prefix(location, "elf:"))
		location += 4;
	if (!parse_probe(kind, name, location, &kind_value, &error)) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		return TRUE;
	}
	request = tc_dbus_request_new(invocation, session);
	request->probe_kind = kind_value;
	request->name = g_strdup(name);
	request->location = g_strdup(location);
	request->work = kernel_probe_work;
	tc_dbus_request_submit(request, TC_ACTION_TRACE_KERNEL, session->owner_uid,
			       TC_AUTHORITY_FLAGS_NONE);
	return TRUE;
}

GVariant *
tc_dbus_channels_statistics(TcSession *session, GError **error)
{
	g_autoptr(GArray) statistics = tc_session_op_statistics(session, error);
	GVariantBuilder builder;

	if (statistics == NULL)
		return NULL;
	g_variant_builder_init(&builder, G_VARIANT_TYPE("a(ssttttt)"));
	for (guint i = 0; i < statistics->len; i++) {
		const TcChannelStatistics *channel =
		    &g_array_index(statistics, TcChannelStatistics, i);

		g_variant_builder_add(&builder, "(ssttttt)", channel->domain, channel->channel,
				      channel->stats.buffer_bytes, channel->stats.bytes_used,
				      channel->stats.bytes_used_peak,
				      channel->stats.events_discarded,
				      channel->stats.packets_written);
	}
	return g_variant_builder_end(&builder);
}

static gboolean
channel_statistics_work(TcRequest *request, GError **error)
{
	GVariant *statistics = tc_dbus_channels_statistics(request->session, error);

	if (statistics == NULL)
		return FALSE;
	request->result = g_variant_new_tuple(&statistics, 1);
	return TRUE;
}

static gboolean
handle_channel_statistics(TcDbusSession *object, GDBusMethodInvocation *invocation,
			  TcSession *session)
{
	TcRequest *request = tc_dbus_request_new(invocation, session);

	request->work = channel_statistics_work;
	tc_dbus_request_submit_manage(request, session);
	return TRUE;
}

static gboolean
enable_event_work(TcRequest *request, GError **error)
{
	return channels_changed(request,
				tc_session_ops_enable_event(request->session, request->channel,
							    request->pattern, error));
}

static gboolean
enable_event_rule_work(TcRequest *request, GError **error)
{
	return tc_session_ops_enable_event_rule(request->session, request->channel,
						g_steal_pointer(&request->rule), error);
}

static gboolean
agent_enable_work(TcRequest *request, GError **error)
{
	return channels_changed(request, tc_session_ops_enable_event_rule(
					     request->session, request->channel,
					     g_steal_pointer(&request->rule), error));
}

static gboolean
agent_disable_work(TcRequest *request, GError **error)
{
	return channels_changed(request, tc_session_ops_disable_event_rule(
					     request->session, request->channel,
					     g_steal_pointer(&request->rule), error));
}

static gboolean
disable_event_work(TcRequest *request, GError **error)
{
	return channels_changed(request,
				tc_session_ops_disable_event(request->session, request->channel,
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
submit_kernel_event(TcSession *session, GDBusMethodInvocation *invocation, const char *pattern,
		    gboolean enable)
{
	g_autoptr(GError) error = NULL;
	TcRequest *request;

	if (!tc_session_kernel_validate_event(pattern, &error)) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		return TRUE;
	}
	request = tc_dbus_request_new(invocation, session);
	request->pattern = g_strdup(pattern);
	request->work = enable ? kernel_enable_work : kernel_disable_work;
	tc_dbus_request_submit(request, TC_ACTION_TRACE_KERNEL, session->owner_uid,
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
handle_kernel_event_with_options(TcSession *session, GDBusMethodInvocation *invocation,
				 const char *pattern, GVariant *options)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *filter = NULL;
	TcRequest *request;

	if (!tc_dbus_event_rule_check_kernel(pattern, options, &filter, &error)) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		return TRUE;
	}
	if (filter == NULL)
		return submit_kernel_event(session, invocation, pattern, TRUE);
	request = tc_dbus_request_new(invocation, session);
	request->pattern = g_strdup(pattern);
	request->kernel_filter = g_steal_pointer(&filter);
	request->work = kernel_filtered_work;
	tc_dbus_request_submit(request, TC_ACTION_TRACE_KERNEL, session->owner_uid,
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
submit_kernel_own_event(TcSession *session, GDBusMethodInvocation *invocation, const char *channel,
			const char *pattern, gboolean enable)
{
	g_autoptr(GError) error = NULL;
	TcRequest *request;
	TcKernelOwnEvents events;

	if (!check_kernel_channel(channel, &error) ||
	    !tc_session_kernel_own_parse(pattern, &events, &error)) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		return TRUE;
	}
	request = tc_dbus_request_new(invocation, session);
	request->pattern = g_strdup(pattern);
	request->work = enable ? kernel_own_enable_work : kernel_own_disable_work;
	tc_dbus_request_submit(request, TC_ACTION_TRACE_KERNEL_OWN, session->owner_uid,
			       TC_AUTHORITY_FLAGS_NONE);
	return TRUE;
}

/* Domains "python", "jul" and "log4j": the agent's event, selected by
 * logger, in the default channel (options NULL: none). */
static gboolean
submit_agent_event(TcSession *session, GDBusMethodInvocation *invocation, TcAgentDomain domain,
		   const char *channel, const char *logger, GVariant *options, gboolean enable)
{
	g_autoptr(GError) error = NULL;
	TcEventRule *rule;
	TcRequest *request;

	if (*channel && !g_str_equal(channel, TC_DEFAULT_CHANNEL)) {
		g_set_error(&error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "The %s domain records into the default channel '%s', not '%.64s'",
			    tc_agent_domain_name(domain), TC_DEFAULT_CHANNEL, channel);
		return tc_dbus_request_refuse(invocation, error);
	}
	rule = tc_dbus_event_rule_new_agent(domain, logger, options, &error);
	if (rule == NULL)
		return tc_dbus_request_refuse(invocation, error);
	request = tc_dbus_request_new(invocation, session);
	request->channel = g_strdup("");
	request->rule = rule;
	request->work = enable ? agent_enable_work : agent_disable_work;
	tc_dbus_request_submit_manage(request, session);
	return TRUE;
}

static gboolean
handle_event_change(TcSession *session, GDBusMethodInvocation *invocation, const char *domain,
		    const char *channel, const char *pattern, TcRequestWorkFunc work)
{
	g_autoptr(GError) error = NULL;
	TcAgentDomain agent_domain;
	TcRequest *request;

	if (tc_agent_domain_from_name(domain, &agent_domain))
		return submit_agent_event(session, invocation, agent_domain, channel, pattern, NULL,
					  work == enable_event_work);
	if (g_str_equal(domain, "kernel-own"))
		return submit_kernel_own_event(session, invocation, channel, pattern,
					       work == enable_event_work);
	if (!check_domain(domain, &error) ||
	    (*channel && !tc_validate_name("channel", channel, &error))) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		return TRUE;
	}
	if (g_str_equal(domain, "kernel"))
		return submit_kernel_event(session, invocation, pattern, work == enable_event_work);
	if (!tc_validate_pattern(pattern, &error)) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		return TRUE;
	}
	request = tc_dbus_request_new(invocation, session);
	request->channel = g_strdup(channel);
	request->pattern = g_strdup(pattern);
	request->work = work;
	tc_dbus_request_submit_manage(request, session);
	return TRUE;
}

static gboolean
handle_enable_event(TcDbusSession *object, GDBusMethodInvocation *invocation, const char *domain,
		    const char *channel, const char *pattern, TcSession *session)
{
	return handle_event_change(session, invocation, domain, channel, pattern,
				   enable_event_work);
}

static gboolean
handle_enable_event_with_options(TcDbusSession *object, GDBusMethodInvocation *invocation,
				 const char *domain, const char *channel, const char *pattern,
				 GVariant *options, TcSession *session)
{
	g_autoptr(TcEventRule) rule = NULL;
	g_autoptr(GError) error = NULL;
	TcAgentDomain agent_domain;
	TcRequest *request;

	if (tc_agent_domain_from_name(domain, &agent_domain))
		return submit_agent_event(session, invocation, agent_domain, channel, pattern,
					  options, TRUE);
	if (!check_domain(domain, &error) ||
	    (*channel && !tc_validate_name("channel", channel, &error))) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		return TRUE;
	}
	if (g_str_equal(domain, "kernel"))
		return handle_kernel_event_with_options(session, invocation, pattern, options);
	if (!tc_validate_pattern(pattern, &error) ||
	    (rule = tc_dbus_event_rule_new(pattern, options, &error)) == NULL) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		return TRUE;
	}
	request = tc_dbus_request_new(invocation, session);
	request->channel = g_strdup(channel);
	request->rule = g_steal_pointer(&rule);
	request->work = enable_event_rule_work;
	tc_dbus_request_submit_manage(request, session);
	return TRUE;
}

static gboolean
handle_disable_event(TcDbusSession *object, GDBusMethodInvocation *invocation, const char *domain,
		     const char *channel, const char *pattern, TcSession *session)
{
	return handle_event_change(session, invocation, domain, channel, pattern,
				   disable_event_work);
}

/* DisableChannel. */

static gboolean
disable_channel_work(TcRequest *request, GError **error)
{
	return tc_session_ops_disable_channel(request->session, request->channel, error);
}

static gboolean
disable_kernel_channel_work(TcRequest *request, GError **error)
{
	return tc_session_op_kernel_disable_channel(request->session, error);
}

static gboolean
handle_disable_channel(TcDbusSession *object, GDBusMethodInvocation *invocation, const char *domain,
		       const char *name, TcSession *session)
{
	gboolean is_kernel = g_str_equal(domain, "kernel");
	g_autoptr(GError) error = NULL;
	TcRequest *request;

	if (!is_kernel && !g_str_equal(domain, "ust")) {
		g_set_error(&error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "Unknown domain '%.32s', use \"ust\" or \"kernel\"", domain);
		return tc_dbus_request_refuse(invocation, error);
	}
	/* The kernel domain has one channel. */
	if (is_kernel && !g_str_equal(name, "channel0")) {
		g_set_error(&error, TC_ERROR, TC_ERROR_NOT_FOUND,
			    "The kernel domain has one channel, 'channel0', not '%.64s'", name);
		return tc_dbus_request_refuse(invocation, error);
	}
	if (!tc_validate_name("channel", name, &error))
		return tc_dbus_request_refuse(invocation, error);
	request = tc_dbus_request_new(invocation, session);
	request->channel = g_strdup(name);
	request->work = is_kernel ? disable_kernel_channel_work : disable_channel_work;
	tc_dbus_request_submit(request,
			       is_kernel ? TC_ACTION_TRACE_KERNEL : TC_ACTION_MANAGE_SESSIONS,
			       session->owner_uid, TC_AUTHORITY_FLAGS_NONE);
	return TRUE;
}

void
tc_dbus_channels_connect(gpointer skeleton, TcSession *session)
{
	g_signal_connect(skeleton, "handle-enable-channel", G_CALLBACK(handle_enable_channel),
			 session);
	g_signal_connect(skeleton, "handle-disable-channel", G_CALLBACK(handle_disable_channel),
			 session);
	g_signal_connect(skeleton, "handle-enable-event", G_CALLBACK(handle_enable_event), session);
	g_signal_connect(skeleton, "handle-disable-event", G_CALLBACK(handle_disable_event),
			 session);
	g_signal_connect(skeleton, "handle-enable-event-with-options",
			 G_CALLBACK(handle_enable_event_with_options), session);
	g_signal_connect(skeleton, "handle-add-context", G_CALLBACK(handle_add_context), session);
	g_signal_connect(skeleton, "handle-add-kernel-probe", G_CALLBACK(handle_add_kernel_probe),
			 session);
	g_signal_connect(skeleton, "handle-channel-statistics",
			 G_CALLBACK(handle_channel_statistics), session);
}
