/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/*
 * What a relay's data connection has not taken yet: the frames (a data
 * header and a packet's content) that a non-blocking send left behind,
 * in order, the first one possibly begun. The consumer's loop sends more
 * whenever the connection polls writable (consumerd_relay_writable()),
 * so a relay that takes data slowly costs memory, up to
 * CONSUMERD_RELAY_QUEUE_BYTES_MAX per relay, never the loop's time: the
 * owner's other sessions are drained and the service's requests answered
 * meanwhile. Past the bound, packets are dropped (tc-consumer-relay.c).
 * Main thread only, as the relay itself.
 */

/* Twice what a first connection holds (tc-consumer-relay-held.h), so the
 * packets held then always fit, frame headers included. */
#define CONSUMERD_RELAY_QUEUE_BYTES_MAX (8u << 20)

struct consumerd_relay_frame {
	struct consumerd_relay_frame *next;
	uint32_t size; /* bytes of the frame */
	uint32_t sent; /* of them, taken by the connection */
	uint8_t data[];
};

struct consumerd_relay_queue {
	struct consumerd_relay_frame *head, **tail;
	size_t bytes; /* not sent yet */
	size_t frames;
};

void consumerd_relay_queue_init(struct consumerd_relay_queue *queue);

static inline bool
consumerd_relay_queue_is_empty(const struct consumerd_relay_queue *queue)
{
	return queue->head == NULL;
}

/* Appends one frame, the iovec's bytes but the first skip (sent
 * already). Returns 0 or -ENOMEM (nothing queued). */
int consumerd_relay_queue_push(struct consumerd_relay_queue *queue, const struct iovec *iov,
			       int iovcnt, size_t skip);

/* Sends what fd takes now, without waiting. Returns 0 (the queue
 * emptied or not), or -errno when the connection broke. */
int consumerd_relay_queue_send(struct consumerd_relay_queue *queue, int fd);

/* Frees every frame. Returns how many there were. */
size_t consumerd_relay_queue_clear(struct consumerd_relay_queue *queue);
