/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-consumer-layout.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tc-rb.h"

/*
 * The packet may be the writers' shared memory itself (a stream read in
 * place): each value read from it is read once, into a local that the
 * compiler may not fetch again from the packet, and bounds are checked on
 * that local. A writer changing the packet meanwhile changes the verdict,
 * never where the walk reads.
 */
#define READ_ONCE_FROM_PACKET(local) __asm__ volatile("" : "+g"(local))

static bool
field_kind_is_valid(uint8_t kind)
{
	return (kind >= 1 && kind <= 8) || kind == TC_CONSUMER_FIELD_STRING ||
	       kind == TC_CONSUMER_FIELD_BYTES;
}

static int
grow(struct consumerd_layouts *layouts, uint32_t id)
{
	uint32_t capacity = layouts->capacity ? layouts->capacity : 16;
	struct consumerd_event_layout **by_id;

	while (capacity <= id)
		capacity *= 2;
	by_id = realloc(layouts->by_id, capacity * sizeof(*by_id));
	if (!by_id)
		return -ENOMEM;
	memset(by_id + layouts->capacity, 0, (capacity - layouts->capacity) * sizeof(*by_id));
	layouts->by_id = by_id;
	layouts->capacity = capacity;
	return 0;
}

/* Context plus fields of a checked layout, or 0 when a field's size varies
 * (and for no byte at all, where the walk has nothing to skip either). */
static uint32_t
fixed_size_of(const struct tc_consumer_event_layout *msg)
{
	uint32_t size = msg->context_size;

	for (uint32_t i = 0; i < msg->nr_fields; i++) {
		if (msg->fields[i] == TC_CONSUMER_FIELD_STRING ||
		    msg->fields[i] == TC_CONSUMER_FIELD_BYTES)
			return 0;
		size += msg->fields[i];
	}
	return size;
}

int
consumerd_layouts_add(struct consumerd_layouts *layouts, const struct tc_consumer_event_layout *msg)
{
	struct consumerd_event_layout *layout;
	int ret;

	if (msg->event_id > TC_CONSUMER_EVENT_ID_MAX ||
	    msg->nr_fields > TC_CONSUMER_LAYOUT_FIELDS_MAX || msg->context_size > 4096)
		return -EINVAL;
	for (uint32_t i = 0; i < msg->nr_fields; i++)
		if (!field_kind_is_valid(msg->fields[i]))
			return -EINVAL;
	if (msg->event_id >= layouts->capacity && (ret = grow(layouts, msg->event_id)) < 0)
		return ret;
	layout = layouts->by_id[msg->event_id];
	if (!layout && !(layout = malloc(sizeof(*layout))))
		return -ENOMEM;
	layout->context_size = msg->context_size;
	layout->nr_fields = msg->nr_fields;
	memcpy(layout->fields, msg->fields, sizeof(layout->fields));
	layout->fixed_size = fixed_size_of(msg);
	layouts->by_id[msg->event_id] = layout;
	return 0;
}

void
consumerd_layouts_clear(struct consumerd_layouts *layouts)
{
	for (uint32_t i = 0; i < layouts->capacity; i++)
		free(layouts->by_id[i]);
	free(layouts->by_id);
	layouts->by_id = NULL;
	layouts->capacity = 0;
}

/* Skips one field at *pos of a record ending before end. */
static bool
skip_field(uint8_t kind, const uint8_t *packet, uint64_t *pos, uint64_t end)
{
	uint32_t length;
	const uint8_t *nul;

	switch (kind) {
	case TC_CONSUMER_FIELD_STRING:
		nul = memchr(packet + *pos, '\0', end - *pos);
		if (!nul)
			return false;
		*pos = (uint64_t)(nul - packet) + 1;
		return true;
	case TC_CONSUMER_FIELD_BYTES:
		if (end - *pos < sizeof(length))
			return false;
		memcpy(&length, packet + *pos, sizeof(length));
		READ_ONCE_FROM_PACKET(length);
		*pos += sizeof(length);
		if (end - *pos < length)
			return false;
		*pos += length;
		return true;
	default:
		if (end - *pos < kind)
			return false;
		*pos += kind;
		return true;
	}
}

/*
 * Reads the record header at *pos (compact or extended, tc-rb.h): the event
 * id, and the timestamp, restored from *clock as a CTF reader does; *clock
 * becomes it. Returns false when the header does not fit or its full
 * timestamp goes back (restored past 2^64 included).
 */
static bool
read_record_header(const uint8_t *packet, uint64_t *pos, uint64_t end, uint64_t *clock,
		   uint32_t *id)
{
	struct tc_event_header_extended extended;
	uint64_t restored;
	uint32_t word, extended_id;

	if (end - *pos < sizeof(word))
		return false;
	memcpy(&word, packet + *pos, sizeof(word));
	READ_ONCE_FROM_PACKET(word);
	if (tc_event_compact_id(word) != TC_EVENT_ID_EXTENDED) {
		restored = tc_event_compact_restore(*clock, tc_event_compact_timestamp(word));
		/* Less only when a wrap of the low bits passed 2^64. */
		if (restored < *clock)
			return false;
		*id = tc_event_compact_id(word);
		*clock = restored;
		*pos += sizeof(word);
		return true;
	}
	if (end - *pos < sizeof(extended))
		return false;
	memcpy(&extended, packet + *pos, sizeof(extended));
	/* The id indexes the layouts: one value only. */
	extended_id = extended.id;
	READ_ONCE_FROM_PACKET(extended_id);
	if (extended.tag != TC_EVENT_EXTENDED_TAG || extended.timestamp < *clock)
		return false;
	*id = extended_id;
	*clock = extended.timestamp;
	*pos += sizeof(extended);
	return true;
}

/* Skips the context and fields of a record of layout at *pos. */
static bool
skip_payload(const struct consumerd_event_layout *layout, const uint8_t *packet, uint64_t *pos,
	     uint64_t end)
{
	if (layout->fixed_size != 0) {
		if (end - *pos < layout->fixed_size)
			return false;
		*pos += layout->fixed_size;
		return true;
	}
	if (end - *pos < layout->context_size)
		return false;
	*pos += layout->context_size;
	for (uint32_t i = 0; i < layout->nr_fields; i++)
		if (!skip_field(layout->fields[i], packet, pos, end))
			return false;
	return true;
}

/* A packet the writers filled on another CPU comes from that CPU's cache
 * or from memory, one line at a time: the walk loads a word per record
 * and waits for each line. Asking for the lines this far ahead keeps
 * several on their way: the walk of full packets took about 15 % less. */
#define RUN_PREFETCH_AHEAD 1024

/*
 * Skips the compact records of class id and fixed size record_size (header
 * included) from *pos on, restoring *clock: the walk of a hot tracepoint's
 * packet, in few instructions. Stops before any other record, which the
 * general walk then reads. Returns false when the restored clock wraps
 * past 2^64, which would make it go back.
 *
 * Restoring a compact timestamp adds one wrap of the low bits when they
 * went back (tc_event_compact_restore): the run's clock is the first
 * one's high bits plus the wraps counted, with the last record's low bits.
 * Counting them compares neighbouring records only, so the records are
 * walked without the chain of restores through each one's clock.
 */
static bool
skip_compact_run(const uint8_t *packet, uint64_t *pos, uint64_t end, uint64_t *clock,
		 uint32_t id, uint32_t record_size)
{
	const uint64_t low_mask = (1ull << TC_RB_COMPACT_TS_BITS) - 1;
	uint64_t at = *pos, wraps = 0, high = *clock & ~low_mask, restored;
	uint32_t low = (uint32_t)(*clock & low_mask), word, next;

	while (end - at >= record_size) {
		/* Prefetches never fault: past the packet's end is harmless. */
		__builtin_prefetch(packet + at + RUN_PREFETCH_AHEAD);
		memcpy(&word, packet + at, sizeof(word));
		if (tc_event_compact_id(word) != id)
			break;
		next = tc_event_compact_timestamp(word);
		wraps += next < low;
		low = next;
		at += record_size;
	}
	*pos = at;
	/* A packet holds fewer than 2^32 records: no overflow in the shift. */
	restored = high + (wraps << TC_RB_COMPACT_TS_BITS);
	if (restored < high)
		return false;
	*clock = restored | low;
	return true;
}

enum consumerd_packet_verdict
consumerd_packet_check(const struct consumerd_layouts *layouts, const uint8_t *packet,
		       uint32_t size)
{
	const struct tc_packet_header *header = (const void *)packet;
	uint64_t content_size = header->content_size, end, pos = sizeof(*header);
	uint64_t clock = header->timestamp_begin;
	/* The layout of the record before: a hot tracepoint fills packets
	 * with records of one class, and looking its layout up again would
	 * be most of the walk's cost. */
	const struct consumerd_event_layout *layout = NULL;
	uint32_t id, layout_id = UINT32_MAX;

	/* The bound of every read below. */
	READ_ONCE_FROM_PACKET(content_size);
	end = content_size / 8;
	if (end > size || end < pos)
		return CONSUMERD_PACKET_CORRUPT;
	while (pos < end) {
		/* Timestamps never go back (restored ones cannot) and stay
		 * within the packet's, as CTF readers require. */
		if (!read_record_header(packet, &pos, end, &clock, &id) ||
		    clock > header->timestamp_end || id > TC_CONSUMER_EVENT_ID_MAX)
			return CONSUMERD_PACKET_CORRUPT;
		if (id != layout_id) {
			if (id >= layouts->capacity || !(layout = layouts->by_id[id]))
				return CONSUMERD_PACKET_UNKNOWN_EVENT;
			layout_id = id;
		}
		if (!skip_payload(layout, packet, &pos, end))
			return CONSUMERD_PACKET_CORRUPT;
		if (layout->fixed_size != 0 && id < TC_EVENT_ID_EXTENDED) {
			/* Restored timestamps only grow: the last is the
			 * highest of the run. */
			if (!skip_compact_run(packet, &pos, end, &clock, id,
					      sizeof(uint32_t) + layout->fixed_size) ||
			    clock > header->timestamp_end)
				return CONSUMERD_PACKET_CORRUPT;
		}
	}
	return CONSUMERD_PACKET_VALID;
}
