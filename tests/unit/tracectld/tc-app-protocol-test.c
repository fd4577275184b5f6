/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests of what tracectld takes of an application's enumerations:
 * the wire ABI's shared checks (common/abi/tracectl-abi.h), the versions
 * REGISTER may speak, ENUM messages in order and out of it, enumeration
 * fields of events, the per-user limit on what they hold, and their CTF
 * metadata, listing and identity across applications.
 */
#include <glib.h>
#include <string.h>
#include <unistd.h>

#include "tc-app-protocol.h"
#include "tc-app.h"
#include "tc-error.h"
#include "tc-metadata.h"
#include "tc-user-limits.h"

#define UNSIGNED(size) TRACECTL_FIELD_ELEMENT(TRACECTL_FIELD_UNSIGNED, size)
#define SIGNED(size) TRACECTL_FIELD_ELEMENT(TRACECTL_FIELD_SIGNED, size)
#define ENUM_OF(container) (TRACECTL_FIELD_ENUM | (container))

static void
test_abi_labels(void)
{
	static const char *const good[] = {
		"A", "busy", "with space", "say \"hi\" \\", "é", "日本", "\xf0\x9f\x98\x80",
		"123456789012345678901234567890123456789012345678901234567890123",
	};
	static const char *const bad[] = {
		"",		  /* empty */
		"tab\there",	  /* C0 */
		"del\x7f",	  /* DEL */
		"c1\xc2\x85",	  /* C1 (NEL) */
		"\xc3",		  /* cut short */
		"\xc0\xaf",	  /* overlong */
		"\xe0\x80\xaf",	  /* overlong */
		"\xed\xa0\x80",	  /* a surrogate */
		"\xf4\x90\x80\x80", /* past U+10FFFF */
		"\xff",		  /* no such byte */
		"\x80",		  /* a continuation first */
	};
	char unterminated[TRACECTL_ABI_ENUM_LABEL_MAX];

	for (guint i = 0; i < G_N_ELEMENTS(good); i++) {
		char label[TRACECTL_ABI_ENUM_LABEL_MAX] = {0};

		g_assert_cmpuint(strlen(good[i]), <, sizeof(label));
		strcpy(label, good[i]);
		g_assert_true(tracectl_abi_label_is_valid(label, sizeof(label)));
	}
	for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
		char label[TRACECTL_ABI_ENUM_LABEL_MAX] = {0};

		strcpy(label, bad[i]);
		g_assert_false(tracectl_abi_label_is_valid(label, sizeof(label)));
	}
	memset(unterminated, 'a', sizeof(unterminated));
	g_assert_false(tracectl_abi_label_is_valid(unterminated, sizeof(unterminated)));
}

static struct tracectl_abi_enum_entry
entry(const char *label, guint64 begin, guint64 end, guint32 flags)
{
	struct tracectl_abi_enum_entry e = {.begin = begin, .end = end, .flags = flags};

	g_strlcpy(e.label, label, sizeof(e.label));
	return e;
}

#define SIGNED_VALUES TRACECTL_ENUM_ENTRY_SIGNED

static void
test_abi_entries(void)
{
	struct tracectl_abi_enum_entry e;

	e = entry("a", 1, 5, 0);
	g_assert_true(tracectl_abi_enum_entry_is_valid(&e));
	e = entry("a", 5, 5, 0);
	g_assert_true(tracectl_abi_enum_entry_is_valid(&e));
	e = entry("a", 6, 5, 0);
	g_assert_false(tracectl_abi_enum_entry_is_valid(&e));
	/* -3 .. -1 signed; as unsigned values the same bits also hold. */
	e = entry("a", (guint64)-3, (guint64)-1, SIGNED_VALUES);
	g_assert_true(tracectl_abi_enum_entry_is_valid(&e));
	/* -1 .. 1: the wrong way round read unsigned, right read signed. */
	e = entry("a", (guint64)-1, 1, SIGNED_VALUES);
	g_assert_true(tracectl_abi_enum_entry_is_valid(&e));
	e.flags = 0;
	g_assert_false(tracectl_abi_enum_entry_is_valid(&e));
	e = entry("a", (guint64)G_MININT64, (guint64)G_MAXINT64, SIGNED_VALUES);
	g_assert_true(tracectl_abi_enum_entry_is_valid(&e));
	e = entry("a", 0, G_MAXUINT64, 0);
	g_assert_true(tracectl_abi_enum_entry_is_valid(&e));
	e = entry("a", 0, 0, 0x2); /* no such flag on the wire */
	g_assert_false(tracectl_abi_enum_entry_is_valid(&e));
	e = entry("a", 0, 0, 0);
	e.reserved = 1;
	g_assert_false(tracectl_abi_enum_entry_is_valid(&e));
	e = entry("", 0, 0, 0);
	g_assert_false(tracectl_abi_enum_entry_is_valid(&e));
}

/* Each container's bounds, inside and one past. */
static void
test_abi_fits(void)
{
	static const struct {
		guint32 container;
		gint64 min;
		guint64 max;
	} containers[] = {
		{SIGNED(1), -128, 127},
		{SIGNED(2), -32768, 32767},
		{SIGNED(4), G_MININT32, G_MAXINT32},
		{UNSIGNED(1), 0, 255},
		{UNSIGNED(2), 0, 65535},
		{UNSIGNED(4), 0, G_MAXUINT32},
	};

	for (guint i = 0; i < G_N_ELEMENTS(containers); i++) {
		guint32 c = containers[i].container;
		gint64 min = containers[i].min;
		guint64 max = containers[i].max;

		g_assert_true(tracectl_abi_enum_value_fits((guint64)min, TRUE, c));
		g_assert_true(tracectl_abi_enum_value_fits(max, FALSE, c));
		g_assert_true(tracectl_abi_enum_value_fits(max, TRUE, c));
		g_assert_false(tracectl_abi_enum_value_fits(max + 1, FALSE, c));
		g_assert_false(tracectl_abi_enum_value_fits((guint64)(min - 1), TRUE, c));
		/* Negative bits read unsigned are huge. */
		g_assert_false(tracectl_abi_enum_value_fits((guint64)-1, FALSE, c));
	}
	g_assert_true(tracectl_abi_enum_value_fits((guint64)G_MININT64, TRUE, SIGNED(8)));
	g_assert_true(tracectl_abi_enum_value_fits(G_MAXINT64, FALSE, SIGNED(8)));
	g_assert_false(tracectl_abi_enum_value_fits((guint64)G_MAXINT64 + 1, FALSE, SIGNED(8)));
	g_assert_true(tracectl_abi_enum_value_fits(G_MAXUINT64, FALSE, UNSIGNED(8)));
	g_assert_false(tracectl_abi_enum_value_fits((guint64)-1, TRUE, UNSIGNED(8)));

	struct tracectl_abi_enum_entry e = entry("a", (guint64)-1, 200, SIGNED_VALUES);

	g_assert_true(tracectl_abi_enum_entry_fits(&e, SIGNED(2)));
	g_assert_false(tracectl_abi_enum_entry_fits(&e, SIGNED(1)));
	g_assert_false(tracectl_abi_enum_entry_fits(&e, UNSIGNED(8)));
}

static void
test_abi_fields(void)
{
	g_assert_true(tracectl_abi_field_is_valid(ENUM_OF(UNSIGNED(1)), 0));
	g_assert_true(tracectl_abi_field_is_valid(ENUM_OF(SIGNED(8)), TRACECTL_ABI_ENUMS_MAX - 1));
	g_assert_false(tracectl_abi_field_is_valid(ENUM_OF(SIGNED(8)), TRACECTL_ABI_ENUMS_MAX));
	g_assert_false(tracectl_abi_field_is_valid(ENUM_OF(SIGNED(3)), 0));
	g_assert_false(tracectl_abi_field_is_valid(ENUM_OF(SIGNED(16)), 0));
	g_assert_false(tracectl_abi_field_is_valid(TRACECTL_FIELD_ENUM, 0));
	g_assert_false(tracectl_abi_field_is_valid(
		ENUM_OF(TRACECTL_FIELD_ELEMENT(TRACECTL_FIELD_DOUBLE, 8)), 0));
	/* No base, byte order or text on a container. */
	g_assert_false(tracectl_abi_field_is_valid(ENUM_OF(UNSIGNED(4)) | TRACECTL_FIELD_HEX, 0));
	g_assert_false(
		tracectl_abi_field_is_valid(ENUM_OF(UNSIGNED(4)) | TRACECTL_FIELD_BIG_ENDIAN, 0));
	g_assert_false(tracectl_abi_field_is_valid(ENUM_OF(UNSIGNED(1)) | TRACECTL_FIELD_TEXT, 0));
	/* Read by filters and laid out as the container. */
	g_assert_true(tracectl_abi_field_is_native_integer(ENUM_OF(SIGNED(2))));
	g_assert_cmpuint(tracectl_abi_field_integer_size(ENUM_OF(SIGNED(2)), 7), ==, 2);
	g_assert_true(tracectl_abi_field_integer_is_signed(ENUM_OF(SIGNED(2))));
	g_assert_false(tracectl_abi_field_integer_is_signed(ENUM_OF(UNSIGNED(2))));
	g_assert_cmpuint(tracectl_abi_field_fixed_size(ENUM_OF(UNSIGNED(8)), 3), ==, 8);
	g_assert_cmpuint(tracectl_abi_field_fixed_size(TRACECTL_FIELD_UNSIGNED, 4), ==, 4);
	g_assert_cmpuint(tracectl_abi_field_fixed_size(TRACECTL_FIELD_ARRAY | UNSIGNED(4), 16), ==,
			 64);
	g_assert_cmpuint(tracectl_abi_field_fixed_size(TRACECTL_FIELD_SEQUENCE | UNSIGNED(4), 0),
			 ==, 0);
}

/* Applications, fed messages as tc_app_protocol_handle_message() is. */

static TcApp *
app_new(uid_t uid, guint32 version)
{
	TcApp *app = tc_app_new(-1, getpid(), uid, getgid());
	struct tracectl_msg_register msg = {
		.abi_version = version,
		.bits_per_long = sizeof(long) * 8,
		.pid = getpid(),
		.uid = uid,
	};
	g_autoptr(GError) error = NULL;

	tc_user_limits_charge_init(&app->charge, uid);
	g_assert_true(tc_app_protocol_handle_register(app, &msg, &error));
	g_assert_no_error(error);
	return app;
}

static void
test_register_versions(void)
{
	static const struct {
		guint32 version;
		const char *why;
	} refused[] = {
		{3, "ABI version 3, older than the versions 4 to 6"},
		{TRACECTL_ABI_VERSION + 1, "ABI version 7, newer than this service's 6"},
		{0, "ABI version 0, older"},
	};

	for (guint version = TRACECTL_ABI_VERSION_MIN; version <= TRACECTL_ABI_VERSION; version++) {
		g_autoptr(TcApp) app = app_new(0, version);

		g_assert_cmpuint(app->abi_version, ==, version);
	}
	for (guint i = 0; i < G_N_ELEMENTS(refused); i++) {
		g_autoptr(TcApp) app = tc_app_new(-1, getpid(), 0, getgid());
		struct tracectl_msg_register msg = {
			.abi_version = refused[i].version,
			.bits_per_long = sizeof(long) * 8,
		};
		g_autoptr(GError) error = NULL;

		g_assert_false(tc_app_protocol_handle_register(app, &msg, &error));
		g_assert_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED);
		g_assert_nonnull(strstr(error->message, refused[i].why));
		g_assert_false(app->is_greeted);
	}
}

/* An ENUM message of entries [first, first + count) of an enumeration of
 * nr_entries whose entry i is "e<i>" = 2i. */
static struct tracectl_msg_enum *
enum_message(guint32 index, const char *name, guint32 nr_entries, guint32 first, guint32 count)
{
	struct tracectl_msg_enum *msg = g_new0(struct tracectl_msg_enum, 1);

	msg->header = (struct tracectl_msg_header){.magic = TRACECTL_ABI_MAGIC,
						   .type = TRACECTL_MSG_ENUM,
						   .size = sizeof(*msg)};
	msg->index = index;
	msg->nr_entries = nr_entries;
	msg->first = first;
	msg->count = count;
	g_strlcpy(msg->name, name, sizeof(msg->name));
	for (guint32 i = 0; i < count && i < TRACECTL_ABI_ENUM_ENTRIES_PER_MSG; i++) {
		g_snprintf(msg->entries[i].label, sizeof(msg->entries[i].label), "e%u", first + i);
		msg->entries[i].begin = msg->entries[i].end = 2 * (first + i);
	}
	return msg;
}

/* Sends a whole enumeration of nr_entries, as the library cuts it. */
static void
send_enum(TcApp *app, guint32 index, const char *name, guint32 nr_entries)
{
	for (guint32 first = 0; first < nr_entries; first += TRACECTL_ABI_ENUM_ENTRIES_PER_MSG) {
		g_autofree struct tracectl_msg_enum *msg = enum_message(
			index, name, nr_entries, first,
			MIN(nr_entries - first, TRACECTL_ABI_ENUM_ENTRIES_PER_MSG));
		g_autoptr(GError) error = NULL;

		g_assert_true(tc_app_protocol_handle_enum(app, msg, &error));
		g_assert_no_error(error);
	}
}

static gboolean
refuses_enum(TcApp *app, const struct tracectl_msg_enum *msg, const char *why)
{
	g_autoptr(GError) error = NULL;
	guint before = app->enums->len;

	if (tc_app_protocol_handle_enum(app, msg, &error))
		return FALSE;
	g_assert_nonnull(error);
	if (strstr(error->message, why) == NULL) {
		g_printerr("refused for '%s', not '%s'\n", error->message, why);
		return FALSE;
	}
	return app->enums->len == before;
}

static void
test_enum_messages(void)
{
	static const struct {
		guint32 index;
		const char *name;
		guint32 nr_entries, first, count;
		const char *why;
	} refused[] = {
		{1, "p:state", 3, 0, 3, "unexpected enumeration 1"},
		{0, "p:state", 3, 1, 2, "unexpected enumeration 0"},
		{0, "p:state", 3, 0, 0, "sends 0 entries"},
		{0, "p:state", 3, 0, 4, "sends 4 entries from 0 of 3"},
		{0, "p:state", 100, 0, 45, "at most 44 a message"},
		{0, "p:state", 1025, 0, 1, "of 1025"},
		{0, "p:state", 0, 0, 1, "of 0"},
		{0, "p:state", 0xffffffffu, 0xfffffff0u, 0x20u, "sends 32 entries"},
		{0, "state", 3, 0, 3, "bad enumeration name"},
	};
	/* Continuing one at entry 44 of 100: another name, count or index. */
	static const struct {
		guint32 index;
		const char *name;
		guint32 nr_entries;
	} not_continued[] = {{0, "p:other", 100}, {0, "p:state", 99}, {1, "p:state", 100}};
	g_autoptr(TcApp) app = app_new(0, TRACECTL_ABI_VERSION);
	g_autoptr(TcApp) old = app_new(0, 4);
	g_autofree struct tracectl_msg_enum *msg = NULL;
	const TcAppEnum *enumeration;

	/* A version 4 application has no enumerations to send. */
	msg = enum_message(0, "p:state", 3, 0, 3);
	g_assert_true(refuses_enum(old, msg, "from a version 4 application"));

	/* Out of order (not the next index, not from its first entry),
	 * counts (none, past the enumeration, past a message, past 1024,
	 * wrapping 32 bits), names. */
	for (guint i = 0; i < G_N_ELEMENTS(refused); i++) {
		g_free(msg);
		msg = enum_message(refused[i].index, refused[i].name, refused[i].nr_entries,
				   refused[i].first, refused[i].count);
		g_assert_true(refuses_enum(app, msg, refused[i].why));
	}
	memset(msg->name, 'a', sizeof(msg->name));
	g_assert_true(refuses_enum(app, msg, "bad enumeration name"));
	g_strlcpy(msg->name, "p:state", sizeof(msg->name));
	msg->entries[2].begin = 7;
	g_assert_true(refuses_enum(app, msg, "bad entry 2"));
	msg->entries[2].begin = 4;
	msg->entries[1].label[0] = '\n';
	g_assert_true(refuses_enum(app, msg, "bad entry 1"));

	/* One of 100 entries in three messages; nothing else in between. */
	g_free(msg);
	msg = enum_message(0, "p:state", 100, 0, 44);
	g_assert_true(tc_app_protocol_handle_enum(app, msg, NULL));
	g_assert_cmpuint(app->enums->len, ==, 1);
	for (guint i = 0; i < G_N_ELEMENTS(not_continued); i++) {
		g_free(msg);
		msg = enum_message(not_continued[i].index, not_continued[i].name,
				   not_continued[i].nr_entries, 44, 44);
		g_assert_true(refuses_enum(app, msg, "the last one incomplete"));
	}
	{
		struct tracectl_msg_event event = {.index = 0, .loglevel = 13, .name = "p:e"};
		struct tracectl_msg_batch end = {.batch = 1};
		g_autoptr(GError) error = NULL;

		g_assert_false(tc_app_protocol_handle_event(app, &event, &error));
		g_assert_nonnull(strstr(error->message, "has 44 of its 100 entries"));
		g_clear_error(&error);
		g_assert_false(tc_app_protocol_handle_events_end(app, &end, &error));
		g_assert_nonnull(strstr(error->message, "has 44 of its 100 entries"));
	}
	g_free(msg);
	msg = enum_message(0, "p:state", 100, 44, 44);
	g_assert_true(tc_app_protocol_handle_enum(app, msg, NULL));
	enumeration = g_ptr_array_index(app->enums, 0);
	g_assert_null(enumeration->digest);
	g_free(msg);
	msg = enum_message(0, "p:state", 100, 88, 12);
	g_assert_true(tc_app_protocol_handle_enum(app, msg, NULL));
	g_assert_cmpuint(enumeration->nr_received, ==, 100);
	g_assert_nonnull(enumeration->digest);
	g_assert_cmpstr(enumeration->entries[99].label, ==, "e99");
	g_assert_cmpuint(enumeration->entries[99].end, ==, 198);
	/* Complete: the next one starts. */
	g_free(msg);
	msg = enum_message(0, "p:state", 3, 0, 3);
	g_assert_true(refuses_enum(app, msg, "unexpected enumeration 0"));
	msg->index = 1;
	g_assert_true(tc_app_protocol_handle_enum(app, msg, NULL));
	g_assert_cmpuint(app->enums->len, ==, 2);
}

/* An event message of fields given as (name, type, size). */
static struct tracectl_msg_event
event_message(guint32 index, const char *name, guint nr_fields,
	      const struct tracectl_abi_field *fields)
{
	struct tracectl_msg_event msg = {.index = index, .loglevel = 13, .nr_fields = nr_fields};

	g_strlcpy(msg.name, name, sizeof(msg.name));
	memcpy(msg.fields, fields, nr_fields * sizeof(fields[0]));
	return msg;
}

static void
test_enum_fields(void)
{
	g_autoptr(TcApp) app = app_new(0, TRACECTL_ABI_VERSION);
	g_autofree struct tracectl_msg_enum *negative = enum_message(1, "q:sign", 2, 0, 2);
	g_autofree struct tracectl_msg_enum *open = enum_message(2, "p:open", 50, 0, 44);
	const struct tracectl_abi_field fields[] = {
		{"from", ENUM_OF(UNSIGNED(1)), 0},
		{"plain", TRACECTL_FIELD_SIGNED, 4},
		{"to", ENUM_OF(SIGNED(8)), 0},
		{"sign", ENUM_OF(SIGNED(2)), 1},
	};
	struct tracectl_msg_event msg;
	g_autoptr(GError) error = NULL;
	const TcAppEvent *event;
	g_autofree char *signature = NULL;

	/* Entries 0 to 99 of p:state: 198 fits an unsigned byte. */
	send_enum(app, 0, "p:state", 100);
	negative->entries[0] = entry("minus", (guint64)-300, (guint64)-1, SIGNED_VALUES);
	g_assert_true(tc_app_protocol_handle_enum(app, negative, NULL));
	msg = event_message(0, "p:e", G_N_ELEMENTS(fields), fields);
	g_assert_true(tc_app_protocol_handle_event(app, &msg, &error));
	g_assert_no_error(error);
	event = g_ptr_array_index(app->events, 0);
	g_assert_nonnull(event->enums);
	g_assert_true(event->enums[0] == g_ptr_array_index(app->enums, 0));
	g_assert_null(event->enums[1]);
	g_assert_true(event->enums[2] == event->enums[0]);
	g_assert_true(event->enums[3] == g_ptr_array_index(app->enums, 1));
	/* The listing names each enumeration, with its provider when it is
	 * not the event's. */
	g_assert_cmpstr(event->signature, ==,
			"enum state : uint8 from, int32 plain, enum state : int64 to, "
			"enum q:sign : int16 sign");

	/* An event without enumerations holds no table of them. */
	msg = event_message(1, "p:plain", 1, &fields[1]);
	g_assert_true(tc_app_protocol_handle_event(app, &msg, NULL));
	g_assert_null(((const TcAppEvent *)g_ptr_array_index(app->events, 1))->enums);

	/* What a field cannot name or hold. */
	{
		static const struct {
			struct tracectl_abi_field field;
			const char *why;
		} bad[] = {
			{{"v", ENUM_OF(UNSIGNED(1)), 7}, "names enumeration 7, which was not described"},
			{{"v", ENUM_OF(SIGNED(1)), 0}, "label \"e64\" of enumeration 'p:state' does "
						       "not fit its 1-byte container"},
			{{"v", ENUM_OF(SIGNED(1)), 1}, "label \"minus\""},
			{{"v", ENUM_OF(UNSIGNED(8)), 1}, "label \"minus\""},
			{{"v", ENUM_OF(UNSIGNED(8)) | TRACECTL_FIELD_HEX, 0}, "bad field 0"},
		};

		for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
			g_autoptr(GError) refusal = NULL;

			msg = event_message(2, "p:bad", 1, &bad[i].field);
			g_assert_false(tc_app_protocol_handle_event(app, &msg, &refusal));
			g_assert_nonnull(refusal);
			if (strstr(refusal->message, bad[i].why) == NULL)
				g_error("refused for '%s', not '%s'", refusal->message, bad[i].why);
		}
	}
	/* An incomplete one cannot be named: nothing can come before its end. */
	g_assert_true(tc_app_protocol_handle_enum(app, open, NULL));
	{
		const struct tracectl_abi_field field = {"v", ENUM_OF(UNSIGNED(1)), 2};

		msg = event_message(2, "p:bad", 1, &field);
		g_clear_error(&error);
		g_assert_false(tc_app_protocol_handle_event(app, &msg, &error));
		g_assert_nonnull(strstr(error->message, "has 44 of its 50 entries"));
	}
	signature = tc_metadata_signature(event);
	g_assert_cmpstr(signature, ==, event->signature);
}

/* What an enumeration holds counts against its user's metadata bytes,
 * from its first message, all of it. */
static void
test_enum_limits(void)
{
	const uid_t user = 4242;
	g_autoptr(TcApp) app = NULL;
	g_autofree struct tracectl_msg_enum *msg = NULL;
	g_autoptr(GError) error = NULL;

	tc_user_limits_reset();
	tc_user_limits_set_default(TC_LIMIT_METADATA_BYTES, 200 * 1024);
	app = app_new(user, TRACECTL_ABI_VERSION);
	/* 1024 entries of 88 bytes: 90 KiB each. */
	send_enum(app, 0, "p:a", TRACECTL_ABI_ENUM_ENTRIES_MAX);
	send_enum(app, 1, "p:b", TRACECTL_ABI_ENUM_ENTRIES_MAX);
	msg = enum_message(2, "p:c", TRACECTL_ABI_ENUM_ENTRIES_MAX, 0, 1);
	g_assert_false(tc_app_protocol_handle_enum(app, msg, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_LIMIT_EXCEEDED);
	g_assert_cmpuint(app->enums->len, ==, 2);
	/* A small one still fits. */
	g_clear_error(&error);
	msg->nr_entries = 1;
	g_assert_true(tc_app_protocol_handle_enum(app, msg, &error));
	g_assert_no_error(error);
	/* Given back with the application. */
	g_clear_pointer(&app, tc_app_unref);
	app = app_new(user, TRACECTL_ABI_VERSION);
	send_enum(app, 0, "p:a", TRACECTL_ABI_ENUM_ENTRIES_MAX);
	g_clear_pointer(&app, tc_app_unref);
	tc_user_limits_reset();
}

/* Metadata, and the key that decides which events share a CTF id. */
static void
test_enum_metadata(void)
{
	g_autoptr(TcApp) first = app_new(0, TRACECTL_ABI_VERSION);
	g_autoptr(TcApp) second = app_new(0, TRACECTL_ABI_VERSION);
	g_autoptr(TcApp) other = app_new(0, TRACECTL_ABI_VERSION);
	g_autofree struct tracectl_msg_enum *msg = enum_message(0, "p:state", 4, 0, 4);
	const struct tracectl_abi_field fields[] = {
		{"s", ENUM_OF(SIGNED(4)), 0},
		{"u", ENUM_OF(UNSIGNED(8)), 0},
	};
	struct tracectl_msg_event event = event_message(0, "p:e", 2, fields);
	g_autoptr(GString) out = g_string_new(NULL);
	g_autofree char *key_first = NULL, *key_second = NULL, *key_other = NULL;

	msg->entries[0] = entry("idle", 0, 0, 0);
	msg->entries[1] = entry("busy", 1, 5, 0);
	msg->entries[2] = entry("say \"hi\" \\", 6, 6, SIGNED_VALUES);
	msg->entries[3] = entry("é", 7, G_MAXINT32, 0);
	for (guint i = 0; i < 2; i++) {
		TcApp *app = i ? second : first;

		g_assert_true(tc_app_protocol_handle_enum(app, msg, NULL));
		g_assert_true(tc_app_protocol_handle_event(app, &event, NULL));
	}
	msg->entries[1].end = 4;
	g_assert_true(tc_app_protocol_handle_enum(other, msg, NULL));
	g_assert_true(tc_app_protocol_handle_event(other, &event, NULL));

	tc_metadata_append_event(out, 0, 3, g_ptr_array_index(first->events, 0));
	g_assert_nonnull(strstr(out->str,
				"\t\tenum : integer { size = 32; align = 8; signed = true; base = 10; "));
	g_assert_nonnull(strstr(out->str, "\t\t\t\"idle\" = 0,\n\t\t\t\"busy\" = 1 ... 5,\n"
					  "\t\t\t\"say \\\"hi\\\" \\\\\" = 6,\n"
					  "\t\t\t\"é\" = 7 ... 2147483647,\n\t\t} _s;\n"));
	g_assert_nonnull(strstr(out->str, "size = 64; align = 8; signed = false;"));
	g_assert_nonnull(strstr(out->str, "} _u;\n"));

	/* The same enumeration in two applications: one id; another one (a
	 * range ends elsewhere), under the same name and fields: another. */
	key_first = tc_app_event_key(g_ptr_array_index(first->events, 0));
	key_second = tc_app_event_key(g_ptr_array_index(second->events, 0));
	key_other = tc_app_event_key(g_ptr_array_index(other->events, 0));
	g_assert_cmpstr(key_first, ==, key_second);
	g_assert_cmpstr(key_first, !=, key_other);
	g_assert_true(g_str_has_prefix(key_first, "p:e|enum state : int32 s, enum state : uint64 u|"));
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/app-protocol/abi-labels", test_abi_labels);
	g_test_add_func("/tracectl/app-protocol/abi-entries", test_abi_entries);
	g_test_add_func("/tracectl/app-protocol/abi-fits", test_abi_fits);
	g_test_add_func("/tracectl/app-protocol/abi-fields", test_abi_fields);
	g_test_add_func("/tracectl/app-protocol/register-versions", test_register_versions);
	g_test_add_func("/tracectl/app-protocol/enum-messages", test_enum_messages);
	g_test_add_func("/tracectl/app-protocol/enum-fields", test_enum_fields);
	g_test_add_func("/tracectl/app-protocol/enum-limits", test_enum_limits);
	g_test_add_func("/tracectl/app-protocol/enum-metadata", test_enum_metadata);
	return g_test_run();
}
