/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

/*
 * Packets kept, in order, while a relay's first connection is made
 * (tc-consumerd-relay.h, TC_CONSUMER_RELAY_CONNECT_LATER): copies, since
 * the ring buffers they came from are reused meanwhile, bounded by
 * CONSUMERD_RELAY_HELD_BYTES_MAX per relay. The relay's session thread
 * only.
 */

#define CONSUMERD_RELAY_HELD_BYTES_MAX (4u << 20)

struct tc_consumerd_relay_stream;

struct tc_consumerd_held_packet {
	struct tc_consumerd_held_packet *next;
	struct tc_consumerd_relay_stream *stream;
	uint32_t size;
	uint8_t data[];
};

struct tc_consumerd_held_queue {
	struct tc_consumerd_held_packet *head, **tail;
	size_t bytes;
};

void tc_consumerd_relay_held_init(struct tc_consumerd_held_queue *queue);

/* Appends a copy of packet; -ENOBUFS past the bound, -ENOMEM. */
int tc_consumerd_relay_held_push(struct tc_consumerd_held_queue *queue,
				 struct tc_consumerd_relay_stream *stream, const uint8_t *packet,
				 uint32_t size);

/* Takes stream's packets out of the queue (all of them when stream is
 * NULL) and returns them, in order, for the caller to free. */
struct tc_consumerd_held_packet *
tc_consumerd_relay_held_take(struct tc_consumerd_held_queue *queue,
			     const struct tc_consumerd_relay_stream *stream);
