/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-consumer-abi.h"
#include "tracectl-abi.h"

/*
 * A channel of a session's user-space domain: its geometry, the events
 * enabled in it and the buffers the consumer made for each traced uid.
 * A channel belongs to its session and lives as long as it; every field
 * marked [S] is under the session's lock (tc-session.h), the others are
 * fixed once the channel exists.
 */

typedef struct _TcSession TcSession;
typedef struct _TcChannel TcChannel;

#define TC_DEFAULT_CHANNEL "channel0"
#define TC_DEFAULT_SUBBUF_SIZE (512u * 1024u) /* as LTTng-UST */
#define TC_DEFAULT_NUM_SUBBUF 4u
#define TC_DEFAULT_READ_TIMER_US 100000u
#define TC_DEFAULT_MONITOR_TIMER_US 1000000u

/* The most perf:thread: counters a channel records. */
#define TC_CHANNEL_PERF_COUNTERS_MAX 16u

/* What a channel is made of, fixed once it exists: the geometry that
 * the consumer builds the buffers from (timers 0: off; read_timer_us
 * is 0 in snapshot sessions). */
typedef struct tc_channel_geometry TcChannelConfig;

struct _TcChannel {
	TcSession *session;
	char *name;
	guint64 handle;	   /* unique in the service, names the channel to apps */
	guint32 stream_id; /* CTF stream class id, the index in the session */
	TcChannelConfig config;
	/* [S] TRACECTL_CONTEXT_* bits, which tracectl's own applications
	 * record too (their messages and stream class). */
	guint32 contexts;
	/* [S] struct tc_perf_counter, perf:thread: contexts in the order
	 * added, each once, at most TC_CHANNEL_PERF_COUNTERS_MAX, recorded
	 * after the bits above: tracectl's own applications (version 6 on)
	 * read them with rdpmc where they can (tc-ust-perf.h), LTTng-UST's
	 * as LTTng-UST does. */
	GArray *perf_counters;
	/* [S] char *, the application contexts ("provider:name" of
	 * "$app.provider:name") in the order added, each once, at most
	 * TRACECTL_ABI_CHANNEL_APP_CONTEXTS_MAX; tracectl's own applications
	 * record them after the contexts above (tracectl-abi.h). */
	GPtrArray *app_contexts;
	GPtrArray *patterns; /* [S] char *, enabled event patterns */
	/* [S] disable-channel: its events are disabled in every application
	 * while its patterns stay, for enable-channel to bring them back. */
	gboolean is_disabled;
	/* [S] TcEventRule *, one per EnableEvent call, in the order of
	 * patterns: rules[i]->pattern is patterns[i]. */
	GPtrArray *rules;
	GHashTable *event_ids; /* [S] tc_app_event_key() -> GUINT_TO_POINTER(id + 1) */
	guint32 next_event_id; /* [S] */
	/* uid -> TcChannelBuffers *: the per-CPU buffers of each traced uid,
	 * created by the consumer (an application only ever gets those of
	 * its own uid). [S] */
	GHashTable *buffers;
};

typedef struct {
	int *fds; /* per CPU: the memfd, then the consumer's wake-up eventfd */
	guint nr_streams;
	guint64 shm_size;
} TcChannelBuffers;

/* [S] A new channel of session, stream stream_id of its trace, with a
 * handle no other channel of the service has; the caller checked the name
 * and the settings and adds it to the session (tc_session_add_channel_locked()). */
TcChannel *tc_channel_new(TcSession *session, const char *name, guint32 stream_id,
			  const TcChannelConfig *config);
/* Frees channel and closes its buffers' descriptors; the session's last
 * reference is going. */
void tc_channel_free(TcChannel *channel);
