/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-consumerd-layout.h"

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

/* A field's kind, and its size where the kind has one (arrays' bytes,
 * sequences' element bytes), 0 where it has none. A kind of 1 to 8 is a
 * fixed size: an integer, a float, a double, or an enumeration, laid out
 * as its container. */
static bool
field_is_valid(uint8_t kind, uint32_t size)
{
	switch (kind) {
	case TC_CONSUMER_FIELD_ARRAY:
		return size >= 1 && size <= TC_CONSUMER_FIELD_ARRAY_MAX;
	case TC_CONSUMER_FIELD_SEQUENCE:
		return size == 1 || size == 2 || size == 4 || size == 8;
	case TC_CONSUMER_FIELD_STRING:
	case TC_CONSUMER_FIELD_BYTES:
		return size == 0;
	default:
		return kind >= 1 && kind <= 8 && size == 0;
	}
}

static int
grow(struct tc_consumerd_layouts *layouts, uint32_t id)
{
	uint32_t capacity = layouts->capacity ? layouts->capacity : 16;
	struct tc_consumerd_event_layout **by_id;

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

	/* At most 4096 + 32 * TC_CONSUMER_FIELD_ARRAY_MAX: no overflow. */
	for (uint32_t i = 0; i < msg->nr_fields; i++) {
		if (msg->fields[i] == TC_CONSUMER_FIELD_STRING ||
		    msg->fields[i] == TC_CONSUMER_FIELD_BYTES ||
		    msg->fields[i] == TC_CONSUMER_FIELD_SEQUENCE)
			return 0;
		size += msg->fields[i] == TC_CONSUMER_FIELD_ARRAY ? msg->sizes[i] : msg->fields[i];
	}
	return size;
}

int
tc_consumerd_layout_add(struct tc_consumerd_layouts *layouts,
			const struct tc_consumer_event_layout *msg)
{
	struct tc_consumerd_event_layout *layout;
	int ret;

	if (msg->event_id > TC_CONSUMER_EVENT_ID_MAX ||
	    msg->nr_fields > TC_CONSUMER_LAYOUT_FIELDS_MAX || msg->context_size > 4096)
		return -EINVAL;
	for (uint32_t i = 0; i < msg->nr_fields; i++)
		if (!field_is_valid(msg->fields[i], msg->sizes[i]))
			return -EINVAL;
	if (msg->event_id >= layouts->capacity && (ret = grow(layouts, msg->event_id)) < 0)
		return ret;
	layout = layouts->by_id[msg->event_id];
	if (!layout && !(layout = malloc(sizeof(*layout))))
		return -ENOMEM;
	layout->context_size = msg->context_size;
	layout->nr_fields = msg->nr_fields;
	memcpy(layout->fields, msg->fields, sizeof(layout->fields));
	memcpy(layout->sizes, msg->sizes, sizeof(layout->sizes));
	layout->fixed_size = fixed_size_of(msg);
	layouts->by_id[msg->event_id] = layout;
	return 0;
}

void
tc_consumerd_layout_clear(struct tc_consumerd_layouts *layouts)
{
	for (uint32_t i = 0; i < layouts->capacity; i++)
		free(layouts->by_id[i]);
	free(layouts->by_id);
	layouts->by_id = NULL;
	layouts->capacity = 0;
}

/* Skips one field at *pos of a record ending before end; size is the
 * layout's (arrays' bytes, sequences' element bytes). */
static bool
skip_field(uint8_t kind, uint32_t size, const uint8_t *packet, uint64_t *pos, uint64_t end)
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
	case TC_CONSUMER_FIELD_ARRAY:
		if (end - *pos < size)
			return false;
		*pos += size;
		return true;
	case TC_CONSUMER_FIELD_SEQUENCE:
		if (end - *pos < sizeof(length))
			return false;
		memcpy(&length, packet + *pos, sizeof(length));
		READ_ONCE_FROM_PACKET(length);
		*pos += sizeof(length);
		/* At most 2^32 elements of 8 bytes: no overflow in 64 bits. */
		if (end - *pos < (uint64_t)length * size)
			return false;
		*pos += (uint64_t)length * size;
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
skip_payload(const struct tc_consumerd_event_layout *layout, const uint8_t *packet, uint64_t *pos,
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
		if (!skip_field(layout->fields[i], layout->sizes[i], packet, pos, end))
			return false;
	return true;
}

/*
 * A packet the writers filled on another CPU comes from that CPU's cache
 * or from memory, one line at a time: a walk that loads a word per record
 * waits for each line in turn. Once a run is long, the rest of it is
 * walked in two halves of RUN_LANES interleaved lanes, each lane a part of
 * the packet prefetched RUN_PREFETCH_AHEAD bytes ahead, so that several
 * lines are on their way at once. Short runs (packets of mixed classes)
 * never try it.
 */
#define RUN_LANES 4
#define RUN_LONG_RECORDS 64
#define RUN_PREFETCH_AHEAD 512

static inline uint32_t
word_at(const uint8_t *packet, uint64_t at)
{
	uint32_t word;

	memcpy(&word, packet + at, sizeof(word));
	return word;
}

/*
 * Restoring a compact timestamp adds one wrap of the low bits when they
 * went back (tc_event_compact_restore): a run's clock is its first
 * one's high bits plus the wraps counted, with the last record's low bits.
 * Wraps are counted between neighbouring records only, so the records
 * are walked without the chain of restores through each one's clock, and
 * in any order.
 */

/* Walks at most count records of class id from *at on, one by one,
 * counting the wraps from *low on. Returns whether all count were. */
static bool
walk_run(const uint8_t *packet, uint64_t *at, uint64_t end, uint32_t id, uint32_t record_size,
	 uint64_t count, uint32_t *low, uint64_t *wraps)
{
	uint32_t word, next;

	for (; count > 0 && end - *at >= record_size; count--) {
		word = word_at(packet, *at);
		if (tc_event_compact_id(word) != id)
			return false;
		next = tc_event_compact_timestamp(word);
		*wraps += next < *low;
		*low = next;
		*at += record_size;
	}
	return count == 0;
}

/*
 * Walks RUN_LANES lanes of rows records each from at on, counting the
 * wraps as walk_run() does into *counted, from low (the record before at)
 * on; *last receives the last record's low bits. Returns nonzero when one
 * record is of another class than id. Positions never depend on what the
 * packet holds.
 */
static uint32_t
walk_lanes(const uint8_t *packet, uint64_t at, uint64_t rows, uint32_t id, uint32_t record_size,
	   uint32_t low, uint64_t *counted, uint32_t *last_low)
{
	const uint64_t stride = rows * record_size;
	uint32_t first[RUN_LANES], last[RUN_LANES], other = 0;
	uint64_t wraps = 0;

	for (int lane = 0; lane < RUN_LANES; lane++) {
		const uint32_t word = word_at(packet, at + lane * stride);

		other |= tc_event_compact_id(word) ^ id;
		first[lane] = last[lane] = tc_event_compact_timestamp(word);
	}
	for (uint64_t i = 1; i < rows && !other; i++) {
		const uint64_t offset = at + i * record_size;

		for (int lane = 0; lane < RUN_LANES; lane++) {
			const uint32_t word = word_at(packet, offset + lane * stride);
			const uint32_t next = tc_event_compact_timestamp(word);

			/* Prefetches never fault: past the packet's end is harmless. */
			__builtin_prefetch(packet + offset + lane * stride + RUN_PREFETCH_AHEAD);
			other |= tc_event_compact_id(word) ^ id;
			wraps += next < last[lane];
			last[lane] = next;
		}
	}
	/* The boundaries: before the first lane, and between lanes. */
	wraps += first[0] < low;
	for (int lane = 1; lane < RUN_LANES; lane++)
		wraps += first[lane] < last[lane - 1];
	*counted += wraps;
	*last_low = last[RUN_LANES - 1];
	return other;
}

/*
 * Skips the records from at on (the few left over are for walk_run())
 * when all are of class id: returns how many, their wraps counted as
 * walk_run() does. Returns 0, changing nothing, when one is of another
 * class: walk_run() then finds where the run ends.
 *
 * The run is walked as two halves of RUN_LANES lanes, the later half
 * first: the packet is sent from its start right after the check, and
 * what the check read last is what the cache still holds. Walked from
 * start to end, a packet larger than the cache would have its start
 * evicted by the time the send reads it, and every line the send reads
 * would evict the next it needs.
 */
static uint64_t
skip_run_lanes(const uint8_t *packet, uint64_t at, uint64_t end, uint32_t id,
	       uint32_t record_size, uint32_t *low, uint64_t *wraps)
{
	const uint64_t rows = (end - at) / record_size / (2 * RUN_LANES);
	const uint64_t half = rows * RUN_LANES * record_size;
	uint32_t middle, last, ignored;
	uint64_t counted = 0;

	if (rows * 2 < RUN_LONG_RECORDS)
		return 0;
	/* The later half's boundary is the earlier half's last record, whose
	 * class the earlier half's walk checks. */
	middle = tc_event_compact_timestamp(word_at(packet, at + half - record_size));
	if (walk_lanes(packet, at + half, rows, id, record_size, middle, &counted, &last) ||
	    walk_lanes(packet, at, rows, id, record_size, *low, &counted, &ignored))
		return 0;
	*wraps += counted;
	*low = last;
	return rows * 2 * RUN_LANES;
}

/*
 * Skips the compact records of class id and fixed size record_size (header
 * included) from *pos on, restoring *clock: the walk of a hot tracepoint's
 * packet, in few instructions. Stops before any other record, which the
 * general walk then reads. Returns false when the restored clock wraps
 * past 2^64, which would make it go back.
 */
static bool
skip_compact_run(const uint8_t *packet, uint64_t *pos, uint64_t end, uint64_t *clock,
		 uint32_t id, uint32_t record_size)
{
	const uint64_t low_mask = (1ull << TC_RB_COMPACT_TS_BITS) - 1;
	uint64_t at = *pos, wraps = 0, high = *clock & ~low_mask, restored;
	uint32_t low = (uint32_t)(*clock & low_mask);

	if (walk_run(packet, &at, end, id, record_size, RUN_LONG_RECORDS, &low, &wraps)) {
		at += skip_run_lanes(packet, at, end, id, record_size, &low, &wraps) * record_size;
		walk_run(packet, &at, end, id, record_size, UINT64_MAX, &low, &wraps);
	}
	*pos = at;
	/* A packet holds fewer than 2^32 records: no overflow in the shift. */
	restored = high + (wraps << TC_RB_COMPACT_TS_BITS);
	if (restored < high)
		return false;
	*clock = restored | low;
	return true;
}

enum tc_consumerd_packet_verdict
tc_consumerd_layout_check_packet(const struct tc_consumerd_layouts *layouts, const uint8_t *packet,
				 uint32_t size)
{
	const struct tc_packet_header *header = (const void *)packet;
	uint64_t content_size = header->content_size, end, pos = sizeof(*header);
	uint64_t clock = header->timestamp_begin;
	/* The layout of the record before: a hot tracepoint fills packets
	 * with records of one class, and looking its layout up again would
	 * be most of the walk's cost. */
	const struct tc_consumerd_event_layout *layout = NULL;
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
