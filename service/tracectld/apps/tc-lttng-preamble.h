/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <lttng/ust-ctl.h>
#include <sys/types.h>

#include "tc-lttng-metadata.h"

/*
 * The parts of an LTTng-UST trace's CTF metadata that come from
 * no application description: the preamble (type aliases, the trace
 * with LTTng-UST 2.13's packet header, the environment, the clock, the
 * packet context and the two event headers) and each channel's stream
 * class. They declare the layout LTTng-UST's ring buffer client writes
 * (lttng-ring-buffer-client-template.h), as lttng-sessiond declares it,
 * so that the packets the consumer copies from LTTng-UST's buffers read
 * back as written. No I/O, no global state: any thread.
 */

typedef struct {
	guint8 uuid[16]; /* the trace's, as in every packet header */
	uid_t uid;	 /* tracer_buffering_id of a per-uid trace */
	/* A per-PID trace's application, as lttng-sessiond describes it
	 * (pid 0: a per-uid trace): its pid, name and registration time
	 * (ISO 8601, basic format). */
	pid_t pid;
	const char *procname;
	const char *registered;
	guint bits_per_long;
	/* Alignments in bits of the ring buffer client of the applications
	 * (1 byte, 8 bits, on x86: LTTng-UST packs its records there). */
	guint alignment_bits;
	gint64 clock_offset_ns; /* CLOCK_REALTIME minus CLOCK_MONOTONIC */
} TcLttngPreambleOptions;

/* Appends the preamble, to be sent before any stream or event. */
void tc_lttng_preamble_append(GString *out, const TcLttngPreambleOptions *options);
/* The offset of CLOCK_REALTIME from CLOCK_MONOTONIC now, in ns. */
gint64 tc_lttng_preamble_clock_offset(void);
/* Appends the stream class of channel chan_id, its event header
 * (LTTNG_UST_CTL_CHANNEL_HEADER_COMPACT or _LARGE) and its context
 * fields (as the application registered them, checked like an event's).
 * FALSE with error when the context cannot be described; out is then as
 * it was. */
gboolean tc_lttng_preamble_append_stream(GString *out, guint32 chan_id,
					 enum lttng_ust_ctl_channel_header header_type,
					 const struct lttng_ust_ctl_field *context, gsize nr_context,
					 const TcLttngMetadataOptions *options, GError **error);
