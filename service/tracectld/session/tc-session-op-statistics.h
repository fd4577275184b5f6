/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-consumer.h"
#include "tc-registry.h"

/*
 * ChannelStatistics: each channel's figures asked of the owner's consumer
 * under the session's op_lock, which also refreshes the relay problem of
 * a streaming session (tc-session-op-relay.h).
 */

/* One channel's figures, summed over the session's traces. */
typedef struct {
	const char *domain; /* "ust" or "kernel" */
	char *channel;
	TcChannelStats stats;
} TcChannelStatistics;
/* The figures of each channel, the user-space ones in the order they were
 * enabled, then the kernel's: a GArray of TcChannelStatistics that frees
 * its names (ChannelStatistics in the D-Bus interface). */
GArray *tc_session_op_statistics(TcSession *session, GError **error);
