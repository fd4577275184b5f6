/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-apps"

#include "tc-app-protocol.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tc-error.h"
#include "tc-fd-passing.h"
#include "tc-metadata.h"
#include "tc-signals.h"
#include "tc-validate.h"

static guint32
expected_size(guint32 type)
{
	switch (type) {
	case TRACECTL_MSG_REGISTER:
		return sizeof(struct tracectl_msg_register);
	case TRACECTL_MSG_EVENT:
		return sizeof(struct tracectl_msg_event);
	case TRACECTL_MSG_EVENTS_END:
		return sizeof(struct tracectl_msg_batch);
	case TRACECTL_MSG_REPLY:
		return sizeof(struct tracectl_msg_reply);
	case TRACECTL_MSG_ENUM:
		return sizeof(struct tracectl_msg_enum);
	case TRACECTL_MSG_APP_CONTEXT:
		return sizeof(struct tracectl_msg_app_context);
	default:
		return 0;
	}
}

TcAppReadResult
tc_app_protocol_read_message(int fd, TcAppMessage *message, char **why)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 4)];
		struct cmsghdr align;
	} control;
	/* One byte more than the largest message, to see oversized ones. */
	struct iovec iov = {.iov_base = message, .iov_len = sizeof(*message)};
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = control.buf,
		.msg_controllen = sizeof(control.buf),
	};
	ssize_t len;
	guint32 expected;

	do
		len = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	while (len < 0 && errno == EINTR);
	if (len < 0 && errno == EAGAIN)
		return TC_APP_READ_NOTHING;
	if (len < 0) {
		*why = g_strdup(g_strerror(errno));
		return TC_APP_READ_GONE;
	}
	/* Before the end-of-file test: an empty datagram can carry
	 * descriptors too, and they are ours to close. */
	if (mh.msg_controllen > 0 || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		tc_fd_collect(&mh, NULL, 0);
		*why = g_strdup("oversized message or unexpected file descriptors");
		return TC_APP_READ_GONE;
	}
	if (len == 0) {
		*why = g_strdup("connection closed");
		return TC_APP_READ_GONE;
	}
	if ((size_t)len < sizeof(message->header) || message->header.magic != TRACECTL_ABI_MAGIC) {
		*why = g_strdup("protocol error: bad message header");
		return TC_APP_READ_GONE;
	}
	expected = expected_size(message->header.type);
	if (expected == 0 || message->header.size != (size_t)len || (size_t)len != expected) {
		*why = g_strdup_printf("protocol error: message type %u of %zd bytes",
				       message->header.type, len);
		return TC_APP_READ_GONE;
	}
	return TC_APP_READ_MESSAGE;
}

static void
read_procname(TcApp *app)
{
	g_autofree char *path = g_strdup_printf("/proc/%d/comm", (int)app->pid);
	g_autofree char *contents = NULL;

	if (g_file_get_contents(path, &contents, NULL, NULL)) {
		g_strchomp(contents);
		g_strlcpy(app->procname, contents, sizeof(app->procname));
	} else {
		g_strlcpy(app->procname, "?", sizeof(app->procname));
	}
}

gboolean
tc_app_protocol_handle_register(TcApp *app, const struct tracectl_msg_register *msg, GError **error)
{
	if (app->is_greeted) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE, "registered twice");
		return FALSE;
	}
	/* An application newer than the service may send what it cannot
	 * read; one older than the oldest it serves would not read what it
	 * sends (tracectl-abi.h, "Versions"). */
	if (msg->abi_version > TRACECTL_ABI_VERSION) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
			    "its libtracectl-ust speaks ABI version %u, newer than this "
			    "service's %u: update tracectld",
			    msg->abi_version, TRACECTL_ABI_VERSION);
		return FALSE;
	}
	if (msg->abi_version < TRACECTL_ABI_VERSION_MIN) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
			    "its libtracectl-ust speaks ABI version %u, older than the "
			    "versions %u to %u this service speaks: update the application's "
			    "libtracectl-ust",
			    msg->abi_version, TRACECTL_ABI_VERSION_MIN, TRACECTL_ABI_VERSION);
		return FALSE;
	}
	if (msg->bits_per_long != sizeof(long) * 8) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "%u-bit applications are not supported", msg->bits_per_long);
		return FALSE;
	}
	if (msg->pid != app->pid || msg->uid != app->uid)
		g_warning("Application pid=%d uid=%u claims pid=%d uid=%u; using its "
			  "credentials from the socket",
			  (int)app->pid, (unsigned)app->uid, msg->pid, msg->uid);
	app->tracer_major = msg->tracer_major;
	app->tracer_minor = msg->tracer_minor;
	app->abi_version = msg->abi_version;
	read_procname(app);
	app->is_greeted = TRUE;
	return TRUE;
}

/* The enumeration still waiting for entries, or NULL. */
static const TcAppEnum *
open_enum(const TcApp *app)
{
	const TcAppEnum *last =
		app->enums->len ? g_ptr_array_index(app->enums, app->enums->len - 1) : NULL;

	return last && last->nr_received < last->nr_entries ? last : NULL;
}

/* Only an enumeration's next entries may follow its first ones. */
static gboolean
check_no_open_enum(const TcApp *app, GError **error)
{
	const TcAppEnum *open = open_enum(app);

	if (open == NULL)
		return TRUE;
	g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE,
		    "enumeration %u '%s' has %u of its %u entries", app->enums->len - 1,
		    open->name, open->nr_received, open->nr_entries);
	return FALSE;
}

static gboolean
check_enum(const TcApp *app, const struct tracectl_msg_enum *msg, const TcAppEnum *open,
	   GError **error)
{
	if (!app->is_greeted) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE, "an enumeration before register");
		return FALSE;
	}
	if (app->abi_version < TRACECTL_ABI_VERSION_ENUMS) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE,
			    "an enumeration from a version %u application", app->abi_version);
		return FALSE;
	}
	if (memchr(msg->name, '\0', sizeof(msg->name)) == NULL ||
	    !tc_validate_event_name(msg->name)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT, "bad enumeration name");
		return FALSE;
	}
	if (msg->nr_entries == 0 || msg->nr_entries > TRACECTL_ABI_ENUM_ENTRIES_MAX ||
	    msg->count == 0 || msg->count > TRACECTL_ABI_ENUM_ENTRIES_PER_MSG ||
	    msg->first > msg->nr_entries || msg->count > msg->nr_entries - msg->first) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "enumeration '%s' sends %u entries from %u of %u (1 to %u entries, "
			    "at most %u a message)",
			    msg->name, msg->count, msg->first, msg->nr_entries,
			    TRACECTL_ABI_ENUM_ENTRIES_MAX, TRACECTL_ABI_ENUM_ENTRIES_PER_MSG);
		return FALSE;
	}
	if (open ? msg->index != app->enums->len - 1 || msg->first != open->nr_received ||
			   msg->nr_entries != open->nr_entries || strcmp(msg->name, open->name) != 0
		 : msg->index != app->enums->len || msg->first != 0 ||
			   app->enums->len >= TRACECTL_ABI_ENUMS_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE,
			    "unexpected enumeration %u '%s' from entry %u (have %u enumerations%s)",
			    msg->index, msg->name, msg->first, app->enums->len,
			    open ? ", the last one incomplete" : "");
		return FALSE;
	}
	for (guint i = 0; i < msg->count; i++) {
		if (!tracectl_abi_enum_entry_is_valid(&msg->entries[i])) {
			g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				    "enumeration '%s' has a bad entry %u", msg->name, msg->first + i);
			return FALSE;
		}
	}
	return TRUE;
}

/* Its name and entries, in a form without the bytes that do not count
 * (past each label's NUL). */
static char *
enum_digest(const TcAppEnum *enumeration)
{
	g_autoptr(GChecksum) checksum = g_checksum_new(G_CHECKSUM_SHA256);

	g_checksum_update(checksum, (const guchar *)enumeration->name,
			  (gssize)strlen(enumeration->name) + 1);
	for (guint i = 0; i < enumeration->nr_entries; i++) {
		const struct tracectl_abi_enum_entry *entry = &enumeration->entries[i];
		guint64 values[3] = {entry->begin, entry->end, entry->flags};

		g_checksum_update(checksum, (const guchar *)entry->label,
				  (gssize)strlen(entry->label) + 1);
		g_checksum_update(checksum, (const guchar *)values, sizeof(values));
	}
	return g_strdup(g_checksum_get_string(checksum));
}

gboolean
tc_app_protocol_handle_enum(TcApp *app, const struct tracectl_msg_enum *msg, GError **error)
{
	TcAppEnum *open = (TcAppEnum *)open_enum(app);
	TcAppEnum *enumeration = open;

	if (!check_enum(app, msg, open, error))
		return FALSE;
	if (open == NULL) {
		gsize size = sizeof(*enumeration) + sizeof(enumeration->entries[0]) * msg->nr_entries;

		/* All it will hold, digest included, from its first message. */
		if (!tc_user_limits_charge(
			    &app->charge, TC_LIMIT_METADATA_BYTES,
			    size + 2 * (gsize)g_checksum_type_get_length(G_CHECKSUM_SHA256) + 1,
			    error))
			return FALSE;
		enumeration = g_malloc0(size);
		memcpy(enumeration->name, msg->name, sizeof(enumeration->name));
		enumeration->nr_entries = msg->nr_entries;
		g_ptr_array_add(app->enums, enumeration);
	}
	memcpy(&enumeration->entries[msg->first], msg->entries,
	       sizeof(msg->entries[0]) * msg->count);
	enumeration->nr_received += msg->count;
	if (enumeration->nr_received == enumeration->nr_entries)
		enumeration->digest = enum_digest(enumeration);
	return TRUE;
}

static gboolean
check_field(const struct tracectl_abi_field *field)
{
	return memchr(field->name, '\0', sizeof(field->name)) != NULL &&
	       tc_validate_field_name(field->name) &&
	       tracectl_abi_field_is_valid(field->type, field->size);
}

/* An enumeration field names one of the application's complete
 * enumerations, every range of which its container holds. */
static gboolean
check_enum_field(const TcApp *app, const struct tracectl_msg_event *msg,
		 const struct tracectl_abi_field *field, GError **error)
{
	const TcAppEnum *enumeration =
		field->size < app->enums->len ? g_ptr_array_index(app->enums, field->size) : NULL;

	if (enumeration == NULL || enumeration->nr_received < enumeration->nr_entries) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "event '%s' field '%s' names enumeration %u, which %s", msg->name,
			    field->name, field->size,
			    enumeration ? "is incomplete" : "was not described");
		return FALSE;
	}
	for (guint i = 0; i < enumeration->nr_entries; i++) {
		if (!tracectl_abi_enum_entry_fits(&enumeration->entries[i], field->type)) {
			g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				    "event '%s' field '%s': the range of label \"%s\" of "
				    "enumeration '%s' does not fit its %u-byte container",
				    msg->name, field->name, enumeration->entries[i].label,
				    enumeration->name, tracectl_abi_field_element_size(field->type));
			return FALSE;
		}
	}
	return TRUE;
}

static gboolean
check_event(const TcApp *app, const struct tracectl_msg_event *msg, GError **error)
{
	if (memchr(msg->name, '\0', sizeof(msg->name)) == NULL ||
	    !tc_validate_event_name(msg->name)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT, "bad event name");
		return FALSE;
	}
	if (msg->loglevel < 0 || msg->loglevel > TRACECTL_ABI_LOGLEVEL_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "event '%s' has log level %d, not 0 to %d", msg->name, msg->loglevel,
			    TRACECTL_ABI_LOGLEVEL_MAX);
		return FALSE;
	}
	if (msg->nr_fields > TRACECTL_ABI_FIELDS_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "event '%s' has %u fields", msg->name, msg->nr_fields);
		return FALSE;
	}
	for (guint i = 0; i < msg->nr_fields; i++) {
		if (!check_field(&msg->fields[i])) {
			g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				    "event '%s' has a bad field %u", msg->name, i);
			return FALSE;
		}
		if (tracectl_abi_field_kind(msg->fields[i].type) == TRACECTL_FIELD_ENUM &&
		    !check_enum_field(app, msg, &msg->fields[i], error))
			return FALSE;
		for (guint j = 0; j < i; j++) {
			if (g_str_equal(msg->fields[i].name, msg->fields[j].name)) {
				g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
					    "event '%s' has two fields '%s'", msg->name,
					    msg->fields[i].name);
				return FALSE;
			}
		}
	}
	return TRUE;
}

gboolean
tc_app_protocol_handle_event(TcApp *app, const struct tracectl_msg_event *msg, GError **error)
{
	TcAppEvent *event;
	gsize size;

	if (!app->is_greeted || msg->index != app->events->len ||
	    app->events->len >= TRACECTL_ABI_EVENTS_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE,
			    "unexpected event %u (have %u)", msg->index, app->events->len);
		return FALSE;
	}
	if (!check_no_open_enum(app, error) || !check_event(app, msg, error))
		return FALSE;
	/* Only the fields it has: an application may describe thousands. */
	size = sizeof(*event) + sizeof(event->fields[0]) * msg->nr_fields;
	event = g_malloc0(size);
	memcpy(event->name, msg->name, sizeof(event->name));
	event->loglevel = msg->loglevel;
	event->nr_fields = msg->nr_fields;
	memcpy(event->fields, msg->fields, sizeof(event->fields[0]) * msg->nr_fields);
	for (guint i = 0; i < event->nr_fields; i++) {
		if (tracectl_abi_field_kind(event->fields[i].type) != TRACECTL_FIELD_ENUM)
			continue;
		if (event->enums == NULL) {
			event->enums = g_new0(const TcAppEnum *, event->nr_fields);
			size += sizeof(event->enums[0]) * event->nr_fields;
		}
		event->enums[i] = g_ptr_array_index(app->enums, event->fields[i].size);
	}
	event->signature = tc_metadata_signature(event);
	/* What the service keeps of it, against its user's limits. */
	if (!tc_user_limits_charge_event(&app->charge, app->events->len,
					 size + strlen(event->signature) + 1, error)) {
		tc_app_event_free(event);
		return FALSE;
	}
	g_ptr_array_add(app->events, event);
	return TRUE;
}

static gboolean
check_app_context(const TcApp *app, const struct tracectl_msg_app_context *msg, GError **error)
{
	if (!app->is_greeted || app->abi_version < TRACECTL_ABI_VERSION_APP_CONTEXTS ||
	    msg->index != app->app_contexts->len ||
	    app->app_contexts->len >= TRACECTL_ABI_APP_CONTEXTS_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE,
			    "unexpected application context %u (have %u, ABI version %u)",
			    msg->index, app->app_contexts->len, app->abi_version);
		return FALSE;
	}
	if (!tracectl_abi_app_context_name_is_valid(msg->name, sizeof(msg->name))) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "bad application context name");
		return FALSE;
	}
	if (msg->type == TRACECTL_ABI_APP_CONTEXT_NONE ||
	    msg->type > TRACECTL_ABI_APP_CONTEXT_TAG_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "application context '%s' has type %u", msg->name, msg->type);
		return FALSE;
	}
	for (guint i = 0; i < app->app_contexts->len; i++) {
		if (g_str_equal(g_array_index(app->app_contexts, TcAppContext, i).name,
				msg->name)) {
			g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				    "application context '%s' registered twice", msg->name);
			return FALSE;
		}
	}
	return TRUE;
}

gboolean
tc_app_protocol_handle_app_context(TcApp *app, const struct tracectl_msg_app_context *msg,
				   GError **error)
{
	TcAppContext context = {.type = msg->type};

	if (!check_app_context(app, msg, error) ||
	    !tc_user_limits_charge(&app->charge, TC_LIMIT_METADATA_BYTES, sizeof(context), error))
		return FALSE;
	memcpy(context.name, msg->name, sizeof(context.name));
	g_array_append_val(app->app_contexts, context);
	return TRUE;
}

gboolean
tc_app_protocol_handle_events_end(TcApp *app, const struct tracectl_msg_batch *msg, GError **error)
{
	if (!app->is_greeted) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE, "events before register");
		return FALSE;
	}
	if (!check_no_open_enum(app, error))
		return FALSE;
	g_debug("Application pid=%d sent %u event(s) in batch %u", (int)app->pid,
		app->events->len - app->batch_start, msg->batch);
	app->batch_start = app->events->len;
	return TRUE;
}

void
tc_app_protocol_handle_reply(TcApp *app, const struct tracectl_msg_reply *msg)
{
	TcAckWaiter *waiter = app->pending ? g_hash_table_lookup(
						     app->pending, GUINT_TO_POINTER(msg->header.seq))
					   : NULL;

	if (msg->status < 0)
		g_warning("Application pid=%d failed command %u: %s", (int)app->pid,
			  msg->header.seq, g_strerror(-msg->status));
	tc_app_answered_locked(app, msg->header.seq);
	if (waiter) {
		g_hash_table_remove(app->pending, GUINT_TO_POINTER(msg->header.seq));
		tc_ack_waiter_signal_locked(waiter, app);
	}
}

TcAppHandled
tc_app_protocol_handle_message(TcApp *app, const TcAppMessage *message, GError **error)
{
	guint32 type = message->header.type;
	gboolean ok;

	if (type == TRACECTL_MSG_REGISTER && app->state == TC_APP_REGISTERING) {
		ok = tc_app_protocol_handle_register(app, &message->registration, error);
	} else if (type == TRACECTL_MSG_EVENT) {
		ok = tc_app_protocol_handle_event(app, &message->event, error);
	} else if (type == TRACECTL_MSG_ENUM) {
		ok = tc_app_protocol_handle_enum(app, &message->enumeration, error);
	} else if (type == TRACECTL_MSG_APP_CONTEXT) {
		ok = tc_app_protocol_handle_app_context(app, &message->app_context, error);
	} else if (type == TRACECTL_MSG_EVENTS_END) {
		if (!tc_app_protocol_handle_events_end(app, &message->batch, error))
			return TC_APP_REFUSED;
		return TC_APP_BATCH_ENDED;
	} else if (type == TRACECTL_MSG_REPLY && app->state == TC_APP_REGISTERED) {
		tc_app_protocol_handle_reply(app, &message->reply);
		ok = TRUE;
	} else {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE, "message type %u %s", type,
			    app->state == TC_APP_REGISTERING ? "during registration"
							     : "after registration");
		ok = FALSE;
	}
	return ok ? TC_APP_HANDLED : TC_APP_REFUSED;
}

/* Sending (any thread, the application's lock [A] held). */

gboolean
tc_app_protocol_send_locked(TcApp *app, void *msg, guint32 type, guint32 size, guint32 seq,
			    const int *fds, guint n_fds)
{
	struct tracectl_msg_header *header = msg;
	ssize_t sent;

	g_assert(n_fds <= 2);
	if (app->state == TC_APP_DEAD)
		return FALSE;
	header->magic = TRACECTL_ABI_MAGIC;
	header->type = type;
	header->size = size;
	header->seq = seq;
	sent = tc_fd_send(app->fd, msg, size, fds, n_fds, MSG_DONTWAIT);
	if (sent == (ssize_t)size)
		return TRUE;
	/* A full socket means the application stopped reading: never wait. */
	tc_app_protocol_disconnect_locked(app, sent < 0 ? g_strerror((int)-sent) : "short send");
	return FALSE;
}

void
tc_app_protocol_disconnect_locked(TcApp *app, const char *why)
{
	if (app->state == TC_APP_DEAD)
		return;
	g_message("Disconnecting application pid=%d uid=%u name='%s': %s", (int)app->pid,
		  (unsigned)app->uid, app->procname, why);
	if (app->state == TC_APP_REGISTERED)
		tc_signals_app_gone(app->pid, app->uid);
	tc_registry_remove_app_locked(app);
	/* The listener sees the hang-up and closes the descriptor. */
	shutdown(app->fd, SHUT_RDWR);
}
