/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The packet walk of tc-consumerd-layout.c on hand-built packets: what it
 * accepts, what it calls corrupt, and where it waits for a layout. Runs of
 * compact records of one class take a shorter path than the others, and
 * long runs one that walks several parts of the packet side by side;
 * every verdict is checked on each.
 */
#include <errno.h>
#include <glib.h>
#include <string.h>

#include "tc-consumerd-layout.h"
#include "tc-rb.h"
#include "tracectl-abi.h"

#define PACKET_SIZE 65536u
#define FIXED_ID 3u    /* two 64-bit integers */
#define STRING_ID 4u   /* a 32-bit integer, then a string */
#define EXTENDED_ID 40u /* an id only the extended header can carry; one byte */

typedef struct {
	struct tc_consumerd_layouts layouts;
	uint8_t packet[PACKET_SIZE];
	uint64_t pos, clock;
} Fixture;

static void
add_layout(Fixture *fixture, uint32_t id, uint32_t nr_fields, const uint8_t *fields)
{
	struct tc_consumer_event_layout msg = { .event_id = id, .nr_fields = nr_fields };

	memcpy(msg.fields, fields, nr_fields);
	g_assert_cmpint(tc_consumerd_layout_add(&fixture->layouts, &msg), ==, 0);
}

static void
fixture_setup(Fixture *fixture, gconstpointer data)
{
	static const uint8_t two_u64[] = { 8, 8 };
	static const uint8_t u32_string[] = { 4, TC_CONSUMER_FIELD_STRING };
	static const uint8_t one_byte[] = { 1 };
	struct tc_packet_header *header = (void *)fixture->packet;

	memset(fixture, 0, sizeof(*fixture));
	add_layout(fixture, FIXED_ID, 2, two_u64);
	add_layout(fixture, STRING_ID, 2, u32_string);
	add_layout(fixture, EXTENDED_ID, 1, one_byte);
	fixture->clock = 1000;
	header->timestamp_begin = fixture->clock;
	header->timestamp_end = fixture->clock + (1ull << 40);
	fixture->pos = sizeof(*header);
}

static void
fixture_teardown(Fixture *fixture, gconstpointer data)
{
	tc_consumerd_layout_clear(&fixture->layouts);
}

static void
append(Fixture *fixture, const void *bytes, uint64_t len)
{
	g_assert_cmpuint(fixture->pos + len, <=, PACKET_SIZE);
	if (len != 0)
		memcpy(fixture->packet + fixture->pos, bytes, len);
	fixture->pos += len;
}

/* A compact record, delta ticks after the one before, with its payload. */
static void
append_compact(Fixture *fixture, uint32_t id, uint64_t delta, const void *payload, uint64_t len)
{
	uint32_t word;

	fixture->clock += delta;
	word = tc_event_compact_pack(id, fixture->clock);
	append(fixture, &word, sizeof(word));
	append(fixture, payload, len);
}

static void
append_extended(Fixture *fixture, uint32_t id, uint64_t timestamp, const void *payload,
		uint64_t len)
{
	struct tc_event_header_extended header = {
		.tag = TC_EVENT_EXTENDED_TAG, .id = id, .timestamp = timestamp,
	};

	fixture->clock = timestamp;
	append(fixture, &header, sizeof(header));
	append(fixture, payload, len);
}

static void
append_fixed_run(Fixture *fixture, int count)
{
	static const uint64_t payload[2] = { 1, 2 };

	for (int i = 0; i < count; i++)
		append_compact(fixture, FIXED_ID, 10, payload, sizeof(payload));
}

/* Closes the packet where the records end, or at content_end if not 0. */
static enum tc_consumerd_packet_verdict
check(Fixture *fixture, uint64_t content_end)
{
	struct tc_packet_header *header = (void *)fixture->packet;

	header->content_size = (content_end ? content_end : fixture->pos) * 8;
	header->packet_size = PACKET_SIZE * 8;
	return tc_consumerd_layout_check_packet(&fixture->layouts, fixture->packet, PACKET_SIZE);
}

static void
test_valid(Fixture *fixture, gconstpointer data)
{
	static const uint8_t string_payload[] = { 1, 2, 3, 4, 'h', 'i', 0 };
	static const uint8_t byte = 7;

	/* Empty, then runs broken by other classes and by extended headers. */
	g_assert_cmpint(check(fixture, 0), ==, CONSUMERD_PACKET_VALID);
	append_fixed_run(fixture, 50);
	append_compact(fixture, STRING_ID, 5, string_payload, sizeof(string_payload));
	append_fixed_run(fixture, 3);
	append_extended(fixture, EXTENDED_ID, fixture->clock + (1ull << 30), &byte, 1);
	append_fixed_run(fixture, 7);
	append_extended(fixture, FIXED_ID, fixture->clock + 1, (uint64_t[2]){ 3, 4 }, 16);
	append_fixed_run(fixture, 2);
	g_assert_cmpint(check(fixture, 0), ==, CONSUMERD_PACKET_VALID);
}

/* A run whose last record is cut by the content end. */
static void
test_run_cut_short(Fixture *fixture, gconstpointer data)
{
	append_fixed_run(fixture, 10);
	g_assert_cmpint(check(fixture, fixture->pos - 1), ==, CONSUMERD_PACKET_CORRUPT);
	g_assert_cmpint(check(fixture, fixture->pos - 20), ==, CONSUMERD_PACKET_VALID);
	g_assert_cmpint(check(fixture, fixture->pos - 21), ==, CONSUMERD_PACKET_CORRUPT);
}

/* A timestamp after the packet's end, in the middle of a run or first. */
static void
test_timestamp_past_end(Fixture *fixture, gconstpointer data)
{
	struct tc_packet_header *header = (void *)fixture->packet;

	append_fixed_run(fixture, 10);
	header->timestamp_end = fixture->clock - 15;
	g_assert_cmpint(check(fixture, 0), ==, CONSUMERD_PACKET_CORRUPT);
	header->timestamp_end = fixture->clock;
	g_assert_cmpint(check(fixture, 0), ==, CONSUMERD_PACKET_VALID);
	header->timestamp_end = header->timestamp_begin + 5;
	g_assert_cmpint(check(fixture, 0), ==, CONSUMERD_PACKET_CORRUPT);
}

/* Runs whose low timestamp bits wrap several times: the clock restored
 * at the end of the run is the one the packet's end is checked against. */
static void
test_run_wraps(Fixture *fixture, gconstpointer data)
{
	static const uint64_t payload[2] = { 1, 2 };
	struct tc_packet_header *header = (void *)fixture->packet;

	append_fixed_run(fixture, 3);
	for (int i = 0; i < 5; i++)
		append_compact(fixture, FIXED_ID, (1ull << TC_RB_COMPACT_TS_BITS) - 3, payload,
			       sizeof(payload));
	append_fixed_run(fixture, 3);
	header->timestamp_end = fixture->clock;
	g_assert_cmpint(check(fixture, 0), ==, CONSUMERD_PACKET_VALID);
	header->timestamp_end = fixture->clock - 1;
	g_assert_cmpint(check(fixture, 0), ==, CONSUMERD_PACKET_CORRUPT);
}

/* Restored timestamps that pass 2^64 would go back to a small clock that
 * any packet end allows: first in the packet or within a run. */
static void
test_clock_passes_2_64(Fixture *fixture, gconstpointer data)
{
	struct tc_packet_header *header = (void *)fixture->packet;

	fixture->clock = header->timestamp_begin = UINT64_MAX - 100;
	header->timestamp_end = UINT64_MAX;
	append_fixed_run(fixture, 2);
	fixture->clock += 1000;
	append_fixed_run(fixture, 1);
	g_assert_cmpint(check(fixture, 0), ==, CONSUMERD_PACKET_CORRUPT);

	fixture->pos = sizeof(*header);
	fixture->clock = header->timestamp_begin;
	fixture->clock += 1000;
	append_fixed_run(fixture, 1);
	g_assert_cmpint(check(fixture, 0), ==, CONSUMERD_PACKET_CORRUPT);
}

/* An extended header that goes back in time, after a run. */
static void
test_extended_goes_back(Fixture *fixture, gconstpointer data)
{
	static const uint8_t byte = 7;
	uint64_t before;

	append_fixed_run(fixture, 4);
	before = fixture->clock;
	append_extended(fixture, EXTENDED_ID, before - 1, &byte, 1);
	g_assert_cmpint(check(fixture, 0), ==, CONSUMERD_PACKET_CORRUPT);
}

/* A class without a layout, first or after a run; a string without its
 * terminator. */
static void
test_unknown_and_unterminated(Fixture *fixture, gconstpointer data)
{
	static const uint8_t unterminated[] = { 1, 2, 3, 4, 'h', 'i' };

	append_fixed_run(fixture, 4);
	append_compact(fixture, 9, 1, NULL, 0);
	g_assert_cmpint(check(fixture, 0), ==, CONSUMERD_PACKET_UNKNOWN_EVENT);

	fixture_teardown(fixture, NULL);
	fixture_setup(fixture, NULL);
	append_fixed_run(fixture, 4);
	append_compact(fixture, STRING_ID, 1, unterminated, sizeof(unterminated));
	g_assert_cmpint(check(fixture, 0), ==, CONSUMERD_PACKET_CORRUPT);
}

/* Runs long enough to be walked in parts side by side, with wraps of the
 * low timestamp bits inside the parts and on their boundaries, whole or
 * broken late by another class (then walked record by record). */
static void
append_long_run(Fixture *fixture, int count, int other_at, uint32_t other_id)
{
	static const uint64_t payload[2] = { 1, 2 };
	static const uint8_t string_payload[] = { 1, 2, 3, 4, 'h', 'i', 0 };

	for (int i = 0; i < count; i++) {
		/* Most records wrap, so that most boundaries between the
		 * parts of the walk have a wrap on them. */
		uint64_t delta = i % 3 != 0 ? (1ull << TC_RB_COMPACT_TS_BITS) - 3 : 10;

		if (i == other_at && other_id == STRING_ID)
			append_compact(fixture, STRING_ID, delta, string_payload,
				       sizeof(string_payload));
		else if (i == other_at)
			append_compact(fixture, other_id, delta, NULL, 0);
		else
			append_compact(fixture, FIXED_ID, delta, payload, sizeof(payload));
	}
}

static void
test_long_runs(Fixture *fixture, gconstpointer data)
{
	struct tc_packet_header *header = (void *)fixture->packet;
	const int other_at[] = { -1, 900, 260, 2 };

	for (size_t i = 0; i < G_N_ELEMENTS(other_at); i++) {
		fixture_teardown(fixture, NULL);
		fixture_setup(fixture, NULL);
		append_long_run(fixture, 1000, other_at[i], STRING_ID);
		header->timestamp_end = fixture->clock;
		g_assert_cmpint(check(fixture, 0), ==, CONSUMERD_PACKET_VALID);
		header->timestamp_end = fixture->clock - 1;
		g_assert_cmpint(check(fixture, 0), ==, CONSUMERD_PACKET_CORRUPT);
		/* Cut in the last part: the run ends where the content does. */
		header->timestamp_end = fixture->clock;
		g_assert_cmpint(check(fixture, fixture->pos - 1), ==, CONSUMERD_PACKET_CORRUPT);
	}
	fixture_teardown(fixture, NULL);
	fixture_setup(fixture, NULL);
	append_long_run(fixture, 1000, 800, 9);
	header->timestamp_end = fixture->clock;
	g_assert_cmpint(check(fixture, 0), ==, CONSUMERD_PACKET_UNKNOWN_EVENT);
}

#define CONTAINERS_ID 5u /* a 3 x uint16 array, then a sequence of uint32 */
#define ARRAY_ONLY_ID 6u /* a 1000-byte array: fixed size, walked in runs */

static void
add_containers(Fixture *fixture)
{
	struct tc_consumer_event_layout msg = {
		.event_id = CONTAINERS_ID,
		.nr_fields = 2,
		.fields = { TC_CONSUMER_FIELD_ARRAY, TC_CONSUMER_FIELD_SEQUENCE },
		.sizes = { 3 * sizeof(uint16_t), sizeof(uint32_t) },
	};

	g_assert_cmpint(tc_consumerd_layout_add(&fixture->layouts, &msg), ==, 0);
	msg.event_id = ARRAY_ONLY_ID;
	msg.nr_fields = 1;
	msg.sizes[0] = 1000;
	g_assert_cmpint(tc_consumerd_layout_add(&fixture->layouts, &msg), ==, 0);
}

/* A record of CONTAINERS_ID with length elements, claiming claimed. */
static void
append_containers(Fixture *fixture, uint32_t length, uint32_t claimed)
{
	uint8_t payload[6 + 4 + 64 * 4] = { 0 };

	g_assert_cmpuint(length, <=, 64);
	memcpy(payload + 6, &claimed, sizeof(claimed));
	append_compact(fixture, CONTAINERS_ID, 10, payload, 6 + 4 + length * 4);
}

static void
test_arrays_and_sequences(Fixture *fixture, gconstpointer data)
{
	static const uint8_t thousand[1000];

	add_containers(fixture);
	/* Empty, short and long sequences; runs of the fixed-size array. */
	append_containers(fixture, 0, 0);
	append_containers(fixture, 1, 1);
	append_containers(fixture, 64, 64);
	for (int i = 0; i < 40; i++)
		append_compact(fixture, ARRAY_ONLY_ID, 10, thousand, sizeof(thousand));
	append_containers(fixture, 2, 2);
	g_assert_cmpint(check(fixture, 0), ==, CONSUMERD_PACKET_VALID);
	/* Cut inside the last sequence, or inside an array. */
	g_assert_cmpint(check(fixture, fixture->pos - 1), ==, CONSUMERD_PACKET_CORRUPT);
	g_assert_cmpint(check(fixture, fixture->pos - 4 - 6 - 8 - 500), ==,
			CONSUMERD_PACKET_CORRUPT);
	/* A length past the packet's content, up to one whose bytes would
	 * wrap 32 bits. */
	append_containers(fixture, 2, 3);
	g_assert_cmpint(check(fixture, 0), ==, CONSUMERD_PACKET_CORRUPT);
	fixture->pos -= 4 + 6 + 4 + 2 * 4;
	append_containers(fixture, 2, 0x40000001u);
	g_assert_cmpint(check(fixture, 0), ==, CONSUMERD_PACKET_CORRUPT);
	fixture->pos -= 4 + 6 + 4 + 2 * 4;
	append_containers(fixture, 2, UINT32_MAX);
	g_assert_cmpint(check(fixture, 0), ==, CONSUMERD_PACKET_CORRUPT);
	/* A shorter length leaves bytes that the next record's header is
	 * read from: here an id 0, which has no layout. */
	fixture->pos -= 4 + 6 + 4 + 2 * 4;
	append_containers(fixture, 2, 1);
	g_assert_cmpint(check(fixture, 0), ==, CONSUMERD_PACKET_UNKNOWN_EVENT);
}

#define ENUMS_ID 8u

/* Enumeration fields, laid out as tracectld lays them out from the
 * application's description (tracectl_abi_field_fixed_size()): each as
 * its container, whichever enumeration its size word names. */
static void
test_enumerations(Fixture *fixture, gconstpointer data)
{
	static const struct tracectl_abi_field fields[] = {
		{"state", TRACECTL_FIELD_ENUM | TRACECTL_FIELD_ELEMENT(TRACECTL_FIELD_UNSIGNED, 1), 0},
		{"delta", TRACECTL_FIELD_ENUM | TRACECTL_FIELD_ELEMENT(TRACECTL_FIELD_SIGNED, 8), 3},
		{"mode", TRACECTL_FIELD_ENUM | TRACECTL_FIELD_ELEMENT(TRACECTL_FIELD_UNSIGNED, 2), 7},
	};
	struct tc_consumer_event_layout msg = {.event_id = ENUMS_ID, .nr_fields = 3};
	const uint8_t record[1 + 8 + 2] = {200, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 0};

	for (guint i = 0; i < G_N_ELEMENTS(fields); i++)
		msg.fields[i] = (uint8_t)tracectl_abi_field_fixed_size(fields[i].type, fields[i].size);
	g_assert_cmpint(tc_consumerd_layout_add(&fixture->layouts, &msg), ==, 0);
	for (int i = 0; i < 100; i++)
		append_compact(fixture, ENUMS_ID, 10, record, sizeof(record));
	g_assert_cmpint(check(fixture, 0), ==, CONSUMERD_PACKET_VALID);
	g_assert_cmpint(check(fixture, fixture->pos - 1), ==, CONSUMERD_PACKET_CORRUPT);
}

static void
test_container_layouts_refused(Fixture *fixture, gconstpointer data)
{
	static const struct {
		uint8_t kind;
		uint32_t size;
	} refused[] = {
		{ TC_CONSUMER_FIELD_ARRAY, 0 },
		{ TC_CONSUMER_FIELD_ARRAY, TC_CONSUMER_FIELD_ARRAY_MAX + 1 },
		{ TC_CONSUMER_FIELD_ARRAY, UINT32_MAX },
		{ TC_CONSUMER_FIELD_SEQUENCE, 0 },
		{ TC_CONSUMER_FIELD_SEQUENCE, 3 },
		{ TC_CONSUMER_FIELD_SEQUENCE, 16 },
		{ TC_CONSUMER_FIELD_STRING, 1 },
		{ TC_CONSUMER_FIELD_BYTES, 1 },
		{ 4, 4 },
	};
	struct tc_consumer_event_layout msg = { .event_id = 7, .nr_fields = 1 };

	for (size_t i = 0; i < G_N_ELEMENTS(refused); i++) {
		msg.fields[0] = refused[i].kind;
		msg.sizes[0] = refused[i].size;
		g_assert_cmpint(tc_consumerd_layout_add(&fixture->layouts, &msg), ==, -EINVAL);
	}
	msg.fields[0] = TC_CONSUMER_FIELD_ARRAY;
	msg.sizes[0] = TC_CONSUMER_FIELD_ARRAY_MAX;
	g_assert_cmpint(tc_consumerd_layout_add(&fixture->layouts, &msg), ==, 0);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
#define ADD(path, func) \
	g_test_add("/tracectl/consumerd-layout/" path, Fixture, NULL, fixture_setup, func, \
		   fixture_teardown)
	ADD("valid", test_valid);
	ADD("run-cut-short", test_run_cut_short);
	ADD("timestamp-past-end", test_timestamp_past_end);
	ADD("run-wraps", test_run_wraps);
	ADD("clock-passes-2-64", test_clock_passes_2_64);
	ADD("extended-goes-back", test_extended_goes_back);
	ADD("unknown-and-unterminated", test_unknown_and_unterminated);
	ADD("long-runs", test_long_runs);
	ADD("arrays-and-sequences", test_arrays_and_sequences);
	ADD("container-layouts-refused", test_container_layouts_refused);
	ADD("enumerations", test_enumerations);
	return g_test_run();
}
