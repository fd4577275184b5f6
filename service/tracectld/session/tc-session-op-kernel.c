/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-session"

#include "tc-session-op-kernel.h"

#include <string.h>

#include "tc-consumer.h"
#include "tc-error.h"
#include "tc-kernel-abi.h"
#include "tc-kernel-event-name.h"
#include "tc-kernel.h"
#include "tc-session-kernel-own.h"
#include "tc-session-kernel.h"
#include "tc-session-op.h"
#include "tc-user-limits.h"

/* The helper is started on demand: it answers before anything is
 * promised, and speaks this protocol. */
gboolean
tc_session_op_kernel_check_helper(GError **error)
{
	guint32 version = 0;

	if (!tc_kernel_ping(&version, error))
		return FALSE;
	if (version != TC_KERNEL_VERSION) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
			    "The kernel helper speaks protocol %u, not %u", version,
			    TC_KERNEL_VERSION);
		return FALSE;
	}
	return TRUE;
}

/* op_lock held. The first kernel event (or probe) of a session that records already
 * starts its kernel trace now (streamed sessions add the kernel streams to
 * the relay, live viewers see them), rather than at the next start. */
static gboolean
start_new_kernel_trace(TcSession *session, GError **error)
{
	g_autoptr(TcConsumer) consumer = NULL;

	if (session->state != TC_SESSION_ACTIVE || session->kernel.trace ||
	    session->kernel.disabled)
		return TRUE;
	consumer = tc_consumer_get(session->owner_uid, error);
	if (consumer == NULL || !tc_session_kernel_start_locked(session, consumer, error)) {
		g_prefix_error(error, "Cannot start the kernel trace of session '%s': ",
			       session->name);
		return FALSE;
	}
	g_message("Session '%s' of uid %u: kernel trace started while recording", session->name,
		  (unsigned)session->owner_uid);
	return TRUE;
}

gboolean
tc_session_op_kernel_statedump(TcSession *session, GError **error)
{
	g_autoptr(GMutexLocker) op = tc_session_op_begin(session, error);

	if (op == NULL)
		return FALSE;
	if (session->state != TC_SESSION_ACTIVE) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE,
			    "Session '%s' is not recording", session->name);
		return FALSE;
	}
	return tc_session_kernel_statedump_locked(session, error);
}

gboolean
tc_session_op_kernel_probe(TcSession *session, guint32 kind, const char *name,
			   const char *location, GError **error)
{
	g_autoptr(GMutexLocker) op = NULL;

	if (!tc_session_op_kernel_check_helper(error))
		return FALSE;
	op = tc_session_op_begin(session, error);
	return op != NULL && tc_session_kernel_probe_locked(session, kind, name, location, error) &&
	       start_new_kernel_trace(session, error);
}

/* The tracefs patterns pattern stands for: itself when it names its
 * system, else what LTTng's bare name finds among the machine's events
 * and the session's own probes (tc-kernel-event-name.h). */
static GPtrArray *
tracefs_patterns(TcSession *session, const char *pattern, GError **error)
{
	g_auto(GStrv) events = NULL;
	g_autofree char *group = NULL;
	g_autofree char *joined = NULL;
	GPtrArray *patterns;

	if (strchr(pattern, ':')) {
		patterns = g_ptr_array_new_with_free_func(g_free);
		g_ptr_array_add(patterns, g_strdup(pattern));
		return patterns;
	}
	events = tc_kernel_list(FALSE, error);
	if (events == NULL)
		return NULL;
	group = tc_kernel_probe_group(session->id);
	patterns = tc_kernel_event_name_resolve(pattern, (const char *const *)events, group, error);
	if (patterns == NULL)
		return NULL;
	g_ptr_array_add(patterns, NULL);
	joined = g_strjoinv(", ", (char **)patterns->pdata);
	g_ptr_array_remove_index(patterns, patterns->len - 1);
	g_message("Session '%s': kernel event name '%s' is %s", session->name, pattern, joined);
	return patterns;
}

/* Enables (with filter, in tracefs syntax, or none) or disables the
 * tracefs patterns pattern stands for. */
static gboolean
kernel_events(TcSession *session, const char *pattern, gboolean enable, const char *filter,
	      GError **error)
{
	g_autoptr(GMutexLocker) op = NULL;
	g_autoptr(GPtrArray) patterns = NULL;

	if (!tc_session_op_kernel_check_helper(error))
		return FALSE;
	op = tc_session_op_begin(session, error);
	if (op == NULL)
		return FALSE;
	patterns = tracefs_patterns(session, pattern, error);
	if (patterns == NULL)
		return FALSE;
	for (guint i = 0; i < patterns->len; i++) {
		const char *one = g_ptr_array_index(patterns, i);

		if (!(filter ? tc_session_kernel_filtered_event_locked(session, one, filter, error)
			     : tc_session_kernel_event_locked(session, one, enable, error)))
			return FALSE;
	}
	/* Only unfiltered patterns start a recording session's kernel trace at
	 * once, as before this lookup was shared. */
	return !enable || filter || start_new_kernel_trace(session, error);
}

gboolean
tc_session_op_kernel_event(TcSession *session, const char *pattern, gboolean enable,
			   GError **error)
{
	return kernel_events(session, pattern, enable, NULL, error);
}

gboolean
tc_session_op_kernel_filtered_event(TcSession *session, const char *pattern, const char *filter,
				    GError **error)
{
	return kernel_events(session, pattern, TRUE, filter, error);
}

gboolean
tc_session_op_kernel_own_event(TcSession *session, const char *pattern, gboolean enable,
			       GError **error)
{
	g_autoptr(GMutexLocker) op = NULL;

	if (!tc_session_op_kernel_check_helper(error))
		return FALSE;
	op = tc_session_op_begin(session, error);
	return op != NULL && tc_session_kernel_own_event_locked(session, pattern, enable, error);
}

gboolean
tc_session_op_kernel_context(TcSession *session, guint32 contexts, GError **error)
{
	g_autoptr(GMutexLocker) op = tc_session_op_begin(session, error);

	return op != NULL && tc_session_kernel_context_locked(session, contexts, error);
}

/* op_lock held: the kernel's ring buffers of kb per CPU replace those
 * counted so far, against the owner's limits as any channel's; a snapshot
 * session's count twice, as its consumer keeps as much of what snapshots
 * read (the flight recorder's rings). */
static gboolean
charge_kernel_buffers(TcSession *session, guint64 kb, GError **error)
{
	guint64 bytes = MIN(kb, G_MAXUINT32) * 1024 * MAX(1, sysconf(_SC_NPROCESSORS_CONF)) *
			(session->snapshot ? 2 : 1);

	if (!tc_user_limits_recharge_buffer(&session->charge, session->kernel.buffer_bytes, bytes,
					    error)) {
		g_prefix_error(error, "Cannot size the kernel buffers of session '%s': ",
			       session->name);
		return FALSE;
	}
	session->kernel.buffer_bytes = bytes;
	return TRUE;
}

/* enable-channel -k after disable-channel -k: the instance records again
 * if the session does. op_lock held. */
static gboolean
reenable_kernel_channel(TcSession *session, GError **error)
{
	g_autoptr(TcConsumer) consumer = NULL;

	session->kernel.disabled = FALSE;
	if (session->state == TC_SESSION_ACTIVE) {
		consumer = tc_consumer_get(session->owner_uid, error);
		if (consumer == NULL || !tc_session_kernel_start_locked(session, consumer, error)) {
			session->kernel.disabled = TRUE;
			return FALSE;
		}
	}
	g_message("Session '%s' of uid %u: kernel channel enabled again", session->name,
		  (unsigned)session->owner_uid);
	return TRUE;
}

gboolean
tc_session_op_kernel_channel(TcSession *session, const TcChannelConfig *config, GError **error)
{
	guint64 kb = (guint64)config->subbuf_size * config->num_subbuf / 1024;
	g_autoptr(GMutexLocker) op = tc_session_op_begin(session, error);

	if (op == NULL)
		return FALSE;
	if (session->kernel.disabled)
		return reenable_kernel_channel(session, error);
	if (session->kernel.instance) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE,
			    "The kernel buffers of session '%s' exist already", session->name);
		return FALSE;
	}
	if (!charge_kernel_buffers(session, kb, error))
		return FALSE;
	g_mutex_lock(&session->lock);
	session->kernel.buffer_kb = (guint32)MIN(kb, G_MAXUINT32);
	session->kernel.subbuf_size = config->subbuf_size;
	session->kernel.num_subbuf = config->num_subbuf;
	g_mutex_unlock(&session->lock);
	return TRUE;
}

gboolean
tc_session_op_kernel_disable_channel(TcSession *session, GError **error)
{
	g_autoptr(GMutexLocker) op = tc_session_op_begin(session, error);

	if (op == NULL)
		return FALSE;
	if (session->kernel.events->len == 0 && session->kernel.probes->len == 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND,
			    "Session '%s' has no kernel channel (no kernel event is enabled)",
			    session->name);
		return FALSE;
	}
	if (session->kernel.disabled) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE,
			    "The kernel channel of session '%s' is disabled already", session->name);
		return FALSE;
	}
	/* The instance stops recording; its buffers stay with the consumer,
	 * which writes out what they hold. */
	if (session->state == TC_SESSION_ACTIVE && !tc_session_kernel_stop_locked(session, error))
		return FALSE;
	session->kernel.disabled = TRUE;
	g_message("Session '%s' of uid %u: kernel channel disabled", session->name,
		  (unsigned)session->owner_uid);
	return TRUE;
}
