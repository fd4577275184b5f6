/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel trace of a session: the per-CPU raw ring buffers of its
 * tracefs instance (trace_pipe_raw, opened by the root helper), decoded
 * with libtraceevent and written as CTF packets under <output>/kernel,
 * with CTF metadata generated from the tracefs format files.
 */
#ifndef TC_CONSUMERD_KERNEL_H
#define TC_CONSUMERD_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tc-consumer-abi.h"

struct tc_consumerd_kernel_trace;

struct tc_consumerd_kernel_spec {
	const char *dir;       /* absolute, created 0700 */
	int formats_fd;        /* the helper's sealed memfd, hostile text */
	const int *cpu_fds;    /* nr_cpus trace_pipe_raw descriptors, taken */
	const int *stats_fds;  /* nr_cpus per_cpu stats descriptors, taken, or NULL */
	int tgids_fd;          /* saved_tgids, or -1; taken */
	uint32_t nr_cpus;
	uint8_t uuid[16];
	struct tc_consumer_clock clock; /* the session's, checked */
	uint64_t session_id;     /* for logs */
	uint32_t flags;          /* TC_CONSUMER_KCTX_* | TC_CONSUMER_KHIDE_* */
	/* A streaming session's relay, or NULL; dir is then the trace's path
	 * relative to the session's directory on the relay. */
	struct tc_consumerd_relay *relay;
	/* A snapshot session's flight recorder: packets of at most
	 * flight_subbuf_size bytes, the newest flight_num_subbuf of them per
	 * CPU kept in memory, nothing written until a snapshot (dir and relay
	 * unused). 0: the trace is written as it is read. */
	uint32_t flight_subbuf_size;
	uint32_t flight_num_subbuf;
};

/* Returns 0 and *trace, or -errno (-EBADMSG for bad formats). On
 * failure the cpu, stats and tgids descriptors are closed too. */
int tc_consumerd_kernel_trace_open(const struct tc_consumerd_kernel_spec *spec,
				   struct tc_consumerd_kernel_trace **trace);
/* Takes the formats of events about to be enabled (formats_fd, or -1:
 * none; the metadata grows by the new ones) and the new TC_CONSUMER_KHIDE_*
 * flags. -EBADMSG for bad formats. */
int tc_consumerd_kernel_trace_update(struct tc_consumerd_kernel_trace *trace, int formats_fd,
				     uint32_t hide_flags);
/* Reads what the kernel buffers hold now and writes it out. Returns the
 * most pages read from one CPU's buffer. */
uint32_t tc_consumerd_kernel_trace_drain(struct tc_consumerd_kernel_trace *trace);
/* The trace_pipe_raw descriptors, events POLLIN, for ppoll(): readable
 * once the kernel filled its instance's buffer_percent of a CPU's buffer.
 * Fills up to max entries; returns how many. */
struct pollfd;
size_t tc_consumerd_kernel_trace_poll_fds(const struct tc_consumerd_kernel_trace *trace,
					  struct pollfd *pfds, size_t max);
/* The kernel's figures for the trace's buffers, summed over CPUs: what
 * it discarded so far (exact, from the stats files; what the packets
 * counted for a CPU whose file cannot be read), the bytes it holds unread,
 * and the packets written. */
struct tc_consumerd_kernel_stats {
	uint64_t events_discarded;
	uint64_t bytes_unread;
	uint64_t packets_written;
};
void tc_consumerd_kernel_trace_stats(const struct tc_consumerd_kernel_trace *trace,
				     struct tc_consumerd_kernel_stats *stats);
/* The directory the trace is written to, as the service gave it. */
const char *tc_consumerd_kernel_trace_dir(const struct tc_consumerd_kernel_trace *trace);
/*
 * Rotation, after a drain: the trace goes on in dir_fd, a new empty
 * directory, with new per-CPU files and a copy of the metadata so far; the
 * old files are closed as they are. Returns 0 or -errno (the trace then
 * writes nothing more).
 */
int tc_consumerd_kernel_trace_reopen(struct tc_consumerd_kernel_trace *trace, int dir_fd);
/* Clear, after a drain: cuts the per-CPU files to nothing. */
int tc_consumerd_kernel_trace_truncate(struct tc_consumerd_kernel_trace *trace);
/* Bytes of packets in the trace's per-CPU files. */
uint64_t tc_consumerd_kernel_trace_bytes(const struct tc_consumerd_kernel_trace *trace);
/* A live period of a streaming trace (tc-consumerd-timer.c): every CPU
 * the relay has no packet of gets an empty one, and every CPU that sent
 * nothing since period_start (consumer clock) a beacon. */
void tc_consumerd_kernel_trace_live_tick(struct tc_consumerd_kernel_trace *trace,
					 uint64_t period_start);
/* Where a flight recorder's snapshot goes: its metadata (the whole text),
 * then, for each CPU in order, stream() before that CPU's packets, oldest
 * first. Each returns 0 or -errno, which ends the snapshot. */
struct tc_consumerd_kernel_snapshot_sink {
	int (*metadata)(void *data, const char *text, size_t len);
	int (*stream)(void *data, uint32_t cpu);
	int (*packet)(void *data, const uint8_t *packet, uint32_t size);
	void *data;
};
/* A flight recorder's snapshot: reads what the kernel's buffers hold now
 * into the rings, then hands the metadata and the newest packets of each
 * CPU, at most max_stream_bytes of them (0: all), to sink, keeping them
 * for the next snapshot. *packets counts those handed. Returns 0, -EINVAL
 * for a trace that is no flight recorder, -EIO when the metadata cannot be
 * read, or sink's error. */
int tc_consumerd_kernel_trace_snapshot(struct tc_consumerd_kernel_trace *trace,
				       uint64_t max_stream_bytes,
				       const struct tc_consumerd_kernel_snapshot_sink *sink,
				       uint64_t *packets);
uint32_t tc_consumerd_kernel_trace_nr_cpus(const struct tc_consumerd_kernel_trace *trace);
/* Final drain, then closes everything. */
void tc_consumerd_kernel_trace_close(struct tc_consumerd_kernel_trace *trace);

#endif /* TC_CONSUMERD_KERNEL_H */
