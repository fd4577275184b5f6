/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The service's requests (common/abi/tc-consumer-abi.h): receiving,
 * checking, dispatching and answering them.
 *
 * The main thread receives every request (tc_consumerd_command_receive())
 * and classifies it; what names a session is served on that session's
 * thread (tc-consumerd-session-thread.h), the rest on the main thread.
 * Whoever serves a request answers it on the command socket itself:
 * each message is one datagram, sent whole by one send(), and carries
 * the request's id, so answers of different requests may interleave
 * without a lock.
 */
#ifndef TC_CONSUMERD_COMMAND_H
#define TC_CONSUMERD_COMMAND_H

#include <stdbool.h>

#include "tc-consumer-abi.h"
#include "tc-consumerd-relay.h"
#include "tc-consumerd-session.h"

/* Room for a few fds that a confused peer might attach: they are closed. */
#define CONSUMERD_REQUEST_FDS_MAX (TC_CONSUMER_KERNEL_CPUS_MAX + 2)

/* One received request: it owns its bytes and its descriptors until it
 * is answered, whichever thread serves it. */
struct tc_consumerd_request {
	struct tc_consumerd_request *next;  /* in a session thread's queue */
	int fd;				    /* the command socket, to answer on */
	int fds[CONSUMERD_REQUEST_FDS_MAX]; /* -1 once a handler took one */
	size_t nr_fds;
	size_t len;
	bool is_truncated;
	uint64_t msg[]; /* len bytes, aligned for every request struct */
};

/*
 * Receives one request on the command socket fd (main thread only).
 * Returns 0 with *request set, -EAGAIN when nothing was there to read,
 * or -EPIPE when the socket is closed or broken: the caller then writes
 * out everything and exits.
 */
int tc_consumerd_command_receive(int fd, struct tc_consumerd_request **request);

enum tc_consumerd_request_kind {
	CONSUMERD_REQUEST_NO_SESSION,	/* malformed, or SESSION_FILES */
	CONSUMERD_REQUEST_CREATE,	/* a new session: a new thread */
	CONSUMERD_REQUEST_RELAY_STATUS, /* answered from the published status */
	CONSUMERD_REQUEST_DESTROY,	/* the session's last request */
	CONSUMERD_REQUEST_SESSION,	/* anything else naming a session */
};

/* Checks the header and the size of request; for a well-formed request
 * naming a session, *session_id receives it. */
enum tc_consumerd_request_kind tc_consumerd_command_classify(struct tc_consumerd_request *request,
							     uint64_t *session_id);

/*
 * Checks every field of request and does the work on registry (the
 * serving thread's sessions), sending the TC_CONSUMER_STREAM or
 * TC_CONSUMER_SESSION_FILE messages it calls for; *reply receives the
 * TC_CONSUMER_REPLY to send with tc_consumerd_command_answer(). Returns 0,
 * or -EPIPE when sending failed (the service is gone).
 */
int tc_consumerd_command_run(struct tc_consumerd_request *request,
			     struct tc_consumerd_registry *registry,
			     struct tc_consumer_reply *reply);
/* Sends reply (unless is_socket_broken) and frees request. */
void tc_consumerd_command_answer(struct tc_consumerd_request *request,
				 const struct tc_consumer_reply *reply, bool is_socket_broken);
/* tc_consumerd_command_run() then tc_consumerd_command_answer(). */
void tc_consumerd_command_serve(struct tc_consumerd_request *request,
				struct tc_consumerd_registry *registry);
/* Answers status (a -errno) with why, and frees request. */
void tc_consumerd_command_refuse(struct tc_consumerd_request *request, int status, const char *why);
/* Answers a RELAY_STATUS request from status, NULL when the session does
 * not stream, and frees request. */
void tc_consumerd_command_answer_relay_status(struct tc_consumerd_request *request,
					      const struct tc_consumerd_relay_status *status);
/* Closes what no handler took and frees request. */
void tc_consumerd_command_request_free(struct tc_consumerd_request *request);

#endif /* TC_CONSUMERD_COMMAND_H */
