/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel domain of a session: its events, and the tracefs instance the
 * root helper makes for it, whose raw buffers go to the owner's consumer,
 * which writes <output>/kernel beside the user-space traces, on the same
 * clock.
 *
 *   first start: helper makes the instance (buffer size, mono clock),
 *                enables the events, starts recording and hands over the
 *                buffers -> the consumer gets them
 *   stop:        helper stops recording (the consumer then drains)
 *   destroy:     the consumer closes the buffers -> helper removes the
 *                instance
 *
 * In a snapshot session the instance is a flight recorder: its buffers
 * overwrite their oldest events (TC_KERNEL_OVERWRITE) and the consumer
 * reads them into rings of the channel's geometry that keep the newest,
 * written out only by a snapshot (tc_session_kernel_snapshot_locked).
 *
 * Events enabled once the consumer reads the buffers: the helper gives
 * their formats first, the consumer takes them, then they are enabled, so
 * no record comes before the format that decodes it.
 *
 * Contexts (pid, tid, procname, prio) are computed by the consumer from
 * what the kernel records: tid is every record's common_pid, procname and
 * prio follow sched_switch, sched_wakeup_new and task_rename, which are
 * enabled for them and left out of the trace unless the user enabled them
 * too ("internal" events), and pid follows task_newtask (a thread joins
 * its creator's group), with /proc and the kernel's saved_tgids, which the
 * helper opens for the consumer, for tasks created before tracing.
 */
#define G_LOG_DOMAIN "tracectld-kernel"

#include "tc-session-kernel.h"

#include <unistd.h>
#include <string.h>

#include "tc-channel.h"
#include "tc-consumer-abi.h"
#include "tc-consumer.h"
#include "tc-error.h"
#include "tc-kernel-abi.h"
#include "tc-kernel-domain.h"
#include "tc-kernel.h"
#include "tc-session.h"
#include "tc-user-account.h"
#include "tc-validate.h"

static const struct {
	const char *system, *event;
	guint32 needed_by; /* TC_CONSUMER_KCTX_* */
	guint32 hide;      /* TC_CONSUMER_KHIDE_* */
} internal_events[] = {
	{"sched", "sched_switch", TC_CONSUMER_KCTX_PROCNAME | TC_CONSUMER_KCTX_PRIO,
	 TC_CONSUMER_KHIDE_SCHED_SWITCH},
	{"sched", "sched_wakeup_new", TC_CONSUMER_KCTX_PROCNAME | TC_CONSUMER_KCTX_PRIO,
	 TC_CONSUMER_KHIDE_WAKEUP_NEW},
	{"task", "task_rename", TC_CONSUMER_KCTX_PROCNAME, TC_CONSUMER_KHIDE_TASK_RENAME},
	{"task", "task_newtask", TC_CONSUMER_KCTX_PID, TC_CONSUMER_KHIDE_TASK_NEWTASK},
};

/* Whether the user's patterns (with extra, unless NULL) enable the event. */
static gboolean
user_enables(TcSession *session, const char *extra, const char *system, const char *event)
{
	for (guint i = 0; i <= session->kernel.events->len; i++) {
		const char *pattern = i < session->kernel.events->len
					      ? g_ptr_array_index(session->kernel.events, i)
					      : extra;
		g_auto(GStrv) parts = pattern ? g_strsplit(pattern, ":", 2) : NULL;

		if (parts && parts[1] && g_pattern_match_simple(parts[0], system) &&
		    g_pattern_match_simple(parts[1], event))
			return TRUE;
	}
	return FALSE;
}

/* The internal events the consumer must leave out of the trace. */
static guint32
hidden_events(TcSession *session, const char *extra)
{
	guint32 hide = 0;

	for (guint i = 0; i < G_N_ELEMENTS(internal_events); i++)
		if ((session->kernel.contexts & internal_events[i].needed_by) &&
		    !user_enables(session, extra, internal_events[i].system,
				  internal_events[i].event))
			hide |= internal_events[i].hide;
	return hide;
}

/* Enables the internal events the contexts need (again, after the user
 * disabled a pattern that matched them). */
static gboolean
enable_internal_events(TcSession *session, GError **error)
{
	for (guint i = 0; i < G_N_ELEMENTS(internal_events); i++)
		if ((session->kernel.contexts & internal_events[i].needed_by) &&
		    !tc_kernel_event(session->id, internal_events[i].system,
				     internal_events[i].event, TRUE, error)) {
			g_prefix_error(error, "Kernel events '%s:%s' (for contexts): ",
				       internal_events[i].system, internal_events[i].event);
			return FALSE;
		}
	return TRUE;
}

/* The consumer reads the buffers already: it gets the formats of what
 * is about to be enabled (system and event globs, or NULL) and the new
 * set of hidden events. */
static gboolean
update_consumer(TcSession *session, const char *system, const char *event, const char *extra,
		GError **error)
{
	g_autoptr(TcConsumer) consumer = NULL;
	int formats_fd = -1;
	gboolean ok;

	if (!session->kernel.trace)
		return TRUE;
	consumer = tc_consumer_get(session->owner_uid, error);
	if (!consumer)
		return FALSE;
	if (system) {
		formats_fd = tc_kernel_formats(session->id, system, event, error);
		if (formats_fd < 0)
			return FALSE;
	}
	ok = tc_consumer_kernel_update(consumer, session->id, formats_fd,
				       hidden_events(session, extra), error);
	if (formats_fd >= 0)
		close(formats_fd);
	return ok;
}

/* "system:event", each part of [A-Za-z0-9_*] (tc-kernel-names.h). */
gboolean
tc_session_kernel_validate_event(const char *pattern, GError **error)
{
	return tc_validate_kernel_event(pattern, error);
}

/* A filtered pattern gets its filter before it is enabled, so that no
 * record escapes it, and loses it once disabled, so that enabling the
 * same events again without a filter records them all. */
static gboolean
apply_event(TcSession *session, const char *pattern, const char *filter, gboolean enable,
	    GError **error)
{
	g_auto(GStrv) parts = g_strsplit(pattern, ":", 2);

	if (enable && !update_consumer(session, parts[0], parts[1], pattern, error)) {
		g_prefix_error(error, "Kernel events '%s': ", pattern);
		return FALSE;
	}
	if (enable && filter &&
	    !tc_kernel_event_filter(session->id, parts[0], parts[1], filter, error))
		return FALSE;
	if (!tc_kernel_event(session->id, parts[0], parts[1], enable, error)) {
		g_prefix_error(error, "Kernel events '%s': ", pattern);
		return FALSE;
	}
	if (!enable && filter &&
	    !tc_kernel_event_filter(session->id, parts[0], parts[1], "0", error)) {
		g_prefix_error(error, "Kernel events '%s': ", pattern);
		return FALSE;
	}
	return TRUE;
}

static gint
find_event(TcSession *session, const char *pattern)
{
	for (guint i = 0; i < session->kernel.events->len; i++)
		if (g_str_equal(g_ptr_array_index(session->kernel.events, i), pattern))
			return (gint)i;
	return -1;
}

gboolean
tc_session_kernel_event_locked(TcSession *session, const char *pattern, gboolean enable,
			       GError **error)
{
	gint index = find_event(session, pattern);

	if (enable && index >= 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_ALREADY_EXISTS,
			    "Kernel events '%s' are already enabled", pattern);
		return FALSE;
	}
	if (!enable && index < 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND,
			    "Kernel events '%s' are not enabled", pattern);
		return FALSE;
	}
	if (session->kernel.instance &&
	    !apply_event(session, pattern, g_hash_table_lookup(session->kernel.filters, pattern),
			 enable, error))
		return FALSE;
	g_mutex_lock(&session->lock);
	if (enable) {
		g_ptr_array_add(session->kernel.events, g_strdup(pattern));
	} else {
		g_ptr_array_remove_index(session->kernel.events, index);
		g_hash_table_remove(session->kernel.filters, pattern);
	}
	g_mutex_unlock(&session->lock);
	/* A disabled pattern may have matched what the contexts need. */
	if (!enable && session->kernel.instance &&
	    (!enable_internal_events(session, error) ||
	     !update_consumer(session, NULL, NULL, NULL, error)))
		return FALSE;
	g_message("Session '%s': kernel events '%s' %s", session->name, pattern,
		  enable ? "enabled" : "disabled");
	return TRUE;
}

gboolean
tc_session_kernel_filtered_event_locked(TcSession *session, const char *pattern,
					const char *filter, GError **error)
{
	if (find_event(session, pattern) < 0)
		g_hash_table_insert(session->kernel.filters, g_strdup(pattern), g_strdup(filter));
	if (!tc_session_kernel_event_locked(session, pattern, TRUE, error)) {
		if (find_event(session, pattern) < 0)
			g_hash_table_remove(session->kernel.filters, pattern);
		return FALSE;
	}
	g_message("Session '%s': kernel events '%s' filtered by '%s'", session->name, pattern,
		  filter);
	return TRUE;
}

/* In a running trace, the probe is enabled once the consumer has its
 * format. */
static gboolean
apply_probe(TcSession *session, const TcKernelProbe *probe, GError **error)
{
	g_auto(TcUserAccount) owner = {.gid = (gid_t)-1};
	g_autofree char *group = tc_kernel_probe_group(session->id);
	gboolean enable_now = !session->kernel.trace;

	tc_user_account_lookup(session->owner_uid, &owner, NULL);
	if (!tc_kernel_probe_add(session->id, probe->kind, probe->name, probe->location,
				 session->owner_uid, owner.gid, enable_now,
				 error) ||
	    (!enable_now && (!update_consumer(session, group, probe->name, NULL, error) ||
			     !tc_kernel_event(session->id, group, probe->name, TRUE, error)))) {
		g_prefix_error(error, "Probe '%s' on '%s': ", probe->name, probe->location);
		return FALSE;
	}
	return TRUE;
}

/* Whether some set other than pids' holds only some values: then the
 * helper follows ids (TRACK), otherwise set_event_pid alone does. */
static gboolean
tracks_ids(const TcTracker *tracker)
{
	for (guint k = 0; k < TC_TRACK_KINDS; k++)
		if (k != TC_TRACK_PID && !tc_tracker_holds_all(tracker, k))
			return TRUE;
	return FALSE;
}

static gboolean
send_ids(TcSession *session, const TcTracker *tracker, GError **error)
{
	guint32 all = 0, counts[TC_KERNEL_TRACK_KINDS] = {0};
	g_autoptr(GArray) values = g_array_new(FALSE, FALSE, sizeof(guint32));

	G_STATIC_ASSERT((int)TC_TRACK_KINDS == (int)TC_KERNEL_TRACK_KINDS &&
			(int)TC_TRACK_VGID == (int)TC_KERNEL_TRACK_VGID &&
			(int)TC_TRACK_UID == (int)TC_KERNEL_TRACK_UID);
	for (guint k = 0; k < TC_TRACK_KINDS; k++) {
		const GArray *set = tc_tracker_values(tracker, k);

		if (tc_tracker_holds_all(tracker, k)) {
			all |= 1u << k;
			continue;
		}
		counts[k] = set->len;
		g_array_append_vals(values, set->data, set->len);
	}
	return tc_kernel_track(session->id, all, counts, (const guint32 *)(gpointer)values->data,
			       error);
}

gboolean
tc_session_kernel_pids_locked(TcSession *session, const TcTracker *tracker, GError **error)
{
	const GArray *pids = tc_tracker_values(tracker, TC_TRACK_PID);
	gboolean all = tc_tracker_holds_all(tracker, TC_TRACK_PID);
	gboolean ok;

	if (!session->kernel.instance)
		return TRUE;
	if (tracks_ids(tracker))
		ok = send_ids(session, tracker, error);
	else
		ok = tc_kernel_set_pids(session->id,
					all ? NULL : (const guint32 *)(gpointer)pids->data,
					all ? 0 : pids->len, all, error);
	if (!ok) {
		g_prefix_error(error, "Kernel process tracking of session '%s': ", session->name);
		return FALSE;
	}
	return TRUE;
}

void
tc_session_kernel_flight_geometry(const TcSession *session, guint32 *subbuf_size,
				  guint32 *num_subbuf)
{
	*subbuf_size = session->kernel.subbuf_size
			       ? (guint32)MIN(session->kernel.subbuf_size, G_MAXUINT32)
			       : TC_DEFAULT_SUBBUF_SIZE;
	*num_subbuf = session->kernel.num_subbuf ? session->kernel.num_subbuf
						 : TC_DEFAULT_NUM_SUBBUF;
}

guint32
tc_session_kernel_buffer_kb(const TcSession *session)
{
	guint32 subbuf_size, num_subbuf;

	if (session->kernel.buffer_kb || !session->snapshot)
		return session->kernel.buffer_kb;
	tc_session_kernel_flight_geometry(session, &subbuf_size, &num_subbuf);
	return (guint32)MIN((guint64)subbuf_size * num_subbuf / 1024, G_MAXUINT32);
}

/* The first start: the instance, its pid filter, events and probes. */
static gboolean
make_instance(TcSession *session, GError **error)
{
	if (!tc_kernel_instance_create(session->id, tc_session_kernel_buffer_kb(session),
				       session->clock.tsc != 0, session->snapshot, error))
		return FALSE;
	session->kernel.instance = TRUE;
	/* The filter before any event: nothing untracked is recorded. */
	if ((!tc_tracker_holds_all(&session->kernel.tracker, TC_TRACK_PID) ||
	     tracks_ids(&session->kernel.tracker)) &&
	    !tc_session_kernel_pids_locked(session, &session->kernel.tracker, error))
		return FALSE;
	for (guint i = 0; i < session->kernel.events->len; i++)
	{
		const char *pattern = g_ptr_array_index(session->kernel.events, i);

		if (!apply_event(session, pattern,
				 g_hash_table_lookup(session->kernel.filters, pattern), TRUE, error))
			return FALSE;
	}
	for (guint i = 0; i < session->kernel.probes->len; i++)
		if (!apply_probe(session, g_ptr_array_index(session->kernel.probes, i), error))
			return FALSE;
	return enable_internal_events(session, error);
}

gboolean
tc_session_kernel_context_locked(TcSession *session, guint32 contexts, GError **error)
{
	if (session->kernel.instance) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE,
			    "Kernel contexts can be added to session '%s' only before it is "
			    "first started",
			    session->name);
		return FALSE;
	}
	g_mutex_lock(&session->lock);
	session->kernel.contexts |= contexts;
	g_mutex_unlock(&session->lock);
	g_message("Session '%s': kernel contexts 0x%x", session->name, session->kernel.contexts);
	return TRUE;
}

gboolean
tc_session_kernel_probe_locked(TcSession *session, guint32 kind, const char *name,
			       const char *location, GError **error)
{
	TcKernelProbe *probe;

	for (guint i = 0; i < session->kernel.probes->len; i++) {
		probe = g_ptr_array_index(session->kernel.probes, i);
		if (g_str_equal(probe->name, name)) {
			g_set_error(error, TC_ERROR, TC_ERROR_ALREADY_EXISTS,
				    "Session '%s' has a probe named '%s'", session->name, name);
			return FALSE;
		}
	}
	probe = g_new0(TcKernelProbe, 1);
	probe->kind = kind;
	probe->name = g_strdup(name);
	probe->location = g_strdup(location);
	if (session->kernel.instance && !apply_probe(session, probe, error)) {
		g_free(probe->name);
		g_free(probe->location);
		g_free(probe);
		return FALSE;
	}
	g_mutex_lock(&session->lock);
	g_ptr_array_add(session->kernel.probes, probe);
	g_mutex_unlock(&session->lock);
	g_message("Session '%s': probe '%s' on '%s'", session->name, name, location);
	return TRUE;
}

gboolean
tc_session_kernel_in_use(const TcSession *session)
{
	return session->kernel.events->len > 0 || session->kernel.probes->len > 0 ||
	       session->kernel.contexts != 0 || session->kernel.buffer_kb != 0 ||
	       !tc_tracker_holds_all(&session->kernel.tracker, TC_TRACK_PID);
}

/* The kernel trace's own uuid, derived from the session's. */
static void
kernel_uuid(const TcSession *session, guint8 uuid[16])
{
	memcpy(uuid, session->uuid, 16);
	uuid[15] ^= 0x4b;
}

/* The consumer gets the buffers, the formats, and saved_tgids for the
 * pid context. */
static gboolean
give_consumer_buffers(TcSession *session, TcConsumer *consumer, TcKernelBuffers *buffers,
		      GError **error)
{
	/* A relay session's kernel trace is "kernel" under its directory on
	 * the relay, as its consumer session was created with the relay flag. */
	g_autofree char *dir = session->relay ? g_strdup("kernel")
					      : g_build_filename(session->output_directory,
								 "kernel", NULL);
	int tgids_fd = -1;
	guint8 uuid[16];
	guint32 subbuf_size = 0, num_subbuf = 0;
	gboolean ok;

	if (session->kernel.contexts & TC_CONSUMER_KCTX_PID) {
		tgids_fd = tc_kernel_tgids(session->id, error);
		if (tgids_fd < 0)
			return FALSE;
	}
	kernel_uuid(session, uuid);
	if (session->snapshot)
		tc_session_kernel_flight_geometry(session, &subbuf_size, &num_subbuf);
	ok = tc_consumer_kernel_trace(consumer, session->id, dir, uuid, &session->clock,
				      (const int *)(gpointer)buffers->cpu_fds->data,
				      (const int *)(gpointer)buffers->stats_fds->data,
				      buffers->cpu_fds->len, buffers->formats_fd, tgids_fd,
				      session->kernel.contexts | hidden_events(session, NULL),
				      subbuf_size, num_subbuf, error);
	if (tgids_fd >= 0)
		close(tgids_fd);
	return ok;
}

gboolean
tc_session_kernel_start_locked(TcSession *session, TcConsumer *consumer, GError **error)
{
	TcKernelBuffers buffers = {0};
	gboolean ok;

	if (session->kernel.events->len == 0 && session->kernel.probes->len == 0)
		return TRUE;
	if (!session->kernel.instance && !make_instance(session, error))
		return FALSE;
	if (!tc_kernel_start(session->id, &buffers, error))
		return FALSE;
	/* A restart: the consumer still reads the buffers it was given. */
	ok = session->kernel.trace;
	if (!ok) {
		ok = give_consumer_buffers(session, consumer, &buffers, error);
		session->kernel.trace = ok;
	}
	tc_kernel_buffers_clear(&buffers);
	if (ok)
		tc_session_kernel_statedump_locked(session, NULL);
	return ok;
}

/* At every start, as lttng-modules, once the consumer reads the buffers
 * the dump fills. A failed dump is logged and leaves the recording as it
 * is: the trace then lacks what existed before it started. */
gboolean
tc_session_kernel_statedump_locked(TcSession *session, GError **error)
{
	g_autoptr(GError) local_error = NULL;

	if (!session->kernel.instance || !session->kernel.trace) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND,
			    "Session '%s' records no kernel events", session->name);
		return FALSE;
	}
	if (tc_kernel_statedump(session->id, &local_error))
		return TRUE;
	g_warning("Session '%s': the kernel state dump failed: %s", session->name,
		  local_error->message);
	g_propagate_error(error, g_steal_pointer(&local_error));
	return FALSE;
}

gboolean
tc_session_kernel_stop_locked(TcSession *session, GError **error)
{
	return !session->kernel.instance || tc_kernel_stop(session->id, error);
}

void
tc_session_kernel_destroyed_locked(TcSession *session)
{
	g_autoptr(GError) error = NULL;

	if (session->kernel.instance && !tc_kernel_instance_remove(session->id, &error))
		g_warning("Session '%s': cannot remove its tracefs instance: %s", session->name,
			  error->message);
	session->kernel.instance = FALSE;
}

gboolean
tc_session_kernel_snapshot_locked(TcSession *session, TcConsumer *consumer, const char *root,
				  const struct tc_consumer_relay_output *relay, guint64 per_stream,
				  guint64 *packets, GError **error)
{
	g_autofree char *dir = g_build_filename(root, "kernel", NULL);
	guint64 count = 0;

	if (!session->kernel.trace)
		return TRUE;
	if (!(relay ? tc_consumer_kernel_snapshot_relay(consumer, session->id, relay, dir,
							per_stream, &count, error)
		    : tc_consumer_kernel_snapshot(consumer, session->id, dir, per_stream, &count,
						  error))) {
		g_prefix_error(error, "Kernel snapshot of session '%s': ", session->name);
		return FALSE;
	}
	*packets += count;
	return TRUE;
}
