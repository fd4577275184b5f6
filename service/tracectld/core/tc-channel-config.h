/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-channel.h"

struct tc_perf_counter;

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

/* The prefix of application contexts' names: "$app.provider:name". */
#define TC_CHANNEL_CONFIG_APP_PREFIX "$app."

/* User-space context names (AddContext's, a session file's): the
 * TRACECTL_CONTEXT_* bits in *contexts, the
 * perf:thread: counters (tc-perf-counter.h) in perf_counters (of struct
 * tc_perf_counter, emptied first) in the order given, each once, at
 * most TC_CHANNEL_PERF_COUNTERS_MAX, and the application contexts'
 * "provider:name" in app_contexts (char *, emptied first) likewise, at
 * most TRACECTL_ABI_CHANNEL_APP_CONTEXTS_MAX. InvalidArgument names an
 * unknown name, a malformed raw counter or application context, a
 * per-CPU one, or says none was given. */
gboolean tc_channel_config_ust_contexts_parse(const char *const *names, guint32 *contexts,
					      GArray *perf_counters, GPtrArray *app_contexts,
					      GError **error);
/* The CTF field name of application context "provider:name",
 * "_app_provider_name" (g_free()). */
char *tc_channel_config_app_context_field(const char *name);
/* Kernel context names (AddContext's in domain "kernel") as
 * TC_CONSUMER_KCTX_* bits; NotSupported for perf counters. */
gboolean tc_channel_config_kernel_context_bits(const char *const *names, guint32 *contexts,
					       GError **error);
/* Whether two perf counters are the same context field. */
gboolean tc_channel_config_perf_counter_equal(const struct tc_perf_counter *a,
					      const struct tc_perf_counter *b);
/* A channel's user-space contexts by name, bits in the table's order then
 * the perf counters in theirs, then the application contexts
 * ("$app.provider:name", NULL for none) (NULL-terminated, g_strfreev()); with
 * lttng_ust_only, only those tracectl's own applications do not record:
 * none since they record perf counters too. */
char **tc_channel_config_ust_context_names(guint32 contexts, const GArray *perf_counters,
					   const GPtrArray *app_contexts, gboolean lttng_ust_only);
/* Every user-space context name AddContext takes (ListContexts'), the
 * raw counters as perf:thread:raw:rHEX:NAME (g_strfreev()). */
char **tc_channel_config_ust_context_list(void);
/* The checks of EnableChannel's geometry and timers (subbuf_size apart:
 * it may not fit the configuration's 32 bits). */
gboolean tc_channel_config_check(guint64 subbuf_size, const TcChannelConfig *config,
				 GError **error);
/* What a kernel channel named name with config can be (EnableChannel's
 * in domain "kernel", a session file's kernel channel): the session's
 * one tracefs instance, read as it fills. NotSupported names what it
 * cannot honour: another name than TC_DEFAULT_CHANNEL (a second kernel
 * channel), overwrite mode, a switch timer; read and monitor timers are
 * refused by the bus, where they are given explicitly. */
gboolean tc_channel_config_kernel_check(const char *name, const TcChannelConfig *config,
					GError **error);
/* The settings of a channel created without options in session. */
void tc_channel_config_init_default(TcChannelConfig *config, gboolean snapshot);
