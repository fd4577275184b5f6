/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The subset of LTTng's relay protocol (lttng-relayd, protocol 2.11 and
 * later) that tracectl-consumerd speaks, written from reading
 * lttng-tools' relay daemon. Every integer on the wire is big-endian and
 * every structure packed.
 *
 * Two TCP connections per session:
 *   control  struct tc_relay_cmd_header + payload, one reply per command,
 *            replies in order (session, streams, metadata, indexes, close)
 *   data     struct tc_relay_data_header + packet bytes, no reply
 *
 * Replies are read back from a peer we do not control: every length in
 * them is checked against what we asked for before use
 * (tc_consumerd_relay_wire_parse_*()).
 */
#ifndef TC_CONSUMERD_RELAY_WIRE_H
#define TC_CONSUMERD_RELAY_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define TC_RELAY_PROTO_MAJOR 2u
#define TC_RELAY_PROTO_MINOR 13u
/* The 2.11 session, stream and trace chunk commands; indexes with packet
 * sequence numbers need 2.8. */
#define TC_RELAY_PROTO_MINOR_MIN 11u

/* lttng's enum lttng_error_code values found in replies. */
#define TC_RELAY_LTTNG_OK 10u

/* Limits of lttng-relayd 2.13 on what it accepts. */
#define TC_RELAY_NAME_MAX 255u	   /* session and stream path names */
#define TC_RELAY_HOST_NAME_MAX 64u /* hostname, with its NUL */
#define TC_RELAY_STREAM_NAME_MAX 264u
#define TC_RELAY_PATH_MAX 4096u

enum tc_relay_command {
	TC_RELAY_ADD_STREAM = 1,
	TC_RELAY_CREATE_SESSION = 2,
	TC_RELAY_VERSION = 5,
	TC_RELAY_SEND_METADATA = 6,
	TC_RELAY_CLOSE_STREAM = 7,
	TC_RELAY_DATA_PENDING = 8,
	TC_RELAY_BEGIN_DATA_PENDING = 10,
	TC_RELAY_END_DATA_PENDING = 11,
	TC_RELAY_SEND_INDEX = 13,
	TC_RELAY_STREAMS_SENT = 16,
	TC_RELAY_ROTATE_STREAMS = 18,
	TC_RELAY_CREATE_TRACE_CHUNK = 19,
	TC_RELAY_CLOSE_TRACE_CHUNK = 20,
	TC_RELAY_TRACE_CHUNK_EXISTS = 21,
	TC_RELAY_GET_CONFIGURATION = 22,
};

/* GET_CONFIGURATION: query_flags must be 0; the reply is a status and
 * the relay's flags. */
struct tc_relay_get_configuration {
	uint64_t query_flags;
} __attribute__((packed));

struct tc_relay_get_configuration_reply {
	uint32_t ret_code;
	uint64_t flags;
} __attribute__((packed));

#define TC_RELAY_CONFIGURATION_CLEAR_ALLOWED (1ull << 0) /* not --disallow-clear */

/* What the relay does with a trace chunk once closed (lttng's enum
 * lttng_trace_chunk_command_type). */
enum tc_relay_chunk_close_command {
	TC_RELAY_CHUNK_MOVE_TO_COMPLETED = 0, /* into archives/<begin>-<end>-<id>/ */
	TC_RELAY_CHUNK_NO_OPERATION = 1,
	TC_RELAY_CHUNK_DELETE = 2, /* clear: the chunk's files are removed */
};

struct tc_relay_cmd_header {
	uint64_t circuit_id;  /* unused, 0 */
	uint64_t data_size;   /* payload bytes after this header */
	uint32_t cmd;	      /* enum tc_relay_command */
	uint32_t cmd_version; /* 0 */
} __attribute__((packed));

struct tc_relay_data_header {
	uint64_t circuit_id;
	uint64_t stream_id;    /* the relay's handle of the stream */
	uint64_t net_seq_num;  /* per stream, from 0 */
	uint32_t data_size;    /* bytes after this header */
	uint32_t padding_size; /* zeros the relay appends after them */
} __attribute__((packed));

struct tc_relay_version {
	uint32_t major;
	uint32_t minor;
} __attribute__((packed));

/* CREATE_SESSION, 2.11 form: session name, hostname, base path follow,
 * each with its NUL. */
struct tc_relay_create_session {
	uint32_t session_name_len;
	uint32_t hostname_len;
	uint32_t base_path_len; /* 0: "<session>-<creation time>" */
	uint32_t live_timer;	/* us, 0 when not live */
	uint8_t snapshot;
	uint8_t session_name_contains_creation_time;
	uint8_t sessiond_uuid[16]; /* never nil */
	uint64_t session_id;
	uint64_t creation_time; /* Unix seconds */
	uint8_t current_chunk_id_is_set;
	uint64_t current_chunk_id;
} __attribute__((packed));

/* Reply: status, then output_path_length bytes of path (with its NUL). */
struct tc_relay_create_session_reply {
	uint64_t session_id;
	uint32_t ret_code;
	uint32_t output_path_length;
} __attribute__((packed));

struct tc_relay_create_trace_chunk {
	uint64_t chunk_id;
	uint64_t creation_timestamp;
	uint32_t override_name_length; /* 0: no name follows */
} __attribute__((packed));

/*
 * ROTATE_STREAMS: the streams move to chunk new_chunk_id, each at the
 * packet of sequence number rotate_at_seq_num (CTF packet_seq_num, the
 * first packet of the new chunk; ignored for metadata, which starts again
 * whole in the new chunk). The header is sent packed (13 bytes): the
 * relay tells the packed form from the padded ones by the payload size.
 */
struct tc_relay_rotate_streams {
	uint32_t stream_count;
	uint8_t new_chunk_id_is_set;
	uint64_t new_chunk_id;
} __attribute__((packed));

struct tc_relay_stream_rotation_position {
	uint64_t stream_id;
	uint64_t rotate_at_seq_num;
} __attribute__((packed));

struct tc_relay_close_trace_chunk {
	uint64_t chunk_id;
	uint64_t close_timestamp; /* Unix seconds */
	uint8_t close_command_is_set;
	uint32_t close_command; /* enum tc_relay_chunk_close_command */
} __attribute__((packed));

/* Reply: status, then path_length bytes of the closed chunk's path on
 * the relay (with its NUL) when the status is LTTNG_OK. */
struct tc_relay_close_trace_chunk_reply {
	uint32_t ret_code;
	uint32_t path_length;
} __attribute__((packed));

/* TRACE_CHUNK_EXISTS: whether the relay still holds a chunk. The relay
 * runs a chunk's close command when it lets go of the chunk, so a closed
 * chunk that no longer exists has been moved or deleted. */
struct tc_relay_trace_chunk_exists {
	uint64_t chunk_id;
} __attribute__((packed));

struct tc_relay_trace_chunk_exists_reply {
	uint32_t ret_code;
	uint8_t exists;
} __attribute__((packed));

/* ADD_STREAM, 2.11 form: channel (file) name and path name follow. */
struct tc_relay_add_stream {
	uint32_t channel_name_len;
	uint32_t pathname_len;
	uint64_t tracefile_size;  /* 0: one file */
	uint64_t tracefile_count; /* 0 */
	uint64_t trace_chunk_id;
} __attribute__((packed));

struct tc_relay_status_stream {
	uint64_t handle;
	uint32_t ret_code;
} __attribute__((packed));

struct tc_relay_generic_reply {
	uint32_t ret_code;
} __attribute__((packed));

struct tc_relay_metadata_payload {
	uint64_t stream_id;
	uint32_t padding_size;
} __attribute__((packed));

/* CLOSE_STREAM and DATA_PENDING. */
struct tc_relay_stream_seq {
	uint64_t stream_id;
	uint64_t last_net_seq_num; /* UINT64_MAX: nothing was sent */
} __attribute__((packed));

struct tc_relay_session_ref {
	uint64_t session_id;
} __attribute__((packed));

/* SEND_INDEX: one per data packet, sizes in bits. A live beacon has
 * packet_size 0 and timestamp_end the stream's current time: the stream
 * is idle, viewers may move past it. */
struct tc_relay_index {
	uint64_t relay_stream_id;
	uint64_t net_seq_num;
	uint64_t packet_size;
	uint64_t content_size;
	uint64_t timestamp_begin;
	uint64_t timestamp_end;
	uint64_t events_discarded;
	uint64_t stream_id; /* the CTF stream class id */
	uint64_t stream_instance_id;
	uint64_t packet_seq_num;
} __attribute__((packed));

/*
 * Metadata goes to the relay as CTF metadata packets, each a header and
 * TSDL text, as LTTng's tracers send it: babeltrace2's live reader takes
 * plain text only when every piece it fetches starts with the
 * "CTF 1.8" signature, which appended declarations do not. Native byte
 * order (readers tell it from the magic), no compression, no checksum.
 */
#define TC_CTF_METADATA_MAGIC 0x75D11D57u

struct tc_ctf_metadata_packet_header {
	uint32_t magic;
	uint8_t uuid[16]; /* the trace's */
	uint32_t checksum;
	uint32_t content_size; /* bits, header included */
	uint32_t packet_size;  /* bits */
	uint8_t compression_scheme;
	uint8_t encryption_scheme;
	uint8_t checksum_scheme;
	uint8_t major;
	uint8_t minor;
} __attribute__((packed));

/* The trace UUID declared in TSDL text ('uuid = "…"' of the trace block),
 * into uuid. Returns 0, or -ENOENT when text (len bytes) has none. */
int tc_consumerd_relay_wire_metadata_uuid(const char *text, size_t len, uint8_t uuid[16]);

/*
 * Checks the fixed part of a CREATE_SESSION reply (host order in *reply)
 * and the path length it announces. Returns 0, -EPROTO when the relay
 * refused (ret_code not LTTNG_OK), or -EBADMSG when the length is 0 or
 * above TC_RELAY_PATH_MAX.
 */
int tc_consumerd_relay_wire_parse_create_session_reply(const void *buf, size_t len,
						       struct tc_relay_create_session_reply *reply);

/*
 * Checks a CLOSE_TRACE_CHUNK reply's fixed part (host order in *reply).
 * Returns 0, -EPROTO when the relay refused, or -EBADMSG when the path
 * length is 0 or above TC_RELAY_PATH_MAX. The path is then checked with
 * tc_consumerd_relay_wire_check_output_path().
 */
int tc_consumerd_relay_wire_parse_close_chunk_reply(const void *buf, size_t len,
						    struct tc_relay_close_trace_chunk_reply *reply);

/* Checks the path that follows: length bytes ending with their only NUL.
 * Returns 0 or -EBADMSG. */
int tc_consumerd_relay_wire_check_output_path(const char *path, size_t length);

/* Checks a VERSION reply: same major, and a minor we can speak. *minor
 * receives the minor to use (the lower of both). Returns 0 or
 * -EPROTONOSUPPORT. */
int tc_consumerd_relay_wire_parse_version(const void *buf, size_t len, uint32_t *minor);

/* Encodes a CREATE_SESSION payload into buf (size bytes). Returns its
 * length, or -ENAMETOOLONG when a name is empty or beyond the relay's
 * limits, or -ENOBUFS. */
int tc_consumerd_relay_wire_encode_create_session(void *buf, size_t size, const char *session_name,
						  const char *hostname, uint32_t live_timer_us,
						  const uint8_t uuid[16], uint64_t session_id,
						  uint64_t creation_time);

/* Encodes an ADD_STREAM payload. Returns its length, -ENAMETOOLONG or
 * -ENOBUFS. */
int tc_consumerd_relay_wire_encode_add_stream(void *buf, size_t size, const char *file_name,
					      const char *path, uint64_t chunk_id);

#endif /* TC_CONSUMERD_RELAY_WIRE_H */
