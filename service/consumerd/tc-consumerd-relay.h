/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A session's connection to an LTTng relay daemon (tc-consumerd-relay-wire.h): the
 * control and data connections, the relay's handle of each stream, and
 * what happens when the relay goes away.
 *
 * Everything runs on the session's thread (tc-consumerd-session-thread.h),
 * where a send that waits for the relay holds that session only, but
 * the lookups of the
 * relay's host name (tc-consumerd-resolve.h), or for a relay reached
 * through ssh (TC_CONSUMER_RELAY_SSH), the owner's ssh making its tunnel
 * (tc-consumerd-tunnel.h): a creation a user asked for
 * waits for one CONSUMERD_RELAY_RESOLVE_TIMEOUT_MS at most, and makes its
 * connections within CONSUMERD_RELAY_OPEN_TIMEOUT_MS of its start, well
 * within what the service waits for the consumer's reply; one with
 * TC_CONSUMER_RELAY_CONNECT_LATER (sessions loaded at the service's
 * start) waits for nothing, and its first connection is made as the
 * reconnections are; a reconnection uses the addresses found before and
 * never waits for the resolver. Sockets have
 * send and receive timeouts (CONSUMERD_RELAY_IO_TIMEOUT_MS): a relay that
 * stops reading costs the consumer that long once, then the connection
 * counts as down. The applications never wait for the relay: their ring buffers
 * discard, as they do when the consumer is slow.
 *
 * While down, packets are drained and dropped (counted in lost_packets),
 * and every CONSUMERD_RELAY_RETRY_* the connection is made again: a new
 * relay session with the same name, host and creation time, so the relay
 * files it in the same directory; streams are added again under a new
 * file name ("<channel>_<cpu>-<generation>"), which CTF readers join to
 * the stream's earlier files by stream instance, and the packet sequence
 * numbers that were dropped show there as discarded packets. The
 * metadata is sent again whole.
 */
#ifndef TC_CONSUMERD_RELAY_H
#define TC_CONSUMERD_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "tc-consumer-abi.h"

#define CONSUMERD_RELAY_IO_TIMEOUT_MS 2000
#define CONSUMERD_RELAY_CONNECT_TIMEOUT_MS 2000
#define CONSUMERD_RELAY_RESOLVE_TIMEOUT_MS 3000
#define CONSUMERD_RELAY_OPEN_TIMEOUT_MS 5000
#define CONSUMERD_RELAY_RETRY_MIN_NS 250000000ull
#define CONSUMERD_RELAY_RETRY_MAX_NS 8000000000ull
#define CONSUMERD_RELAY_FILE_NAME_MAX 255u
/* A relay reached through ssh (TC_CONSUMER_RELAY_SSH): what a
 * reconnection gives ssh to connect, authenticate and listen on its
 * forwards, without waiting for it (tc-consumerd-tunnel.h); at creation,
 * ssh has until CONSUMERD_RELAY_OPEN_TIMEOUT_MS. */
#define CONSUMERD_RELAY_SSH_TIMEOUT_MS 10000
/* The relay as a URL: "net+ssh://" USER "@" HOST ":" PORT "/" CTRL ":" DATA
 * at most. */
#define CONSUMERD_RELAY_ADDRESS_MAX (TC_CONSUMER_HOST_MAX + TC_CONSUMER_SSH_USER_MAX + 48u)
/* Why it was last lost or not reached, in the words of the ssh that
 * carries it: "ssh: " and ssh's last line, or ssh's exit status. */
#define CONSUMERD_RELAY_REASON_MAX 216u
/* What a flush (stop, rotation, destroy) gives a slow relay to take the
 * session's last packets, and what one packet may take at most: a
 * request waits for the packet under way, then for its flush, within what
 * the service waits for the reply (10 s; 30 s for a flush), which would
 * otherwise take the consumer, with every session of its owner, for
 * unresponsive. A relay that takes longer is lost, as one gone away. */
#define CONSUMERD_RELAY_FLUSH_BUDGET_MS 15000
#define CONSUMERD_RELAY_PACKET_BUDGET_MS 7000

struct tc_consumerd_relay;

/* One stream (data or metadata) as the relay knows it. */
struct tc_consumerd_relay_stream {
	struct tc_consumerd_relay_stream *next; /* the relay's list */
	char file_name[CONSUMERD_RELAY_FILE_NAME_MAX + 1];
	const char *path; /* the trace's path under the session's, owned by the caller */
	bool is_metadata;
	bool added;	  /* on the current connection */
	uint64_t handle;  /* the relay's, while added */
	uint64_t net_seq; /* next packet's number on this connection */
	uint64_t packets_on_connection;
	uint64_t last_packet_seq; /* CTF packet_seq_num of the last packet sent */
	uint64_t chunk_bytes;	  /* packet bytes sent into the current trace chunk */
	uint64_t last_packet_ns;  /* consumer clock, for live beacons */
	/* Packets held before the first connection (tc_consumerd_relay_send_packet()
	 * returned 1), then sent or lost: the stream's statistics add them. */
	uint64_t held_sent, held_lost;
	/* metadata streams: everything appended so far, sent again on reconnection */
	char *metadata;
	size_t metadata_size, metadata_capacity;
	uint8_t uuid[16]; /* the trace's, for metadata packets, once found in the text */
	bool has_uuid;
};

/*
 * Connects to the relay of out (host, ports, names, live timer), with the
 * owner's rights: version check, session, trace chunk. On failure returns
 * -errno and writes a message naming the relay's address into error.
 *
 * With TC_CONSUMER_RELAY_CONNECT_LATER in out's flags, never waits for
 * the network and always succeeds: the host's lookup is started, and the
 * first connection is made by the probe the reconnections use, from now
 * on at each tick (tc_consumerd_relay_is_up()). Packets sent meanwhile are
 * held (tc-consumerd-relay-held.h) and go out once it
 * connected; the relay counts as lost, and they with it, only once the
 * probe failed, which is logged once with the message above.
 */
int tc_consumerd_relay_open(const struct tc_consumer_relay_output *out, uint64_t session_id,
			    struct tc_consumerd_relay **relay, char *error, size_t error_size);

/*
 * Waits (bounded) until the relay received every packet sent, closes
 * every stream and both connections, and frees relay. Streams must have
 * been removed before, or are forgotten.
 */
void tc_consumerd_relay_close(struct tc_consumerd_relay *relay);

/* Registers stream (zeroed by the caller except what this sets) and adds
 * it on the relay when connected. Returns 0 or -ENAMETOOLONG. */
int tc_consumerd_relay_stream_add(struct tc_consumerd_relay *relay,
				  struct tc_consumerd_relay_stream *stream, const char *file_name,
				  const char *path, bool is_metadata);

/* Tells the relay the streams added so far are complete: live viewers see
 * them from now on. */
void tc_consumerd_relay_streams_sent(struct tc_consumerd_relay *relay);

/* Closes the stream on the relay (after its last packet) and forgets it. */
void tc_consumerd_relay_stream_remove(struct tc_consumerd_relay *relay,
				      struct tc_consumerd_relay_stream *stream);

/* Sends one CTF packet (packet_size bytes as its header says, size bytes
 * available) and its index, or holds it while the first connection is
 * under way (tc_consumerd_relay_open()). Returns 0 when sent, 1 when held
 * (its fate counted in stream's held_sent or held_lost), or -errno when
 * it was dropped (relay down, too much held, or the packet malformed;
 * all but the last counted in lost_packets). */
int tc_consumerd_relay_send_packet(struct tc_consumerd_relay *relay,
				   struct tc_consumerd_relay_stream *stream, const uint8_t *packet,
				   uint32_t size);

/* What the index of a packet another tracer laid out says (LTTng-UST's,
 * read through liblttng-ust-ctl, not from tracectl's packet header):
 * sizes in bits, as in the packet's context. */
struct tc_consumerd_relay_packet_info {
	uint64_t packet_size, content_size;
	uint64_t timestamp_begin, timestamp_end;
	uint64_t events_discarded;
	uint64_t stream_id, stream_instance_id, packet_seq_num;
};

/* Sends such a packet (size bytes: info's packet_size, whose content is
 * info's content_size) with the index info gives, on a connected relay
 * only (never held). Returns 0 or -errno, as tc_consumerd_relay_send_packet(). */
int tc_consumerd_relay_send_packet_with_info(struct tc_consumerd_relay *relay,
					     struct tc_consumerd_relay_stream *stream,
					     const uint8_t *packet, uint32_t size,
					     const struct tc_consumerd_relay_packet_info *info);

/* Appends metadata text to a metadata stream and sends it. Returns 0 or
 * -ENOMEM (kept for the next connection when the relay is down). */
int tc_consumerd_relay_send_metadata(struct tc_consumerd_relay *relay,
				     struct tc_consumerd_relay_stream *stream, const void *text,
				     size_t len);

/* A live beacon: the stream had nothing to send; its time is now
 * timestamp (trace clock). */
void tc_consumerd_relay_send_beacon(struct tc_consumerd_relay *relay,
				    struct tc_consumerd_relay_stream *stream,
				    uint64_t ctf_stream_id, uint64_t timestamp);

/*
 * Rotates the session's trace chunk on the relay, as LTTng 2.11 and later
 * do, in two steps. CONSUMERD_RELAY_CHUNK_BEGIN: a new chunk
 * (CREATE_TRACE_CHUNK) and every stream moved to it after the last packet
 * sent (ROTATE_STREAMS; the metadata is sent again whole); the old chunk
 * stays open. CONSUMERD_RELAY_CHUNK_CLOSE: the old chunk closed with
 * command: moved to the relay's archives/<begin>-<end>-<id>/, or deleted
 * for a clear; then, unless CONSUMERD_RELAY_CHUNK_NO_WAIT, waits until the
 * relay let it go.
 *
 * The traces of one tracing session share their identity, hence their
 * chunks, on the relay (tc_consumerd_relay_open()): every one begins the new
 * chunk before any closes the old (the relay moves a shared chunk's
 * directories at each step, and finishes the old chunk once the streams of
 * all have left it), all with the same timestamp (Unix seconds, 0: now),
 * and only the last close waits. A single trace does both steps at once.
 *
 * The caller has flushed the streams: every packet sent before is in the
 * old chunk, every one after in the new. path receives the old chunk's
 * path as the relay names it. Returns 0, -EPERM when command is a delete
 * and the relay does not allow clearing, -ENOTCONN when the relay is down,
 * -ETIMEDOUT when it did not confirm the packets sent, -EBUSY when a chunk
 * is begun already (nothing changed in these cases), -EINVAL for a close
 * with no chunk begun, -EPROTO when it refused a command (the connection
 * then counts as lost), or another -errno.
 */
#define CONSUMERD_RELAY_CHUNK_BEGIN 1u
#define CONSUMERD_RELAY_CHUNK_CLOSE 2u
#define CONSUMERD_RELAY_CHUNK_NO_WAIT 4u
int tc_consumerd_relay_chunk_rotate(struct tc_consumerd_relay *relay, uint32_t command,
				    uint32_t steps, int64_t timestamp, char *path,
				    size_t path_size);

/* While down: reconnects when the retry deadline (consumer clock) is
 * due. Returns true when connected. */
bool tc_consumerd_relay_is_up(struct tc_consumerd_relay *relay, uint64_t now);

/* Ends a first connection under way: what it held is lost, counted, and
 * the relay is down from now on (a destroy, before its totals). */
void tc_consumerd_relay_give_up_first_connection(struct tc_consumerd_relay *relay);

/* Whether the first connection of a relay opened with
 * TC_CONSUMER_RELAY_CONNECT_LATER is still being made: its packets are
 * held, and tc_consumerd_relay_is_up() moves it on without waiting. */
bool tc_consumerd_relay_is_connecting(const struct tc_consumerd_relay *relay);

/* Waits up to timeout_ms until the relay has everything sent so far.
 * A first connection under way is moved on meanwhile, and one that the
 * relay answered in time completes, its exchange bounded on its own
 * (relay_join()): the wait may end that much later. Returns 0,
 * -ETIMEDOUT (the first connection still under way included), or
 * -ENOTCONN when down. */
int tc_consumerd_relay_wait_received(struct tc_consumerd_relay *relay, int timeout_ms);

/* Until deadline (consumer clock; 0: no deadline), packets are sent only
 * while it has not passed: a relay that has not taken a packet by then
 * is lost (its connection dropped, the packets counted lost, as when it
 * goes away), so that a flush ends in time whatever the relay does. */
void tc_consumerd_relay_set_give_up(struct tc_consumerd_relay *relay, uint64_t deadline);

/* The live timer, us (0: not live). */
uint32_t tc_consumerd_relay_live_timer_us(const struct tc_consumerd_relay *relay);

struct tc_consumerd_relay_status {
	bool up;
	uint64_t lost_packets; /* since the first loss */
	int64_t lost_since;    /* Unix seconds the relay was first lost, 0: never */
	int last_error;	       /* -errno: why it was last lost or not reached, 0: never */
	/* the same in ssh's words, for a relay reached through ssh; "" when
	 * last_error says it all */
	char reason[CONSUMERD_RELAY_REASON_MAX];
	char address[CONSUMERD_RELAY_ADDRESS_MAX];
};
void tc_consumerd_relay_get_status(const struct tc_consumerd_relay *relay,
				   struct tc_consumerd_relay_status *status);

#endif /* TC_CONSUMERD_RELAY_H */
