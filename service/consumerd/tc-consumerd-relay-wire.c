/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-consumerd-relay-wire.h"

#include <endian.h>
#include <errno.h>
#include <string.h>

int
tc_consumerd_relay_wire_parse_create_session_reply(const void *buf, size_t len,
						   struct tc_relay_create_session_reply *reply)
{
	if (len < sizeof(*reply))
		return -EBADMSG;
	memcpy(reply, buf, sizeof(*reply));
	reply->session_id = be64toh(reply->session_id);
	reply->ret_code = be32toh(reply->ret_code);
	reply->output_path_length = be32toh(reply->output_path_length);
	if (reply->ret_code != TC_RELAY_LTTNG_OK)
		return -EPROTO;
	if (reply->output_path_length == 0 || reply->output_path_length > TC_RELAY_PATH_MAX)
		return -EBADMSG;
	return 0;
}

int
tc_consumerd_relay_wire_parse_close_chunk_reply(const void *buf, size_t len,
						struct tc_relay_close_trace_chunk_reply *reply)
{
	if (len < sizeof(*reply))
		return -EBADMSG;
	memcpy(reply, buf, sizeof(*reply));
	reply->ret_code = be32toh(reply->ret_code);
	reply->path_length = be32toh(reply->path_length);
	if (reply->ret_code != TC_RELAY_LTTNG_OK)
		return -EPROTO;
	if (reply->path_length == 0 || reply->path_length > TC_RELAY_PATH_MAX)
		return -EBADMSG;
	return 0;
}

int
tc_consumerd_relay_wire_check_output_path(const char *path, size_t length)
{
	if (length == 0 || length > TC_RELAY_PATH_MAX)
		return -EBADMSG;
	return memchr(path, '\0', length) == path + length - 1 ? 0 : -EBADMSG;
}

int
tc_consumerd_relay_wire_parse_version(const void *buf, size_t len, uint32_t *minor)
{
	struct tc_relay_version version;

	if (len != sizeof(version))
		return -EPROTONOSUPPORT;
	memcpy(&version, buf, sizeof(version));
	version.major = be32toh(version.major);
	version.minor = be32toh(version.minor);
	if (version.major != TC_RELAY_PROTO_MAJOR || version.minor < TC_RELAY_PROTO_MINOR_MIN)
		return -EPROTONOSUPPORT;
	*minor = version.minor < TC_RELAY_PROTO_MINOR ? version.minor : TC_RELAY_PROTO_MINOR;
	return 0;
}

/* Appends a string with its NUL at *offset. */
static int
put_string(void *buf, size_t size, size_t *offset, const char *string, size_t len)
{
	if (*offset + len + 1 > size)
		return -ENOBUFS;
	memcpy((char *)buf + *offset, string, len + 1);
	*offset += len + 1;
	return 0;
}

int
tc_consumerd_relay_wire_encode_create_session(void *buf, size_t size, const char *session_name,
					      const char *hostname, uint32_t live_timer_us,
					      const uint8_t uuid[16], uint64_t session_id,
					      uint64_t creation_time)
{
	size_t name_len = strlen(session_name), host_len = strlen(hostname);
	struct tc_relay_create_session msg = {0};
	size_t offset = sizeof(msg);
	int ret;

	if (name_len == 0 || name_len + 1 > TC_RELAY_NAME_MAX || host_len == 0 ||
	    host_len + 1 > TC_RELAY_HOST_NAME_MAX)
		return -ENAMETOOLONG;
	if (size < sizeof(msg))
		return -ENOBUFS;
	msg.session_name_len = htobe32((uint32_t)name_len + 1);
	msg.hostname_len = htobe32((uint32_t)host_len + 1);
	msg.base_path_len = 0;
	msg.live_timer = htobe32(live_timer_us);
	memcpy(msg.sessiond_uuid, uuid, sizeof(msg.sessiond_uuid));
	msg.session_id = htobe64(session_id);
	msg.creation_time = htobe64(creation_time);
	memcpy(buf, &msg, sizeof(msg));
	ret = put_string(buf, size, &offset, session_name, name_len);
	if (ret == 0)
		ret = put_string(buf, size, &offset, hostname, host_len);
	return ret < 0 ? ret : (int)offset;
}

int
tc_consumerd_relay_wire_encode_add_stream(void *buf, size_t size, const char *file_name,
					  const char *path, uint64_t chunk_id)
{
	size_t name_len = strlen(file_name), path_len = strlen(path);
	struct tc_relay_add_stream msg = {0};
	size_t offset = sizeof(msg);
	int ret;

	if (name_len == 0 || name_len + 1 > TC_RELAY_STREAM_NAME_MAX ||
	    path_len + 1 > TC_RELAY_NAME_MAX)
		return -ENAMETOOLONG;
	if (size < sizeof(msg))
		return -ENOBUFS;
	msg.channel_name_len = htobe32((uint32_t)name_len + 1);
	msg.pathname_len = htobe32((uint32_t)path_len + 1);
	msg.trace_chunk_id = htobe64(chunk_id);
	memcpy(buf, &msg, sizeof(msg));
	ret = put_string(buf, size, &offset, file_name, name_len);
	if (ret == 0)
		ret = put_string(buf, size, &offset, path, path_len);
	return ret < 0 ? ret : (int)offset;
}

static int
hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
tc_consumerd_relay_wire_metadata_uuid(const char *text, size_t len, uint8_t uuid[16])
{
	static const char key[] = "uuid = \"";
	const char *p = memmem(text, len, key, sizeof(key) - 1);
	const char *end = text + len;
	int n = 0;

	if (!p)
		return -ENOENT;
	for (p += sizeof(key) - 1; p < end && *p != '"' && n < 32; p++) {
		int value = hex_value(*p);

		if (*p == '-')
			continue;
		if (value < 0)
			return -ENOENT;
		if (n % 2 == 0)
			uuid[n / 2] = (uint8_t)(value << 4);
		else
			uuid[n / 2] |= (uint8_t)value;
		n++;
	}
	return n == 32 ? 0 : -ENOENT;
}
