/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A file's session applied through the session layer, for auto-loading
 * (tc-session-autoload-private.h).
 *
 * What needs no more than the owner's own manage-sessions is set up
 * through the operations the owner's calls use: a rotation schedule, a
 * relay URL or live timer (tc-session-output.h, CreateSessionWithOptions'
 * code) and snapshot outputs (AddSnapshotOutput's). The owner's consumer
 * opens a relay's connections, never the service. The relay may start
 * after the service at boot, so a relay not reached is no reason to lose
 * the session: with TC_CONSUMER_RELAY_CONNECT_LATER the consumer creates
 * it without waiting for the network (a relay behind a firewall or
 * stopped would otherwise hold the owner's other sessions and calls),
 * connects when the relay answers, and counts it lost if its first try
 * fails, which the session's Problem then names. What the service cannot
 * set up on its own is refused, naming it: the kernel domain of a file
 * that is not root's needs `tracectl load`, for at start there is no
 * caller whose kernel tracing polkit could authorize, and only root is
 * authorized without asking.
 */
#define G_LOG_DOMAIN "tracectld-autoload"

#include "tc-session-autoload.h"

#include "tc-agent-rule.h"
#include "tc-channel-config.h"
#include "tc-channel.h"
#include "tc-consumer.h"
#include "tc-error.h"
#include "tc-event-rule.h"
#include "tc-kernel-abi.h"
#include "tc-kernel-event-rule.h"
#include "tc-perf-counter.h"
#include "tc-perf-probe.h"
#include "tc-session-autoload-private.h"
#include "tc-session-file-apply.h"
#include "tc-session-file.h"
#include "tc-session-op-kernel.h"
#include "tc-session-op-relay.h"
#include "tc-session-op-snapshot.h"
#include "tc-session-op-track.h"
#include "tc-session-ops.h"
#include "tc-session-output.h"
#include "tc-session-rotation.h"
#include "tc-session.h"
#include "tc-tracker.h"
#include "tc-validate.h"

static gboolean
has_kernel_domain(const TcFileSession *file)
{
	for (guint i = 0; i < file->channels->len; i++)
		if (((TcFileChannel *)g_ptr_array_index(file->channels, i))->kernel)
			return TRUE;
	for (guint i = 0; i < file->trackers->len; i++)
		if (((TcFileTracker *)g_ptr_array_index(file->trackers, i))->kernel)
			return TRUE;
	return FALSE;
}

/* What the service leaves to `tracectl load`: set up only through calls
 * that polkit authorizes beyond the owner's own manage-sessions. Root is
 * authorized for kernel tracing without asking, so a file of root's may
 * have a kernel domain. */
static gboolean
check_supported(const TcFileSession *file, uid_t owner, GError **error)
{
	if (owner == 0 || !has_kernel_domain(file))
		return TRUE;
	g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
		    "auto-loading sets up the kernel domain of root's files only: there "
		    "is no caller to ask polkit whether uid %u may trace the kernel "
		    "(use 'tracectl load')",
		    (unsigned)owner);
	return FALSE;
}

/* A file's session applied through the session layer
 * (tc_session_file_apply()): each step makes the checks the D-Bus call
 * that `tracectl load` would make for it, then its operation. */
typedef struct {
	uid_t owner;
	TcSession *session; /* once created */
} TcAutoloadApply;

/* The rule the file's event asks for, as EnableEventWithOptions would
 * read it from `tracectl load`'s options. */
static TcEventRuleSpec
event_rule_spec(const TcFileEvent *event, const char *pattern)
{
	gboolean has_loglevel = event->loglevel >= 0;

	return (TcEventRuleSpec){
	    .pattern = pattern,
	    .has_loglevel = has_loglevel,
	    .loglevel = event->loglevel,
	    .loglevel_only = has_loglevel && event->loglevel_only,
	    .exclusions = (const char *const *)event->exclusions,
	    .filter = event->filter,
	};
}

static gboolean
refuse_not_tracepoint(const TcFileChannel *channel, const TcFileEvent *event, GError **error)
{
	g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
		    "event '%s' of channel '%s' is not a tracepoint", event->pattern,
		    channel->name);
	return FALSE;
}

/* The checks EnableEventWithOptions makes, through the same rule checks. */
static gboolean
enable_ust_event(TcSession *session, const TcFileChannel *channel, const TcFileEvent *event,
		 GError **error)
{
	TcEventRuleSpec spec = event_rule_spec(event, event->pattern);
	TcEventRule *rule;

	if (event->type != TC_FILE_EVENT_TRACEPOINT)
		return refuse_not_tracepoint(channel, event, error);
	if (!tc_validate_pattern(event->pattern, error))
		return FALSE;
	rule = tc_event_rule_new_from_spec(&spec, error);
	return rule && tc_session_ops_enable_event_rule(session, channel->name, rule, error);
}

static gboolean
enable_kernel_event(TcSession *session, const char *pattern, const TcFileEvent *event,
		    GError **error)
{
	TcEventRuleSpec spec = event_rule_spec(event, pattern);
	g_autofree char *filter = NULL;

	if (!tc_kernel_event_rule_check(&spec, &filter, error))
		return FALSE;
	if (filter == NULL)
		return tc_session_op_kernel_event(session, pattern, TRUE, error);
	return tc_session_op_kernel_filtered_event(session, pattern, filter, error);
}

/* An agent's logger, as EnableEventWithOptions takes it for the domain:
 * recorded in the default channel. */
static gboolean
enable_agent_event(TcSession *session, const TcFileChannel *channel, const TcFileEvent *event,
		   GError **error)
{
	TcEventRuleSpec spec = {
	    .pattern = event->pattern,
	    .has_loglevel = event->has_loglevel,
	    .loglevel = event->loglevel,
	    .loglevel_only = event->has_loglevel && event->loglevel_only,
	    .exclusions = (const char *const *)event->exclusions,
	    .filter = event->filter,
	};
	TcAgentDomain domain;
	TcEventRule *rule;

	if (!tc_agent_domain_from_name(tc_session_file_agent_domain(channel->agent), &domain))
		g_assert_not_reached();
	rule = tc_agent_rule_new(domain, &spec, error);
	return rule && tc_session_ops_enable_event_rule(session, "", rule, error);
}

static gboolean
apply_enable_event_cb(gpointer data, const TcFileChannel *channel, const TcFileEvent *event,
		      const char *pattern, GError **error)
{
	TcAutoloadApply *apply = data;

	if (channel->agent)
		return enable_agent_event(apply->session, channel, event, error);
	if (channel->kernel)
		return enable_kernel_event(apply->session, pattern, event, error);
	return enable_ust_event(apply->session, channel, event, error);
}

static gboolean
apply_add_probe_cb(gpointer data, const TcFileChannel *channel, const TcFileEvent *event,
		   GError **error)
{
	static const guint32 probe_kinds[] = {
	    [TC_FILE_EVENT_KPROBE] = TC_KERNEL_PROBE_KPROBE,
	    [TC_FILE_EVENT_KRETPROBE] = TC_KERNEL_PROBE_KRETPROBE,
	    [TC_FILE_EVENT_UPROBE] = TC_KERNEL_PROBE_UPROBE,
	};
	TcAutoloadApply *apply = data;

	if (!channel->kernel)
		return refuse_not_tracepoint(channel, event, error);
	return tc_validate_kernel_probe(probe_kinds[event->type], event->pattern, event->location,
					error) &&
	       tc_session_op_kernel_probe(apply->session, probe_kinds[event->type], event->pattern,
					  event->location, error);
}

static gboolean
channel_config(const TcFileSession *file, const TcFileChannel *channel, TcChannelConfig *config,
	       GError **error)
{
	guint64 subbuf_size;

	tc_channel_config_init_default(config, file->snapshot);
	subbuf_size = channel->subbuf_size ? channel->subbuf_size : config->subbuf_size;
	if (channel->num_subbuf)
		config->num_subbuf = (guint32)MIN(channel->num_subbuf, G_MAXUINT32);
	config->overwrite = channel->overwrite;
	config->switch_timer_us = channel->switch_timer_us;
	/* LTTng's 0 (the application wakes the consumer) is tracectl's
	 * default polling. */
	if (channel->read_timer_us)
		config->read_timer_us = channel->read_timer_us;
	config->monitor_timer_us = (guint32)MIN(channel->monitor_timer_us, G_MAXUINT32);
	if (!tc_channel_config_check(subbuf_size, config, error))
		return FALSE;
	config->subbuf_size = (guint32)subbuf_size;
	return TRUE;
}

/* The channel's context names, NULL-terminated; the strings stay the
 * file's (a g_ptr_array_copy() would free them with its own copy). */
static const char **
context_names(const TcFileChannel *channel)
{
	const char **names = g_new0(const char *, channel->contexts->len + 1);

	for (guint i = 0; i < channel->contexts->len; i++)
		names[i] = g_ptr_array_index(channel->contexts, i);
	return names;
}

/* The kernel domain has one channel (check_supported() let only root's
 * files have it). */
static gboolean
add_kernel_channel(TcSession *session, const TcFileSession *file, const TcFileChannel *channel,
		   GError **error)
{
	TcChannelConfig config;

	/* The file's read and monitor intervals are LTTng's defaults in every
	 * file it saves; the kernel channel's reads and statistics are the
	 * same whatever they say (docs/kernel.md). */
	return channel_config(file, channel, &config, error) &&
	       tc_channel_config_kernel_check(channel->name, &config, error) &&
	       tc_session_op_kernel_channel(session, &config, error);
}

static gboolean
apply_add_channel_cb(gpointer data, const TcFileSession *file, const TcFileChannel *channel,
		     GError **error)
{
	TcAutoloadApply *apply = data;
	TcChannelConfig config;

	if (channel->kernel)
		return add_kernel_channel(apply->session, file, channel, error);
	return tc_validate_name("channel", channel->name, error) &&
	       channel_config(file, channel, &config, error) &&
	       tc_session_ops_enable_channel(apply->session, channel->name, &config,
					     file->ust_per_pid ? TC_BUFFERS_PER_PID
							       : TC_BUFFERS_PER_UID,
					     error);
}

static gboolean
apply_add_contexts_cb(gpointer data, const TcFileChannel *channel, GError **error)
{
	TcAutoloadApply *apply = data;
	g_autofree const char **names = context_names(channel);
	g_autoptr(GArray) perf_counters = NULL;
	g_autoptr(GPtrArray) app_contexts = NULL;
	guint32 contexts = 0;

	if (channel->kernel)
		return tc_channel_config_kernel_context_bits(names, &contexts, error) &&
		       tc_session_op_kernel_context(apply->session, contexts, error);
	perf_counters = g_array_new(FALSE, FALSE, sizeof(struct tc_perf_counter));
	app_contexts = g_ptr_array_new_with_free_func(g_free);
	return tc_channel_config_ust_contexts_parse(names, &contexts, perf_counters, app_contexts,
						    error) &&
	       tc_perf_probe_check_all(perf_counters, apply->session->owner_uid, error) &&
	       tc_session_ops_add_context(apply->session, channel->name, contexts, perf_counters,
					  app_contexts, error);
}

static gboolean
apply_set_tracker_cb(gpointer data, const TcFileTracker *tracker, GError **error)
{
	TcAutoloadApply *apply = data;
	TcTrackKind kind;

	if (!tc_tracker_kind_parse(tracker->kind, &kind)) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED, "unknown tracker kind '%s'",
			    tracker->kind);
		return FALSE;
	}
	if (!tc_tracker_check_values(kind, (const guint32 *)tracker->values->data,
				     tracker->values->len, error))
		return FALSE;
	/* The set holds only the values listed: untrack all, track them. */
	return tc_session_op_track(apply->session, tracker->kernel, kind, NULL, 0, TRUE, FALSE,
				   error) &&
	       (tracker->values->len == 0 ||
		tc_session_op_track(apply->session, tracker->kernel, kind,
				    (const guint32 *)tracker->values->data, tracker->values->len,
				    FALSE, TRUE, error));
}

/* The checks SetRotationSchedule makes, then its operation. */
static gboolean
apply_set_rotation_cb(gpointer data, const TcFileSession *file, GError **error)
{
	TcAutoloadApply *apply = data;

	return tc_session_rotation_validate_schedule(file->rotation_timer_us, file->rotation_size,
						     error) &&
	       tc_session_rotation_set_schedule(apply->session, file->rotation_timer_us,
						file->rotation_size, error);
}

/* The checks AddSnapshotOutput makes, then its operation: the owner's
 * consumer writes each snapshot there, or sends it to the relay, with
 * the owner's rights. */
static gboolean
apply_add_snapshot_output_cb(gpointer data, const TcFileSnapshotOutput *output, const char *url,
			     GError **error)
{
	TcAutoloadApply *apply = data;
	const char *name = output->name ? output->name : "";
	guint32 id = 0;

	return (!*name || tc_validate_name("snapshot output", name, error)) &&
	       tc_session_op_snapshot_add_output(apply->session, name, url, output->max_size, &id,
						 error);
}

static gboolean
apply_disable_channel_cb(gpointer data, const TcFileChannel *channel, GError **error)
{
	TcAutoloadApply *apply = data;

	if (channel->kernel)
		return tc_session_op_kernel_disable_channel(apply->session, error);
	return tc_session_ops_disable_channel(apply->session, channel->name, error);
}

static gboolean
apply_start_cb(gpointer data, GError **error)
{
	TcAutoloadApply *apply = data;

	return tc_session_ops_start(apply->session, error);
}

/* The file's output as CreateSessionWithOptions takes it from `tracectl
 * load`, through the same checks: a directory ("" for the owner's
 * default) or a relay (*relay): LTTng's pair of URIs, or tracectl's
 * net+ssh:// URL. */
static gboolean
file_output(const TcFileSession *file, char **directory,
	    struct tc_consumer_relay_output **relay, GError **error)
{
	const char *ssh_url = tc_session_file_ssh_url(file->control_url);
	g_autofree char *control =
		file->control_url && !ssh_url ? tc_session_file_relay_url(file->control_url) : NULL;
	g_autofree char *data =
		file->data_url && !ssh_url ? tc_session_file_relay_url(file->data_url) : NULL;
	const TcSessionOutputOptions options = {
		.snapshot = file->snapshot,
		.url = ssh_url,
		.ctrl_url = control,
		.data_url = data,
		.has_live_timer = file->live_timer_us != 0,
		.live_timer_us = file->live_timer_us,
	};

	if (file->path && !tc_validate_output_directory(file->path, error))
		return FALSE;
	return tc_session_output_resolve(&options, file->path ? file->path : "", directory, relay,
					 error);
}

/* Worker thread: the session of the file, not yet created, with its
 * output. A relay is connected to by the owner's consumer when it
 * answers: at boot it may come up after the service, and a session the
 * administrator asked for must not be lost for that (its Problem says
 * the relay is unreachable meanwhile). */
static TcSession *
new_session(const TcFileSession *file, uid_t owner, GError **error)
{
	g_autofree struct tc_consumer_relay_output *relay = NULL;
	g_autofree char *directory = NULL;
	g_autoptr(TcSession) session = NULL;

	if (!file_output(file, &directory, &relay, error))
		return NULL;
	if (relay == NULL && *directory == '\0') {
		g_free(directory);
		directory = tc_session_output_default_directory(owner, file->name, error);
		if (directory == NULL)
			return NULL;
	}
	/* A relay session has no local directory: its paths are the relay's. */
	session = tc_session_new(file->name, owner, relay ? "" : directory);
	session->output_is_default = relay == NULL && file->path == NULL;
	session->snapshot = file->snapshot;
	if (relay) {
		relay->flags |= TC_CONSUMER_RELAY_CONNECT_LATER;
		if (!tc_session_output_set_relay(session, g_steal_pointer(&relay), error))
			return NULL;
	}
	return g_steal_pointer(&session);
}

/* Worker thread: the session, set up as a CreateSession call of the
 * owner's would (owner's limits, home and consumer). */
static gboolean
apply_create_session_cb(gpointer data, const TcFileSession *file, GError **error)
{
	TcAutoloadApply *apply = data;
	g_autoptr(TcSession) session = NULL;

	if (!check_supported(file, apply->owner, error) ||
	    !tc_validate_name("session", file->name, error))
		return FALSE;
	session = new_session(file, apply->owner, error);
	if (session == NULL || !tc_session_ops_create(session, error))
		return FALSE;
	apply->session = g_steal_pointer(&session);
	return TRUE;
}

static void
apply_discard_cb(gpointer data, const TcFileSession *file, GError **error G_GNUC_UNUSED)
{
	TcAutoloadApply *apply = data;
	g_autoptr(GError) destroy_error = NULL;

	if (!tc_session_ops_destroy(apply->session, &destroy_error)) {
		g_autofree char *name = g_strescape(file->name, NULL);

		g_warning("Cannot destroy the half-loaded session '%s': %s", name,
			  destroy_error->message);
	}
}

static const TcSessionFileApplyFuncs autoload_apply_funcs = TC_SESSION_FILE_APPLY_FUNCS(apply);

/* Worker thread: owner's session of the file, set up as a CreateSession
 * call of owner's would (owner's limits, home and consumer), or NULL with
 * nothing left behind. */
TcSession *
tc_session_autoload_apply(const TcFileSession *file, uid_t owner, GError **error)
{
	TcAutoloadApply apply = {.owner = owner};
	g_autoptr(TcSession) session = NULL;
	gboolean ok = tc_session_file_apply(file, &autoload_apply_funcs, &apply, error);

	session = g_steal_pointer(&apply.session);
	if (!ok)
		return NULL;
	tc_session_op_relay_refresh_problem(session);
	return g_steal_pointer(&session);
}
