/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One stream: a ring buffer in a sealed memfd, its reader, and its stream
 * file. Internal to the consumer's session code.
 */
#ifndef TC_CONSUMERD_STREAM_H
#define TC_CONSUMERD_STREAM_H

#include <stdbool.h>
#include <stdint.h>

#include "tc-consumerd-channel-spec.h"
#include "tc-consumerd-layout.h"
#include "tc-consumerd-log.h"
#include "tc-consumerd-output.h"
#include "tc-consumerd-relay.h"
#include "tc-rb.h"

struct tc_consumerd_affinity;

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

/* Whether a stream writes somewhere: its file, or its relay. */
static inline bool
tc_consumerd_stream_has_output(const struct tc_consumerd_stream *stream)
{
	return stream->file_fd >= 0 || stream->relay_conn != NULL;
}

/* How long a packet waits for the layout of an event class it holds before
 * it is dropped as corrupt (the service sends layouts before it answers
 * the application's registration, EVENTS_DONE, but the application's
 * threads already running, or a provider loaded later, can write a new
 * event's first records before they arrive). While it waits, its
 * sub-buffer is not released: once the writers lose events for it, it
 * waits CONSUMERD_LAYOUT_WAIT_LOSING_NS at most, so that an application
 * that scribbled something like an unknown event over its buffer does not
 * lose seconds of events behind it. */
#define CONSUMERD_LAYOUT_WAIT_NS 2000000000ull
#define CONSUMERD_LAYOUT_WAIT_LOSING_NS 50000000ull

/*
 * Where the streams of a session go, all that a stream needs of its
 * session: the stream and channel headers sit below the session's, which
 * includes them, so they name the session's fields here instead of the
 * session itself.
 */
struct tc_consumerd_stream_place {
	uint64_t session_id;
	int dir_fd;			  /* -1 for snapshot sessions: no files */
	struct tc_consumerd_relay *relay; /* or NULL: local files */
	const char *trace_dir;		  /* relative to the relay's session */
};

/*
 * Sets up stream for CPU cpu of the channel described by spec, placed by place:
 * a memfd "tracectl-<session>-<channel>-<cpu>" of tc_rb_shm_size() bytes,
 * sealed with F_SEAL_SHRINK | F_SEAL_SEAL so that no application can
 * truncate it under the consumer's mapping (which would raise SIGBUS), laid
 * out with tc_rb_init(), mapped, read by a tc_rb_reader, and written to the
 * new stream file "<name>_<cpu>" (mode 0600).
 *
 * channel_name must outlive the stream. On failure nothing is left open
 * and no file is left behind.
 * Returns 0 or -errno: memfd_create, ftruncate, pwrite (-ENOMEM, -ENOSPC:
 * no memory for the pages), F_ADD_SEALS, mmap, -EINVAL
 * from tc_rb_init() / tc_rb_reader_init(), -ENAMETOOLONG, or the stream
 * file's creation error (-EEXIST when it exists).
 */
int tc_consumerd_stream_open(struct tc_consumerd_stream *stream,
			     const struct tc_consumerd_stream_place *place,
			     const struct tc_consumerd_channel_spec *spec, const char *channel_name,
			     uint32_t cpu);

/*
 * Unmaps and closes what tc_consumerd_stream_open() set up. When
 * unlink_file is true the stream file is removed too (undoing a channel
 * that could not be created whole). Safe on a zeroed stream with fds -1.
 */
void tc_consumerd_stream_close(struct tc_consumerd_stream *stream, int dir_fd, bool unlink_file);

/*
 * Rotation: the stream goes on in a new, empty stream file of the same
 * name in dir_fd; the old file is closed as it is. The caller waited for
 * the writer thread (tc_consumerd_writer_wait_idle()). Returns 0 or the
 * creation's -errno (the stream then writes nothing until the next
 * rotation: its packets stay in the buffer).
 */
int tc_consumerd_stream_reopen_file(struct tc_consumerd_stream *stream, int dir_fd);

/* Clear: cuts the stream file to nothing. The caller waited for the
 * writer thread. Returns 0 or -errno of ftruncate(). */
int tc_consumerd_stream_truncate_file(struct tc_consumerd_stream *stream);

/* Clear of a snapshot session: releases every closed sub-buffer unread,
 * after closing the one being filled, so that the next snapshot holds
 * only what is written from now on. */
void tc_consumerd_stream_discard(struct tc_consumerd_stream *stream, uint8_t *packet);

/* Closes the stream's memfd once it was handed to the service; the
 * mapping stays. */
void tc_consumerd_stream_release_memfd(struct tc_consumerd_stream *stream);

/*
 * Writes out the complete packets of the stream, at most one buffer's worth
 * (num_subbuf packets, valid or not), so that an application that keeps
 * forging commit counts cannot hold the consumer in this loop. Packets go
 * to the writer thread; packet is a scratch area of subbuf_size bytes for
 * when no memory can be had for one. Returns the number of sub-buffers
 * consumed (written, lost or dropped as corrupt).
 */
uint32_t tc_consumerd_stream_drain(struct tc_consumerd_stream *stream, uint8_t *packet);

/*
 * Closes the sub-buffer that the writers are filling (tc_rb_flush()), if
 * it holds data. That takes running on the stream's CPU for a moment,
 * which the consumer's affinity or cpuset may forbid: then a final close
 * (stop, snapshot) waits TC_RB_UNREACHABLE_WAIT_NS instead and closes it
 * (tc_rb_flush_status()), and a periodic one (the switch timer) warns,
 * rate-limited, and leaves those events for the writers to fill the
 * sub-buffer or for the final close.
 */
void tc_consumerd_stream_close_current(struct tc_consumerd_stream *stream, bool final);

/*
 * Closes the sub-buffer that the writers are filling
 * (tc_consumerd_stream_close_current()), adds a header-only packet when
 * events were discarded since the last packet (so that they are
 * reported), and records in stream->flush_target the read count that
 * covers everything reserved before this call.
 */
void tc_consumerd_stream_flush_begin(struct tc_consumerd_stream *stream, uint8_t *packet);

/*
 * True while the reader has not reached stream->flush_target, i.e. some
 * writer reserved space before the flush and has not committed it yet.
 * A target more than one buffer ahead of the reader cannot come from a
 * writer that follows the protocol and is not waited for.
 */
bool tc_consumerd_stream_is_behind(const struct tc_consumerd_stream *stream);

/* The packets written out (to its file or its relay) and lost so far;
 * any thread. */
uint64_t tc_consumerd_stream_packets_written(const struct tc_consumerd_stream *stream);
uint64_t tc_consumerd_stream_packets_lost(const struct tc_consumerd_stream *stream);

/* Appends one packet to the stream file, counting it written or lost
 * (the writer thread's job, tc-consumerd-writer.h). */
void tc_consumerd_stream_write_packet(struct tc_consumerd_stream *stream, const uint8_t *packet,
				      uint32_t size);

/*
 * The stream's eventfd is readable (at now): empties it and writes out the
 * stream; a wake-up whose drain consumed more closed sub-buffers (written,
 * lost or corrupt) than a writer's wake-up leaves (tc_rb_wake_packets())
 * was late and moves the thread; one whose drain gave way to a request
 * (tc-consumerd-yield.h) with fewer counted is not judged
 * (tc-consumerd-affinity.h).
 */
void tc_consumerd_stream_woken(struct tc_consumerd_stream *stream,
			       struct tc_consumerd_affinity *affinity, uint64_t now);

#endif /* TC_CONSUMERD_STREAM_H */
