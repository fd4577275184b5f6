/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-channel.h"

/*
 * What a channel's configuration may hold, whoever gives it: EnableChannel
 * and AddContext on the bus, or a session file loaded at start. Both front
 * ends check through these, so a file can set up nothing a call could not.
 */

/* Context names of the API, per domain, in the order of their fields;
 * each table ends with a NULL name. */
typedef struct {
	const char *name;
	guint32 bit;
} TcContextName;

extern const TcContextName tc_channel_config_ust_contexts[];
extern const TcContextName tc_channel_config_kernel_contexts[];

/* The TRACECTL_CONTEXT_* bits of user-space context names (AddContext's);
 * InvalidArgument names an unknown one, or says none was given. */
gboolean tc_channel_config_ust_context_bits(const char *const *names, guint32 *contexts,
					    GError **error);
/* The same for kernel context names (AddContext's in domain "kernel"). */
gboolean tc_channel_config_kernel_context_bits(const char *const *names, guint32 *contexts,
					       GError **error);
/* The checks of EnableChannel's geometry and timers (subbuf_size apart:
 * it may not fit the configuration's 32 bits). */
gboolean tc_channel_config_check(guint64 subbuf_size, const TcChannelConfig *config,
				 GError **error);
/* The settings of a channel created without options in session. */
void tc_channel_config_init_default(TcChannelConfig *config, gboolean snapshot);
