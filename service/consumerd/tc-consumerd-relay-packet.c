/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A packet's index, the count of the packets the relay lost, and the
 * packets held while the first connection of a relay opened with
 * TC_CONSUMER_RELAY_CONNECT_LATER is made (tc-consumerd-relay-private.h):
 * what the connection's state and its sends share of a packet's fate.
 */
#include "tc-consumerd-relay.h"

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tc-consumerd-relay-held.h"
#include "tc-consumerd-relay-private.h"
#include "tc-consumerd-relay-wire.h"
#include "tc-rb.h"

void
tc_consumerd_relay_packet_count_lost(struct tc_consumerd_relay *relay)
{
	if (relay->lost_packets++ == 0)
		relay->lost_since = (int64_t)time(NULL);
}

/*
 * Packets the consumer sends while the first probe of a relay opened
 * with TC_CONSUMER_RELAY_CONNECT_LATER is under way are kept, in order,
 * and sent once it connected (first_probe_connected()): the relay is
 * not known to be down, only not reached yet, and a relay that is up
 * at the service's start is reached within a tick or two. Dropping them
 * would lose the first packets of every such session, and show a
 * Problem for a relay that never had one. They are not left in the ring
 * buffers instead, which stop, destroy and flush must empty, whatever
 * the relay does. The first probe is bounded (connect and I/O timeouts,
 * a few seconds), and so is what is held (CONSUMERD_RELAY_HELD_BYTES_MAX):
 * past it, or when the probe fails, the packets are lost and counted as
 * for a relay that went away. Returns 1 once held; a malformed packet is
 * dropped (-errno) as when it is sent.
 */
int
tc_consumerd_relay_packet_hold(struct tc_consumerd_relay *relay,
			       struct tc_consumerd_relay_stream *stream, const uint8_t *packet,
			       uint32_t size)
{
	struct tc_relay_index index;
	uint32_t content;
	int ret = tc_consumerd_relay_packet_index(stream, packet, size, &index, &content);

	if (ret < 0)
		return ret;
	ret = tc_consumerd_relay_held_push(&relay->held, stream, packet, size);
	if (ret < 0) {
		tc_consumerd_relay_packet_count_lost(relay);
		return ret;
	}
	return 1;
}

/* Frees packets taken from the queue, counting them lost, for the relay
 * and for their streams. */
void
tc_consumerd_relay_packet_held_lose(struct tc_consumerd_relay *relay,
				    struct tc_consumerd_held_packet *held)
{
	while (held) {
		struct tc_consumerd_held_packet *next = held->next;

		tc_consumerd_relay_packet_count_lost(relay);
		__atomic_fetch_add(&held->stream->held_lost, 1, __ATOMIC_RELAXED);
		free(held);
		held = next;
	}
}

void
tc_consumerd_relay_packet_held_drop_all(struct tc_consumerd_relay *relay)
{
	tc_consumerd_relay_packet_held_lose(relay,
					    tc_consumerd_relay_held_take(&relay->held, NULL));
}

/* The packet's index, from its header; sizes checked against size. */
int
tc_consumerd_relay_packet_index(const struct tc_consumerd_relay_stream *stream,
				const uint8_t *packet, uint32_t size, struct tc_relay_index *index,
				uint32_t *content_bytes)
{
	struct tc_packet_header h;

	if (size < sizeof(h))
		return -EBADMSG;
	memcpy(&h, packet, sizeof(h));
	/* The packet may be the writers' shared memory (a stream read in
	 * place): the sizes checked below are those sent, never read again. */
	__asm__ volatile("" : : : "memory");
	if (h.packet_size != (uint64_t)size * 8 || h.content_size > h.packet_size ||
	    h.content_size < sizeof(h) * 8)
		return -EBADMSG;
	*content_bytes = (uint32_t)((h.content_size + 7) / 8);
	*index = (struct tc_relay_index){
	    .relay_stream_id = htobe64(stream->handle),
	    .net_seq_num = htobe64(stream->net_seq),
	    .packet_size = htobe64(h.packet_size),
	    .content_size = htobe64(h.content_size),
	    .timestamp_begin = htobe64(h.timestamp_begin),
	    .timestamp_end = htobe64(h.timestamp_end),
	    .events_discarded = htobe64(h.events_discarded),
	    .stream_id = htobe64(h.stream_id),
	    .stream_instance_id = htobe64(h.stream_instance_id),
	    .packet_seq_num = htobe64(h.packet_seq_num),
	};
	return 0;
}
