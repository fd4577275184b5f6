/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A ring of packet copies: slots[head .. head + count) modulo nr_slots,
 * oldest first, bytes their sizes' sum, never above capacity once put()
 * returns. The slot array doubles when full; packets are allocated one by
 * one, since their sizes vary (a drain ends with a partial packet).
 */
#include "tc-consumerd-kernel-flight.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct flight_packet {
	uint32_t size;
	uint8_t data[];
};

struct tc_consumerd_kernel_flight {
	uint64_t capacity;
	uint64_t bytes;
	struct flight_packet **slots;
	size_t nr_slots, head, count;
};

struct tc_consumerd_kernel_flight *
tc_consumerd_kernel_flight_new(uint64_t capacity)
{
	struct tc_consumerd_kernel_flight *flight = calloc(1, sizeof(*flight));

	if (flight)
		flight->capacity = capacity;
	return flight;
}

static struct flight_packet *
slot_at(const struct tc_consumerd_kernel_flight *flight, size_t i)
{
	return flight->slots[(flight->head + i) % flight->nr_slots];
}

static void
drop_oldest(struct tc_consumerd_kernel_flight *flight)
{
	struct flight_packet *oldest = flight->slots[flight->head];

	flight->bytes -= oldest->size;
	free(oldest);
	flight->slots[flight->head] = NULL;
	flight->head = (flight->head + 1) % flight->nr_slots;
	flight->count--;
}

void
tc_consumerd_kernel_flight_free(struct tc_consumerd_kernel_flight *flight)
{
	if (!flight)
		return;
	while (flight->count > 0)
		drop_oldest(flight);
	free(flight->slots);
	free(flight);
}

/* Room for one more slot, the order kept. */
static int
grow(struct tc_consumerd_kernel_flight *flight)
{
	size_t nr = flight->nr_slots ? 2 * flight->nr_slots : 16;
	struct flight_packet **slots;

	if (flight->count < flight->nr_slots)
		return 0;
	slots = calloc(nr, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < flight->count; i++)
		slots[i] = slot_at(flight, i);
	free(flight->slots);
	flight->slots = slots;
	flight->nr_slots = nr;
	flight->head = 0;
	return 0;
}

int
tc_consumerd_kernel_flight_put(struct tc_consumerd_kernel_flight *flight, const uint8_t *packet,
			       uint32_t size)
{
	struct flight_packet *copy = malloc(sizeof(*copy) + size);

	if (!copy || grow(flight) < 0) {
		free(copy);
		return -ENOMEM;
	}
	copy->size = size;
	memcpy(copy->data, packet, size);
	while (flight->count > 0 && flight->bytes + size > flight->capacity)
		drop_oldest(flight);
	flight->slots[(flight->head + flight->count) % flight->nr_slots] = copy;
	flight->count++;
	flight->bytes += size;
	return 0;
}

int
tc_consumerd_kernel_flight_walk(const struct tc_consumerd_kernel_flight *flight,
				uint64_t max_bytes,
				int (*put)(void *data, const uint8_t *packet, uint32_t size),
				void *data, uint64_t *packets)
{
	size_t first = flight->count;
	uint64_t kept = 0;

	/* The newest that fit, found from the end. */
	while (first > 0 && (max_bytes == 0 || kept + slot_at(flight, first - 1)->size <= max_bytes))
		kept += slot_at(flight, --first)->size;
	for (size_t i = first; i < flight->count; i++) {
		const struct flight_packet *packet = slot_at(flight, i);
		int ret = put(data, packet->data, packet->size);

		if (ret < 0)
			return ret;
		(*packets)++;
	}
	return 0;
}

uint64_t
tc_consumerd_kernel_flight_bytes(const struct tc_consumerd_kernel_flight *flight)
{
	return flight->bytes;
}
