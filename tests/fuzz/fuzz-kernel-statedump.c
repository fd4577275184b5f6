/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the kernel state dump's parsers of bytes other processes make:
 *
 * - the consumer's check of an ftrace:raw_data record
 *   (service/consumerd/tc-consumerd-kernel-statedump.c): any root writer
 *   of the instance's trace_marker_raw makes one, and the helper's own
 *   carry names and paths of other users' processes;
 * - the helper's reading of /proc/PID/task/TID/stat (a name the process
 *   chose, with any byte but NUL, ')' and spaces included), of a status
 *   file's NSpid, NStgid, Uid and Gid lines, and of /proc/PID/maps lines
 *   (paths of the process' files), in tc-helper-statedump-process.c,
 *   included here so that its static parsers are reached.
 *
 * Input: byte 0 picks the parser (mod 4), the rest is its bytes: a raw
 * record laid out as tracefs' format says (common fields, id at 8, buf
 * at 12), a stat line, a status file, a maps line.
 *
 * What must hold, beside no error under the sanitizers: a record taken
 * has a known kind's event id and a payload inside the record, at most 3
 * bytes short of its end, whose every string ends inside it, and which a
 * second parse sizes the same; a stat taken has a name of at most 15
 * bytes, NUL-terminated; a maps line taken has its start at or below its
 * end when the line said so (no check: the kernel's), and flags of the
 * four known bits only.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-driver.h"
#include "tc-consumerd-kernel-statedump.h"
#include "tc-kernel-statedump.h"

/* The helper's parsers, static in their file; its writer is not linked:
 * nothing here writes records. */
#include "tc-helper-statedump-process.c"

bool
tc_helper_statedump_writer_put(struct tc_helper_statedump_writer *writer,
			       const struct tc_kernel_statedump_record *record)
{
	(void)writer;
	(void)record;
	return true;
}

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		fprintf(stderr, "fuzz-kernel-statedump: " __VA_ARGS__);                            \
		fprintf(stderr, "\n");                                                             \
		abort();                                                                           \
	} while (0)

enum {
	RECORD_TAKEN,
	RECORD_REFUSED,
	STAT_TAKEN,
	STAT_REFUSED,
	STATUS_TAKEN,
	STATUS_REFUSED,
	MAP_TAKEN,
	MAP_REFUSED,
	OUTCOMES,
};

static const char *const outcome_names[OUTCOMES] = {
    "record taken", "record refused", "stat taken",  "stat refused",
    "status taken", "status refused", "map taken",   "map refused",
};
static unsigned long long outcomes[OUTCOMES];

static const struct tc_consumerd_kernel_statedump_layout layout = {.id_offset = 8,
								  .buf_offset = 12};

static void
check_strings(unsigned int kind, const uint8_t *payload, uint32_t len)
{
	const struct tc_kernel_statedump_event *event = tc_kernel_statedump_event(kind);
	size_t at = 0;

	for (unsigned int i = 0; i < event->n_fields; i++) {
		const uint8_t *nul;

		if (event->fields[i].type != TC_KERNEL_STATEDUMP_STRING) {
			at += event->fields[i].size;
			continue;
		}
		nul = memchr(payload + at, '\0', len - at);
		if (!nul)
			FAIL("field %s of %s does not end inside its payload", event->fields[i].name,
			     event->name);
		at = (size_t)(nul - payload) + 1;
	}
	if (at != len)
		FAIL("%s: fields of %zu bytes in a payload of %" PRIu32, event->name, at, len);
}

static void
fuzz_record(const uint8_t *data, size_t size)
{
	const uint8_t *payload;
	uint32_t event_id, len;
	size_t used;

	if (!tc_consumerd_kernel_statedump_decode(&layout, data, (uint32_t)size, &event_id,
						  &payload, &len)) {
		outcomes[RECORD_REFUSED]++;
		return;
	}
	if (event_id < CONSUMERD_KERNEL_STATEDUMP_ID_BASE ||
	    event_id - CONSUMERD_KERNEL_STATEDUMP_ID_BASE >= TC_KERNEL_STATEDUMP_KINDS)
		FAIL("event id %" PRIu32 " taken", event_id);
	if (payload != data + 12 || len > size - 12 || size - 12 - len > 3)
		FAIL("a payload of %" PRIu32 " bytes in a record of %zu", len, size);
	check_strings(event_id - CONSUMERD_KERNEL_STATEDUMP_ID_BASE, payload, len);
	if (!tc_kernel_statedump_payload_parse(event_id - CONSUMERD_KERNEL_STATEDUMP_ID_BASE,
					       payload, len, &used) ||
	    used != len)
		FAIL("a payload taken parses differently the second time");
	outcomes[RECORD_TAKEN]++;
}

/* text: a NUL-terminated copy of the input. */
static void
fuzz_stat(char *text)
{
	struct task_stat stat;

	if (!parse_stat(text, &stat)) {
		outcomes[STAT_REFUSED]++;
		return;
	}
	if (stat.comm[sizeof(stat.comm) - 1] != '\0')
		FAIL("a name of more than 15 bytes taken");
	outcomes[STAT_TAKEN]++;
}

static void
fuzz_status(const char *text)
{
	uint64_t last = 0;
	uint32_t count = 0, uid = 0;
	bool taken = status_values(text, "NSpid:", &last, &count);

	if (taken && (count == 0 || last > UINT32_MAX))
		FAIL("NSpid of %" PRIu32 " values, the last %" PRIu64 " taken", count, last);
	taken = status_first(text, "\nUid:", &uid) || taken;
	outcomes[taken ? STATUS_TAKEN : STATUS_REFUSED]++;
}

static void
fuzz_map(const char *text)
{
	uint64_t start, end, offset, inode;
	uint32_t flags;

	if (!parse_map(text, &start, &end, &flags, &offset, &inode)) {
		outcomes[MAP_REFUSED]++;
		return;
	}
	if (flags & ~(uint32_t)(VM_READ | VM_WRITE | VM_EXEC | VM_SHARED))
		FAIL("flags 0x%" PRIx32 " taken", flags);
	outcomes[MAP_TAKEN]++;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *exact;
	char *text;

	if (size < 1)
		return 0;
	/* Exactly the bytes, so that a read past them is the sanitizer's. */
	exact = malloc(size - 1 ? size - 1 : 1);
	text = malloc(size);
	if (!exact || !text)
		FAIL("out of memory");
	memcpy(exact, data + 1, size - 1);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	switch (data[0] % 4) {
	case 0:
		fuzz_record(exact, size - 1);
		break;
	case 1:
		fuzz_stat(text);
		break;
	case 2:
		fuzz_status(text);
		break;
	default:
		fuzz_map(text);
	}
	free(exact);
	free(text);
	return 0;
}

#ifndef FUZZ_LIBFUZZER
#define SEEDS_MAX (TC_KERNEL_STATEDUMP_KINDS + 6)
static uint8_t seed_bytes[SEEDS_MAX][1 + 12 + TC_KERNEL_STATEDUMP_PAYLOAD_MAX + 4];
static struct fuzz_seed seeds[SEEDS_MAX];
static size_t nr_seeds;

static void
add_seed(uint8_t parser, const void *bytes, size_t len)
{
	if (nr_seeds >= SEEDS_MAX || len + 1 > sizeof(seed_bytes[0]))
		abort();
	seed_bytes[nr_seeds][0] = parser;
	memcpy(seed_bytes[nr_seeds] + 1, bytes, len);
	seeds[nr_seeds] = (struct fuzz_seed){seed_bytes[nr_seeds], len + 1};
	nr_seeds++;
}

/* A record of kind as the kernel lays it out, every field filled: 7 for
 * integers, "/a path" for strings. */
static void
add_record(unsigned int kind)
{
	const struct tc_kernel_statedump_event *event = tc_kernel_statedump_event(kind);
	struct tc_kernel_statedump_record record;
	uint8_t raw[12 + TC_KERNEL_STATEDUMP_PAYLOAD_MAX + 3] = {19, 0, 0, 0, 42, 0, 0, 0};
	size_t len;

	tc_kernel_statedump_record_begin(&record, kind);
	for (unsigned int i = 0; i < event->n_fields; i++) {
		const struct tc_kernel_statedump_field *field = &event->fields[i];

		if (field->type == TC_KERNEL_STATEDUMP_STRING)
			tc_kernel_statedump_record_string(&record, "/a path (deleted)", 64);
		else if (field->type == TC_KERNEL_STATEDUMP_TEXT)
			tc_kernel_statedump_record_text(&record, "name", field->size);
		else
			tc_kernel_statedump_record_int(&record, 7, field->size,
						       field->type == TC_KERNEL_STATEDUMP_INT_BE);
	}
	memcpy(raw + 8, &record.id, 4);
	memcpy(raw + 12, record.payload, record.len);
	len = 12 + record.len;
	len += (4 - len % 4) % 4; /* the kernel's padding */
	add_seed(0, raw, len);
}

__attribute__((constructor)) static void
make_seeds(void)
{
	static const char stat[] =
	    "4242 (a) b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 1234 "
	    "1000000 100 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
	static const char status[] = "Name:\tx\nUid:\t1000\t1000\t1000\t1000\n"
				     "Gid:\t100\t100\t100\t100\nNStgid:\t4242\t1\nNSpid:\t4243\t2\n";
	static const char map[] = "7f0000000000-7f0000001000 r-xs 00001000 08:01 123456    "
				  "/usr/lib/x86_64-linux-gnu/libc.so.6\n";
	static const char anonymous[] = "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]";

	for (unsigned int kind = 0; kind < TC_KERNEL_STATEDUMP_KINDS; kind++)
		add_record(kind);
	add_seed(1, stat, sizeof(stat) - 1);
	add_seed(1, "1 (kworker/0:0H-events_highpri) I 2 0 0 0 -1 69238880 0 0 0 0 0 0 0 0 0 -20 1 0 "
		    "30 0 0 18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 0 17 3 0 0",
		 121);
	add_seed(2, status, sizeof(status) - 1);
	add_seed(3, map, sizeof(map) - 1);
	add_seed(3, anonymous, sizeof(anonymous) - 1);
	add_seed(0, "\x13\0\0\0\x2a\0\0\0\x78\x56\x34\x12zz", 14);
	if (nr_seeds != SEEDS_MAX)
		abort();
}

const struct fuzz_harness fuzz_harness = {
    .seeds = seeds,
    .nr_seeds = SEEDS_MAX,
    .input_max = 4096,
    .outcome_names = outcome_names,
    .outcomes = outcomes,
    .nr_outcomes = OUTCOMES,
};
#endif
