/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Rotation and clear of a session, local or on a relay; on the session's
 * thread. */
#ifndef TC_CONSUMERD_ROTATE_H
#define TC_CONSUMERD_ROTATE_H

#include <stddef.h>
#include <stdint.h>

#include "tc-consumerd-session.h"

/*
 * Rotation (TC_CONSUMER_ROTATE): flushes the session, moves its trace
 * directories from under from_root to the same place under to_root and
 * goes on in new ones holding a copy of the metadata. *archived_bytes
 * receives the size of the chunk that was closed. Not for snapshot
 * sessions (-EINVAL). Returns 0 or -errno; after a failure past the
 * renames, nothing more is written into the archive, and the streams
 * whose new files could not be made write nothing (their packets wait in
 * the buffers).
 */
int tc_consumerd_rotate_session(struct tc_consumerd_session *session, const char *from_root,
				const char *to_root, uint64_t *archived_bytes);
/*
 * Rotation or clear of a session streamed to a relay
 * (TC_CONSUMER_RELAY_ROTATE): flushes the session when beginning a
 * chunk, then tc_consumerd_relay_chunk_rotate() with steps (CONSUMERD_RELAY_CHUNK_*)
 * and command (enum
 * tc_relay_chunk_close_command). path receives the closed chunk's path on
 * the relay, *archived_bytes the packet bytes it held. Returns 0 or
 * -errno.
 */
int tc_consumerd_rotate_relay(struct tc_consumerd_session *session, uint32_t command,
			      uint32_t steps, int64_t timestamp, char *path, size_t path_size,
			      uint64_t *archived_bytes);
/* Clear (TC_CONSUMER_CLEAR): drops what the session recorded so far.
 * Returns 0 or -errno. */
int tc_consumerd_rotate_clear(struct tc_consumerd_session *session);
/* Bytes of packets written into the current chunk, user space and kernel
 * (the metadata, copied into every chunk, is left out: it would make a
 * small size rotate chunks that hold no event). */
uint64_t tc_consumerd_rotate_chunk_bytes(const struct tc_consumerd_session *session);

#endif /* TC_CONSUMERD_ROTATE_H */
