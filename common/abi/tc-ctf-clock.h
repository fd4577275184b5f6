/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The CTF 1.8 clock declaration of a session's trace clock, shared by the
 * user-space metadata (tracectld) and the kernel metadata (the consumer):
 * babeltrace2 merges the two traces only if they declare the same clock.
 * Absolute (its offset is from the Epoch): babeltrace2 takes LTTng's
 * traces' clocks to be, and merges an absolute clock only with others
 * (a session's LTTng-UST traces beside these, in files or live).
 */
#ifndef TC_CTF_CLOCK_H
#define TC_CTF_CLOCK_H

#include <inttypes.h>
#include <stdio.h>

#include "tc-consumer-abi.h"

/* The clock block and the 64-bit integer mapped to it
 * (uint64_clock_monotonic_t). Returns what snprintf() returns. */
static inline int
tc_ctf_clock_format(char *buf, size_t size, const struct tc_consumer_clock *clock)
{
	return snprintf(buf, size,
			"clock {\n\tname = \"monotonic\";\n\tdescription = \"%s\";\n"
			"\tfreq = %" PRIu64 ";\n\tprecision = 1;\n\toffset_s = %" PRId64 ";\n"
			"\toffset = %" PRIu64 ";\n\tabsolute = true;\n};\n\n"
			"typealias integer { size = 64; align = 8; signed = false; "
			"map = clock.monotonic.value; } := uint64_clock_monotonic_t;\n",
			clock->tsc ? "x86 TSC" : "CLOCK_MONOTONIC", clock->freq, clock->offset_s,
			clock->offset_ticks);
}

/* The text is 316 bytes at most (a 15-character description, three
 * numbers of 20 characters): a buffer of this size never truncates it. */
#define TC_CTF_CLOCK_MAX 512

#endif /* TC_CTF_CLOCK_H */
