/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-lttng"

#include "tc-lttng-notify.h"

#include <errno.h>
#include <lttng/ust-ctl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "tc-error.h"
#include "tc-lttng-trace.h"

/*
 * liblttng-ust-ctl allocates and then waits for as many bytes as the
 * application announces in a description's fixed part (up to 4 GiB of
 * signature, fields or enumeration entries each): before it is called,
 * that fixed part is read with MSG_PEEK and its lengths bounded. The
 * layouts are LTTng-UST 2.13's notify messages (its ustcomm.h), which
 * follow the 4-byte command liblttng-ust-ctl has read already.
 */
#define PEEK_NAME_LEN LTTNG_UST_ABI_SYM_NAME_LEN
#define PEEK_PADDING 32

typedef struct {
	guint32 session_objd, channel_objd;
	char event_name[PEEK_NAME_LEN];
	gint32 loglevel;
	guint32 signature_len, fields_len, model_emf_uri_len;
	char padding[PEEK_PADDING];
} __attribute__((packed)) PeekEvent;

typedef struct {
	guint32 session_objd, channel_objd, ctx_fields_len;
	char padding[PEEK_PADDING];
} __attribute__((packed)) PeekChannel;

typedef struct {
	guint32 session_objd;
	char enum_name[PEEK_NAME_LEN];
	guint32 entries_len;
	char padding[PEEK_PADDING];
} __attribute__((packed)) PeekEnum;

G_STATIC_ASSERT(sizeof(PeekEvent) == 8 + PEEK_NAME_LEN + 16 + PEEK_PADDING);
G_STATIC_ASSERT(sizeof(PeekChannel) == 12 + PEEK_PADDING);
G_STATIC_ASSERT(sizeof(PeekEnum) == 8 + PEEK_NAME_LEN + PEEK_PADDING);

#define URI_MAX 4096
#define ENUM_ENTRIES_MAX 4096

static gboolean
notify_broken(GError **error, int ret, const char *what)
{
	g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "notify socket: %s: %d", what, ret);
	return FALSE;
}

/* Reads (without taking it) the fixed part of the message under way,
 * len bytes, within the socket's timeout. */
static gboolean
peek(TcLttngApp *app, void *buf, gsize len, GError **error)
{
	ssize_t n;

	do
		n = recv(app->notify_fd, buf, len, MSG_PEEK | MSG_WAITALL);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)len)
		return notify_broken(error, n < 0 ? -errno : (int)n, "a truncated description");
	return TRUE;
}

static gboolean
peek_event(TcLttngApp *app, GError **error)
{
	PeekEvent msg;

	if (!peek(app, &msg, sizeof(msg), error))
		return FALSE;
	if (msg.signature_len == 0 || msg.signature_len > TC_LTTNG_NOTIFY_SIGNATURE_MAX + 1 ||
	    msg.fields_len > TC_LTTNG_NOTIFY_FIELDS_MAX * sizeof(struct lttng_ust_ctl_field) ||
	    msg.model_emf_uri_len > URI_MAX)
		return notify_broken(error, -EMSGSIZE, "an event description too large");
	return TRUE;
}

static gboolean
peek_channel(TcLttngApp *app, GError **error)
{
	PeekChannel msg;

	if (!peek(app, &msg, sizeof(msg), error))
		return FALSE;
	if (msg.ctx_fields_len > TC_LTTNG_NOTIFY_FIELDS_MAX * sizeof(struct lttng_ust_ctl_field))
		return notify_broken(error, -EMSGSIZE, "a channel description too large");
	return TRUE;
}

static gboolean
peek_enum(TcLttngApp *app, GError **error)
{
	PeekEnum msg;

	if (!peek(app, &msg, sizeof(msg), error))
		return FALSE;
	if (msg.entries_len > ENUM_ENTRIES_MAX * sizeof(struct lttng_ust_ctl_enum_entry))
		return notify_broken(error, -EMSGSIZE, "an enumeration too large");
	return TRUE;
}

static void
log_refusal(TcLttngApp *app, const char *what, const GError *why)
{
	g_warning("Refused the %s of the LTTng-UST application pid=%d uid=%u: %s", what,
		  (int)app->pid, (unsigned)app->uid, why->message);
}

/* The trace the application's session_handle writes, or NULL with
 * error. */
static TcLttngTrace *
notify_trace(TcLttngApp *app, int session_handle, GError **error)
{
	TcLttngTrace *trace = tc_lttng_trace_find_bound(app->id, session_handle);

	if (trace == NULL)
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND,
			    "no session of the service has its handle %d", session_handle);
	return trace;
}

static gboolean
register_event(TcLttngApp *app, int session_handle, int channel_handle, char *name, int loglevel,
	       const char *signature, const struct lttng_ust_ctl_field *fields, size_t nr_fields,
	       const char *uri, guint32 *id, GError **error)
{
	g_autoptr(TcLttngTrace) trace = NULL;

	name[LTTNG_UST_ABI_SYM_NAME_LEN - 1] = '\0';
	if (nr_fields > TC_LTTNG_NOTIFY_FIELDS_MAX ||
	    strnlen(signature, TC_LTTNG_NOTIFY_SIGNATURE_MAX + 1) > TC_LTTNG_NOTIFY_SIGNATURE_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_LIMIT_EXCEEDED,
			    "event '%s': more than %d fields or a signature over %d bytes", name,
			    TC_LTTNG_NOTIFY_FIELDS_MAX, TC_LTTNG_NOTIFY_SIGNATURE_MAX);
		return FALSE;
	}
	if (loglevel < 0 || loglevel > TC_LTTNG_NOTIFY_LOGLEVEL_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "event '%s' has log level %d, not 0 to %d", name, loglevel,
			    TC_LTTNG_NOTIFY_LOGLEVEL_MAX);
		return FALSE;
	}
	trace = notify_trace(app, session_handle, error);
	return trace != NULL &&
	       tc_lttng_trace_register_event(trace, app->id, channel_handle, name, signature,
					     loglevel, fields, nr_fields, uri, id, error);
}

static gboolean
serve_event(TcLttngApp *app, GError **error)
{
	g_autoptr(GError) refusal = NULL;
	char name[LTTNG_UST_ABI_SYM_NAME_LEN];
	struct lttng_ust_ctl_field *fields = NULL;
	char *signature = NULL, *uri = NULL;
	int session_handle, channel_handle, loglevel, ret;
	size_t nr_fields = 0;
	guint32 id = 0;

	if (!peek_event(app, error))
		return FALSE;
	ret = lttng_ust_ctl_recv_register_event(app->notify_fd, &session_handle, &channel_handle,
						name, &loglevel, &signature, &nr_fields, &fields,
						&uri);
	if (ret < 0)
		return notify_broken(error, ret, "receiving an event");
	if (!register_event(app, session_handle, channel_handle, name, loglevel, signature, fields,
			    nr_fields, uri, &id, &refusal))
		log_refusal(app, "event", refusal);
	free(signature);
	free(fields);
	free(uri);
	ret = lttng_ust_ctl_reply_register_event(app->notify_fd, id, refusal ? -EINVAL : 0);
	return ret < 0 ? notify_broken(error, ret, "replying to an event") : TRUE;
}

static gboolean
register_channel(TcLttngApp *app, int session_handle, int channel_handle,
		 const struct lttng_ust_ctl_field *fields, size_t nr_fields, guint32 *chan_id,
		 enum lttng_ust_ctl_channel_header *header_type, GError **error)
{
	g_autoptr(TcLttngTrace) trace = NULL;

	if (nr_fields > TC_LTTNG_NOTIFY_FIELDS_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_LIMIT_EXCEEDED,
			    "a channel context of more than %d fields", TC_LTTNG_NOTIFY_FIELDS_MAX);
		return FALSE;
	}
	trace = notify_trace(app, session_handle, error);
	return trace != NULL &&
	       tc_lttng_trace_register_channel(trace, app->id, channel_handle, fields, nr_fields,
					       chan_id, header_type, error);
}

static gboolean
serve_channel(TcLttngApp *app, GError **error)
{
	g_autoptr(GError) refusal = NULL;
	enum lttng_ust_ctl_channel_header header_type = LTTNG_UST_CTL_CHANNEL_HEADER_UNKNOWN;
	struct lttng_ust_ctl_field *fields = NULL;
	int session_handle, channel_handle, ret;
	size_t nr_fields = 0;
	guint32 chan_id = 0;

	if (!peek_channel(app, error))
		return FALSE;
	ret = lttng_ust_ctl_recv_register_channel(app->notify_fd, &session_handle, &channel_handle,
						  &nr_fields, &fields);
	if (ret < 0)
		return notify_broken(error, ret, "receiving a channel");
	if (!register_channel(app, session_handle, channel_handle, fields, nr_fields, &chan_id,
			      &header_type, &refusal))
		log_refusal(app, "channel", refusal);
	free(fields);
	ret = lttng_ust_ctl_reply_register_channel(app->notify_fd, chan_id, header_type,
						   refusal ? -EINVAL : 0);
	return ret < 0 ? notify_broken(error, ret, "replying to a channel") : TRUE;
}

static gboolean
register_enum(TcLttngApp *app, int session_handle, const char *name,
	      struct lttng_ust_ctl_enum_entry *entries, size_t nr_entries, guint64 *id,
	      GError **error)
{
	g_autoptr(TcLttngTrace) trace = notify_trace(app, session_handle, error);

	if (trace == NULL) {
		free(entries);
		return FALSE;
	}
	return tc_lttng_trace_register_enum(trace, name, entries, nr_entries, id, error);
}

/* An enumeration, its entries checked when an event uses it. */
static gboolean
serve_enum(TcLttngApp *app, GError **error)
{
	g_autoptr(GError) refusal = NULL;
	char name[LTTNG_UST_ABI_SYM_NAME_LEN];
	struct lttng_ust_ctl_enum_entry *entries = NULL;
	size_t nr_entries = 0;
	int session_handle, ret;
	guint64 id = 0;

	if (!peek_enum(app, error))
		return FALSE;
	ret = lttng_ust_ctl_recv_register_enum(app->notify_fd, &session_handle, name, &entries,
					       &nr_entries);
	if (ret < 0)
		return notify_broken(error, ret, "receiving an enumeration");
	name[sizeof(name) - 1] = '\0';
	if (!register_enum(app, session_handle, name, entries, nr_entries, &id, &refusal))
		log_refusal(app, "enumeration", refusal);
	ret = lttng_ust_ctl_reply_register_enum(app->notify_fd, id, refusal ? -EINVAL : 0);
	return ret < 0 ? notify_broken(error, ret, "replying to an enumeration") : TRUE;
}

gboolean
tc_lttng_notify_serve(TcLttngApp *app, GError **error)
{
	enum lttng_ust_ctl_notify_cmd cmd;
	int ret = lttng_ust_ctl_recv_notify(app->notify_fd, &cmd);

	if (ret < 0)
		return notify_broken(error, ret, "receiving");
	switch (cmd) {
	case LTTNG_UST_CTL_NOTIFY_CMD_EVENT:
		return serve_event(app, error);
	case LTTNG_UST_CTL_NOTIFY_CMD_CHANNEL:
		return serve_channel(app, error);
	case LTTNG_UST_CTL_NOTIFY_CMD_ENUM:
		return serve_enum(app, error);
	default:
		return notify_broken(error, (int)cmd, "unknown message");
	}
}
