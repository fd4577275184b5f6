/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The command protocol between tracectld and one tracectl-consumerd.
 *
 * tracectld starts one consumer per user with active sessions and keeps an
 * AF_UNIX SOCK_SEQPACKET socket pair to it; the consumer gets its end as
 * file descriptor 3 (TC_CONSUMER_COMMAND_FD). The consumer answers each
 * request with zero or more TC_CONSUMER_STREAM messages (each carrying a
 * memfd and an eventfd in SCM_RIGHTS) or TC_CONSUMER_SESSION_FILE answers,
 * followed by exactly one TC_CONSUMER_REPLY, every one of them carrying the
 * request's request_id. The service has several requests under way at
 * once; the messages of one request come in order; the answers of
 * different requests may interleave and come in any order, so that a
 * request waiting for one session's output never holds another's. A
 * message naming no request under way (or one already replied to), or
 * descriptors anywhere but in a stream, is a broken consumer: the service
 * kills it.
 *
 * The consumer runs as the session owner, so every path it is given is
 * created and opened with that user's rights only: the service never
 * writes into a user's directory. The consumer checks every size it reads,
 * like the service does; a malformed request gets an error reply.
 *
 * When the socket closes (the service went away) the consumer flushes and
 * writes out everything it holds, then exits.
 */
#ifndef TC_CONSUMER_ABI_H
#define TC_CONSUMER_ABI_H

#include <stdint.h>
#include <assert.h>

#define TC_CONSUMER_MAGIC 0x54434331u /* "TCC1" */
#define TC_CONSUMER_COMMAND_FD 3
#define TC_CONSUMER_MSG_MAX 65536u
#define TC_CONSUMER_PATH_MAX 4096u
#define TC_CONSUMER_NAME_MAX 256u
#define TC_CONSUMER_ERROR_MAX 256u
#define TC_CONSUMER_METADATA_CHUNK_MAX (TC_CONSUMER_MSG_MAX - 64u)

enum tc_consumer_msg_type {
	/* service -> consumer */
	TC_CONSUMER_CREATE_SESSION = 1,  /* struct tc_consumer_session */
	TC_CONSUMER_CREATE_CHANNEL = 2,  /* struct tc_consumer_channel */
	TC_CONSUMER_METADATA = 3,        /* struct tc_consumer_metadata + text */
	TC_CONSUMER_FLUSH_SESSION = 4,   /* struct tc_consumer_session_ref */
	TC_CONSUMER_DESTROY_SESSION = 5, /* struct tc_consumer_session_ref */
	TC_CONSUMER_SNAPSHOT = 6,        /* struct tc_consumer_snapshot */
	TC_CONSUMER_CHANNEL_STATS = 7,   /* struct tc_consumer_channel_ref */
	TC_CONSUMER_EVENT_LAYOUT = 8,    /* struct tc_consumer_event_layout */
	TC_CONSUMER_KERNEL_TRACE = 9,    /* struct tc_consumer_kernel_trace + fds */
	TC_CONSUMER_KERNEL_UPDATE = 10,  /* struct tc_consumer_kernel_update [+ memfd] */
	/* struct tc_consumer_session_ref -> the reply's KERNEL_STATS figures */
	TC_CONSUMER_KERNEL_STATS = 11,
	TC_CONSUMER_ROTATE = 12,         /* struct tc_consumer_rotate */
	TC_CONSUMER_CLEAR = 13,          /* struct tc_consumer_session_ref */
	TC_CONSUMER_CHUNK_SIZE = 14,     /* struct tc_consumer_session_ref */
	TC_CONSUMER_RELAY_STATUS = 15,   /* struct tc_consumer_session_ref */
	TC_CONSUMER_KERNEL_OWN = 18,     /* struct tc_consumer_kernel_own + ring fd */
	TC_CONSUMER_SNAPSHOT_RELAY = 19, /* struct tc_consumer_snapshot_relay */
	TC_CONSUMER_RELAY_ROTATE = 20,   /* struct tc_consumer_relay_rotate */
	TC_CONSUMER_SESSION_FILES = 21,  /* struct tc_consumer_session_files */
	TC_CONSUMER_LTTNG_CHANNEL = 23,  /* struct tc_consumer_lttng_channel */
	/* A snapshot session's kernel trace (its flight recorder), written
	 * into dir as TC_CONSUMER_SNAPSHOT writes the user-space trace */
	TC_CONSUMER_KERNEL_SNAPSHOT = 25, /* struct tc_consumer_snapshot */
	/* the same sent to a relay, as TC_CONSUMER_SNAPSHOT_RELAY */
	TC_CONSUMER_KERNEL_SNAPSHOT_RELAY = 26, /* struct tc_consumer_snapshot_relay */
	/* consumer -> service */
	TC_CONSUMER_STREAM = 16, /* struct tc_consumer_stream + 1 memfd */
	TC_CONSUMER_REPLY = 17,  /* struct tc_consumer_reply */
	TC_CONSUMER_SESSION_FILE = 22, /* struct tc_consumer_session_file + bytes */
	/* struct tc_consumer_lttng_channel_data + bytes + 1 fd */
	TC_CONSUMER_LTTNG_CHANNEL_DATA = 24,
};

struct tc_consumer_header {
	uint32_t magic;
	uint32_t type; /* enum tc_consumer_msg_type */
	uint32_t size; /* whole message, header included */
	/* Chosen by the service, never 0 in a request; copied by the
	 * consumer into every message that answers it. */
	uint32_t request_id;
};

/* Creates trace_dir (and missing parents, mode 0700) and an empty
 * "metadata" file in it, mode 0600. The directory must not exist yet or
 * be empty. */
/* Snapshot sessions: nothing is created at trace_dir and nothing is
 * written while tracing; TC_CONSUMER_SNAPSHOT writes the buffers out. The
 * metadata is kept in memory until then. */
#define TC_CONSUMER_SESSION_SNAPSHOT 0x1u

/*
 * Streaming to an LTTng relay daemon (lttng-relayd, LTTng 2.13's relay
 * protocol) instead of writing locally. The consumer, with the owner's
 * rights, resolves host and opens the control and data connections; the
 * service never opens a socket on a user's behalf. With this flag
 * trace_dir is the trace's path relative to the session's trace root
 * (e.g. "ust/uid/1000/64-bit"), which is where the relay files it under
 * <relay output>/<hostname>/<session_name>-<creation time>/; nothing is
 * written on the traced machine. A snapshot session with a relay stays
 * in memory and connects to nothing: the service sends each of its
 * snapshots with TC_CONSUMER_SNAPSHOT_RELAY.
 */
#define TC_CONSUMER_SESSION_RELAY 0x2u
#define TC_CONSUMER_HOST_MAX 256u

/* The session's creation does not wait for the relay: its first
 * connection is made in the background, packets held meanwhile; a relay
 * it does not reach is down as after a loss (packets dropped and counted
 * from then on). For sessions loaded at the service's start, which must
 * come up whether the relay does or not. */
#define TC_CONSUMER_RELAY_CONNECT_LATER 0x1u
/*
 * The relay is reached through an SSH tunnel (net+ssh://): host is the
 * SSH server, which the owner's ssh resolves and authenticates with the
 * owner's configuration and keys, ssh_user the login there (empty: the
 * configuration's) and ssh_port its port (0: the configuration's). The
 * consumer runs ssh with two forwards from Unix sockets of a private
 * directory of its own to control_port and data_port on the far side's
 * 127.0.0.1, where lttng-relayd listens, and speaks the relay protocol
 * through them (tc-consumerd-tunnel.h). host and ssh_user keep to the
 * alphabets of tc-ssh-names.h; family is AF_UNSPEC.
 */
#define TC_CONSUMER_RELAY_SSH 0x2u
#define TC_CONSUMER_SSH_USER_MAX 64u

struct tc_consumer_relay_output {
	char host[TC_CONSUMER_HOST_MAX]; /* name or numeric address, NUL-terminated */
	uint32_t family;                 /* AF_INET, AF_INET6, or AF_UNSPEC: either */
	uint16_t control_port;           /* lttng-relayd's default: 5342 */
	uint16_t data_port;              /* default: 5343 */
	uint32_t live_timer_us;          /* 0: not live; else TC_CONSUMER_TIMER_* bounds */
	uint32_t flags;                  /* TC_CONSUMER_RELAY_* */
	int64_t creation_time; /* Unix seconds: names the relay's directory */
	/* the traced machine as the relay files it and viewers find it */
	char hostname[TC_CONSUMER_NAME_MAX];
	char session_name[TC_CONSUMER_NAME_MAX];
	/* The tracing session as the relay knows it (LTTng's session daemon
	 * uuid and session id): every per-user trace of one tracing session
	 * gives the same, so the relay shares their trace chunks and one
	 * rotation spans them all. A nil uuid: the consumer picks one. */
	uint8_t sessiond_uuid[16];
	uint64_t sessiond_session_id;
	/* The session's current trace chunk on the relay, which a trace
	 * started after a rotation joins: its id (0: the first) and when it
	 * began (Unix seconds; 0: creation_time). */
	uint64_t chunk_id;
	int64_t chunk_created;
	/* With TC_CONSUMER_RELAY_SSH: the login, NUL-terminated (empty: the
	 * owner's ssh configuration decides), and the SSH server's port (0:
	 * idem). */
	char ssh_user[TC_CONSUMER_SSH_USER_MAX];
	uint16_t ssh_port;
	uint16_t reserved16;
	uint32_t reserved32;
};

struct tc_consumer_session {
	struct tc_consumer_header header;
	uint64_t session_id;
	uint32_t flags; /* TC_CONSUMER_SESSION_* */
	uint32_t reserved;
	char trace_dir[TC_CONSUMER_PATH_MAX]; /* absolute, NUL-terminated */
	struct tc_consumer_relay_output relay; /* with TC_CONSUMER_SESSION_RELAY */
};

/* Writes the metadata and what every buffer of the session holds now into
 * dir (created, 0700), one file per stream: the newest packets of each,
 * at most max_stream_bytes of them (0: all). Tracing goes on. */
struct tc_consumer_snapshot {
	struct tc_consumer_header header;
	uint64_t session_id;
	uint64_t max_stream_bytes;
	/* absolute, NUL-terminated; relative ("snapshot-<n>-<date>/ust/...")
	 * with TC_CONSUMER_SESSION_RELAY */
	char dir[TC_CONSUMER_PATH_MAX];
};

/*
 * A snapshot sent to an LTTng relay daemon instead of written locally:
 * the consumer, with the owner's rights, opens a relay session named by
 * relay (not live), adds the metadata and one stream per buffer under
 * trace_path (relative to the relay's session directory, e.g.
 * "<name>-<date>-<n>/ust/uid/1000/64-bit"), sends what the buffers hold
 * now as TC_CONSUMER_SNAPSHOT would write it, closes the streams and ends
 * the relay session. Tracing goes on; the reply's packets_written counts
 * the packets sent.
 */
struct tc_consumer_snapshot_relay {
	struct tc_consumer_header header;
	uint64_t session_id;
	uint64_t max_stream_bytes;
	struct tc_consumer_relay_output relay;
	char trace_path[TC_CONSUMER_PATH_MAX]; /* relative, NUL-terminated */
};

/*
 * Rotation: closes the session's current trace chunk and starts the next.
 * Every stream is flushed as at a stop (the sub-buffers being filled are
 * closed, everything reserved before is written out), then the session's
 * directories under from_root (its user-space trace directory when it has
 * channels, and its kernel trace directory) are renamed to the same place
 * under to_root, which the consumer creates (0700, with missing parents;
 * an existing entry is never replaced). Then new directories are made
 * where the old ones were, with new, empty stream files and a copy of the
 * whole metadata so far. Every packet is thus in exactly one chunk, and
 * each chunk is a complete trace. Not for snapshot or relay sessions.
 * The reply's bytes_used is the size of the archived chunk's packets.
 */
struct tc_consumer_rotate {
	struct tc_consumer_header header;
	uint64_t session_id;
	char from_root[TC_CONSUMER_PATH_MAX]; /* absolute, NUL-terminated */
	char to_root[TC_CONSUMER_PATH_MAX];   /* absolute, NUL-terminated */
};

/*
 * TC_CONSUMER_RELAY_ROTATE: rotation, or clear, of a session streamed to
 * an LTTng relay daemon, which keeps the trace chunks: the session is
 * flushed as for TC_CONSUMER_ROTATE, then the relay makes a new chunk,
 * moves every stream to it after its last packet sent, and closes the old
 * chunk with close_command (TC_CONSUMER_RELAY_CHUNK_*): moved into the
 * relay's archives/<begin>-<end>-<n>/, or deleted (clear). The reply's
 * message is the closed chunk's path as the relay names it (truncated to
 * the field), bytes_used the packet bytes it held.
 */
#define TC_CONSUMER_RELAY_CHUNK_ARCHIVE 0u /* lttng: MOVE_TO_COMPLETED */
#define TC_CONSUMER_RELAY_CHUNK_DELETE 2u  /* lttng: DELETE */
/* The traces of one tracing session share trace chunks on the relay:
 * each begins the new chunk (BEGIN) before any closes the old (CLOSE), and
 * only the last close waits until the relay let the old chunk go (the
 * others: NO_WAIT). 0: one trace, both steps. */
#define TC_CONSUMER_RELAY_ROTATE_BEGIN 1u
#define TC_CONSUMER_RELAY_ROTATE_CLOSE 2u
#define TC_CONSUMER_RELAY_ROTATE_NO_WAIT 4u
struct tc_consumer_relay_rotate {
	struct tc_consumer_header header;
	uint64_t session_id;
	uint32_t close_command;
	uint32_t flags; /* TC_CONSUMER_RELAY_ROTATE_* */
	/* Unix seconds of the cut, the same for every trace of the tracing
	 * session (the relay names the archive by it); 0: now. */
	int64_t timestamp;
};

/*
 * TC_CONSUMER_CLEAR drops what the session recorded so far: the stream
 * files of the current chunk are flushed then cut to nothing (the
 * metadata stays), and in snapshot sessions the buffers' contents are
 * released unread. Recording goes on.
 * TC_CONSUMER_CHUNK_SIZE: the reply's bytes_used is the number of bytes
 * of packets written into the current chunk (stream files, user space and
 * kernel; not the metadata), the figure a size-based rotation schedule
 * watches, as LTTng's counts the flushed part of the chunk.
 */

struct tc_consumer_channel_ref {
	struct tc_consumer_header header;
	uint64_t session_id;
	uint64_t channel_id;
};

struct tc_consumer_session_ref {
	struct tc_consumer_header header;
	uint64_t session_id;
};

/* Creates one buffer per CPU (0..nr_cpus-1), each in its own memfd, and
 * one stream file "<name>_<cpu>" per buffer in the session's trace_dir.
 * The reply carries nr_cpus TC_CONSUMER_STREAM messages, in CPU order. */
#define TC_CONSUMER_CHANNEL_CLOCK_TSC 0x2u /* timestamps: the x86 TSC */
/* Every writer of these buffers runs as the consumer's own uid (the
 * service hands them only to applications of the session owner's uid):
 * a discard-mode stream may then be checked and sent in place, without a
 * private copy (docs/security.md, "Packets checked in place"). Set by the
 * service from the uid it keys the buffers by, never from an application. */
#define TC_CONSUMER_CHANNEL_OWNER_WRITERS 0x4u
#define TC_CONSUMER_CHANNEL_FLAGS (TC_CONSUMER_CHANNEL_CLOCK_TSC | TC_CONSUMER_CHANNEL_OWNER_WRITERS)
/* Timers, in microseconds, 0 = off, else within these bounds. */
#define TC_CONSUMER_TIMER_MIN_US 1000u
#define TC_CONSUMER_TIMER_MAX_US 3600000000u

/*
 * What a channel's buffers are made of, fixed once the channel exists:
 * the one definition that the service keeps (TcChannelConfig), sends and
 * the consumer builds its buffers from.
 */
struct tc_channel_geometry {
	uint32_t subbuf_size;      /* bytes, a power of two */
	uint32_t num_subbuf;       /* a power of two */
	uint32_t overwrite;        /* 0, or 1: flight recorder, the newest data wins */
	uint32_t switch_timer_us;  /* close partly filled sub-buffers this often */
	uint32_t read_timer_us;    /* collect full sub-buffers this often */
	uint32_t monitor_timer_us; /* sample buffer usage this often */
};

struct tc_consumer_channel {
	struct tc_consumer_header header;
	uint64_t session_id;
	uint64_t channel_id;
	uint32_t stream_id;
	uint32_t nr_cpus;
	struct tc_channel_geometry geometry;
	uint32_t flags; /* TC_CONSUMER_CHANNEL_* */
	uint8_t uuid[16];
	char name[TC_CONSUMER_NAME_MAX];
};

/* Appends size - sizeof(struct tc_consumer_metadata) bytes of TSDL text to
 * the session's metadata file. */
struct tc_consumer_metadata {
	struct tc_consumer_header header;
	uint64_t session_id;
	/* text follows */
};

/*
 * How the records of one event class are laid out, so that the consumer
 * can walk every packet before writing it and drop one that an
 * application scribbled on (babeltrace2 would stop at its first bad
 * record). A record: the event header, context_size bytes, then the
 * fields, packed: TC_CONSUMER_FIELD_* or a fixed size in bytes (1..8:
 * integers, float, double, and enumerations, which are their container;
 * tracectl_abi_field_fixed_size() of tracectl-abi.h).
 * sizes[i] is 0 but for an array (its bytes, 1 to
 * TC_CONSUMER_FIELD_ARRAY_MAX) and a sequence (its element's bytes: 1, 2,
 * 4 or 8).
 */
#define TC_CONSUMER_LAYOUT_FIELDS_MAX 32u
#define TC_CONSUMER_EVENT_ID_MAX 65535u
#define TC_CONSUMER_FIELD_STRING 0xffu /* NUL-terminated */
#define TC_CONSUMER_FIELD_BYTES 0xfeu  /* uint32_t length, then the bytes */
#define TC_CONSUMER_FIELD_ARRAY 0xfdu  /* sizes[i] bytes */
/* uint32_t length, then that many elements of sizes[i] bytes */
#define TC_CONSUMER_FIELD_SEQUENCE 0xfcu
#define TC_CONSUMER_FIELD_ARRAY_MAX (65536u * 8u)

struct tc_consumer_event_layout {
	struct tc_consumer_header header;
	uint64_t session_id;
	uint32_t stream_id;
	uint32_t event_id; /* <= TC_CONSUMER_EVENT_ID_MAX */
	uint32_t context_size;
	uint32_t nr_fields; /* <= TC_CONSUMER_LAYOUT_FIELDS_MAX */
	uint8_t fields[TC_CONSUMER_LAYOUT_FIELDS_MAX];
	uint32_t sizes[TC_CONSUMER_LAYOUT_FIELDS_MAX];
};

/*
 * The kernel trace of a session, written into dir: comes with nr_cpus
 * trace_pipe_raw descriptors (CPU order), with TC_CONSUMER_KSTATS nr_cpus
 * per_cpu stats descriptors (CPU order), then the helper's formats memfd
 * (then saved_tgids, see below).
 * The consumer reads them on its read timer, when the kernel wakes it,
 * and at flushes.
 */
#define TC_CONSUMER_KERNEL_CPUS_MAX 251u
/* Stats descriptors come with at most this many CPUs (a message carries
 * at most 253 descriptors); beyond, losses in full pages count as one. */
#define TC_CONSUMER_KERNEL_STATS_CPUS_MAX 125u

/* Context fields of every kernel event (the stream's event context, in
 * this order), and events the service enabled only to compute them: the
 * consumer follows them but leaves them out of the trace unless the user
 * enabled them too. With TC_CONSUMER_KCTX_PID, the descriptors end with
 * the kernel's saved_tgids, after the formats. */
#define TC_CONSUMER_KCTX_PID 0x1u      /* int32, the thread group id */
#define TC_CONSUMER_KCTX_TID 0x2u      /* int32 */
#define TC_CONSUMER_KCTX_PROCNAME 0x4u /* string, the comm */
#define TC_CONSUMER_KCTX_PRIO 0x8u     /* int32, prio - 100 as in /proc */
#define TC_CONSUMER_KCTX_ALL 0xfu
#define TC_CONSUMER_KHIDE_SCHED_SWITCH 0x100u
#define TC_CONSUMER_KHIDE_WAKEUP_NEW 0x200u  /* sched:sched_wakeup_new */
#define TC_CONSUMER_KHIDE_TASK_RENAME 0x400u /* task:task_rename */
#define TC_CONSUMER_KHIDE_TASK_NEWTASK 0x800u /* task:task_newtask */
#define TC_CONSUMER_KHIDE_ALL 0xf00u
/* The per_cpu stats descriptors come after the CPU buffers: the consumer
 * counts lost events from the kernel's overrun and dropped counters. */
#define TC_CONSUMER_KSTATS 0x10000u

/* A session's trace clock as its CTF metadata declares it: CLOCK_MONOTONIC
 * in ns, or the x86 TSC (the kernel's trace_clock x86-tsc). */
struct tc_consumer_clock {
	uint64_t freq;         /* ticks per second, 1 MHz to 100 GHz */
	int64_t offset_s;      /* Unix time at tick 0: seconds, */
	uint64_t offset_ticks; /* plus ticks, below freq */
	uint32_t tsc;          /* 1: the TSC, 0: CLOCK_MONOTONIC */
	uint32_t pad;          /* 0 */
};

#define TC_CONSUMER_CLOCK_FREQ_MIN 1000000ull
#define TC_CONSUMER_CLOCK_FREQ_MAX 100000000000ull

struct tc_consumer_kernel_trace {
	struct tc_consumer_header header;
	uint64_t session_id;
	uint32_t nr_cpus;
	uint32_t flags; /* TC_CONSUMER_KCTX_* | TC_CONSUMER_KHIDE_* */
	struct tc_consumer_clock clock;
	uint8_t uuid[16];
	/* A snapshot session's (TC_CONSUMER_SESSION_SNAPSHOT) kernel channel
	 * geometry, both 0 in other sessions: the consumer reads the kernel's
	 * overwrite-mode buffers as in other sessions, keeps the newest
	 * flight_num_subbuf packets of at most flight_subbuf_size bytes per
	 * CPU (TC_CONSUMER_KERNEL_FLIGHT_*), and writes dir only through
	 * TC_CONSUMER_KERNEL_SNAPSHOT(_RELAY). */
	uint32_t flight_subbuf_size;
	uint32_t flight_num_subbuf;
	/* absolute; relative ("kernel") when the session was created with
	 * TC_CONSUMER_SESSION_RELAY */
	char dir[TC_CONSUMER_PATH_MAX];
};

#define TC_CONSUMER_KERNEL_FLIGHT_SUBBUF_MIN 4096u
#define TC_CONSUMER_KERNEL_FLIGHT_SUBBUF_MAX (256u << 20)
#define TC_CONSUMER_KERNEL_FLIGHT_BYTES_MAX (4ull << 30) /* per CPU */

/* Events are about to be enabled in a running kernel trace: their
 * formats (the helper's memfd, optional) and the new hide flags. */
struct tc_consumer_kernel_update {
	struct tc_consumer_header header;
	uint64_t session_id;
	uint32_t flags; /* TC_CONSUMER_KHIDE_*; context bits are ignored */
	uint32_t reserved;
};

/* The own-process kernel tier's ring buffer (tc-kernel-own.h), a BPF
 * ring buffer map whose data the kernel maps read-only: written into dir,
 * a trace of its own. A second message for the same session (a restart)
 * replaces the ring buffer and appends to the same trace. */
struct tc_consumer_kernel_own {
	struct tc_consumer_header header;
	uint64_t session_id;
	uint8_t uuid[16];
	char dir[TC_CONSUMER_PATH_MAX];
};

/*
 * TC_CONSUMER_SESSION_FILES: the user's own session files, read by the
 * consumer with its user's rights so that the service never reads a
 * home. home is the user's home as the password database gives it to
 * the service (never the consumer's environment), absolute. The consumer
 * opens it, then each component of TC_CONSUMER_SESSION_FILES_DIR, with
 * O_DIRECTORY | O_NOFOLLOW relative to the one before; each must be owned
 * by the consumer's uid and writable by no one else. It lists the names
 * ending in ".lttng" (not starting with '.'), sorted by strcmp(), the
 * first max_files of them, and opens each with O_NOFOLLOW: a regular
 * file of its uid, writable by no one else, of at most max_file_bytes.
 *
 * The answer: per listed name, in order, TC_CONSUMER_SESSION_FILE
 * messages: the file's bytes in chunks of at most
 * TC_CONSUMER_SESSION_FILE_CHUNK_MAX, offsets from 0 up to size (one
 * message with no bytes for an empty file), or one refusal (status < 0,
 * the reason for a person as NUL-terminated text after the struct); then
 * the REPLY: status 0 (also when a component does not exist: the user
 * has no such directory, and no file is sent), or -errno with the reason
 * in message when a component is refused. The service checks every field of every
 * message (the consumer is the user's) and parses the bytes as hostile.
 * A consumer without this request answers -EOPNOTSUPP.
 */
#define TC_CONSUMER_SESSION_FILES_DIR ".config/tracectl/sessions"
#define TC_CONSUMER_SESSION_FILES_MAX 64u
#define TC_CONSUMER_SESSION_FILE_BYTES_MAX (1024u * 1024u)
struct tc_consumer_session_files {
	struct tc_consumer_header header;
	uint32_t max_files;      /* 1..TC_CONSUMER_SESSION_FILES_MAX */
	uint32_t max_file_bytes; /* 1..TC_CONSUMER_SESSION_FILE_BYTES_MAX */
	char home[TC_CONSUMER_PATH_MAX]; /* absolute, NUL-terminated */
};

struct tc_consumer_session_file {
	struct tc_consumer_header header;
	uint32_t index;  /* the name's rank in the listing, from 0 */
	int32_t status;  /* 0: bytes follow; < 0: refused, the reason follows */
	uint64_t size;   /* the whole file's bytes, <= max_file_bytes */
	uint64_t offset; /* of the bytes that follow in the file */
	char name[TC_CONSUMER_NAME_MAX]; /* NUL-terminated, no '/' */
};
#define TC_CONSUMER_SESSION_FILE_CHUNK_MAX \
	(TC_CONSUMER_MSG_MAX - (uint32_t)sizeof(struct tc_consumer_session_file))

struct tc_consumer_stream {
	struct tc_consumer_header header;
	uint64_t channel_id;
	uint32_t cpu;
	uint32_t reserved;
	uint64_t shm_size;
};

/*
 * An LTTng-UST channel (per-UID buffers of LTTng-UST 2.13 applications):
 * the consumer creates its ring buffers with liblttng-ust-ctl, one stream
 * per possible CPU, each in a memfd of its own, and one stream file
 * "<name>_<n>" per stream in the session's trace_dir. It answers with one
 * TC_CONSUMER_LTTNG_CHANNEL_DATA (the channel's object data, which the
 * service hands to applications as is, and the channel's wake-up
 * descriptor), then nr_streams TC_CONSUMER_STREAM messages in stream
 * order, each with the stream's shm descriptor then its wake-up
 * descriptor and shm_size the size the application maps; then the reply.
 * chan_id is the CTF stream class id that the buffers write into every
 * packet header; the geometry's monitor timer is not used.
 */
struct tc_consumer_lttng_channel {
	struct tc_consumer_header header;
	uint64_t session_id;
	uint64_t channel_id;
	uint32_t chan_id;
	uint32_t reserved;
	struct tc_channel_geometry geometry;
	uint8_t uuid[16];
	char name[TC_CONSUMER_NAME_MAX];
};

/* What liblttng-ust-ctl serializes of a channel for the application; the
 * consumer's side of LTTng's "channel data" is at most this long. */
#define TC_CONSUMER_LTTNG_CHANNEL_DATA_MAX 4096u
struct tc_consumer_lttng_channel_data {
	struct tc_consumer_header header;
	uint64_t channel_id;
	uint32_t nr_streams;
	int32_t chan_type; /* enum lttng_ust_abi_chan_type */
	/* size - sizeof(this) bytes of channel data follow */
};

struct tc_consumer_reply {
	struct tc_consumer_header header;
	int32_t status; /* 0 or a negative errno */
	uint32_t reserved;
	/* FLUSH/DESTROY: totals over the session, for status and logs. */
	uint64_t packets_written;
	uint64_t packets_corrupted;
	/* CHANNEL_STATS: summed over the channel's CPUs. KERNEL_STATS: the
	 * same over the kernel buffers' CPUs, from the kernel's per_cpu stats
	 * files read now (exact: "overrun" plus "dropped events", and "bytes"
	 * not read yet as bytes_used), with buffer_bytes and bytes_used_peak
	 * 0 (the service knows the size, the kernel keeps no peak). */
	uint64_t buffer_bytes;
	uint64_t bytes_used;      /* at the last monitor sample; ROTATE, CHUNK_SIZE: see there */
	uint64_t bytes_used_peak; /* highest sampled */
	uint64_t events_discarded;
	char message[TC_CONSUMER_ERROR_MAX]; /* for a person, when status < 0 */
	/* RELAY_STATUS of a streaming session (-EINVAL for others): whether
	 * the relay is connected now, the packets dropped because it was
	 * not, since when, the errno of why it was last lost or not reached
	 * (0: never), and message holds the relay's URL. relay_reason: why,
	 * in the words of the program that carries the connection where
	 * there is one (ssh's last line, "ssh: Permission denied
	 * (publickey)."), NUL-terminated; empty when the errno says it all. */
	uint32_t relay_connected;
	uint32_t relay_errno;
	uint64_t relay_lost_packets;
	int64_t relay_lost_since; /* Unix seconds the relay was first lost; 0: never */
	char relay_reason[TC_CONSUMER_ERROR_MAX];
};

static_assert(sizeof(struct tc_consumer_session) <= TC_CONSUMER_MSG_MAX, "message too big");
static_assert(sizeof(struct tc_consumer_rotate) <= TC_CONSUMER_MSG_MAX, "message too big");
static_assert(sizeof(struct tc_consumer_snapshot_relay) <= TC_CONSUMER_MSG_MAX,
	      "message too big");
static_assert(sizeof(struct tc_consumer_session_files) <= TC_CONSUMER_MSG_MAX,
	      "message too big");

#endif /* TC_CONSUMER_ABI_H */
