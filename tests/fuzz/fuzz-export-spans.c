/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the exporter's reading of spans from traces (exporter/
 * tc-export-spans.c) and the documents it makes of them (tc-export-model.c,
 * tc-export-otlp-proto.c, tc-export-protobuf.c, tc-export-otlp.c,
 * tc-export-zipkin.c, tc-export-json.c). Applications write the
 * tracectl_span events, so every name, field type and value in them is
 * another party's choice; the CTF decoding that turns their bytes into
 * babeltrace2 messages is babeltrace2's, not ours.
 *
 * So the input becomes babeltrace2 messages, as src.ctf.fs and a muxer hand
 * them to sink.tracectl.*: a graph made per input runs a source component
 * class of the harness's own, whose trace class, stream classes (with or
 * without a clock, packets, a hostname, procname and vpid contexts of the
 * right or a wrong type), event classes and events come from the input,
 * into a simple sink that does what tc-export-plugin.c's consume method
 * does: every message to tc_export_spans_add_message(), the ended spans
 * taken in batches of the input's size and when the source has nothing for
 * now (a live session), every span taken at the end. The graph and its
 * classes are a sixth of a small input's time, the documents made and read
 * back half of it, so the graph is made per input (docs/testing.md).
 *
 * The input, byte by byte: the run's flags (one or two traces, batches,
 * messages per call of the source), the batch size, the time base; per
 * trace its clock's offset back from the time base, its layout byte
 * (clock, packets, hostname as a string or an integer, procname and vpid
 * contexts and their types), its hostname and first context values; then up
 * to three odd event classes (a span event name or another, members named
 * as the exporter reads them or not, of any type); then the events, each
 * an operation byte (which event class, which trace, how far the clock
 * moves) and the values of its fields: ids, most of them small so that
 * spans meet, bytes, numbers, reals (NaN and infinities among them), texts
 * of any bytes but NUL, huge ones too. Operations also start or end a run
 * of up to 64 spans, change a trace's context, and make the source say
 * it has nothing for now; an input holds up to 256 events, so hundreds of
 * open spans. Times run forward, as a muxer hands them, and always fit in
 * nanoseconds from the origin (a muxer refuses others).
 *
 * The harness keeps its own model of the spans, written from tc-export-
 * spans.h and the tracepoint layout (probes/lib/tc-span-tp.h) rather than
 * from the code, and fed the same events at the same moments. What must
 * hold, beside no error under the sanitizers, GLib criticals and warnings
 * being fatal and no error left on babeltrace2's thread:
 *
 * - A member is read only when it has the name and type of the tracepoint's
 *   layout (any integer for an integer); else its default applies (ids 0,
 *   kind 1, no text). Texts are UTF-8, each invalid sequence as U+FFFD.
 *   Events of other names count only for the time of their trace's last
 *   event.
 * - A span is named by its trace and span id; an event goes to the span
 *   last started under that name if it has not been taken, and counts as
 *   an orphan otherwise. A span ends once, at its first end event.
 * - The ended count is the model's after every batch; a take gives exactly
 *   the spans the model gives, in the same order (by start time, in order
 *   of arrival between equal times), each with every field as the model
 *   has it: ids, kind, status, texts, times, attributes, annotations, links,
 *   resource (host, service, process name, pid), trace; the last take also
 *   ends the unfinished spans at their trace's last event and gives the
 *   orphan count. Spans of the same resource share it; others do not.
 * - Every take's OTLP/HTTP protobuf, decoded by the harness's own reader
 *   of the wire format, and its OTLP/HTTP JSON and Zipkin v2 JSON, parsed
 *   by json-glib, hold each span of the take once, in the take's order,
 *   with its ids, name, kind, times, attributes, events and status, its
 *   tracestate (the last tracestate event's, byte for byte as UTF-8, and
 *   no traceState at all when that is empty or missing), its links in the
 *   order of their events (ids, and tracestate as the span's), under one
 *   ResourceSpans per resource, and Zipkin's with its endpoints and tags
 *   (no tracestate and no links: Zipkin v2 has neither); the JSON documents are UTF-8
 *   with no raw control character (RFC 8259), so that any receiver takes
 *   them (fuzz-export-documents.c).
 *
 * Built with libFuzzer it is a coverage-guided fuzzer, from the top of the
 * source tree (Debian's clang-14):
 *
 *   clang -g -O1 -DFUZZ_LIBFUZZER -fsanitize=fuzzer,address,undefined \
 *     -Itests/fuzz -Iexporter $(pkg-config --cflags babeltrace2 \
 *     json-glib-1.0 glib-2.0) tests/fuzz/fuzz-export-spans.c \
 *     tests/fuzz/fuzz-export-documents.c exporter/tc-export-spans.c \
 *     exporter/tc-export-model.c exporter/tc-export-otlp.c \
 *     exporter/tc-export-otlp-proto.c exporter/tc-export-protobuf.c \
 *     exporter/tc-export-zipkin.c exporter/tc-export-json.c \
 *     $(pkg-config --libs babeltrace2 json-glib-1.0 glib-2.0) -lm \
 *     -o fuzz-export-spans
 *   ./fuzz-export-spans -max_len=4096 -max_total_time=300 CORPUS_DIR
 *
 * Otherwise fuzz-driver.c's main() mutates the seeds below:
 * `fuzz-export-spans --seed N --runs M`.
 */
#include <babeltrace2/babeltrace.h>
#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-driver.h"
#include "fuzz-export-documents.h"
#include "tc-export-spans.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define TRACES_MAX 2u
#define ODD_CLASSES_MAX 3u
#define MEMBERS_MAX 9u
/* Each span costs: its events, then every document it is in, read back
 * (docs/testing.md); a few hundred in an input keep it under 0.1 s. */
#define EVENTS_MAX 256u
#define RUN_MAX 64u
/* Texts of one input, huge ones included, stay within this. */
#define TEXT_BUDGET (32u * 1024u)
#define HUGE_TEXT (8u * 1024u)
#define NS_PER_S INT64_C(1000000000)
/* babeltrace2 refuses a clock offset whose nanoseconds leave int64_t. */
#define OFFSET_S_MIN (INT64_MIN / NS_PER_S)
#define OFFSET_S_MAX (INT64_MAX / NS_PER_S - 2)
#define SPAN_PREFIX "tracectl_span:"


enum outcome {
	SPAN_ENDED,
	SPAN_UNFINISHED,
	ORPHAN,
	ID_REUSED,
	BATCH_TAKEN,
	ODD_LAYOUT,
	ATTRIBUTE,
	ANNOTATION,
	ENDPOINT,
	HUGE_TEXT_SEEN,
	MANY_SPANS,
	NO_CLOCK,
	NOT_UTF8,
	TRACE_STATE,
	LINK,
	OUTCOMES,
};
/* Named by the standalone driver only. */
static const char *const outcome_names[OUTCOMES] __attribute__((unused)) = {
    "span ended", "span unfinished", "orphan",	   "id reused",	 "batch taken",
    "odd layout", "attribute",	     "annotation", "endpoint",	 "huge text",
    "many spans", "no clock",	     "not utf-8",  "tracestate", "link",
};
static unsigned long long outcomes[OUTCOMES];

/* The field types a member may have. */
enum member_type {
	MT_U8,
	MT_U16,
	MT_U32,
	MT_U64,
	MT_S8,
	MT_S16,
	MT_S32,
	MT_S64,
	MT_UENUM,
	MT_SENUM,
	MT_STRING,
	MT_DOUBLE,
	MT_SINGLE,
	MT_BOOL,
	MT_BITS,
	MT_STRUCT,
	MT_COUNT,
};

/* How the input gives a member's value. */
enum role { ROLE_ID, ROLE_BYTE, ROLE_NUMBER, ROLE_REAL, ROLE_TEXT, ROLE_NONE };

struct member {
	const char *name;
	enum member_type type;
	enum role role;
};

/* The tracepoints' layout (probes/lib/tc-span-tp.h), and an event of
 * another provider without a payload. */
static const struct member start_members[] = {
    {"trace_id_hi", MT_U64, ROLE_ID}, {"trace_id_lo", MT_U64, ROLE_ID},
    {"span_id", MT_U64, ROLE_ID},     {"parent_span_id", MT_U64, ROLE_ID},
    {"kind", MT_U8, ROLE_BYTE},	      {"flags", MT_U8, ROLE_BYTE},
    {"name", MT_STRING, ROLE_TEXT},   {"service", MT_STRING, ROLE_TEXT},
    {"address", MT_STRING, ROLE_TEXT},
};
static const struct member message_members[] = {
    {"span_id", MT_U64, ROLE_ID},
    {"message", MT_STRING, ROLE_TEXT},
};
static const struct member attr_int_members[] = {
    {"span_id", MT_U64, ROLE_ID}, {"key", MT_STRING, ROLE_TEXT}, {"value", MT_S64, ROLE_NUMBER}};
static const struct member attr_double_members[] = {
    {"span_id", MT_U64, ROLE_ID}, {"key", MT_STRING, ROLE_TEXT}, {"value", MT_DOUBLE, ROLE_REAL}};
static const struct member attr_string_members[] = {
    {"span_id", MT_U64, ROLE_ID}, {"key", MT_STRING, ROLE_TEXT}, {"value", MT_STRING, ROLE_TEXT}};
static const struct member attr_bool_members[] = {
    {"span_id", MT_U64, ROLE_ID}, {"key", MT_STRING, ROLE_TEXT}, {"value", MT_U8, ROLE_BYTE}};
static const struct member remote_members[] = {
    {"span_id", MT_U64, ROLE_ID},
    {"service", MT_STRING, ROLE_TEXT},
    {"address", MT_STRING, ROLE_TEXT},
};
static const struct member tracestate_members[] = {
    {"span_id", MT_U64, ROLE_ID},
    {"tracestate", MT_STRING, ROLE_TEXT},
};
static const struct member link_members[] = {
    {"span_id", MT_U64, ROLE_ID},	  {"trace_id_hi", MT_U64, ROLE_ID},
    {"trace_id_lo", MT_U64, ROLE_ID},	  {"linked_span_id", MT_U64, ROLE_ID},
    {"flags", MT_U8, ROLE_BYTE},	  {"tracestate", MT_STRING, ROLE_TEXT},
};
static const struct member end_members[] = {
    {"span_id", MT_U64, ROLE_ID},
    {"status", MT_U8, ROLE_BYTE},
};

struct standard_class {
	const char *name;
	const struct member *members;
	guint n_members;
	gboolean has_payload;
};

#define STANDARD(name, members) {name, members, ARRAY_LEN(members), TRUE}
enum {
	STANDARD_START,
	STANDARD_END = 8,
	STANDARD_OTHER = 9,
	STANDARD_TRACESTATE = 10,
	STANDARD_LINK = 11,
	STANDARD_CLASSES = 12
};
static const struct standard_class standard_classes[STANDARD_CLASSES] = {
    STANDARD(SPAN_PREFIX "start", start_members),
    STANDARD(SPAN_PREFIX "annotation", message_members),
    STANDARD(SPAN_PREFIX "attr_int", attr_int_members),
    STANDARD(SPAN_PREFIX "attr_double", attr_double_members),
    STANDARD(SPAN_PREFIX "attr_string", attr_string_members),
    STANDARD(SPAN_PREFIX "attr_bool", attr_bool_members),
    STANDARD(SPAN_PREFIX "error", message_members),
    STANDARD(SPAN_PREFIX "remote", remote_members),
    STANDARD(SPAN_PREFIX "end", end_members),
    {"myapp:request", NULL, 0, FALSE},
    STANDARD(SPAN_PREFIX "tracestate", tracestate_members),
    STANDARD(SPAN_PREFIX "link", link_members),
};

/* What an odd event class may be called, and its members: the input
 * picks one of these or a text of its own (the last entry). */
static const char *const odd_class_names[] = {
    SPAN_PREFIX "start",     SPAN_PREFIX "end",	  SPAN_PREFIX "annotation",
    SPAN_PREFIX "attr_int",  SPAN_PREFIX "attr_double", SPAN_PREFIX "attr_string",
    SPAN_PREFIX "attr_bool", SPAN_PREFIX "error", SPAN_PREFIX "remote",
    SPAN_PREFIX "tracestate", SPAN_PREFIX "link", SPAN_PREFIX, SPAN_PREFIX "bogus", "tracectl_span",
    "tracectl_spanner:start", "lttng_ust_statedump:start", "TRACECTL_SPAN:start", NULL,
};
static const char *const odd_member_names[] = {
    "span_id", "trace_id_hi", "trace_id_lo", "parent_span_id", "kind", "flags",
    "name",    "service",	  "address",	 "message",	   "key",  "value",
    "status",  "procname",	  "vpid",	 "tracestate",     "linked_span_id", NULL,
};

/* A member's value as babeltrace2 holds it: integers as 64 bits (signed
 * ones sign-extended), single-precision reals as the float widened. */
struct value {
	uint64_t integer;
	double real;
	const char *text; /* NUL-terminated, owned by the plan */
	const char *utf8; /* text with each invalid sequence as U+FFFD */
};

struct klass {
	guint trace;
	const char *name;
	gboolean has_payload;
	guint n_members;
	struct member members[MEMBERS_MAX];
	bt_event_class *bt;
};

struct event {
	guint klass;
	int64_t time_ns; /* on the run's time line, whatever its trace's clock */
	gboolean idle_before; /* the source has nothing for now before it */
	struct value values[MEMBERS_MAX];
	struct value context[2]; /* procname, vpid */
};

/* A trace's layout byte. */
#define LAYOUT_CLOCK 0x01u
#define LAYOUT_PACKETS 0x02u
#define LAYOUT_HOSTNAME 0x04u
#define LAYOUT_HOSTNAME_NUMBER 0x08u
#define LAYOUT_PROCNAME 0x10u
#define LAYOUT_VPID 0x20u
#define LAYOUT_CONTEXT_WRONG 0x40u /* procname an integer, vpid a string */
#define LAYOUT_VPID_UNSIGNED 0x80u

struct trace {
	guint8 layout;
	int64_t offset_s;
	struct value hostname; /* if LAYOUT_HOSTNAME, else its number if LAYOUT_HOSTNAME_NUMBER */
	guint n_context;
	struct member context[2];
	struct value context_now; /* while the plan is read: procname, vpid */
	struct value vpid_now;
	guint standard[STANDARD_CLASSES];
	bt_trace *bt;
	bt_stream *stream;
	bt_packet *packet;
};

/* The run's flags byte. */
#define RUN_TWO_TRACES 0x01u
#define RUN_BATCHES 0x02u
#define RUN_PER_NEXT_SHIFT 2 /* 3 bits: messages per call of the source - 1 */

enum phase { PHASE_STREAMS, PHASE_PACKETS, PHASE_EVENTS, PHASE_PACKET_ENDS, PHASE_STREAM_ENDS,
	     PHASE_DONE };

struct plan {
	guint n_traces;
	struct trace traces[TRACES_MAX];
	GArray *klasses; /* struct klass */
	GArray *events;	 /* struct event */
	GPtrArray *texts;
	gsize text_bytes;
	guint per_next;
	gboolean batches;
	guint batch_size;
	int64_t time_ns, time_max_ns;
	/* The source's place. */
	enum phase phase;
	guint next_item;
	gboolean idle_given;
	/* The sink's place. */
	guint sink_event;
	gboolean ended;
};

/* --- Reading the input into a plan --- */

static const char *
plan_keep_text(struct plan *plan, char *text)
{
	g_ptr_array_add(plan->texts, text);
	return text;
}

static struct value
text_value(struct plan *plan, const char *text)
{
	struct value value = {0, 0, text, text};

	if (!g_utf8_validate(text, -1, NULL))
		value.utf8 = plan_keep_text(plan, g_utf8_make_valid(text, -1));
	return value;
}

/* A text as CTF holds one: any bytes up to the first NUL. A length byte
 * of 0xff gives a huge text of one byte repeated, within the budget; not
 * for a trace's texts (hostname, procname), which every span of the trace
 * repeats in Zipkin's tags. Huge texts are slow to check in every
 * document, so they take that one value. */
static struct value
take_text(struct plan *plan, struct fuzz_input *in, gboolean may_be_huge)
{
	guint8 length = fuzz_take_byte(in);
	gboolean huge = length == 0xff && may_be_huge;
	gsize size = huge ? HUGE_TEXT : length;
	char *text;

	if (huge) {
		guint8 fill = fuzz_take_byte(in);

		if (plan->text_bytes + size > TEXT_BUDGET)
			size = 0;
		text = g_malloc(size + 1);
		memset(text, fill ? fill : 'x', size);
		text[size] = '\0';
		outcomes[HUGE_TEXT_SEEN] += size > 0;
	} else {
		text = g_malloc(size + 1);
		for (gsize i = 0; i < size; i++)
			text[i] = (char)fuzz_take_byte(in);
		text[size] = '\0';
	}
	plan->text_bytes += size;
	return text_value(plan, plan_keep_text(plan, text));
}

static uint64_t
take_u64(struct fuzz_input *in)
{
	return fuzz_take_u32(in) | (uint64_t)fuzz_take_u32(in) << 32;
}

/* Ids: mostly small, so that events name the spans started before. */
static uint64_t
take_id(struct fuzz_input *in)
{
	guint8 byte = fuzz_take_byte(in);

	switch (byte) {
	case 0xfc:
		return UINT64_MAX;
	case 0xfd:
		return UINT64_C(1) << 63;
	case 0xfe:
		return (UINT64_C(1) << 63) + fuzz_take_byte(in);
	case 0xff:
		return take_u64(in);
	default:
		return byte;
	}
}

static uint64_t
take_number(struct fuzz_input *in)
{
	guint8 byte = fuzz_take_byte(in);

	return byte < 0x80 ? (uint64_t)((int64_t)byte - 0x40) : take_u64(in);
}

static double
take_real(struct fuzz_input *in)
{
	guint8 byte = fuzz_take_byte(in);
	uint64_t bits;
	double real;

	switch (byte) {
	case 0xf0:
		return NAN;
	case 0xf1:
		return INFINITY;
	case 0xf2:
		return -INFINITY;
	case 0xf3:
		return -0.0;
	case 0xf4:
		return G_MAXDOUBLE;
	case 0xf5:
		return 4.9e-324;
	default:
		if (byte < 0xf0)
			return ((double)byte - 0x78) / 4;
		bits = take_u64(in);
		memcpy(&real, &bits, sizeof(real));
		return real;
	}
}

static gboolean
type_is_integer(enum member_type type)
{
	return type <= MT_SENUM;
}

static guint
integer_bits(enum member_type type)
{
	static const guint bits[] = {8, 16, 32, 64, 8, 16, 32, 64};

	return type < G_N_ELEMENTS(bits) ? bits[type] : 64;
}

/* The value as babeltrace2 keeps it in a field of that type. */
static struct value
value_as_stored(enum member_type type, struct value value)
{
	guint bits = integer_bits(type);
	uint64_t mask = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;

	if (type <= MT_U64) {
		value.integer &= mask;
	} else if (type <= MT_S64 && bits < 64) {
		uint64_t sign = UINT64_C(1) << (bits - 1);

		value.integer &= mask;
		value.integer = (value.integer ^ sign) - sign;
	} else if (type == MT_SINGLE) {
		value.real = (double)(float)value.real;
	} else if (type == MT_BOOL) {
		value.integer = value.integer != 0;
	}
	return value;
}

static struct value
take_value(struct plan *plan, struct fuzz_input *in, const struct member *member)
{
	struct value value = {0, 0, "", ""};

	switch (member->role) {
	case ROLE_ID:
		value.integer = take_id(in);
		break;
	case ROLE_BYTE:
		value.integer = fuzz_take_byte(in);
		break;
	case ROLE_NUMBER:
		value.integer = take_number(in);
		break;
	case ROLE_REAL:
		value.real = take_real(in);
		break;
	case ROLE_TEXT:
		value = take_text(plan, in, TRUE);
		break;
	case ROLE_NONE:
		break;
	}
	return value_as_stored(member->type, value);
}

static enum role
role_of(enum member_type type)
{
	if (type_is_integer(type) || type == MT_BITS)
		return ROLE_ID;
	switch (type) {
	case MT_STRING:
		return ROLE_TEXT;
	case MT_DOUBLE:
	case MT_SINGLE:
		return ROLE_REAL;
	case MT_BOOL:
		return ROLE_BYTE;
	default:
		return ROLE_NONE;
	}
}

static guint
plan_add_class(struct plan *plan, guint trace, const char *name, gboolean has_payload)
{
	struct klass klass = {.trace = trace, .name = name, .has_payload = has_payload};

	g_array_append_val(plan->klasses, klass);
	return plan->klasses->len - 1;
}

static struct klass *
plan_class(const struct plan *plan, guint index)
{
	return &g_array_index(plan->klasses, struct klass, index);
}

static struct event *
plan_event(const struct plan *plan, guint index)
{
	return &g_array_index(plan->events, struct event, index);
}

/* The context members of a trace's events, as its layout byte says. */
static void
read_context_layout(struct trace *trace)
{
	gboolean wrong = (trace->layout & LAYOUT_CONTEXT_WRONG) != 0;

	if (trace->layout & LAYOUT_PROCNAME)
		trace->context[trace->n_context++] =
		    (struct member){"procname", wrong ? MT_U64 : MT_STRING, ROLE_NONE};
	if (trace->layout & LAYOUT_VPID)
		trace->context[trace->n_context++] =
		    (struct member){"vpid",
				    wrong ? MT_STRING
				    : trace->layout & LAYOUT_VPID_UNSIGNED ? MT_U64
									   : MT_S64,
				    ROLE_NONE};
}

/* procname and vpid from now on, for the trace's events. */
static void
take_context(struct plan *plan, struct fuzz_input *in, struct trace *trace)
{
	trace->context_now = take_text(plan, in, FALSE);
	trace->context_now.integer = 7;
	trace->vpid_now = (struct value){take_number(in), 0, "42", "42"};
}

static void
read_trace(struct plan *plan, struct fuzz_input *in, guint index, int64_t base_s)
{
	struct trace *trace = &plan->traces[index];
	guint8 back_s = fuzz_take_byte(in);

	trace->layout = fuzz_take_byte(in);
	trace->offset_s = MAX(base_s - back_s, OFFSET_S_MIN);
	trace->hostname = take_text(plan, in, FALSE);
	trace->hostname.integer = take_number(in);
	read_context_layout(trace);
	take_context(plan, in, trace);
	for (guint i = 0; i < STANDARD_CLASSES; i++) {
		const struct standard_class *standard = &standard_classes[i];
		guint k = plan_add_class(plan, index, standard->name, standard->has_payload);
		struct klass *klass = plan_class(plan, k);

		klass->n_members = standard->n_members;
		for (guint m = 0; m < standard->n_members; m++)
			klass->members[m] = standard->members[m];
		trace->standard[i] = k;
	}
	if (trace->layout & LAYOUT_CLOCK) {
		int64_t offset_ns = trace->offset_s * NS_PER_S;

		/* A value of the clock stays below INT64_MAX nanoseconds. */
		if (offset_ns <= 0)
			plan->time_max_ns = MIN(plan->time_max_ns, offset_ns + (INT64_MAX - 1));
	}
}

static gboolean
klass_has_member(const struct klass *klass, const char *name)
{
	for (guint i = 0; i < klass->n_members; i++)
		if (strcmp(klass->members[i].name, name) == 0)
			return TRUE;
	return FALSE;
}

static const char *
take_name(struct plan *plan, struct fuzz_input *in, const char *const *names, guint n_names)
{
	const char *name = names[fuzz_take_byte(in) % n_names];

	return name ? name : take_text(plan, in, TRUE).text;
}

/* An event class of a name and members the input picks; babeltrace2 takes
 * no two members of one name, so a repeated name is left out. */
static void
read_odd_class(struct plan *plan, struct fuzz_input *in)
{
	guint8 how = fuzz_take_byte(in);
	const char *name = take_name(plan, in, odd_class_names, ARRAY_LEN(odd_class_names));
	guint k = plan_add_class(plan, (how & 1) % plan->n_traces, name, !(how & 0x80));
	struct klass *klass = plan_class(plan, k);
	guint n_members = klass->has_payload ? (how >> 1) % (MEMBERS_MAX + 1) : 0;

	for (guint i = 0; i < n_members; i++) {
		const char *member =
		    take_name(plan, in, odd_member_names, ARRAY_LEN(odd_member_names));
		enum member_type type = (enum member_type)(fuzz_take_byte(in) % MT_COUNT);

		if (klass_has_member(klass, member))
			continue;
		klass->members[klass->n_members++] = (struct member){member, type, role_of(type)};
	}
}

/* The event operation byte. */
#define OP_WHAT_MASK 0x0fu
#define OP_TRACE 0x10u
#define OP_TIME_SHIFT 5
/* OP_W3C is a tracestate event, or a link event when the byte after the
 * operation (and its time) is odd. */
enum { OP_ODD = 10, OP_RUN_START, OP_RUN_END, OP_IDLE, OP_CONTEXT, OP_W3C };

static int64_t
saturating_add(int64_t a, uint64_t delta, int64_t max)
{
	if (delta > (uint64_t)max - (uint64_t)a)
		return max;
	return a + (int64_t)delta;
}

/* The time line moves forward by the operation's top bits. */
static void
advance_time(struct plan *plan, struct fuzz_input *in, guint8 op)
{
	guint how = op >> OP_TIME_SHIFT;
	uint64_t delta = 0;

	if (how >= 1 && how <= 4)
		delta = (uint64_t)fuzz_take_byte(in) << (4 * (how - 1));
	else if (how == 5)
		delta = (uint64_t)fuzz_take_byte(in) * NS_PER_S;
	else if (how == 6)
		delta = take_u64(in) >> 2;
	else if (how == 7)
		delta = UINT64_MAX;
	plan->time_ns = saturating_add(plan->time_ns, delta, plan->time_max_ns);
}

static struct event *
plan_add_event(struct plan *plan, guint k, gboolean idle_before)
{
	struct event event = {.klass = k, .time_ns = plan->time_ns, .idle_before = idle_before};
	const struct trace *trace = &plan->traces[plan_class(plan, k)->trace];

	event.context[0] = trace->context_now;
	event.context[1] = trace->vpid_now;
	g_array_append_val(plan->events, event);
	return plan_event(plan, plan->events->len - 1);
}

static void
read_event(struct plan *plan, struct fuzz_input *in, guint k, gboolean idle_before)
{
	struct event *event = plan_add_event(plan, k, idle_before);
	const struct klass *klass = plan_class(plan, k);

	for (guint i = 0; i < klass->n_members; i++)
		event->values[i] = take_value(plan, in, &klass->members[i]);
}

/* A run of starts (of spans id, id + 1, ... of two trace ids) or of ends,
 * a nanosecond apart: up to 8 events, or RUN_MAX from a count of 0xff, so
 * that inputs with hundreds of spans are there but rare. */
static void
read_run(struct plan *plan, struct fuzz_input *in, struct trace *trace, gboolean start,
	 gboolean idle_before)
{
	guint8 count_byte = fuzz_take_byte(in);
	guint count = count_byte == 0xff ? RUN_MAX : 1u + count_byte % 8u;
	uint64_t first = take_id(in);
	uint64_t trace_hi = take_id(in), trace_lo = take_id(in);

	count = MIN(count, EVENTS_MAX - plan->events->len);
	for (guint i = 0; i < count; i++) {
		guint k = trace->standard[start ? STANDARD_START : STANDARD_END];
		struct event *event = plan_add_event(plan, k, idle_before && i == 0);

		if (start) {
			event->values[0].integer = trace_hi;
			event->values[1].integer = trace_lo;
			event->values[4].integer = 2; /* server */
			for (guint m = 6; m < 9; m++)
				event->values[m].text = event->values[m].utf8 = m == 6 ? "run" : "";
		}
		event->values[start ? 2 : 0].integer = first + i;
		plan->time_ns = saturating_add(plan->time_ns, 1, plan->time_max_ns);
	}
}

static void
read_events(struct plan *plan, struct fuzz_input *in)
{
	gboolean idle = FALSE;

	while (in->pos < in->size && plan->events->len < EVENTS_MAX) {
		guint8 op = fuzz_take_byte(in);
		guint what = op & OP_WHAT_MASK;
		struct trace *trace = &plan->traces[(op & OP_TRACE ? 1 : 0) % plan->n_traces];
		guint n_odd = plan->klasses->len - plan->n_traces * STANDARD_CLASSES;

		advance_time(plan, in, op);
		if (what <= STANDARD_OTHER) {
			read_event(plan, in, trace->standard[what], idle);
		} else if (what == OP_W3C) {
			guint which = fuzz_take_byte(in) & 1u ? STANDARD_LINK : STANDARD_TRACESTATE;

			read_event(plan, in, trace->standard[which], idle);
		} else if (what == OP_ODD) {
			guint8 which = fuzz_take_byte(in);

			if (n_odd == 0)
				continue;
			read_event(plan, in, plan->n_traces * STANDARD_CLASSES + which % n_odd, idle);
		} else if (what == OP_RUN_START || what == OP_RUN_END) {
			read_run(plan, in, trace, what == OP_RUN_START, idle);
		} else if (what == OP_IDLE) {
			idle = TRUE;
			continue;
		} else { /* OP_CONTEXT */
			take_context(plan, in, trace);
			continue;
		}
		idle = FALSE;
	}
}

static void
plan_free(struct plan *plan)
{
	for (guint i = 0; i < plan->n_traces; i++) {
		bt_packet_put_ref(plan->traces[i].packet);
		bt_stream_put_ref(plan->traces[i].stream);
		bt_trace_put_ref(plan->traces[i].bt);
	}
	for (guint i = 0; i < plan->klasses->len; i++)
		bt_event_class_put_ref(plan_class(plan, i)->bt);
	g_array_unref(plan->klasses);
	g_array_unref(plan->events);
	g_ptr_array_unref(plan->texts);
}

static void
plan_read(struct plan *plan, struct fuzz_input *in)
{
	guint8 flags = fuzz_take_byte(in);
	guint8 batch = fuzz_take_byte(in);
	guint8 base = fuzz_take_byte(in);
	int64_t base_ns;

	memset(plan, 0, sizeof(*plan));
	plan->klasses = g_array_new(FALSE, TRUE, sizeof(struct klass));
	plan->events = g_array_new(FALSE, TRUE, sizeof(struct event));
	plan->texts = g_ptr_array_new_with_free_func(g_free);
	plan->n_traces = flags & RUN_TWO_TRACES ? 2 : 1;
	plan->batches = (flags & RUN_BATCHES) != 0;
	plan->per_next = 1 + ((flags >> RUN_PER_NEXT_SHIFT) & 7u);
	plan->batch_size = 1 + batch % 16;
	switch (base & 3) {
	case 0:
		base_ns = 0;
		break;
	case 1: /* now, or so */
		base_ns = INT64_C(1700000000) * NS_PER_S + (base >> 2);
		break;
	case 2: /* before the epoch */
		base_ns = -INT64_C(1700000000) * NS_PER_S - (base >> 2);
		break;
	default:
		base_ns = (int64_t)take_u64(in);
		break;
	}
	base_ns = CLAMP(base_ns, OFFSET_S_MIN * NS_PER_S, OFFSET_S_MAX * NS_PER_S);
	plan->time_ns = base_ns;
	plan->time_max_ns = INT64_MAX;
	for (guint i = 0; i < plan->n_traces; i++)
		read_trace(plan, in, i, base_ns / NS_PER_S - (base_ns % NS_PER_S < 0));
	for (guint n = fuzz_take_byte(in) % (ODD_CLASSES_MAX + 1); n > 0; n--)
		read_odd_class(plan, in);
	read_events(plan, in);
}

/* --- The source: the plan as babeltrace2 messages --- */

static bt_field_class *
field_class_new(bt_trace_class *trace_class, enum member_type type)
{
	bt_field_class *fc;

	switch (type) {
	case MT_UENUM:
		return bt_field_class_enumeration_unsigned_create(trace_class);
	case MT_SENUM:
		return bt_field_class_enumeration_signed_create(trace_class);
	case MT_STRING:
		return bt_field_class_string_create(trace_class);
	case MT_DOUBLE:
		return bt_field_class_real_double_precision_create(trace_class);
	case MT_SINGLE:
		return bt_field_class_real_single_precision_create(trace_class);
	case MT_BOOL:
		return bt_field_class_bool_create(trace_class);
	case MT_BITS:
		return bt_field_class_bit_array_create(trace_class, 64);
	case MT_STRUCT:
		return bt_field_class_structure_create(trace_class);
	default:
		fc = type <= MT_U64 ? bt_field_class_integer_unsigned_create(trace_class)
				    : bt_field_class_integer_signed_create(trace_class);
		bt_field_class_integer_set_field_value_range(fc, integer_bits(type));
		return fc;
	}
}

static bt_field_class *
structure_class_new(bt_trace_class *trace_class, const struct member *members, guint n)
{
	bt_field_class *structure = bt_field_class_structure_create(trace_class);

	for (guint i = 0; i < n; i++) {
		bt_field_class *member = field_class_new(trace_class, members[i].type);

		if (bt_field_class_structure_append_member(structure, members[i].name, member) !=
		    BT_FIELD_CLASS_STRUCTURE_APPEND_MEMBER_STATUS_OK)
			FAIL("cannot add member '%s'", members[i].name);
		bt_field_class_put_ref(member);
	}
	return structure;
}

static void
field_set(bt_field *field, enum member_type type, const struct value *value)
{
	switch (type) {
	case MT_STRING:
		if (bt_field_string_set_value(field, value->text) != BT_FIELD_STRING_SET_VALUE_STATUS_OK)
			FAIL("cannot set a string");
		break;
	case MT_DOUBLE:
		bt_field_real_double_precision_set_value(field, value->real);
		break;
	case MT_SINGLE:
		bt_field_real_single_precision_set_value(field, (float)value->real);
		break;
	case MT_BOOL:
		bt_field_bool_set_value(field, value->integer != 0);
		break;
	case MT_BITS:
		bt_field_bit_array_set_value_as_integer(field, value->integer);
		break;
	case MT_STRUCT:
		break;
	default:
		if (type <= MT_U64 || type == MT_UENUM)
			bt_field_integer_unsigned_set_value(field, value->integer);
		else
			bt_field_integer_signed_set_value(field, (int64_t)value->integer);
		break;
	}
}

static void
structure_set(bt_field *structure, const struct member *members, guint n,
	      const struct value *values)
{
	for (guint i = 0; i < n; i++)
		field_set(bt_field_structure_borrow_member_field_by_index(structure, i),
			  members[i].type, &values[i]);
}

static bt_stream_class *
stream_class_new(bt_self_component *self, bt_trace_class *trace_class,
		 const struct trace *trace)
{
	bt_stream_class *stream_class = bt_stream_class_create(trace_class);

	if (trace->layout & LAYOUT_CLOCK) {
		bt_clock_class *clock = bt_clock_class_create(self);

		bt_clock_class_set_frequency(clock, NS_PER_S);
		bt_clock_class_set_offset(clock, trace->offset_s, 0);
		bt_stream_class_set_default_clock_class(stream_class, clock);
		bt_clock_class_put_ref(clock);
	}
	if (trace->layout & LAYOUT_PACKETS)
		bt_stream_class_set_supports_packets(stream_class, BT_TRUE, BT_FALSE, BT_FALSE);
	if (trace->n_context > 0) {
		bt_field_class *context =
		    structure_class_new(trace_class, trace->context, trace->n_context);

		bt_stream_class_set_event_common_context_field_class(stream_class, context);
		bt_field_class_put_ref(context);
	}
	return stream_class;
}

/* One trace class, stream class and stream per trace of the plan. */
static void
source_make_trace(bt_self_component *self, struct plan *plan, guint index)
{
	struct trace *trace = &plan->traces[index];
	bt_trace_class *trace_class = bt_trace_class_create(self);
	bt_stream_class *stream_class = stream_class_new(self, trace_class, trace);

	for (guint k = 0; k < plan->klasses->len; k++) {
		struct klass *klass = plan_class(plan, k);

		if (klass->trace != index)
			continue;
		klass->bt = bt_event_class_create(stream_class);
		bt_event_class_set_name(klass->bt, klass->name);
		if (klass->has_payload) {
			bt_field_class *payload =
			    structure_class_new(trace_class, klass->members, klass->n_members);

			bt_event_class_set_payload_field_class(klass->bt, payload);
			bt_field_class_put_ref(payload);
		}
	}
	trace->bt = bt_trace_create(trace_class);
	if (trace->layout & LAYOUT_HOSTNAME_NUMBER)
		bt_trace_set_environment_entry_integer(trace->bt, "hostname",
						       (int64_t)trace->hostname.integer);
	else if (trace->layout & LAYOUT_HOSTNAME)
		bt_trace_set_environment_entry_string(trace->bt, "hostname", trace->hostname.text);
	trace->stream = bt_stream_create(stream_class, trace->bt);
	if (trace->layout & LAYOUT_PACKETS)
		trace->packet = bt_packet_create(trace->stream);
	bt_stream_class_put_ref(stream_class);
	bt_trace_class_put_ref(trace_class);
}

static bt_component_class_initialize_method_status
source_initialize(bt_self_component_source *self,
		  bt_self_component_source_configuration *configuration, const bt_value *params,
		  void *data)
{
	bt_self_component *component = bt_self_component_source_as_self_component(self);
	struct plan *plan = data;

	for (guint i = 0; i < plan->n_traces; i++)
		source_make_trace(component, plan, i);
	bt_self_component_set_data(component, plan);
	if (bt_self_component_source_add_output_port(self, "out", NULL, NULL) !=
	    BT_SELF_COMPONENT_ADD_PORT_STATUS_OK)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static bt_message *
event_message_new(bt_self_message_iterator *self, const struct plan *plan,
		  const struct event *event)
{
	const struct klass *klass = plan_class(plan, event->klass);
	const struct trace *trace = &plan->traces[klass->trace];
	/* Below INT64_MAX for a trace with a clock (plan->time_max_ns). */
	uint64_t cycles = (uint64_t)event->time_ns - (uint64_t)(trace->offset_s * NS_PER_S);
	gboolean clock = (trace->layout & LAYOUT_CLOCK) != 0;
	bt_message *message;
	bt_event *bt_event;

	if (trace->packet)
		message = clock ? bt_message_event_create_with_packet_and_default_clock_snapshot(
				      self, klass->bt, trace->packet, cycles)
				: bt_message_event_create_with_packet(self, klass->bt, trace->packet);
	else
		message = clock ? bt_message_event_create_with_default_clock_snapshot(
				      self, klass->bt, trace->stream, cycles)
				: bt_message_event_create(self, klass->bt, trace->stream);
	bt_event = bt_message_event_borrow_event(message);
	if (trace->n_context > 0) {
		struct value context[2];

		for (guint i = 0; i < trace->n_context; i++)
			context[i] = value_as_stored(trace->context[i].type,
						     event->context[strcmp(trace->context[i].name,
									  "procname") != 0]);
		structure_set(bt_event_borrow_common_context_field(bt_event), trace->context,
			      trace->n_context, context);
	}
	if (klass->has_payload)
		structure_set(bt_event_borrow_payload_field(bt_event), klass->members,
			      klass->n_members, event->values);
	return message;
}

/* The next message of the plan, or NULL at the end of its phase. */
static bt_message *
source_next_message(bt_self_message_iterator *self, struct plan *plan)
{
	while (plan->phase != PHASE_DONE) {
		guint i = plan->next_item++;
		struct trace *trace = i < plan->n_traces ? &plan->traces[i] : NULL;

		switch (plan->phase) {
		case PHASE_STREAMS:
			if (trace)
				return bt_message_stream_beginning_create(self, trace->stream);
			break;
		case PHASE_PACKETS:
			if (trace && trace->packet)
				return bt_message_packet_beginning_create(self, trace->packet);
			if (trace)
				continue;
			break;
		case PHASE_EVENTS:
			if (i < plan->events->len)
				return event_message_new(self, plan, plan_event(plan, i));
			break;
		case PHASE_PACKET_ENDS:
			if (trace && trace->packet)
				return bt_message_packet_end_create(self, trace->packet);
			if (trace)
				continue;
			break;
		case PHASE_STREAM_ENDS:
			if (trace)
				return bt_message_stream_end_create(self, trace->stream);
			break;
		case PHASE_DONE:
			break;
		}
		plan->phase++;
		plan->next_item = 0;
	}
	return NULL;
}

/* Gives per_next messages at a time; before an event the plan marks idle,
 * says it has nothing for now, as a live source does. */
static bt_message_iterator_class_next_method_status
source_next(bt_self_message_iterator *self, bt_message_array_const messages, uint64_t capacity,
	    uint64_t *count)
{
	struct plan *plan = bt_self_component_get_data(
	    bt_self_message_iterator_borrow_component(self));
	uint64_t n = 0;

	while (n < MIN(capacity, plan->per_next)) {
		bt_message *message;

		if (plan->phase == PHASE_EVENTS && plan->next_item < plan->events->len &&
		    plan_event(plan, plan->next_item)->idle_before && !plan->idle_given) {
			if (n > 0)
				break;
			plan->idle_given = TRUE;
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN;
		}
		plan->idle_given = FALSE;
		message = source_next_message(self, plan);
		if (!message)
			break;
		messages[n++] = message;
	}
	*count = n;
	return n > 0 ? BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK
		     : BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
}

static const bt_component_class_source *
source_class(void)
{
	static bt_component_class_source *source;

	if (!source) {
		bt_message_iterator_class *iterator = bt_message_iterator_class_create(source_next);

		source = bt_component_class_source_create("fuzz-spans", iterator);
		bt_component_class_source_set_initialize_method(source, source_initialize);
		bt_message_iterator_class_put_ref(iterator);
	}
	return source;
}

/* --- The model: the spans as tc-export-spans.h describes them --- */

struct model {
	GPtrArray *order; /* spans not taken, by arrival */
	GHashTable *last_started; /* (trace, span id) -> span */
	guint finished;
	guint64 orphans;
	gboolean has_last[TRACES_MAX];
	int64_t last_ns[TRACES_MAX];
};

static void
model_span_free(struct model_span *span)
{
	g_array_unref(span->attributes);
	g_array_unref(span->annotations);
	g_array_unref(span->links);
	g_free(span);
}

static void
model_init(struct model *model)
{
	memset(model, 0, sizeof(*model));
	model->order = g_ptr_array_new_with_free_func((GDestroyNotify)model_span_free);
	model->last_started = g_hash_table_new_full(g_bytes_hash, g_bytes_equal,
						    (GDestroyNotify)g_bytes_unref, NULL);
}

static void
model_clear(struct model *model)
{
	g_ptr_array_unref(model->order);
	g_hash_table_unref(model->last_started);
}

static GBytes *
model_key(guint trace, guint64 span_id)
{
	guint64 key[2] = {trace, span_id};

	return g_bytes_new(key, sizeof(key));
}

/* A member of the event by name, or NULL (no payload, no such member). */
static const struct value *
model_member(const struct plan *plan, const struct event *event, const char *name,
	     enum member_type *type)
{
	const struct klass *klass = plan_class(plan, event->klass);

	for (guint i = 0; klass->has_payload && i < klass->n_members; i++) {
		if (strcmp(klass->members[i].name, name) == 0) {
			*type = klass->members[i].type;
			return &event->values[i];
		}
	}
	return NULL;
}

/* Any integer reads as its 64 bits; anything else as the fallback. */
static int64_t
model_integer(const struct plan *plan, const struct event *event, const char *name,
	      int64_t fallback)
{
	enum member_type type;
	const struct value *value = model_member(plan, event, name, &type);

	return value && type_is_integer(type) ? (int64_t)value->integer : fallback;
}

static const char *
model_text(const struct plan *plan, const struct event *event, const char *name)
{
	enum member_type type;
	const struct value *value = model_member(plan, event, name, &type);

	if (!value || type != MT_STRING)
		return NULL;
	outcomes[NOT_UTF8] += value->utf8 != value->text;
	return value->utf8;
}

static double
model_real(const struct plan *plan, const struct event *event, const char *name)
{
	enum member_type type;
	const struct value *value = model_member(plan, event, name, &type);

	return value && (type == MT_DOUBLE || type == MT_SINGLE) ? value->real : 0;
}

/* The event's context: procname if a string, vpid if an integer. */
static void
model_context(const struct plan *plan, const struct event *event, struct model_span *span)
{
	const struct trace *trace = &plan->traces[plan_class(plan, event->klass)->trace];

	span->pid = -1;
	for (guint i = 0; i < trace->n_context; i++) {
		const struct member *member = &trace->context[i];
		struct value value = value_as_stored(
		    member->type, event->context[strcmp(member->name, "procname") != 0]);

		if (strcmp(member->name, "procname") == 0 && member->type == MT_STRING)
			span->process_name = value.utf8;
		else if (strcmp(member->name, "vpid") == 0 && type_is_integer(member->type))
			span->pid = (int64_t)value.integer;
	}
	span->host_name =
	    (trace->layout & (LAYOUT_HOSTNAME | LAYOUT_HOSTNAME_NUMBER)) == LAYOUT_HOSTNAME
		? trace->hostname.utf8
		: "";
}

static void
model_start(struct model *model, const struct plan *plan, const struct event *event,
	    guint trace, int64_t time_ns)
{
	struct model_span *span = g_new0(struct model_span, 1);
	const char *service = model_text(plan, event, "service");
	GBytes *key;

	span->trace = trace;
	span->trace_id_hi = (guint64)model_integer(plan, event, "trace_id_hi", 0);
	span->trace_id_lo = (guint64)model_integer(plan, event, "trace_id_lo", 0);
	span->span_id = (guint64)model_integer(plan, event, "span_id", 0);
	span->parent_span_id = (guint64)model_integer(plan, event, "parent_span_id", 0);
	span->kind = (guint8)model_integer(plan, event, "kind", 1);
	span->name = model_text(plan, event, "name");
	span->address = model_text(plan, event, "address");
	span->service_name = service ? service : "";
	model_context(plan, event, span);
	span->start_ns = span->end_ns = time_ns;
	span->unfinished = TRUE;
	span->attributes = g_array_new(FALSE, TRUE, sizeof(struct model_attr));
	span->annotations = g_array_new(FALSE, TRUE, sizeof(struct model_annotation));
	span->links = g_array_new(FALSE, TRUE, sizeof(struct model_link));
	key = model_key(trace, span->span_id);
	outcomes[ID_REUSED] += g_hash_table_contains(model->last_started, key);
	g_ptr_array_add(model->order, span);
	g_hash_table_replace(model->last_started, key, span);
}

static void
model_attr(struct model_span *span, const struct plan *plan, const struct event *event,
	   enum tc_export_attr_type type)
{
	struct model_attr attr = {.key = model_text(plan, event, "key"), .type = type};

	if (type == TC_EXPORT_ATTR_DOUBLE)
		attr.real = model_real(plan, event, "value");
	else if (type == TC_EXPORT_ATTR_STRING)
		attr.text = model_text(plan, event, "value");
	else
		attr.integer = model_integer(plan, event, "value", 0);
	g_array_append_val(span->attributes, attr);
	outcomes[ATTRIBUTE]++;
}

/* What an event of a span does to it, by the name after the prefix. */
static void
model_apply(struct model *model, struct model_span *span, const struct plan *plan,
	    const struct event *event, const char *what, int64_t time_ns)
{
	static const char *const attr_names[] = {"attr_int", "attr_double", "attr_string",
						 "attr_bool"};
	static const enum tc_export_attr_type attr_types[] = {
	    TC_EXPORT_ATTR_INT, TC_EXPORT_ATTR_DOUBLE, TC_EXPORT_ATTR_STRING, TC_EXPORT_ATTR_BOOL};

	for (guint i = 0; i < ARRAY_LEN(attr_names); i++)
		if (strcmp(what, attr_names[i]) == 0)
			model_attr(span, plan, event, attr_types[i]);
	if (strcmp(what, "annotation") == 0) {
		struct model_annotation annotation = {time_ns,
						      model_text(plan, event, "message")};

		g_array_append_val(span->annotations, annotation);
		outcomes[ANNOTATION]++;
	} else if (strcmp(what, "error") == 0) {
		span->error_message = model_text(plan, event, "message");
		span->status = 2;
	} else if (strcmp(what, "remote") == 0) {
		span->remote_service = model_text(plan, event, "service");
		span->remote_address = model_text(plan, event, "address");
	} else if (strcmp(what, "tracestate") == 0) {
		span->trace_state = model_text(plan, event, "tracestate");
		outcomes[TRACE_STATE]++;
	} else if (strcmp(what, "link") == 0) {
		struct model_link link = {
		    (guint64)model_integer(plan, event, "trace_id_hi", 0),
		    (guint64)model_integer(plan, event, "trace_id_lo", 0),
		    (guint64)model_integer(plan, event, "linked_span_id", 0),
		    model_text(plan, event, "tracestate"),
		};

		g_array_append_val(span->links, link);
		outcomes[LINK]++;
	} else if (strcmp(what, "end") == 0 && span->unfinished) {
		span->end_ns = time_ns;
		span->status = (guint8)model_integer(plan, event, "status", span->status);
		span->unfinished = FALSE;
		model->finished++;
		outcomes[SPAN_ENDED]++;
	}
}

static void
model_add(struct model *model, const struct plan *plan, const struct event *event)
{
	const struct klass *klass = plan_class(plan, event->klass);
	guint trace = klass->trace;
	int64_t time_ns = plan->traces[trace].layout & LAYOUT_CLOCK ? event->time_ns : 0;
	g_autoptr(GBytes) key = NULL;
	struct model_span *span;

	outcomes[NO_CLOCK] += !(plan->traces[trace].layout & LAYOUT_CLOCK);
	if (!model->has_last[trace] || time_ns > model->last_ns[trace])
		model->last_ns[trace] = time_ns;
	model->has_last[trace] = TRUE;
	if (!g_str_has_prefix(klass->name, SPAN_PREFIX))
		return;
	outcomes[ODD_LAYOUT] += event->klass >= plan->n_traces * STANDARD_CLASSES;
	if (strcmp(klass->name, SPAN_PREFIX "start") == 0) {
		model_start(model, plan, event, trace, time_ns);
		return;
	}
	key = model_key(trace, (guint64)model_integer(plan, event, "span_id", 0));
	span = g_hash_table_lookup(model->last_started, key);
	if (span) {
		model_apply(model, span, plan, event, klass->name + strlen(SPAN_PREFIX), time_ns);
	} else {
		model->orphans++;
		outcomes[ORPHAN]++;
	}
}

static gint
model_by_start(gconstpointer a, gconstpointer b)
{
	const struct model_span *x = *(struct model_span *const *)a;
	const struct model_span *y = *(struct model_span *const *)b;

	return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

/* The spans a take gives, by start time, equal times by arrival (GLib's
 * sort is stable); a taken span is forgotten. */
static GPtrArray *
model_take(struct model *model, gboolean all)
{
	GPtrArray *taken = g_ptr_array_new_with_free_func((GDestroyNotify)model_span_free);
	GPtrArray *kept = g_ptr_array_new_with_free_func((GDestroyNotify)model_span_free);

	for (guint i = 0; i < model->order->len; i++) {
		struct model_span *span = g_ptr_array_index(model->order, i);
		g_autoptr(GBytes) key = model_key(span->trace, span->span_id);

		if (!all && span->unfinished) {
			g_ptr_array_add(kept, span);
			continue;
		}
		if (span->unfinished)
			span->end_ns = model->has_last[span->trace] ? model->last_ns[span->trace]
								  : span->start_ns;
		if (g_hash_table_lookup(model->last_started, key) == span)
			g_hash_table_remove(model->last_started, key);
		g_ptr_array_add(taken, span);
	}
	g_ptr_array_set_free_func(model->order, NULL);
	g_ptr_array_unref(model->order);
	model->order = kept;
	model->finished = 0;
	g_ptr_array_sort(taken, model_by_start);
	return taken;
}

/* --- Checking a take against the model --- */

static gboolean
same_text(const char *got, const char *want)
{
	return g_strcmp0(got, want) == 0;
}

static gboolean
same_real(double got, double want)
{
	return (isnan(got) && isnan(want)) || memcmp(&got, &want, sizeof(got)) == 0;
}

static void
check_attrs(const struct tc_export_span *span, const struct model_span *want, guint index)
{
	if (span->attributes->len != want->attributes->len)
		FAIL("span %u: %u attributes, the model %u", index, span->attributes->len,
		     want->attributes->len);
	for (guint i = 0; i < want->attributes->len; i++) {
		const struct tc_export_attr *got = g_ptr_array_index(span->attributes, i);
		const struct model_attr *attr = &g_array_index(want->attributes, struct model_attr, i);

		if (got->type != attr->type || !same_text(got->key, attr->key) ||
		    (attr->type == TC_EXPORT_ATTR_DOUBLE ? !same_real(got->double_value, attr->real)
		     : attr->type == TC_EXPORT_ATTR_STRING
			 ? !same_text(got->string_value, attr->text)
			 : got->int_value != attr->integer))
			FAIL("span %u: attribute %u is not the event's", index, i);
	}
	if (span->annotations->len != want->annotations->len)
		FAIL("span %u: %u annotations, the model %u", index, span->annotations->len,
		     want->annotations->len);
	for (guint i = 0; i < want->annotations->len; i++) {
		const struct tc_export_annotation *got = g_ptr_array_index(span->annotations, i);
		const struct model_annotation *annotation =
		    &g_array_index(want->annotations, struct model_annotation, i);

		if (got->time_ns != annotation->time_ns ||
		    !same_text(got->message, annotation->message))
			FAIL("span %u: annotation %u is not the event's", index, i);
	}
}

/* Links in the order recorded, each as its event gave it; the flags are
 * not kept (tc-export-spans.h). */
static void
check_links(const struct tc_export_span *span, const struct model_span *want, guint index)
{
	if (span->links->len != want->links->len)
		FAIL("span %u: %u links, the model %u", index, span->links->len, want->links->len);
	for (guint i = 0; i < want->links->len; i++) {
		const struct tc_export_link *got = g_ptr_array_index(span->links, i);
		const struct model_link *link = &g_array_index(want->links, struct model_link, i);

		if (got->trace_id_hi != link->trace_id_hi || got->trace_id_lo != link->trace_id_lo ||
		    got->span_id != link->span_id || !same_text(got->trace_state, link->trace_state))
			FAIL("span %u: link %u is not the event's", index, i);
	}
}

static void
check_span(const struct plan *plan, const struct tc_export_span *span,
	   const struct model_span *want, guint index)
{
	const struct tc_export_resource *resource = span->resource;

	if (span->trace_id_hi != want->trace_id_hi || span->trace_id_lo != want->trace_id_lo ||
	    span->span_id != want->span_id || span->parent_span_id != want->parent_span_id)
		FAIL("span %u: ids %016" PRIx64 "%016" PRIx64 "/%016" PRIx64 " parent %016" PRIx64
		     ", the model's span %016" PRIx64,
		     index, span->trace_id_hi, span->trace_id_lo, span->span_id,
		     span->parent_span_id, want->span_id);
	if (span->trace != plan->traces[want->trace].bt)
		FAIL("span %u: not of its trace", index);
	if (span->kind != want->kind || span->status != want->status)
		FAIL("span %u: kind %u status %u, the model %u %u", index, span->kind, span->status,
		     want->kind, want->status);
	if (!same_text(span->name, want->name) || !same_text(span->address, want->address) ||
	    !same_text(span->remote_service, want->remote_service) ||
	    !same_text(span->remote_address, want->remote_address) ||
	    !same_text(span->error_message, want->error_message) ||
	    !same_text(span->trace_state, want->trace_state))
		FAIL("span %u (%016" PRIx64 "): a text is not the events'", index, want->span_id);
	if (span->start_ns != want->start_ns || span->end_ns != want->end_ns ||
	    span->unfinished != want->unfinished)
		FAIL("span %u (%016" PRIx64 "): %" PRId64 " to %" PRId64 "%s, the model %" PRId64
		     " to %" PRId64 "%s",
		     index, want->span_id, span->start_ns, span->end_ns,
		     span->unfinished ? " unfinished" : "", want->start_ns, want->end_ns,
		     want->unfinished ? " unfinished" : "");
	if (!same_text(resource->host_name, want->host_name) ||
	    !same_text(resource->service_name, want->service_name) ||
	    !same_text(resource->process_name, want->process_name) || resource->pid != want->pid)
		FAIL("span %u (%016" PRIx64 "): resource '%s' '%s' '%s' %" PRId64
		     ", the model '%s' '%s' '%s' %" PRId64,
		     index, want->span_id, resource->host_name, resource->service_name,
		     resource->process_name ? resource->process_name : "(none)", resource->pid,
		     want->host_name, want->service_name,
		     want->process_name ? want->process_name : "(none)", want->pid);
	check_attrs(span, want, index);
	check_links(span, want, index);
}

/* A resource's values as one text that no two different ones share. */
static char *
resource_text(const struct tc_export_resource *resource)
{
	return g_strdup_printf("%zu:%s%zu:%s%d%zu:%s%" PRId64, strlen(resource->host_name),
			       resource->host_name, strlen(resource->service_name),
			       resource->service_name, resource->process_name != NULL,
			       resource->process_name ? strlen(resource->process_name) : 0,
			       resource->process_name ? resource->process_name : "",
			       resource->pid);
}

/* Spans of equal resources share one; the encodings group by it. */
static void
check_resources_shared(GPtrArray *spans)
{
	g_autoptr(GHashTable) by_text =
	    g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

	for (guint i = 0; i < spans->len; i++) {
		const struct tc_export_span *span = g_ptr_array_index(spans, i);
		char *text = resource_text(span->resource);
		const struct tc_export_resource *seen = g_hash_table_lookup(by_text, text);

		if (seen && seen != span->resource)
			FAIL("span %u: a resource equal to another's is not shared", i);
		g_hash_table_insert(by_text, text, (gpointer)span->resource);
	}
}

/* --- The sink: tc-export-plugin.c's consume method, checked --- */

struct sink {
	struct plan *plan;
	struct model model;
	struct tc_export_spans *spans;
};

static void
sink_take(struct sink *sink, gboolean all)
{
	uint64_t orphans = 0;
	g_autoptr(GPtrArray) taken = all ? tc_export_spans_take_all(sink->spans, &orphans)
					 : tc_export_spans_take_finished(sink->spans);
	g_autoptr(GPtrArray) want = model_take(&sink->model, all);

	if (all && orphans != sink->model.orphans)
		FAIL("%" PRIu64 " orphan events counted, the model %" PRIu64, orphans,
		     sink->model.orphans);
	if (taken->len != want->len)
		FAIL("%s: %u spans taken, the model %u", all ? "take_all" : "take_finished",
		     taken->len, want->len);
	for (guint i = 0; i < taken->len; i++) {
		const struct model_span *span = g_ptr_array_index(want, i);

		check_span(sink->plan, g_ptr_array_index(taken, i), span, i);
		outcomes[SPAN_UNFINISHED] += span->unfinished;
	}
	if (tc_export_spans_finished_count(sink->spans) != 0)
		FAIL("spans left ended after a take");
	outcomes[BATCH_TAKEN] += !all && taken->len > 0;
	outcomes[MANY_SPANS] += taken->len >= 128;
	check_resources_shared(taken);
	outcomes[ENDPOINT] += fuzz_export_documents_check(taken, want);
}

static void
sink_add(struct sink *sink, const bt_message *message)
{
	struct plan *plan = sink->plan;

	if (bt_message_get_type(message) == BT_MESSAGE_TYPE_EVENT) {
		const struct event *event;

		if (plan->sink_event >= plan->events->len)
			FAIL("more events than the source sent");
		event = plan_event(plan, plan->sink_event++);
		if (bt_event_borrow_class_const(bt_message_event_borrow_event_const(message)) !=
		    plan_class(plan, event->klass)->bt)
			FAIL("event %u is not of its class", plan->sink_event - 1);
		model_add(&sink->model, plan, event);
	}
	tc_export_spans_add_message(sink->spans, message);
}

static bt_graph_simple_sink_component_consume_func_status
sink_consume(bt_message_iterator *iterator, void *data)
{
	struct sink *sink = data;
	bt_message_array_const messages;
	uint64_t count;
	guint finished;

	switch (bt_message_iterator_next(iterator, &messages, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		sink_take(sink, TRUE);
		sink->plan->ended = TRUE;
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		if (sink->plan->batches && tc_export_spans_finished_count(sink->spans) > 0)
			sink_take(sink, FALSE);
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
	default:
		FAIL("the source failed");
	}
	for (uint64_t i = 0; i < count; i++) {
		sink_add(sink, messages[i]);
		bt_message_put_ref(messages[i]);
	}
	finished = tc_export_spans_finished_count(sink->spans);
	if (finished != sink->model.finished)
		FAIL("%u spans ended, the model %u", finished, sink->model.finished);
	if (sink->plan->batches && finished >= sink->plan->batch_size)
		sink_take(sink, FALSE);
	return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

static void
run_graph(struct plan *plan)
{
	struct sink sink = {.plan = plan, .spans = tc_export_spans_new()};
	bt_graph *graph = bt_graph_create(0);
	const bt_component_source *source;
	const bt_component_sink *sink_component;
	bt_graph_run_status status;

	model_init(&sink.model);
	if (bt_graph_add_source_component_with_initialize_method_data(
		graph, source_class(), "source", NULL, plan, BT_LOGGING_LEVEL_WARNING, &source) !=
		BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
	    bt_graph_add_simple_sink_component(graph, "sink", NULL, sink_consume, NULL, &sink,
					       &sink_component) != BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
	    bt_graph_connect_ports(graph, bt_component_source_borrow_output_port_by_index_const(source, 0),
				   bt_component_sink_borrow_input_port_by_index_const(sink_component, 0),
				   NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK)
		FAIL("cannot make the graph");
	do
		status = bt_graph_run(graph);
	while (status == BT_GRAPH_RUN_STATUS_AGAIN);
	if (status != BT_GRAPH_RUN_STATUS_OK || !plan->ended)
		FAIL("the graph ended with status %d", (int)status);
	if (plan->sink_event != plan->events->len)
		FAIL("%u events of %u reached the sink", plan->sink_event, plan->events->len);
	bt_graph_put_ref(graph);
	tc_export_spans_free(sink.spans);
	model_clear(&sink.model);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = {data, size, 0};
	struct plan plan;
	const bt_error *error;

	g_log_set_always_fatal(G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
	plan_read(&plan, &in);
	run_graph(&plan);
	plan_free(&plan);
	error = bt_current_thread_take_error();
	if (error) {
		bt_error_release(error);
		FAIL("an error was left on the thread");
	}
	return 0;
}

#ifndef FUZZ_LIBFUZZER
/* Inputs: flags (RUN_*), batch size, time base (0: 0, 1: now, 2: before
 * the epoch, 3: 8 bytes follow); per trace its clock's seconds back from
 * the base, its layout (LAYOUT_*), a hostname text and number, a procname
 * text and a vpid number; the number of odd classes and each (how: bit 0
 * the trace, bits 1 to 6 the member count, bit 7 no payload; a name; per
 * member a name and a type); then events: an operation (OP_*, the class
 * for 0 to 9, for 15 the tracestate event or with an odd byte after it the link, bit 4 the second trace, bits 5
 * to 7 the time step and its byte) and the values of the class's members. A text is its length and
 * bytes, an id a byte (0xfc and up: large ones), a number a byte below
 * 0x80 or 0x80 and eight bytes. */
#define SEED(...)                                                                                  \
	{                                                                                          \
		(const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__})             \
	}
#define T(...) sizeof((const char[]){__VA_ARGS__}), __VA_ARGS__
#define TRACE(layout) 0, layout, T('h', 'o', 's', 't'), 0x10, T('a', 'p', 'p'), 0x45
#define START(id, parent)                                                                          \
	0x20, 1, 1, 2, id, parent, 2, 1, T('g', 'e', 't'), T('s', 'v', 'c'),                       \
	    T('1', '0', '.', '0', '.', '0', '.', '1', ':', '8', '0')
#define END(id, status) 0x28, 3, id, status
#define IDLE 0x0d
#define TRACESTATE(id, ...) 0x2f, 1, 0, id, T(__VA_ARGS__)
#define LINK(id, hi, lo, linked, flags, ...) 0x2f, 1, 1, id, hi, lo, linked, flags, T(__VA_ARGS__)
#define RUN(op, first) op, 1, 0xff, first, 1, 1
static const struct fuzz_seed seeds[] = {
    /* A span with an attribute of each type, an annotation, and its child
     * with a remote peer and an error; a clock and both contexts. */
    SEED(0x00, 0, 1, TRACE(0x35), 0, START(5, 0), START(6, 5), 0x22, 2, 5, T('k'), 0x7f, 0x23, 2,
	 5, T('d'), 0x7c, 0x24, 2, 5, T('s'), T('v'), 0x25, 2, 5, T('b'), 1, 0x21, 9, 5,
	 T('n', 'o', 't', 'e'), 0x27, 3, 6, T('d', 'b'),
	 T('[', ':', ':', '1', ']', ':', '5', '4', '3', '2'), 0x26, 1, 6, T('o', 'o', 'p', 's'),
	 END(6, 2), END(5, 0)),
    /* Two traces with the same ids, two messages a call, batches of two,
     * idle moments, an end in the second trace after a take. */
    SEED(0x07, 1, 1, TRACE(0x01), TRACE(0x87), 0, START(1, 0), 0x30, 1, 1, 2, 1, 0, 1, 1, 0, 0,
	 0, START(2, 1), END(1, 0), IDLE, END(2, 0), 0x38, 1, 1, 0, IDLE, END(1, 1)),
    /* Orphans: an end and an annotation before their start, events after
     * the span's take, an id nobody started. */
    SEED(0x02, 0, 0, TRACE(0x01), 0, END(9, 0), 0x21, 1, 9, 0, START(9, 0), END(9, 0), IDLE, 0x21,
	 1, 9, 0, END(9, 0), 0x22, 1, 0xff, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0),
    /* A reused id, an end twice, a span never ended, another provider's
     * event; times before the epoch. */
    SEED(0x00, 0, 2, TRACE(0x21), 0, START(3, 0), START(3, 0), END(3, 1), END(3, 2), START(4, 3),
	 0x29, 2),
    /* Odd classes: a start whose members have other types, an end without
     * a payload, an attr_int whose key is a real and value a text. */
    SEED(0x00, 0, 1, TRACE(0x5d), 3, 0x08, 0, 0, 7, 4, 10, 6, 3, 7, 13, 0x80, 1, 0x06, 3, 10, 11,
	 11, 10, 0, 8, 0x2a, 1, 0, 7, T('x'), 1, 1, 0x2a, 1, 1, 0x2a, 1, 2, 0x7f, T('v'), 7),
    /* 192 spans started in two traces (32 ids twice), 32 of them ended,
     * 32 ends orphans, in batches of 16 with eight messages a call,
     * packets. */
    SEED(0x1f, 15, 1, TRACE(0x03), TRACE(0x01), 0, RUN(0x2b, 1), RUN(0x2b, 0x21), RUN(0x3b, 1),
	 RUN(0x2c, 0x41)),
    /* Huge texts, bytes that are not UTF-8, infinities, a clockless trace. */
    SEED(0x00, 0, 0, 0, 0x00, 0, 0, 0, 0, 0, 0x00, 1, 1, 1, 0, 2, 0, 0xff, 'a', T(0xf8, 0x80),
	 0xff, 'b', 0x03, 1, T('r'), 0xf1, 0x04, 1, T(0x1f), T(0xc3, 0x28, 0x1f), 0x01, 1,
	 T(0xff, 0xfe), 0x08, 1, 0),
    /* Endpoints at their bounds: the longest IPv6 text, a port of 65535
     * and one of 65536, an IPv4 address without a port. */
    SEED(0x00, 0, 1, TRACE(0x01), 0, START(7, 0), 0x27, 1, 7, T('p'),
	 T('[', '0', '0', '0', '0', ':', '0', '0', '0', '0', ':', '0', '0', '0', '0', ':', '0', '0',
	   '0', '0', ':', '0', '0', '0', '0', ':', 'f', 'f', 'f', 'f', ':', '2', '5', '5', '.', '2',
	   '5', '5', '.', '2', '5', '5', '.', '2', '5', '5', ']', ':', '6', '5', '5', '3', '5'),
	 0x20, 1, 1, 2, 8, 7, 3, 1, T('q'), T('s'),
	 T('1', '2', '7', '.', '0', '.', '0', '.', '1', ':', '6', '5', '5', '3', '6'), 0x27, 1, 8,
	 0, T('1', '0', '.', '1', '.', '2', '.', '3', ':'), END(8, 0), END(7, 0)),
    /* Spans continuing a remote context: a server whose parent is remote
     * and its child, each with the tracestate after its start; a root
     * without one; an empty tracestate; one replaced by a later event; one
     * of bytes no receiver takes raw (a quote, a backslash, U+001F, a byte
     * that is not UTF-8); one of an orphan. */
    SEED(0x00, 0, 1, TRACE(0x35), 0, START(5, 7),
	 TRACESTATE(5, 'h', 'v', '=', '1', ',', 'o', 't', 'h', 'e', 'r', '=', 'x'), START(6, 5),
	 TRACESTATE(6, 'h', 'v', '=', '1', ',', 'o', 't', 'h', 'e', 'r', '=', 'x'), START(8, 0),
	 START(9, 7), 0x2f, 1, 0, 9, 0, START(10, 7), TRACESTATE(10, 'a', '=', '1'),
	 TRACESTATE(10, 'a', '=', '"', '\\', 0x1f, 0xc3, 0x28), TRACESTATE(11, 'o', '=', '1'),
	 END(6, 0), END(5, 0), END(8, 0), END(9, 0), END(10, 0)),
    /* Links: a consumer linked to two producers (one context with a
     * tracestate, one sampled without), a link to the largest ids, one whose
     * tracestate is not UTF-8, one before its span's start (an orphan), one
     * after its span's end, and a producer linked back. */
    SEED(0x00, 0, 1, TRACE(0x35), 0, LINK(4, 1, 2, 3, 1, 'a', '=', '1'), START(5, 0),
	 LINK(5, 1, 2, 3, 1, 'h', 'v', '=', '1'), 0x2f, 1, 1, 5, 7, 8, 9, 0, 0, START(6, 0),
	 LINK(6, 0xfc, 0xfc, 0xfc, 0xff, 'x', '=', 0xc3, 0x28), 0x2f, 1, 1, 6, 0, 0, 0, 0, 0, END(6, 0),
	 0x2f, 1, 1, 6, 1, 1, 1, 1, 0, LINK(5, 0xfe, 3, 1, 2, 1, 'k', '=', 'v'), END(5, 0)),
    /* Two traces far apart in time, a jump to the end of time. */
    SEED(0x01, 0, 3, 0x00, 0, 0, 0, 0, 0, 0, 0, 0x80, 0xff, 0x01, 0, 0, 0, 0, 0x00, 0x21, 0, 0, 0,
	 0, 0, START(1, 0), 0x30, 1, 1, 2, 1, 0, 1, 1, 0, 0, 0, 0xe8, 1, 0, 0xf8, 1, 0),
};

const struct fuzz_harness fuzz_harness = {
    .seeds = seeds,
    .nr_seeds = ARRAY_LEN(seeds),
    .input_max = 4096,
    .outcome_names = outcome_names,
    .outcomes = outcomes,
    .nr_outcomes = OUTCOMES,
};
#endif
