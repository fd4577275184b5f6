/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

#include "tc-authority.h"
#include "tc-channel.h"
#include "tc-event-rule.h"
#include "tc-session.h"

#define TC_DBUS_NAME "org.tracectl.Tracing1"
#define TC_DBUS_MANAGER_PATH "/org/tracectl/Tracing1"
#define TC_DBUS_SESSION_PATH_PREFIX "/org/tracectl/Tracing1/session/"

/*
 * One D-Bus method call on its way: parsed arguments, then authorization
 * (tc-authority.c) on the main loop, then optionally work in a worker
 * thread, then the reply on the main loop. Handlers only parse, fill a
 * request and submit it.
 */
typedef struct _TcRequest TcRequest;
typedef gboolean (*TcRequestWorkFunc)(TcRequest *request, GError **error);
typedef void (*TcRequestDoneFunc)(TcRequest *request);

struct _TcRequest {
	GDBusMethodInvocation *invocation;
	TcSession *session; /* a reference, or NULL */
	TcCaller caller;    /* set once authorized */
	char *name;
	char *channel;
	char *pattern;
	char *directory;
	TcChannelConfig config;
	TcBufferScheme buffers; /* EnableChannel "ust": its "buffers" option */
	guint32 contexts;    /* TRACECTL_CONTEXT_* */
	gboolean snapshot;   /* CreateSessionWithOptions */
	/* CreateSessionWithOptions: where to stream, or NULL for local */
	struct tc_consumer_relay_output *relay;
	gboolean syscalls;   /* ListKernelEvents: system calls, not tracepoints */
	guint32 probe_kind;  /* AddKernelProbe: TC_KERNEL_PROBE_* */
	char *location;      /* AddKernelProbe: where the probe goes */
	/* SetRotationSchedule: the parts given (0: not given);
	 * UnsetRotationSchedule: non-zero for the parts to turn off. */
	guint64 rotation_timer_us;
	guint64 rotation_size_bytes;
	char *output;        /* RecordSnapshotWithOptions: an output or URL */
	guint64 max_bytes;   /* RecordSnapshotWithOptions: 0 for no bound */
	/* Reply as soon as authorized (and authorized succeeded), before the
	 * work; the work's failure is then only logged, and done must not
	 * reply. The "no-wait" option of StopWithOptions and destroy. */
	gboolean no_wait;
	TcEventRule *rule;   /* EnableEventWithOptions */
	char *kernel_filter; /* EnableEventWithOptions, kernel: tracefs syntax */
	char *unit;          /* TrackUnit, UntrackUnit: a checked unit name */
	GVariant *result;    /* set by work: the reply when done is NULL */
	/* What a handler hands its work beyond the fields above, freed with
	 * the request by data_free. */
	gpointer data;
	GDestroyNotify data_free;
	/* Main loop, once authorized, before work: what depends on the caller. */
	TcRequestWorkFunc authorized;
	TcRequestWorkFunc work; /* worker thread; NULL for none */
	TcRequestDoneFunc done; /* main loop, after success; NULL: empty reply */
	GError *work_error;     /* set by work */
	/* When the call arrived, was authorized, was taken by a worker and
	 * was done there (monotonic, us; 0: not reached), for the log of a
	 * slow call. */
	gint64 arrived_us, authorized_us, started_us, worked_us;
};

/* The threads that run the work of requests. */
void tc_dbus_request_pool_start(void);
/* Waits for the operations in progress. */
void tc_dbus_request_pool_stop(void);

TcRequest *tc_dbus_request_new(GDBusMethodInvocation *invocation, TcSession *session);
void tc_dbus_request_free(TcRequest *request);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TcRequest, tc_dbus_request_free)

/* Authorizes, runs and answers the request; takes ownership of it. */
void tc_dbus_request_submit(TcRequest *request, const char *action_id, uid_t target_uid,
			    TcAuthorityFlags flags);
/* The same, with one more polkit detail key=value for .rules to decide on
 * (the "unit" of TrackUnit), named in the refusal. */
/* Submits request under manage-sessions for session's owner: what every
 * method on a session's object asks. */
void tc_dbus_request_submit_manage(TcRequest *request, TcSession *session);

/* Answers invocation with error (taken); TRUE, as a handler returns. */
gboolean tc_dbus_request_refuse(GDBusMethodInvocation *invocation, GError *error);

/* Sets error to the refusal of an option method does not know. */
void tc_dbus_request_set_unknown_option(const char *method, const char *key, GVariant *value,
					GError **error);

void tc_dbus_request_submit_detailed(TcRequest *request, const char *action_id, uid_t target_uid,
				     TcAuthorityFlags flags, const char *key, const char *value);
/* Replies with an error and frees the request. */
void tc_dbus_request_fail(TcRequest *request, GError *error);
/* Answers request with value (taken, floating or not), and has a
 * large answer's memory given back once it is sent (tc-memory-trim.h).
 * Main loop, from a done callback: the request is freed after it. */
void tc_dbus_request_return(TcRequest *request, GVariant *value);
