/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>
#include <urcu.h>
#include <urcu/rculfhash.h>

#include "tc-consumer-abi.h"
#include "tc-event-rule.h"
#include "tc-trace-clock.h"
#include "tc-tracker.h"
#include "tc-unit.h"
#include "tc-user-limits.h"
#include "tracectl-abi.h"

/*
 * The tracing registry: sessions (what users asked for) and registered
 * applications (what runs), after chapter 3 of the session-daemon thesis
 * (David Goulet, "Unified Kernel/User-Space Efficient Linux Tracing
 * Architecture", Master's thesis, École Polytechnique de Montréal, 2012;
 * see docs/architecture.md).
 *
 * Lookups are lock-free: sessions are in RCU hash tables by id and by
 * (owner, name), applications by pid and by socket (figure 3.8), each
 * lookup a single cds_lfht operation. Readers hold the RCU read-side lock
 * (rcu_read_lock()) while they use what they found, or take a reference.
 * Only threads tracectld created and registered with liburcu may do so
 * (the main thread, the application threads, the operation pool).
 *
 * Writers take locks, never a global one across I/O:
 *   - a session's op_lock serializes its long operations (start, stop,
 *     destroy: they wait on the consumer and on applications);
 *   - a session's lock [S] covers its state, channels and metadata;
 *   - an application's lock [A] covers its shadow copies, its pending
 *     commands and every message sent to it (sends never block).
 * Nesting: op_lock > session lock > application lock > waiter lock, and
 * the per-user limits' lock (tc-user-limits.h) and an application's
 * cgroup_lock are leaves under any. The
 * hash-table insertions and removals take no lock of ours: cds_lfht is
 * safe for concurrent writers.
 *
 * Waits on a user's processes hold only that user's locks: a session's
 * op_lock while it waits on its consumer (whose own locks are held
 * briefly, never across that wait: tc-consumer.c) or for acknowledgements, which are awaited with
 * no session or application lock held. The consumer table's lock and the
 * operation queue's are leaves, held for bookkeeping only.
 *
 * Destroying follows table 3.1: look up, lock, unlink (the node leaves the
 * tables), unlock, and free after a grace period (call_rcu), so a racing
 * command gets "not found" and never a freed session.
 *
 * Every change to a session is made to the session first and then applied
 * to each registered application of its owner by tc_app_sync_locked() (the
 * shadow copy); a registering application is first published, then synced
 * with every session, so whichever of a command and a registration comes
 * first, both end in the same state (figure 3.9).
 */

typedef struct _TcSession TcSession;
typedef struct _TcChannel TcChannel;
typedef struct _TcApp TcApp;
typedef struct _TcAckWaiter TcAckWaiter;

#define TC_DEFAULT_CHANNEL "channel0"
#define TC_DEFAULT_SUBBUF_SIZE (512u * 1024u) /* as LTTng-UST */
#define TC_DEFAULT_NUM_SUBBUF 4u
#define TC_DEFAULT_READ_TIMER_US 100000u
#define TC_DEFAULT_MONITOR_TIMER_US 1000000u

/* What a channel is made of, fixed once it exists: the geometry that
 * the consumer builds the buffers from (timers 0: off; read_timer_us
 * is 0 in snapshot sessions). */
typedef struct tc_channel_geometry TcChannelConfig;

struct _TcChannel {
	TcSession *session;
	char *name;
	guint64 handle;    /* unique in the service, names the channel to apps */
	guint32 stream_id; /* CTF stream class id, the index in the session */
	TcChannelConfig config;
	guint32 contexts;      /* [S] TRACECTL_CONTEXT_* bits */
	GPtrArray *patterns;   /* [S] char *, enabled event patterns */
	/* [S] disable-channel: its events are disabled in every application
	 * while its patterns stay, for enable-channel to bring them back. */
	gboolean is_disabled;
	/* [S] TcEventRule *, one per EnableEvent call, in the order of
	 * patterns: rules[i]->pattern is patterns[i]. */
	GPtrArray *rules;
	GHashTable *event_ids; /* [S] "name|fields" -> GUINT_TO_POINTER(id + 1) */
	guint32 next_event_id; /* [S] */
	/* uid -> TcChannelBuffers *: the per-CPU buffers of each traced uid,
	 * created by the consumer (an application only ever gets those of
	 * its own uid). [S] */
	GHashTable *buffers;
};

typedef struct {
	int *fds; /* per CPU: the memfd, then the consumer's wake-up eventfd */
	guint nr_streams;
	guint64 shm_size;
} TcChannelBuffers;

/* The trace of one uid in a session: its own directory
 * <output>/ust/uid/<uid>/64-bit, consumer session, uuid and metadata. An
 * ordinary session has one, its owner's; a session of root (the
 * administrator) has one per uid whose applications it recorded. */
typedef struct {
	guint64 consumer_id;
	guint8 uuid[16];
	gboolean has_buffers;
} TcUidTrace;

/* A dynamic probe of the kernel domain (kprobe, kretprobe, uprobe). */
typedef struct {
	guint32 kind; /* TC_KERNEL_PROBE_* */
	char *name;
	char *location;
} TcKernelProbe;

/* A place a snapshot session's snapshots can go (AddSnapshotOutput). */
typedef struct {
	guint32 id;
	char *name;
	char *directory; /* absolute, made by the owner's consumer */
	guint64 max_bytes; /* bound of its snapshots, 0 for none */
} TcSnapshotOutput;

typedef enum {
	TC_SESSION_INACTIVE,
	TC_SESSION_ACTIVE,
} TcSessionState;

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
	GMutex lock;    /* [S] */

	TcSessionState state;      /* [S] */
	gboolean snapshot;         /* set at creation, never changed */
	/* Where the trace is streamed, or NULL: written under
	 * output_directory. Set at creation, never changed. */
	struct tc_consumer_relay_output *relay;
	guint snapshot_count;      /* [op_lock] snapshots recorded so far */
	/* Rotation (tc-session-rotation.h). The schedule: 0 is off. */
	guint64 rotation_timer_us;   /* [S] */
	guint64 rotation_size_bytes; /* [S] */
	gint64 last_rotation_us;     /* [S] monotonic: when the current chunk began */
	gint64 rotation_retry_us;    /* [S] monotonic: no scheduled rotation before */
	gint64 chunk_begin_realtime_us; /* [op_lock] 0: the session's creation */
	guint archive_count;         /* [op_lock] archives completed, the next one's index */
	/* [op_lock] a streamed session's current trace chunk on the relay:
	 * its id and when it began (Unix seconds, 0: the session's creation) */
	guint64 relay_chunk_id;
	gint64 relay_chunk_created;
	char *last_archive;          /* [S] the newest archive's path, or NULL */
	/* [op_lock] TcSnapshotOutput *, the outputs of AddSnapshotOutput, or
	 * NULL before the first; bounded by the owner's limits. */
	GPtrArray *snapshot_outputs;
	guint32 next_snapshot_output_id; /* [op_lock] */
	gboolean has_buffers;      /* [S] buffers exist: started at least once */
	gboolean destroyed;        /* [S] unlinked from the registry */
	GPtrArray *channels;       /* [S] TcChannel * */
	GString *metadata_pending; /* [S] TSDL not yet sent to the consumer */
	GString *metadata_body;    /* [S] streams and events sent so far */
	GArray *layouts_pending;   /* [S] struct tc_consumer_event_layout, not sent yet */
	GArray *layouts_body;      /* [S] those sent so far */
	GHashTable *traces;        /* [S] uid -> TcUidTrace * */
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
	char *problem;             /* [S] for the Problem property, or NULL */
	/* [S] Whether problem is the relay's, and what it said of the relay:
	 * its count of lost packets grows during an outage, the rest is
	 * news when it changes. */
	gboolean problem_is_relay;
	gint64 relay_lost_since;
	gboolean relay_connected;
	int relay_errno;

	/* The kernel domain, [op_lock]; what the Channels property shows
	 * (events, probes, contexts, geometry) is written with [S] held too. */
	GPtrArray *kernel_events;  /* "system:event" patterns */
	/* pattern of kernel_events -> its tracefs filter, for those with one */
	GHashTable *kernel_filters;
	GPtrArray *kernel_probes;  /* TcKernelProbe * */
	guint32 kernel_buffer_kb;  /* per CPU, 0: the kernel's default */
	/* As EnableChannel "kernel" gave it, 0 and 0: the kernel's default. */
	guint64 kernel_subbuf_size;
	guint32 kernel_num_subbuf;
	guint32 kernel_contexts;   /* TC_CONSUMER_KCTX_* */
	TcTracker kernel_tracker;  /* pids the tracefs instance records */
	gboolean kernel_instance;  /* the helper made the tracefs instance */
	gboolean kernel_trace;     /* the consumer writes <output>/kernel */
	gboolean kernel_disabled;  /* disable-channel -k: the instance is off */
	guint64 kernel_buffer_bytes; /* [op_lock] counted in charge */
	/* The own-process tier, [op_lock] (tc-session-kernel-own.c). */
	guint32 kernel_own_events;    /* TC_KERNEL_OWN_* */
	gboolean kernel_own_charged;  /* counted in charge */
	gboolean kernel_own_running;  /* the helper's programs are attached */

	/* What the session counts against its owner's limits (those of the
	 * owner's login user when it was created over the bus): itself, its
	 * channels, buffers and metadata; given back when it is unlinked. */
	TcUserCharge charge;

	gpointer dbus_object; /* main thread only: the exported skeleton */

	struct cds_lfht_node id_node;
	struct cds_lfht_node name_node;
	struct rcu_head rcu_head;
};

typedef struct {
	char name[TRACECTL_ABI_EVENT_NAME_MAX];
	int loglevel;
	char *signature; /* "type name, type name", for listings and ids */
	guint nr_fields;
	struct tracectl_abi_field fields[]; /* nr_fields of them */
} TcAppEvent;

typedef enum {
	TC_APP_REGISTERING, /* handshake in a registration worker */
	TC_APP_REGISTERED,  /* published */
	TC_APP_DEAD,        /* socket closed, unlinked */
} TcAppState;

struct _TcApp {
	gint refcount;
	int fd;
	pid_t pid; /* from SO_PEERCRED */
	uid_t uid;
	gid_t gid;
	/* pid, uid, gid and their values in the application's namespaces,
	 * fixed at the connection, for the sessions' trackers. */
	TcProcessIds ids;
	/* Its control group, from the kernel (NULL when unknown), for the
	 * units sessions track: read when it connects, and again while a
	 * session that tracks a unit reaches it (tc-unit-watch.h). Read and
	 * written only under cgroup_lock, a leaf below every other lock, since
	 * its readers hold the lock of some session and not [A]. */
	char *cgroup;
	GMutex cgroup_lock;
	char procname[TRACECTL_ABI_PROCNAME_MAX + 1];
	guint tracer_major, tracer_minor;
	gboolean is_greeted; /* REGISTER received */
	/* Its connection and event descriptions, counted against the limits
	 * of its accountable user (tc-peer-identity.h) until it is freed. */
	TcUserCharge charge;
	GMutex lock;         /* [A] */
	TcAppState state;     /* [A] */
	GPtrArray *events;    /* [A] TcAppEvent *, by application index */
	guint batch_start;    /* [A] index of the first event of the open batch */
	guint32 next_seq;     /* [A] */
	/* [A] It let an acknowledgement deadline pass: commands are still
	 * sent, but nobody waits for its answers until it answers one sent
	 * from unresponsive_seq on (it caught up). */
	gboolean is_unresponsive;
	guint32 unresponsive_seq; /* [A] */
	GHashTable *sessions; /* [A] session id -> TcAppSessionState *, or NULL */
	/* [A] notifier handle -> set of event indexes enabled in it, or NULL
	 * (tc-notifier.c) */
	GHashTable *notifiers;
	GHashTable *pending;  /* [A] seq -> TcAckWaiter *, or NULL */
	/* [A] EVENTS_DONE answers waiting for a metadata flush: while any
	 * does, later answers queue behind them, so that batches are
	 * answered in order (tc_app_sync_all_sessions()). */
	guint answers_deferred;

	struct cds_lfht_node pid_node;
	struct cds_lfht_node fd_node;
	struct rcu_head rcu_head;
};

/*
 * Waits for applications to acknowledge commands. Lives on the stack of
 * the operation that sent them; see tc_ack_waiter_wait(). The answers of
 * all applications are awaited together, against one deadline: the
 * caller's for the session owner's applications, and at most
 * TC_ACK_OTHER_USERS_TIMEOUT_MS for other users' (root's sessions record
 * everyone's), so that no user's slow or mute applications delay another
 * user's commands by more than that.
 */
#define TC_ACK_OTHER_USERS_TIMEOUT_MS 200

struct _TcAckWaiter {
	GMutex lock;
	GCond cond;
	uid_t owner_uid;         /* the session's owner */
	guint remaining_owner;   /* [lock] answers due from owner_uid's applications */
	guint remaining_others;  /* [lock] and from other users' */
};

/* The shadow copy of one session in one application. */
typedef struct {
	gboolean active;
	GHashTable *channels_sent; /* channel handles */
	GHashTable *enabled;       /* "<channel handle>:<event index>" */
	/* The filter each "<channel handle>:<event index>" has in the
	 * application, a GBytes; none when missing. */
	GHashTable *filters;
} TcAppSessionState;

void tc_registry_init(void);
/* A random (version 4) uuid: a session's own, and the identity a session
 * gives a relay. */
void tc_random_uuid(guint8 uuid[16]);

/* Sessions. */
TcSession *tc_session_new(const char *name, uid_t owner, const char *output_directory);
/* Before the session is published: its trace goes to output_directory. */
void tc_session_set_output_directory(TcSession *session, const char *output_directory);
/* The directory of uid's trace under root (a session's output directory,
 * or a snapshot's): <root>/ust/uid/<uid>/<bits>-bit, where babeltrace2 and
 * the user look for it; relative "ust/uid/<uid>/<bits>-bit" when root is
 * "", the trace root of a relay session. */
char *tc_uid_trace_dir(const char *root, uid_t uid);
TcSession *tc_session_ref(TcSession *session);
void tc_session_unref(TcSession *session);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TcSession, tc_session_unref)
/* sessions grouped by owner: uid -> GPtrArray of new references, in the
 * order of sessions (for work done per owner, tc-owner-pool.h). */
GHashTable *tc_sessions_by_owner(GPtrArray *sessions);

/* Publishes the session; AlreadyExists when the owner has one of that
 * name, LimitExceeded when the owner holds all the sessions allowed. */
gboolean tc_registry_add_session(TcSession *session, GError **error);
/* [S] Unlinks the session, marks it destroyed; its registry reference is
 * dropped after a grace period. */
void tc_registry_remove_session_locked(TcSession *session);
/* Return a new reference, or NULL. Any thread. */
TcSession *tc_registry_find_session(guint64 id);
TcSession *tc_registry_find_session_by_name(uid_t owner, const char *name);
/* New references to the sessions of uid, or of everyone when all. */
GPtrArray *tc_registry_list_sessions(uid_t uid, gboolean all);
/* Whether uid owns a session, one being destroyed included. Takes no
 * lock and no reference (RCU read side: registered threads only). */
gboolean tc_registry_user_has_sessions(uid_t uid);
/* [S] */
TcChannel *tc_session_find_channel_locked(TcSession *session, const char *name);
/* [S] Adds a channel; the caller checked the name and the settings. */
TcChannel *tc_session_add_channel_locked(TcSession *session, const char *name,
					 const TcChannelConfig *config);
/* The settings of a channel created without options in session. */
void tc_channel_config_init_default(TcChannelConfig *config, gboolean snapshot);
guint tc_registry_session_count(void);

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

/* Whether app's control group is unit_cgroup or below it. Any lock held
 * or none (cgroup_lock is a leaf). */
gboolean tc_app_in_cgroup(const TcApp *app, const char *unit_cgroup);
/* Replaces app's control group with cgroup (taken); TRUE when it changed.
 * Any lock held or none. */
gboolean tc_app_set_cgroup(TcApp *app, char *cgroup);
/* A copy of app's control group, or NULL. */
char *tc_app_dup_cgroup(const TcApp *app);

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

/* New references to the sessions that may record uid's applications:
 * uid's own, root's, and those that track units. Takes each session's
 * lock [S] in turn: call with none held. */
GPtrArray *tc_registry_list_sessions_recording(uid_t uid);

/* Applications. */
TcApp *tc_app_new(int fd, pid_t pid, uid_t uid, gid_t gid);
TcApp *tc_app_ref(TcApp *app);
void tc_app_unref(TcApp *app);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TcApp, tc_app_unref)
void tc_app_event_free(TcAppEvent *event);

/* Publishes a registered application in both indexes. */
void tc_registry_add_app(TcApp *app);
/* [A] Unlinks the app and releases its waiters; the caller closes the
 * socket after this, never before. */
void tc_registry_remove_app_locked(TcApp *app);
/* New references to the registered applications of uid (all when all). */
GPtrArray *tc_registry_list_apps(uid_t uid, gboolean all);
/* RCU read-side lock held: the application on socket fd, or NULL. */
TcApp *tc_registry_find_app_by_fd(int fd);
/* RCU read-side lock held: the application of pid, or NULL. */
TcApp *tc_registry_find_app_by_pid(pid_t pid);
guint tc_registry_app_count(void);


void tc_ack_waiter_init(TcAckWaiter *waiter, uid_t owner_uid);
/* [A] held: one more answer is due from app. */
void tc_ack_waiter_expect_locked(TcAckWaiter *waiter, TcApp *app);
/* Waits at most timeout_ms for the answers (less for other users'
 * applications), then forgets the rest and marks the applications that
 * owed them unresponsive. No session or application lock may be held. */
void tc_ack_waiter_wait(TcAckWaiter *waiter, guint timeout_ms);
/* [A] held: app answered, or died. */
void tc_ack_waiter_signal_locked(TcAckWaiter *waiter, TcApp *app);
/* [A] held: app answered command seq; it is responsive again once it
 * answers a command sent after it was marked. */
void tc_app_answered_locked(TcApp *app, guint32 seq);
