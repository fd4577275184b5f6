/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The internals of the relay connection (tc-consumerd-relay.h), shared by
 * the files it is cut into and included by them only: the connection's
 * struct and what each file gives the others. Everything here runs on the
 * thread of the connection's session, like the functions of
 * tc-consumerd-relay.h. The files call one another in one direction only:
 * chunk, then the connection's state, then packet, announce, control,
 * ssh, socket.
 */
#ifndef TC_CONSUMERD_RELAY_PRIVATE_H
#define TC_CONSUMERD_RELAY_PRIVATE_H

#include <netdb.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "tc-consumer-abi.h"
#include "tc-consumerd-log.h"
#include "tc-consumerd-relay-held.h"
#include "tc-consumerd-resolve.h"

/* Of tc-consumerd-relay.h, which each file includes first: the header
 * names it only, so that the module's header and its private one form no
 * cycle. */
struct tc_consumerd_relay_stream;
/* Of tc-consumerd-relay-wire.h. */
struct tc_relay_index;
/* Of tc-consumerd-tunnel.h. */
struct tc_consumerd_tunnel;

/* Room for the largest command we send: CREATE_SESSION or ADD_STREAM
 * with their names. */
#define COMMAND_MAX 1024u
/* Index replies not read yet at most; then the next command waits for them. */
#define PENDING_REPLIES_MAX 256u

struct tc_consumerd_relay {
	struct tc_consumer_relay_output out;
	uint64_t session_id;	      /* ours, for messages */
	uint64_t sessiond_session_id; /* the tracing session's, as the relay knows it */
	uint8_t uuid[16];	      /* with it, keys the relay's trace chunks */
	int control_fd, data_fd;
	uint32_t minor;
	uint64_t relay_session_id;
	/* The current trace chunk: the first is 0, made with the session;
	 * each rotation makes the next. */
	uint64_t chunk_id;
	int64_t chunk_created;	      /* Unix seconds */
	int64_t chunk_created_before; /* of the chunk before, while it is closed */
	int64_t chunk_closed_before;  /* of the chunk before, when archived */
	bool chunk_before_archived;   /* then reconnections rejoin chunk_id */
	uint32_t generation;	      /* connections made so far, after the first */
	uint32_t pending_replies;     /* generic replies of indexes not read yet */
	bool close_pending;	      /* the chunk before chunk_id is still open */
	bool up;
	bool was_up; /* connected once: not so when opened down (start_down()) */
	uint64_t next_retry, retry_interval;
	/* While not 0, when every reply of the exchange under way must have
	 * come (consumer clock): a handshake, a wait for the relay. */
	uint64_t exchange_end;
	/* While down, the connections being made without waiting for them:
	 * the control port's, then, once it answered, the data port's at the
	 * same address; -1 when none. */
	int probe_fd, probe_data_fd;
	bool probe_asked; /* VERSION sent on probe_fd, its answer awaited */
	uint64_t probe_deadline;
	/* The host's addresses that connections use, NULL until resolved,
	 * and a lookup under way, or NULL: at creation, or again after every
	 * address failed a probe, since addresses change. Connections never
	 * wait for a lookup but at creation (tc-consumerd-resolve.h). */
	struct tc_consumerd_lookup *resolved, *lookup;
	unsigned address_next; /* the address the next probe tries; once connected, both ports' */
	uint64_t lost_packets;
	int64_t lost_since;
	int last_error; /* -errno: why the relay was last lost or not reached */
	struct tc_consumerd_ratelimit down_limit;
	struct tc_consumerd_relay_stream *streams;
	/* Opened with TC_CONSUMER_RELAY_CONNECT_LATER, until its first probe
	 * connected or failed: the relay is not lost yet, only not reached
	 * yet, and the packets sent meanwhile are held (tc_consumerd_relay_packet_hold()). The
	 * host's first lookup may take until first_lookup_deadline. */
	bool first_probe;
	uint64_t first_lookup_deadline;
	struct tc_consumerd_held_queue held;
	/* While not 0, when a flush stops waiting for the relay (consumer
	 * clock): data sends end by then (tc_consumerd_relay_set_give_up()). */
	uint64_t give_up_at;
	/* A relay reached through ssh (TC_CONSUMER_RELAY_SSH): its tunnel,
	 * NULL until made and once dropped with a lost connection, and when
	 * a reconnection's must listen (consumer clock). The host is never
	 * resolved here: ssh does it. */
	struct tc_consumerd_tunnel *tunnel;
	uint64_t tunnel_deadline;
	/* Why the relay was last lost or not reached in ssh's words, "" when
	 * last_error says it all; cleared by a connection that works. */
	char reason[CONSUMERD_RELAY_REASON_MAX];
};

/* Whether the relay is reached through ssh. */
static inline bool
tc_consumerd_relay_is_ssh(const struct tc_consumerd_relay *relay)
{
	return (relay->out.flags & TC_CONSUMER_RELAY_SSH) != 0;
}

/* tc-consumerd-relay-socket.c: connections to the relay's ports and whole sends and receives, each
 * bounded by a deadline. */
const struct addrinfo *tc_consumerd_relay_socket_address_at(const struct tc_consumerd_relay *relay,
							    unsigned index, unsigned *count);
int tc_consumerd_relay_socket_connect_data_port(struct tc_consumerd_relay *relay,
						uint64_t deadline);
int tc_consumerd_relay_socket_connect_port(struct tc_consumerd_relay *relay, uint16_t port,
					   uint64_t deadline);
int tc_consumerd_relay_socket_connect_start(const struct addrinfo *ai, uint16_t port);
int tc_consumerd_relay_socket_connect_tunnel_start(const struct tc_consumerd_relay *relay,
						   bool is_data);
int tc_consumerd_relay_socket_recv_all(int fd, void *buf, size_t len, uint64_t deadline);
int tc_consumerd_relay_socket_recv_reply(struct tc_consumerd_relay *relay, void *buf, size_t len);
uint64_t tc_consumerd_relay_socket_reply_deadline(const struct tc_consumerd_relay *relay);
int tc_consumerd_relay_socket_send_all(int fd, struct iovec *iov, int iovcnt);
int tc_consumerd_relay_socket_send_all_by(int fd, struct iovec *iov, int iovcnt, uint64_t deadline);
int tc_consumerd_relay_socket_set_timeouts(int fd);

/* tc-consumerd-relay-control.c: commands on the control connection and their generic replies; the
 * session and its trace chunks. */
int tc_consumerd_relay_control_close_trace_chunk(struct tc_consumerd_relay *relay,
						 uint64_t chunk_id, int64_t closed,
						 uint32_t command, char *path, size_t path_size);
int tc_consumerd_relay_control_create_session(struct tc_consumerd_relay *relay);
int tc_consumerd_relay_control_create_trace_chunk(struct tc_consumerd_relay *relay,
						  uint64_t chunk_id, int64_t created);
int tc_consumerd_relay_control_generic(struct tc_consumerd_relay *relay, uint32_t cmd,
				       const void *payload, size_t len);
int tc_consumerd_relay_control_version(struct tc_consumerd_relay *relay);
int tc_consumerd_relay_control_create_current_chunk(struct tc_consumerd_relay *relay);
int tc_consumerd_relay_control_drain_replies(struct tc_consumerd_relay *relay, bool wait);
int tc_consumerd_relay_control_read_generic_reply(struct tc_consumerd_relay *relay, uint32_t *code,
						  uint64_t deadline);
int tc_consumerd_relay_control_read_version(struct tc_consumerd_relay *relay);
int tc_consumerd_relay_control_send_command(struct tc_consumerd_relay *relay, uint32_t cmd,
					    const void *payload, size_t len);
int tc_consumerd_relay_control_send_version(int control_fd);

/* tc-consumerd-relay-announce.c: streams made known to the relay (ADD_STREAM) and metadata sent to
 * it. */
int tc_consumerd_relay_announce_metadata_range(struct tc_consumerd_relay *relay,
					       struct tc_consumerd_relay_stream *stream,
					       const void *text, size_t len);
int tc_consumerd_relay_announce_answered(struct tc_consumerd_relay *relay,
					 struct tc_consumerd_relay_stream *stream);
int tc_consumerd_relay_announce_ask(struct tc_consumerd_relay *relay,
				    const struct tc_consumerd_relay_stream *stream);
int tc_consumerd_relay_announce_stream(struct tc_consumerd_relay *relay,
				       struct tc_consumerd_relay_stream *stream);

/* tc-consumerd-relay-packet.c: a packet's index, the packets lost, and the packets held while the
 * first connection is made. */
/* Counts one packet lost, from now on if it is the first. */
void tc_consumerd_relay_packet_count_lost(struct tc_consumerd_relay *relay);
/* Keeps a copy of packet for the first connection: 1 once held, -errno
 * (counted lost past the bound) or a malformed packet's -EBADMSG. */
int tc_consumerd_relay_packet_hold(struct tc_consumerd_relay *relay,
				   struct tc_consumerd_relay_stream *stream, const uint8_t *packet,
				   uint32_t size);
/* Frees held, packets taken from the queue, counting each lost. */
void tc_consumerd_relay_packet_held_lose(struct tc_consumerd_relay *relay,
					 struct tc_consumerd_held_packet *held);
/* Every held packet lost. */
void tc_consumerd_relay_packet_held_drop_all(struct tc_consumerd_relay *relay);
/* The packet's index, from its header, and the bytes of its content:
 * 0, or -EBADMSG when its sizes do not match size. */
int tc_consumerd_relay_packet_index(const struct tc_consumerd_relay_stream *stream,
				    const uint8_t *packet, uint32_t size,
				    struct tc_relay_index *index, uint32_t *content_bytes);

/* tc-consumerd-relay-ssh.c: the tunnel of a relay reached through ssh, made
 * at creation, again by each reconnection's probe, dropped with each
 * connection lost; each fills relay->reason with ssh's words when it
 * fails. */
/* Makes the tunnel, waiting until deadline (consumer clock) at most:
 * 0 once it listens, or -errno (-ECONNABORTED: ssh exited). */
int tc_consumerd_relay_ssh_open(struct tc_consumerd_relay *relay, uint64_t deadline);
/* A probe's step, without waiting: starts the tunnel when there is none,
 * then 1 once it listens, 0 while ssh connects, -errno when it failed
 * (dropped then) or did not listen within CONSUMERD_RELAY_SSH_TIMEOUT_MS. */
int tc_consumerd_relay_ssh_step(struct tc_consumerd_relay *relay, uint64_t now);
/* Reads what ssh wrote while the relay is up: false once ssh exited. */
bool tc_consumerd_relay_ssh_watch(struct tc_consumerd_relay *relay);
/* The connection through the tunnel was lost or not made: what ssh said
 * of it becomes the reason, and the tunnel is ended. */
void tc_consumerd_relay_ssh_drop(struct tc_consumerd_relay *relay);

/* tc-consumerd-relay.c: the connection's state. */
void tc_consumerd_relay_fail(struct tc_consumerd_relay *relay, const char *what, int err);

#endif /* TC_CONSUMERD_RELAY_PRIVATE_H */
