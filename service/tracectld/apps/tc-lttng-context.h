/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <lttng/ust-abi.h>
#include <lttng/ust-ctl.h>

/*
 * The contexts of tracectl's session model as LTTng-UST 2.13 knows them:
 * for each TRACECTL_CONTEXT_* bit, the LTTNG_UST_ABI_CONTEXT_* the
 * service adds to an application's channel, and the field the
 * application then describes in its channel registration, as
 * LTTng-UST 2.13 serializes it (its lttng-context-*.c types through
 * ustcomm.c's serialize_one_type(), on x86-64, where its ring buffer
 * packs records: every alignment is one byte). The service declares each
 * channel's stream class from these fields when it makes a trace, before
 * any buffer exists, so that every packet of the trace is described even
 * when no application ever registers the channel (one refused a context
 * and was left out). No I/O, no global state: any thread.
 */

/* The field's type, as LTTng-UST 2.13's contexts declare it
 * (lttng_ust_static_type_integer(); procname its one text array). */
typedef enum {
	TC_LTTNG_CONTEXT_PID,	   /* pid_t: 32 bits, signed, base 10 */
	TC_LTTNG_CONTEXT_ID,	   /* uid_t, gid_t: 32 bits, unsigned, base 10 */
	TC_LTTNG_CONTEXT_ULONG,	   /* unsigned long, ino_t: 64 bits, unsigned, base 10 */
	TC_LTTNG_CONTEXT_POINTER,  /* void *: 64 bits, unsigned, base 10 (16 from 2.13.6) */
	TC_LTTNG_CONTEXT_PROCNAME, /* char[17], UTF-8 text */
} TcLttngContextKind;

typedef struct {
	guint32 bit; /* TRACECTL_CONTEXT_* */
	enum lttng_ust_abi_context_type type;
	const char *name; /* the context's, and its field's */
	TcLttngContextKind kind;
} TcLttngContext;

/* The contexts in the order they are added to a channel: the order of
 * the TRACECTL_CONTEXT_* bits, ip last; *count gets their number. */
const TcLttngContext *tc_lttng_context_table(gsize *count);

/* The context fields an LTTng-UST 2.13 application describes for a
 * channel given contexts (TRACECTL_CONTEXT_* bits) and perf_counters
 * (struct tc_perf_counter), added in the table's order and then the
 * counters'; a new array of struct lttng_ust_ctl_field. */
GArray *tc_lttng_context_fields(guint32 contexts, const GArray *perf_counters);
