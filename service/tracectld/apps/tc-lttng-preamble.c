/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-lttng"

#include "tc-lttng-preamble.h"

#include "tc-clock-offset.h"

gint64
tc_lttng_preamble_clock_offset(void)
{
	return tc_clock_offset_monotonic_ns();
}

static void
append_uuid(GString *out, const guint8 uuid[16])
{
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			g_string_append_c(out, '-');
		g_string_append_printf(out, "%02x", uuid[i]);
	}
}

static void
append_trace(GString *out, const TcLttngPreambleOptions *options)
{
	guint a = options->alignment_bits;

	g_string_append_printf(
	    out,
	    "/* CTF 1.8 */\n\n"
	    "typealias integer { size = 8; align = %u; signed = false; } := uint8_t;\n"
	    "typealias integer { size = 16; align = %u; signed = false; } := uint16_t;\n"
	    "typealias integer { size = 32; align = %u; signed = false; } := uint32_t;\n"
	    "typealias integer { size = 64; align = %u; signed = false; } := uint64_t;\n"
	    "typealias integer { size = %u; align = %u; signed = false; } := unsigned long;\n"
	    "typealias integer { size = 5; align = 1; signed = false; } := uint5_t;\n"
	    "typealias integer { size = 27; align = 1; signed = false; } := uint27_t;\n\n"
	    "trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"",
	    a, a, a, a, options->bits_per_long, a);
	append_uuid(out, options->uuid);
	g_string_append_printf(out,
			       "\";\n\tbyte_order = %s;\n"
			       "\tpacket.header := struct {\n"
			       "\t\tuint32_t magic;\n"
			       "\t\tuint8_t  uuid[16];\n"
			       "\t\tuint32_t stream_id;\n"
			       "\t\tuint64_t stream_instance_id;\n"
			       "\t};\n};\n\n",
			       G_BYTE_ORDER == G_BIG_ENDIAN ? "be" : "le");
}

/* A per-PID trace's application, as lttng-sessiond adds it to the
 * environment. Its name is the application's word, printable ASCII
 * (tc-lttng-register.c): no quote or backslash reaches the string. */
static void
append_env_process(GString *out, const TcLttngPreambleOptions *options)
{
	g_autofree char *name = g_strdup(options->procname ? options->procname : "");

	g_strdelimit(name, "\"\\", '?');
	g_string_append_printf(out,
			       "\tvpid = %d;\n"
			       "\tprocname = \"%s\";\n"
			       "\tvpid_datetime = \"%s\";\n",
			       (int)options->pid, name,
			       options->registered ? options->registered : "");
}

static void
append_env_and_clock(GString *out, const TcLttngPreambleOptions *options)
{
	gint64 offset = options->clock_offset_ns;

	g_string_append_printf(out,
			       "env {\n"
			       "\tdomain = \"ust\";\n"
			       "\ttracer_name = \"lttng-ust\";\n"
			       "\ttracer_major = 2;\n"
			       "\ttracer_minor = 13;\n"
			       "\ttracer_buffering_scheme = \"%s\";\n"
			       "\ttracer_buffering_id = %u;\n"
			       "\tarchitecture_bit_width = %u;\n"
			       "\ttrace_name = \"tracectl\";\n",
			       options->pid ? "pid" : "uid",
			       options->pid ? (unsigned)options->pid : (unsigned)options->uid,
			       options->bits_per_long);
	if (options->pid)
		append_env_process(out, options);
	g_string_append_printf(out,
			       "};\n\n"
			       "clock {\n"
			       "\tname = \"monotonic\";\n"
			       "\tdescription = \"Monotonic Clock\";\n"
			       "\tfreq = 1000000000; /* Frequency, in Hz */\n"
			       "\t/* clock value offset from Epoch is: offset * (1/freq) */\n"
			       "\toffset = %" G_GINT64_FORMAT ";\n"
			       "};\n\n",
			       offset);
}

static void
append_layouts(GString *out, const TcLttngPreambleOptions *options)
{
	guint a = options->alignment_bits;

	g_string_append_printf(
	    out,
	    "typealias integer {\n\tsize = 27; align = 1; signed = false;\n"
	    "\tmap = clock.monotonic.value;\n} := uint27_clock_monotonic_t;\n\n"
	    "typealias integer {\n\tsize = 32; align = %u; signed = false;\n"
	    "\tmap = clock.monotonic.value;\n} := uint32_clock_monotonic_t;\n\n"
	    "typealias integer {\n\tsize = 64; align = %u; signed = false;\n"
	    "\tmap = clock.monotonic.value;\n} := uint64_clock_monotonic_t;\n\n"
	    "struct packet_context {\n"
	    "\tuint64_clock_monotonic_t timestamp_begin;\n"
	    "\tuint64_clock_monotonic_t timestamp_end;\n"
	    "\tuint64_t content_size;\n"
	    "\tuint64_t packet_size;\n"
	    "\tuint64_t packet_seq_num;\n"
	    "\tunsigned long events_discarded;\n"
	    "\tuint32_t cpu_id;\n"
	    "};\n\n"
	    "struct event_header_compact {\n"
	    "\tenum : uint5_t { compact = 0 ... 30, extended = 31 } id;\n"
	    "\tvariant <id> {\n"
	    "\t\tstruct {\n\t\t\tuint27_clock_monotonic_t timestamp;\n\t\t} compact;\n"
	    "\t\tstruct {\n\t\t\tuint32_t id;\n\t\t\tuint64_clock_monotonic_t timestamp;\n"
	    "\t\t} extended;\n"
	    "\t} v;\n"
	    "} align(%u);\n\n"
	    "struct event_header_large {\n"
	    "\tenum : uint16_t { compact = 0 ... 65534, extended = 65535 } id;\n"
	    "\tvariant <id> {\n"
	    "\t\tstruct {\n\t\t\tuint32_clock_monotonic_t timestamp;\n\t\t} compact;\n"
	    "\t\tstruct {\n\t\t\tuint32_t id;\n\t\t\tuint64_clock_monotonic_t timestamp;\n"
	    "\t\t} extended;\n"
	    "\t} v;\n"
	    "} align(%u);\n\n",
	    a, a, a, a);
}

void
tc_lttng_preamble_append(GString *out, const TcLttngPreambleOptions *options)
{
	append_trace(out, options);
	append_env_and_clock(out, options);
	append_layouts(out, options);
}

gboolean
tc_lttng_preamble_append_stream(GString *out, guint32 chan_id,
				enum lttng_ust_ctl_channel_header header_type,
				const struct lttng_ust_ctl_field *context, gsize nr_context,
				const TcLttngMetadataOptions *options, GError **error)
{
	gsize start = out->len;

	g_string_append_printf(out,
			       "stream {\n\tid = %u;\n\tevent.header := %s;\n"
			       "\tpacket.context := struct packet_context;\n",
			       chan_id,
			       header_type == LTTNG_UST_CTL_CHANNEL_HEADER_COMPACT
				   ? "struct event_header_compact"
				   : "struct event_header_large");
	if (nr_context > 0) {
		g_string_append(out, "\tevent.context := struct {\n");
		if (!tc_lttng_metadata_append_fields(out, context, nr_context, 2, options, error)) {
			g_string_truncate(out, start);
			g_prefix_error(error, "the context of channel %u: ", chan_id);
			return FALSE;
		}
		g_string_append(out, "\t};\n");
	}
	g_string_append(out, "};\n\n");
	return TRUE;
}
