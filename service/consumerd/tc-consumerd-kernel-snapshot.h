/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Snapshots of a snapshot session's kernel trace (its flight recorder,
 * tc-consumerd-kernel.h), into a directory or to a relay, beside the
 * user-space trace's snapshot (tc-consumerd-snapshot.h): a CTF trace of
 * its own, its metadata and one stream "kernel_<cpu>" per CPU. On the
 * session's thread.
 */
#ifndef TC_CONSUMERD_KERNEL_SNAPSHOT_H
#define TC_CONSUMERD_KERNEL_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "tc-consumer-abi.h"
#include "tc-consumerd-session.h"

/* Into dir (absolute, created 0700): the newest packets of each CPU, at
 * most max_stream_bytes of them (0: all), kept for the next snapshot.
 * *packets receives how many were written. Returns 0, -ENOENT when the
 * session has no kernel trace, or -errno. */
int tc_consumerd_kernel_snapshot_dir(struct tc_consumerd_session *session, const char *dir,
				     uint64_t max_stream_bytes, uint64_t *packets);

/* The same, sent to the relay of out under trace_path (relative), in a
 * relay session of its own that ends once the relay has it all. Returns 0
 * or -errno with a message naming the relay in error. */
int tc_consumerd_kernel_snapshot_relay(struct tc_consumerd_session *session,
				       const struct tc_consumer_relay_output *out,
				       const char *trace_path, uint64_t max_stream_bytes,
				       uint64_t *packets, char *error, size_t error_size);

#endif /* TC_CONSUMERD_KERNEL_SNAPSHOT_H */
