/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

/*
 * Packets kept, in order, while a relay's first connection is made
 * (tc-consumer-relay.h, TC_CONSUMER_RELAY_CONNECT_LATER): copies, since
 * the ring buffers they came from are reused meanwhile, bounded by
 * CONSUMERD_RELAY_HELD_BYTES_MAX per relay. The relay's session thread
 * only.
 */

#define CONSUMERD_RELAY_HELD_BYTES_MAX (4u << 20)

struct consumerd_relay_stream;

struct consumerd_held_packet {
	struct consumerd_held_packet *next;
	struct consumerd_relay_stream *stream;
	uint32_t size;
	uint8_t data[];
};

struct consumerd_held_queue {
	struct consumerd_held_packet *head, **tail;
	size_t bytes;
};

void consumerd_held_init(struct consumerd_held_queue *queue);

/* Appends a copy of packet; -ENOBUFS past the bound, -ENOMEM. */
int consumerd_held_push(struct consumerd_held_queue *queue, struct consumerd_relay_stream *stream,
			const uint8_t *packet, uint32_t size);

/* Takes stream's packets out of the queue (all of them when stream is
 * NULL) and returns them, in order, for the caller to free. */
struct consumerd_held_packet *consumerd_held_take(struct consumerd_held_queue *queue,
						  const struct consumerd_relay_stream *stream);
