/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

#include "tc-channel.h"
#include "tc-consumer-route.h"
#include "tc-trace-clock.h"

/*
 * The per-user consumer daemons (tracectl-consumerd). One runs per user
 * with sessions, as that user, started by a direct fork/setuid launcher
 * (machines without systemd). Requests are synchronous: each returns once
 * the consumer answered it. Several threads' requests to one consumer are
 * under way at once, answered in any order; one thread's are sent in the
 * order of its calls. Call them from worker threads only, never from the
 * D-Bus main loop, and never with a session's lock [S] or an application's
 * lock [A] held (tc-registry.h): they wait on another process. A session's
 * op_lock may be held; it serializes exactly such waits, and so the
 * session's requests.
 */
typedef struct _TcConsumer TcConsumer;

/*
 * The SCHED_FIFO priority of the main thread of the consumers that
 * tracectld starts itself (1 to 99; 0, the default, keeps the normal
 * policy). That thread is the one the writers wake when a sub-buffer
 * fills; at normal priority the scheduler can leave it waiting behind a
 * busy writer on the same CPU for a tick or more, longer than a default
 * buffer lasts at full speed (docs/performance.md). Its other threads (the
 * disk writer) keep the normal policy. A realtime consumer does as much
 * work as its user's applications give it, ahead of every other user's
 * normal tasks on its CPU, hence the administrator's choice. Consumers
 * run as systemd units get it from the unit (CPUSchedulingPolicy=).
 * Call before the first tc_consumer_get().
 */
#define TC_CONSUMER_RT_PRIORITY_MAX 99
void tc_consumer_set_rt_priority(int priority);

/* Called from any thread when the consumer of uid dies or stops answering,
 * once per consumer, with no lock of this module held. The daemon sets
 * the sessions' handler (tc_session_ops_consumer_lost()) so that this
 * module never calls up into sessions. Call before the first
 * tc_consumer_get(). */
typedef void (*TcConsumerLostFunc)(uid_t uid, const char *why);
void tc_consumer_set_lost_func(TcConsumerLostFunc func);

/* Returns the consumer of uid (a new reference), starting it if needed. */
TcConsumer *tc_consumer_get(uid_t uid, GError **error);
/* The consumer of uid that runs now (a new reference), or NULL: for
 * lookups that must not start one. */
TcConsumer *tc_consumer_find(uid_t uid);
void tc_consumer_unref(TcConsumer *consumer);
/* Its process (from its start, or SO_PEERCRED of a unit's connection). */
GPid tc_consumer_pid(TcConsumer *consumer);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TcConsumer, tc_consumer_unref)

/*
 * A request answered by zero or more messages of answer_type (no
 * descriptors, at most TC_CONSUMER_MSG_MAX bytes, header checked: magic,
 * type and size) before the reply, all within timeout_ms. Each answer
 * goes to func as it comes, which checks the rest of it; func failing, a
 * bad message or the time running out is a broken consumer: it is killed,
 * as when a request goes unanswered. func runs on whichever waiting thread
 * reads the consumer's socket, under the link's lock: it must be quick and
 * must not call this module (TcConsumerAnswerFunc, tc-consumer-route.h).
 * msg's header is filled in here.
 */
gboolean tc_consumer_request_answers(TcConsumer *consumer, void *msg, guint32 type,
				     guint32 size, guint32 answer_type, guint timeout_ms,
				     TcConsumerAnswerFunc func, gpointer user_data,
				     GError **error);

/*
 * A request answered like tc_consumer_request_answers(), whose answers
 * may carry one descriptor between them (into *answer_fd, -1 if none
 * came), and with up to max_streams TC_CONSUMER_STREAM messages whose
 * two descriptors each go to fds (2 * max_streams entries, -1 where none
 * came), *shm_size the last stream's. On failure the descriptors
 * received so far are still the caller's to close.
 */
gboolean tc_consumer_request_streams(TcConsumer *consumer, void *msg, guint32 type, guint32 size,
				     guint32 answer_type, TcConsumerAnswerFunc func,
				     gpointer user_data, int *answer_fd, int *fds,
				     guint max_streams, guint64 *shm_size, GError **error);

/*
 * Lets the consumer go (it exits when its socket closes) if nothing but
 * the caller holds it: no request under way, no start waiting for it,
 * and has_sessions(uid) FALSE (sessions do not hold their consumer
 * between requests). has_sessions is called under the consumers' table
 * lock, so a session made meanwhile either is seen or gets a new
 * consumer; it must not take that lock. Returns whether it was retired.
 * The caller's reference stays the caller's.
 */
gboolean tc_consumer_retire_if_unused(TcConsumer *consumer, gboolean (*has_sessions)(uid_t uid));

/* snapshot: keep everything in memory until tc_consumer_snapshot().
 * relay: stream to it, trace_dir then relative to the session's directory
 * on the relay (TC_CONSUMER_SESSION_RELAY); NULL writes locally. */
gboolean tc_consumer_create_session(TcConsumer *consumer, guint64 session_id,
				    const char *trace_dir, gboolean snapshot,
				    const struct tc_consumer_relay_output *relay, GError **error);
/* On success *fds holds, per CPU, the buffer's memfd then the consumer's
 * wake-up eventfd: 2 * nr_cpus descriptors (the caller owns them). */
gboolean tc_consumer_create_channel(TcConsumer *consumer, guint64 session_id,
				    const TcChannel *channel, const guint8 uuid[16],
				    const TcTraceClock *clock, guint nr_cpus,
				    gboolean owner_writers, int **fds, guint64 *shm_size,
				    GError **error);
/* Sends layouts (struct tc_consumer_event_layout) to a consumer session. */
gboolean tc_consumer_send_layouts(TcConsumer *consumer, guint64 session_id, GArray *layouts,
				  GError **error);
/* Hands the kernel's raw buffers, their stats files (or NULL) and the
 * formats of a session to the consumer, which writes the kernel trace into
 * dir; in a snapshot session, with the kernel channel's geometry, it keeps
 * them as a flight recorder instead (0 and 0 otherwise). The descriptors
 * stay the caller's (the consumer gets copies). */
gboolean tc_consumer_kernel_trace(TcConsumer *consumer, guint64 session_id, const char *dir,
				  const guint8 uuid[16], const TcTraceClock *clock,
				  const int *cpu_fds, const int *stats_fds, guint nr_cpus,
				  int formats_fd, int tgids_fd, guint32 flags,
				  guint32 flight_subbuf_size, guint32 flight_num_subbuf,
				  GError **error);
/* Before events are enabled in a running kernel trace: their formats
 * (formats_fd, or -1) and the events to leave out (TC_CONSUMER_KHIDE_*). */
/* The own-process tier's ring buffer (not taken), written into dir. */
gboolean tc_consumer_kernel_own(TcConsumer *consumer, guint64 session_id, const char *dir,
				const guint8 uuid[16], int ring_fd, GError **error);
gboolean tc_consumer_kernel_update(TcConsumer *consumer, guint64 session_id, int formats_fd,
				   guint32 hide_flags, GError **error);
/* Writes what the buffers of a snapshot session hold into dir: the newest
 * packets of each stream, at most max_stream_bytes of them (0: all). */
gboolean tc_consumer_snapshot(TcConsumer *consumer, guint64 session_id, const char *dir,
			      guint64 max_stream_bytes, guint64 *packets, GError **error);
/* The same snapshot sent to the relay daemon of relay, under trace_path
 * (relative to the relay's session directory), by the owner's consumer. */
gboolean tc_consumer_snapshot_relay(TcConsumer *consumer, guint64 session_id,
				    const struct tc_consumer_relay_output *relay,
				    const char *trace_path, guint64 max_stream_bytes,
				    guint64 *packets, GError **error);
/* The same two for a snapshot session's kernel trace (created with a
 * flight recorder's geometry by tc_consumer_kernel_trace()): its own CTF
 * trace in dir, or under trace_path on the relay. */
gboolean tc_consumer_kernel_snapshot(TcConsumer *consumer, guint64 session_id, const char *dir,
				     guint64 max_stream_bytes, guint64 *packets, GError **error);
gboolean tc_consumer_kernel_snapshot_relay(TcConsumer *consumer, guint64 session_id,
					   const struct tc_consumer_relay_output *relay,
					   const char *trace_path, guint64 max_stream_bytes,
					   guint64 *packets, GError **error);

/* Rotation (TC_CONSUMER_ROTATE): the session's trace directories under
 * from_root move to the same place under to_root, and recording goes on
 * in new ones. *archived_bytes (or NULL) receives the archived chunk's
 * size. */
gboolean tc_consumer_rotate_session(TcConsumer *consumer, guint64 session_id,
				    const char *from_root, const char *to_root,
				    guint64 *archived_bytes, GError **error);
/* Drops what the session recorded so far (TC_CONSUMER_CLEAR). */
/* TC_CONSUMER_RELAY_ROTATE: close_command is TC_CONSUMER_RELAY_CHUNK_*,
 * steps TC_CONSUMER_RELAY_ROTATE_* (0: both steps), timestamp (Unix
 * seconds) the cut, shared by the traces of a tracing session. *relay_path
 * receives the closed chunk's path on the relay. */
gboolean tc_consumer_relay_rotate(TcConsumer *consumer, guint64 session_id, guint32 close_command,
				  guint32 steps, gint64 timestamp, char **relay_path,
				  guint64 *archived_bytes, GError **error);
gboolean tc_consumer_clear_session(TcConsumer *consumer, guint64 session_id, GError **error);
/* Bytes written into the session's current chunk (TC_CONSUMER_CHUNK_SIZE). */
gboolean tc_consumer_chunk_size(TcConsumer *consumer, guint64 session_id, guint64 *bytes,
				GError **error);

typedef struct {
	guint64 buffer_bytes;
	guint64 bytes_used;
	guint64 bytes_used_peak;
	guint64 events_discarded;
	guint64 packets_written;
} TcChannelStats;

/* The figures of the session's kernel buffers (see KERNEL_STATS in
 * tc-consumer-abi.h) added to *stats; NotFound without a kernel trace. */
gboolean tc_consumer_kernel_stats(TcConsumer *consumer, guint64 session_id,
				  TcChannelStats *stats, GError **error);
/* Adds the channel's figures in this consumer session to *stats. */
gboolean tc_consumer_channel_stats(TcConsumer *consumer, guint64 session_id, guint64 channel_id,
				   TcChannelStats *stats, GError **error);
/* A streaming consumer session's relay: connected now, the packets
 * dropped while it was not (since lost_since, Unix seconds; 0: none), the
 * errno of why it was last lost or not reached (0: never), and, for a
 * relay reached through ssh, why in ssh's words (reason, "" when the
 * errno says it all; printable ASCII only). */
typedef struct {
	gboolean connected;
	guint64 lost_packets;
	gint64 lost_since;
	int last_errno;
	char url[TC_CONSUMER_ERROR_MAX];
	char reason[TC_CONSUMER_ERROR_MAX];
} TcRelayStatus;
gboolean tc_consumer_relay_status(TcConsumer *consumer, guint64 session_id,
				  TcRelayStatus *status, GError **error);
gboolean tc_consumer_append_metadata(TcConsumer *consumer, guint64 session_id,
				     const char *text, gsize len, GError **error);
/* Writes out everything recorded so far, returns once it is on disk. */
gboolean tc_consumer_flush_session(TcConsumer *consumer, guint64 session_id,
				   guint64 *packets_corrupted, GError **error);
gboolean tc_consumer_destroy_session(TcConsumer *consumer, guint64 session_id,
				     GError **error);

/* Closes every consumer's command socket, which makes each write out its
 * data and exit, and waits a bounded time for them. */
void tc_consumer_shutdown_all(void);
