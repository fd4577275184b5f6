/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Routing a consumer's messages to the requests waiting for them
 * (tc-consumer-route.h). The message and its descriptors come from the
 * owner's consumer, so every size, type, id and descriptor is checked
 * before anything is taken, and every descriptor not taken is closed.
 */
#define G_LOG_DOMAIN "tracectld-consumer"

#include "tc-consumer-route.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "tc-error.h"

void
tc_consumer_route_close_fds(int fds[2])
{
	for (int i = 0; i < 2; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
}

static gboolean
check_reply(const struct tc_consumer_reply *reply, gssize len, GError **error)
{
	if (len != sizeof(*reply) || reply->header.size != sizeof(*reply)) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "The consumer sent a bad reply");
		return FALSE;
	}
	return TRUE;
}

/* A refusal in a well-formed reply: the consumer is fine, the request
 * failed. */
static void
take_reply(TcConsumerRequest *request, const struct tc_consumer_reply *reply)
{
	memcpy(request->reply, reply, sizeof(*reply));
	request->is_done = TRUE;
	if (reply->status < 0) {
		char message[TC_CONSUMER_ERROR_MAX];
		/* Something there already (a trace in the directory) is taken,
		 * as a name can be; anything else the service could not do. */
		int code = reply->status == -EEXIST || reply->status == -ENOTEMPTY
			       ? TC_ERROR_ALREADY_EXISTS
			       : TC_ERROR_FAILED;

		/* The consumer's text, maybe unterminated: g_strlcpy() would
		 * read on to the end of it. */
		G_STATIC_ASSERT(sizeof(message) == sizeof(reply->message));
		memcpy(message, reply->message, sizeof(message) - 1);
		message[sizeof(message) - 1] = '\0';
		g_set_error(&request->error, TC_ERROR, code, "%s",
			    *message ? message : g_strerror(-reply->status));
	}
}

/* A stream of a CREATE_CHANNEL: the next CPU's, with its two descriptors
 * (taken on success). */
static gboolean
take_stream(TcConsumerRequest *request, const struct tc_consumer_stream *stream, gssize len,
	    int fds[2], GError **error)
{
	if (len != sizeof(*stream) || fds[0] < 0 || fds[1] < 0 ||
	    request->n_streams >= request->max_streams || stream->cpu != request->n_streams) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
			    "The consumer sent an unexpected stream");
		return FALSE;
	}
	request->fds[2 * request->n_streams] = fds[0];
	request->fds[2 * request->n_streams + 1] = fds[1];
	fds[0] = fds[1] = -1;
	request->n_streams++;
	*request->shm_size = stream->shm_size;
	return TRUE;
}

/* The request of pending that a message with this header answers, or
 * NULL with error: a bad header, or an id that no request waits on. */
static TcConsumerRequest *
find_request(GHashTable *pending, const struct tc_consumer_header *header, gssize len,
	     GError **error)
{
	TcConsumerRequest *request;

	if (len < (gssize)sizeof(*header) || header->magic != TC_CONSUMER_MAGIC ||
	    header->size != (guint32)len) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
			    "The consumer sent a message of %zd bytes with a bad header", len);
		return NULL;
	}
	request = g_hash_table_lookup(pending, GUINT_TO_POINTER(header->request_id));
	if (request == NULL || request->is_done) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
			    "The consumer answered request %u, which is not waiting",
			    (unsigned)header->request_id);
		return NULL;
	}
	return request;
}

/* What a message of request's without descriptors delivers: its reply,
 * or an answer of the type its callback takes. */
static gboolean
deliver(TcConsumerRequest *request, const struct tc_consumer_header *header, gssize len,
	GError **error)
{
	if (header->type == TC_CONSUMER_REPLY) {
		if (!check_reply((const void *)header, len, error))
			return FALSE;
		take_reply(request, (const void *)header);
		return TRUE;
	}
	if (request->answer_type != 0 && header->type == request->answer_type)
		return request->func(header, (gsize)len, request->user_data, error);
	g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
		    "The consumer sent an unexpected message of type %u", (unsigned)header->type);
	return FALSE;
}

gboolean
tc_consumer_route(GHashTable *pending, const void *msg, gssize len, int fds[2],
		  TcConsumerRequest **culprit, GError **error)
{
	const struct tc_consumer_header *header = msg;
	TcConsumerRequest *request;
	gboolean ok = FALSE;

	*culprit = NULL;
	request = find_request(pending, header, len, error);
	if (request == NULL)
		goto out;
	*culprit = request;
	if (header->type == TC_CONSUMER_STREAM && request->max_streams > 0)
		ok = take_stream(request, msg, len, fds, error);
	else if (header->type == request->answer_type && request->answer_fd != NULL &&
		 fds[0] >= 0 && fds[1] < 0 && *request->answer_fd < 0) {
		ok = deliver(request, header, len, error);
		if (ok) {
			*request->answer_fd = fds[0];
			fds[0] = -1;
		}
	} else if (fds[0] >= 0 || fds[1] >= 0)
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
			    "The consumer sent descriptors with an answer");
	else
		ok = deliver(request, header, len, error);
out:
	tc_consumer_route_close_fds(fds);
	return ok;
}

void
tc_consumer_route_fail_all(GHashTable *pending, TcConsumerRequest *culprit, const GError *why,
			   uid_t uid, GPid pid)
{
	GHashTableIter iter;
	gpointer value;

	g_hash_table_iter_init(&iter, pending);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		TcConsumerRequest *request = value;

		if (request->is_done)
			continue;
		if (request == culprit || culprit == NULL)
			request->error = g_error_copy(why);
		else
			request->error = g_error_new(
			    TC_ERROR, TC_ERROR_FAILED,
			    "The consumer of uid %u (pid %d) failed another request: %s",
			    (unsigned)uid, (int)pid, why->message);
		request->is_done = TRUE;
	}
}
