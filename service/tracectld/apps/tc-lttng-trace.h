/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <lttng/ust-ctl.h>
#include <sys/types.h>

#include "tc-consumer-lttng.h"
#include "tc-lttng-app.h"
#include "tc-session.h"
#include "tc-user-limits.h"

/*
 * The LTTng-UST trace of one tracing session for the applications of one
 * uid (LTTng's per-UID buffers): one consumer session of the session
 * owner's consumer writing <output>/lttng-ust/uid/<uid>/64-bit, the
 * buffers of each of the session's channels, shared by every 64-bit
 * LTTng-UST application of that uid, each channel's stream class (declared
 * by the service when the trace is made), and the registry of what those
 * applications described on their notify sockets (the events and their
 * ids; each channel's context, checked against its stream class), from
 * which the metadata is written.
 * With per-PID buffers, one application has the trace to itself, in
 * <output>/lttng-ust/pid/<procname>-<pid>-<date>-<time>, until it goes
 * (tc_lttng_trace_forget_app()).
 *
 * Traces are created under their session's op_lock
 * (tc_lttng_trace_ensure_locked()), by the session's start or by an
 * application's registration, and found without it by the notify
 * thread through the bindings (application id, the application's
 * session handle). A trace's lock [T] covers its registry and is held
 * across the metadata request to the consumer, so that the metadata is
 * appended in the order ids are given; it nests below op_lock and an
 * application's cmd_lock, above nothing of the registry's.
 */

/* One channel of the session in the trace, as it was when the trace was
 * made: LTTng-UST takes no channel into a session it started (nor does
 * lttng-sessiond give it one), so a trace's channels never change. */
typedef struct {
	char *name;
	guint32 chan_id; /* its CTF stream class: its index in the trace */
	/* TRACECTL_CONTEXT_* of the channel when
	 * the trace was made, then its perf counters (struct
	 * tc_perf_counter, a copy): every application of the trace gets
	 * these, in one order, since they share the stream class the
	 * service declares from them. */
	guint32 contexts;
	GArray *perf_counters;
	TcConsumerLttngChannel *buffers; /* set at creation, then read only */
	/* Its stream class's TSDL, declared by the service when the trace
	 * was made, from the contexts asked (tc-lttng-context.h), before
	 * the consumer made its buffers: every packet is described even when
	 * no application registers the channel. An application's
	 * registration must describe the same; then read only. */
	char *stream_class;
	guint32 next_event_id; /* [T] */
	/* The traces' table lock: application id -> its handle of the
	 * channel + 1. */
	GHashTable *handles;
} TcLttngTraceChannel;

typedef struct {
	gint refcount;
	guint64 session_id;
	uid_t owner; /* the session's: whose consumer writes it */
	uid_t uid;   /* whose applications write into it */
	/* Per-PID buffers: the only application that writes into it; 0 for
	 * a per-uid trace. */
	guint64 app_id;
	pid_t pid;
	/* Its directory under the session's output (a snapshot's too). */
	char *path;
	/* Written to a relay: each piece of its metadata starts with the CTF
	 * signature (live viewers read each on its own). Set at creation. */
	gboolean streamed;
	guint64 consumer_id;
	guint8 uuid[16];
	GPtrArray *channels; /* TcLttngTraceChannel *, fixed at creation */
	GMutex lock;	     /* [T] */
	/* [T] TcLttngTraceEnum *: the enumerations described, whose id is
	 * their index; their entries are checked when an event uses them. */
	GPtrArray *enums;
	/* [T] "chan_id:len(name):name\nsignature" -> id + 1 */
	GHashTable *event_ids;
	TcUserCharge charge; /* [T] descriptions and metadata, the uid's */
	/* The traces' table lock: "app_id\nchan_id\nrule key" -> GArray of
	 * the application's event rule handles of that rule. */
	GHashTable *event_handles;
} TcLttngTrace;

TcLttngTrace *tc_lttng_trace_ref(TcLttngTrace *trace);
void tc_lttng_trace_unref(TcLttngTrace *trace);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TcLttngTrace, tc_lttng_trace_unref)

/* The trace of session that app records into (a new reference): its
 * uid's, or its own with per-PID buffers; created with its consumer
 * session, preamble and channels if needed. session's op_lock held. */
TcLttngTrace *tc_lttng_trace_ensure_locked(TcSession *session, const TcLttngApp *app,
					   GError **error);
/* New references to the traces of session session_id. */
GPtrArray *tc_lttng_trace_list(guint64 session_id);
/* Unlinks the traces of session session_id and returns them (new
 * references), for the caller to destroy their consumer sessions. */
GPtrArray *tc_lttng_trace_forget(guint64 session_id);
/* Per-PID traces of the application app_id, of every session (new
 * references). */
GPtrArray *tc_lttng_trace_list_app(guint64 app_id);
/* Unlinks trace from its session's, if it still is (a destroy of the
 * session may have come first): TRUE when this call unlinked it, and
 * the caller then destroys its consumer session. */
gboolean tc_lttng_trace_unlink(TcLttngTrace *trace);

/* Binds the application's session handle to trace: its notify messages
 * naming that handle describe the trace's events. FALSE when the
 * application is bound to the trace already (the session was applied). */
gboolean tc_lttng_trace_bind(TcLttngTrace *trace, guint64 app_id, int session_handle);
/* Whether the application app_id was bound to trace. */
gboolean tc_lttng_trace_is_bound(TcLttngTrace *trace, guint64 app_id);
/* The trace bound to (app_id, session_handle), a new reference, or NULL. */
TcLttngTrace *tc_lttng_trace_find_bound(guint64 app_id, int session_handle);
/* The trace's channel of that name, or NULL (made after the trace). */
const TcLttngTraceChannel *tc_lttng_trace_find_channel(TcLttngTrace *trace, const char *name);
/* The application app_id's handle of channel (as
 * lttng_ust_ctl_send_channel_to_ust() gave it), kept for the events
 * enabled later and for its notify messages naming it;
 * tc_lttng_trace_channel_handle() returns it, or -1. */
void tc_lttng_trace_set_channel_handle(TcLttngTrace *trace, const TcLttngTraceChannel *channel,
				       guint64 app_id, int handle);
int tc_lttng_trace_channel_handle(TcLttngTrace *trace, const TcLttngTraceChannel *channel,
				  guint64 app_id);
/* The application's handle of an event rule (key: tc_event_rule_key())
 * in channel, kept so that the rule can be disabled;
 * tc_lttng_trace_take_event_handles() returns and forgets those of a
 * rule (an empty array when none). */
void tc_lttng_trace_add_event_handle(TcLttngTrace *trace, const TcLttngTraceChannel *channel,
				     guint64 app_id, const char *key, int handle);
GArray *tc_lttng_trace_take_event_handles(TcLttngTrace *trace, const TcLttngTraceChannel *channel,
					  guint64 app_id, const char *key);
/* The session handle the application app_id has for trace, or -1. */
int tc_lttng_trace_handle_of(TcLttngTrace *trace, guint64 app_id);
/* Drops the application's binding to trace and its kept handles. */
void tc_lttng_trace_unbind(TcLttngTrace *trace, guint64 app_id);
/* Drops every binding to trace (its session is destroyed). */
void tc_lttng_trace_unbind_trace(TcLttngTrace *trace);
/* Drops the bindings of an application that went away. */
void tc_lttng_trace_unbind_app(guint64 app_id);

/* The application app_id's channel of channel_handle registers its
 * context, which must be the one the service declared for the channel's
 * stream class (FALSE with error, to be refused, when it is not).
 * *chan_id and *header_type get what to reply. */
gboolean tc_lttng_trace_register_channel(TcLttngTrace *trace, guint64 app_id, int channel_handle,
					 const struct lttng_ust_ctl_field *fields,
					 gsize nr_fields, guint32 *chan_id,
					 enum lttng_ust_ctl_channel_header *header_type,
					 GError **error);
/* An enumeration: the id of its name and entries (given on its first
 * registration), charged to the trace's uid; entries taken. */
gboolean tc_lttng_trace_register_enum(TcLttngTrace *trace, const char *name,
				      struct lttng_ust_ctl_enum_entry *entries, gsize nr_entries,
				      guint64 *id, GError **error);
/* An event: the id of its name and signature, given and described in
 * the metadata on its first registration, charged to the trace's uid. */
gboolean tc_lttng_trace_register_event(TcLttngTrace *trace, guint64 app_id, int channel_handle,
				       const char *name,
				       const char *signature, int loglevel,
				       const struct lttng_ust_ctl_field *fields, gsize nr_fields,
				       const char *model_emf_uri, guint32 *id, GError **error);
