/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The own-process kernel trace (tc-consumerd-kernel-own.h).
 *
 * The ring buffer is the kernel's BPF ring buffer: page 0 holds the
 * consumer position, the only page the kernel lets the consumer map
 * writable; then the producer position and the data, mapped twice in a
 * row so that a record that wraps reads as one. Each record is an 8-byte
 * header (length, busy and discard bits) and the record, 8-aligned. The
 * records are the programs', whose layout is fixed: a record of another
 * length is skipped, never trusted.
 *
 * The ring is one for all CPUs, ordered by reservation, while each
 * record's time is read just after: two CPUs' records may come a few
 * nanoseconds out of order, and a program running in an interrupt may
 * nest between another's reservation and its clock read. So records go
 * to one stream per CPU (channel0_<cpu>, created when the CPU first
 * records), whose times are made non-decreasing.
 */
#include "tc-consumerd-kernel-own.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "tc-clock-offset.h"
#include "tc-consumer-abi.h"
#include "tc-consumerd-kernel-own-syscall.h"
#include "tc-consumerd-log.h"
#include "tc-consumerd-output.h"
#include "tc-ctf-clock.h"
#include "tc-kernel-own.h"
#include "tc-rb-ctf.h"
#include "tc-syscall-args.h"
#include "tc-syscall-name.h"

#define RING_BUSY (1u << 31)
#define RING_DISCARD (1u << 30)
#define RING_HEADER 8u
#define CTF_MAGIC 0xc1fc1fc1u
/* Records written as one packet at most; more make several. */
#define PACKET_RECORDS 4096u
/* The largest event: header, context, a named system call's payload. */
#define EVENT_MAX (12u + 12u + TC_CONSUMERD_OWN_SYSCALL_PAYLOAD_MAX)
/* 4 MiB of 88-byte records every 20 ms: about 2 million a second (a
 * system call record with a path takes 88 more bytes and the path's). */
#define READ_INTERVAL_US 20000

struct ring {
	int fd;
	size_t page;
	volatile uint64_t *consumer_pos; /* page 0, writable */
	uint8_t *data;                   /* producer page, then the data twice */
};

/* A CPU's stream and the packet being filled for it. */
struct cpu_stream {
	int fd;
	uint64_t size, packet_seq;
	uint64_t begin, last; /* timestamps of the packet's events */
	unsigned int count;   /* events in the packet */
	uint8_t *packet;      /* room for PACKET_RECORDS events and the headers */
	uint8_t *end;
};

/* The event ids of the named system calls: after the record types', an
 * entry and an exit per number. */
#define SYSCALL_EVENT_ID_BASE 1000u

struct tc_consumerd_own_trace {
	pthread_mutex_t lock;
	/* The named system calls' events declared in the metadata so far,
	 * bit n of word n / 64: entries, then exits; and the fields of those
	 * tracectl decodes (NULL: the registers, or ret). */
	uint64_t declared[2][TC_KERNEL_OWN_SYSCALL_WORDS];
	struct tc_syscall_args_layout *layouts[2][TC_KERNEL_OWN_SYSCALLS_MAX];
	pthread_t thread;
	bool stopping;
	struct ring ring;
	int dir_fd, metadata_fd;
	uint64_t metadata_size;
	uint8_t uuid[16];
	unsigned int nr_cpus;
	struct cpu_stream *cpus; /* nr_cpus of them, fd -1 until used */
};

static int
ring_map(struct ring *ring, int fd)
{
	ring->fd = fd;
	ring->page = (size_t)sysconf(_SC_PAGESIZE);
	ring->consumer_pos = mmap(NULL, ring->page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ring->consumer_pos == MAP_FAILED)
		return -errno;
	ring->data = mmap(NULL, ring->page + 2 * (size_t)TC_KERNEL_OWN_RING_BYTES, PROT_READ,
			  MAP_SHARED, fd, (off_t)ring->page);
	if (ring->data == MAP_FAILED) {
		int ret = -errno;

		munmap((void *)ring->consumer_pos, ring->page);
		return ret;
	}
	return 0;
}

static void
ring_unmap(struct ring *ring)
{
	if (ring->fd < 0)
		return;
	munmap((void *)ring->consumer_pos, ring->page);
	munmap(ring->data, ring->page + 2 * (size_t)TC_KERNEL_OWN_RING_BYTES);
	close(ring->fd);
	ring->fd = -1;
}

static uint8_t *
put(uint8_t *out, const void *value, size_t size)
{
	memcpy(out, value, size);
	return out + size;
}

/* A bio: the kernel's dev_t split as userspace sees it (major:minor),
 * the sector, its size in sectors and bytes, the operation and flags. */
static uint8_t *
put_bio(uint8_t *out, const struct tc_own_record *r)
{
	uint32_t dev = (uint32_t)r->id, major = dev >> 20, minor = dev & 0xfffffu;
	uint32_t nr_sector = (uint32_t)((uint64_t)r->value >> 9), opf = (uint32_t)r->args[1];
	uint64_t bytes = (uint64_t)r->value;

	out = put(out, &major, 4);
	out = put(out, &minor, 4);
	out = put(out, &r->args[0], 8);
	out = put(out, &nr_sector, 4);
	out = put(out, &bytes, 8);
	return put(out, &opf, 4);
}

/* A packet queued to a device: its ifindex, length and ethertype. */
static uint8_t *
put_packet(uint8_t *out, const struct tc_own_record *r)
{
	uint32_t len = (uint32_t)r->value;
	uint16_t protocol = (uint16_t)r->args[0];

	out = put(out, &r->id, 4);
	out = put(out, &len, 4);
	return put(out, &protocol, 2);
}

/* The CTF event id of a named system call's record. */
static uint32_t
syscall_event_id(const struct tc_own_record *r)
{
	return SYSCALL_EVENT_ID_BASE + 2u * (uint32_t)r->id + (r->type == TC_OWN_SYSCALL_EXIT);
}

/* One event: header (id, timestamp), context (tid, pid, cpu), payload;
 * a named system call's from the data_len bytes data its record copied. */
static uint8_t *
put_event(const struct tc_consumerd_own_trace *trace, uint8_t *out, const struct tc_own_record *r,
	  const uint8_t *data, uint32_t data_len)
{
	bool is_syscall = r->type == TC_OWN_SYSCALL_ENTRY || r->type == TC_OWN_SYSCALL_EXIT;
	uint32_t id = is_syscall ? syscall_event_id(r) : r->type, cpu = r->cpu;
	int64_t id64 = r->id;

	out = put(out, &id, 4);
	out = put(out, &r->timestamp, 8);
	out = put(out, &r->tid, 4);
	out = put(out, &r->pid, 4);
	out = put(out, &cpu, 4);
	switch (r->type) {
	case TC_OWN_SYS_ENTER:
		out = put(out, &id64, 8);
		return put(out, r->args, sizeof(r->args));
	case TC_OWN_SYS_EXIT:
		out = put(out, &id64, 8);
		return put(out, &r->value, 8);
	case TC_OWN_SWITCH_OUT:
		return put(out, &id64, 8);
	case TC_OWN_WAKEUP:
	case TC_OWN_MIGRATE:
	case TC_OWN_SWITCH_IN:
		return put(out, &r->id, 4);
	case TC_OWN_PAGE_FAULT:
		out = put(out, &r->args[0], 8);
		out = put(out, &r->args[1], 8);
		return put(out, &r->value, 8);
	case TC_OWN_SIGNAL:
		out = put(out, &r->id, 4);
		return put(out, &r->value, 8);
	case TC_OWN_LOST:
		out = put(out, &r->id, 4);
		return put(out, &r->value, 8);
	case TC_OWN_BIO_QUEUE:
		return put_bio(out, r);
	case TC_OWN_NET_DEV_QUEUE:
		return put_packet(out, r);
	case TC_OWN_SYSCALL_ENTRY:
	case TC_OWN_SYSCALL_EXIT:
		/* declare_syscall() let only numbers below the maximum by. */
		return tc_consumerd_kernel_own_syscall_put(
		    out, trace->layouts[r->type == TC_OWN_SYSCALL_EXIT][r->id], r->type == TC_OWN_SYSCALL_EXIT,
		    r, data, data_len);
	default:
		return out;
	}
}

/* The packet header and context, once its events are known. */
static void
put_packet_header(const struct tc_consumerd_own_trace *trace, struct cpu_stream *stream,
		  uint32_t cpu, size_t size)
{
	uint8_t *out = stream->packet;
	uint32_t magic = CTF_MAGIC, zero32 = 0;
	uint64_t zero = 0, bits = (uint64_t)size * 8, instance = cpu;

	out = put(out, &magic, 4);
	out = put(out, trace->uuid, 16);
	out = put(out, &zero32, 4);
	out = put(out, &instance, 8);
	out = put(out, &stream->begin, 8);
	out = put(out, &stream->last, 8);
	out = put(out, &bits, 8);
	out = put(out, &bits, 8);
	out = put(out, &stream->packet_seq, 8);
	out = put(out, &zero, 8);
	put(out, &cpu, 4);
}

#define PACKET_HEADER_SIZE (4u + 16u + 4u + 8u + 6u * 8u + 4u)

/* The CPU's stream file and packet buffer, made when it first records. */
static int
stream_open(struct tc_consumerd_own_trace *trace, uint32_t cpu, struct cpu_stream **result)
{
	struct cpu_stream *stream = &trace->cpus[cpu];
	char name[32];

	if (!stream->packet) {
		snprintf(name, sizeof(name), "channel0_%u", cpu);
		stream->packet = malloc(PACKET_HEADER_SIZE + (size_t)PACKET_RECORDS * EVENT_MAX);
		if (!stream->packet)
			return -ENOMEM;
		stream->fd = tc_consumerd_output_create_file(trace->dir_fd, name);
		if (stream->fd < 0) {
			int ret = stream->fd;

			free(stream->packet);
			stream->packet = NULL;
			return ret;
		}
		stream->end = stream->packet + PACKET_HEADER_SIZE;
	}
	*result = stream;
	return 0;
}

static int
stream_flush(struct tc_consumerd_own_trace *trace, uint32_t cpu)
{
	struct cpu_stream *stream = &trace->cpus[cpu];
	size_t size = (size_t)(stream->end - stream->packet);
	int ret;

	if (!stream->count)
		return 0;
	put_packet_header(trace, stream, cpu, size);
	ret = tc_consumerd_output_append(stream->fd, &stream->size, stream->packet, size);
	stream->packet_seq++;
	stream->count = 0;
	stream->end = stream->packet + PACKET_HEADER_SIZE;
	return ret;
}

/*
 * A named system call's event, declared in the metadata the first time
 * one of its records comes, as lttng-modules names and lays it out
 * (tc-consumerd-kernel-own-syscall.h): the fields of the calls tracectl
 * decodes, else the six argument registers (entry) or ret (exit). A
 * number the table does not name (the service asks only for named ones)
 * is no event: 1 to skip the record. 0, or -errno.
 */
static int
declare_syscall(struct tc_consumerd_own_trace *trace, const struct tc_own_record *r)
{
	bool is_exit = r->type == TC_OWN_SYSCALL_EXIT;
	uint32_t nr = (uint32_t)r->id;
	struct tc_syscall_args_layout layout, *kept = NULL;
	const char *name;
	char text[2048];
	int len;

	if (r->id < 0 || nr >= TC_KERNEL_OWN_SYSCALLS_MAX)
		return 1;
	if (trace->declared[is_exit][nr / 64] & (1ull << (nr % 64)))
		return 0;
	name = tc_syscall_name_of(nr);
	if (!name)
		return 1;
	if (tc_syscall_args_layout(name, is_exit, &layout)) {
		kept = malloc(sizeof(*kept));
		if (!kept)
			return -ENOMEM;
		*kept = layout;
	}
	len = tc_consumerd_kernel_own_syscall_declare(text, sizeof(text), name, is_exit,
						      syscall_event_id(r), kept);
	if (len < 0) {
		free(kept);
		return len;
	}
	trace->declared[is_exit][nr / 64] |= 1ull << (nr % 64);
	trace->layouts[is_exit][nr] = kept;
	return tc_consumerd_output_append(trace->metadata_fd, &trace->metadata_size, text,
					  (size_t)len);
}

/* One record into its CPU's packet, its time no earlier than the last. */
static int
stream_add(struct tc_consumerd_own_trace *trace, struct tc_own_record *record,
	   const uint8_t *data, uint32_t data_len)
{
	struct cpu_stream *stream;
	int ret;

	if (record->cpu >= trace->nr_cpus)
		return 0;
	if (record->type == TC_OWN_SYSCALL_ENTRY || record->type == TC_OWN_SYSCALL_EXIT) {
		ret = declare_syscall(trace, record);
		if (ret != 0)
			return ret < 0 ? ret : 0;
	}
	ret = stream_open(trace, record->cpu, &stream);
	if (ret < 0)
		return ret;
	if (record->timestamp < stream->last)
		record->timestamp = stream->last;
	if (stream->count == 0)
		stream->begin = record->timestamp;
	stream->last = record->timestamp;
	stream->end = put_event(trace, stream->end, record, data, data_len);
	if (++stream->count == PACKET_RECORDS)
		return stream_flush(trace, record->cpu);
	return 0;
}

/* Everything committed now, as one packet per CPU (more when full). */
static int
drain_locked(struct tc_consumerd_own_trace *trace)
{
	struct ring *ring = &trace->ring;
	uint64_t cons, prod;
	int ret = 0;

	if (ring->fd < 0)
		return 0;
	cons = __atomic_load_n(ring->consumer_pos, __ATOMIC_ACQUIRE);
	prod = __atomic_load_n((uint64_t *)ring->data, __ATOMIC_ACQUIRE);
	while (ret == 0 && cons < prod) {
		const uint8_t *slot = ring->data + ring->page + (cons & (TC_KERNEL_OWN_RING_BYTES - 1));
		uint32_t len = __atomic_load_n((const uint32_t *)slot, __ATOMIC_ACQUIRE);
		struct tc_own_syscall_record record;
		uint32_t size = len & ~(RING_BUSY | RING_DISCARD);

		if (len & RING_BUSY)
			break;
		cons += (RING_HEADER + size + 7) & ~7ull;
		if ((len & RING_DISCARD) || size < sizeof(record.head) || size > sizeof(record))
			continue;
		/* A plain record, or one with the bytes a system call's
		 * arguments pointed to, as many as it holds. */
		memcpy(&record, slot + RING_HEADER, size);
		if (size < offsetof(struct tc_own_syscall_record, data) ||
		    record.data_len > size - offsetof(struct tc_own_syscall_record, data))
			record.data_len = 0;
		if (record.head.type >= TC_OWN_SYS_ENTER &&
		    record.head.type <= TC_OWN_RECORD_TYPE_LAST)
			ret = stream_add(trace, &record.head, record.data,
					 record.data_len > TC_OWN_SYSCALL_DATA_MAX ? 0
										  : record.data_len);
	}
	__atomic_store_n(ring->consumer_pos, cons, __ATOMIC_RELEASE);
	for (uint32_t cpu = 0; cpu < trace->nr_cpus; cpu++) {
		int flushed = stream_flush(trace, cpu);

		ret = ret < 0 ? ret : flushed;
	}
	return ret;
}

static void *
reader(void *data)
{
	struct tc_consumerd_own_trace *trace = data;

	for (;;) {
		int ret;

		pthread_mutex_lock(&trace->lock);
		if (trace->stopping) {
			pthread_mutex_unlock(&trace->lock);
			return NULL;
		}
		ret = drain_locked(trace);
		pthread_mutex_unlock(&trace->lock);
		if (ret < 0)
			tc_consumerd_warning("own-process kernel trace: %s", strerror(-ret));
		/* The programs never wake us (each wake-up would cost the
		 * traced task), so the ring is read on a timer. */
		usleep(READ_INTERVAL_US);
	}
}

static void
print_metadata(FILE *out, const uint8_t uuid[16])
{
	struct tc_consumer_clock clock = {.freq = 1000000000ull};
	char clock_text[TC_CTF_CLOCK_MAX];
	int64_t offset = tc_clock_offset_monotonic_ns();

	/* The offset is positive: the realtime clock is decades ahead. */
	clock.offset_s = offset / 1000000000ll;
	clock.offset_ticks = (uint64_t)(offset % 1000000000ll);
	fputs("/* CTF 1.8 */\n\n", out);
	for (unsigned int bits = 8; bits <= 64; bits *= 2)
		fprintf(out, "typealias integer { size = %u; align = 8; signed = false; } := uint%u_t;\n"
			     "typealias integer { size = %u; align = 8; signed = true; } := int%u_t;\n",
			bits, bits, bits, bits);
	fputs("typealias integer { size = 64; align = 8; signed = false; base = 16; } := hex64_t;\n",
	      out);
	fputs("\ntrace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"", out);
	for (int i = 0; i < 16; i++)
		fprintf(out, "%02x%s", uuid[i], i == 3 || i == 5 || i == 7 || i == 9 ? "-" : "");
	fputs("\";\n\tbyte_order = le;\n" TC_CTF_PACKET_HEADER "};\n\n", out);
	fputs("env {\n\tdomain = \"kernel\";\n\ttracer_name = \"tracectl\";\n"
	      "\tscope = \"own-process\";\n};\n\n", out);
	tc_ctf_clock_format(clock_text, sizeof(clock_text), &clock);
	fputs(clock_text, out);
	fputs("\nstream {\n\tid = 0;\n\tevent.header := struct {\n\t\tuint32_t id;\n"
	      "\t\tuint64_clock_monotonic_t timestamp;\n\t} align(8);\n" TC_CTF_PACKET_CONTEXT
	      "\tevent.context := struct {\n\t\tint32_t _tid;\n\t\tint32_t _pid;\n"
	      "\t\tuint32_t _cpu_id;\n\t} align(8);\n};\n\n", out);
	fprintf(out,
		"event {\n\tname = \"raw_syscalls:sys_enter\";\n\tid = %d;\n\tstream_id = 0;\n"
		"\tfields := struct {\n\t\tint64_t _id;\n\t\thex64_t _args[6];\n\t};\n};\n\n"
		"event {\n\tname = \"raw_syscalls:sys_exit\";\n\tid = %d;\n\tstream_id = 0;\n"
		"\tfields := struct {\n\t\tint64_t _id;\n\t\tint64_t _ret;\n\t};\n};\n\n"
		"event {\n\tname = \"sched:sched_switch_out\";\n\tid = %d;\n\tstream_id = 0;\n"
		"\tfields := struct {\n\t\tint64_t _prev_state;\n\t};\n};\n\n"
		"event {\n\tname = \"sched:sched_switch_in\";\n\tid = %d;\n\tstream_id = 0;\n"
		"\tfields := struct {\n\t\tint32_t _prio;\n\t};\n};\n\n"
		"event {\n\tname = \"sched:sched_wakeup\";\n\tid = %d;\n\tstream_id = 0;\n"
		"\tfields := struct {\n\t\tint32_t _target_cpu;\n\t};\n};\n\n"
		"event {\n\tname = \"sched:sched_migrate_task\";\n\tid = %d;\n\tstream_id = 0;\n"
		"\tfields := struct {\n\t\tint32_t _dest_cpu;\n\t};\n};\n\n"
		"event {\n\tname = \"exceptions:page_fault_user\";\n\tid = %d;\n\tstream_id = 0;\n"
		"\tfields := struct {\n\t\thex64_t _address;\n\t\thex64_t _ip;\n"
		"\t\thex64_t _error_code;\n\t};\n};\n\n"
		"event {\n\tname = \"signal:signal_deliver\";\n\tid = %d;\n\tstream_id = 0;\n"
		"\tfields := struct {\n\t\tint32_t _sig;\n\t\tint64_t _code;\n\t};\n};\n\n"
		"event {\n\tname = \"tracectl:own_lost\";\n\tid = %d;\n\tstream_id = 0;\n"
		"\tfields := struct {\n\t\tint32_t _ring_full;\n\t\tint64_t _count;\n\t};\n};\n",
		TC_OWN_SYS_ENTER, TC_OWN_SYS_EXIT, TC_OWN_SWITCH_OUT, TC_OWN_SWITCH_IN,
		TC_OWN_WAKEUP, TC_OWN_MIGRATE, TC_OWN_PAGE_FAULT, TC_OWN_SIGNAL, TC_OWN_LOST);
	fprintf(out,
		"\nevent {\n\tname = \"block:block_bio_queue\";\n\tid = %d;\n\tstream_id = 0;\n"
		"\tfields := struct {\n\t\tuint32_t _major;\n\t\tuint32_t _minor;\n"
		"\t\tuint64_t _sector;\n\t\tuint32_t _nr_sector;\n\t\tuint64_t _bytes;\n"
		"\t\tuint32_t _opf;\n\t};\n};\n\n"
		"event {\n\tname = \"net:net_dev_queue\";\n\tid = %d;\n\tstream_id = 0;\n"
		"\tfields := struct {\n\t\tint32_t _ifindex;\n\t\tuint32_t _len;\n"
		"\t\tuint16_t _protocol;\n\t};\n};\n",
		TC_OWN_BIO_QUEUE, TC_OWN_NET_DEV_QUEUE);
}

static int
write_metadata(struct tc_consumerd_own_trace *trace)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	int ret;

	if (!out)
		return -ENOMEM;
	print_metadata(out, trace->uuid);
	if (fclose(out) != 0) {
		free(text);
		return -ENOMEM;
	}
	ret = tc_consumerd_output_append(trace->metadata_fd, &trace->metadata_size, text, len);
	free(text);
	return ret;
}

static void
trace_free(struct tc_consumerd_own_trace *trace)
{
	ring_unmap(&trace->ring);
	for (unsigned int cpu = 0; trace->cpus && cpu < trace->nr_cpus; cpu++) {
		if (trace->cpus[cpu].packet)
			close(trace->cpus[cpu].fd);
		free(trace->cpus[cpu].packet);
	}
	free(trace->cpus);
	for (unsigned int side = 0; side < 2; side++)
		for (unsigned int nr = 0; nr < TC_KERNEL_OWN_SYSCALLS_MAX; nr++)
			free(trace->layouts[side][nr]);
	if (trace->metadata_fd >= 0)
		close(trace->metadata_fd);
	if (trace->dir_fd >= 0)
		close(trace->dir_fd);
	pthread_mutex_destroy(&trace->lock);
	free(trace);
}

int
tc_consumerd_kernel_own_open(const char *dir, const uint8_t uuid[16], int ring_fd,
			     struct tc_consumerd_own_trace **result)
{
	struct tc_consumerd_own_trace *trace = calloc(1, sizeof(*trace));
	int ret;

	if (!trace) {
		close(ring_fd);
		return -ENOMEM;
	}
	pthread_mutex_init(&trace->lock, NULL);
	trace->ring.fd = -1;
	trace->metadata_fd = -1;
	memcpy(trace->uuid, uuid, 16);
	trace->nr_cpus = (unsigned int)sysconf(_SC_NPROCESSORS_CONF);
	trace->cpus = calloc(trace->nr_cpus, sizeof(*trace->cpus));
	ret = trace->cpus ? ring_map(&trace->ring, ring_fd) : -ENOMEM;
	if (ret < 0) {
		close(ring_fd);
		trace->ring.fd = -1;
	}
	trace->dir_fd = ret < 0 ? ret : tc_consumerd_output_open_dir(dir);
	ret = trace->dir_fd < 0 ? trace->dir_fd : 0;
	if (ret == 0)
		ret = trace->metadata_fd =
		    tc_consumerd_output_create_file(trace->dir_fd, "metadata");
	if (ret >= 0)
		ret = write_metadata(trace);
	if (ret >= 0)
		ret = -pthread_create(&trace->thread, NULL, reader, trace);
	if (ret < 0) {
		trace_free(trace);
		return ret;
	}
	*result = trace;
	return 0;
}

int
tc_consumerd_kernel_own_replace_ring(struct tc_consumerd_own_trace *trace, int ring_fd)
{
	struct ring ring;
	int ret = ring_map(&ring, ring_fd);

	if (ret < 0) {
		close(ring_fd);
		return ret;
	}
	pthread_mutex_lock(&trace->lock);
	ret = drain_locked(trace);
	ring_unmap(&trace->ring);
	trace->ring = ring;
	pthread_mutex_unlock(&trace->lock);
	return ret;
}

int
tc_consumerd_kernel_own_drain(struct tc_consumerd_own_trace *trace)
{
	int ret;

	pthread_mutex_lock(&trace->lock);
	ret = drain_locked(trace);
	pthread_mutex_unlock(&trace->lock);
	for (unsigned int cpu = 0; ret == 0 && cpu < trace->nr_cpus; cpu++)
		if (trace->cpus[cpu].packet)
			ret = tc_consumerd_output_sync(trace->cpus[cpu].fd);
	if (ret == 0)
		ret = tc_consumerd_output_sync(trace->metadata_fd);
	return ret;
}

void
tc_consumerd_kernel_own_close(struct tc_consumerd_own_trace *trace)
{
	if (!trace)
		return;
	pthread_mutex_lock(&trace->lock);
	trace->stopping = true;
	pthread_mutex_unlock(&trace->lock);
	pthread_join(trace->thread, NULL);
	tc_consumerd_kernel_own_drain(trace);
	trace_free(trace);
}
