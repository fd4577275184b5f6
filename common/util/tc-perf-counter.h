/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

/*
 * Per-thread performance counters as `lttng add-context -t` names them
 * (perf:thread:NAME, perf:thread:raw:rN:NAME) and as LTTng records and
 * saves them: a perf_event_open() type and config, and the name of the
 * context field (the spelling with ':' and '-' turned into '_', as
 * lttng-tools 2.13's CLI makes it). Plain libc, no locks: the service
 * checks AddContext with it, the session files read and write it.
 */

/* The spellings' prefixes. */
#define TC_PERF_COUNTER_PREFIX "perf:thread:"
#define TC_PERF_COUNTER_RAW_PREFIX "perf:thread:raw:"
/* The longest spelling taken, and so the longest field name plus its
 * NUL (LTTng-UST takes 256 bytes). */
#define TC_PERF_COUNTER_NAME_MAX 128u
/* PERF_TYPE_RAW, <linux/perf_event.h>'s. */
#define TC_PERF_COUNTER_TYPE_RAW 4u

struct tc_perf_counter {
	uint32_t type;			     /* PERF_TYPE_HARDWARE, _SOFTWARE, _HW_CACHE or _RAW */
	uint64_t config;		     /* the counter's perf_event_attr.config */
	char name[TC_PERF_COUNTER_NAME_MAX]; /* the context field's, NUL-terminated */
};

/*
 * Parses spec, "perf:thread:NAME" with a NAME of `lttng add-context
 * --list` or "perf:thread:raw:rHEX:NAME", into *counter. Returns 0; -ENOENT
 * when spec is no perf:thread: counter of the list (nor raw); -EINVAL when
 * it starts with perf:thread:raw: but is not rHEX:NAME (HEX 1 to 16 hex
 * digits, NAME 1 to 64 of [A-Za-z0-9_-]); -ENAMETOOLONG when spec is
 * longer than TC_PERF_COUNTER_NAME_MAX - 1.
 */
int tc_perf_counter_parse(const char *spec, struct tc_perf_counter *counter);

/*
 * The spelling of counter, as tc_perf_counter_parse() takes it, into buf
 * of size bytes: the first name of the list whose type, config and field
 * name are counter's, or the raw spelling its field name gives. Returns
 * 0; -ENOENT when no spelling gives that counter (a session file written
 * by hand, or another tool's name); -ENOSPC when buf is too small.
 */
int tc_perf_counter_spell(const struct tc_perf_counter *counter, char *buf, size_t size);

/* The i-th NAME of the list (without its prefix), in `lttng add-context
 * --list`'s order, or NULL past its end. */
const char *tc_perf_counter_known_name(unsigned int i);
