/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzz target: tracectld's listing of an LTTng-UST application's
 * tracepoints and fields (tc_lttng_list_events(), apps/tc-lttng-list.c),
 * through the real liblttng-ust-ctl, against an application the input
 * plays. The application may be anyone's program: every answer it gives
 * is hostile.
 *
 * The harness holds the application's end of a socket pair, on a thread
 * of its own, and answers each command the service sends, as LTTng-UST
 * 2.13's wire format has it (the reply of src/common/ustcomm.h, then a
 * field iterator for TRACEPOINT_FIELD_LIST_GET). The input's bytes, per
 * command:
 *   mode: mode & 7 = 0..3: a proper reply, whose status is, for the
 *         _GET commands, (mode & 3) 0: an entry, 1: the end (NOENT),
 *         2: an error, 3: a positive status; for the list commands, an
 *         error when (mode & 3) == 2, else a handle (one more byte);
 *         4: a reply to another command; 5: half a reply, then the
 *         socket shut; 6: the socket shut; 7: for FIELD_LIST_GET, the
 *         reply without its field iterator, then the socket shut (the
 *         service ignores the answers to RELEASE: only the commands
 *         after a shut one break then);
 *   an entry of TRACEPOINT_LIST_GET: name length (255: the whole 256
 *         bytes, no NUL), the name's bytes, a log level;
 *   an entry of TRACEPOINT_FIELD_LIST_GET: an event (an index among the
 *         names already sent, or 255, then a length and bytes), the
 *         field's name (length, bytes), its type.
 * Once the input is spent, the lists end and other commands succeed.
 *
 * WHAT MUST HOLD (beyond no sanitizer error), from what the harness sent:
 *   - the listing succeeds exactly when both lists were ended by NOENT
 *     with every earlier answer proper, and the events stayed within
 *     MaxEventDescriptionsPerApplication (8 here): else it fails, with
 *     LimitExceeded exactly when the limit was passed, and keeps no event;
 *   - on success, the events kept are the names sent that were not empty,
 *     printable and without a space or comma (cut at 256 bytes), each
 *     once, in the order sent, with the log level of its first entry;
 *     each one's fields are the valid fields sent for it, in order, as
 *     "type name" with LTTng's type names ("other" for an unknown type);
 *   - the application's socket is closed and every charge given back
 *     when the last reference goes: as many descriptors open as before,
 *     and the user's whole MaxEventDescriptions may be charged again.
 */
#include <dirent.h>
#include <errno.h>
#include <glib.h>
#include <lttng/ust-abi.h>
#include <lttng/ust-error.h>
#include <lttng/ust-sigbus.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz-driver.h"
#include "tc-error.h"
#include "tc-lttng-app.h"
#include "tc-lttng-list.h"
#include "tc-user-limits.h"

/* liblttng-ust-ctl asks its executable for it. */
DEFINE_LTTNG_UST_SIGBUS_STATE();

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
/* Inputs run so far, the failing one included: how soon a fault shows. */
static unsigned long long inputs_run;
#define FAIL(...)                                                                                  \
	do {                                                                                       \
		fprintf(stderr, "fuzz-lttng-list: input %llu: ", inputs_run);                      \
		fprintf(stderr, __VA_ARGS__);                                                      \
		fprintf(stderr, "\n");                                                             \
		abort();                                                                           \
	} while (0)

#define USER 1000
#define EVENTS_PER_APP_MAX 8
#define EVENTS_MAX 64
/* Commands answered per input: bounds the conversation. */
#define COMMANDS_MAX 256

/* LTTng-UST 2.13's reply on the command socket (src/common/ustcomm.h:
 * struct ustcomm_ust_reply), whose union's largest member is the
 * tracepoint iterator. */
struct wire_reply {
	uint32_t handle;
	uint32_t cmd;
	int32_t ret_code;
	uint32_t ret_val;
	char padding[32];
	union {
		struct lttng_ust_abi_tracepoint_iter tracepoint;
		char padding[32];
	} u;
} __attribute__((packed));

enum outcome {
	LISTED,
	LISTED_EVENTS,
	LISTED_FIELDS,
	REFUSED_LIMIT,
	FAILED,
	OUTCOMES,
};
static const char *const outcome_names[OUTCOMES] __attribute__((unused)) = {
    [LISTED] = "listed",	    [LISTED_EVENTS] = "listed events",
    [LISTED_FIELDS] = "listed fields", [REFUSED_LIMIT] = "refused at the limit",
    [FAILED] = "failed",
};
static unsigned long long outcomes[OUTCOMES];

/* What the harness sent, as the service must have understood it. */
typedef struct {
	char *name;
	int loglevel;
	GString *fields;
} Expected;

typedef struct {
	int fd;
	struct fuzz_input *in;
	GPtrArray *sent_names; /* every name sent, valid or not, for field entries */
	GPtrArray *expected;   /* Expected *, valid and distinct, in order */
	GHashTable *by_name;   /* name -> Expected * */
	gboolean is_broken;    /* an answer that must fail the listing */
	gboolean is_shut;
	gboolean is_list_ended, is_fields_ended;
} Peer;

static void
expected_free(Expected *expected)
{
	g_free(expected->name);
	g_string_free(expected->fields, TRUE);
	g_free(expected);
}

/* The service's rule for a name, as the harness knows it. */
static gboolean
is_valid_name(const char *name)
{
	if (name[0] == '\0')
		return FALSE;
	for (const char *c = name; *c; c++)
		if (!g_ascii_isprint(*c) || *c == ' ' || *c == ',')
			return FALSE;
	return TRUE;
}

/* A name of the input into raw (size bytes, zero-filled); returns it as
 * the service reads it: cut at its size. */
static char *
take_name(Peer *peer, char *raw, size_t size)
{
	guint length = fuzz_take_byte(peer->in);

	memset(raw, 0, size);
	length = length == 255 ? size : MIN(length, size);
	for (guint i = 0; i < length; i++)
		raw[i] = (char)fuzz_take_byte(peer->in);
	return g_strndup(raw, size);
}

static const char *
type_name(int32_t type)
{
	static const char *const names[] = {"other", "integer", "enum", "float", "string"};

	return type >= 0 && type < (int32_t)ARRAY_LEN(names) ? names[type] : "other";
}

static void
send_all(Peer *peer, const void *data, size_t size)
{
	if (send(peer->fd, data, size, MSG_NOSIGNAL) != (ssize_t)size)
		peer->is_broken = TRUE;
}

/* The service ignores how a RELEASE is answered: a bad answer to one
 * breaks nothing, a shut socket breaks the command after it. */
static void
break_on(Peer *peer, uint32_t cmd)
{
	if (cmd != LTTNG_UST_ABI_RELEASE)
		peer->is_broken = TRUE;
}

static void
shut(Peer *peer, uint32_t cmd)
{
	shutdown(peer->fd, SHUT_WR);
	peer->is_shut = TRUE;
	break_on(peer, cmd);
}

/* An entry of TRACEPOINT_LIST_GET. */
static void
fill_tracepoint(Peer *peer, struct wire_reply *reply)
{
	char *name = take_name(peer, reply->u.tracepoint.name, sizeof(reply->u.tracepoint.name));

	reply->u.tracepoint.loglevel = (int8_t)fuzz_take_byte(peer->in);
	g_ptr_array_add(peer->sent_names, name);
	if (is_valid_name(name) && !g_hash_table_contains(peer->by_name, name)) {
		Expected *expected = g_new0(Expected, 1);

		expected->name = g_strdup(name);
		expected->loglevel = reply->u.tracepoint.loglevel;
		expected->fields = g_string_new(NULL);
		g_ptr_array_add(peer->expected, expected);
		g_hash_table_insert(peer->by_name, expected->name, expected);
	}
}

/* An entry of TRACEPOINT_FIELD_LIST_GET, sent after its reply. */
static void
send_field(Peer *peer)
{
	struct lttng_ust_abi_field_iter iter;
	guint pick = fuzz_take_byte(peer->in);
	g_autofree char *event_name = NULL;
	g_autofree char *field_name = NULL;
	Expected *expected;

	memset(&iter, 0, sizeof(iter));
	if (pick < peer->sent_names->len) {
		const char *sent = g_ptr_array_index(peer->sent_names, pick);

		memcpy(iter.event_name, sent, strnlen(sent, sizeof(iter.event_name)));
		event_name = g_strndup(iter.event_name, sizeof(iter.event_name));
	} else {
		event_name = take_name(peer, iter.event_name, sizeof(iter.event_name));
	}
	field_name = take_name(peer, iter.field_name, sizeof(iter.field_name));
	iter.type = fuzz_take_byte(peer->in) % 6;
	send_all(peer, &iter, sizeof(iter));
	expected = g_hash_table_lookup(peer->by_name, event_name);
	if (expected && is_valid_name(field_name))
		g_string_append_printf(expected->fields, "%s%s %s", expected->fields->len ? ", " : "",
				       type_name(iter.type), field_name);
}

static gboolean
is_get(uint32_t cmd)
{
	return cmd == LTTNG_UST_ABI_TRACEPOINT_LIST_GET ||
	       cmd == LTTNG_UST_ABI_TRACEPOINT_FIELD_LIST_GET;
}

/* A proper reply to cmd, of the status mode picks. */
static void
answer_properly(Peer *peer, struct wire_reply *reply, guint mode)
{
	uint32_t cmd = reply->cmd;

	if (is_get(cmd) && mode == 1) {
		reply->ret_code = -LTTNG_UST_ERR_NOENT;
		if (cmd == LTTNG_UST_ABI_TRACEPOINT_LIST_GET)
			peer->is_list_ended = TRUE;
		else
			peer->is_fields_ended = TRUE;
	} else if (mode == 2 && cmd != LTTNG_UST_ABI_RELEASE) {
		reply->ret_code = -LTTNG_UST_ERR_PERM;
		peer->is_broken = TRUE;
	} else if (is_get(cmd) && mode == 3) {
		reply->ret_code = 1;
		peer->is_broken = TRUE;
	} else if (cmd == LTTNG_UST_ABI_TRACEPOINT_LIST_GET) {
		fill_tracepoint(peer, reply);
	} else if (cmd != LTTNG_UST_ABI_RELEASE && !is_get(cmd)) {
		reply->ret_val = fuzz_take_byte(peer->in); /* a list's handle */
	}
	send_all(peer, reply, sizeof(*reply));
	if (cmd == LTTNG_UST_ABI_TRACEPOINT_FIELD_LIST_GET && reply->ret_code == 0)
		send_field(peer);
}

/* Once the input is spent: the lists end, everything else succeeds. */
static guint
spent_mode(uint32_t cmd)
{
	return is_get(cmd) ? 1 : 0;
}

static void
answer(Peer *peer, uint32_t handle, uint32_t cmd)
{
	struct wire_reply reply = {.handle = handle, .cmd = cmd};
	guint mode = peer->in->pos < peer->in->size ? fuzz_take_byte(peer->in) & 7 : spent_mode(cmd);

	switch (mode) {
	case 4:
		reply.cmd = cmd + 1;
		break_on(peer, cmd);
		send_all(peer, &reply, sizeof(reply));
		break;
	case 5:
		send_all(peer, &reply, sizeof(reply) / 2);
		shut(peer, cmd);
		break;
	case 6:
		shut(peer, cmd);
		break;
	case 7:
		if (cmd == LTTNG_UST_ABI_TRACEPOINT_FIELD_LIST_GET) {
			send_all(peer, &reply, sizeof(reply));
			shut(peer, cmd);
			break;
		}
		G_GNUC_FALLTHROUGH; /* as a proper reply for the others */
	default:
		answer_properly(peer, &reply, mode & 3);
	}
}

/* The application's thread: answers until the service closes. */
static void *
peer_thread(void *data)
{
	Peer *peer = data;
	uint8_t command[4096];

	for (guint n = 0; n < COMMANDS_MAX; n++) {
		ssize_t length = recv(peer->fd, command, sizeof(command), 0);
		uint32_t handle, cmd;

		if (length <= 0)
			break;
		if (length < 8)
			continue;
		memcpy(&handle, command, 4);
		memcpy(&cmd, command + 4, 4);
		if (peer->is_shut) {
			break_on(peer, cmd); /* it gets no answer */
			continue;
		}
		answer(peer, handle, cmd);
	}
	/* More commands than answered: the service must not hang on it. */
	shutdown(peer->fd, SHUT_RDWR);
	return NULL;
}

static void
check_events(TcLttngApp *app, const Peer *peer)
{
	g_autoptr(GPtrArray) events = tc_lttng_app_dup_events(app);

	if (events->len != peer->expected->len)
		FAIL("%u events kept, %u sent", events->len, peer->expected->len);
	for (guint i = 0; i < events->len; i++) {
		const TcLttngEvent *event = g_ptr_array_index(events, i);
		const Expected *expected = g_ptr_array_index(peer->expected, i);

		if (strcmp(event->name, expected->name) != 0)
			FAIL("event %u kept as '%s', sent as '%s'", i, event->name, expected->name);
		if (event->loglevel != expected->loglevel)
			FAIL("'%s' kept with log level %d, sent with %d", event->name,
			     event->loglevel, expected->loglevel);
		if (event->fields == NULL || strcmp(event->fields, expected->fields->str) != 0)
			FAIL("'%s' kept with fields '%s', sent with '%s'", event->name,
			     event->fields ? event->fields : "(null)", expected->fields->str);
		outcomes[LISTED_EVENTS]++;
		outcomes[LISTED_FIELDS] += expected->fields->len > 0;
	}
}

static void
check_verdict(TcLttngApp *app, const Peer *peer, gboolean is_listed, const GError *error)
{
	gboolean is_over = peer->expected->len > EVENTS_PER_APP_MAX;
	gboolean must_list = !is_over && !peer->is_broken && peer->is_list_ended &&
			     peer->is_fields_ended;
	g_autoptr(GPtrArray) events = tc_lttng_app_dup_events(app);

	if (is_listed) {
		if (!must_list)
			FAIL("listed, though the answers were %s",
			     is_over ? "over the limit" : "broken or unfinished");
		check_events(app, peer);
		outcomes[LISTED]++;
		return;
	}
	if (error == NULL)
		FAIL("failed without an error");
	if (events->len != 0)
		FAIL("failed (%s) and kept %u events", error->message, events->len);
	if (g_error_matches(error, TC_ERROR, TC_ERROR_LIMIT_EXCEEDED) != is_over)
		FAIL("failed with '%s' while %u events were sent", error->message,
		     peer->expected->len);
	/* Over the limit or not, a listing that went by the book lists. */
	if (must_list)
		FAIL("failed (%s), though every answer was proper", error->message);
	outcomes[is_over ? REFUSED_LIMIT : FAILED]++;
}

/* Nothing held: the user's whole allowance may be charged again. */
static void
check_released(void)
{
	g_autoptr(GError) error = NULL;
	TcUserCharge probe;

	tc_user_limits_charge_init(&probe, USER);
	if (!tc_user_limits_charge(&probe, TC_LIMIT_EVENTS, EVENTS_MAX, &error))
		FAIL("charges left behind: %s", error->message);
	tc_user_limits_release(&probe);
}

static void
setup_once(void)
{
	static gboolean is_done;

	if (is_done)
		return;
	tc_user_limits_set_default(TC_LIMIT_EVENTS_PER_APPLICATION, EVENTS_PER_APP_MAX);
	tc_user_limits_set_default(TC_LIMIT_EVENTS, EVENTS_MAX);
	is_done = TRUE;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = {data, size, 0};
	g_autoptr(GError) error = NULL;
	int open_before, fds[2];
	struct timeval timeout = {.tv_sec = 2};
	Peer peer = {.in = &in};
	TcUserCharge charge;
	TcLttngApp *app;
	pthread_t thread;
	gboolean is_listed;

	setup_once();
	inputs_run++;
	open_before = fuzz_count_open_fds();
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0)
		FAIL("socketpair: %s", strerror(errno));
	/* As the service bounds every wait on an application. */
	setsockopt(fds[0], SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
	setsockopt(fds[0], SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
	/* A service that never closes its end must not hang the harness:
	 * the peer gives up after a while, and the descriptor count fails. */
	setsockopt(fds[1], SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
	peer.fd = fds[1];
	peer.sent_names = g_ptr_array_new_with_free_func(g_free);
	peer.expected = g_ptr_array_new_with_free_func((GDestroyNotify)expected_free);
	peer.by_name = g_hash_table_new(g_str_hash, g_str_equal);
	tc_user_limits_charge_init(&charge, USER);
	app = tc_lttng_app_new(fds[0], 4242, USER, USER, &charge);
	pthread_create(&thread, NULL, peer_thread, &peer);
	is_listed = tc_lttng_list_events(app, &error);
	check_verdict(app, &peer, is_listed, error);
	tc_lttng_app_unref(app); /* closes the service's end: the peer ends */
	pthread_join(thread, NULL);
	close(peer.fd);
	check_released();
	if (fuzz_count_open_fds() != open_before)
		FAIL("%d descriptors open before the listing, %d after", open_before,
		     fuzz_count_open_fds());
	g_hash_table_unref(peer.by_name);
	g_ptr_array_unref(peer.expected);
	g_ptr_array_unref(peer.sent_names);
	return 0;
}

#ifndef FUZZ_LIBFUZZER
#define SEED(...)                                                                                  \
	{                                                                                          \
		(const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__})             \
	}
/* A list's handle, an entry, the end, a release. */
#define LIST(handle) 0, handle
#define TP(len, ...) 0, len, __VA_ARGS__
#define END 1
#define OK 0
#define N16 'n', 'n', 'n', 'n', 'n', 'n', 'n', 'n', 'n', 'n', 'n', 'n', 'n', 'n', 'n', 'n'
#define N256 N16, N16, N16, N16, N16, N16, N16, N16, N16, N16, N16, N16, N16, N16, N16, N16
static const struct fuzz_seed seeds[] = {
    /* Two events, a field each, a field of an unknown event. */
    SEED(LIST(3), TP(5, 'a', ':', 't', 'i', 'c', 6), TP(3, 'b', ':', 'c', 4), END, OK, LIST(4),
	 0, 0, 5, 'c', 'o', 'u', 'n', 't', 1, 0, 1, 3, 'm', 's', 'g', 4, 0, 255, 1, 'z', 1, 'x',
	 2, END, OK),
    /* Bad names: empty, with a space, a comma, a control byte; a duplicate. */
    SEED(LIST(1), TP(0, 9), TP(3, 'a', ' ', 'b', 1), TP(3, 'a', ',', 'b', 1),
	 TP(2, 'a', 0x01, 1), TP(1, 'q', 2), TP(1, 'q', 5), END, OK, LIST(2), END, OK),
    /* A name of the whole 256 bytes, no NUL, followed by a log level
     * whose first byte is not 0; a field of an unknown type for it. */
    SEED(LIST(1), 0, 255, N256, 0x41, END, OK, LIST(2), 0, 0, 1, 'f', 5, END, OK),
    /* A field of an unknown type. */
    SEED(LIST(1), TP(1, 'e', 3), END, OK, LIST(2), 0, 0, 1, 'f', 5, END, OK),
    /* Nine events: over the limit. */
    SEED(LIST(1), TP(1, 'a', 0), TP(1, 'b', 0), TP(1, 'c', 0), TP(1, 'd', 0), TP(1, 'e', 0),
	 TP(1, 'f', 0), TP(1, 'g', 0), TP(1, 'h', 0), TP(1, 'i', 0), END, OK),
    /* An error, a positive status, a reply to another command. */
    SEED(LIST(1), TP(1, 'a', 0), 2, OK),
    SEED(LIST(1), 3, OK),
    SEED(LIST(1), TP(1, 'a', 0), END, OK, 4, OK),
    /* Half a reply, a shut socket, a field without its iterator. */
    SEED(LIST(1), 5),
    SEED(LIST(1), TP(1, 'a', 0), 6),
    SEED(LIST(1), TP(1, 'a', 0), END, OK, LIST(2), 7),
    /* The list refused. */
    SEED(2),
};

const struct fuzz_harness fuzz_harness = {
    .seeds = seeds,
    .nr_seeds = ARRAY_LEN(seeds),
    .input_max = 2048,
    .outcome_names = outcome_names,
    .outcomes = outcomes,
    .nr_outcomes = OUTCOMES,
};
#endif
