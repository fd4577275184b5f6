/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes what tracectl-consumerd reads from an application's shared
 * memory. A buffer laid out by tc_rb_init_mode() and filled by the real
 * writer (records shaped as libtracectl-ust writes them) is scribbled on
 * as the input says, between reads; the reader copies packets out with
 * tc_rb_reader_get() and tc_rb_reader_peek(), and every packet it returns
 * is walked by tc_consumerd_layout_check_packet(), as the consumer does.
 *
 * What must hold whatever the input: no access outside the mapping or the
 * copies and no undefined behaviour (the program is built with
 * AddressSanitizer and UBSan, which abort on the first error); get and
 * peek return only their documented values; a packet returned as valid
 * carries the stream's identity and sizes that fit the sub-buffer; and
 * every call returns (a hang fails the test by its time limit).
 *
 * Built with libFuzzer it is a coverage-guided fuzzer, from the top of the
 * source tree (with Debian's clang):
 *
 *   clang -g -O1 -D_GNU_SOURCE -DFUZZ_LIBFUZZER \
 *     -fsanitize=fuzzer,address,undefined \
 *     -Itests/fuzz \
 *     -Icommon/ringbuffer -Icommon/abi -Iservice/consumerd \
 *     tests/fuzz/fuzz-consumer-input.c common/ringbuffer/tc-rb.c \
 *     service/consumerd/tc-consumerd-layout.c -o fuzz-consumer-input
 *   ./fuzz-consumer-input -max_len=512 -max_total_time=300 CORPUS_DIR
 *
 * Otherwise fuzz-driver.c's main() replays the input files given as
 * arguments, or mutates the seed inputs below with a seeded generator:
 * `fuzz-consumer-input --seed N --runs M`. The test suite runs a fixed
 * seed, so a failure reproduces with the same command.
 */
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-driver.h"
#include "tc-consumerd-layout.h"
#include "tc-rb.h"
#include "tracectl-abi.h"

#define FIXED_ID 3u                          /* two 64-bit integers */
#define STRING_ID 4u                         /* a 32-bit integer, then a string */
#define EXTENDED_ID (TC_EVENT_ID_EXTENDED + 9) /* one byte, extended header only */
/* an array of three 16-bit integers, then a sequence of 32-bit ones */
#define CONTAINERS_ID 5u
/* two enumerations, in containers of 1 and 8 bytes, then an integer */
#define ENUMS_ID 6u
#define STREAM_ID 7u
#define CPU 1u
#define GETS_MAX 64u /* per drain, as the consumer's budget */

static const uint8_t uuid[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

/* What the reads came to, over all inputs: the driver checks that the
 * inputs reach every outcome, or they test less than they seem to. */
enum outcome {
	GOT_VALID,
	GOT_CORRUPT,
	PEEKED_VALID,
	PEEKED_CORRUPT,
	WALK_VALID,
	WALK_CORRUPT,
	WALK_UNKNOWN_EVENT,
	OUTCOMES,
};
/* Named by the standalone driver only. */
static const char *const outcome_names[OUTCOMES] __attribute__((unused)) = {
	"get valid", "get corrupt", "peek valid", "peek corrupt",
	"walk valid", "walk corrupt", "walk unknown event",
};
static unsigned long long outcomes[OUTCOMES];

struct harness {
	struct tc_rb rb; /* the application's side */
	struct tc_rb_reader reader;
	struct tc_consumerd_layouts layouts;
	uint8_t *mapping;
	uint64_t mapping_size;
	uint8_t *packet; /* a copy, subbuf_size bytes */
	uint64_t seq;
};

static void
add_layout(struct harness *h, uint32_t id, uint32_t nr_fields, const uint8_t *fields,
	   const uint32_t *sizes)
{
	struct tc_consumer_event_layout msg = {.event_id = id, .nr_fields = nr_fields};

	memcpy(msg.fields, fields, nr_fields);
	if (sizes)
		memcpy(msg.sizes, sizes, nr_fields * sizeof(*sizes));
	if (tc_consumerd_layout_add(&h->layouts, &msg) != 0)
		abort();
}

/* One record as tc-ust-emit.c writes it: a compact header unless the id
 * or the timestamp needs the extended one. */
static void
write_event(struct harness *h, uint32_t id, const void *payload, uint32_t len)
{
	const uint32_t extra = sizeof(struct tc_event_header_extended) - sizeof(uint32_t);
	struct tc_event_header_extended extended;
	struct tc_rb_ctx ctx;
	uint32_t compact, pos;
	int ret;

	if (id >= TC_EVENT_ID_EXTENDED)
		ret = tc_rb_reserve(&h->rb, &ctx, sizeof(extended) + len);
	else
		ret = tc_rb_reserve_ts(&h->rb, &ctx, sizeof(compact) + len, extra);
	if (ret < 0)
		return; /* full, in discard mode: counted by the buffer */
	if (id >= TC_EVENT_ID_EXTENDED || ctx.full_timestamp) {
		extended = (struct tc_event_header_extended){
			.tag = TC_EVENT_EXTENDED_TAG, .id = id, .timestamp = ctx.timestamp};
		tc_rb_write(&ctx, 0, &extended, sizeof(extended));
		pos = sizeof(extended);
	} else {
		compact = tc_event_compact_pack(id, ctx.timestamp);
		tc_rb_write(&ctx, 0, &compact, sizeof(compact));
		pos = sizeof(compact);
	}
	tc_rb_write(&ctx, pos, payload, len);
	tc_rb_commit(&ctx);
}

/* count events, of the classes the bits of pattern pick in turn. */
static void
write_events(struct harness *h, unsigned int count, uint8_t pattern)
{
	for (unsigned int i = 0; i < count; i++) {
		uint64_t fixed[2] = {h->seq++, i};
		struct {
			uint32_t n;
			char text[9];
		} __attribute__((packed)) string = {(uint32_t)h->seq, "event-42"};
		uint8_t byte = (uint8_t)i;
		struct {
			uint16_t array[3];
			uint32_t length;
			uint32_t elements[4];
		} __attribute__((packed)) containers = {{1, 2, 3}, i % 5, {5, 6, 7, 8}};
		/* What tracectl_field_enum() records: the containers' values. */
		struct {
			uint8_t state;
			int64_t delta;
			uint32_t after;
		} __attribute__((packed)) enums = {(uint8_t)(i % 7), -(int64_t)i, i};

		switch ((pattern >> (2 * (i % 4))) & 3) {
		case 0:
			write_event(h, FIXED_ID, fixed, sizeof(fixed));
			break;
		case 3:
			write_event(h, CONTAINERS_ID, &containers,
				    (uint32_t)(offsetof(__typeof__(containers), elements) +
					       containers.length * sizeof(uint32_t)));
			break;
		case 1:
			write_event(h, STRING_ID, &string, sizeof(string));
			break;
		default:
			if (i % 8 < 4)
				write_event(h, EXTENDED_ID, &byte, sizeof(byte));
			else
				write_event(h, ENUMS_ID, &enums, sizeof(enums));
			break;
		}
	}
}

/* What the reader promises about a packet it returns as valid. */
static void
check_valid_packet(const struct harness *h)
{
	const struct tc_packet_header *header = (const void *)h->packet;
	uint64_t bits = (uint64_t)h->rb.subbuf_size * 8;

	if (header->magic != TC_CTF_MAGIC || header->stream_id != STREAM_ID ||
	    header->stream_instance_id != CPU || header->cpu_id != CPU ||
	    memcmp(header->uuid, uuid, sizeof(uuid)) != 0 || header->packet_size != bits ||
	    header->content_size > bits || header->content_size < sizeof(*header) * 8) {
		fprintf(stderr, "a packet returned as valid breaks the reader's promises\n");
		abort();
	}
	/* Any verdict is fine; the walk must only stay inside the copy. */
	switch (tc_consumerd_layout_check_packet(&h->layouts, h->packet, h->rb.subbuf_size)) {
	case CONSUMERD_PACKET_VALID:
		outcomes[WALK_VALID]++;
		break;
	case CONSUMERD_PACKET_CORRUPT:
		outcomes[WALK_CORRUPT]++;
		break;
	case CONSUMERD_PACKET_UNKNOWN_EVENT:
		outcomes[WALK_UNKNOWN_EVENT]++;
		break;
	}
}

/* Returns what tc_rb_reader_get() did. */
static int
get_one(struct harness *h)
{
	int ret = tc_rb_reader_get(&h->reader, h->packet);

	if (ret == 1) {
		outcomes[GOT_VALID]++;
		check_valid_packet(h);
		tc_rb_reader_put(&h->reader);
	} else if (ret == -EBADMSG) {
		outcomes[GOT_CORRUPT]++;
	} else if (ret != 0) {
		fprintf(stderr, "tc_rb_reader_get() returned %d\n", ret);
		abort();
	}
	return ret;
}

static void
peek_one(struct harness *h, uint8_t which)
{
	uint64_t begin, end, position;
	int ret;

	tc_rb_reader_snapshot_range(&h->reader, &begin, &end);
	if (end < begin || end - begin > (uint64_t)h->rb.subbuf_size * h->rb.num_subbuf) {
		fprintf(stderr, "snapshot range [%llu, %llu) is more than a buffer\n",
			(unsigned long long)begin, (unsigned long long)end);
		abort();
	}
	position = begin + (uint64_t)(which % h->rb.num_subbuf) * h->rb.subbuf_size;
	ret = tc_rb_reader_peek(&h->reader, position, h->packet);
	if (ret == 1) {
		outcomes[PEEKED_VALID]++;
		check_valid_packet(h);
	} else if (ret == -EBADMSG) {
		outcomes[PEEKED_CORRUPT]++;
	} else if (ret != 0) {
		fprintf(stderr, "tc_rb_reader_peek() returned %d\n", ret);
		abort();
	}
}

/* Writes up to 8 bytes of the input into the header page, the commit
 * counters or the data, at an offset the input gives in that region. */
static void
scribble(struct harness *h, struct fuzz_input *in)
{
	uint64_t data_offset = (uint64_t)(h->reader.rb.data - h->mapping);
	uint64_t begin[] = {0, TC_RB_HEADER_SIZE, data_offset};
	uint64_t end[] = {TC_RB_HEADER_SIZE, data_offset, h->mapping_size};
	uint8_t region = fuzz_take_byte(in) % 3;
	uint64_t offset = begin[region] + fuzz_take_u32(in) % (end[region] - begin[region]);
	uint32_t len = 1 + fuzz_take_byte(in) % 8;

	for (uint32_t i = 0; i < len && offset + i < h->mapping_size; i++)
		__atomic_store_n(&h->mapping[offset + i], fuzz_take_byte(in), __ATOMIC_RELAXED);
}

/* The mapping of each of the four geometries, allocated once and zeroed
 * for each input: a fresh allocation per input cost more than the reads
 * (AddressSanitizer's quarantine hands out new pages, which fault). Each
 * is exactly its size, so that its red zone starts at the end. */
static uint8_t *
mapping_for(unsigned int geometry, uint64_t size)
{
	static uint8_t *mappings[4];

	if (!mappings[geometry])
		mappings[geometry] = aligned_alloc(TC_RB_HEADER_SIZE, size);
	if (!mappings[geometry])
		abort();
	return mappings[geometry];
}

/* The packet copy, exactly a sub-buffer of either size. */
static uint8_t *
packet_for(unsigned int large, uint32_t subbuf_size)
{
	static uint8_t *packets[2];

	if (!packets[large])
		packets[large] = malloc(subbuf_size);
	if (!packets[large])
		abort();
	return packets[large];
}

/* The buffer's CPU, if the machine has it, is the one the harness runs
 * on: the consumer's first flush of each buffer then finds its lock-out
 * in force at once (tc_rb_enter_remote()) instead of moving the thread
 * to that CPU and back, which took most of the time of an input on a
 * busy machine. That handshake has no bytes of the input to read, and a
 * machine without the CPU skips it the same way. */
static void
run_on_buffer_cpu(void)
{
	static bool pinned;
	cpu_set_t only;

	if (pinned)
		return;
	pinned = true;
	CPU_ZERO(&only);
	CPU_SET(CPU, &only);
	(void)sched_setaffinity(0, sizeof(only), &only);
}

/* The enumerations' event, laid out from its fields as the application
 * describes them and as tracectld lays them out for the consumer: an
 * enumeration as its container, whatever enumeration it names. */
static void
add_enums_layout(struct harness *h)
{
	static const struct tracectl_abi_field fields[] = {
		{"state", TRACECTL_FIELD_ENUM | TRACECTL_FIELD_ELEMENT(TRACECTL_FIELD_UNSIGNED, 1), 0},
		{"delta", TRACECTL_FIELD_ENUM | TRACECTL_FIELD_ELEMENT(TRACECTL_FIELD_SIGNED, 8), 1},
		{"after", TRACECTL_FIELD_UNSIGNED, 4},
	};
	uint8_t kinds[3];

	for (uint32_t i = 0; i < 3; i++)
		kinds[i] = (uint8_t)tracectl_abi_field_fixed_size(fields[i].type, fields[i].size);
	add_layout(h, ENUMS_ID, 3, kinds, NULL);
}

static void
harness_init(struct harness *h, struct fuzz_input *in)
{
	uint8_t geometry = fuzz_take_byte(in);
	uint32_t subbuf_size = TC_RB_SUBBUF_SIZE_MIN << (geometry & 1);
	uint32_t num_subbuf = TC_RB_NUM_SUBBUF_MIN << ((geometry >> 1) & 1);
	uint32_t flags = (geometry >> 2) & 1 ? TC_RB_FLAG_OVERWRITE : 0;
	static const uint8_t two_u64[] = {8, 8}, u32_string[] = {4, TC_CONSUMER_FIELD_STRING},
			     one_byte[] = {1};

	memset(h, 0, sizeof(*h));
	h->mapping_size = tc_rb_shm_size(subbuf_size, num_subbuf);
	h->mapping = mapping_for(geometry & 3, h->mapping_size);
	h->packet = packet_for(geometry & 1, subbuf_size);
	memset(h->mapping, 0, h->mapping_size);
	if (tc_rb_init_mode(h->mapping, subbuf_size, num_subbuf, CPU, STREAM_ID, uuid, flags) ||
	    tc_rb_attach(&h->rb, h->mapping, h->mapping_size) ||
	    tc_rb_reader_init(&h->reader, h->mapping, h->mapping_size, STREAM_ID, CPU, uuid))
		abort();
	h->rb.wake_fd = -1;
	static const uint8_t containers[] = {TC_CONSUMER_FIELD_ARRAY, TC_CONSUMER_FIELD_SEQUENCE};
	static const uint32_t container_sizes[] = {3 * sizeof(uint16_t), sizeof(uint32_t)};

	add_layout(h, FIXED_ID, 2, two_u64, NULL);
	add_layout(h, STRING_ID, 2, u32_string, NULL);
	add_layout(h, EXTENDED_ID, 1, one_byte, NULL);
	add_layout(h, CONTAINERS_ID, 2, containers, container_sizes);
	add_enums_layout(h);
}

static void
harness_fini(struct harness *h)
{
	tc_consumerd_layout_clear(&h->layouts);
}

enum op {
	OP_WRITE,
	OP_SCRIBBLE,
	OP_GET,
	OP_PEEK,
	OP_FLUSH,
	OP_CLOSE_EMPTY,
	OP_USAGE,
	OP_COUNT,
};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = {data, size, 0};
	struct harness h;

	run_on_buffer_cpu();
	harness_init(&h, &in);
	while (in.pos < in.size) {
		switch (fuzz_take_byte(&in) % OP_COUNT) {
		case OP_WRITE: {
			uint8_t count = fuzz_take_byte(&in);

			write_events(&h, count, fuzz_take_byte(&in));
			break;
		}
		case OP_SCRIBBLE:
			scribble(&h, &in);
			break;
		case OP_GET:
			(void)get_one(&h);
			break;
		case OP_PEEK:
			peek_one(&h, fuzz_take_byte(&in));
			break;
		case OP_FLUSH:
			/* The consumer's stop: on memory the application shares. */
			(void)tc_rb_flush(&h.reader.rb);
			break;
		case OP_CLOSE_EMPTY:
			(void)tc_rb_close_empty_packet(&h.reader.rb);
			break;
		default:
			(void)tc_rb_bytes_used(&h.reader.rb);
			break;
		}
	}
	/* The final drain, as the consumer's: until nothing is ready, within
	 * a budget (a scribbled write count can make every get fail). */
	(void)tc_rb_flush(&h.reader.rb);
	for (unsigned int i = 0; i < GETS_MAX && tc_rb_reader_ready(&h.reader); i++)
		if (get_one(&h) == 0)
			break;
	harness_fini(&h);
	return 0;
}

#ifndef FUZZ_LIBFUZZER
/* The seeds: sequences of operations (see enum op) that reach every path
 * of a sane buffer, for the mutations to start from. */
static const uint8_t seeds[][32] = {
	/* discard, 2 x 4 KiB: fill (count, classes), read all */
	{0, OP_WRITE, 250, 0x24, OP_GET, OP_GET, OP_GET, OP_FLUSH, OP_GET, OP_USAGE},
	/* overwrite, 4 x 8 KiB: fill past the reader, peek, read */
	{7, OP_WRITE, 255, 0x00, OP_WRITE, 255, 0x59, OP_WRITE, 255, 0x24, OP_PEEK, 1,
	 OP_GET, OP_PEEK, 2, OP_GET, OP_FLUSH, OP_GET},
	/* scribble (region, offset, length - 1, bytes): a commit counter */
	{2, OP_WRITE, 200, 0x24, OP_SCRIBBLE, 1, 64, 0, 0, 0, 7, 0xff, 0xff, 0xff, 0xff, 0xff,
	 0xff, 0xff, 0xff, OP_GET, OP_GET},
	/* the write position, then the read count */
	{5, OP_WRITE, 120, 0x24, OP_SCRIBBLE, 0, 0x40, 0, 0, 0, 7, 1, 2, 3, 4, 5, 6, 7, 8,
	 OP_GET, OP_SCRIBBLE, 0, 0x80, 0, 0, 0, 2, 9, 9, 9, OP_CLOSE_EMPTY, OP_GET},
	/* the first record's header: an id with no layout */
	{0, OP_WRITE, 100, 0x24, OP_SCRIBBLE, 2, 84, 0, 0, 0, 0, 0x1e, OP_FLUSH, OP_GET,
	 OP_GET},
	/* a string's terminator, in a packet of strings only */
	{0, OP_WRITE, 100, 0x55, OP_SCRIBBLE, 2, 100, 0, 0, 0, 7, 'x', 'x', 'x', 'x', 'x',
	 'x', 'x', 'x', OP_FLUSH, OP_GET, OP_GET},
	/* a packet header's sizes */
	{1, OP_WRITE, 255, 0x24, OP_SCRIBBLE, 2, 52, 0, 0, 0, 7, 0, 0, 1, 0, 0, 0, 0, 0,
	 OP_GET, OP_PEEK, 0, OP_GET},
};

static const struct fuzz_seed seed_list[] = {
	{seeds[0], 32}, {seeds[1], 32}, {seeds[2], 32}, {seeds[3], 32},
	{seeds[4], 32}, {seeds[5], 32}, {seeds[6], 32},
};
_Static_assert(sizeof(seed_list) / sizeof(seed_list[0]) == sizeof(seeds) / sizeof(seeds[0]),
	       "a seed is missing from seed_list");

const struct fuzz_harness fuzz_harness = {
	.seeds = seed_list,
	.nr_seeds = sizeof(seed_list) / sizeof(seed_list[0]),
	.input_max = 256,
	.outcome_names = outcome_names,
	.outcomes = outcomes,
	.nr_outcomes = OUTCOMES,
};
#endif
