/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-ust-app-context.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tc-ust-state.h"

/* The callback and its argument, replaced as one. */
struct tc_ust_app_context_getter {
	tracectl_app_context_cb get;
	void *priv;
};

struct tc_ust_app_context {
	char name[TRACECTL_ABI_APP_CONTEXT_NAME_MAX]; /* "provider:name" */
	enum tracectl_app_context_type type;	      /* declared */
	struct tc_ust_app_context_getter *getter;     /* atomic; NULL: unregistered */
};

_Static_assert(TRACECTL_APP_CONTEXTS_MAX == TRACECTL_ABI_APP_CONTEXTS_MAX &&
		   TRACECTL_APP_CONTEXT_NAME_MAX == TRACECTL_ABI_APP_CONTEXT_NAME_MAX,
	       "public and wire application context limits");
_Static_assert(TRACECTL_APP_CONTEXT_SLOT_SIZE == 1 + sizeof(int64_t) &&
		   (int)TRACECTL_APP_CONTEXT_INT64 == (int)TRACECTL_ABI_APP_CONTEXT_INT64 &&
		   (int)TRACECTL_APP_CONTEXT_UINT64 == (int)TRACECTL_ABI_APP_CONTEXT_UINT64 &&
		   (int)TRACECTL_APP_CONTEXT_DOUBLE == (int)TRACECTL_ABI_APP_CONTEXT_TAG_MAX,
	       "public and wire application context types");

/* [L] tc_ust_state.lock; entries never move nor go. */
static struct tc_ust_app_context *contexts[TRACECTL_ABI_APP_CONTEXTS_MAX];
static uint32_t nr_contexts;

static struct tc_ust_app_context *
find(const char *name)
{
	for (uint32_t i = 0; i < nr_contexts; i++)
		if (strcmp(contexts[i]->name, name) == 0)
			return contexts[i];
	return NULL;
}

/* Points every channel's slots of context's name at it. */
static void
resolve_slots(struct tc_ust_app_context *context)
{
	for (struct tc_ust_channel *c = tc_ust_state.channels; c; c = c->next)
		for (uint32_t i = 0; i < c->nr_app_contexts; i++)
			if (strcmp(c->app_contexts[i].name, context->name) == 0)
				__atomic_store_n(&c->app_contexts[i].context, context,
						 __ATOMIC_RELEASE);
}

int
tc_ust_app_context_add(const char *provider, const char *name,
		       enum tracectl_app_context_type type, tracectl_app_context_cb get, void *priv)
{
	char full[TRACECTL_ABI_APP_CONTEXT_NAME_MAX];
	struct tc_ust_app_context *context;
	struct tc_ust_app_context_getter *getter;
	size_t provider_len, name_len;

	if (!provider || !name || !get || type <= TRACECTL_APP_CONTEXT_NONE ||
	    type > TRACECTL_APP_CONTEXT_DOUBLE)
		return -EINVAL;
	provider_len = strlen(provider);
	name_len = strlen(name);
	if (provider_len + 1 + name_len >= sizeof(full))
		return -EINVAL;
	memcpy(full, provider, provider_len);
	full[provider_len] = ':';
	memcpy(full + provider_len + 1, name, name_len + 1);
	if (!tracectl_abi_app_context_name_is_valid(full, sizeof(full)) ||
	    strchr(name, ':') != NULL)
		return -EINVAL;
	context = find(full);
	if (context && (context->getter || context->type != type))
		return -EEXIST;
	if (!context && nr_contexts == TRACECTL_ABI_APP_CONTEXTS_MAX)
		return -ENOSPC;
	getter = malloc(sizeof(*getter));
	if (!getter)
		return -ENOMEM;
	getter->get = get;
	getter->priv = priv;
	if (!context) {
		context = calloc(1, sizeof(*context));
		if (!context) {
			free(getter);
			return -ENOMEM;
		}
		memcpy(context->name, full, sizeof(full));
		context->type = type;
		contexts[nr_contexts++] = context;
	}
	__atomic_store_n(&context->getter, getter, __ATOMIC_RELEASE);
	resolve_slots(context);
	return 0;
}

void *
tc_ust_app_context_remove(const char *provider, const char *name, int *ret)
{
	char full[TRACECTL_ABI_APP_CONTEXT_NAME_MAX];
	struct tc_ust_app_context *context;
	int len;

	*ret = -ENOENT;
	if (!provider || !name)
		return NULL;
	len = snprintf(full, sizeof(full), "%s:%s", provider, name);
	if (len < 0 || (size_t)len >= sizeof(full) || !(context = find(full)) || !context->getter)
		return NULL;
	*ret = 0;
	return __atomic_exchange_n(&context->getter, NULL, __ATOMIC_ACQ_REL);
}

uint32_t
tc_ust_app_context_count(void)
{
	return nr_contexts;
}

void
tc_ust_app_context_describe(uint32_t index, struct tracectl_msg_app_context *msg)
{
	memset(msg, 0, sizeof(*msg));
	msg->header.magic = TRACECTL_ABI_MAGIC;
	msg->header.type = TRACECTL_MSG_APP_CONTEXT;
	msg->header.size = sizeof(*msg);
	msg->index = index;
	msg->type = (uint32_t)contexts[index]->type;
	memcpy(msg->name, contexts[index]->name, sizeof(msg->name));
}

int
tc_ust_app_context_channel_set(const struct tracectl_msg_channel_app_contexts *msg)
{
	struct tc_ust_channel *channel = tc_ust_state_find_channel(msg->channel_handle);
	struct tc_ust_app_context_slot *slots;

	if (!channel)
		return -ENOENT;
	if (channel->nr_app_contexts > 0 || channel->notifier)
		return -EBUSY;
	for (uint32_t cpu = 0; cpu < channel->nr_streams; cpu++)
		if (channel->streams[cpu])
			return -EBUSY;
	if (msg->count == 0 || msg->count > TRACECTL_ABI_CHANNEL_APP_CONTEXTS_MAX)
		return -EINVAL;
	for (uint32_t i = 0; i < msg->count; i++)
		if (!tracectl_abi_app_context_name_is_valid(msg->names[i], sizeof(msg->names[i])))
			return -EINVAL;
	slots = calloc(msg->count, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (uint32_t i = 0; i < msg->count; i++) {
		memcpy(slots[i].name, msg->names[i], sizeof(slots[i].name));
		slots[i].context = find(slots[i].name);
	}
	/* No tracepoint reaches the channel before its first stream, whose
	 * publication (a release store) comes after this. */
	channel->app_contexts = slots;
	channel->nr_app_contexts = msg->count;
	return 0;
}

/* One slot: the tag, then 8 bytes of value (zero for none). */
static void
fill_slot(const struct tc_ust_app_context_slot *slot, uint8_t *out)
{
	const struct tc_ust_app_context *context =
		__atomic_load_n(&slot->context, __ATOMIC_ACQUIRE);
	const struct tc_ust_app_context_getter *getter =
		context ? __atomic_load_n(&context->getter, __ATOMIC_ACQUIRE) : NULL;
	struct tracectl_app_context_value value = {.type = TRACECTL_APP_CONTEXT_NONE};

	if (getter) {
		value.type = context->type;
		getter->get(getter->priv, &value);
		/* Whatever the callback left there, only a known type is
		 * recorded, and none records no bytes of it. */
		if ((unsigned int)value.type > TRACECTL_APP_CONTEXT_DOUBLE ||
		    value.type == TRACECTL_APP_CONTEXT_NONE) {
			value.type = TRACECTL_APP_CONTEXT_NONE;
			value.u.u64 = 0;
		}
	}
	out[0] = (uint8_t)value.type;
	memcpy(out + 1, &value.u, 8);
}

uint32_t
tc_ust_app_context_fill(const struct tc_ust_channel *channel,
			uint8_t out[TC_UST_APP_CONTEXT_BYTES_MAX])
{
	for (uint32_t i = 0; i < channel->nr_app_contexts; i++)
		fill_slot(&channel->app_contexts[i], out + i * TRACECTL_APP_CONTEXT_SLOT_SIZE);
	return channel->nr_app_contexts * TRACECTL_APP_CONTEXT_SLOT_SIZE;
}
