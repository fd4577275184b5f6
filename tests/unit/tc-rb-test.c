/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests of the shared-memory ring buffer (probes/ringbuffer/tc-rb.c):
 * writer and reader in one process, on an anonymous shared mapping.
 */
#include <glib.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#include "tc-rb.h"

#define TEST_STREAM_ID 7u
#define TEST_CPU 3u

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
fixture_setup_geometry(Fixture *fixture, uint32_t subbuf_size, uint32_t num_subbuf)
{
	fixture->size = tc_rb_shm_size(subbuf_size, num_subbuf);
	g_assert_cmpuint(fixture->size, >, 0);
	fixture->mapping = mmap(NULL, fixture->size, PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	g_assert_true(fixture->mapping != MAP_FAILED);
	g_assert_cmpint(tc_rb_init(fixture->mapping, subbuf_size, num_subbuf, TEST_CPU,
				   TEST_STREAM_ID, test_uuid), ==, 0);
	g_assert_cmpint(tc_rb_attach(&fixture->rb, fixture->mapping, fixture->size), ==, 0);
	g_assert_cmpint(tc_rb_reader_init(&fixture->reader, fixture->mapping, fixture->size,
					  TEST_STREAM_ID, TEST_CPU, test_uuid), ==, 0);
	fixture->packet = g_malloc(subbuf_size);
}

static void
fixture_setup(Fixture *fixture, gconstpointer user_data)
{
	fixture_setup_geometry(fixture, 4096, 4);
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
	g_assert_cmpint(tc_rb_reader_get(&fixture->reader, fixture->packet), ==, 0);
	g_assert_true(tc_rb_flush(&fixture->rb));
	g_assert_cmpint(tc_rb_reader_get(&fixture->reader, fixture->packet), ==, 1);

	g_assert_cmphex(header->magic, ==, TC_CTF_MAGIC);
	g_assert_cmpmem(header->uuid, 16, test_uuid, 16);
	g_assert_cmpuint(header->stream_id, ==, TEST_STREAM_ID);
	g_assert_cmpuint(header->stream_instance_id, ==, TEST_CPU);
	g_assert_cmpuint(header->cpu_id, ==, TEST_CPU);
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

	g_assert_cmpuint(drain(fixture, &checker), ==, 4);
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
	/* And one below the round being read. */
	idx = (fixture->reader.consumed / 4096) % 4;
	fixture->rb.commit[idx].count -= 8192;
	g_assert_cmpint(tc_rb_reader_get(&fixture->reader, fixture->packet), ==, -EBADMSG);
	g_assert_cmpuint(fixture->reader.packets_corrupted, ==, 11);
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
	EXPECT_REJECTED(version, 2);
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
		int ret = write_record(&writer->fixture->rb, writer->thread, seq,
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

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);

#define ADD(path, func) g_test_add(path, Fixture, NULL, fixture_setup, func, fixture_teardown)
	ADD("/tracectl/rb/round-trip", test_round_trip);
	ADD("/tracectl/rb/full-discards", test_full_discards);
	ADD("/tracectl/rb/exact-fit", test_exact_fit);
	ADD("/tracectl/rb/flush", test_flush);
	ADD("/tracectl/rb/timestamps-monotonic", test_timestamps_monotonic);
	ADD("/tracectl/rb/reader-rejects-scribbles", test_reader_rejects_scribbles);
	ADD("/tracectl/rb/concurrent-writers", test_concurrent_writers);
	ADD("/tracectl/rb/concurrent-writers-large", test_concurrent_writers_large);
#undef ADD
	g_test_add_func("/tracectl/rb/attach-rejects-bad-geometry",
			test_attach_rejects_bad_geometry);
	return g_test_run();
}
