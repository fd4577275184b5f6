/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Per-event context fields (tracectl add-context): the values come from
 * caches, so the tracepoint makes no system call for them, but the first
 * event of each thread (and of a forked child) fills its thread's cache.
 *
 * The ids and namespaces are read again by each thread at its first event
 * after a generation is bumped: in a fork child, and when the application
 * says its ids or namespaces changed (tracectl_ust_ids_changed(), which
 * libtracectl-ust-setid's wrappers of the set*id(), setns() and unshare()
 * functions call).
 */
#ifndef TC_UST_CONTEXT_H
#define TC_UST_CONTEXT_H

#include <stdint.h>

#include "tracectl-abi.h"

/* The largest context: every field (tracectl_context_size() of them all). */
#define TC_UST_CONTEXT_MAX 128u
_Static_assert(4 + 4 + TRACECTL_CONTEXT_PROCNAME_LEN + 8 + 6 * 4 + 8 * 8 + 8 <= TC_UST_CONTEXT_MAX,
	       "every context field fits");

/* Writes the fields of contexts (TRACECTL_CONTEXT_* bits) into out, in the
 * order of the bits; ip is the tracepoint's call site, for
 * TRACECTL_CONTEXT_IP. Returns the bytes written, tracectl_context_size(). */
uint32_t tc_ust_context_fill(uint32_t contexts, uint64_t ip, uint8_t out[TC_UST_CONTEXT_MAX]);

/* The fork child's caches belong to its parent: forget them. */
void tc_ust_context_forget(void);

#endif /* TC_UST_CONTEXT_H */
