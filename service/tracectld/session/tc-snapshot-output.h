/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-session.h"

/*
 * The snapshot outputs of a session (AddSnapshotOutput): places its
 * snapshots can be written to besides its output directory. Every
 * function expects the session's op_lock held, which guards the list.
 * The directories are only ever created and written by the owner's
 * consumer, with the owner's rights, so an output names nothing the owner
 * could not write anyway.
 */

/* A place a snapshot session's snapshots can go (AddSnapshotOutput). */
typedef struct {
	guint32 id;
	char *name;
	char *directory;   /* absolute, made by the owner's consumer */
	guint64 max_bytes; /* bound of its snapshots, 0 for none */
} TcSnapshotOutput;

/* The directory of a "/path" or "file:///path" URL, checked like an
 * output directory, or the canonical "net://HOST:CTRL:DATA" (net6://,
 * net+ssh://) of a relay URL, as `lttng snapshot` takes them. */
char *tc_snapshot_output_parse_url(const char *url, GError **error);

/* Whether target (from parse_url or resolve_locked) names a relay. */
gboolean tc_snapshot_output_is_relay(const char *target);
/* Adds an output named name ("" for "snapshot-<id>") within the owner's
 * limit of outputs per session; its snapshots are bounded to max_bytes
 * (0: no bound) unless the record says otherwise. */
gboolean tc_snapshot_output_add_locked(TcSession *session, const char *name, const char *url,
				       guint64 max_bytes, guint32 *id, GError **error);
/* One output as listed: a copy, owned by the list. */
typedef struct {
	guint32 id;
	char *name;
	char *url;	   /* "file:///path", or the relay's "net://..." */
	guint64 max_bytes; /* 0: no bound */
} TcSnapshotOutputEntry;

void tc_snapshot_output_entry_free(TcSnapshotOutputEntry *entry);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TcSnapshotOutputEntry, tc_snapshot_output_entry_free)
/* The outputs in the order added: TcSnapshotOutputEntry *, the caller's. */
GPtrArray *tc_snapshot_output_list_locked(TcSession *session);
/* output: an id in decimal or a name. NotFound when there is none. */
gboolean tc_snapshot_output_remove_locked(TcSession *session, const char *output, GError **error);
/* The directory or relay URL snapshots go to for output: an output's id
 * or name (its bound in *max_bytes), or a URL as for
 * tc_snapshot_output_parse_url() (*max_bytes 0). */
char *tc_snapshot_output_resolve_locked(TcSession *session, const char *output,
					guint64 *max_bytes, GError **error);
