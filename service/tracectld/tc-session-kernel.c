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
 */
#define G_LOG_DOMAIN "tracectld-kernel"

#include "tc-session-kernel.h"

#include <pwd.h>
#include <string.h>

#include "tc-consumer.h"
#include "tc-error.h"
#include "tc-kernel.h"

#define KERNEL_NAME_MAX 127

/* "system:event", each part of [A-Za-z0-9_*]. */
gboolean
tc_kernel_validate_event(const char *pattern, GError **error)
{
	const char *colon = strchr(pattern, ':');
	gsize len = strlen(pattern);

	for (const char *c = pattern; *c; c++)
		if (!g_ascii_isalnum(*c) && *c != '_' && *c != '*' && *c != ':')
			colon = NULL;
	if (colon && colon != pattern && colon[1] && !strchr(colon + 1, ':') &&
	    len <= 2 * KERNEL_NAME_MAX)
		return TRUE;
	g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
		    "Kernel events are named 'system:event' ([A-Za-z0-9_] and '*'), not '%.64s'",
		    pattern);
	return FALSE;
}

static gboolean
apply_event(TcSession *session, const char *pattern, gboolean enable, GError **error)
{
	g_auto(GStrv) parts = g_strsplit(pattern, ":", 2);

	if (!tc_kernel_event(session->id, parts[0], parts[1], enable, error)) {
		g_prefix_error(error, "Kernel events '%s': ", pattern);
		return FALSE;
	}
	return TRUE;
}

static gint
find_event(TcSession *session, const char *pattern)
{
	for (guint i = 0; i < session->kernel_events->len; i++)
		if (g_str_equal(g_ptr_array_index(session->kernel_events, i), pattern))
			return (gint)i;
	return -1;
}

gboolean
tc_session_kernel_event_locked(TcSession *session, const char *pattern, gboolean enable,
			       GError **error)
{
	gint index = find_event(session, pattern);

	if (session->snapshot) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
			    "Snapshot sessions do not record kernel events in this version");
		return FALSE;
	}
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
	if (session->kernel_instance && !apply_event(session, pattern, enable, error))
		return FALSE;
	if (enable)
		g_ptr_array_add(session->kernel_events, g_strdup(pattern));
	else
		g_ptr_array_remove_index(session->kernel_events, index);
	g_message("Session '%s': kernel events '%s' %s", session->name, pattern,
		  enable ? "enabled" : "disabled");
	return TRUE;
}

static gboolean
apply_probe(TcSession *session, const TcKernelProbe *probe, GError **error)
{
	struct passwd *pw = getpwuid(session->owner_uid);

	if (!tc_kernel_probe_add(session->id, probe->kind, probe->name, probe->location,
				 session->owner_uid, pw ? pw->pw_gid : (gid_t)-1, error)) {
		g_prefix_error(error, "Probe '%s' on '%s': ", probe->name, probe->location);
		return FALSE;
	}
	return TRUE;
}

/* The first start: the instance, its events and its probes. */
static gboolean
make_instance(TcSession *session, GError **error)
{
	if (!tc_kernel_instance_create(session->id, session->kernel_buffer_kb, error))
		return FALSE;
	session->kernel_instance = TRUE;
	for (guint i = 0; i < session->kernel_events->len; i++)
		if (!apply_event(session, g_ptr_array_index(session->kernel_events, i), TRUE,
				 error))
			return FALSE;
	for (guint i = 0; i < session->kernel_probes->len; i++)
		if (!apply_probe(session, g_ptr_array_index(session->kernel_probes, i), error))
			return FALSE;
	return TRUE;
}

gboolean
tc_session_kernel_probe_locked(TcSession *session, guint32 kind, const char *name,
			       const char *location, GError **error)
{
	TcKernelProbe *probe;

	for (guint i = 0; i < session->kernel_probes->len; i++) {
		probe = g_ptr_array_index(session->kernel_probes, i);
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
	if (session->kernel_instance && !apply_probe(session, probe, error)) {
		g_free(probe->name);
		g_free(probe->location);
		g_free(probe);
		return FALSE;
	}
	g_ptr_array_add(session->kernel_probes, probe);
	g_message("Session '%s': probe '%s' on '%s'", session->name, name, location);
	return TRUE;
}

/* The kernel trace's own uuid, derived from the session's. */
static void
kernel_uuid(const TcSession *session, guint8 uuid[16])
{
	memcpy(uuid, session->uuid, 16);
	uuid[15] ^= 0x4b;
}

gboolean
tc_session_kernel_start_locked(TcSession *session, TcConsumer *consumer, GError **error)
{
	TcKernelBuffers buffers = {0};
	g_autofree char *dir = NULL;
	guint8 uuid[16];
	gboolean ok;

	if (session->kernel_events->len == 0 && session->kernel_probes->len == 0)
		return TRUE;
	if (!session->kernel_instance && !make_instance(session, error))
		return FALSE;
	if (!tc_kernel_start(session->id, &buffers, error))
		return FALSE;
	/* A restart: the consumer still reads the buffers it was given. */
	ok = session->kernel_trace;
	if (!ok) {
		dir = g_build_filename(session->output_directory, "kernel", NULL);
		kernel_uuid(session, uuid);
		ok = tc_consumer_kernel_trace(consumer, session->id, dir, uuid,
					      session->clock_offset_ns,
					      (const int *)(gpointer)buffers.cpu_fds->data,
					      buffers.cpu_fds->len, buffers.formats_fd, error);
		session->kernel_trace = ok;
	}
	tc_kernel_buffers_clear(&buffers);
	return ok;
}

gboolean
tc_session_kernel_stop_locked(TcSession *session, GError **error)
{
	return !session->kernel_instance || tc_kernel_stop(session->id, error);
}

void
tc_session_kernel_destroyed_locked(TcSession *session)
{
	g_autoptr(GError) error = NULL;

	if (session->kernel_instance && !tc_kernel_instance_remove(session->id, &error))
		g_warning("Session '%s': cannot remove its tracefs instance: %s", session->name,
			  error->message);
	session->kernel_instance = FALSE;
}
