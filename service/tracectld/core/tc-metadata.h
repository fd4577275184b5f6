/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-app.h"
#include "tc-channel.h"
#include "tc-session.h"

/*
 * The CTF 1.8 TSDL metadata of a session's user-space trace. The layout
 * described here is the one of struct tc_packet_header and of the compact
 * and extended record headers (common/ringbuffer/tc-rb.h): every field
 * but the two bit fields of the compact header is byte aligned and packed,
 * little or big endian as the host.
 *
 * Metadata is produced in pieces, appended to the session's metadata file
 * by its consumer: the trace header and clock when the buffers are created,
 * one stream class per channel, and one event class whenever an event is
 * first enabled in a channel.
 */

/* The trace, environment and clock declarations of the trace of uid. */
void tc_metadata_append_header(GString *out, const TcSession *session, uid_t uid,
			       const guint8 uuid[16]);
/* The stream class of a channel. */
void tc_metadata_append_stream(GString *out, const TcChannel *channel);
/* One event class. Event names, field names and enumeration labels were
 * validated at registration (tc-validate.h, tracectl-abi.h), so they are
 * safe to quote; an enumeration is written inline in each field that
 * uses it, so that events of different applications never share one by
 * its name. */
void tc_metadata_append_event(GString *out, guint32 stream_id, guint32 id,
			      const TcAppEvent *event);
/* "int64 count, string msg, enum state : uint8 status": the signature of
 * an event's fields (its enumerations' names set). */
char *tc_metadata_signature(const TcAppEvent *event);
