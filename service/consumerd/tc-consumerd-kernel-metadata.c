/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * CTF 1.8 metadata of a kernel trace, from the tracefs format files parsed
 * by libtraceevent: one stream class like the user-space one (same packet
 * context, same clock), one event class per format, named as LTTng names
 * it where lttng-modules has it ("sched_switch", "syscall_entry_read"),
 * else "<system>:<event>" (tc-consumerd-kernel-lttng.c), whose fields are
 * what tc-consumerd-kernel.c writes: integers with their size and
 * signedness, character arrays and __data_loc strings as strings, other
 * arrays as arrays of integers, then the fields LTTng has twice.
 *
 * The env block says what LTTng's does, so that its tools read the trace:
 * the tracer's name and version (tracectl's), the domain, the machine.
 */
#include "tc-consumerd-kernel-metadata.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <traceevent/event-parse.h>

#include "config.h"
#include "tc-consumer-abi.h"
#include "tc-consumerd-kernel-lttng.h"
#include "tc-consumerd-kernel-statedump.h"
#include "tc-ctf-clock.h"
#include "tc-rb-ctf.h"

/* An open_memstream; NULL on allocation failure. */
struct text {
	FILE *out;
	char *buf;
	size_t len;
};

/* Field names become CTF identifiers: [A-Za-z0-9_], "_" in front. */
static void
print_name(FILE *out, const char *name)
{
	fputc('_', out);
	for (const char *c = name; *c; c++)
		fputc((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			      (*c >= '0' && *c <= '9') || *c == '_'
		      ? *c
		      : '_',
		      out);
}

static void
print_integer(FILE *out, unsigned int size, int is_signed, int hex)
{
	fprintf(out, "integer { size = %u; align = 8; signed = %s; base = %d; } ", size * 8,
		is_signed ? "true" : "false", hex ? 16 : 10);
}

int
tc_consumerd_kernel_metadata_field_is_string(const struct tep_format_field *field)
{
	return (field->flags & TEP_FIELD_IS_STRING) ||
	       ((field->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) &&
		field->elementsize == 1 && strstr(field->type, "char"));
}

/* Under name, which is field's or LTTng's for it. */
static void
print_field(FILE *out, const struct tep_format_field *field, const char *name)
{
	fputs("\t\t", out);
	if (tc_consumerd_kernel_metadata_field_is_string(field) ||
	    tc_consumerd_kernel_lttng_user_text(field->event->system, field->type)) {
		fputs("string { encoding = UTF8; } ", out);
	} else if (field->flags & TEP_FIELD_IS_DYNAMIC) {
		/* Written as its length then its bytes. */
		fputs("uint32_t ", out);
		print_name(out, name);
		fputs("_length;\n\t\tinteger { size = 8; align = 8; signed = false; base = 16; } ",
		      out);
		print_name(out, name);
		fputs("[", out);
		print_name(out, name);
		fputs("_length];\n", out);
		return;
	} else if (field->flags & TEP_FIELD_IS_ARRAY) {
		unsigned int element = field->elementsize ? field->elementsize : 1;

		print_integer(out, element, field->flags & TEP_FIELD_IS_SIGNED, 0);
		print_name(out, name);
		fprintf(out, "[%u];\n", field->size / element);
		return;
	} else {
		print_integer(out, field->size, field->flags & TEP_FIELD_IS_SIGNED,
			      field->flags & TEP_FIELD_IS_POINTER);
	}
	print_name(out, name);
	fputs(";\n", out);
}

/* The context fields, in the order tc-consumerd-kernel.c writes them. */
static void
print_event_context(FILE *out, uint32_t contexts)
{
	if (!(contexts & TC_CONSUMER_KCTX_ALL))
		return;
	fputs("\tevent.context := struct {\n", out);
	if (contexts & TC_CONSUMER_KCTX_PID)
		fputs("\t\tint32_t _pid;\n", out);
	if (contexts & TC_CONSUMER_KCTX_TID)
		fputs("\t\tint32_t _tid;\n", out);
	if (contexts & TC_CONSUMER_KCTX_PROCNAME)
		fputs("\t\tstring { encoding = UTF8; } _procname;\n", out);
	if (contexts & TC_CONSUMER_KCTX_PRIO)
		fputs("\t\tint32_t _prio;\n", out);
	fputs("\t} align(8);\n", out);
}

/* A string of the machine's as a CTF string literal: '"', '\\' and
 * control characters, which would end or escape it, become '_'. */
static void
print_env_string(FILE *out, const char *key, const char *value)
{
	fprintf(out, "\t%s = \"", key);
	for (const char *c = value; *c; c++)
		fputc(*c == '"' || *c == '\\' || (unsigned char)*c < 0x20 ? '_' : *c, out);
	fputs("\";\n", out);
}

/* LTTng's kernel env, which lttng-analyses reads the tracer's version
 * from (it refuses a kernel trace without tracer_major, tracer_minor and
 * tracer_patchlevel); the tracer is tracectl, and says so. */
static void
print_env(FILE *out)
{
	struct utsname machine;

	fputs("env {\n\tdomain = \"kernel\";\n\ttracer_name = \"tracectl\";\n", out);
	fprintf(out, "\ttracer_major = %d;\n\ttracer_minor = %d;\n\ttracer_patchlevel = %d;\n",
		TRACECTL_VERSION_MAJOR, TRACECTL_VERSION_MINOR, TRACECTL_VERSION_PATCH);
	print_env_string(out, "tracer_version", PACKAGE_VERSION);
	if (uname(&machine) == 0) {
		print_env_string(out, "hostname", machine.nodename);
		print_env_string(out, "sysname", machine.sysname);
		print_env_string(out, "kernel_release", machine.release);
		print_env_string(out, "kernel_version", machine.version);
	}
	fputs("\ttrace_buffering_scheme = \"global\";\n};\n\n", out);
}

static void
print_header(FILE *out, const uint8_t uuid[16], const struct tc_consumer_clock *clock,
	     uint32_t contexts)
{
	char clock_text[TC_CTF_CLOCK_MAX];

	fputs("/* CTF 1.8 */\n\n", out);
	for (unsigned int bits = 8; bits <= 64; bits *= 2)
		fprintf(out, "typealias integer { size = %u; align = 8; signed = false; } := uint%u_t;\n",
			bits, bits);
	fputs("typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n", out);
	fprintf(out, "\ntrace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"");
	for (int i = 0; i < 16; i++)
		fprintf(out, "%02x%s", uuid[i], i == 3 || i == 5 || i == 7 || i == 9 ? "-" : "");
	fputs("\";\n\tbyte_order = le;\n" TC_CTF_PACKET_HEADER "};\n\n", out);
	print_env(out);
	tc_ctf_clock_format(clock_text, sizeof(clock_text), clock);
	fputs(clock_text, out);
	fputc('\n', out);
	fputs("stream {\n\tid = 0;\n\tevent.header := struct {\n\t\tuint32_t id;\n"
	      "\t\tuint64_clock_monotonic_t timestamp;\n\t} align(8);\n" TC_CTF_PACKET_CONTEXT,
	      out);
	print_event_context(out, contexts);
	fputs("};\n\n", out);
}

static void
print_event(FILE *out, struct tep_event *event)
{
	struct tep_format_field **fields = tep_event_fields(event);
	struct tep_format_field **common = tep_event_common_fields(event);
	char name[CONSUMERD_KERNEL_EVENT_NAME_MAX];
	unsigned int repeated = 0;

	tc_consumerd_kernel_lttng_event_name(event->system, event->name, name);
	fprintf(out, "event {\n\tname = \"%s\";\n\tid = %d;\n\tstream_id = 0;\n"
		     "\tfields := struct {\n",
		name, event->id);
	for (int i = 0; common && common[i]; i++)
		print_field(out, common[i],
			    tc_consumerd_kernel_lttng_field_name(event->system, common[i]->name));
	for (int i = 0; fields && fields[i]; i++)
		print_field(out, fields[i],
			    tc_consumerd_kernel_lttng_field_name(event->system, fields[i]->name));
	for (int i = 0; fields && fields[i] && repeated < CONSUMERD_KERNEL_LTTNG_REPEATED_MAX; i++)
		if (tc_consumerd_kernel_lttng_field_repeated(event->system, event->name,
							     fields[i]->name)) {
			print_field(out, fields[i], fields[i]->name);
			repeated++;
		}
	fputs("\t} align(8);\n};\n\n", out);
	free(fields);
	free(common);
}

static char *
finish(struct text *text, size_t *len)
{
	if (fclose(text->out) != 0) {
		free(text->buf);
		return NULL;
	}
	*len = text->len;
	return text->buf;
}

char *
tc_consumerd_kernel_metadata(struct tep_handle *tep, const uint8_t uuid[16],
			     const struct tc_consumer_clock *clock, uint32_t contexts, size_t *len)
{
	struct tep_event **events = tep_list_events(tep, TEP_EVENT_SORT_ID);
	struct text text = {0};

	text.out = open_memstream(&text.buf, &text.len);
	if (!text.out)
		return NULL;
	print_header(text.out, uuid, clock, contexts);
	for (int i = 0; events && events[i]; i++)
		print_event(text.out, events[i]);
	/* Declared whether or not a dump comes (a start without one, a kernel
	 * without raw_data): a class without events costs readers nothing. */
	tc_consumerd_kernel_statedump_metadata(text.out);
	return finish(&text, len);
}

char *
tc_consumerd_kernel_metadata_events(struct tep_event **events, size_t *len)
{
	struct text text = {0};

	text.out = open_memstream(&text.buf, &text.len);
	if (!text.out)
		return NULL;
	for (int i = 0; events[i]; i++)
		print_event(text.out, events[i]);
	return finish(&text, len);
}
