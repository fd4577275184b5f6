/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-consumerd-relay-held.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void
tc_consumerd_relay_held_init(struct tc_consumerd_held_queue *queue)
{
	queue->head = NULL;
	queue->tail = &queue->head;
	queue->bytes = 0;
}

int
tc_consumerd_relay_held_push(struct tc_consumerd_held_queue *queue,
			     struct tc_consumerd_relay_stream *stream, const uint8_t *packet,
			     uint32_t size)
{
	struct tc_consumerd_held_packet *held;

	if (size > CONSUMERD_RELAY_HELD_BYTES_MAX - queue->bytes)
		return -ENOBUFS;
	held = malloc(sizeof(*held) + size);
	if (!held)
		return -ENOMEM;
	held->next = NULL;
	held->stream = stream;
	held->size = size;
	memcpy(held->data, packet, size);
	*queue->tail = held;
	queue->tail = &held->next;
	queue->bytes += size;
	return 0;
}

struct tc_consumerd_held_packet *
tc_consumerd_relay_held_take(struct tc_consumerd_held_queue *queue,
			     const struct tc_consumerd_relay_stream *stream)
{
	struct tc_consumerd_held_packet *taken = NULL, **taken_tail = &taken, **link = &queue->head;

	while (*link) {
		struct tc_consumerd_held_packet *held = *link;

		if (stream && held->stream != stream) {
			link = &held->next;
			continue;
		}
		*link = held->next;
		held->next = NULL;
		*taken_tail = held;
		taken_tail = &held->next;
		queue->bytes -= held->size;
	}
	queue->tail = link;
	return taken;
}
