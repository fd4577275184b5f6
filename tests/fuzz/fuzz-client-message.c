/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes what the CLI reads from the bus: a D-Bus message, as the service
 * (or, with -H, a remote end) may send any, parsed by sd-bus from the
 * bytes of a real socket and read into a GVariant by
 * tc_client_gvariant_read_tuple() (client/tc-client-gvariant.c), the one
 * reader of every reply and signal the CLI takes.
 *
 * The input is one whole message in D-Bus's wire format; the harness
 * writes an ANONYMOUS authentication and the input to one end of a socket
 * pair whose other end is an sd-bus server connection, then reads what
 * sd-bus makes of it.
 *
 * What must hold whatever the input: no access outside a buffer, no
 * undefined behaviour, no leak, no GLib critical (the sanitizers and the
 * log writer abort on the first); a message read gives a tuple of the
 * message's signature, which written back into a message with
 * tc_client_gvariant_append_tuple() and read again is equal to it; a
 * refusal is an error, never a partial value; no descriptor is left open.
 *
 * Seeds: tests/fuzz/corpus/fuzz-client-message, signals and replies of
 * the interface's types (with the value shapes the service sends)
 * serialised by GDBus (Gio.DBusMessage.to_blob()). Outcomes counted: not
 * a message for sd-bus, read, refused by the reader.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <glib.h>

#include "fuzz-driver.h"
#include "tc-client-gvariant.h"

#define AUTH "\0AUTH ANONYMOUS\r\nBEGIN\r\n"
/* Each sd_bus_process() call reads or dispatches one thing: a bound
 * against a loop that would not end. */
#define PROCESS_MAX 64

enum outcome {
	NOT_A_MESSAGE,
	READ,
	REFUSED,
	OUTCOMES,
};

/* Named by the standalone driver only. */
static const char *const outcome_names[OUTCOMES] __attribute__((unused)) = {
	"not a message", "read", "refused"};
static unsigned long long outcomes[OUTCOMES];

static GLogWriterOutput
strict_writer(GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer data)
{
	(void)fields;
	(void)n_fields;
	(void)data;
	if (level & (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_ERROR | G_LOG_LEVEL_WARNING))
		abort();
	return G_LOG_WRITER_HANDLED;
}

/* An sd-bus server on fd, authenticated as the peer asks (ANONYMOUS). */
static sd_bus *
server_bus(int fd)
{
	sd_id128_t id = SD_ID128_MAKE(7c, 2f, 0e, 31, 55, 1a, 4b, 8e, 9d, 60, 21, 3a, 44, 0b, 6c, 19);
	sd_bus *bus = NULL;

	if (sd_bus_new(&bus) < 0 || sd_bus_set_fd(bus, fd, fd) < 0 ||
	    sd_bus_set_server(bus, 1, id) < 0 || sd_bus_set_anonymous(bus, 1) < 0 ||
	    sd_bus_start(bus) < 0)
		abort();
	return bus;
}

/* The first message sd-bus parses from the stream, or NULL. */
static sd_bus_message *
first_message(sd_bus *bus)
{
	sd_bus_message *message = NULL;

	for (int i = 0; i < PROCESS_MAX && message == NULL; i++)
		if (sd_bus_process(bus, &message) <= 0)
			break;
	return message;
}

/* value through a message of its own and back: equal, or abort. */
static void
check_round_trip(sd_bus *bus, GVariant *value)
{
	g_autoptr(GVariant) again = NULL;
	sd_bus_message *message = NULL;

	if (sd_bus_message_new_signal(bus, &message, "/a", "a.b", "c") < 0)
		abort();
	/* What sd-bus took in, it takes out: the reader's values are all
	 * D-Bus values. */
	if (tc_client_gvariant_append_tuple(message, g_variant_ref(value)) < 0 ||
	    sd_bus_message_seal(message, 1, 0) < 0 || sd_bus_message_rewind(message, 1) < 0)
		abort();
	again = tc_client_gvariant_read_tuple(message, NULL);
	if (again == NULL || !g_variant_equal(value, again))
		abort();
	sd_bus_message_unref(message);
}

static void
read_message(sd_bus *bus, sd_bus_message *message)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GVariant) value = tc_client_gvariant_read_tuple(message, &error);
	g_autofree char *type = NULL;

	if (value == NULL) {
		if (error == NULL || error->message == NULL)
			abort();
		outcomes[REFUSED]++;
		return;
	}
	type = g_strdup_printf("(%s)", sd_bus_message_get_signature(message, 1));
	if (error != NULL || strcmp(type, g_variant_get_type_string(value)) != 0)
		abort();
	check_round_trip(bus, value);
	outcomes[READ]++;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static gsize once;
	int fds_before = fuzz_recount_open_fds();
	sd_bus_message *message;
	sd_bus *bus;
	int fds[2];

	if (g_once_init_enter(&once)) {
		g_log_set_writer_func(strict_writer, NULL, NULL);
		if (!tc_client_libsystemd_load(NULL))
			abort();
		g_once_init_leave(&once, 1);
	}
	if (size > 65536)
		return 0;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0)
		abort();
	/* The socket's buffer holds it all: written before sd-bus reads. */
	if (write(fds[1], AUTH, sizeof(AUTH) - 1) != sizeof(AUTH) - 1 ||
	    (size > 0 && write(fds[1], data, size) != (ssize_t)size))
		abort();
	shutdown(fds[1], SHUT_WR);
	bus = server_bus(fds[0]);
	message = first_message(bus);
	if (message == NULL)
		outcomes[NOT_A_MESSAGE]++;
	else
		read_message(bus, message);
	sd_bus_message_unref(message);
	sd_bus_close_unref(bus);
	close(fds[1]);
	if (fuzz_recount_open_fds() != fds_before)
		abort();
	return 0;
}

#ifndef FUZZ_LIBFUZZER
/* No built-in seeds: the suite gives the corpus directory (--seeds). */
const struct fuzz_harness fuzz_harness = {
    .seeds = NULL,
    .nr_seeds = 0,
    .input_max = 4096,
    .outcome_names = outcome_names,
    .outcomes = outcomes,
    .nr_outcomes = OUTCOMES,
};
#endif
