/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lttng-modules' state dump events (instrumentation/events/lttng-statedump.h
 * of lttng-modules 2.13): their names and fields, as one table that the
 * kernel helper encodes records by, the consumer checks them against and
 * declares in the kernel trace's metadata. Plain C, pure functions.
 *
 * The helper writes each record into the session's tracefs instance
 * through trace_marker_raw, so that the kernel timestamps it on the
 * instance's clock, between the session's other kernel events: tracefs
 * records it as an ftrace:raw_data event whose id is
 * TC_KERNEL_STATEDUMP_MARKER | kind and whose buffer is the payload, the
 * event's fields in the table's order, packed, each as the CTF metadata
 * declares it (integers little-endian but for the network ones, text
 * arrays of their full size, strings NUL-terminated). So the consumer
 * copies a checked payload as it is.
 */
#ifndef TC_KERNEL_STATEDUMP_H
#define TC_KERNEL_STATEDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "TCS" and the kind in the low byte. */
#define TC_KERNEL_STATEDUMP_MARKER 0x54435300u
#define TC_KERNEL_STATEDUMP_MARKER_MASK 0xffffff00u
/* The largest payload: trace_marker_raw takes 3 KiB with its id on the
 * kernels tracectl supports. Longer strings are cut to fit. */
#define TC_KERNEL_STATEDUMP_PAYLOAD_MAX (3072u - 4u)

enum tc_kernel_statedump_kind {
	TC_KERNEL_STATEDUMP_START,
	TC_KERNEL_STATEDUMP_END,
	TC_KERNEL_STATEDUMP_PROCESS_STATE,
	TC_KERNEL_STATEDUMP_PROCESS_CGROUP_NS,
	TC_KERNEL_STATEDUMP_PROCESS_IPC_NS,
	TC_KERNEL_STATEDUMP_PROCESS_MNT_NS,
	TC_KERNEL_STATEDUMP_PROCESS_NET_NS,
	TC_KERNEL_STATEDUMP_PROCESS_PID_NS,
	TC_KERNEL_STATEDUMP_PROCESS_USER_NS,
	TC_KERNEL_STATEDUMP_PROCESS_UTS_NS,
	TC_KERNEL_STATEDUMP_PROCESS_TIME_NS,
	TC_KERNEL_STATEDUMP_FILE_DESCRIPTOR,
	TC_KERNEL_STATEDUMP_VM_MAP,
	TC_KERNEL_STATEDUMP_NETWORK_INTERFACE,
	TC_KERNEL_STATEDUMP_BLOCK_DEVICE,
	TC_KERNEL_STATEDUMP_INTERRUPT,
	TC_KERNEL_STATEDUMP_CPU_TOPOLOGY,
	TC_KERNEL_STATEDUMP_KINDS,
};

enum tc_kernel_statedump_type {
	TC_KERNEL_STATEDUMP_INT,    /* size bytes, little-endian */
	TC_KERNEL_STATEDUMP_INT_BE, /* size bytes, network order */
	TC_KERNEL_STATEDUMP_TEXT,   /* char[size], NUL-padded */
	TC_KERNEL_STATEDUMP_STRING, /* NUL-terminated */
};

struct tc_kernel_statedump_field {
	const char *name;
	uint8_t type; /* enum tc_kernel_statedump_type */
	uint8_t size; /* bytes, of integers and text arrays */
	uint8_t base; /* of integers: 8, 10 or 16 */
	bool is_signed;
};

struct tc_kernel_statedump_event {
	const char *name; /* "lttng_statedump_process_state" */
	const struct tc_kernel_statedump_field *fields;
	unsigned int n_fields;
};

/* The event of a kind; NULL past TC_KERNEL_STATEDUMP_KINDS. */
const struct tc_kernel_statedump_event *tc_kernel_statedump_event(unsigned int kind);

/* Whether payload, len bytes another process wrote, starts with exactly
 * one record of kind, whose size goes to *used: every integer and text
 * array whole, every string NUL-terminated inside it. What follows is the
 * caller's to judge (the kernel pads a record to 4 bytes). */
bool tc_kernel_statedump_payload_parse(unsigned int kind, const uint8_t *payload, size_t len,
				       size_t *used);

/* A record being encoded: the fields in the table's order. */
struct tc_kernel_statedump_record {
	uint32_t id; /* TC_KERNEL_STATEDUMP_MARKER | kind, written first */
	uint8_t payload[TC_KERNEL_STATEDUMP_PAYLOAD_MAX];
	size_t len;
};

void tc_kernel_statedump_record_begin(struct tc_kernel_statedump_record *record,
				      unsigned int kind);
/* An integer of size bytes (1, 2, 4 or 8), little-endian or network
 * order; false when it does not fit. */
bool tc_kernel_statedump_record_int(struct tc_kernel_statedump_record *record, uint64_t value,
				    unsigned int size, bool big_endian);
/* A text array of size bytes: text cut or NUL-padded. */
bool tc_kernel_statedump_record_text(struct tc_kernel_statedump_record *record, const char *text,
				     unsigned int size);
/* A string, cut to what room is left once reserve bytes are kept for the
 * fields after it; always NUL-terminated. */
bool tc_kernel_statedump_record_string(struct tc_kernel_statedump_record *record,
				       const char *text, size_t reserve);

#endif /* TC_KERNEL_STATEDUMP_H */
