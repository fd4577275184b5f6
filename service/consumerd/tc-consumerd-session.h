/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Sessions, channels and streams of one tracectl-consumerd.
 *
 * A session is a trace directory with its metadata file. A channel is one
 * ring buffer per CPU, each in its own sealed memfd that the service hands
 * to the applications; a stream is one of those buffers with its reader
 * and its stream file "<channel>_<cpu>" in the trace directory.
 *
 * A session, and everything it holds, belongs to its session thread
 * (tc-consumerd-session-thread.h): its registry holds that session only,
 * and no other thread reads or writes any of it, so there is no lock
 * here. What other threads need of a session (whether it is gone, its
 * relay's status) the thread publishes under its thread's lock; what the
 * session's writer thread touches is listed in tc-consumerd-writer.h.
 * The shared memory is hostile (any application of the user can write
 * anything into it); only tc-rb's reader touches it, and every loop over
 * it is bounded by a count or a deadline.
 */
#ifndef TC_CONSUMERD_SESSION_H
#define TC_CONSUMERD_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tc-consumer-abi.h"
#include "tc-consumerd-channel.h"
#include "tc-consumerd-kernel.h"
#include "tc-consumerd-kernel-own.h"
#include "tc-consumerd-lttng.h"
#include "tc-consumerd-relay.h"

struct tc_consumerd_session {
	struct tc_consumerd_session *next;
	uint64_t session_id;
	bool snapshot; /* no files until a snapshot; metadata in a memfd */
	int dir_fd;    /* -1 for snapshot sessions */
	int metadata_fd;
	uint64_t metadata_size;
	struct tc_consumerd_channel *channels;
	struct tc_consumerd_kernel_trace *kernel; /* or NULL */
	struct tc_consumerd_own_trace *own;	  /* or NULL */
	/* LTTng-UST applications' channels, drained when a writer wakes the
	 * session thread (lttng_woken: a stream's wait fd was readable) and
	 * on each channel's read timer (tc-consumerd-timer.c). */
	struct tc_consumerd_lttng_channel *lttng_channels;
	bool lttng_woken;
	uint64_t kernel_next_read;
	/* Streaming: the relay connection (NULL: local files), the metadata
	 * stream on it, and when the live timer runs next. trace_dir is then
	 * the trace's path relative to the session's directory on the relay. */
	struct tc_consumerd_relay *relay;
	struct tc_consumerd_relay_stream relay_metadata;
	/* Consumer clock by which a flush gives up on a slow relay even
	 * within CONSUMERD_RELAY_FLUSH_BUDGET_MS; 0: the budget only. */
	uint64_t relay_flush_deadline;
	uint64_t relay_next_tick;
	uint64_t relay_next_poll; /* live: the look for new events between ticks */
	bool kernel_busy;  /* drained every few ms, not polled */
	bool kernel_woken; /* the next drain is for a wake-up */
	char trace_dir[];
};

struct tc_consumerd_registry {
	struct tc_consumerd_session *sessions;
};

/* Packet counts of a session, summed over its streams. */
struct tc_consumerd_totals {
	uint64_t packets_written;
	uint64_t packets_corrupted;
	uint64_t packets_lost;
};

struct tc_consumerd_session *tc_consumerd_session_find(const struct tc_consumerd_registry *registry,
						       uint64_t session_id);
struct tc_consumerd_channel *
tc_consumerd_session_find_channel(const struct tc_consumerd_session *session, uint64_t channel_id);
struct tc_consumerd_channel *
tc_consumerd_session_find_stream_id(const struct tc_consumerd_session *session, uint32_t stream_id);

/*
 * Creates the session's directory (see tc_consumerd_output_open_dir()) and its
 * empty metadata file, and adds the session to the registry. With
 * TC_CONSUMER_SESSION_RELAY in flags, connects to the relay of relay
 * instead (tc_consumerd_relay_open(), whose message goes into error).
 * Returns 0, -EEXIST when session_id is taken, -ENOMEM, or an error of
 * tc_consumerd_output_open_dir() / tc_consumerd_output_create_file() /
 * tc_consumerd_relay_open().
 */
int tc_consumerd_session_create(struct tc_consumerd_registry *registry, uint64_t session_id,
				const char *trace_dir, uint32_t flags,
				const struct tc_consumer_relay_output *relay, char *error,
				size_t error_size);

/*
 * Creates a channel in session: per CPU a sealed memfd laid out by
 * tc_rb_init(), mapped, with its reader and its stream file. Nothing is
 * left behind on failure (memfds closed, stream files unlinked).
 * On success *channel is the new channel, owned by the session.
 * Returns 0, -ENOMEM, or the -errno of the failing step (memfd_create,
 * ftruncate, fcntl sealing, mmap, stream file creation).
 */
int tc_consumerd_session_create_channel(struct tc_consumerd_session *session,
					const struct tc_consumerd_channel_spec *spec,
					struct tc_consumerd_channel **channel);

/* Appends metadata text. Returns 0 or an error of tc_consumerd_output_append(). */
int tc_consumerd_session_append_metadata(struct tc_consumerd_session *session, const void *text,
					 size_t len);

/*
 * Closes the open sub-buffer of every stream of the session, writes out
 * every complete packet, waiting up to CONSUMERD_FLUSH_WAIT_MS for writers
 * that reserved space before the flush and have not committed yet, then
 * syncs the session's files to disk.
 * Returns 0 or the first -errno of fdatasync(); packets that could not be
 * written are counted, not reported here.
 */
int tc_consumerd_session_flush(struct tc_consumerd_session *session);

/* Flushes (as tc_consumerd_session_flush()), closes and frees the session
 * after removing it from the registry. When totals is not NULL it receives
 * the session's final counts. Returns the flush's result. */
int tc_consumerd_session_destroy(struct tc_consumerd_registry *registry,
				 struct tc_consumerd_session *session,
				 struct tc_consumerd_totals *totals);

/* Writes out every complete packet of every session without waiting. */
void tc_consumerd_session_drain_all(struct tc_consumerd_registry *registry);

/* Flushes and destroys every session (the service went away), giving a
 * slow relay until deadline at most (consumer clock; 0: each flush its
 * CONSUMERD_RELAY_FLUSH_BUDGET_MS). */
void tc_consumerd_session_destroy_all(struct tc_consumerd_registry *registry, uint64_t deadline);

void tc_consumerd_session_totals(const struct tc_consumerd_session *session,
				 struct tc_consumerd_totals *totals);

#define CONSUMERD_FLUSH_WAIT_MS 200

/* Adds an LTTng-UST channel the session then drains, flushes and frees. */
void tc_consumerd_session_add_lttng_channel(struct tc_consumerd_session *session,
					    struct tc_consumerd_lttng_channel *channel);
/* Drains the LTTng-UST channels of every session whose writers woke the
 * session thread. */
void tc_consumerd_session_drain_woken_lttng(struct tc_consumerd_registry *registry);

#endif /* TC_CONSUMERD_SESSION_H */
