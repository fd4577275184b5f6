/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>
#include <urcu.h>
#include <urcu/rculfhash.h>

#include "tc-app.h"
#include "tc-channel.h"
#include "tc-consumer-abi.h"
#include "tc-kernel-domain.h"
#include "tc-session-rotation-state.h"
#include "tc-trace-clock.h"
#include "tc-tracker.h"
#include "tc-unit.h"
#include "tc-user-limits.h"

/*
 * A tracing session: what a user asked for, its channels, its metadata,
 * its kernel domain and its per-uid traces. Its locks, in the order they
 * nest (tc-registry.h gives the whole order):
 *   - op_lock serializes its long operations (start, stop, destroy: they
 *     wait on the consumer and on applications);
 *   - lock [S] covers its state, channels and metadata.
 * Each field, or the comment above it, names the lock it is under or
 * says when it is fixed. The registry (tc-registry.h) holds a reference
 * while the session is in its tables.
 */

typedef struct _TcSession TcSession;

typedef enum {
	TC_SESSION_INACTIVE,
	TC_SESSION_ACTIVE,
} TcSessionState;

/* How the LTTng-UST applications a session records share its buffers, as
 * lttng-enable-channel(1)'s --buffers-uid and --buffers-pid say: one set
 * per uid (LTTng's default), or one per application. tracectl's own
 * applications always write per-uid traces. */
typedef enum {
	TC_BUFFERS_UNSET, /* as the session has them: per-uid for its first channel */
	TC_BUFFERS_PER_UID,
	TC_BUFFERS_PER_PID,
} TcBufferScheme;

struct _TcSession {
	gint refcount;
	guint64 id;
	char *name;
	uid_t owner_uid;
	/* Both [S] until the session is exported, fixed from then on. */
	/* The trace root the user sees; "" for a relay session, whose paths
	 * are then relative to its directory on the relay. */
	char *output_directory;
	char *trace_dir; /* <output>/ust/uid/<uid>/64-bit */
	/* The service chose output_directory (<name>-<date>-<time>), so it
	 * may pick another when that one holds a trace already. */
	gboolean output_is_default;
	char *object_path;
	guint8 uuid[16];
	gint64 creation_realtime_us;
	TcTraceClock clock; /* the trace clock of all its buffers */

	GMutex op_lock; /* serializes start, stop, destroy, channels */
	GMutex lock;	/* [S] */

	TcSessionState state; /* [S] */
	gboolean snapshot;    /* set at creation, never changed */
	/* Where the trace is streamed, or NULL: written under
	 * output_directory. Set at creation, never changed. */
	struct tc_consumer_relay_output *relay;
	guint snapshot_count; /* [op_lock] snapshots recorded so far */
	TcSessionRotationState rotation; /* tc-session-rotation-state.h */
	/* [op_lock] TcSnapshotOutput *, the outputs of AddSnapshotOutput, or
	 * NULL before the first; bounded by the owner's limits. */
	GPtrArray *snapshot_outputs;
	guint32 next_snapshot_output_id; /* [op_lock] */
	gboolean has_buffers;		 /* [S] buffers exist: started at least once */
	gboolean destroyed;		 /* [S] unlinked from the registry */
	GPtrArray *channels;		 /* [S] TcChannel * */
	/* [S] Set with its first user-space channel (never TC_BUFFERS_UNSET
	 * once it has one), and fixed from then on, as in LTTng: every
	 * channel of a domain shares its scheme. */
	TcBufferScheme ust_buffers;
	GString *metadata_pending;	 /* [S] TSDL not yet sent to the consumer */
	GString *metadata_body;		 /* [S] streams and events sent so far */
	GArray *layouts_pending;	 /* [S] struct tc_consumer_event_layout, not sent yet */
	GArray *layouts_body;		 /* [S] those sent so far */
	GHashTable *traces;		 /* [S] uid -> TcUidTrace * (tc-uid-trace.h) */
	/* Which applications record: written with op_lock and [S] held, so
	 * either is enough to read it. */
	TcTracker ust_tracker;
	/* The units it tracks (TcTrackedUnit *), written as ust_tracker: none,
	 * or only the applications in their control groups record, whatever
	 * their uid (tc-unit.h). */
	GPtrArray *units;
	/* Set once it tracked a unit, as units: applications of other uids
	 * may hold its buffers from then on, and are synced with it. */
	gboolean has_tracked_units;
	char *problem; /* [S] for the Problem property, or NULL */
	/* [S] Its consumer died with buffers of it: what it had not written
	 * is lost, and problem says when and why. */
	gboolean consumer_lost;
	/* [S] Whether problem is the relay's, and what it said of the relay:
	 * its count of lost packets grows during an outage, the rest is
	 * news when it changes. */
	gboolean problem_is_relay;
	gint64 relay_lost_since;
	gboolean relay_connected;
	int relay_errno;
	guint relay_reason_hash; /* g_str_hash() of its reason's text */

	TcKernelDomain kernel; /* tc-kernel-domain.h */

	/* What the session counts against its owner's limits (those of the
	 * owner's login user when it was created over the bus): itself, its
	 * channels, buffers and metadata; given back when it is unlinked. */
	TcUserCharge charge;

	/* The bus front end's, opaque here: its exported object of the
	 * session, or NULL (bus/tc-dbus-session.c). Main thread only. */
	gpointer bus_data;

	struct cds_lfht_node id_node;
	struct cds_lfht_node name_node;
	struct rcu_head rcu_head;
};

TcSession *tc_session_new(const char *name, uid_t owner, const char *output_directory);
/* Before the session is published: its trace goes to output_directory. */
void tc_session_set_output_directory(TcSession *session, const char *output_directory);
TcSession *tc_session_ref(TcSession *session);
void tc_session_unref(TcSession *session);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TcSession, tc_session_unref)
/* sessions grouped by owner: uid -> GPtrArray of new references, in the
 * order of sessions (for work done per owner, tc-owner-pool.h). */
GHashTable *tc_session_group_by_owner(GPtrArray *sessions);

/* [S] */
TcChannel *tc_session_find_channel_locked(TcSession *session, const char *name);
/* [S] Adds a channel; the caller checked the name and the settings. */
TcChannel *tc_session_add_channel_locked(TcSession *session, const char *name,
					 const TcChannelConfig *config);

/* Root's sessions record every user's applications, each in its own
 * per-uid trace; the others only their owner's. */
static inline gboolean
tc_session_records_uid(const TcSession *session, uid_t uid)
{
	return session->owner_uid == uid || session->owner_uid == 0;
}

/* [S] or op_lock: whether applications of other uids than its owner's
 * may hold the session's buffers (root's, and those that tracked units). */
static inline gboolean
tc_session_records_others(const TcSession *session)
{
	return session->owner_uid == 0 || session->has_tracked_units;
}

/* [S] or op_lock: whether app runs in a unit the session tracks. */
static inline gboolean
tc_session_unit_holds_app(const TcSession *session, const TcApp *app)
{
	for (guint i = 0; i < session->units->len; i++) {
		const TcTrackedUnit *unit = g_ptr_array_index(session->units, i);

		if (tc_app_in_cgroup(app, unit->cgroup))
			return TRUE;
	}
	return FALSE;
}

/* [S] or op_lock: whether the session may give app buffers at all: a
 * session that tracks units reaches only the applications in them (its
 * owner's others included: they are not of the delegated unit), any other
 * those of the uids it records. */
static inline gboolean
tc_session_reaches_app(const TcSession *session, const TcApp *app)
{
	if (session->units->len > 0)
		return tc_session_unit_holds_app(session, app);
	return tc_session_records_uid(session, app->uid);
}

/* [S] or op_lock: whether the session's trackers let app record. */
static inline gboolean
tc_session_tracks_app(const TcSession *session, const TcApp *app)
{
	return tc_session_reaches_app(session, app) &&
	       tc_tracker_matches(&session->ust_tracker, &app->ids);
}
