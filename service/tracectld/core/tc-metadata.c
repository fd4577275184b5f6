/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-metadata.h"

#include <endian.h>
#include <string.h>

#include "config.h"
#include "tc-app.h"
#include "tc-channel-config.h"
#include "tc-channel.h"
#include "tc-ctf-clock.h"
#include "tc-perf-counter.h"
#include "tc-rb-ctf.h"
#include "tc-session.h"

static const char *
byte_order(void)
{
	return __BYTE_ORDER == __LITTLE_ENDIAN ? "le" : "be";
}

/* The host's name, for a quoted TSDL string: an administrator may name
 * the host anything, quotes, backslashes and newlines included. */
static char *
safe_host_name(void)
{
	return g_strcanon(g_strdup(g_get_host_name()),
			  G_CSET_A_2_Z G_CSET_a_2_z G_CSET_DIGITS "._-", '_');
}

static void
append_uuid(GString *out, const guint8 uuid[16])
{
	for (guint i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			g_string_append_c(out, '-');
		g_string_append_printf(out, "%02x", uuid[i]);
	}
}

void
tc_metadata_append_header(GString *out, const TcSession *session, uid_t uid,
			  const guint8 uuid[16])
{
	g_autoptr(GDateTime) created =
		g_date_time_new_from_unix_utc(session->creation_realtime_us / G_USEC_PER_SEC);
	g_autofree char *created_text = g_date_time_format_iso8601(created);
	g_autofree char *host_name = safe_host_name();
	char clock_text[TC_CTF_CLOCK_MAX];
	g_string_append(out, "/* CTF 1.8 */\n\n");
	for (guint bits = 8; bits <= 64; bits *= 2)
		g_string_append_printf(out,
				       "typealias integer { size = %u; align = 8; signed = false; } "
				       ":= uint%u_t;\n",
				       bits, bits);
	g_string_append(out, "\ntrace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"");
	append_uuid(out, uuid);
	g_string_append_printf(out,
			       "\";\n\tbyte_order = %s;\n" TC_CTF_PACKET_HEADER "};\n\n",
			       byte_order());
	g_string_append_printf(out,
			       "env {\n"
			       "\thostname = \"%s\";\n"
			       "\tdomain = \"ust\";\n"
			       "\ttracer_name = \"tracectl\";\n"
			       "\ttracer_version = \"%s\";\n"
			       "\ttracer_major = %d;\n"
			       "\ttracer_minor = %d;\n"
			       "\ttracer_patchlevel = %d;\n"
			       "\ttracer_buffering_scheme = \"uid\";\n"
			       "\ttracer_buffering_id = %u;\n"
			       "\tarchitecture_bit_width = %u;\n"
			       "\ttrace_name = \"%s\";\n"
			       "\ttrace_creation_datetime = \"%s\";\n"
			       "\tuid = %u;\n"
			       "};\n\n",
			       host_name, PACKAGE_VERSION, TRACECTL_VERSION_MAJOR,
			       TRACECTL_VERSION_MINOR, TRACECTL_VERSION_PATCH, (unsigned)uid,
			       (unsigned)(sizeof(long) * 8), session->name, created_text,
			       (unsigned)uid);
	tc_ctf_clock_format(clock_text, sizeof(clock_text), &session->clock);
	g_string_append(out, clock_text);
	g_string_append(out, "typealias integer { size = 27; align = 1; signed = false; "
			     "map = clock.monotonic.value; } := uint27_clock_monotonic_t;\n"
			     "typealias integer { size = 5; align = 1; signed = false; } "
			     ":= uint5_t;\n\n");
}

/* The ids (uint32, LTTng-UST's uid_t and gid_t) and the namespaces
 * (uint64 inode numbers, its ino_t) among the contexts, in the order of
 * their bits, in base 10 as LTTng-UST 2.13 describes them. */
static void
append_id_contexts(GString *out, guint32 contexts)
{
	static const char *const ids[] = {"vuid", "veuid", "vsuid", "vgid", "vegid", "vsgid"};
	static const char *const namespaces[] = {"cgroup_ns", "ipc_ns",	 "mnt_ns",  "net_ns",
						 "pid_ns",    "time_ns", "user_ns", "uts_ns"};

	for (guint i = 0; i < G_N_ELEMENTS(ids); i++)
		if (contexts & (TRACECTL_CONTEXT_VUID << i))
			g_string_append_printf(out,
					       "\t\tinteger { size = 32; align = 8; signed = false; "
					       "byte_order = %s; } _%s;\n",
					       byte_order(), ids[i]);
	for (guint i = 0; i < G_N_ELEMENTS(namespaces); i++)
		if (contexts & (TRACECTL_CONTEXT_CGROUP_NS << i))
			g_string_append_printf(out,
					       "\t\tinteger { size = 64; align = 8; signed = false; "
					       "byte_order = %s; } _%s;\n",
					       byte_order(), namespaces[i]);
}

/*
 * An application context's slot (tracectl-abi.h): its one-byte tag, then
 * a variant of 8 bytes whatever the tag, so that every record of the
 * channel has one layout whichever application wrote it. The labels and
 * choices are LTTng-UST's for its application contexts' variants (a
 * leading underscore, which readers drop, since "double" is a TSDL
 * keyword); _none holds 8 zero bytes.
 */
static void
append_app_context(GString *out, const char *name)
{
	g_autofree char *field = tc_channel_config_app_context_field(name);

	g_string_append_printf(out,
			       "\t\tenum : integer { size = 8; align = 8; signed = false; } "
			       "{ _none = %u, _int64 = %u, _uint64 = %u, _double = %u } %s_tag;\n"
			       "\t\tvariant <%s_tag> {\n"
			       "\t\t\tinteger { size = 64; align = 8; signed = false; "
			       "byte_order = %s; } _none;\n"
			       "\t\t\tinteger { size = 64; align = 8; signed = true; "
			       "byte_order = %s; } _int64;\n"
			       "\t\t\tinteger { size = 64; align = 8; signed = false; "
			       "byte_order = %s; } _uint64;\n"
			       "\t\t\tfloating_point { exp_dig = 11; mant_dig = 53; align = 8; "
			       "byte_order = %s; } _double;\n"
			       "\t\t} %s;\n",
			       TRACECTL_ABI_APP_CONTEXT_NONE, TRACECTL_ABI_APP_CONTEXT_INT64,
			       TRACECTL_ABI_APP_CONTEXT_UINT64, TRACECTL_ABI_APP_CONTEXT_DOUBLE,
			       field, field, byte_order(), byte_order(), byte_order(), byte_order(),
			       field);
}

/* The stream's event.context: the channel's context fields, in the
 * order of their TRACECTL_CONTEXT_* bits (the order the probes write),
 * then its application contexts in the order they were added. */
static void
append_event_context(GString *out, const TcChannel *channel)
{
	guint32 contexts = channel->contexts;

	if (contexts == 0 && channel->app_contexts->len == 0 && channel->perf_counters->len == 0)
		return;
	g_string_append(out, "\tevent.context := struct {\n");
	if (contexts & TRACECTL_CONTEXT_VPID)
		g_string_append_printf(out, "\t\tinteger { size = 32; align = 8; signed = true; "
					    "byte_order = %s; } _vpid;\n", byte_order());
	if (contexts & TRACECTL_CONTEXT_VTID)
		g_string_append_printf(out, "\t\tinteger { size = 32; align = 8; signed = true; "
					    "byte_order = %s; } _vtid;\n", byte_order());
	if (contexts & TRACECTL_CONTEXT_PROCNAME)
		g_string_append_printf(out, "\t\tinteger { size = 8; align = 8; signed = false; "
					    "encoding = UTF8; } _procname[%u];\n",
				       TRACECTL_CONTEXT_PROCNAME_LEN);
	if (contexts & TRACECTL_CONTEXT_PTHREAD_ID)
		g_string_append_printf(out, "\t\tinteger { size = 64; align = 8; signed = false; "
					    "base = 16; byte_order = %s; } _pthread_id;\n",
				       byte_order());
	append_id_contexts(out, contexts);
	/* LTTng-UST 2.13's ip: unsigned, base 10 (later versions show it in
	 * base 16). */
	if (contexts & TRACECTL_CONTEXT_IP)
		g_string_append_printf(out, "\t\tinteger { size = 64; align = 8; signed = false; "
					    "byte_order = %s; } _ip;\n", byte_order());
	/* As LTTng-UST 2.13 declares them: unsigned 64-bit, base 10. */
	for (guint i = 0; i < channel->perf_counters->len; i++)
		g_string_append_printf(
			out,
			"\t\tinteger { size = 64; align = 8; signed = false; byte_order = %s; } _%s;\n",
			byte_order(),
			g_array_index(channel->perf_counters, struct tc_perf_counter, i).name);
	for (guint i = 0; i < channel->app_contexts->len; i++)
		append_app_context(out, g_ptr_array_index(channel->app_contexts, i));
	g_string_append(out, "\t} align(8);\n");
}

void
tc_metadata_append_stream(GString *out, const TcChannel *channel)
{
	g_string_append_printf(out,
			       "stream {\n"
			       "\tid = %u;\n"
			       "\tevent.header := struct {\n"
			       "\t\tenum : uint5_t { compact = 0 ... 30, extended = 31 } id;\n"
			       "\t\tvariant <id> {\n"
			       "\t\t\tstruct {\n"
			       "\t\t\t\tuint27_clock_monotonic_t timestamp;\n"
			       "\t\t\t} compact;\n"
			       "\t\t\tstruct {\n"
			       "\t\t\t\tuint32_t id;\n"
			       "\t\t\t\tuint64_clock_monotonic_t timestamp;\n"
			       "\t\t\t} extended;\n"
			       "\t\t} v;\n"
			       "\t} align(8);\n" TC_CTF_PACKET_CONTEXT,
			       channel->stream_id);
	append_event_context(out, channel);
	g_string_append(out, "};\n\n");
}

/* An integer field's base in CTF: what its attributes ask readers for. */
static guint
integer_base(guint32 type)
{
	if (type & TRACECTL_FIELD_HEX)
		return 16;
	if (type & TRACECTL_FIELD_OCT)
		return 8;
	return 10;
}

/* The CTF type of an array's or a sequence's element, without its name:
 * byte-aligned like every field, so that the elements are packed. */
static void
append_element_type(GString *out, guint32 type)
{
	guint32 size = tracectl_abi_field_element_size(type);

	switch (tracectl_abi_field_element_kind(type)) {
	case TRACECTL_FIELD_SIGNED:
	case TRACECTL_FIELD_UNSIGNED:
		g_string_append_printf(
		    out, "integer { size = %u; align = 8; signed = %s; %sbase = %u; byte_order = %s; }",
		    size * 8,
		    tracectl_abi_field_element_kind(type) == TRACECTL_FIELD_SIGNED ? "true" : "false",
		    type & TRACECTL_FIELD_TEXT ? "encoding = UTF8; " : "", integer_base(type),
		    type & TRACECTL_FIELD_BIG_ENDIAN ? "network" : byte_order());
		break;
	case TRACECTL_FIELD_DOUBLE:
		g_string_append_printf(out,
				       "floating_point { exp_dig = 11; mant_dig = 53; align = 8; "
				       "byte_order = %s; }",
				       byte_order());
		break;
	case TRACECTL_FIELD_FLOAT:
		g_string_append_printf(out,
				       "floating_point { exp_dig = 8; mant_dig = 24; align = 8; "
				       "byte_order = %s; }",
				       byte_order());
		break;
	default:
		g_assert_not_reached();
	}
}

/* A label, quoted: '"' and '\\' escaped. Labels hold no control
 * character (tracectl_abi_label_is_valid()), which TSDL could not say. */
static void
append_quoted_label(GString *out, const char *label)
{
	g_string_append_c(out, '"');
	for (const char *at = label; *at != '\0'; at++) {
		if (*at == '"' || *at == '\\')
			g_string_append_c(out, '\\');
		g_string_append_c(out, *at);
	}
	g_string_append_c(out, '"');
}

static void
append_enum_value(GString *out, guint64 bits, gboolean is_signed)
{
	if (is_signed)
		g_string_append_printf(out, "%" G_GINT64_FORMAT, tracectl_abi_enum_signed(bits));
	else
		g_string_append_printf(out, "%" G_GUINT64_FORMAT, bits);
}

/* An enumeration over its container, inline: readers show a value by the
 * labels whose ranges hold it, and a value in none without a label. */
static void
append_enum_field(GString *out, const struct tracectl_abi_field *field,
		  const TcAppEnum *enumeration)
{
	guint32 kind = tracectl_abi_field_element_kind(field->type);

	g_string_append_printf(out,
			       "\t\tenum : integer { size = %u; align = 8; signed = %s; base = 10; "
			       "byte_order = %s; } {\n",
			       tracectl_abi_field_element_size(field->type) * 8,
			       kind == TRACECTL_FIELD_SIGNED ? "true" : "false", byte_order());
	for (guint i = 0; i < enumeration->nr_entries; i++) {
		const struct tracectl_abi_enum_entry *entry = &enumeration->entries[i];
		gboolean is_signed = (entry->flags & TRACECTL_ENUM_ENTRY_SIGNED) != 0;

		g_string_append(out, "\t\t\t");
		append_quoted_label(out, entry->label);
		g_string_append(out, " = ");
		append_enum_value(out, entry->begin, is_signed);
		if (entry->end != entry->begin) {
			g_string_append(out, " ... ");
			append_enum_value(out, entry->end, is_signed);
		}
		g_string_append(out, ",\n");
	}
	g_string_append_printf(out, "\t\t} _%s;\n", field->name);
}

static void
append_field(GString *out, const struct tracectl_abi_field *field, const TcAppEnum *enumeration)
{
	switch (tracectl_abi_field_kind(field->type)) {
	case TRACECTL_FIELD_SIGNED:
	case TRACECTL_FIELD_UNSIGNED:
		g_string_append_printf(
		    out,
		    "\t\tinteger { size = %u; align = 8; signed = %s; base = %u; "
		    "byte_order = %s; } _%s;\n",
		    field->size * 8,
		    tracectl_abi_field_kind(field->type) == TRACECTL_FIELD_SIGNED ? "true" : "false",
		    integer_base(field->type),
		    field->type & TRACECTL_FIELD_BIG_ENDIAN ? "network" : byte_order(), field->name);
		break;
	case TRACECTL_FIELD_DOUBLE:
		g_string_append_printf(out,
				       "\t\tfloating_point { exp_dig = 11; mant_dig = 53; align = 8; "
				       "byte_order = %s; } _%s;\n",
				       byte_order(), field->name);
		break;
	case TRACECTL_FIELD_FLOAT:
		g_string_append_printf(out,
				       "\t\tfloating_point { exp_dig = 8; mant_dig = 24; align = 8; "
				       "byte_order = %s; } _%s;\n",
				       byte_order(), field->name);
		break;
	case TRACECTL_FIELD_STRING:
		g_string_append_printf(out, "\t\tstring { encoding = UTF8; } _%s;\n", field->name);
		break;
	case TRACECTL_FIELD_BYTES:
		g_string_append_printf(out,
				       "\t\tuint32_t __%s_length;\n"
				       "\t\tinteger { size = 8; align = 8; signed = false; "
				       "encoding = none; base = 16; } _%s[__%s_length];\n",
				       field->name, field->name, field->name);
		break;
	case TRACECTL_FIELD_ARRAY:
		g_string_append(out, "\t\t");
		append_element_type(out, field->type);
		g_string_append_printf(out, " _%s[%u];\n", field->name, field->size);
		break;
	case TRACECTL_FIELD_SEQUENCE:
		/* The length field's name cannot be a field's: those start
		 * with one underscore and a letter. */
		g_string_append_printf(out, "\t\tuint32_t __%s_length;\n\t\t", field->name);
		append_element_type(out, field->type);
		g_string_append_printf(out, " _%s[__%s_length];\n", field->name, field->name);
		break;
	case TRACECTL_FIELD_ENUM:
		g_assert(enumeration != NULL);
		append_enum_field(out, field, enumeration);
		break;
	default:
		g_assert_not_reached();
	}
}

void
tc_metadata_append_event(GString *out, guint32 stream_id, guint32 id, const TcAppEvent *event)
{
	g_string_append_printf(out,
			       "event {\n"
			       "\tname = \"%s\";\n"
			       "\tid = %u;\n"
			       "\tstream_id = %u;\n"
			       "\tloglevel = %d;\n"
			       "\tfields := struct {\n",
			       event->name, id, stream_id, event->loglevel);
	for (guint i = 0; i < event->nr_fields; i++)
		append_field(out, &event->fields[i], event->enums ? event->enums[i] : NULL);
	g_string_append(out, "\t} align(8);\n};\n\n");
}

/* An integer's name (of kind and size), then how it is shown and stored
 * when that is not decimal in the machine's order: "uint32 hex network". */
static void
append_integer_type_name(GString *out, guint32 kind, guint32 size, guint32 type)
{
	static const char *const signed_names[] = {"int8", "int16", NULL, "int32",
						   NULL,   NULL,    NULL, "int64"};
	static const char *const unsigned_names[] = {"uint8", "uint16", NULL, "uint32",
						     NULL,    NULL,     NULL, "uint64"};

	g_string_append(out, kind == TRACECTL_FIELD_SIGNED ? signed_names[size - 1]
							   : unsigned_names[size - 1]);
	if (type & TRACECTL_FIELD_HEX)
		g_string_append(out, " hex");
	if (type & TRACECTL_FIELD_OCT)
		g_string_append(out, " oct");
	if (type & TRACECTL_FIELD_BIG_ENDIAN)
		g_string_append(out, " network");
}

/* An array's or a sequence's type: "uint32 hex[16]", "double[]", and
 * "text[16]" for text, whatever the signedness of its bytes. */
static void
append_container_type_name(GString *out, const struct tracectl_abi_field *field)
{
	guint32 kind = tracectl_abi_field_element_kind(field->type);

	if (field->type & TRACECTL_FIELD_TEXT)
		g_string_append(out, "text");
	else if (kind == TRACECTL_FIELD_DOUBLE)
		g_string_append(out, "double");
	else if (kind == TRACECTL_FIELD_FLOAT)
		g_string_append(out, "float");
	else
		append_integer_type_name(out, kind, tracectl_abi_field_element_size(field->type),
					 field->type);
	if (tracectl_abi_field_kind(field->type) == TRACECTL_FIELD_ARRAY)
		g_string_append_printf(out, "[%u]", field->size);
	else
		g_string_append(out, "[]");
}

/* An enumeration field's type: "enum state : uint8", its name without
 * its provider when that is the event's. */
static void
append_enum_type_name(GString *out, const TcAppEvent *event, guint i)
{
	const char *name;
	const char *colon;

	g_assert(event->enums != NULL && event->enums[i] != NULL);
	name = event->enums[i]->name;
	colon = strchr(name, ':');
	if (colon && strncmp(event->name, name, (size_t)(colon - name) + 1) == 0)
		name = colon + 1;
	g_string_append_printf(out, "enum %s : ", name);
	append_integer_type_name(out, tracectl_abi_field_element_kind(event->fields[i].type),
				 tracectl_abi_field_element_size(event->fields[i].type), 0);
}

/* The name of a field's type, for fields that are not integers. */
static const char *
field_type_name(const struct tracectl_abi_field *field)
{
	switch (tracectl_abi_field_kind(field->type)) {
	case TRACECTL_FIELD_DOUBLE:
		return "double";
	case TRACECTL_FIELD_FLOAT:
		return "float";
	case TRACECTL_FIELD_STRING:
		return "string";
	case TRACECTL_FIELD_BYTES:
		return "bytes";
	default:
		g_assert_not_reached();
	}
}

char *
tc_metadata_signature(const TcAppEvent *event)
{
	const struct tracectl_abi_field *fields = event->fields;
	GString *out = g_string_new(NULL);

	for (guint i = 0; i < event->nr_fields; i++) {
		guint32 kind = tracectl_abi_field_kind(fields[i].type);

		if (i)
			g_string_append(out, ", ");
		if (kind == TRACECTL_FIELD_SIGNED || kind == TRACECTL_FIELD_UNSIGNED)
			append_integer_type_name(out, kind, fields[i].size, fields[i].type);
		else if (kind == TRACECTL_FIELD_ARRAY || kind == TRACECTL_FIELD_SEQUENCE)
			append_container_type_name(out, &fields[i]);
		else if (kind == TRACECTL_FIELD_ENUM)
			append_enum_type_name(out, event, i);
		else
			g_string_append(out, field_type_name(&fields[i]));
		g_string_append_printf(out, " %s", fields[i].name);
	}
	return g_string_free(out, FALSE);
}
