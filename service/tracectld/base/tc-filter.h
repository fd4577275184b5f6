/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Event filter expressions in LTTng's filter language (docs/filters.md):
 * parsed and checked when a user enables events, compiled into the
 * bytecode of tc-filter-bytecode.h for each event of each application,
 * against that event's fields.
 */
#ifndef TC_FILTER_H
#define TC_FILTER_H

#include <glib.h>

#include "tracectl-abi.h"

#define TC_FILTER_TEXT_MAX 1024u

typedef struct _TcFilterExpr TcFilterExpr;

/*
 * Parses text and checks what can be checked without an event: syntax,
 * context names, the types of literals and contexts. On failure, returns
 * NULL with TC_ERROR_INVALID_ARGUMENT and a message such as "filter:
 * unexpected ')' at column 12" (columns count bytes from 1).
 */
TcFilterExpr *tc_filter_parse(const char *text, GError **error);
void tc_filter_expr_free(TcFilterExpr *expr);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TcFilterExpr, tc_filter_expr_free)

/*
 * Compiles the OR of exprs[0..n) for an event with these fields. Returns
 * the bytecode, or NULL with an error naming the column when a filter
 * names a field the event lacks, uses one with the wrong type, or the
 * program would pass the bytecode's limits.
 */
GBytes *tc_filter_compile(TcFilterExpr *const *exprs, guint n,
			  const struct tracectl_abi_field *fields, guint nr_fields, GError **error);

/*
 * The expression as a tracefs event filter (the kernel's syntax), for
 * kernel events: comparisons of a payload field with an integer or a
 * string (a glob becomes '~'), a field alone, "field & N", joined by
 * &&, || and !. Anything else (context fields, doubles, arithmetic, two
 * fields compared, strings the helper's alphabet refuses) fails with
 * TC_ERROR_NOT_SUPPORTED naming the part and its column, e.g.
 * "filter: '$ctx.procname' has no kernel equivalent at column 1".
 */
char *tc_filter_to_tracefs(const TcFilterExpr *expr, GError **error);

/* LTTng-UST's largest filter bytecode (LTTNG_UST_ABI_FILTER_BYTECODE_MAX_LEN). */
#define TC_FILTER_LTTNG_MAX_LEN 65536u

/*
 * The expression in LTTng-UST 2.13's filter bytecode, as lttng-tools
 * 2.13 would send it (tc-filter-lttng.c): the data[] of a struct
 * lttng_ust_abi_filter_bytecode, with its relocation table from
 * *reloc_offset, at most max_len bytes (TC_FILTER_LTTNG_MAX_LEN but in
 * tests). What LTTng-UST cannot evaluate (arithmetic, a floating-point
 * condition, two patterns compared, more than its stack holds) fails with
 * TC_ERROR_NOT_SUPPORTED naming the part and its column; a program
 * over max_len with TC_ERROR_INVALID_ARGUMENT.
 */
GBytes *tc_filter_lttng_compile(const TcFilterExpr *expr, guint max_len, guint32 *reloc_offset,
				GError **error);

#endif /* TC_FILTER_H */
