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
#ifndef TC_CONSUMER_SESSION_H
#define TC_CONSUMER_SESSION_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tc-consumer-abi.h"
#include "tc-consumerd-affinity.h"
#include "tc-consumerd-kernel.h"
#include "tc-consumerd-kernel-own.h"
#include "tc-consumerd-layout.h"
#include "tc-consumerd-log.h"
#include "tc-consumerd-output.h"
#include "tc-consumerd-relay.h"
#include "tc-rb.h"

struct tc_consumerd_stream {
	struct tc_rb_reader reader; /* its rb.shm is the mapping */
	uint64_t session_id;        /* for logs */
	const char *channel_name;   /* for logs, the channel's name */
	void *mapping;
	uint64_t mapping_size;
	int memfd;   /* sealed against shrinking; -1 once sent or closed */
	int wake_fd; /* eventfd the writers signal at sub-buffer switches */
	int file_fd; /* the stream file; -1 once closed */
	/* Or, for a session streaming to a relay: the session's connection
	 * and this stream as the relay knows it (no file then). */
	struct tc_consumerd_relay *relay_conn;
	struct tc_consumerd_relay_stream relay;
	uint64_t file_size;
	struct tc_consumerd_write_behind write_behind;
	bool direct; /* file_fd has O_DIRECT: no page cache, no write-behind */
	/* Packets go to the writer thread: set at open for direct streams,
	 * whose writes wait for the disk; small packets through the page
	 * cache are written at once (a hand-over would cost more). */
	bool write_queued;
	/* Discard mode and written by the consumer's uid only
	 * (TC_CONSUMER_CHANNEL_OWNER_WRITERS): packets are checked and
	 * written in place, unless they go to the writer thread. */
	bool in_place;
	uint32_t cpu;
	uint64_t packets_written;
	uint64_t packets_lost; /* valid packets that could not be written */
	uint64_t flush_target; /* read count to reach before a flush is done */
	/* Events discarded before the current trace chunk began: taken off
	 * the count of the packets written into it, so that each chunk
	 * reports its own losses only (a first packet with a count would read
	 * as losses before it). 0 until a rotation. */
	uint64_t discarded_base;
	const struct tc_consumerd_layouts *layouts; /* the channel's */
	uint8_t *packet; /* the channel's scratch copy, once drained */
	uint64_t unknown_event_since; /* a packet waits for a layout since then */
	uint64_t lost_when_waiting;   /* the writers' losses when it began */
	struct tc_consumerd_ratelimit corrupt_limit;
	struct tc_consumerd_ratelimit write_limit;
	struct tc_consumerd_ratelimit close_limit;
};

/* Periodic work of a channel; 0 intervals are off. */
struct tc_consumerd_timers {
	uint64_t switch_ns, read_ns, monitor_ns; /* intervals */
	uint64_t next_switch, next_read, next_monitor; /* deadlines, 0: not armed */
};

struct tc_consumerd_channel {
	struct tc_consumerd_channel *next;
	uint64_t channel_id;
	uint32_t stream_id;
	uint32_t nr_cpus;
	uint32_t subbuf_size;
	uint32_t num_subbuf;
	uint32_t flags; /* TC_CONSUMER_CHANNEL_* */
	struct tc_consumerd_timers timers;
	uint64_t bytes_used;      /* at the last monitor sample, all CPUs */
	uint64_t bytes_used_peak; /* highest sample */
	struct tc_consumerd_layouts layouts;
	char name[256];
	uint8_t *packet; /* subbuf_size bytes: the reader's private copy */
	struct tc_consumerd_stream streams[];
};

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

/* Geometry and identity of a new channel, already checked for sanity by
 * the caller (sizes via tc_rb_shm_size(), nr_cpus range, name). */
struct tc_consumerd_channel_spec {
	uint64_t channel_id;
	uint32_t stream_id;
	uint32_t nr_cpus;
	struct tc_channel_geometry geometry;
	uint32_t flags; /* TC_CONSUMER_CHANNEL_* */
	uint8_t uuid[16];
	const char *name;
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

/* Whether a stream writes somewhere: its file, or its relay. */
static inline bool
tc_consumerd_stream_has_output(const struct tc_consumerd_stream *stream)
{
	return stream->file_fd >= 0 || stream->relay_conn != NULL;
}

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

/*
 * Runs the channel timers that are due at now (read: drain; switch: close
 * partly filled sub-buffers, then drain; monitor: sample buffer usage)
 * and returns the next deadline over all channels, 0 when none is armed.
 * In tc-consumerd-timer.c.
 */
uint64_t tc_consumerd_timer_run(struct tc_consumerd_registry *registry, uint64_t now);

/* Statistics of a channel, summed over its CPUs, into the reply fields. */
struct tc_consumerd_channel_stats {
	uint64_t buffer_bytes;
	uint64_t bytes_used;
	uint64_t bytes_used_peak;
	uint64_t events_discarded;
	uint64_t packets_written;
};
void tc_consumerd_channel_stats(const struct tc_consumerd_channel *channel,
				struct tc_consumerd_channel_stats *stats);

/*
 * Writes the session's metadata and every complete packet its buffers
 * hold into dir (created 0700, must not exist or be empty), without
 * consuming anything: the newest packets of each stream, at most
 * max_stream_bytes of them (0: all). *packets receives the number written.
 * Returns 0 or -errno. In tc-consumerd-snapshot.c.
 */
int tc_consumerd_snapshot_session(struct tc_consumerd_session *session, const char *dir,
				  uint64_t max_stream_bytes, uint64_t *packets);

/*
 * The same snapshot sent to the LTTng relay daemon of out instead
 * (TC_CONSUMER_SNAPSHOT_RELAY): a relay session of its own, with the
 * metadata and the streams under trace_path, closed when all is sent.
 * Returns 0 or -errno with a message naming the relay in error. In
 * tc-consumerd-snapshot.c.
 */
int tc_consumerd_snapshot_relay(struct tc_consumerd_session *session,
				const struct tc_consumer_relay_output *out, const char *trace_path,
				uint64_t max_stream_bytes, uint64_t *packets, char *error,
				size_t error_size);

/*
 * Rotation (TC_CONSUMER_ROTATE): flushes the session, moves its trace
 * directories from under from_root to the same place under to_root and
 * goes on in new ones holding a copy of the metadata. *archived_bytes
 * receives the size of the chunk that was closed. Not for snapshot
 * sessions (-EINVAL). Returns 0 or -errno; after a failure past the
 * renames, nothing more is written into the archive, and the streams
 * whose new files could not be made write nothing (their packets wait in
 * the buffers). In tc-consumerd-rotate.c.
 */
int tc_consumerd_rotate_session(struct tc_consumerd_session *session, const char *from_root,
				const char *to_root, uint64_t *archived_bytes);
/*
 * Rotation or clear of a session streamed to a relay
 * (TC_CONSUMER_RELAY_ROTATE): flushes the session when beginning a
 * chunk, then tc_consumerd_relay_rotate() with steps (CONSUMERD_RELAY_CHUNK_*)
 * and command (enum
 * tc_relay_chunk_close_command). path receives the closed chunk's path on
 * the relay, *archived_bytes the packet bytes it held. Returns 0 or
 * -errno. In tc-consumerd-rotate.c.
 */
int tc_consumerd_rotate_relay(struct tc_consumerd_session *session, uint32_t command,
			      uint32_t steps, int64_t timestamp, char *path, size_t path_size,
			      uint64_t *archived_bytes);
/* Clear (TC_CONSUMER_CLEAR): drops what the session recorded so far.
 * Returns 0 or -errno. */
int tc_consumerd_rotate_clear(struct tc_consumerd_session *session);
/* Bytes of packets written into the current chunk, user space and kernel
 * (the metadata, copied into every chunk, is left out: it would make a
 * small size rotate chunks that hold no event). */
uint64_t tc_consumerd_rotate_chunk_bytes(const struct tc_consumerd_session *session);

/* What a polled descriptor wakes: a stream (its eventfd), or the kernel
 * trace of a session (one of its trace_pipe_raw descriptors). */
struct tc_consumerd_wake_source {
	struct tc_consumerd_stream *stream;
	struct tc_consumerd_session *kernel_session;
};

/*
 * The descriptors to wake the consumer, for ppoll(): the eventfds of every
 * stream that writes a file, and the kernel buffers of every session
 * tracing the kernel. Fills up to max entries of pfds (events POLLIN) and
 * of sources, what each one wakes. Returns how many it filled. In
 * tc-consumerd-wake.c.
 */
size_t tc_consumerd_wake_fds(struct tc_consumerd_registry *registry, struct pollfd *pfds,
			     struct tc_consumerd_wake_source *sources, size_t max);
/*
 * The descriptors of sources with revents set (pfds and sources as filled
 * by tc_consumerd_wake_fds(), count entries) are readable: a
 * stream's eventfd is emptied and the stream written out; a kernel trace
 * is drained at the next timer pass, once however many of its CPUs woke.
 */
void tc_consumerd_wake_sources_woken(const struct tc_consumerd_wake_source *sources,
				     const struct pollfd *pfds, size_t count,
				     struct tc_consumerd_affinity *affinity, uint64_t now);

/* Flushes and destroys every session (the service went away), giving a
 * slow relay until deadline at most (consumer clock; 0: each flush its
 * CONSUMERD_RELAY_FLUSH_BUDGET_MS). */
void tc_consumerd_session_destroy_all(struct tc_consumerd_registry *registry, uint64_t deadline);

void tc_consumerd_session_totals(const struct tc_consumerd_session *session,
				 struct tc_consumerd_totals *totals);

#define CONSUMERD_FLUSH_WAIT_MS 200

#endif /* TC_CONSUMER_SESSION_H */
