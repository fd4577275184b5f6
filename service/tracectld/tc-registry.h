/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

#include "tracectl-abi.h"

/*
 * The tracing registry: sessions (what users asked for) and registered
 * applications (what runs), after chapter 3 of the session-daemon thesis.
 *
 * Locking: one registry lock (tc_registry_lock()) covers every field below
 * marked [R], the session and application tables, and every message sent
 * to an application. Sends are non-blocking, so the lock is never held
 * across a wait on an application. It nests inside a session's op_lock,
 * and the consumer lock (tc-consumer.c) is never taken under it.
 *
 * Every change to a session is made to the session first, and then each
 * registered application of the session's owner is brought to the
 * session's state by tc_app_sync() (the "shadow copy"): a registering
 * application is synced with every session when its events arrive, so
 * whichever of a command and a registration comes first, both end in the
 * same state (thesis figure 3.9).
 */

typedef struct _TcSession TcSession;
typedef struct _TcChannel TcChannel;
typedef struct _TcApp TcApp;
typedef struct _TcAckWaiter TcAckWaiter;

#define TC_DEFAULT_CHANNEL "channel0"
#define TC_DEFAULT_SUBBUF_SIZE (64u * 1024u)
#define TC_DEFAULT_NUM_SUBBUF 4u

struct _TcChannel {
	TcSession *session;
	char *name;
	guint64 handle;    /* unique in the service, names the channel to apps */
	guint32 stream_id; /* CTF stream class id, the index in the session */
	guint32 subbuf_size;
	guint32 num_subbuf;
	GPtrArray *patterns;   /* [R] char *, enabled event patterns */
	GHashTable *event_ids; /* [R] "name|fields" -> GUINT_TO_POINTER(id + 1) */
	guint32 next_event_id; /* [R] */
	/* The per-CPU buffers, once the consumer created them (first start). */
	int *stream_fds; /* [R] memfds, nr_streams of them, or NULL */
	guint nr_streams;
	guint64 shm_size;
};

typedef enum {
	TC_SESSION_INACTIVE,
	TC_SESSION_ACTIVE,
} TcSessionState;

struct _TcSession {
	gint refcount;
	guint64 id;
	char *name;
	uid_t owner_uid;
	char *output_directory; /* the trace root the user sees */
	char *trace_dir;        /* <output>/ust/uid/<uid>/64-bit */
	char *object_path;
	guint8 uuid[16];
	gint64 creation_realtime_us;
	gint64 clock_offset_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC */

	/* Serializes control operations (start, stop, destroy, channels) so
	 * that they run one at a time per session, in worker threads. */
	GMutex op_lock;

	TcSessionState state; /* [R] */
	gboolean has_buffers; /* [R] buffers exist: started at least once */
	gboolean destroyed;   /* [R] unlinked from the registry */
	GPtrArray *channels;  /* [R] TcChannel * */
	GString *metadata_pending; /* [R] TSDL not yet sent to the consumer */

	gpointer dbus_object; /* main thread only: the exported skeleton */
};

typedef struct {
	char name[TRACECTL_ABI_EVENT_NAME_MAX];
	int loglevel;
	guint nr_fields;
	struct tracectl_abi_field fields[TRACECTL_ABI_FIELDS_MAX];
	char *signature; /* "type name, type name", for listings and ids */
} TcAppEvent;

typedef enum {
	TC_APP_CONNECTED,  /* waiting for REGISTER */
	TC_APP_REGISTERED, /* REGISTER received */
	TC_APP_DEAD,       /* socket closed, unlinked */
} TcAppState;

struct _TcApp {
	gint refcount;
	int fd;
	pid_t pid; /* from SO_PEERCRED */
	uid_t uid;
	gid_t gid;
	char procname[TRACECTL_ABI_PROCNAME_MAX + 1];
	guint tracer_major, tracer_minor;
	TcAppState state;     /* [R] */
	GPtrArray *events;    /* [R] TcAppEvent *, by application index */
	guint batch_start;    /* [R] index of the first event of the open batch */
	guint32 next_seq;     /* [R] */
	GHashTable *sessions; /* [R] session id -> TcAppSessionState * */
	GHashTable *pending;  /* [R] seq -> TcAckWaiter *, commands not acked */
};

/* Waits for applications to acknowledge commands. Lives on the stack of
 * the operation that sent them; see tc_ack_waiter_wait(). */
struct _TcAckWaiter {
	guint remaining; /* [R] */
};

void tc_registry_init(void);
GMutex *tc_registry_lock(void);
void tc_registry_lock_acquire(void);
void tc_registry_lock_release(void);

/* Sessions. */
TcSession *tc_session_new(const char *name, uid_t owner, const char *output_directory);
TcSession *tc_session_ref(TcSession *session);
void tc_session_unref(TcSession *session);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TcSession, tc_session_unref)

/* [R] Adds the session; fails with AlreadyExists when the owner has one
 * of that name. */
gboolean tc_registry_add_session_locked(TcSession *session, GError **error);
/* [R] Unlinks the session and marks it destroyed. */
void tc_registry_remove_session_locked(TcSession *session);
/* Returns a new reference, or NULL. */
TcSession *tc_registry_find_session(guint64 id);
TcSession *tc_registry_find_session_by_name(uid_t owner, const char *name);
/* Returns new references to all sessions, the caller's only unless all. */
GPtrArray *tc_registry_list_sessions(uid_t uid, gboolean all);
/* [R] Borrowed pointers to the sessions owned by uid. */
GPtrArray *tc_registry_sessions_locked(uid_t uid);
/* [R] */
TcChannel *tc_session_find_channel_locked(TcSession *session, const char *name);
/* [R] Adds a channel; the caller checked the name and geometry. */
TcChannel *tc_session_add_channel_locked(TcSession *session, const char *name,
					 guint32 subbuf_size, guint32 num_subbuf);
guint tc_registry_session_count(void);

/* Applications. */
TcApp *tc_app_new(int fd, pid_t pid, uid_t uid, gid_t gid);
TcApp *tc_app_ref(TcApp *app);
void tc_app_unref(TcApp *app);
/* [R] */
void tc_registry_add_app_locked(TcApp *app);
/* [R] Unlinks the app, releases its waiters; the caller closes the fd after. */
void tc_registry_remove_app_locked(TcApp *app);
/* [R] Applications of uid, or all when all; borrowed pointers. */
GPtrArray *tc_registry_apps_locked(uid_t uid, gboolean all);
TcApp *tc_registry_find_app_by_fd_locked(int fd);
guint tc_registry_app_count(void);
void tc_app_event_free(TcAppEvent *event);

/*
 * [R] Brings app to the state of session (channels and their buffers,
 * enabled events, started or stopped), sending only what differs from
 * what the application already has. Commands that need an answer are
 * counted in waiter when it is not NULL. An application that cannot take
 * a message is disconnected.
 */
void tc_app_sync_locked(TcApp *app, TcSession *session, TcAckWaiter *waiter);
/* [R] tc_app_sync_locked() for every registered application of the owner. */
void tc_session_sync_apps_locked(TcSession *session, TcAckWaiter *waiter);
/* [R] Tells the app to forget the session (destroy). */
void tc_app_forget_session_locked(TcApp *app, TcSession *session, TcAckWaiter *waiter);

/* The shadow copy of one session in one application. */
typedef struct {
	gboolean active;
	GHashTable *channels_sent; /* channel handles */
	GHashTable *enabled;       /* "<channel handle>:<event index>" */
} TcAppSessionState;

void tc_app_session_state_free(TcAppSessionState *state);

/* [R] held on entry and exit, released while waiting at most timeout_ms. */
void tc_ack_waiter_wait_locked(TcAckWaiter *waiter, guint timeout_ms);
/* [R] An application answered or died. */
void tc_ack_waiter_signal_locked(TcAckWaiter *waiter);

/* Implemented by the application listener: sends one message, and fds
 * when n_fds > 0. Returns FALSE when the application must be dropped. */
gboolean tc_app_send_locked(TcApp *app, void *msg, guint32 type, guint32 size, guint32 seq,
			    const int *fds, guint n_fds);
/* [R] Marks the app dead and wakes the listener to close it. */
void tc_app_disconnect_locked(TcApp *app, const char *why);
