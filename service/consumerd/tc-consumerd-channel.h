/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Channels: one stream per CPU. Internal to tc-consumerd-session.c. */
#ifndef TC_CONSUMER_CHANNEL_H
#define TC_CONSUMER_CHANNEL_H

#include "tc-consumerd-session.h"

/*
 * Allocates a channel and opens its nr_cpus streams (see
 * tc_consumerd_stream_open()). All or nothing: on failure every stream opened
 * so far is closed and its file removed.
 * Returns 0 with *channel set (not yet linked into the session), -ENOMEM,
 * or the failing stream's error.
 */
int tc_consumerd_channel_new(const struct tc_consumerd_session *session,
			     const struct tc_consumerd_channel_spec *spec,
			     struct tc_consumerd_channel **channel);

/* Closes the channel's streams (keeping their files) and frees it. NULL-safe. */
void tc_consumerd_channel_free(struct tc_consumerd_channel *channel, int dir_fd);

#endif /* TC_CONSUMER_CHANNEL_H */
