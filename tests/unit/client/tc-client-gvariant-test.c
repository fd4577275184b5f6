/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GVariant <-> sd_bus_message (client/tc-client-gvariant.c): every type
 * the interface uses goes into a message and comes back equal, through a
 * sealed message as sd-bus sends it; what D-Bus cannot carry is refused. */
#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tc-client-gvariant.h"

/* A bus object to make messages with: a client on one end of a socket
 * pair whose other end nobody reads. It never needs to be connected to a
 * daemon; messages are made, sealed and read locally. */
static sd_bus *
test_bus(void)
{
	sd_bus *bus = NULL;
	int fds[2];

	g_assert_cmpint(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), ==, 0);
	g_assert_cmpint(sd_bus_new(&bus), >=, 0);
	g_assert_cmpint(sd_bus_set_fd(bus, fds[0], fds[0]), >=, 0);
	g_assert_cmpint(sd_bus_start(bus), >=, 0);
	/* The peer's end: closing it leaves the bus object usable for
	 * messages, which is all the test needs. */
	close(fds[1]);
	return bus;
}

/* tuple through a method call and back: the arguments read from the
 * sealed message, compared with what was appended. */
static void
assert_round_trip(sd_bus *bus, const char *text)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GVariant) in = g_variant_ref_sink(g_variant_parse(NULL, text, NULL, NULL, &error));
	g_autoptr(GVariant) out = NULL;
	g_autofree char *signature = NULL;
	sd_bus_message *m = NULL;

	g_assert_no_error(error);
	g_assert_cmpint(sd_bus_message_new_method_call(bus, &m, "org.example", "/org/example",
						       "org.example.I", "M"),
			>=, 0);
	g_assert_cmpint(tc_client_gvariant_append_tuple(m, g_variant_ref(in)), ==, 0);
	g_assert_cmpint(sd_bus_message_seal(m, 1, 0), >=, 0);
	g_assert_cmpint(sd_bus_message_rewind(m, TRUE), >=, 0);
	/* The message's signature is the tuple's without its parentheses. */
	signature = g_strdup_printf("(%s)", sd_bus_message_get_signature(m, TRUE));
	g_assert_cmpstr(signature, ==, g_variant_get_type_string(in));
	out = tc_client_gvariant_read_tuple(m, &error);
	g_assert_no_error(error);
	if (!g_variant_equal(in, out)) {
		g_autofree char *printed = g_variant_print(out, TRUE);

		g_error("%s came back as %s", text, printed);
	}
	sd_bus_message_unref(m);
}

static void
test_basic(void)
{
	sd_bus *bus = test_bus();

	assert_round_trip(bus, "(byte 0x00, byte 0xff)");
	assert_round_trip(bus, "(true, false)");
	assert_round_trip(bus, "(int16 -32768, uint16 65535)");
	assert_round_trip(bus, "(int32 -2147483648, uint32 4294967295)");
	assert_round_trip(bus, "(int64 -9223372036854775808, uint64 18446744073709551615)");
	assert_round_trip(bus, "(-1.5, 0.0, 1e300)");
	assert_round_trip(bus, "('', 'a string', 'é ✓ \\u0001')");
	assert_round_trip(bus, "(objectpath '/', objectpath '/org/tracectl/Tracing1/session/_31')");
	assert_round_trip(bus, "(signature '', signature 'a(sstuasa{sv})')");
	sd_bus_unref(bus);
}

static void
test_containers(void)
{
	sd_bus *bus = test_bus();

	/* Empty containers keep their element type. */
	assert_round_trip(bus, "(@as [], @a{sv} {}, @a(ssttttt) [], @aay [])");
	assert_round_trip(bus, "(['a', 'b'], [objectpath '/a', '/b'], [uint32 1, 2, 3])");
	assert_round_trip(bus, "([byte 1, 2, 255], [[byte 1], []], [true, false])");
	assert_round_trip(bus, "({'a': 'b', 'c': 'd'}, {uint32 1: true}, {int64 -1: [1.5]})");
	assert_round_trip(bus, "(('x', uint32 1, ('nested', [int16 1])),)");
	assert_round_trip(bus, "(<'s'>, <uint64 7>, <<<'deep'>>>, <@a{sv} {}>, <('a', 1)>)");
	sd_bus_unref(bus);
}

/* The types of org.tracectl.Tracing1.xml, with values as the service
 * sends them. */
static void
test_interface_types(void)
{
	sd_bus *bus = test_bus();

	assert_round_trip(bus, "({'no-wait': <true>, 'size': <uint64 4096>, 'urls': <['a']>},)");
	assert_round_trip(bus, "(objectpath '/org/tracectl/Tracing1/session/s', "
			       "{'Name': <'s'>, 'OwnerUid': <uint32 1000>, 'Snapshot': <false>, "
			       "'Channels': <[('ust', 'c', uint64 4096, uint32 4, ['ev*'], "
			       "{'overwrite': <true>, 'filters': <{'ev*': <'x > 1'>}>})]>}, "
			       "[('ust', 'c', uint64 1, uint64 2, uint64 3, uint64 4, uint64 5)])");
	assert_round_trip(bus, "([(uint32 1, 's', 'o', uint64 2)],)");
	assert_round_trip(bus, "([('t', uint32 1, {'k': <'v'>}, ['a'], uint64 9)],)");
	assert_round_trip(bus, "([('ust', 'vpid', true, [uint32 1, 2])],)");
	assert_round_trip(bus, "([(int32 -1, 'n', uint32 2, 's', ['a', 'b'])],)");
	assert_round_trip(bus, "([(objectpath '/o', 's', uint32 3, 's', 's')],)");
	assert_round_trip(bus, "([(int32 1, uint32 2, 's', 's', [('f', int32 3, 'g')])],)");
	assert_round_trip(bus, "('s', objectpath '/o', uint32 1, uint64 2, int32 -3, true)");
	sd_bus_unref(bus);
}

/* No argument: "()". */
static void
test_empty(void)
{
	sd_bus *bus = test_bus();
	sd_bus_message *m = NULL;
	g_autoptr(GVariant) out = NULL;

	g_assert_cmpint(sd_bus_message_new_method_call(bus, &m, "org.example", "/o", "i.I", "M"),
			>=, 0);
	g_assert_cmpint(tc_client_gvariant_append_tuple(m, NULL), ==, 0);
	g_assert_cmpint(sd_bus_message_seal(m, 1, 0), >=, 0);
	g_assert_cmpint(sd_bus_message_rewind(m, TRUE), >=, 0);
	out = tc_client_gvariant_read_tuple(m, NULL);
	g_assert_nonnull(out);
	g_assert_cmpstr(g_variant_get_type_string(out), ==, "()");
	sd_bus_message_unref(m);
	sd_bus_unref(bus);
}

/* What D-Bus has no form of is refused, not sent otherwise. */
static void
test_refused(void)
{
	sd_bus *bus = test_bus();
	const char *refused[] = {
		"(@mi 5,)",
		"(handle 0,)",
		"(<@mi nothing>,)",
		"(@(s()) ('a', ()),)",
	};

	for (guint i = 0; i < G_N_ELEMENTS(refused); i++) {
		g_autoptr(GVariant) in = g_variant_parse(NULL, refused[i], NULL, NULL, NULL);
		sd_bus_message *m = NULL;

		g_assert_nonnull(in);
		g_assert_cmpint(sd_bus_message_new_method_call(bus, &m, "a.b", "/o", "i.I", "M"),
				>=, 0);
		g_assert_cmpint(tc_client_gvariant_append_tuple(m, g_variant_ref(in)), <, 0);
		sd_bus_message_unref(m);
	}
	sd_bus_unref(bus);
}

/* Variants nested past the message's limit are refused on the way out. */
static void
test_too_deep(void)
{
	sd_bus *bus = test_bus();
	GVariant *value = g_variant_new_string("bottom");
	sd_bus_message *m = NULL;

	for (guint i = 0; i < 70; i++)
		value = g_variant_new_variant(value);
	g_assert_cmpint(sd_bus_message_new_method_call(bus, &m, "a.b", "/o", "i.I", "M"), >=, 0);
	g_assert_cmpint(tc_client_gvariant_append_tuple(m, g_variant_new_tuple(&value, 1)), <, 0);
	sd_bus_message_unref(m);
	sd_bus_unref(bus);
}

int
main(int argc, char **argv)
{
	g_autoptr(GError) error = NULL;

	g_test_init(&argc, &argv, NULL);
	/* As the CLI does before its first call. */
	if (!tc_client_libsystemd_load(&error))
		g_error("%s", error->message);
	g_test_add_func("/tracectl/client-gvariant/basic", test_basic);
	g_test_add_func("/tracectl/client-gvariant/containers", test_containers);
	g_test_add_func("/tracectl/client-gvariant/interface-types", test_interface_types);
	g_test_add_func("/tracectl/client-gvariant/empty", test_empty);
	g_test_add_func("/tracectl/client-gvariant/refused", test_refused);
	g_test_add_func("/tracectl/client-gvariant/too-deep", test_too_deep);
	return g_test_run();
}
