/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Application contexts (tracectl/app-context.h): the table of the
 * contexts this process registered, each channel's slots naming the
 * contexts it records, and the tracepoint's filling of those slots.
 *
 * A context lives as long as the process, so that its index keeps
 * matching what the service was told; a channel's slot points at it once
 * it is registered (then or later), with a release store that a
 * tracepoint reads with an acquire load. The callback and its argument
 * are one object, replaced or cleared with one store; an unregistered
 * one is freed after a grace period, so that a tracepoint never calls a
 * callback whose argument its application has freed.
 *
 * Everything but tc_ust_app_context_fill() requires tc_ust_state.lock.
 */
#ifndef TC_UST_APP_CONTEXT_H
#define TC_UST_APP_CONTEXT_H

#include <stdint.h>

#include "tracectl-abi.h"
#include "tracectl/app-context.h"

struct tc_ust_channel;

/* A channel's slot: the name the service gave, and the context of that
 * name once one is registered (atomic, NULL until then). */
struct tc_ust_app_context_slot {
	char name[TRACECTL_ABI_APP_CONTEXT_NAME_MAX];
	struct tc_ust_app_context *context;
};

/* The most bytes tc_ust_app_context_fill() writes. */
#define TC_UST_APP_CONTEXT_BYTES_MAX                                                       \
	(TRACECTL_ABI_CHANNEL_APP_CONTEXTS_MAX * TRACECTL_APP_CONTEXT_SLOT_SIZE)

/* Adds provider:name, or gives an unregistered one of the same type its
 * new callback. 0, -EINVAL, -EEXIST, -ENOSPC, -ENOMEM as
 * tracectl_app_context_register(). */
int tc_ust_app_context_add(const char *provider, const char *name,
			   enum tracectl_app_context_type type, tracectl_app_context_cb get,
			   void *priv);
/* Clears provider:name's callback and returns the object to free after a
 * grace period (free()), or NULL with -ENOENT in *ret. */
void *tc_ust_app_context_remove(const char *provider, const char *name, int *ret);
/* The number of contexts registered, and the wire description of one of
 * them (index below that number). */
uint32_t tc_ust_app_context_count(void);
void tc_ust_app_context_describe(uint32_t index, struct tracectl_msg_app_context *msg);
/* CHANNEL_APP_CONTEXTS: the channel's slots, each pointed at the context
 * of its name if registered. -ENOENT: no such channel; -EBUSY: it has
 * buffers or slots already; -EINVAL: a bad count or name. */
int tc_ust_app_context_channel_set(const struct tracectl_msg_channel_app_contexts *msg);

/* The tracepoint: writes channel's slots into out (their callbacks
 * called), TRACECTL_APP_CONTEXT_SLOT_SIZE bytes each. Returns the bytes
 * written. No lock, no system call; in a read-side section. */
uint32_t tc_ust_app_context_fill(const struct tc_ust_channel *channel,
				 uint8_t out[TC_UST_APP_CONTEXT_BYTES_MAX]);

#endif /* TC_UST_APP_CONTEXT_H */
