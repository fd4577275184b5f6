/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-ust-enum.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static_assert(TRACECTL_ENUM_ENTRIES_MAX == TRACECTL_ABI_ENUM_ENTRIES_MAX &&
		      TRACECTL_ENUM_LABEL_MAX + 1 == TRACECTL_ABI_ENUM_LABEL_MAX &&
		      TRACECTL_UST_ENUM_SIGNED == TRACECTL_ENUM_ENTRY_SIGNED,
	      "public and wire enumerations");

/* [A-Za-z0-9_.-]+, the rule of each half of an event's name. */
static bool
is_valid_name_part(const char *part)
{
	size_t length;

	if (!part || !*part)
		return false;
	length = strlen(part);
	return strspn(part, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") ==
	       length;
}

/*
 * The wire form of one entry. An automatic one takes the value after the
 * previous entry's end (0 first), which *next holds: negative values stay
 * signed, the others are unsigned; *has_next is false past UINT64_MAX.
 */
static bool
describe_entry(const struct tracectl_ust_enum_entry *entry, struct tracectl_abi_enum_entry *out,
	       uint64_t *next, bool *next_is_signed, bool *has_next)
{
	size_t length;

	if (!entry->label || (entry->flags & ~(TRACECTL_UST_ENUM_SIGNED | TRACECTL_UST_ENUM_AUTO)))
		return false;
	length = strnlen(entry->label, TRACECTL_ABI_ENUM_LABEL_MAX);
	if (length >= TRACECTL_ABI_ENUM_LABEL_MAX)
		return false;
	memcpy(out->label, entry->label, length);
	if (entry->flags & TRACECTL_UST_ENUM_AUTO) {
		if (!*has_next)
			return false;
		out->begin = out->end = *next;
		out->flags = *next_is_signed ? TRACECTL_ENUM_ENTRY_SIGNED : 0;
	} else {
		out->begin = entry->begin;
		out->end = entry->end;
		out->flags = entry->flags & TRACECTL_UST_ENUM_SIGNED;
	}
	if (!tracectl_abi_enum_entry_is_valid(out))
		return false;
	/* end + 1: a negative end's successor is at most 0, still an int64_t;
	 * a non-negative one's is at most 2^63 as uint64_t, or none. */
	*next_is_signed = (out->flags & TRACECTL_ENUM_ENTRY_SIGNED) &&
			  tracectl_abi_enum_signed(out->end) < 0;
	*has_next = *next_is_signed || out->end != UINT64_MAX;
	*next = out->end + 1;
	return true;
}

struct tc_ust_enum *
tc_ust_enum_new(const struct tracectl_ust_enum *desc)
{
	struct tc_ust_enum *enumeration;
	uint64_t next = 0;
	bool next_is_signed = false, has_next = true;
	char name[TRACECTL_ABI_EVENT_NAME_MAX];
	int length;

	if (!is_valid_name_part(desc->provider) || !is_valid_name_part(desc->name) ||
	    desc->nr_entries == 0 || desc->nr_entries > TRACECTL_ABI_ENUM_ENTRIES_MAX ||
	    !desc->entries)
		return NULL;
	length = snprintf(name, sizeof(name), "%s:%s", desc->provider, desc->name);
	if (length < 0 || (size_t)length >= sizeof(name))
		return NULL;
	enumeration = calloc(1, sizeof(*enumeration));
	if (!enumeration)
		return NULL;
	enumeration->desc = desc;
	enumeration->nr_msgs = (desc->nr_entries + TRACECTL_ABI_ENUM_ENTRIES_PER_MSG - 1) /
			       TRACECTL_ABI_ENUM_ENTRIES_PER_MSG;
	enumeration->msgs = calloc(enumeration->nr_msgs, sizeof(enumeration->msgs[0]));
	if (!enumeration->msgs)
		goto fail;
	for (uint32_t m = 0; m < enumeration->nr_msgs; m++) {
		struct tracectl_msg_enum *msg = &enumeration->msgs[m];
		uint32_t first = m * TRACECTL_ABI_ENUM_ENTRIES_PER_MSG;

		msg->header.magic = TRACECTL_ABI_MAGIC;
		msg->header.type = TRACECTL_MSG_ENUM;
		msg->header.size = sizeof(*msg);
		msg->nr_entries = desc->nr_entries;
		msg->first = first;
		msg->count = desc->nr_entries - first < TRACECTL_ABI_ENUM_ENTRIES_PER_MSG
				     ? desc->nr_entries - first
				     : TRACECTL_ABI_ENUM_ENTRIES_PER_MSG;
		memcpy(msg->name, name, sizeof(name));
		for (uint32_t i = 0; i < msg->count; i++) {
			if (!describe_entry(&desc->entries[first + i], &msg->entries[i], &next,
					    &next_is_signed, &has_next))
				goto fail;
		}
	}
	return enumeration;
fail:
	tc_ust_enum_free(enumeration);
	return NULL;
}

void
tc_ust_enum_set_index(struct tc_ust_enum *enumeration, uint32_t index)
{
	enumeration->index = index;
	for (uint32_t m = 0; m < enumeration->nr_msgs; m++)
		enumeration->msgs[m].index = index;
}

void
tc_ust_enum_free(struct tc_ust_enum *enumeration)
{
	if (!enumeration)
		return;
	free(enumeration->msgs);
	free(enumeration);
}

bool
tc_ust_enum_fits(const struct tc_ust_enum *enumeration, uint32_t container)
{
	if (!tracectl_abi_enum_container_is_valid(container))
		return false;
	for (uint32_t m = 0; m < enumeration->nr_msgs; m++) {
		const struct tracectl_msg_enum *msg = &enumeration->msgs[m];

		for (uint32_t i = 0; i < msg->count; i++) {
			if (!tracectl_abi_enum_entry_fits(&msg->entries[i], container))
				return false;
		}
	}
	return true;
}
