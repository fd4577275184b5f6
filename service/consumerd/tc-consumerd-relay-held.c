/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-consumer-relay-held.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void
consumerd_held_init(struct consumerd_held_queue *queue)
{
	queue->head = NULL;
	queue->tail = &queue->head;
	queue->bytes = 0;
}

int
consumerd_held_push(struct consumerd_held_queue *queue, struct consumerd_relay_stream *stream,
		    const uint8_t *packet, uint32_t size)
{
	struct consumerd_held_packet *held;

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

struct consumerd_held_packet *
consumerd_held_take(struct consumerd_held_queue *queue, const struct consumerd_relay_stream *stream)
{
	struct consumerd_held_packet *taken = NULL, **taken_tail = &taken, **link = &queue->head;

	while (*link) {
		struct consumerd_held_packet *held = *link;

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
