/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The state of libtracectl-ust: registered events, and what the service
 * told us about sessions, channels and their buffers.
 *
 * Two kinds of readers:
 * - tracepoints (tc-ust-emit.c) read event entries, bindings, channels and
 *   sessions without any lock, inside a read-side section (tc-ust-rcu.h).
 *   Every object they can reach is published with a release store after
 *   it is fully built. A removed object is unlinked from what tracepoints
 *   reach, put on the retired list, and freed (buffers unmapped, their
 *   descriptors closed) after a grace period: whatever a session made in
 *   the process goes with it (see the lifetimes below). The listener frees
 *   in batches (tc-ust-listener.c): once the service's commands have been
 *   quiet for a few milliseconds, or when enough objects wait.
 * - the listener thread and provider registration, which serialize on
 *   tc_ust_state.lock. The lock is never held across socket I/O, nor while
 *   waiting for a grace period, nor for anything but itself (the condition
 *   variable aside).
 *
 * Lifetimes. An entry lives as long as the process (indexes must keep
 * matching what the service knows), and so does an enumeration, added
 * with the first event that uses it and sent before it. A channel lives from CHANNEL_ADD (or
 * NOTIFIER_ADD) to CHANNEL_REMOVE or the end of the connection, and takes
 * with it its buffers' mappings and wake-up descriptors, and every binding
 * of an event to it with the binding's filter. A filter replaced by
 * EVENT_FILTER goes at once. A session lives while it has a channel or is
 * active. Channels with a context hold nothing more: the values come from
 * per-thread caches (tc-ust-context.h).
 */
#ifndef TC_UST_STATE_H
#define TC_UST_STATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "tc-rb.h"
#include "tc-ust-enum.h"
#include "tc-ust-filter.h"
#include "tracectl-abi.h"
#include "tracectl/tracepoint.h"

struct tc_ust_app_context_slot;

/* An object unlinked from what tracepoints reach, freed by free() after a
 * grace period. */
struct tc_ust_retired {
	struct tc_ust_retired *next;
	void (*free)(struct tc_ust_retired *retired);
};

struct tc_ust_session {
	struct tc_ust_retired retired;
	uint64_t handle;
	uint32_t active; /* atomic */
	struct tc_ust_session *next;
};

struct tc_ust_channel {
	struct tc_ust_retired retired;
	uint64_t handle;
	struct tc_ust_session *session;
	uint32_t stream_id;
	uint32_t nr_streams;
	uint32_t subbuf_size;
	uint32_t num_subbuf;
	uint32_t contexts;       /* TRACECTL_CONTEXT_* of every event */
	/* Its application contexts, recorded after the contexts above; set
	 * once, by CHANNEL_APP_CONTEXTS before its first stream
	 * (tc-ust-app-context.h). */
	uint32_t nr_app_contexts;
	struct tc_ust_app_context_slot *app_contexts;
	/* Its per-thread perf counters, recorded between the contexts above
	 * and the application contexts; set once, by CHANNEL_PERF_COUNTERS
	 * before its first stream (tc-ust-perf-channel.h). */
	uint32_t nr_perf_counters;
	struct tracectl_abi_perf_counter *perf_counters;
	uint32_t dead;		 /* atomic; set once at removal, never cleared */
	struct tc_rb **streams;  /* [nr_streams], each published once */
	/* A notifier (tracectl-abi.h) has no streams: its events count here. */
	struct tracectl_notifier_page *notifier;
	struct tc_ust_channel *next;
};

/* One event recorded in one channel under one id. */
struct tc_ust_binding {
	struct tc_ust_retired retired;
	struct tc_ust_channel *channel;
	uint32_t id;      /* atomic */
	uint32_t enabled; /* atomic */
	/* atomic; NULL records every event. A replaced one is retired. */
	struct tc_ust_filter *filter;
	/* The service's last filter for it was refused: it stays disabled
	 * rather than record what the filter would have left out. */
	bool filter_refused;
	struct tc_ust_binding *next; /* atomic */
};

struct tc_ust_entry {
	struct tracectl_ust_event *desc; /* NULL once its module is gone */
	/* desc's field_enums (version 3 modules), NULL when it has none */
	const struct tracectl_ust_enum *const *field_enums;
	struct tc_ust_binding *bindings; /* atomic list head */
	uint32_t index;
	uint32_t sent_batch; /* batch it was sent in on this connection, 0: not sent */
	struct tracectl_msg_event msg; /* its wire description, built once */
};

enum tc_ust_connection {
	TC_UST_CONNECTING,   /* the first connection attempt is under way */
	TC_UST_CONNECTED,    /* registered with the service */
	TC_UST_DISCONNECTED, /* no service; the listener retries */
};

struct tc_ust_state {
	pthread_mutex_t lock; /* covers everything below */
	pthread_cond_t changed; /* connection, nr_sent or done_batch changed */
	enum tc_ust_connection connection;
	int connection_fd; /* -1 when not connected */
	int wake_fd;       /* eventfd: wakes the listener to send a batch */
	bool batch_requested;
	uint32_t last_batch; /* never reset, so batches of old connections never match */
	uint32_t done_batch;
	uint32_t nr_sent; /* entries [0, nr_sent) were sent on this connection */
	struct tc_ust_entry **entries;
	uint32_t nr_entries;
	uint32_t capacity;
	/* Enumerations, by index; [0, nr_enums_sent) were sent on this
	 * connection. */
	struct tc_ust_enum **enums;
	uint32_t nr_enums;
	uint32_t enums_capacity;
	uint32_t nr_enums_sent;
	/* Application contexts [0, nr_app_contexts_sent) were sent on this
	 * connection (their table: tc-ust-app-context.h). */
	uint32_t nr_app_contexts_sent;
	struct tc_ust_session *sessions;
	struct tc_ust_channel *channels;
	struct tc_ust_retired *retired; /* to free after a grace period */
	uint32_t nr_retired;
};

extern struct tc_ust_state tc_ust_state;

/* Builds the wire description of desc. Returns false when the event breaks
 * the naming or log level rules of the ABI (the service would drop us for
 * it). */
bool tc_ust_event_describe(const struct tracectl_ust_event *desc, struct tracectl_msg_event *msg);

/* All of the following require tc_ust_state.lock. */

/* Adds desc, of a module of api_version, unless it is there already, with
 * the enumerations its fields use that are not there yet. Returns its
 * entry, or NULL when it cannot be registered (invalid, an enumeration
 * invalid or that a field cannot hold, table full, out of memory). */
struct tc_ust_entry *tc_ust_state_add_event(struct tracectl_ust_event *desc,
					    uint32_t api_version);
void tc_ust_state_remove_event(struct tracectl_ust_event *desc);
/* The connection ended: nothing is recorded any more, every channel is
 * dead, every event must be sent again. */
void tc_ust_state_reset_connection(void);
/* Service commands. Each returns 0 or a negative errno for the REPLY. */
int tc_ust_state_channel_add(const struct tracectl_msg_channel *msg);
/* The channel of handle, or NULL. */
struct tc_ust_channel *tc_ust_state_find_channel(uint64_t handle);
int tc_ust_state_channel_remove(const struct tracectl_msg_channel *msg);
/* fd: the buffer's memfd; wake_fd: the consumer's eventfd, kept (dup) when it
 * is a non-blocking eventfd, ignored otherwise. */
int tc_ust_state_stream_add(const struct tracectl_msg_stream *msg, int fd, int wake_fd);
int tc_ust_state_event_enable(const struct tracectl_msg_event_enable *msg, bool enable);
int tc_ust_state_event_filter(const struct tracectl_msg_event_filter *msg);
/* fd: the notifier's sealed memfd, mapped; the caller closes it. */
int tc_ust_state_notifier_add(const struct tracectl_msg_notifier *msg, int fd);
int tc_ust_state_session_set_active(uint64_t handle, bool active);
/* Takes the retired objects, for tc_ust_state_free_retired(). */
struct tc_ust_retired *tc_ust_state_take_retired(void);

/* Waits for a grace period, then frees retired (a list, maybe empty). Needs
 * no lock; callers drop it first, so that provider registrations never wait
 * for a grace period (a fork child, alone, may keep it). Never from a
 * tracepoint. */
void tc_ust_state_free_retired(struct tc_ust_retired *retired);

#endif /* TC_UST_STATE_H */
