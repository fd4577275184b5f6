/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Snapshots of a session, into a directory or to a relay; on the session's
 * thread. */
#ifndef TC_CONSUMERD_SNAPSHOT_H
#define TC_CONSUMERD_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "tc-consumer-abi.h"
#include "tc-consumerd-session.h"

/*
 * Writes the session's metadata and every complete packet its buffers
 * hold into dir (created 0700, must not exist or be empty), without
 * consuming anything: the newest packets of each stream, at most
 * max_stream_bytes of them (0: all). *packets receives the number written.
 * Returns 0 or -errno.
 */
int tc_consumerd_snapshot_session(struct tc_consumerd_session *session, const char *dir,
				  uint64_t max_stream_bytes, uint64_t *packets);

/*
 * The same snapshot sent to the LTTng relay daemon of out instead
 * (TC_CONSUMER_SNAPSHOT_RELAY): a relay session of its own, with the
 * metadata and the streams under trace_path, closed when all is sent.
 * Returns 0 or -errno with a message naming the relay in error. In
 * tc-consumerd-snapshot.c.
 */
int tc_consumerd_snapshot_relay(struct tc_consumerd_session *session,
				const struct tc_consumer_relay_output *out, const char *trace_path,
				uint64_t max_stream_bytes, uint64_t *packets, char *error,
				size_t error_size);

#endif /* TC_CONSUMERD_SNAPSHOT_H */
