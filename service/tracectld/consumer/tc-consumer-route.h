/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

#include "tc-consumer-abi.h"

/*
 * Which waiting request a consumer's message answers, and what it hands
 * that request; or why the consumer broke the protocol. The consumer runs
 * as the session's owner, who may replace it with any program: every byte
 * and descriptor of its messages is hostile. Nothing here reads a socket,
 * takes a lock or waits: the link (tc-consumer.c) receives each message
 * and calls in with the lock that covers the table of waiting requests and
 * the requests in it held, and the fuzz harness
 * (tests/fuzz/fuzz-consumer-route.c) drives it the same way.
 *
 * The table maps a request id (GUINT_TO_POINTER) to its TcConsumerRequest.
 * A message goes to the request whose id it carries and that is not done;
 * it delivers either one stream of a request that takes streams (its two
 * descriptors), or one answer to the request's callback, or the reply
 * that ends the request. Anything else breaks the consumer.
 */

/* Takes one answer of a request made with tc_consumer_request_answers()
 * (tc-consumer.h says what it may do); FALSE with error set refuses it,
 * which breaks the consumer. */
typedef gboolean (*TcConsumerAnswerFunc)(const void *msg, gsize len, gpointer user_data,
					 GError **error);

/* One request from its registration to its end. Lives on its requester's
 * stack; the fields below id are covered by the lock that covers the
 * table, and a message is routed to it only while it is in the table. */
typedef struct {
	guint32 id;
	guint32 answer_type; /* what func takes, 0 for none */
	TcConsumerAnswerFunc func;
	gpointer user_data;
	/* Where the one descriptor an answer of answer_type may carry goes
	 * (-1 until then; a second is refused); NULL: answers carry none. */
	int *answer_fd;
	int *fds; /* streams: memfd then eventfd, for max_streams CPUs */
	guint max_streams;
	guint n_streams;
	guint64 *shm_size;
	struct tc_consumer_reply *reply;
	/* The link's, never read here: */
	gint64 deadline; /* monotonic, us */
	guint timeout_ms;
	gboolean is_done; /* replied to or failed (error set) */
	GError *error;
} TcConsumerRequest;

/*
 * Hands the message msg (len bytes, 1 to TC_CONSUMER_MSG_MAX, aligned for
 * the ABI's structs) and the descriptors that came with it (fds, -1 for
 * none) to the request of pending it answers; answer callbacks run from
 * here. Returns FALSE with error if the consumer broke the protocol,
 * *culprit then being the request the message named (or NULL). The
 * descriptors are taken (a stream's) or closed: fds is all -1 on return.
 */
gboolean tc_consumer_route(GHashTable *pending, const void *msg, gssize len, int fds[2],
			   TcConsumerRequest **culprit, GError **error);

/*
 * Ends every request of pending not done yet with an error, once the
 * consumer (of uid, process pid, for the text) broke: culprit (or NULL)
 * is the request whose answer showed the fault and gets why itself, the
 * others say that another request broke the link.
 */
void tc_consumer_route_fail_all(GHashTable *pending, TcConsumerRequest *culprit, const GError *why,
				uid_t uid, GPid pid);

/* Closes the descriptors of fds that are open and sets both to -1. */
void tc_consumer_route_close_fds(int fds[2]);
