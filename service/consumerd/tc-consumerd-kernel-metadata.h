/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CTF metadata of a kernel trace, from the tracefs formats libtraceevent parsed. */
#ifndef TC_CONSUMERD_KERNEL_METADATA_H
#define TC_CONSUMERD_KERNEL_METADATA_H

#include <stddef.h>
#include <stdint.h>

#include "tc-consumer-abi.h"

/* The TSDL of the formats in tep, with the stream's event context of the contexts
 * (TC_CONSUMER_KCTX_*). */
struct tep_handle;
struct tep_event;
char *tc_consumerd_kernel_metadata(struct tep_handle *tep, const uint8_t uuid[16],
				   const struct tc_consumer_clock *clock, uint32_t contexts,
				   size_t *len);
/* The TSDL of a NULL-terminated list of events, to append. */
char *tc_consumerd_kernel_metadata_events(struct tep_event **events, size_t *len);
/* Whether a field is written as a string (char arrays, __data_loc char[]). */
struct tep_format_field;
int tc_consumerd_kernel_metadata_field_is_string(const struct tep_format_field *field);

#endif /* TC_CONSUMERD_KERNEL_METADATA_H */
