/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests of the shared-memory ring buffer (common/ringbuffer/tc-rb.c):
 * writer and reader in one process, on an anonymous shared mapping.
 */
#include <glib.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tc-rb.h"

#define TEST_STREAM_ID 7u
/* The buffers' CPU: one no thread runs on (every commit is remote), or,
 * in the "on-cpu0" tests, CPU 0, where the threads that run there commit
 * locally (tc-rb-rseq.h). */
#define TEST_CPU 3u
static uint32_t fixture_cpu = TEST_CPU;
/* The concurrent writers move between CPUs 0 and 1 every MIGRATE_EVERY
 * events, so that they commit both locally and remotely. */
static bool writers_migrate;
#define MIGRATE_EVERY 1000u

static const uint8_t test_uuid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

/* Test records: event header, then the length of the whole record, the
 * writer's thread number and sequence, then a filler derived from both. */
struct test_record {
	struct tc_event_header header;
	uint32_t length;
	uint32_t thread;
	uint64_t seq;
} __attribute__((packed));

typedef struct {
	void *mapping;
	uint64_t size;
	struct tc_rb rb;
	struct tc_rb_reader reader;
	uint8_t *packet;
} Fixture;

static void
fixture_setup_mode(Fixture *fixture, uint32_t subbuf_size, uint32_t num_subbuf, uint32_t flags)
{
	fixture->size = tc_rb_shm_size(subbuf_size, num_subbuf);
	g_assert_cmpuint(fixture->size, >, 0);
	fixture->mapping = mmap(NULL, fixture->size, PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	g_assert_true(fixture->mapping != MAP_FAILED);
	g_assert_cmpint(tc_rb_init_mode(fixture->mapping, subbuf_size, num_subbuf, fixture_cpu,
					TEST_STREAM_ID, test_uuid, flags),
			==, 0);
	g_assert_cmpint(tc_rb_attach(&fixture->rb, fixture->mapping, fixture->size), ==, 0);
	g_assert_cmpint(tc_rb_reader_init(&fixture->reader, fixture->mapping, fixture->size,
					  TEST_STREAM_ID, fixture_cpu, test_uuid), ==, 0);
	fixture->packet = g_malloc(subbuf_size);
}

static void
fixture_setup_geometry(Fixture *fixture, uint32_t subbuf_size, uint32_t num_subbuf)
{
	fixture_setup_mode(fixture, subbuf_size, num_subbuf, 0);
}

static bool
pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) == 0;
}

static void
maybe_migrate(uint32_t thread, uint64_t seq)
{
	if (writers_migrate && seq % MIGRATE_EVERY == 0)
		pin_to((int)((seq / MIGRATE_EVERY + thread) % 2));
}

static void
fixture_setup(Fixture *fixture, gconstpointer user_data)
{
	fixture_cpu = TEST_CPU;
	writers_migrate = false;
	fixture_setup_geometry(fixture, 4096, 4);
}

static void
fixture_setup_cpu0(Fixture *fixture, gconstpointer user_data)
{
	fixture_cpu = 0;
	writers_migrate = false;
	fixture_setup_geometry(fixture, 4096, 4);
}

/* Buffers on the TSC, read without a fence, whose position moves with a
 * double-width swap (tc_rb_cas_position()); the others move the offset
 * alone. Their writers migrate, so that records of consecutive
 * reservations come from both CPUs' counters. */
static void
fixture_setup_tsc(Fixture *fixture, gconstpointer user_data)
{
	fixture_cpu = TEST_CPU;
	writers_migrate = true;
	fixture_setup_mode(fixture, 4096, 4, TC_RB_FLAG_CLOCK_TSC);
}

static void
fixture_teardown(Fixture *fixture, gconstpointer user_data)
{
	munmap(fixture->mapping, fixture->size);
	g_free(fixture->packet);
}

static uint8_t
filler_byte(uint32_t thread, uint64_t seq, uint32_t pos)
{
	return (uint8_t)(thread * 31u + seq * 7u + pos);
}

/* Writes one test record of length bytes (>= sizeof(struct test_record)). */
static int
write_record(struct tc_rb *rb, uint32_t thread, uint64_t seq, uint32_t length)
{
	struct test_record record;
	struct tc_rb_ctx ctx;
	uint8_t filler[4096];
	uint32_t filler_len = length - sizeof(record);
	int ret;

	g_assert_cmpuint(filler_len, <=, sizeof(filler));
	ret = tc_rb_reserve(rb, &ctx, length);
	if (ret < 0)
		return ret;
	record.header.id = thread;
	record.header.timestamp = ctx.timestamp;
	record.length = length;
	record.thread = thread;
	record.seq = seq;
	for (uint32_t i = 0; i < filler_len; i++)
		filler[i] = filler_byte(thread, seq, i);
	tc_rb_write(&ctx, 0, &record, sizeof(record));
	tc_rb_write(&ctx, sizeof(record), filler, filler_len);
	tc_rb_commit(&ctx);
	return 0;
}

typedef struct {
	uint64_t records;
	uint64_t last_timestamp;
	uint64_t next_seq[8]; /* per writer thread */
	uint64_t recorded[8];
	uint64_t discarded; /* events_discarded of the packet before */
	guint packets;
} Checker;

/* Walks the records of a valid packet, checking each one completely. */
static void
check_packet(Checker *checker, const uint8_t *packet)
{
	const struct tc_packet_header *header = (const void *)packet;
	uint64_t end = header->content_size / 8;
	uint64_t pos = sizeof(*header);

	g_assert_cmpuint(header->timestamp_begin, >=, checker->last_timestamp);
	checker->last_timestamp = header->timestamp_begin;
	/* The stream's discarded count never steps back (tc-rb.c,
	 * discarded_before_end()). */
	g_assert_cmpuint(header->events_discarded, >=, checker->discarded);
	checker->discarded = header->events_discarded;
	while (pos < end) {
		struct test_record record;

		g_assert_cmpuint(end - pos, >=, sizeof(record));
		memcpy(&record, packet + pos, sizeof(record));
		g_assert_cmpuint(record.length, >=, sizeof(record));
		g_assert_cmpuint(record.length, <=, end - pos);
		g_assert_cmpuint(record.header.id, ==, record.thread);
		g_assert_cmpuint(record.thread, <, G_N_ELEMENTS(checker->next_seq));
		/* Timestamps of physically consecutive records never go back. */
		g_assert_cmpuint(record.header.timestamp, >=, checker->last_timestamp);
		checker->last_timestamp = record.header.timestamp;
		/* Sequence strictly increasing per thread (gaps are discards). */
		g_assert_cmpuint(record.seq, >=, checker->next_seq[record.thread]);
		checker->next_seq[record.thread] = record.seq + 1;
		for (uint32_t i = 0; i < record.length - sizeof(record); i++)
			g_assert_cmpuint(packet[pos + sizeof(record) + i], ==,
					 filler_byte(record.thread, record.seq, i));
		checker->recorded[record.thread]++;
		checker->records++;
		pos += record.length;
	}
	g_assert_cmpuint(pos, ==, end);
	g_assert_cmpuint(header->timestamp_end, >=, checker->last_timestamp);
	checker->last_timestamp = header->timestamp_end;
	checker->packets++;
}

/* Reads every ready packet. Returns how many were read. */
static guint
drain(Fixture *fixture, Checker *checker)
{
	guint count = 0;
	int ret;

	while ((ret = tc_rb_reader_get(&fixture->reader, fixture->packet)) == 1) {
		check_packet(checker, fixture->packet);
		tc_rb_reader_put(&fixture->reader);
		count++;
	}
	g_assert_cmpint(ret, ==, 0);
	return count;
}

static void
test_round_trip(Fixture *fixture, gconstpointer user_data)
{
	const struct tc_packet_header *header = (const void *)fixture->packet;
	const uint32_t lengths[] = { 28, 100, 57 };
	uint64_t before = tc_rb_clock_now();
	uint32_t pos = sizeof(*header);
	Checker checker = { 0 };

	for (guint i = 0; i < G_N_ELEMENTS(lengths); i++)
		g_assert_cmpint(write_record(&fixture->rb, 1, i, lengths[i]), ==, 0);
	g_assert_false(tc_rb_reader_ready(&fixture->reader));
	g_assert_cmpint(tc_rb_reader_get(&fixture->reader, fixture->packet), ==, 0);
	g_assert_true(tc_rb_flush(&fixture->rb));
	g_assert_true(tc_rb_reader_ready(&fixture->reader));
	g_assert_cmpint(tc_rb_reader_get(&fixture->reader, fixture->packet), ==, 1);

	g_assert_cmphex(header->magic, ==, TC_CTF_MAGIC);
	g_assert_cmpmem(header->uuid, 16, test_uuid, 16);
	g_assert_cmpuint(header->stream_id, ==, TEST_STREAM_ID);
	g_assert_cmpuint(header->stream_instance_id, ==, fixture_cpu);
	g_assert_cmpuint(header->cpu_id, ==, fixture_cpu);
	g_assert_cmpuint(header->packet_seq_num, ==, 0);
	g_assert_cmpuint(header->packet_size, ==, 4096 * 8);
	g_assert_cmpuint(header->content_size, ==, (sizeof(*header) + 28 + 100 + 57) * 8);
	g_assert_cmpuint(header->events_discarded, ==, 0);
	g_assert_cmpuint(header->timestamp_begin, >=, before);
	g_assert_cmpuint(header->timestamp_end, >=, header->timestamp_begin);

	/* Exact bytes of each record, packed right after the header. */
	for (guint i = 0; i < G_N_ELEMENTS(lengths); i++) {
		struct test_record record;

		memcpy(&record, fixture->packet + pos, sizeof(record));
		g_assert_cmpuint(record.header.id, ==, 1);
		g_assert_cmpuint(record.length, ==, lengths[i]);
		g_assert_cmpuint(record.seq, ==, i);
		for (uint32_t j = 0; j < lengths[i] - sizeof(record); j++)
			g_assert_cmpuint(fixture->packet[pos + sizeof(record) + j], ==,
					 filler_byte(1, i, j));
		pos += lengths[i];
	}
	check_packet(&checker, fixture->packet);
	g_assert_cmpuint(checker.records, ==, 3);
	tc_rb_reader_put(&fixture->reader);
	g_assert_cmpuint(fixture->rb.shm->consumed, ==, 4096);
	g_assert_false(tc_rb_reader_ready(&fixture->reader));
	g_assert_cmpint(tc_rb_reader_get(&fixture->reader, fixture->packet), ==, 0);

	/* The next packet starts in the next sub-buffer with the next number. */
	g_assert_cmpint(write_record(&fixture->rb, 1, 3, 30), ==, 0);
	g_assert_true(tc_rb_flush(&fixture->rb));
	g_assert_cmpint(tc_rb_reader_get(&fixture->reader, fixture->packet), ==, 1);
	g_assert_cmpuint(header->packet_seq_num, ==, 1);
	check_packet(&checker, fixture->packet);
	tc_rb_reader_put(&fixture->reader);
}

static void
test_full_discards(Fixture *fixture, gconstpointer user_data)
{
	const uint32_t length = 100;
	uint64_t written = 0, refused = 0;
	Checker checker = { 0 };
	int ret;

	/* Fill every sub-buffer: the fifth opening finds the reader a buffer behind. */
	while ((ret = write_record(&fixture->rb, 0, written, length)) == 0)
		written++;
	g_assert_cmpint(ret, ==, -ENOBUFS);
	refused++;
	for (int i = 0; i < 9; i++, refused++)
		g_assert_cmpint(write_record(&fixture->rb, 0, written + refused + 1, length), ==,
				-ENOBUFS);
	g_assert_cmpuint(fixture->rb.shm->events_discarded, ==, refused);
	/* 4 sub-buffers of (4096 - 84) / 100 = 40 records each. */
	g_assert_cmpuint(written, ==, 4 * 40);

	/* A record that can never fit is refused and counted. */
	g_assert_cmpint(write_record(&fixture->rb, 0, 0, 4096), ==, -EMSGSIZE);
	refused++;
	g_assert_cmpuint(fixture->rb.shm->events_discarded, ==, refused);

	g_assert_true(tc_rb_reader_ready(&fixture->reader));
	g_assert_cmpuint(drain(fixture, &checker), ==, 4);
	g_assert_false(tc_rb_reader_ready(&fixture->reader));
	g_assert_cmpuint(checker.records, ==, written);

	/* Space is back: the next packet reports the losses so far. */
	g_assert_cmpint(write_record(&fixture->rb, 0, 1000, length), ==, 0);
	g_assert_true(tc_rb_flush(&fixture->rb));
	g_assert_cmpint(tc_rb_reader_get(&fixture->reader, fixture->packet), ==, 1);
	g_assert_cmpuint(((struct tc_packet_header *)fixture->packet)->events_discarded, ==,
			 refused);
	tc_rb_reader_put(&fixture->reader);
}

static void
test_exact_fit(Fixture *fixture, gconstpointer user_data)
{
	const uint32_t max = 4096 - sizeof(struct tc_packet_header);
	const struct tc_packet_header *header = (const void *)fixture->packet;
	Checker checker = { 0 };

	/* Records filling the sub-buffer close it: no flush needed.
	 * (4096 - 84) / 4 = 1003. */
	for (int i = 0; i < 4; i++)
		g_assert_cmpint(write_record(&fixture->rb, 2, i, 1003), ==, 0);
	g_assert_cmpuint(fixture->rb.shm->write_offset, ==, 4096);
	g_assert_false(tc_rb_flush(&fixture->rb));
	g_assert_cmpint(tc_rb_reader_get(&fixture->reader, fixture->packet), ==, 1);
	g_assert_cmpuint(header->content_size, ==, 4096 * 8);
	check_packet(&checker, fixture->packet);
	tc_rb_reader_put(&fixture->reader);

	/* The largest record fills a sub-buffer on its own, the next is refused. */
	g_assert_cmpint(tc_rb_reserve(&fixture->rb, &(struct tc_rb_ctx){ 0 }, max + 1), ==,
			-EMSGSIZE);
	g_assert_cmpuint(fixture->rb.shm->events_discarded, ==, 1);
	g_assert_cmpint(write_record(&fixture->rb, 2, 10, 500), ==, 0);
	g_assert_cmpint(write_record(&fixture->rb, 2, 11, max - 400), ==, 0);
	g_assert_cmpuint(fixture->rb.shm->write_offset, ==, 3 * 4096 - 400);
	g_assert_cmpuint(drain(fixture, &checker), ==, 1);
	g_assert_true(tc_rb_flush(&fixture->rb));
	g_assert_cmpuint(drain(fixture, &checker), ==, 1);
	g_assert_cmpuint(checker.records, ==, 6);
}

static void
test_flush(Fixture *fixture, gconstpointer user_data)
{
	const struct tc_packet_header *header = (const void *)fixture->packet;
	Checker checker = { 0 };

	/* Nothing written: nothing to flush. */
	g_assert_false(tc_rb_flush(&fixture->rb));
	g_assert_cmpint(write_record(&fixture->rb, 0, 0, 40), ==, 0);
	g_assert_true(tc_rb_flush(&fixture->rb));
	/* The sub-buffer is closed: flushing again does nothing. */
	g_assert_false(tc_rb_flush(&fixture->rb));
	g_assert_cmpuint(fixture->rb.shm->write_offset, ==, 4096);
	g_assert_cmpint(tc_rb_reader_get(&fixture->reader, fixture->packet), ==, 1);
	g_assert_cmpuint(header->content_size, ==, (sizeof(*header) + 40) * 8);
	check_packet(&checker, fixture->packet);
	tc_rb_reader_put(&fixture->reader);

	/* A reservation in progress keeps a flushed packet from being read. */
	{
		struct tc_rb_ctx ctx;
		struct test_record record = { .length = 40, .thread = 0, .seq = 1 };

		g_assert_cmpint(tc_rb_reserve(&fixture->rb, &ctx, 40), ==, 0);
		g_assert_true(tc_rb_flush(&fixture->rb));
		g_assert_false(tc_rb_reader_ready(&fixture->reader));
		g_assert_cmpint(tc_rb_reader_get(&fixture->reader, fixture->packet), ==, 0);
		record.header.timestamp = ctx.timestamp;
		tc_rb_write(&ctx, 0, &record, sizeof(record));
		tc_rb_write(&ctx, sizeof(record), "0123456789abcdef", 16);
		tc_rb_commit(&ctx);
		g_assert_cmpint(tc_rb_reader_get(&fixture->reader, fixture->packet), ==, 1);
		tc_rb_reader_put(&fixture->reader);
	}
}

static void
fixture_setup_16k(Fixture *fixture, gconstpointer user_data)
{
	fixture_cpu = TEST_CPU;
	writers_migrate = false;
	fixture_setup_geometry(fixture, 16384, 4);
}

/* Gets the next packet and cuts it as the consumer does: the bytes to write. */
static uint32_t
get_trimmed(Fixture *fixture)
{
	uint32_t length;

	g_assert_cmpint(tc_rb_reader_get(&fixture->reader, fixture->packet), ==, 1);
	length = tc_rb_reader_trim(&fixture->reader, fixture->packet);
	tc_rb_reader_put(&fixture->reader);
	return length;
}

/* Flushed packets are cut to their content rounded up to a 4 KiB unit;
 * full ones keep their sub-buffer's size. */
static void
test_trim(Fixture *fixture, gconstpointer user_data)
{
	const struct tc_packet_header *header = (const void *)fixture->packet;
	const uint32_t room = 16384 - sizeof(*header); /* 4 records of 4075 */

	g_assert_cmpint(write_record(&fixture->rb, 0, 0, 40), ==, 0);
	g_assert_true(tc_rb_flush(&fixture->rb));
	g_assert_cmpuint(get_trimmed(fixture), ==, 4096);
	g_assert_cmpuint(header->packet_size, ==, 4096 * 8);
	g_assert_cmpuint(header->content_size, ==, (sizeof(*header) + 40) * 8);

	/* Content of exactly one unit, then one byte more. */
	g_assert_cmpint(write_record(&fixture->rb, 0, 1, 4096 - sizeof(*header)), ==, 0);
	g_assert_true(tc_rb_flush(&fixture->rb));
	g_assert_cmpuint(get_trimmed(fixture), ==, 4096);
	g_assert_cmpint(write_record(&fixture->rb, 0, 2, 4097 - sizeof(*header)), ==, 0);
	g_assert_true(tc_rb_flush(&fixture->rb));
	g_assert_cmpuint(get_trimmed(fixture), ==, 8192);
	g_assert_cmpuint(header->packet_size, ==, 8192 * 8);

	/* Filled by its records, closed without a flush. */
	for (uint32_t i = 0; i < 4; i++)
		g_assert_cmpint(write_record(&fixture->rb, 0, 3 + i, room / 4), ==, 0);
	g_assert_cmpuint(get_trimmed(fixture), ==, 16384);
	g_assert_cmpuint(header->packet_size, ==, 16384 * 8);
}

static void
test_timestamps_monotonic(Fixture *fixture, gconstpointer user_data)
{
	Checker checker = { 0 };

	/* check_packet() asserts the order across records and packets. */
	for (uint64_t i = 0; i < 2000; i++) {
		if (write_record(&fixture->rb, 0, i, 28 + (i % 200)) == -ENOBUFS)
			drain(fixture, &checker);
	}
	tc_rb_flush(&fixture->rb);
	drain(fixture, &checker);
	g_assert_cmpuint(checker.packets, >, 50);
}

static void
scribble_and_expect_bad(Fixture *fixture, size_t field_offset, uint64_t value, size_t size)
{
	uint32_t idx = (fixture->reader.consumed / 4096) % 4;
	uint8_t *header = fixture->rb.data + (uint64_t)idx * 4096;
	Checker checker = { 0 };

	g_assert_cmpint(write_record(&fixture->rb, 0, 0, 40), ==, 0);
	g_assert_true(tc_rb_flush(&fixture->rb));
	memcpy(header + field_offset, &value, size);
	g_assert_cmpint(tc_rb_reader_get(&fixture->reader, fixture->packet), ==, -EBADMSG);
	/* The reader carries on with the next packet. */
	g_assert_cmpint(write_record(&fixture->rb, 0, 1, 40), ==, 0);
	g_assert_true(tc_rb_flush(&fixture->rb));
	g_assert_cmpint(tc_rb_reader_get(&fixture->reader, fixture->packet), ==, 1);
	check_packet(&checker, fixture->packet);
	tc_rb_reader_put(&fixture->reader);
}

static void
test_reader_rejects_scribbles(Fixture *fixture, gconstpointer user_data)
{
	uint32_t idx;

	scribble_and_expect_bad(fixture, offsetof(struct tc_packet_header, magic), 0xdeadbeef, 4);
	g_assert_cmpuint(fixture->reader.packets_corrupted, ==, 1);
	scribble_and_expect_bad(fixture, offsetof(struct tc_packet_header, content_size),
				4097 * 8, 8);
	scribble_and_expect_bad(fixture, offsetof(struct tc_packet_header, content_size), 8, 8);
	scribble_and_expect_bad(fixture, offsetof(struct tc_packet_header, packet_size), 8192 * 8,
				8);
	scribble_and_expect_bad(fixture, offsetof(struct tc_packet_header, stream_id), 99, 4);
	scribble_and_expect_bad(fixture, offsetof(struct tc_packet_header, cpu_id), 0, 4);
	scribble_and_expect_bad(fixture, offsetof(struct tc_packet_header, uuid), 0, 8);
	scribble_and_expect_bad(fixture, offsetof(struct tc_packet_header, packet_seq_num), 1234,
				8);
	scribble_and_expect_bad(fixture, offsetof(struct tc_packet_header, timestamp_end), 1, 8);
	g_assert_cmpuint(fixture->reader.packets_corrupted, ==, 9);

	/* A commit count beyond what a writer can produce. */
	g_assert_cmpint(write_record(&fixture->rb, 0, 0, 40), ==, 0);
	g_assert_true(tc_rb_flush(&fixture->rb));
	idx = (fixture->reader.consumed / 4096) % 4;
	fixture->rb.commit[idx].count += 4096;
	g_assert_cmpint(tc_rb_reader_get(&fixture->reader, fixture->packet), ==, -EBADMSG);
	g_assert_cmpuint(fixture->reader.packets_corrupted, ==, 10);
	/* And one below the round being read, once the writers left it. */
	idx = (fixture->reader.consumed / 4096) % 4;
	g_assert_cmpint(write_record(&fixture->rb, 0, 1, 40), ==, 0);
	g_assert_true(tc_rb_flush(&fixture->rb));
	fixture->rb.commit[idx].count -= 8192;
	g_assert_cmpint(tc_rb_reader_get(&fixture->reader, fixture->packet), ==, -EBADMSG);
	g_assert_cmpuint(fixture->reader.packets_corrupted, ==, 11);
}

/* In place: the packet is the sub-buffer itself, checked like a copy, held
 * until put; overwrite mode refuses it (its lap detection needs a copy). */
static void
test_reader_in_place(Fixture *fixture, gconstpointer user_data)
{
	Checker checker = { 0 };
	uint8_t *packet = NULL;
	uint32_t idx;

	g_assert_cmpint(tc_rb_reader_get_in_place(&fixture->reader, &packet), ==, 0);
	g_assert_cmpint(write_record(&fixture->rb, 0, 0, 40), ==, 0);
	g_assert_true(tc_rb_flush(&fixture->rb));
	idx = (fixture->reader.consumed / 4096) % 4;
	g_assert_cmpint(tc_rb_reader_get_in_place(&fixture->reader, &packet), ==, 1);
	g_assert_true(packet == fixture->rb.data + (uint64_t)idx * 4096);
	check_packet(&checker, packet);
	g_assert_cmpuint(fixture->reader.consumed, ==, (uint64_t)idx * 4096);
	tc_rb_reader_put(&fixture->reader);
	g_assert_cmpuint(fixture->rb.shm->consumed, ==, 4096);

	/* A scribbled header is dropped and released, as by get. */
	g_assert_cmpint(write_record(&fixture->rb, 0, 1, 40), ==, 0);
	g_assert_true(tc_rb_flush(&fixture->rb));
	idx = (fixture->reader.consumed / 4096) % 4;
	((struct tc_packet_header *)(fixture->rb.data + (uint64_t)idx * 4096))->magic = 0;
	g_assert_cmpint(tc_rb_reader_get_in_place(&fixture->reader, &packet), ==, -EBADMSG);
	g_assert_cmpuint(fixture->reader.packets_corrupted, ==, 1);
	g_assert_cmpuint(fixture->rb.shm->consumed, ==, 8192);

	fixture_teardown(fixture, NULL);
	fixture_setup_mode(fixture, 4096, 4, TC_RB_FLAG_OVERWRITE);
	g_assert_cmpint(write_record(&fixture->rb, 0, 0, 40), ==, 0);
	g_assert_true(tc_rb_flush(&fixture->rb));
	g_assert_cmpint(tc_rb_reader_get_in_place(&fixture->reader, &packet), ==, -EINVAL);
}

static void
test_attach_rejects_bad_geometry(void)
{
	const uint64_t size = tc_rb_shm_size(4096, 4);
	struct tc_rb rb;
	struct tc_rb_shm *shm;
	uint8_t *mapping;

	g_assert_cmpuint(tc_rb_shm_size(4095, 4), ==, 0);
	g_assert_cmpuint(tc_rb_shm_size(2048, 4), ==, 0);
	g_assert_cmpuint(tc_rb_shm_size(4096, 3), ==, 0);
	g_assert_cmpuint(tc_rb_shm_size(4096, 1), ==, 0);
	g_assert_cmpuint(tc_rb_shm_size(4096, 2048), ==, 0);
	g_assert_cmpuint(tc_rb_shm_size(128u << 20, 2), ==, 0);
	g_assert_cmpint(tc_rb_init(NULL, 4096, 4, 0, 0, test_uuid), ==, -EINVAL);

	mapping = mmap(NULL, size + 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		       -1, 0);
	g_assert_true(mapping != MAP_FAILED);
	shm = (struct tc_rb_shm *)mapping;
	g_assert_cmpint(tc_rb_init(mapping, 4096, 3, 0, 0, test_uuid), ==, -EINVAL);
	g_assert_cmpint(tc_rb_init(mapping, 4096, 4, 0, 0, test_uuid), ==, 0);
	g_assert_cmpint(tc_rb_attach(&rb, mapping, size), ==, 0);
	g_assert_cmpuint(rb.shm->data_offset % 4096, ==, 0);

	/* Wrong mapping sizes, unaligned mapping. */
	g_assert_cmpint(tc_rb_attach(&rb, mapping, size - 4096), ==, -EINVAL);
	g_assert_cmpint(tc_rb_attach(&rb, mapping, size + 4096), ==, -EINVAL);
	g_assert_cmpint(tc_rb_attach(&rb, mapping, 100), ==, -EINVAL);
	g_assert_cmpint(tc_rb_attach(&rb, mapping + 8, size), ==, -EINVAL);

#define EXPECT_REJECTED(field, bad)                                                      \
	do {                                                                             \
		__typeof__(shm->field) saved = shm->field;                               \
		shm->field = (bad);                                                      \
		g_assert_cmpint(tc_rb_attach(&rb, mapping, size), ==, -EINVAL);          \
		shm->field = saved;                                                      \
		g_assert_cmpint(tc_rb_attach(&rb, mapping, size), ==, 0);                \
	} while (0)
	EXPECT_REJECTED(magic, 0);
	EXPECT_REJECTED(version, TC_RB_VERSION - 1);
	EXPECT_REJECTED(version, TC_RB_VERSION + 1);
	EXPECT_REJECTED(subbuf_size, 4097);
	EXPECT_REJECTED(subbuf_size, 8192);
	EXPECT_REJECTED(subbuf_size, 0);
	EXPECT_REJECTED(subbuf_size, 1u << 31);
	EXPECT_REJECTED(num_subbuf, 8);
	EXPECT_REJECTED(num_subbuf, 0);
	EXPECT_REJECTED(num_subbuf, 1);
	EXPECT_REJECTED(num_subbuf, 4096);
	EXPECT_REJECTED(data_offset, 4096);
	EXPECT_REJECTED(data_offset, 8192 + 64);
	EXPECT_REJECTED(shm_size, size + 4096);
	EXPECT_REJECTED(shm_size, 0);
#undef EXPECT_REJECTED
	munmap(mapping, size + 4096);
}

/* Concurrent writers and a concurrent reader. */

#define CONCURRENT_WRITERS 3
#define CONCURRENT_EVENTS 200000

typedef struct {
	Fixture *fixture;
	uint32_t thread;
	uint64_t emitted;
	uint64_t discarded;
} Writer;

typedef struct {
	Fixture *fixture;
	Checker checker;
	int writers_done; /* atomic */
} Reader;

static void *
writer_thread(void *data)
{
	Writer *writer = data;

	for (uint64_t seq = 0; seq < CONCURRENT_EVENTS; seq++) {
		int ret;

		maybe_migrate(writer->thread, seq);
		ret = write_record(&writer->fixture->rb, writer->thread, seq,
				   sizeof(struct test_record) + (seq * 13) % 120);
		g_assert_true(ret == 0 || ret == -ENOBUFS);
		if (ret < 0)
			writer->discarded++;
		writer->emitted++;
	}
	return NULL;
}

static void *
reader_thread(void *data)
{
	Reader *reader = data;

	while (!__atomic_load_n(&reader->writers_done, __ATOMIC_ACQUIRE)) {
		if (drain(reader->fixture, &reader->checker) == 0)
			g_usleep(50);
	}
	return NULL;
}

static void
test_concurrent_writers(Fixture *fixture, gconstpointer user_data)
{
	Writer writers[CONCURRENT_WRITERS];
	Reader reader = { .fixture = fixture };
	pthread_t writer_ids[CONCURRENT_WRITERS], reader_id;
	uint64_t total_discarded = 0;

	for (uint32_t i = 0; i < CONCURRENT_WRITERS; i++) {
		writers[i] = (Writer){ .fixture = fixture, .thread = i };
		g_assert_cmpint(pthread_create(&writer_ids[i], NULL, writer_thread, &writers[i]), ==,
				0);
	}
	g_assert_cmpint(pthread_create(&reader_id, NULL, reader_thread, &reader), ==, 0);
	for (uint32_t i = 0; i < CONCURRENT_WRITERS; i++)
		pthread_join(writer_ids[i], NULL);
	__atomic_store_n(&reader.writers_done, 1, __ATOMIC_RELEASE);
	pthread_join(reader_id, NULL);
	tc_rb_flush(&fixture->rb);
	drain(fixture, &reader.checker);

	for (uint32_t i = 0; i < CONCURRENT_WRITERS; i++) {
		g_assert_cmpuint(writers[i].emitted, ==, CONCURRENT_EVENTS);
		g_assert_cmpuint(reader.checker.recorded[i] + writers[i].discarded, ==,
				 writers[i].emitted);
		total_discarded += writers[i].discarded;
	}
	g_assert_cmpuint(fixture->rb.shm->events_discarded, ==, total_discarded);
	g_assert_cmpuint(fixture->reader.packets_corrupted, ==, 0);
	g_test_message("%" G_GUINT64_FORMAT " records in %u packets, %" G_GUINT64_FORMAT
		       " discarded",
		       reader.checker.records, reader.checker.packets, total_discarded);
}

static void
test_concurrent_writers_large(Fixture *fixture, gconstpointer user_data)
{
	fixture_teardown(fixture, NULL);
	fixture_setup_geometry(fixture, 65536, 16);
	test_concurrent_writers(fixture, user_data);
}


/*
 * Writers interrupted by signal handlers that write too: thread i writes
 * as writer i, its handler as writer i + 4, into the same buffer, while a
 * reader drains it. A handler that lands between its thread's reserve and
 * commit writes a record that ends before the interrupted one is committed
 * (the user-space analogue of an interrupt nesting over a probe).
 */
#define NESTING_THREADS 3
#define NESTING_EVENTS 100000
/* A writer goes on past NESTING_EVENTS until a handler has landed inside
 * one of its reservations, up to this many events: on a loaded machine
 * it could finish before the main thread gets to signal it. */
#define NESTING_EVENTS_MAX 50000000
#define NESTING_SIGNALS 20000

typedef struct {
	Fixture *fixture;
	uint32_t thread;
	pthread_t id;
	uint64_t emitted, discarded;                 /* by the thread */
	uint64_t handler_emitted, handler_discarded; /* by its handler */
	uint64_t nested;     /* handler runs that found a reservation open; atomic */
	int in_reservation;  /* read by the handler of the same thread */
	int done;            /* atomic */
} NestingWriter;

static __thread NestingWriter *nesting_self;

static void
nesting_handler(int signo)
{
	NestingWriter *self = nesting_self;
	int ret;

	if (!self)
		return;
	if (self->in_reservation)
		__atomic_fetch_add(&self->nested, 1, __ATOMIC_RELAXED);
	ret = write_record(&self->fixture->rb, self->thread + 4, self->handler_emitted,
			   sizeof(struct test_record) + (self->handler_emitted * 5) % 64);
	if (ret < 0)
		self->handler_discarded++;
	self->handler_emitted++;
}

/* write_record() with the reservation window marked for the handler. */
static int
write_record_marked(NestingWriter *self, uint64_t seq, uint32_t length)
{
	struct test_record record;
	struct tc_rb_ctx ctx;
	uint8_t filler[256];
	uint32_t filler_len = length - sizeof(record);
	int ret;

	for (uint32_t i = 0; i < filler_len; i++)
		filler[i] = filler_byte(self->thread, seq, i);
	record.header.id = self->thread;
	record.length = length;
	record.thread = self->thread;
	record.seq = seq;
	self->in_reservation = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	ret = tc_rb_reserve(&self->fixture->rb, &ctx, length);
	if (ret == 0) {
		record.header.timestamp = ctx.timestamp;
		tc_rb_write(&ctx, 0, &record, sizeof(record));
		tc_rb_write(&ctx, sizeof(record), filler, filler_len);
		tc_rb_commit(&ctx);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	self->in_reservation = 0;
	return ret;
}

static void *
nesting_writer_thread(void *data)
{
	NestingWriter *self = data;
	sigset_t unblock;

	nesting_self = self;
	sigemptyset(&unblock);
	sigaddset(&unblock, SIGUSR1);
	pthread_sigmask(SIG_UNBLOCK, &unblock, NULL);
	for (uint64_t seq = 0;
	     seq < NESTING_EVENTS ||
	     (seq < NESTING_EVENTS_MAX && __atomic_load_n(&self->nested, __ATOMIC_RELAXED) == 0);
	     seq++) {
		int ret = write_record_marked(self, seq,
					      sizeof(struct test_record) + (seq * 13) % 200);

		g_assert_true(ret == 0 || ret == -ENOBUFS);
		if (ret < 0)
			self->discarded++;
		self->emitted++;
	}
	/* A fast writer may finish before a signal reaches it: wait for one
	 * handler to run (the main thread keeps signalling until then). */
	for (int i = 0; i < 5000 && __atomic_load_n(&self->handler_emitted, __ATOMIC_RELAXED) == 0;
	     i++)
		g_usleep(1000);
	/* Block the signal before saying we are done, so no handler runs
	 * after the main thread read the counters. */
	pthread_sigmask(SIG_BLOCK, &unblock, NULL);
	__atomic_store_n(&self->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void
run_nesting_stress(Fixture *fixture, bool overwrite)
{
	NestingWriter writers[NESTING_THREADS];
	Reader reader = { .fixture = fixture };
	struct sigaction action = { .sa_handler = nesting_handler };
	pthread_t reader_id;
	sigset_t block;
	uint64_t nested = 0, signals = 0;
	guint running;

	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &block, NULL); /* inherited, unblocked per writer */
	action.sa_flags = SA_RESTART;
	g_assert_cmpint(sigaction(SIGUSR1, &action, NULL), ==, 0);
	for (uint32_t i = 0; i < NESTING_THREADS; i++) {
		writers[i] = (NestingWriter){ .fixture = fixture, .thread = i };
		g_assert_cmpint(pthread_create(&writers[i].id, NULL, nesting_writer_thread,
					       &writers[i]), ==, 0);
	}
	g_assert_cmpint(pthread_create(&reader_id, NULL, reader_thread, &reader), ==, 0);
	do {
		running = 0;
		for (uint32_t i = 0; i < NESTING_THREADS; i++) {
			if (__atomic_load_n(&writers[i].done, __ATOMIC_ACQUIRE))
				continue;
			running++;
			if (signals < NESTING_SIGNALS * NESTING_THREADS ||
			    __atomic_load_n(&writers[i].handler_emitted, __ATOMIC_RELAXED) == 0 ||
			    __atomic_load_n(&writers[i].nested, __ATOMIC_RELAXED) == 0) {
				pthread_kill(writers[i].id, SIGUSR1);
				signals++;
			}
		}
		sched_yield();
	} while (running > 0);
	for (uint32_t i = 0; i < NESTING_THREADS; i++)
		pthread_join(writers[i].id, NULL);
	__atomic_store_n(&reader.writers_done, 1, __ATOMIC_RELEASE);
	pthread_join(reader_id, NULL);
	/* The newest records: written last, after every writer, with room
	 * made for them (discard mode). */
	drain(fixture, &reader.checker);
	for (uint64_t seq = 0; seq < 10; seq++)
		g_assert_cmpint(write_record(&fixture->rb, 7, seq, 40), ==, 0);
	tc_rb_flush(&fixture->rb);
	drain(fixture, &reader.checker);

	for (uint32_t i = 0; i < NESTING_THREADS; i++) {
		NestingWriter *w = &writers[i];

		nested += w->nested;
		g_assert_cmpuint(w->emitted, >=, NESTING_EVENTS);
		g_assert_cmpuint(w->handler_emitted, >, 0);
		if (overwrite)
			continue;
		g_assert_cmpuint(reader.checker.recorded[i] + w->discarded, ==, w->emitted);
		g_assert_cmpuint(reader.checker.recorded[i + 4] + w->handler_discarded, ==,
				 w->handler_emitted);
	}
	g_assert_cmpuint(reader.checker.recorded[7], ==, 10);
	g_assert_cmpuint(fixture->reader.packets_corrupted, ==, 0);
	if (overwrite)
		g_assert_cmpuint(fixture->reader.packets_overwritten, >, 0);
	g_test_message("%" G_GUINT64_FORMAT " records in %u packets, %" G_GUINT64_FORMAT
		       " signals, %" G_GUINT64_FORMAT " nested inside a reservation, %"
		       G_GUINT64_FORMAT " packets overwritten",
		       reader.checker.records, reader.checker.packets, signals, nested,
		       fixture->reader.packets_overwritten);
	/* The point of the test: handlers did land inside reservations. */
	g_assert_cmpuint(nested, >, 0);
}

static void
test_signal_nesting_discard(Fixture *fixture, gconstpointer user_data)
{
	run_nesting_stress(fixture, false);
}

static void
test_signal_nesting_overwrite(Fixture *fixture, gconstpointer user_data)
{
	fixture_teardown(fixture, NULL);
	fixture_setup_mode(fixture, 4096, 8, TC_RB_FLAG_OVERWRITE);
	run_nesting_stress(fixture, true);
}

/* Overwrite mode without a reader: the newest packets survive. */
static void
test_overwrite_keeps_newest(Fixture *fixture, gconstpointer user_data)
{
	Checker checker = { 0 };
	const uint64_t total = 1000;
	uint64_t first_seq;

	fixture_teardown(fixture, NULL);
	fixture_setup_mode(fixture, 4096, 4, TC_RB_FLAG_OVERWRITE);
	for (uint64_t seq = 0; seq < total; seq++)
		g_assert_cmpint(write_record(&fixture->rb, 0, seq, 100), ==, 0);
	g_assert_true(tc_rb_flush(&fixture->rb));
	g_assert_cmpuint(fixture->rb.shm->events_discarded, ==, 0);
	g_assert_cmpint(tc_rb_reader_get(&fixture->reader, fixture->packet), ==, 1);
	first_seq = ((struct test_record *)(fixture->packet + sizeof(struct tc_packet_header)))->seq;
	checker.next_seq[0] = first_seq;
	check_packet(&checker, fixture->packet);
	tc_rb_reader_put(&fixture->reader);
	drain(fixture, &checker);
	/* 40 records per sub-buffer: 1000 records are 25 packets, the last 4 kept. */
	g_assert_cmpuint(checker.packets, ==, 4);
	g_assert_cmpuint(checker.next_seq[0], ==, total);
	g_assert_cmpuint(checker.records, ==, total - first_seq);
	g_assert_cmpuint(first_seq, ==, 21 * 40);
	g_assert_cmpuint(fixture->reader.packets_overwritten, ==, 21);
}

/* Counts forged for sub-buffers the writers have not reached must not make
 * the reader run ahead of them (it would then find the buffer full forever). */
static void
test_forged_counts_ahead(Fixture *fixture, gconstpointer user_data)
{
	Checker checker = { 0 };
	uint64_t seq = 0, refused = 0;
	int ret;

	g_assert_cmpint(write_record(&fixture->rb, 0, seq++, 40), ==, 0);
	fixture->rb.commit[1].count = 4096;
	fixture->rb.commit[2].count = 4096;
	g_assert_cmpint(tc_rb_reader_get(&fixture->reader, fixture->packet), ==, 0);
	g_assert_true(tc_rb_flush(&fixture->rb));
	g_assert_cmpuint(drain(fixture, &checker), ==, 1);
	/* The reader waits at sub-buffer 1 until the writers leave it. */
	g_assert_cmpint(tc_rb_reader_get(&fixture->reader, fixture->packet), ==, 0);
	g_assert_cmpuint(fixture->reader.consumed, ==, 4096);
	/* Twenty buffers' worth more: tracing goes on; only the scribbled
	 * sub-buffers are lost. */
	for (int round = 0; round < 80; round++) {
		for (int i = 0; i < 30; i++)
			if (write_record(&fixture->rb, 0, seq++, 100) < 0)
				refused++;
		g_assert_true(tc_rb_flush(&fixture->rb));
		while ((ret = tc_rb_reader_get(&fixture->reader, fixture->packet)) != 0) {
			if (ret == 1) {
				check_packet(&checker, fixture->packet);
				tc_rb_reader_put(&fixture->reader);
			}
		}
	}
	g_assert_cmpuint(refused, ==, 0);
	g_assert_cmpuint(fixture->reader.packets_corrupted, >, 0);
	/* Sub-buffers 0 and 3 of every round come through. */
	g_assert_cmpuint(checker.packets, >=, 40);
}

/* Events discarded after the last packet are reported by a header-only one. */
static void
test_empty_packet_reports_discards(Fixture *fixture, gconstpointer user_data)
{
	const struct tc_packet_header *header = (const void *)fixture->packet;
	Checker checker = { 0 };
	uint64_t written = 0;

	while (write_record(&fixture->rb, 0, written, 100) == 0)
		written++;
	for (int i = 0; i < 9; i++)
		g_assert_cmpint(write_record(&fixture->rb, 0, written + 1 + i, 100), ==, -ENOBUFS);
	g_assert_cmpuint(drain(fixture, &checker), ==, 4);
	g_assert_cmpuint(fixture->reader.events_discarded_seen, ==, 0);
	g_assert_false(tc_rb_flush(&fixture->rb));
	g_assert_true(tc_rb_close_empty_packet(&fixture->rb));
	g_assert_cmpint(tc_rb_reader_get(&fixture->reader, fixture->packet), ==, 1);
	g_assert_cmpuint(header->content_size, ==, sizeof(*header) * 8);
	g_assert_cmpuint(header->events_discarded, ==, 10);
	g_assert_cmpuint(header->packet_seq_num, ==, 4);
	g_assert_cmpuint(fixture->reader.events_discarded_seen, ==, 10);
	tc_rb_reader_put(&fixture->reader);
	/* Not in the middle of a packet. */
	g_assert_cmpint(write_record(&fixture->rb, 0, 100, 100), ==, 0);
	g_assert_false(tc_rb_close_empty_packet(&fixture->rb));
}

/* Writes 100-byte records until one closes a sub-buffer, waking the
 * reader as the tracepoint does. */
static void
fill_one_subbuf(Fixture *fixture, uint64_t *seq)
{
	for (;;) {
		struct test_record record = {.length = sizeof(record), .seq = (*seq)++};
		struct tc_rb_ctx ctx;

		g_assert_cmpint(tc_rb_reserve(&fixture->rb, &ctx, sizeof(record)), ==, 0);
		record.header.timestamp = ctx.timestamp;
		tc_rb_write(&ctx, 0, &record, sizeof(record));
		tc_rb_commit(&ctx);
		if (ctx.closed_packet) {
			tc_rb_wake_reader(&fixture->rb);
			return;
		}
	}
}

static uint64_t
wakeups(int fd)
{
	eventfd_t value = 0;

	return eventfd_read(fd, &value) == 0 ? value : 0;
}

/* With 8 sub-buffers, the reader is woken once a quarter of the buffer
 * (2) is unread, not for each closed sub-buffer before that (the read
 * timer collects those). */
static void
test_wake_reader_at_a_quarter(Fixture *fixture, gconstpointer user_data)
{
	int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	uint64_t seq = 0;
	Checker checker = {0};

	g_assert_cmpint(fd, >=, 0);
	fixture_teardown(fixture, user_data);
	fixture_setup_geometry(fixture, 4096, 8);
	fixture->rb.wake_fd = fd;
	g_assert_cmpuint(tc_rb_wake_packets(&fixture->rb), ==, 2);
	fill_one_subbuf(fixture, &seq); /* 1 of 8 */
	g_assert_cmpuint(wakeups(fd), ==, 0);
	fill_one_subbuf(fixture, &seq); /* 2 of 8: a quarter */
	g_assert_cmpuint(wakeups(fd), ==, 1);
	fill_one_subbuf(fixture, &seq); /* 3 of 8 */
	g_assert_cmpuint(wakeups(fd), ==, 1);
	g_assert_cmpuint(drain(fixture, &checker), ==, 3);
	fill_one_subbuf(fixture, &seq); /* read: 1 of 8 again */
	g_assert_cmpuint(wakeups(fd), ==, 0);
	close(fd);
}

/* In a buffer of more than 16/3 MiB, the writers wake the reader once
 * only TC_RB_WAKE_ROOM is left: 8 x 1 MiB, at 4 MiB unread. */
static void
test_wake_reader_big_buffer(Fixture *fixture, gconstpointer user_data)
{
	const uint32_t subbuf_size = 1u << 20;
	int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	uint64_t seq = 0;
	Checker checker = {0};

	g_assert_cmpint(fd, >=, 0);
	fixture_teardown(fixture, user_data);
	fixture_setup_geometry(fixture, subbuf_size, 8);
	fixture->rb.wake_fd = fd;
	g_assert_cmpuint(tc_rb_wake_packets(&fixture->rb), ==, 4);
	for (uint64_t unread = subbuf_size; unread < 8ull * subbuf_size - TC_RB_WAKE_ROOM;
	     unread += subbuf_size) {
		fill_one_subbuf(fixture, &seq);
		g_assert_cmpuint(wakeups(fd), ==, 0);
	}
	fill_one_subbuf(fixture, &seq); /* 4 MiB unread, 4 MiB left */
	g_assert_cmpuint(wakeups(fd), ==, 1);
	fill_one_subbuf(fixture, &seq);
	g_assert_cmpuint(wakeups(fd), ==, 1);
	g_assert_cmpuint(drain(fixture, &checker), ==, 5);
	fill_one_subbuf(fixture, &seq);
	g_assert_cmpuint(wakeups(fd), ==, 0);
	close(fd);
}

/* With 4 sub-buffers, every closed one wakes the reader: a quarter is
 * one sub-buffer. */
static void
test_wake_reader_small_buffer(Fixture *fixture, gconstpointer user_data)
{
	int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	uint64_t seq = 0;

	g_assert_cmpint(fd, >=, 0);
	fixture->rb.wake_fd = fd;
	g_assert_cmpuint(tc_rb_wake_packets(&fixture->rb), ==, 1);
	fill_one_subbuf(fixture, &seq);
	g_assert_cmpuint(wakeups(fd), ==, 1);
	fill_one_subbuf(fixture, &seq);
	g_assert_cmpuint(wakeups(fd), ==, 1);
	close(fd);
}

/* Whether this thread commits locally on its CPU: glibc registered its
 * rseq area and the build uses it. */
static bool
rseq_commits(void)
{
#ifdef TC_RB_HAVE_RSEQ
	return __rseq_size > 0;
#else
	return false;
#endif
}

/* Sums of the local and remote commit counts of all sub-buffers. */
static void
commit_totals(const Fixture *fixture, uint64_t *local, uint64_t *remote)
{
	*local = *remote = 0;
	for (uint32_t i = 0; i < fixture->rb.num_subbuf; i++) {
		*local += __atomic_load_n(&fixture->rb.commit[i].count, __ATOMIC_RELAXED);
		*remote += __atomic_load_n(&fixture->rb.commit[i].remote, __ATOMIC_RELAXED);
	}
}

/* A record committed on the buffer's CPU goes to the local count, one
 * committed on another CPU to the remote one, and the reader adds both:
 * the two packets read back whole. */
static void
test_commit_local_and_remote(Fixture *fixture, gconstpointer user_data)
{
	cpu_set_t saved;
	uint64_t local0, remote0, local1, remote1;
	Checker checker = {0};

	if (!rseq_commits() || sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		g_test_skip("needs glibc's rseq area and two CPUs");
		return;
	}
	g_assert_cmpint(sched_getaffinity(0, sizeof(saved), &saved), ==, 0);
	if (!pin_to(0) || sched_getcpu() != 0) {
		g_test_skip("cannot run on CPU 0");
		return;
	}
	g_assert_cmpint(write_record(&fixture->rb, 0, 0, 64), ==, 0);
	commit_totals(fixture, &local0, &remote0);
	/* The record, and the packet header its reservation opened. */
	g_assert_cmpuint(local0, ==, 64 + sizeof(struct tc_packet_header));
	g_assert_cmpuint(remote0, ==, 0);

	g_assert_true(pin_to(1));
	g_assert_cmpint(write_record(&fixture->rb, 0, 1, 100), ==, 0);
	commit_totals(fixture, &local1, &remote1);
	g_assert_cmpuint(local1, ==, local0);
	g_assert_cmpuint(remote1, ==, 100);

	g_assert_true(tc_rb_flush(&fixture->rb));
	g_assert_cmpuint(drain(fixture, &checker), ==, 1);
	g_assert_cmpuint(checker.recorded[0], ==, 2);
	sched_setaffinity(0, sizeof(saved), &saved);
}

/* Reports how much each counter of CPU 0's buffer took. */
static void
report_counters(const Fixture *fixture, uint64_t *local, uint64_t *remote)
{
	commit_totals(fixture, local, remote);
	g_test_message("%" G_GUINT64_FORMAT " bytes committed locally, %" G_GUINT64_FORMAT
		       " remotely", *local, *remote);
}

/* Writers that move between CPU 0 and CPU 1 commit into both counters,
 * which the reader adds. */
static void
test_concurrent_writers_cpu0(Fixture *fixture, gconstpointer user_data)
{
	uint64_t local, remote;

	writers_migrate = sysconf(_SC_NPROCESSORS_ONLN) >= 2;
	test_concurrent_writers(fixture, user_data);
	report_counters(fixture, &local, &remote);
	if (!writers_migrate || !rseq_commits())
		return;
	g_assert_cmpuint(local, >, 0);
	g_assert_cmpuint(remote, >, 0);
}

/* Signal handlers that interrupt a commit on the buffer's CPU make the
 * kernel restart it (wherever the scheduler runs the writers). */
static void
test_signal_nesting_discard_cpu0(Fixture *fixture, gconstpointer user_data)
{
	uint64_t local, remote;

	test_signal_nesting_discard(fixture, user_data);
	report_counters(fixture, &local, &remote);
}

static void
test_signal_nesting_overwrite_cpu0(Fixture *fixture, gconstpointer user_data)
{
	uint64_t local, remote;

	test_signal_nesting_overwrite(fixture, user_data);
	report_counters(fixture, &local, &remote);
}

/*
 * Per-CPU buffers as the tracepoint uses them: writers that pick the
 * buffer of the CPU they run on (picks_by_cpu) and move its position in
 * restartable sequences (move_locally), migrating as the scheduler and
 * the test move them, with a thread that locks those moves out to close
 * the sub-buffers being filled (tc_rb_flush(), the consumer's switch
 * timer) and, with with_remote, a writer that moves positions with a
 * locked swap from any CPU (move_locally unset, as without rseq). Every
 * record is read back whole, exactly once, or counted discarded by its
 * writer.
 */
#define LOCAL_CPUS_MAX 8
#define LOCAL_WRITERS 3
#define LOCAL_EVENTS 200000

typedef struct {
	Fixture buffers[LOCAL_CPUS_MAX];
	Checker checkers[LOCAL_CPUS_MAX];
	uint32_t nr_cpus;
	int writers_done; /* atomic */
	uint64_t flushes; /* sub-buffers closed by the flusher */
} LocalRun;

typedef struct {
	LocalRun *run;
	uint32_t thread;
	bool remote; /* a writer without an rseq area */
	struct tc_rb rbs[LOCAL_CPUS_MAX]; /* its own mappings' handles */
	uint64_t emitted, discarded, repicked;
} LocalWriter;

static void *
local_writer_thread(void *data)
{
	LocalWriter *writer = data;
	LocalRun *run = writer->run;

	for (uint64_t seq = 0; seq < LOCAL_EVENTS; seq++) {
		int ret;

		if (seq % MIGRATE_EVERY == 0)
			pin_to((int)((seq / MIGRATE_EVERY + writer->thread) % run->nr_cpus));
		do {
			int cpu = sched_getcpu();

			ret = write_record(&writer->rbs[cpu < 0 ? 0 : cpu % (int)run->nr_cpus],
					   writer->thread, seq,
					   sizeof(struct test_record) + (seq * 13) % 120);
			if (ret == -EAGAIN)
				writer->repicked++;
		} while (ret == -EAGAIN);
		g_assert_true(ret == 0 || ret == -ENOBUFS);
		writer->discarded += ret < 0;
		writer->emitted++;
	}
	return NULL;
}

static void
local_drain(LocalRun *run, uint32_t cpu)
{
	Fixture *buffer = &run->buffers[cpu];

	while (tc_rb_reader_get(&buffer->reader, buffer->packet) == 1) {
		check_packet(&run->checkers[cpu], buffer->packet);
		tc_rb_reader_put(&buffer->reader);
	}
}

/* Reads, and closes the sub-buffers being filled as often as it can. */
static void *
local_flusher_thread(void *data)
{
	LocalRun *run = data;

	while (!__atomic_load_n(&run->writers_done, __ATOMIC_ACQUIRE)) {
		for (uint32_t cpu = 0; cpu < run->nr_cpus; cpu++) {
			local_drain(run, cpu);
			if (tc_rb_flush(&run->buffers[cpu].reader.rb))
				run->flushes++;
		}
		sched_yield();
	}
	return NULL;
}

static void
run_local_moves(bool with_remote)
{
	LocalRun run = { 0 };
	LocalWriter writers[LOCAL_WRITERS + 1];
	pthread_t writer_ids[LOCAL_WRITERS + 1], flusher_id;
	uint32_t nr_writers = LOCAL_WRITERS + (with_remote ? 1 : 0);
	uint64_t repicked = 0;
	cpu_set_t saved;

	run.nr_cpus = (uint32_t)MIN(sysconf(_SC_NPROCESSORS_ONLN), LOCAL_CPUS_MAX);
	if (!rseq_commits() || run.nr_cpus < 2) {
		g_test_skip("needs glibc's rseq area and two CPUs");
		return;
	}
	g_assert_cmpint(sched_getaffinity(0, sizeof(saved), &saved), ==, 0);
	for (uint32_t cpu = 0; cpu < run.nr_cpus; cpu++) {
		fixture_cpu = cpu;
		fixture_setup_geometry(&run.buffers[cpu], 65536, 4);
	}
	for (uint32_t i = 0; i < nr_writers; i++) {
		writers[i] = (LocalWriter){ .run = &run, .thread = i, .remote = i == LOCAL_WRITERS };
		for (uint32_t cpu = 0; cpu < run.nr_cpus; cpu++) {
			struct tc_rb *rb = &writers[i].rbs[cpu];

			g_assert_cmpint(tc_rb_attach(rb, run.buffers[cpu].mapping,
						     run.buffers[cpu].size), ==, 0);
			rb->picks_by_cpu = true;
			rb->move_locally = !writers[i].remote;
		}
		g_assert_cmpint(pthread_create(&writer_ids[i], NULL, local_writer_thread,
					       &writers[i]), ==, 0);
	}
	g_assert_cmpint(pthread_create(&flusher_id, NULL, local_flusher_thread, &run), ==, 0);
	for (uint32_t i = 0; i < nr_writers; i++)
		pthread_join(writer_ids[i], NULL);
	__atomic_store_n(&run.writers_done, 1, __ATOMIC_RELEASE);
	pthread_join(flusher_id, NULL);
	sched_setaffinity(0, sizeof(saved), &saved);

	for (uint32_t cpu = 0; cpu < run.nr_cpus; cpu++) {
		tc_rb_flush(&run.buffers[cpu].reader.rb);
		drain(&run.buffers[cpu], &run.checkers[cpu]);
		g_assert_cmpuint(run.buffers[cpu].reader.packets_corrupted, ==, 0);
		/* Nothing left locked out. */
		g_assert_cmpuint(run.buffers[cpu].rb.shm->locked_moves, ==, with_remote ? 1 : 0);
	}
	for (uint32_t i = 0; i < nr_writers; i++) {
		uint64_t recorded = 0;

		for (uint32_t cpu = 0; cpu < run.nr_cpus; cpu++)
			recorded += run.checkers[cpu].recorded[i];
		g_assert_cmpuint(writers[i].emitted, ==, LOCAL_EVENTS);
		g_assert_cmpuint(recorded + writers[i].discarded, ==, writers[i].emitted);
		repicked += writers[i].repicked;
	}
	g_test_message("%" G_GUINT64_FORMAT " sub-buffers closed by the flusher, %"
		       G_GUINT64_FORMAT " reservations made again on another CPU",
		       run.flushes, repicked);
	g_assert_cmpuint(run.flushes, >, 0);
	for (uint32_t cpu = 0; cpu < run.nr_cpus; cpu++)
		fixture_teardown(&run.buffers[cpu], NULL);
}

static void
test_local_moves(void)
{
	run_local_moves(false);
}

static void
test_local_and_remote_moves(void)
{
	run_local_moves(true);
}

/* Reserves len bytes of a compact-header record and commits them. */
static struct tc_rb_ctx
reserve_compact(Fixture *fixture, uint32_t len, uint32_t full_ts_extra)
{
	struct tc_rb_ctx ctx;

	g_assert_cmpint(tc_rb_reserve_ts(&fixture->rb, &ctx, len, full_ts_extra), ==, 0);
	g_assert_cmpuint(ctx.slot_size, ==, ctx.full_timestamp ? len + full_ts_extra : len);
	tc_rb_commit(&ctx);
	return ctx;
}

/*
 * Compact headers: the first record of a buffer, the first after a gap of
 * 2^27 ns or more, and any record after a last_timestamp that is not
 * behind the clock take the extra bytes of a full timestamp; the others do
 * not, and their low bits restore the full timestamp.
 */
static void
test_compact_timestamps(Fixture *fixture, gconstpointer user_data)
{
	const uint64_t wrap = 1ull << TC_RB_COMPACT_TS_BITS;
	struct tc_rb_ctx first, second, ctx;

	first = reserve_compact(fixture, 8, 12);
	g_assert_true(first.full_timestamp);
	second = reserve_compact(fixture, 8, 12);
	g_assert_false(second.full_timestamp);
	g_assert_cmpuint(fixture->rb.shm->last_timestamp, ==, second.timestamp);
	g_assert_cmpuint(tc_event_compact_restore(first.timestamp,
						  tc_event_compact_timestamp(tc_event_compact_pack(
							  3, second.timestamp))),
			 ==, second.timestamp);
	g_assert_cmpuint(tc_event_compact_id(tc_event_compact_pack(30, second.timestamp)), ==, 30);

	g_usleep(wrap / 1000 + 10000);
	g_assert_true(reserve_compact(fixture, 8, 12).full_timestamp);
	g_assert_false(reserve_compact(fixture, 8, 12).full_timestamp);
	/* Plain reservations never grow. */
	g_assert_cmpint(tc_rb_reserve(&fixture->rb, &ctx, 8), ==, 0);
	g_assert_false(ctx.full_timestamp);
	g_assert_cmpuint(ctx.slot_size, ==, 8);
	tc_rb_commit(&ctx);
	/* An application that scribbled last_timestamp only makes records
	 * bigger. */
	fixture->rb.shm->last_timestamp = UINT64_MAX;
	g_assert_true(reserve_compact(fixture, 8, 12).full_timestamp);

	/* Restoring: same high bits, or one wrap when the low bits went back. */
	g_assert_cmpuint(tc_event_compact_restore(5 * wrap + 100, 200), ==, 5 * wrap + 200);
	g_assert_cmpuint(tc_event_compact_restore(5 * wrap + 200, 200), ==, 5 * wrap + 200);
	g_assert_cmpuint(tc_event_compact_restore(5 * wrap + 200, 100), ==, 6 * wrap + 100);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);

#define ADD(path, func) g_test_add(path, Fixture, NULL, fixture_setup, func, fixture_teardown)
	ADD("/tracectl/rb/round-trip", test_round_trip);
	ADD("/tracectl/rb/reader-in-place", test_reader_in_place);
	ADD("/tracectl/rb/full-discards", test_full_discards);
	ADD("/tracectl/rb/exact-fit", test_exact_fit);
	ADD("/tracectl/rb/flush", test_flush);
	g_test_add("/tracectl/rb/trim", Fixture, NULL, fixture_setup_16k, test_trim,
		   fixture_teardown);
	ADD("/tracectl/rb/timestamps-monotonic", test_timestamps_monotonic);
	ADD("/tracectl/rb/reader-rejects-scribbles", test_reader_rejects_scribbles);
	ADD("/tracectl/rb/concurrent-writers", test_concurrent_writers);
	ADD("/tracectl/rb/concurrent-writers-large", test_concurrent_writers_large);
	ADD("/tracectl/rb/signal-nesting-discard", test_signal_nesting_discard);
	ADD("/tracectl/rb/signal-nesting-overwrite", test_signal_nesting_overwrite);
	ADD("/tracectl/rb/overwrite-keeps-newest", test_overwrite_keeps_newest);
	ADD("/tracectl/rb/forged-counts-ahead", test_forged_counts_ahead);
	ADD("/tracectl/rb/empty-packet-reports-discards", test_empty_packet_reports_discards);
	ADD("/tracectl/rb/wake-reader-at-a-quarter", test_wake_reader_at_a_quarter);
	ADD("/tracectl/rb/wake-reader-big-buffer", test_wake_reader_big_buffer);
	ADD("/tracectl/rb/wake-reader-small-buffer", test_wake_reader_small_buffer);
	ADD("/tracectl/rb/compact-timestamps", test_compact_timestamps);
#undef ADD
#define ADD_CPU0(path, func) \
	g_test_add(path, Fixture, NULL, fixture_setup_cpu0, func, fixture_teardown)
	ADD_CPU0("/tracectl/rb/commit-local-and-remote", test_commit_local_and_remote);
	ADD_CPU0("/tracectl/rb/concurrent-writers-on-cpu0", test_concurrent_writers_cpu0);
	ADD_CPU0("/tracectl/rb/signal-nesting-discard-on-cpu0", test_signal_nesting_discard_cpu0);
	ADD_CPU0("/tracectl/rb/signal-nesting-overwrite-on-cpu0",
		 test_signal_nesting_overwrite_cpu0);
#undef ADD_CPU0
#define ADD_TSC(path, func) \
	g_test_add(path, Fixture, NULL, fixture_setup_tsc, func, fixture_teardown)
	ADD_TSC("/tracectl/rb/timestamps-monotonic-tsc-clock", test_timestamps_monotonic);
	ADD_TSC("/tracectl/rb/concurrent-writers-tsc-clock", test_concurrent_writers);
	ADD_TSC("/tracectl/rb/signal-nesting-discard-tsc-clock", test_signal_nesting_discard);
	ADD_TSC("/tracectl/rb/compact-timestamps-tsc-clock", test_compact_timestamps);
#undef ADD_TSC
	g_test_add_func("/tracectl/rb/attach-rejects-bad-geometry",
			test_attach_rejects_bad_geometry);
	g_test_add_func("/tracectl/rb/local-moves", test_local_moves);
	g_test_add_func("/tracectl/rb/local-and-remote-moves", test_local_and_remote_moves);
	return g_test_run();
}
