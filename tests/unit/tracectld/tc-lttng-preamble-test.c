/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The TSDL of an LTTng-UST per-UID trace that no application describes:
 * the preamble as lttng-sessiond writes it (the trace's packet header,
 * its clock, the two event headers), the stream classes, and a context
 * that cannot be described leaving the text as it was. End to end, the
 * integration test lttng-ust-trace reads traces made with it.
 */
#include "tc-lttng-preamble.h"

#include <string.h>
#include <time.h>

#include "tc-error.h"

static const TcLttngMetadataOptions options = {.is_big_endian = FALSE};

static void
test_preamble(void)
{
	g_autoptr(GString) out = g_string_new(NULL);
	TcLttngPreambleOptions preamble = {
	    .uid = 1000,
	    .bits_per_long = 64,
	    .alignment_bits = 8,
	    .clock_offset_ns = G_GINT64_CONSTANT(1700000000123456789),
	};

	for (int i = 0; i < 16; i++)
		preamble.uuid[i] = (guint8)(0xa0 + i);
	tc_lttng_preamble_append(out, &preamble);
	g_assert_true(g_str_has_prefix(out->str, "/* CTF 1.8 */\n"));
	g_assert_nonnull(strstr(out->str, "uuid = \"a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf\";"));
	g_assert_nonnull(strstr(out->str, "\t\tuint32_t magic;\n\t\tuint8_t  uuid[16];\n"
					  "\t\tuint32_t stream_id;\n\t\tuint64_t stream_instance_id;\n"));
	g_assert_nonnull(strstr(out->str, "tracer_buffering_scheme = \"uid\";\n"
					  "\ttracer_buffering_id = 1000;\n"));
	g_assert_nonnull(strstr(out->str, "offset = 1700000000123456789;"));
	g_assert_nonnull(strstr(out->str, "size = 64; align = 8; signed = false; } := unsigned long;"));
	g_assert_nonnull(strstr(out->str, "struct event_header_compact {"));
	g_assert_nonnull(strstr(out->str, "struct event_header_large {"));
	g_assert_nonnull(strstr(out->str, "\tunsigned long events_discarded;\n\tuint32_t cpu_id;\n"));
}

/* A per-PID trace: the application in the environment, as
 * lttng-sessiond writes it; a quote in its name cannot end the string. */
static void
test_preamble_per_pid(void)
{
	g_autoptr(GString) out = g_string_new(NULL);
	TcLttngPreambleOptions preamble = {
	    .uid = 1000,
	    .pid = 4242,
	    .procname = "my\"app\\",
	    .registered = "20261204T154246+0000",
	    .bits_per_long = 64,
	    .alignment_bits = 8,
	};

	tc_lttng_preamble_append(out, &preamble);
	g_assert_nonnull(strstr(out->str, "tracer_buffering_scheme = \"pid\";\n"
					  "\ttracer_buffering_id = 4242;\n"));
	g_assert_nonnull(strstr(out->str, "\tvpid = 4242;\n\tprocname = \"my?app?\";\n"
					  "\tvpid_datetime = \"20261204T154246+0000\";\n};\n"));
	g_assert_null(strstr(out->str, "= 1000;"));
}

static void
test_clock_offset(void)
{
	struct timespec real, mono;
	gint64 offset = tc_lttng_preamble_clock_offset(), expected;

	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	expected = (real.tv_sec - mono.tv_sec) * G_GINT64_CONSTANT(1000000000) +
		   (real.tv_nsec - mono.tv_nsec);
	g_assert_cmpint(ABS(offset - expected), <, 50 * 1000 * 1000);
}

static void
test_stream(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GString) out = g_string_new(NULL);
	struct lttng_ust_ctl_field context[1];

	g_assert_true(tc_lttng_preamble_append_stream(out, 0, LTTNG_UST_CTL_CHANNEL_HEADER_LARGE,
						      NULL, 0, &options, &error));
	g_assert_no_error(error);
	g_assert_cmpstr(out->str, ==,
			"stream {\n\tid = 0;\n\tevent.header := struct event_header_large;\n"
			"\tpacket.context := struct packet_context;\n};\n\n");

	/* A context of one 32-bit signed integer. */
	g_string_assign(out, "");
	memset(context, 0, sizeof(context));
	g_strlcpy(context[0].name, "vpid", sizeof(context[0].name));
	context[0].type.atype = lttng_ust_ctl_atype_integer;
	context[0].type.u.integer.size = 32;
	context[0].type.u.integer.signedness = 1;
	context[0].type.u.integer.base = 10;
	context[0].type.u.integer.alignment = 8;
	context[0].type.u.integer.encoding = lttng_ust_ctl_encode_none;
	g_assert_true(tc_lttng_preamble_append_stream(out, 2, LTTNG_UST_CTL_CHANNEL_HEADER_COMPACT,
						      context, 1, &options, &error));
	g_assert_nonnull(strstr(out->str, "\tid = 2;\n\tevent.header := struct event_header_compact;"));
	g_assert_nonnull(strstr(out->str, "\tevent.context := struct {\n"
					  "\t\tinteger { size = 32; align = 8; signed = 1; "
					  "encoding = none; base = 10; } _vpid;\n\t};\n};\n"));

	/* A context that cannot be described: nothing appended. */
	g_string_assign(out, "/* before */\n");
	context[0].type.u.integer.size = 0;
	g_assert_false(tc_lttng_preamble_append_stream(out, 2, LTTNG_UST_CTL_CHANNEL_HEADER_LARGE,
						       context, 1, &options, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
	g_assert_nonnull(strstr(error->message, "context of channel 2"));
	g_assert_cmpstr(out->str, ==, "/* before */\n");
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/lttng-preamble/preamble", test_preamble);
	g_test_add_func("/tracectl/lttng-preamble/preamble-per-pid", test_preamble_per_pid);
	g_test_add_func("/tracectl/lttng-preamble/clock-offset", test_clock_offset);
	g_test_add_func("/tracectl/lttng-preamble/stream", test_stream);
	return g_test_run();
}
