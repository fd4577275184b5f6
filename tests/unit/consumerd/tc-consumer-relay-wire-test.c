/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The relay protocol's encoders and the checks of what a relay answers
 * (tc-consumerd-relay-wire.c): hand-made replies at and past every limit, then
 * random bytes, which must only ever be refused.
 */
#include <glib.h>
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "tc-consumerd-relay-wire.h"

static void
make_reply(uint8_t *buf, uint32_t ret_code, uint32_t path_length)
{
	struct tc_relay_create_session_reply reply = {
	    .session_id = htobe64(7),
	    .ret_code = htobe32(ret_code),
	    .output_path_length = htobe32(path_length),
	};

	memcpy(buf, &reply, sizeof(reply));
}

static void
test_create_session_reply(void)
{
	struct tc_relay_create_session_reply parsed;
	uint8_t buf[sizeof(parsed)];

	make_reply(buf, TC_RELAY_LTTNG_OK, 12);
	g_assert_cmpint(
	    tc_consumerd_relay_wire_parse_create_session_reply(buf, sizeof(buf), &parsed), ==, 0);
	g_assert_cmpuint(parsed.session_id, ==, 7);
	g_assert_cmpuint(parsed.output_path_length, ==, 12);
	g_assert_cmpint(
	    tc_consumerd_relay_wire_parse_create_session_reply(buf, sizeof(buf) - 1, &parsed), ==,
	    -EBADMSG);
	make_reply(buf, TC_RELAY_LTTNG_OK + 1, 12);
	g_assert_cmpint(
	    tc_consumerd_relay_wire_parse_create_session_reply(buf, sizeof(buf), &parsed), ==,
	    -EPROTO);
	make_reply(buf, TC_RELAY_LTTNG_OK, 0);
	g_assert_cmpint(
	    tc_consumerd_relay_wire_parse_create_session_reply(buf, sizeof(buf), &parsed), ==,
	    -EBADMSG);
	make_reply(buf, TC_RELAY_LTTNG_OK, TC_RELAY_PATH_MAX);
	g_assert_cmpint(
	    tc_consumerd_relay_wire_parse_create_session_reply(buf, sizeof(buf), &parsed), ==, 0);
	make_reply(buf, TC_RELAY_LTTNG_OK, TC_RELAY_PATH_MAX + 1);
	g_assert_cmpint(
	    tc_consumerd_relay_wire_parse_create_session_reply(buf, sizeof(buf), &parsed), ==,
	    -EBADMSG);
	make_reply(buf, TC_RELAY_LTTNG_OK, UINT32_MAX);
	g_assert_cmpint(
	    tc_consumerd_relay_wire_parse_create_session_reply(buf, sizeof(buf), &parsed), ==,
	    -EBADMSG);
}

/* The relay's answer to CLOSE_TRACE_CHUNK: status and a bounded path
 * length; the packed wire layouts have LTTng's sizes. */
static void
test_close_chunk_reply(void)
{
	struct tc_relay_close_trace_chunk_reply parsed;
	struct tc_relay_close_trace_chunk_reply wire;

	G_STATIC_ASSERT(sizeof(struct tc_relay_close_trace_chunk) == 21);
	G_STATIC_ASSERT(sizeof(struct tc_relay_rotate_streams) == 13);
	G_STATIC_ASSERT(sizeof(struct tc_relay_stream_rotation_position) == 16);
	G_STATIC_ASSERT(sizeof(wire) == 8);
	wire = (struct tc_relay_close_trace_chunk_reply){htobe32(TC_RELAY_LTTNG_OK), htobe32(40)};
	g_assert_cmpint(
	    tc_consumerd_relay_wire_parse_close_chunk_reply(&wire, sizeof(wire), &parsed), ==, 0);
	g_assert_cmpuint(parsed.path_length, ==, 40);
	g_assert_cmpint(
	    tc_consumerd_relay_wire_parse_close_chunk_reply(&wire, sizeof(wire) - 1, &parsed), ==,
	    -EBADMSG);
	wire.path_length = htobe32(0);
	g_assert_cmpint(
	    tc_consumerd_relay_wire_parse_close_chunk_reply(&wire, sizeof(wire), &parsed), ==,
	    -EBADMSG);
	wire.path_length = htobe32(TC_RELAY_PATH_MAX + 1);
	g_assert_cmpint(
	    tc_consumerd_relay_wire_parse_close_chunk_reply(&wire, sizeof(wire), &parsed), ==,
	    -EBADMSG);
	wire.path_length = htobe32(UINT32_MAX);
	g_assert_cmpint(
	    tc_consumerd_relay_wire_parse_close_chunk_reply(&wire, sizeof(wire), &parsed), ==,
	    -EBADMSG);
	/* A refusal carries no path. */
	wire = (struct tc_relay_close_trace_chunk_reply){htobe32(TC_RELAY_LTTNG_OK + 1), 0};
	g_assert_cmpint(
	    tc_consumerd_relay_wire_parse_close_chunk_reply(&wire, sizeof(wire), &parsed), ==,
	    -EPROTO);
}

static void
test_output_path(void)
{
	g_assert_cmpint(tc_consumerd_relay_wire_check_output_path("host/s-1", 9), ==, 0);
	g_assert_cmpint(tc_consumerd_relay_wire_check_output_path("host/s-1", 8), ==, -EBADMSG);
	g_assert_cmpint(tc_consumerd_relay_wire_check_output_path("ho\0st/s", 8), ==, -EBADMSG);
	g_assert_cmpint(tc_consumerd_relay_wire_check_output_path("", 0), ==, -EBADMSG);
	g_assert_cmpint(tc_consumerd_relay_wire_check_output_path("", 1), ==, 0);
}

static void
test_version(void)
{
	struct tc_relay_version v;
	uint32_t minor = 0;

	v = (struct tc_relay_version){htobe32(2), htobe32(13)};
	g_assert_cmpint(tc_consumerd_relay_wire_parse_version(&v, sizeof(v), &minor), ==, 0);
	g_assert_cmpuint(minor, ==, 13);
	v = (struct tc_relay_version){htobe32(2), htobe32(15)};
	g_assert_cmpint(tc_consumerd_relay_wire_parse_version(&v, sizeof(v), &minor), ==, 0);
	g_assert_cmpuint(minor, ==, TC_RELAY_PROTO_MINOR);
	v = (struct tc_relay_version){htobe32(2), htobe32(11)};
	g_assert_cmpint(tc_consumerd_relay_wire_parse_version(&v, sizeof(v), &minor), ==, 0);
	g_assert_cmpuint(minor, ==, 11);
	v = (struct tc_relay_version){htobe32(2), htobe32(10)};
	g_assert_cmpint(tc_consumerd_relay_wire_parse_version(&v, sizeof(v), &minor), ==,
			-EPROTONOSUPPORT);
	v = (struct tc_relay_version){htobe32(3), htobe32(13)};
	g_assert_cmpint(tc_consumerd_relay_wire_parse_version(&v, sizeof(v), &minor), ==,
			-EPROTONOSUPPORT);
	g_assert_cmpint(tc_consumerd_relay_wire_parse_version(&v, sizeof(v) - 1, &minor), ==,
			-EPROTONOSUPPORT);
}

static void
test_encode(void)
{
	uint8_t buf[1024], uuid[16] = {1};
	char long_host[TC_RELAY_HOST_NAME_MAX + 1], long_path[TC_RELAY_NAME_MAX + 1];
	const struct tc_relay_create_session *msg = (const void *)buf;
	int len;

	len = tc_consumerd_relay_wire_encode_create_session(buf, sizeof(buf), "s1", "host", 100000,
							    uuid, 3, 1700000000);
	g_assert_cmpint(len, ==, sizeof(*msg) + 3 + 5);
	g_assert_cmpuint(be32toh(msg->session_name_len), ==, 3);
	g_assert_cmpuint(be32toh(msg->hostname_len), ==, 5);
	g_assert_cmpuint(be32toh(msg->live_timer), ==, 100000);
	g_assert_cmpstr((const char *)buf + sizeof(*msg), ==, "s1");
	g_assert_cmpstr((const char *)buf + sizeof(*msg) + 3, ==, "host");
	memset(long_host, 'h', sizeof(long_host) - 1);
	long_host[sizeof(long_host) - 1] = '\0';
	g_assert_cmpint(tc_consumerd_relay_wire_encode_create_session(buf, sizeof(buf), "s1",
								      long_host, 0, uuid, 3, 0),
			==, -ENAMETOOLONG);
	g_assert_cmpint(
	    tc_consumerd_relay_wire_encode_create_session(buf, sizeof(buf), "", "h", 0, uuid, 3, 0),
	    ==, -ENAMETOOLONG);
	g_assert_cmpint(tc_consumerd_relay_wire_encode_create_session(buf, sizeof(*msg) + 3, "s1",
								      "host", 0, uuid, 3, 0),
			==, -ENOBUFS);
	len = tc_consumerd_relay_wire_encode_add_stream(buf, sizeof(buf), "channel0_1",
							"ust/uid/0/64-bit", 0);
	g_assert_cmpint(len, ==, sizeof(struct tc_relay_add_stream) + 11 + 17);
	memset(long_path, 'p', sizeof(long_path) - 1);
	long_path[sizeof(long_path) - 1] = '\0';
	g_assert_cmpint(
	    tc_consumerd_relay_wire_encode_add_stream(buf, sizeof(buf), "c_0", long_path, 0), ==,
	    -ENAMETOOLONG);
}

static void
test_metadata_uuid(void)
{
	static const char text[] = "trace {\n\tuuid = \"3b8a1c52-770e-4d1f-9a6b-213455c0de01\";";
	static const uint8_t expected[16] = {0x3b, 0x8a, 0x1c, 0x52, 0x77, 0x0e, 0x4d, 0x1f,
					     0x9a, 0x6b, 0x21, 0x34, 0x55, 0xc0, 0xde, 0x01};
	uint8_t uuid[16];

	g_assert_cmpint(tc_consumerd_relay_wire_metadata_uuid(text, strlen(text), uuid), ==, 0);
	g_assert_cmpmem(uuid, sizeof(uuid), expected, sizeof(expected));
	/* Cut short, not hex, absent. */
	g_assert_cmpint(tc_consumerd_relay_wire_metadata_uuid(text, strlen(text) - 10, uuid), ==,
			-ENOENT);
	g_assert_cmpint(tc_consumerd_relay_wire_metadata_uuid("uuid = \"3x\"", 11, uuid), ==,
			-ENOENT);
	g_assert_cmpint(tc_consumerd_relay_wire_metadata_uuid("trace {}", 8, uuid), ==, -ENOENT);
}

/* Whatever bytes a relay sends, the checks refuse them or accept values
 * within the limits. */
static void
test_random_replies(void)
{
	GRand *rand = g_rand_new_with_seed(1234);
	uint8_t buf[64];

	for (int i = 0; i < 200000; i++) {
		struct tc_relay_create_session_reply reply;
		size_t len = (size_t)g_rand_int_range(rand, 0, sizeof(buf) + 1);
		uint32_t minor = 0;

		for (size_t j = 0; j < sizeof(buf); j++)
			buf[j] = (uint8_t)g_rand_int(rand);
		/* Bias toward the interesting values. */
		if (i % 3 == 0)
			make_reply(buf, TC_RELAY_LTTNG_OK, g_rand_int(rand) % 8200);
		if (tc_consumerd_relay_wire_parse_create_session_reply(buf, len, &reply) == 0) {
			g_assert_cmpuint(len, >=, sizeof(reply));
			g_assert_cmpuint(reply.output_path_length, >=, 1);
			g_assert_cmpuint(reply.output_path_length, <=, TC_RELAY_PATH_MAX);
		}
		if (tc_consumerd_relay_wire_parse_version(buf, len, &minor) == 0)
			g_assert_true(minor >= TC_RELAY_PROTO_MINOR_MIN &&
				      minor <= TC_RELAY_PROTO_MINOR);
		if (len > 0 &&
		    tc_consumerd_relay_wire_check_output_path((const char *)buf, len) == 0)
			g_assert_cmpuint(strlen((const char *)buf), ==, len - 1);
	}
	g_rand_free(rand);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/consumerd/relay-wire/create-session-reply",
			test_create_session_reply);
	g_test_add_func("/tracectl/consumerd/relay-wire/close-chunk-reply", test_close_chunk_reply);
	g_test_add_func("/tracectl/consumerd/relay-wire/output-path", test_output_path);
	g_test_add_func("/tracectl/consumerd/relay-wire/version", test_version);
	g_test_add_func("/tracectl/consumerd/relay-wire/encode", test_encode);
	g_test_add_func("/tracectl/consumerd/relay-wire/metadata-uuid", test_metadata_uuid);
	g_test_add_func("/tracectl/consumerd/relay-wire/random-replies", test_random_replies);
	return g_test_run();
}
