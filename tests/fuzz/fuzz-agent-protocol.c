/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzz target: what tracectld reads from an LTTng agent (Python's
 * logging, JUL, log4j: any program its user runs may connect to the
 * agent port): the registration through
 * tc_agent_protocol_parse_registration(), then a conversation through the
 * agent's link, tc_agent_link_list() and tc_agent_link_send() with the
 * commands tc_agent_protocol_enable()/disable()/command() encode
 * (apps/tc-agent-protocol.c, apps/tc-agent-link.c, built in unchanged).
 * The link holds one end of an AF_UNIX stream socket pair; the harness
 * holds the other and plays the agent, writing each reply before the call
 * that reads it, so that nothing waits on a buffer.
 *
 * Input: 16 bytes of registration (zeros past the input's end), then
 * steps until the input ends, each:
 *   op: bits 0-1 the call (LIST, ENABLE, DISABLE, REGISTRATION_DONE),
 *       bit 2 the reply is built (below) instead of raw, bit 3 a reply too
 *       short is left open (the link's 1 ms deadline ends the read) instead
 *       of ended by a shutdown of the agent's writing side, bit 4 the agent
 *       closes its end before the call;
 *   mod: LIST built, bits 0-1 the size's change (none, +1, -1, the most
 *       + 1) and bits 2-3 the count's (same); ENABLE and DISABLE, bits 0-1
 *       the level type (modulo 3), bit 2 a filter, bit 3 a logger longer
 *       than the protocol's field;
 *   ENABLE and DISABLE: a length byte and the logger's bytes; ENABLE then
 *       a level (u32) and, with a filter, a length byte and its bytes;
 *   the reply: a length (u16, little-endian, cut to the input) and its
 *       bytes. Built, its first byte is the status (as a big-endian u32);
 *       a listing's head follows with the size and count of the rest (the
 *       NULs in it), as mod changes them, then the rest.
 * A registration refused leaves the conversation to a registration of
 * its own (a Python agent), so that neither starves the other.
 *
 * WHAT MUST HOLD (beyond no sanitizer error), from the harness's own
 * model of the protocol and of the bytes not yet read on the link:
 *   - the registration is taken exactly when its domain is 3, 4 or 5, its
 *     pid 1 to INT32_MAX and its major 2, with the very fields sent; else
 *     refused, INVALID_ARGUMENT (domain, pid) or NOT_SUPPORTED (major);
 *   - the bytes the link writes are exactly the command encoded: a u64
 *     payload size, the command's id, version 0 (big-endian); DISABLE a
 *     256-byte NUL-padded name cut to 255 bytes; ENABLE the level, its
 *     type, the name, the filter's size with its NUL (0: none), the filter;
 *   - a listing is returned only for status 1, a size of at most
 *     TC_AGENT_LIST_BYTES_MAX, a count of at most TC_AGENT_LIST_NAMES_MAX
 *     and no more than the size, then exactly count names each ended by a
 *     NUL filling exactly size bytes, each UTF-8 without control bytes;
 *     and it holds those names. A bad head or a reply cut short is a
 *     G_IO_ERROR (the link is lost: the conversation stops); another
 *     status after a good head is TC_ERROR_FAILED, bad names
 *     TC_ERROR_INVALID_ARGUMENT, both with the whole reply read;
 *   - a send reads a 4-byte status (none for REGISTRATION_DONE): 1 is
 *     success, another TC_ERROR_FAILED, fewer bytes G_IO_ERROR;
 *   - on a link not lost, the bytes left unread are the model's;
 *   - no descriptor is left open (tc_agent_link_unref() closes its own).
 */
#include <errno.h>
#include <glib.h>
#include <gio/gio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz-driver.h"
#include "tc-agent-link.h"
#include "tc-error.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define AGENT_UID 1000u
#define TIMEOUT_MS 1
static unsigned long long inputs_run;
#define FAIL(...)                                                                                  \
	do {                                                                                       \
		fprintf(stderr, "fuzz-agent-protocol: input %llu: ", inputs_run);                  \
		fprintf(stderr, __VA_ARGS__);                                                      \
		fprintf(stderr, "\n");                                                             \
		abort();                                                                           \
	} while (0)

enum outcome {
	REG_TAKEN,
	REG_REFUSED,
	LISTED,
	LIST_REFUSED,
	LIST_BAD_NAMES,
	LIST_BAD_HEAD,
	LIST_SHORT,
	SENT,
	SEND_REFUSED,
	SEND_SHORT,
	DONE,
	CLOSED,
	OUTCOMES,
};
static const char *const outcome_names[OUTCOMES] = {
    "registration taken", "registration refused", "listed",	"list refused",
    "list bad names",	  "list bad head",	  "list short", "sent",
    "send refused",	  "send short",		  "done",	"agent closed",
};
static unsigned long long outcomes[OUTCOMES];

enum { OP_HOLD = 0x08, OP_BUILT = 0x04, OP_CLOSE = 0x10 };

static guint32
be32(const guint8 *p)
{
	return (guint32)p[0] << 24 | (guint32)p[1] << 16 | (guint32)p[2] << 8 | p[3];
}

static void
put_be32(GByteArray *array, guint32 value)
{
	guint8 be[4] = {value >> 24, value >> 16, value >> 8, value};

	g_byte_array_append(array, be, 4);
}

/* The registration's verdict, checked; reg filled when taken. */
static gboolean
check_registration(const guint8 *bytes, TcAgentRegistration *reg)
{
	g_autoptr(GError) error = NULL;
	guint32 domain = be32(bytes), pid = be32(bytes + 4), major = be32(bytes + 8);
	gboolean is_known = (domain >= 3 && domain <= 5) && pid >= 1 && pid <= G_MAXINT32;
	gboolean must_take = is_known && major == 2;

	if (tc_agent_protocol_parse_registration(bytes, reg, &error) != must_take)
		FAIL("registration %u/%u/%u %s", domain, pid, major,
		     must_take ? "refused" : "taken");
	if (!must_take) {
		if (!g_error_matches(error, TC_ERROR,
				     is_known ? TC_ERROR_NOT_SUPPORTED : TC_ERROR_INVALID_ARGUMENT))
			FAIL("registration refused with the wrong error");
		outcomes[REG_REFUSED]++;
		return FALSE;
	}
	if ((guint32)reg->domain != domain || (guint32)reg->pid != pid || reg->major != major ||
	    reg->minor != be32(bytes + 12))
		FAIL("registration taken with other fields than sent");
	outcomes[REG_TAKEN]++;
	return TRUE;
}

/* The command as the protocol says it is written. */
static GByteArray *
expected_command(guint32 command, const char *logger, guint32 level, guint32 type,
		 const char *filter)
{
	GByteArray *payload = g_byte_array_new(), *out = g_byte_array_new();
	guint8 name[256] = {0}, size_be[8]; /* LTTng's field */
	guint64 size;

	if (command == TC_AGENT_CMD_ENABLE) {
		put_be32(payload, level);
		put_be32(payload, type);
	}
	if (logger) {
		memcpy(name, logger, MIN(strlen(logger), 255));
		g_byte_array_append(payload, name, sizeof(name));
	}
	if (command == TC_AGENT_CMD_ENABLE) {
		put_be32(payload, filter ? strlen(filter) + 1 : 0);
		if (filter)
			g_byte_array_append(payload, (const guint8 *)filter, strlen(filter) + 1);
	}
	size = payload->len;
	for (int i = 0; i < 8; i++)
		size_be[i] = size >> (56 - 8 * i);
	g_byte_array_append(out, size_be, 8);
	put_be32(out, command);
	put_be32(out, 0);
	g_byte_array_append(out, payload->data, payload->len);
	g_byte_array_unref(payload);
	return out;
}

/* Whether valid UTF-8 from start to end holds a C1 control (U+0080 to
 * U+009F), which is two bytes, 0xC2 then 0x80..0x9F. */
static gboolean
has_c1_control(const char *start, const char *end)
{
	for (const char *c = start; c + 1 < end; c++)
		if ((guchar)c[0] == 0xc2 && (guchar)c[1] >= 0x80 && (guchar)c[1] <= 0x9f)
			return TRUE;
	return FALSE;
}

/* The names of size bytes: each ended by a NUL, UTF-8 without a control
 * character (C0, DEL, C1), count of them; NULL otherwise. */
static GPtrArray *
model_names(const guint8 *p, guint32 size, guint32 count)
{
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	guint32 start = 0;

	for (guint32 i = 0; i < size; i++) {
		if (p[i] != 0 && (p[i] < 0x20 || p[i] == 0x7f))
			return NULL;
		if (p[i] != 0)
			continue;
		if (!g_utf8_validate_len((const char *)p + start, i - start, NULL) ||
		    has_c1_control((const char *)p + start, (const char *)p + i))
			return NULL;
		g_ptr_array_add(names, g_strndup((const char *)p + start, i - start));
		start = i + 1;
	}
	if (start != size || names->len != count)
		return NULL;
	return g_steal_pointer(&names);
}

/* What the link must make of a listing among the pending bytes: the
 * outcome, the bytes it reads (when the link is not lost), the names. */
static enum outcome
model_list(const GByteArray *pending, gsize *used, GPtrArray **names)
{
	guint32 status, size, count;

	if (pending->len < 12)
		return LIST_SHORT;
	status = be32(pending->data);
	size = be32(pending->data + 4);
	count = be32(pending->data + 8);
	if (size > TC_AGENT_LIST_BYTES_MAX || count > TC_AGENT_LIST_NAMES_MAX || count > size)
		return LIST_BAD_HEAD;
	if (pending->len - 12 < size)
		return LIST_SHORT;
	*used = 12 + size;
	if (status != 1)
		return LIST_REFUSED;
	*names = model_names(pending->data + 12, size, count);
	return *names ? LISTED : LIST_BAD_NAMES;
}

/* Whether error is the one of a listing's or command's outcome. */
static gboolean
error_is(const GError *error, enum outcome want)
{
	switch (want) {
	case LIST_REFUSED:
	case SEND_REFUSED:
		return g_error_matches(error, TC_ERROR, TC_ERROR_FAILED);
	case LIST_BAD_NAMES:
		return g_error_matches(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
	case LIST_BAD_HEAD:
		return g_error_matches(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
	default: /* cut short, closed: the link is lost */
		return error != NULL && error->domain == G_IO_ERROR;
	}
}

static enum outcome
check_list(TcAgentLink *link, GByteArray *pending, gboolean is_closed)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) names = NULL;
	gsize used = 0;
	enum outcome want = is_closed ? CLOSED : model_list(pending, &used, &names);
	g_auto(GStrv) list = tc_agent_link_list(link, &error);

	if ((list != NULL) != (want == LISTED))
		FAIL("listing %s (%s)", list ? "returned" : "refused", outcome_names[want]);
	if (list == NULL && !error_is(error, want))
		FAIL("listing refused (%s) with: %s", outcome_names[want],
		     error ? error->message : "no error");
	if (list && g_strv_length(list) != names->len)
		FAIL("listing of %u names, %u sent", g_strv_length(list), names->len);
	for (guint i = 0; list && i < names->len; i++)
		if (strcmp(list[i], g_ptr_array_index(names, i)) != 0)
			FAIL("listing's name %u is '%s', sent '%s'", i, list[i],
			     (char *)g_ptr_array_index(names, i));
	g_byte_array_remove_range(pending, 0, used);
	return want;
}

static enum outcome
check_send(TcAgentLink *link, GBytes *command, guint32 id, GByteArray *pending, gboolean is_closed)
{
	g_autoptr(GError) error = NULL;
	gboolean is_sent = tc_agent_link_send(link, command, &error);
	enum outcome want = is_closed				   ? CLOSED
			    : id == TC_AGENT_CMD_REGISTRATION_DONE ? DONE
			    : pending->len < 4			   ? SEND_SHORT
			    : be32(pending->data) == 1		   ? SENT
								   : SEND_REFUSED;

	if (is_sent != (want == SENT || want == DONE))
		FAIL("command %u %s (%s)", id, is_sent ? "sent" : "failed", outcome_names[want]);
	if (!is_sent && !error_is(error, want))
		FAIL("command %u failed (%s) with: %s", id, outcome_names[want],
		     error ? error->message : "no error");
	if (want == SENT || want == SEND_REFUSED)
		g_byte_array_remove_range(pending, 0, 4);
	return want;
}

/* Whether the reply to command id is cut short among the pending bytes
 * (a bad head is reported before). */
static gboolean
is_short(const GByteArray *pending, guint32 id)
{
	if (id == TC_AGENT_CMD_LIST)
		return pending->len < 12 || (be32(pending->data + 4) <= TC_AGENT_LIST_BYTES_MAX &&
					     pending->len - 12 < be32(pending->data + 4));
	return id != TC_AGENT_CMD_REGISTRATION_DONE && pending->len < 4;
}

/* Everything that can be read from fd now. */
static GByteArray *
drain(int fd)
{
	GByteArray *out = g_byte_array_new();
	guint8 buffer[4096];
	ssize_t n;

	while ((n = recv(fd, buffer, sizeof(buffer), MSG_DONTWAIT)) > 0)
		g_byte_array_append(out, buffer, n);
	return out;
}

static void
check_written(int agent, const GByteArray *expected)
{
	g_autoptr(GByteArray) written = drain(agent);

	if (written->len != expected->len ||
	    (written->len && memcmp(written->data, expected->data, written->len)))
		FAIL("the link wrote %u bytes, not the %u of the command", written->len,
		     expected->len);
}

/* A length byte and that many bytes (what the input has left), to the
 * first NUL. */
static char *
take_string(struct fuzz_input *in)
{
	gsize n = fuzz_take_byte(in);
	char *string;

	n = MIN(n, in->size - in->pos);
	string = g_strndup((const char *)in->data + in->pos, n);
	in->pos += n;
	return string;
}

/* The reply of a step as the agent writes it. */
static GByteArray *
make_reply(struct fuzz_input *in, guint8 op, guint8 mod)
{
	gsize length = fuzz_take_byte(in);
	GByteArray *reply = g_byte_array_new();
	const guint8 *raw;
	guint32 size, count = 0, changes[4] = {0, 1, (guint32)-1, 0};

	length |= (gsize)fuzz_take_byte(in) << 8;
	length = MIN(length, in->size - in->pos);
	raw = in->data + in->pos;
	in->pos += length;
	if (!(op & OP_BUILT) || length == 0) {
		g_byte_array_append(reply, raw, length);
		return reply;
	}
	put_be32(reply, raw[0]);
	if ((op & 3) == 0) {
		size = length - 1;
		for (gsize i = 1; i < length; i++)
			count += raw[i] == 0;
		changes[3] = TC_AGENT_LIST_BYTES_MAX + 1 - size;
		put_be32(reply, size + changes[mod & 3]);
		changes[3] = TC_AGENT_LIST_NAMES_MAX + 1 - count;
		put_be32(reply, count + changes[(mod >> 2) & 3]);
	}
	g_byte_array_append(reply, raw + 1, length - 1);
	return reply;
}

/* One step; FALSE once the link is lost. */
static gboolean
run_step(struct fuzz_input *in, TcAgentLink *link, int *agent, GByteArray *pending)
{
	guint8 op = fuzz_take_byte(in), mod = fuzz_take_byte(in);
	guint32 ids[4] = {TC_AGENT_CMD_LIST, TC_AGENT_CMD_ENABLE, TC_AGENT_CMD_DISABLE,
			  TC_AGENT_CMD_REGISTRATION_DONE};
	guint32 id = ids[op & 3], level = 0, type = (mod & 3) % 3;
	g_autofree char *logger = NULL, *filter = NULL;
	g_autoptr(GBytes) command = NULL;
	g_autoptr(GByteArray) expected = NULL, reply = NULL;
	enum outcome got;

	if (id == TC_AGENT_CMD_ENABLE || id == TC_AGENT_CMD_DISABLE) {
		g_autofree char *name = take_string(in);

		/* Longer than the field: 256 more bytes. */
		logger = g_strdup_printf((mod & 0x08) ? "%s%0256d" : "%s", name, 0);
	}
	if (id == TC_AGENT_CMD_ENABLE) {
		level = fuzz_take_u32(in);
		filter = (mod & 0x04) ? take_string(in) : NULL;
		command = tc_agent_protocol_enable(logger, (int)level, type, filter);
	} else if (id == TC_AGENT_CMD_DISABLE)
		command = tc_agent_protocol_disable(logger);
	else
		command = tc_agent_protocol_command(id);
	expected = expected_command(id, logger, level, type, filter);
	reply = make_reply(in, op, mod);
	if (op & OP_CLOSE) {
		close(*agent);
		*agent = -1;
	} else if (reply->len > 0 &&
		   send(*agent, reply->data, reply->len, MSG_NOSIGNAL) != (ssize_t)reply->len)
		FAIL("send: %s", strerror(errno));
	if (*agent >= 0)
		g_byte_array_append(pending, reply->data, reply->len);
	/* A reply cut short is ended at once, unless the deadline is wanted:
	 * a reader that wants more than the model says waits for it and
	 * fails. */
	if (*agent >= 0 && !(op & OP_HOLD) && is_short(pending, id))
		shutdown(*agent, SHUT_WR);
	if (id == TC_AGENT_CMD_LIST)
		got = check_list(link, pending, *agent < 0);
	else
		got = check_send(link, command, id, pending, *agent < 0);
	if (*agent >= 0)
		check_written(*agent, expected);
	outcomes[got]++;
	return got != CLOSED && got != LIST_SHORT && got != LIST_BAD_HEAD && got != SEND_SHORT;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = {data, size, 0};
	guint8 registration[TC_AGENT_REGISTRATION_SIZE];
	TcAgentRegistration reg = {TC_AGENT_DOMAIN_PYTHON, 1, TC_AGENT_MAJOR, 0};
	g_autoptr(GByteArray) pending = g_byte_array_new();
	TcUserCharge charge;
	TcAgentLink *link;
	int open_before, fds[2];
	gboolean is_lost = FALSE;

	inputs_run++;
	for (gsize i = 0; i < sizeof(registration); i++)
		registration[i] = fuzz_take_byte(&in);
	if (!check_registration(registration, &reg))
		reg = (TcAgentRegistration){TC_AGENT_DOMAIN_PYTHON, 1, TC_AGENT_MAJOR, 0};
	open_before = fuzz_count_open_fds();
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0)
		FAIL("socketpair: %s", strerror(errno));
	tc_agent_link_set_timeouts(fds[0], TIMEOUT_MS);
	tc_user_limits_charge_init(&charge, AGENT_UID);
	link = tc_agent_link_new(fds[0], AGENT_UID, &reg, &charge);
	if (link->pid != reg.pid || link->domain != reg.domain || link->minor != reg.minor)
		FAIL("the link keeps another registration than given");
	while (in.pos < in.size && !is_lost)
		is_lost = !run_step(&in, link, &fds[1], pending);
	if (!is_lost) {
		g_autoptr(GByteArray) unread = drain(fds[0]);

		if (unread->len != pending->len ||
		    (unread->len && memcmp(unread->data, pending->data, unread->len)))
			FAIL("%u bytes left unread on the link, %u expected", unread->len,
			     pending->len);
	}
	tc_agent_link_unref(link);
	if (fds[1] >= 0)
		close(fds[1]);
	if (fuzz_count_open_fds() != open_before)
		FAIL("%d descriptors open before, %d after", open_before, fuzz_count_open_fds());
	return 0;
}

#ifndef FUZZ_LIBFUZZER
/* A registration of domain d, pid 0x1234, protocol major.1. */
#define REG(d, major) 0, 0, 0, d, 0, 0, 0x12, 0x34, 0, 0, 0, major, 0, 0, 0, 1
/* Steps: a built listing (status, then names), ENABLE of "app" at level
 * 20 with the filter "x > 1", DISABLE of "app", each answered status. */
#define LIST(op, mod, length, ...) op, mod, length, 0, __VA_ARGS__
#define ENABLE(op, mod, status)                                                                    \
	op, mod, 3, 'a', 'p', 'p', 20, 0, 0, 0, 5, 'x', ' ', '>', ' ', '1', 1, 0, status
#define DISABLE(status) 0x06, 0, 3, 'a', 'p', 'p', 1, 0, status
#define DONE 0x07, 0, 0, 0
#define SEED(...)                                                                                  \
	{                                                                                          \
		(const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__})             \
	}
static const struct fuzz_seed seeds[] = {
    /* A Python agent listed, told, done, listed empty. */
    SEED(REG(5, 2), LIST(0x04, 0, 13, 1, 'r', 'o', 'o', 't', 0, 'a', 'p', 'p', '.', 'd', 'b', 0),
	 ENABLE(0x05, 0x05, 1), DISABLE(1), DONE, LIST(0x04, 0, 1, 1)),
    /* JUL refusing; a listing refused, one with a control byte, a raw one. */
    SEED(REG(3, 2), ENABLE(0x05, 0x06, 2), LIST(0x04, 0, 3, 2, 'x', 0),
	 LIST(0x04, 0, 3, 1, 0x01, 0),
	 LIST(0x00, 0, 16, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 1, 'a', 'b', 'c', 0)),
    /* log4j: a listing one byte short, ended. */
    SEED(REG(4, 2), LIST(0x04, 0x01, 3, 1, 'x', 0)),
    /* Domain 7: a listing of too many names; pid 0: of a name in no byte. */
    SEED(REG(7, 2), LIST(0x04, 0x0c, 3, 1, 'x', 0)),
    SEED(0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, LIST(0x04, 0x04, 1, 1)),
    /* Major 3: a logger longer than its field, a status cut short. */
    SEED(REG(5, 3), 0x01, 0x08, 1, 'L', 1, 0, 0, 0, 2, 0, 0, 0),
    /* A status cut short and left open: the deadline ends it. */
    SEED(REG(5, 2), 0x0a, 0, 1, 'a', 2, 0, 0, 0),
    /* One name fewer than said; then the agent gone. */
    SEED(REG(5, 2), LIST(0x04, 0x08, 5, 1, 'a', 0, 'b', 0), DONE, 0x10, 0, 0, 0),
};

const struct fuzz_harness fuzz_harness = {
    .seeds = seeds,
    .nr_seeds = ARRAY_LEN(seeds),
    .input_max = 1024,
    .outcome_names = outcome_names,
    .outcomes = outcomes,
    .nr_outcomes = OUTCOMES,
};
#endif
