/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the service asks of a new channel: the layout its streams are made
 * with. */
#ifndef TC_CONSUMERD_CHANNEL_SPEC_H
#define TC_CONSUMERD_CHANNEL_SPEC_H

#include <stdint.h>

#include "tc-consumer-abi.h"

/* Geometry and identity of a new channel, already checked for sanity by
 * the caller (sizes via tc_rb_shm_size(), nr_cpus range, name). */
struct tc_consumerd_channel_spec {
	uint64_t channel_id;
	uint32_t stream_id;
	uint32_t nr_cpus;
	struct tc_channel_geometry geometry;
	uint32_t flags; /* TC_CONSUMER_CHANNEL_* */
	uint8_t uuid[16];
	const char *name;
};

#endif /* TC_CONSUMERD_CHANNEL_SPEC_H */
