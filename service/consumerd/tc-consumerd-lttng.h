/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef TC_CONSUMERD_LTTNG_H
#define TC_CONSUMERD_LTTNG_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "tc-consumer-abi.h"
#include "tc-consumerd-channel.h"

/* Whether this build reads LTTng-UST channels: with liblttng-ust-ctl,
 * unless a harness that does not model them leaves them out. */
#if TRACECTL_HAVE_LTTNG_UST && !defined(TC_CONSUMERD_NO_LTTNG)
#define TC_CONSUMERD_HAVE_LTTNG 1
#else
#define TC_CONSUMERD_HAVE_LTTNG 0
#endif

/*
 * The channels of LTTng-UST 2.13 applications (per-UID buffers), whose
 * ring buffers are LTTng-UST's own, created and read through
 * liblttng-ust-ctl (TC_CONSUMER_LTTNG_CHANNEL). The consumer creates them
 * as the session owner, hands their object data to the service (which
 * passes it to the owner's applications) and copies every sub-buffer it
 * reads into the stream's file: a sub-buffer of LTTng-UST is a CTF packet
 * already, laid out as the service's LTTng metadata says.
 *
 * Called from the session's thread only, like the rest of its session.
 * Unlike tracectl's own buffers, nothing checks a packet before it is
 * written: LTTng-UST's packets are written as the applications left them.
 */

struct tc_consumerd_lttng_channel;
struct tc_consumerd_relay;

/*
 * Creates the channel of msg with one stream per possible CPU, its files
 * in dir_fd (-1 and relay NULL: kept in memory for snapshots), or its
 * streams on relay (a streaming session's, which outlives the channel)
 * under trace_dir, and sends its object data and streams on the command
 * socket fd as answers to request_id (TC_CONSUMER_LTTNG_CHANNEL_DATA,
 * then TC_CONSUMER_STREAM each). Returns 0 with *channel set, or -errno
 * with error filled in; *is_socket_broken tells whether a send failed.
 */
int tc_consumerd_lttng_channel_create(const struct tc_consumer_lttng_channel *msg, int dir_fd,
				      struct tc_consumerd_relay *relay, const char *trace_dir,
				      int fd, uint32_t request_id,
				      struct tc_consumerd_lttng_channel **channel,
				      int *is_socket_broken, char *error, size_t error_size);
/* The channel's id, as the service named it. */
uint64_t tc_consumerd_lttng_channel_id(const struct tc_consumerd_lttng_channel *channel);
/* The next channel of a session's list. */
struct tc_consumerd_lttng_channel **
tc_consumerd_lttng_channel_next(struct tc_consumerd_lttng_channel *channel);
/* Writes every complete sub-buffer to its stream file, or sends it to
 * the relay. Returns the number of packets written. */
uint64_t tc_consumerd_lttng_channel_drain(struct tc_consumerd_lttng_channel *channel);
/* Closes the sub-buffers being written (the applications may go on
 * writing: a new one opens), then drains, waiting at most 200 ms for
 * sub-buffers whose writers have not committed them whole yet. */
/* The wait fds of the channel's streams, at most max, for poll(): one
 * is readable when a writer closed a sub-buffer of its stream. */
size_t tc_consumerd_lttng_channel_wait_fds(struct tc_consumerd_lttng_channel *channel,
					   struct pollfd *pfds, size_t max);
/* Empties a wait fd that poll() found readable. */
void tc_consumerd_lttng_wait_fd_clear(int fd);
void tc_consumerd_lttng_channel_flush(struct tc_consumerd_lttng_channel *channel);
/* A sub-buffer of an LTTng-UST stream as a snapshot gives it: its bytes
 * (size: padded to the page, as the consumer writes it) and what its
 * packet context says (sizes in bits), for a relay's index. */
struct tc_consumerd_lttng_packet {
	const uint8_t *data;
	uint32_t size;
	uint64_t packet_size, content_size;
	uint64_t timestamp_begin, timestamp_end;
	uint64_t events_discarded;
	uint64_t stream_id, stream_instance_id, packet_seq_num;
};
/* Where a snapshot's packets go; returns 0 or -errno (which stops it). */
typedef int (*tc_consumerd_lttng_sink)(void *data, const struct tc_consumerd_lttng_packet *packet);

/* A live session's tick: what each stream's writers put in it goes to
 * the relay now, or a beacon says it was idle since period_start
 * (consumer clock), as tracectl's own streams do. */
void tc_consumerd_lttng_channel_live_tick(struct tc_consumerd_lttng_channel *channel,
					  uint64_t period_start);
/* The channel's read and monitor timers, for tc-consumerd-timer.c: the
 * channel's read timer drains it (tc_consumerd_lttng_channel_drain())
 * without a wake-up, its monitor timer samples it. */
struct tc_consumerd_timers *
tc_consumerd_lttng_channel_timers(struct tc_consumerd_lttng_channel *channel);
/* A monitor sample: the bytes written into the streams and not consumed
 * yet, now, and the highest sample. */
void tc_consumerd_lttng_channel_sample(struct tc_consumerd_lttng_channel *channel);
/* What ChannelStatistics gives of the channel: its buffers' bytes, those
 * written and not consumed at the last monitor sample and the highest
 * sample (as for tracectl's own channels: 0 until the first), the
 * events its streams discarded as the packets read so far say (the
 * newest packet of each stream counts all before it), the packets
 * written. */
void tc_consumerd_lttng_channel_stats(struct tc_consumerd_lttng_channel *channel,
				      struct tc_consumerd_channel_stats *stats);
/* The name of the channel (its files' "<name>_<n>") and its streams. */
const char *tc_consumerd_lttng_channel_name(const struct tc_consumerd_lttng_channel *channel);
uint32_t tc_consumerd_lttng_channel_nr_streams(const struct tc_consumerd_lttng_channel *channel);
/* A snapshot of stream index of channel: its complete sub-buffers, oldest
 * first, at most max_bytes of them (the newest; 0: all), each given to
 * sink, nothing consumed; one the writers overwrote meanwhile is
 * skipped. *packets counts those given. */
int tc_consumerd_lttng_stream_snapshot(struct tc_consumerd_lttng_channel *channel, uint32_t index,
				       uint64_t max_bytes, tc_consumerd_lttng_sink sink, void *data,
				       uint64_t *packets);
/* A snapshot session's channel: every stream's complete sub-buffers, at
 * most max_stream_bytes of each (0: all), written into new files
 * "<name>_<n>" of dir_fd, nothing consumed; *packets counts them. */
int tc_consumerd_lttng_channel_snapshot(struct tc_consumerd_lttng_channel *channel, int dir_fd,
					uint64_t max_stream_bytes, uint64_t *packets);
/* Bytes written into the stream files of the current chunk by every
 * channel of a session's list (NULL: none). */
uint64_t tc_consumerd_lttng_channels_file_bytes(const struct tc_consumerd_lttng_channel *list);
/* Rotation: the stream files moved away with their directory; new empty
 * ones take their place in dir_fd (none for a snapshot session's). */
int tc_consumerd_lttng_channel_reopen_files(struct tc_consumerd_lttng_channel *channel, int dir_fd);
/* Clear: the stream files emptied, or a snapshot session's buffers
 * emptied (lttng_ust_ctl_clear_buffer()). Flush first. */
int tc_consumerd_lttng_channel_clear(struct tc_consumerd_lttng_channel *channel);
/* Packets written so far. */
uint64_t tc_consumerd_lttng_channel_packets(const struct tc_consumerd_lttng_channel *channel);
/* Drains, closes the files and unmaps the buffers. NULL-safe. */
void tc_consumerd_lttng_channel_free(struct tc_consumerd_lttng_channel *channel);

#endif /* TC_CONSUMERD_LTTNG_H */
