/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Event filters in the application: the verifier and the interpreter of
 * the bytecode of common/abi/tc-filter-bytecode.h.
 *
 * tc_ust_filter_load() runs once, in the listener thread, when a program
 * arrives; it refuses anything that could read outside the event's pieces
 * or the program, overflow the stack or loop. tc_ust_filter_run() runs in
 * the tracepoint: no lock, no allocation, no system call (context values
 * come from the same per-thread caches as recorded contexts).
 */
#ifndef TC_UST_FILTER_H
#define TC_UST_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracectl/tracepoint.h"

struct tc_ust_filter;

/*
 * Verifies the program bytecode[0..size) against the fields of desc and
 * builds its runnable form. Returns 0 with *filter set (free it with
 * tc_ust_filter_free()), or -EINVAL for a program that breaks any rule,
 * -ENOMEM.
 */
int tc_ust_filter_load(const void *bytecode, size_t size, const struct tracectl_ust_field *fields,
		       uint32_t nr_fields, struct tc_ust_filter **filter);

void tc_ust_filter_free(struct tc_ust_filter *filter);

/* Whether the record made of pieces passes the filter. pieces must be
 * those of the event the filter was loaded for; ip is the tracepoint's
 * call site, what $ctx.ip reads. */
bool tc_ust_filter_run(const struct tc_ust_filter *filter, const struct tracectl_ust_piece *pieces,
		       unsigned int nr_pieces, uint64_t ip);

#endif /* TC_UST_FILTER_H */
