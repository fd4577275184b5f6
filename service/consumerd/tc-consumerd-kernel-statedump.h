/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel helper's state dump records (tc-kernel-statedump.h), found
 * among the kernel's ftrace:raw_data records and written as
 * lttng-modules' lttng_statedump_* events: their event classes in the
 * metadata, and each record checked. Pure functions, called from the
 * session thread; fuzzed by tests/fuzz/fuzz-kernel-statedump.c.
 */
#ifndef TC_CONSUMERD_KERNEL_STATEDUMP_H
#define TC_CONSUMERD_KERNEL_STATEDUMP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* The state dump's event ids in the kernel trace: past tracefs' (16-bit). */
#define CONSUMERD_KERNEL_STATEDUMP_ID_BASE 0x10000u

/* Where ftrace:raw_data's fields are, from its format. */
struct tc_consumerd_kernel_statedump_layout {
	uint32_t id_offset;  /* its "id", 4 bytes */
	uint32_t buf_offset; /* its "buf", the rest of the record */
};

/* The TSDL of every state dump event class, for stream 0. */
void tc_consumerd_kernel_statedump_metadata(FILE *out);

/* Whether the raw_data record of size bytes at data is a state dump
 * record: its marker id, a known kind, a payload of exactly that kind's
 * fields (the kernel's padding to 4 bytes aside). Then *event_id is its
 * CTF event id and *payload, *len its fields as the metadata declares
 * them. Anything else (another writer's raw data, a malformed record)
 * is false. */
bool tc_consumerd_kernel_statedump_decode(const struct tc_consumerd_kernel_statedump_layout *layout,
					  const uint8_t *data, uint32_t size, uint32_t *event_id,
					  const uint8_t **payload, uint32_t *len);

#endif /* TC_CONSUMERD_KERNEL_STATEDUMP_H */
