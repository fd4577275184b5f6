/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The record layouts of a channel's event classes, and the walk that
 * checks a packet against them before it is written: an application can
 * scribble on its own buffers, and a single bad record would stop
 * babeltrace2 at that point of the trace.
 */
#ifndef TC_CONSUMERD_LAYOUT_H
#define TC_CONSUMERD_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "tc-consumer-abi.h"

struct tc_consumerd_event_layout {
	uint32_t context_size;
	uint32_t nr_fields;
	/* Context and fields, when every field has a fixed size (the common
	 * case, walked in one step); 0 when a string, byte array or sequence
	 * varies. */
	uint32_t fixed_size;
	uint8_t fields[TC_CONSUMER_LAYOUT_FIELDS_MAX];
	uint32_t sizes[TC_CONSUMER_LAYOUT_FIELDS_MAX]; /* arrays' and sequences' */
};

/* Layouts by event id; NULL where none is known (yet). */
struct tc_consumerd_layouts {
	struct tc_consumerd_event_layout **by_id;
	uint32_t capacity;
};

enum tc_consumerd_packet_verdict {
	CONSUMERD_PACKET_VALID,
	CONSUMERD_PACKET_CORRUPT,
	/* A record of an event class whose layout has not arrived yet: the
	 * service sends layouts before it lets a registering application's
	 * constructor return, but threads the application already runs can
	 * write sooner, so the caller waits a little before calling it
	 * corrupt. */
	CONSUMERD_PACKET_UNKNOWN_EVENT,
};

/* Adds or replaces the layout of msg->event_id, after checking it.
 * Returns 0, -EINVAL or -ENOMEM. */
int tc_consumerd_layout_add(struct tc_consumerd_layouts *layouts,
			    const struct tc_consumer_event_layout *msg);
void tc_consumerd_layout_clear(struct tc_consumerd_layouts *layouts);

/* Walks the records of a packet that tc-rb's reader already checked (its
 * header and sizes), a private copy of size bytes. */
enum tc_consumerd_packet_verdict
tc_consumerd_layout_check_packet(const struct tc_consumerd_layouts *layouts, const uint8_t *packet,
				 uint32_t size);

#endif /* TC_CONSUMERD_LAYOUT_H */
