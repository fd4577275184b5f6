/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Users' own session files, through their consumers (tc-home-sessions.h).
 *
 * Why the consumer: the service runs as its own user, hidden from homes
 * (ProtectHome=yes), and homes are commonly 0700; reading every home
 * would give the service every user's files. The user's consumer already
 * runs with exactly that user's rights, so it reads what the user may
 * read and nothing else, and hands over the bytes.
 *
 * Trust: the consumer is the user's process, which the user may replace
 * or drive. What it sends can only be that user's own word about that
 * user's own sessions (they are created for its uid, the one the service
 * started it for), so the checks here keep the service safe, not the
 * sessions honest: names in order and of the expected form, files one
 * after the other, offsets contiguous, sizes within the bounds, a bounded
 * count, the whole exchange within CONSUMER_SESSION_FILES_TIMEOUT_MS.
 */
#define G_LOG_DOMAIN "tracectld-autoload"

#include "tc-home-sessions.h"

#include <string.h>
#include <unistd.h>

#include "tc-consumer-abi.h"
#include "tc-error.h"
#include "tc-session-file.h"
#include "tc-user-account.h"

/* A slow home (a network file system) may take a while; not forever. */
#define CONSUMER_SESSION_FILES_TIMEOUT_MS 30000

G_STATIC_ASSERT(TC_SESSION_FILE_MAX_BYTES <= TC_CONSUMER_SESSION_FILE_BYTES_MAX);
G_STATIC_ASSERT(TC_AUTOLOAD_FILES_MAX <= TC_CONSUMER_SESSION_FILES_MAX);

void
tc_home_sessions_file_free(TcHomeSessionFile *file)
{
	g_free(file->path);
	g_clear_pointer(&file->contents, g_bytes_unref);
	g_free(file);
}

/* What the answers so far said; checked against each next one. */
typedef struct {
	uid_t user;
	const char *directory;  /* <home>/.config/tracectl/sessions, for logs */
	GPtrArray *files;       /* complete ones, TcHomeSessionFile * */
	guint next_index;       /* of the next file to begin */
	char last_name[TC_CONSUMER_NAME_MAX]; /* the names strictly increase */
	GByteArray *current;    /* the file being received, or NULL */
	guint64 current_size;
} TcHomeRead;

/* The home as the password database says, short enough to send. */
static char *
lookup_home(uid_t user, GError **error)
{
	g_autofree char *home = tc_user_account_home(user, error);

	if (home && strlen(home) >= TC_CONSUMER_PATH_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND,
			    "uid %u has a home directory path longer than %d bytes", (unsigned)user,
			    TC_CONSUMER_PATH_MAX - 1);
		return NULL;
	}
	return g_steal_pointer(&home);
}

/* A name the consumer may send: one entry of the directory, "*.lttng". */
static gboolean
check_name(const char *name, gsize size, GError **error)
{
	gsize len = strnlen(name, size);

	if (len == size || len <= strlen(".lttng") || name[0] == '.' || strchr(name, '/') ||
	    !g_str_has_suffix(name, ".lttng")) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
			    "The consumer sent a bad session file name");
		return FALSE;
	}
	return TRUE;
}

/* A refusal: the consumer's reason, logged as text it wrote. */
static gboolean
take_refusal(TcHomeRead *read, const char *reason, gsize len, GError **error)
{
	g_autofree char *escaped = NULL;

	if (len == 0 || len > TC_CONSUMER_ERROR_MAX || reason[len - 1] != '\0') {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
			    "The consumer sent a bad refusal of a session file");
		return FALSE;
	}
	escaped = g_strescape(reason, NULL);
	g_warning("Auto-load: uid %u: %s", (unsigned)read->user, escaped);
	return TRUE;
}

/* The first answer about a file: its refusal, or its first bytes. */
static gboolean
begin_file(TcHomeRead *read, const struct tc_consumer_session_file *answer,
	   const guint8 *payload, gsize len, GError **error)
{
	if (answer->index != read->next_index || answer->index >= TC_AUTOLOAD_FILES_MAX ||
	    (read->next_index > 0 && strcmp(answer->name, read->last_name) <= 0)) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
			    "The consumer sent session file %u out of order", answer->index);
		return FALSE;
	}
	read->next_index++;
	memcpy(read->last_name, answer->name, sizeof(read->last_name));
	if (answer->status < 0)
		return take_refusal(read, (const char *)payload, len, error);
	if (answer->status > 0 || answer->offset != 0 || answer->size > TC_SESSION_FILE_MAX_BYTES) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
			    "The consumer sent a bad session file (status %d, offset %" G_GUINT64_FORMAT
			    ", %" G_GUINT64_FORMAT " bytes of at most %d)",
			    answer->status, answer->offset, answer->size,
			    TC_SESSION_FILE_MAX_BYTES);
		return FALSE;
	}
	read->current = g_byte_array_sized_new((guint)answer->size);
	read->current_size = answer->size;
	return TRUE;
}

/* Moves the file received whole into read->files. */
static void
finish_file(TcHomeRead *read)
{
	TcHomeSessionFile *file = g_new0(TcHomeSessionFile, 1);

	file->path = g_build_filename(read->directory, read->last_name, NULL);
	file->contents = g_byte_array_free_to_bytes(g_steal_pointer(&read->current));
	g_ptr_array_add(read->files, file);
}

static gboolean
take_answer(const void *msg, gsize len, gpointer user_data, GError **error)
{
	TcHomeRead *read = user_data;
	const struct tc_consumer_session_file *answer = msg;
	const guint8 *payload = (const guint8 *)msg + sizeof(*answer);
	gsize chunk;

	if (len < sizeof(*answer)) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
			    "The consumer sent a session file answer of %" G_GSIZE_FORMAT " bytes",
			    len);
		return FALSE;
	}
	chunk = len - sizeof(*answer);
	if (!check_name(answer->name, sizeof(answer->name), error))
		return FALSE;
	if (read->current == NULL) {
		if (!begin_file(read, answer, payload, chunk, error))
			return FALSE;
		if (read->current == NULL)
			return TRUE; /* a refusal */
	} else if (answer->index + 1 != read->next_index || answer->status != 0 ||
		   answer->size != read->current_size ||
		   strcmp(answer->name, read->last_name) != 0 ||
		   answer->offset != read->current->len || chunk == 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
			    "The consumer sent a bad piece of session file %u", answer->index);
		return FALSE;
	}
	if (chunk > read->current_size - read->current->len) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
			    "The consumer sent more than the %" G_GUINT64_FORMAT
			    " bytes of session file %u",
			    read->current_size, answer->index);
		return FALSE;
	}
	g_byte_array_append(read->current, payload, (guint)chunk);
	if (read->current->len == read->current_size)
		finish_file(read);
	return TRUE;
}

GPtrArray *
tc_home_sessions_read(TcConsumer *consumer, uid_t user, GError **error)
{
	g_autofree char *home = lookup_home(user, error);
	g_autofree char *directory = NULL;
	g_autofree struct tc_consumer_session_files *msg = NULL;
	g_autoptr(GPtrArray) files = NULL;
	TcHomeRead read = {.user = user};
	gboolean ok;

	if (home == NULL)
		return NULL;
	directory = g_build_filename(home, TC_CONSUMER_SESSION_FILES_DIR, NULL);
	files = g_ptr_array_new_with_free_func((GDestroyNotify)tc_home_sessions_file_free);
	msg = g_new0(struct tc_consumer_session_files, 1);
	msg->max_files = TC_AUTOLOAD_FILES_MAX;
	msg->max_file_bytes = TC_SESSION_FILE_MAX_BYTES;
	g_strlcpy(msg->home, home, sizeof(msg->home));
	read.directory = directory;
	read.files = files;
	ok = tc_consumer_request_answers(consumer, msg, TC_CONSUMER_SESSION_FILES, sizeof(*msg),
					 TC_CONSUMER_SESSION_FILE,
					 CONSUMER_SESSION_FILES_TIMEOUT_MS, take_answer, &read,
					 error);
	if (ok && read.current != NULL) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
			    "The consumer ended its answer inside session file %u",
			    read.next_index - 1);
		ok = FALSE;
	}
	if (read.current)
		g_byte_array_unref(read.current);
	if (!ok) {
		g_prefix_error(error, "Cannot read '%s': ", directory);
		return NULL;
	}
	return g_steal_pointer(&files);
}
