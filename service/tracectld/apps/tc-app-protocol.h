/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-app.h"
/* What tc-app-protocol.c uses besides: it answers waiters and unlinks
 * the applications it drops. */
#include "tc-ack-waiter.h"
#include "tc-registry.h"

/*
 * The connection to an application: reading and checking what it sends
 * (common/abi/tracectl-abi.h), sending to it, disconnecting it. Nothing
 * read from an application socket is used before these checks.
 */

/* One message, at most TRACECTL_ABI_MSG_MAX bytes, 8-byte aligned. */
typedef union {
	struct tracectl_msg_header header;
	struct tracectl_msg_register registration;
	struct tracectl_msg_event event;
	struct tracectl_msg_enum enumeration;
	struct tracectl_msg_app_context app_context;
	struct tracectl_msg_batch batch;
	struct tracectl_msg_reply reply;
	guint64 words[TRACECTL_ABI_MSG_MAX / sizeof(guint64) + 1];
} TcAppMessage;

typedef enum {
	TC_APP_READ_MESSAGE,  /* a well-framed message is in the buffer */
	TC_APP_READ_NOTHING,  /* would block */
	TC_APP_READ_GONE,     /* closed, or a framing error: drop the app */
} TcAppReadResult;

/* Reads one message without blocking and checks its framing (magic,
 * type, exact size, no file descriptors). *why says why on GONE. */
TcAppReadResult tc_app_protocol_read_message(int fd, TcAppMessage *message, char **why);

typedef enum {
	TC_APP_HANDLED,     /* go on reading */
	TC_APP_BATCH_ENDED, /* EVENTS_END: the batch of events is complete */
	TC_APP_REFUSED,     /* a protocol violation, in error: drop the app */
} TcAppHandled;

/* The application (not published yet, or [A] held) handles a message read
 * by tc_app_protocol_read_message(): REGISTER only while registering,
 * REPLY only once registered, ENUM, APP_CONTEXT, EVENT and EVENTS_END in
 * both states. */
TcAppHandled tc_app_protocol_handle_message(TcApp *app, const TcAppMessage *message,
					    GError **error);

/* Each message kind; FALSE with error means a protocol violation. */
gboolean tc_app_protocol_handle_register(TcApp *app, const struct tracectl_msg_register *msg,
					 GError **error);
gboolean tc_app_protocol_handle_event(TcApp *app, const struct tracectl_msg_event *msg,
				      GError **error);
/* Opens or continues an enumeration of a version 5 application; while
 * one is incomplete, EVENT and EVENTS_END are refused. */
gboolean tc_app_protocol_handle_enum(TcApp *app, const struct tracectl_msg_enum *msg,
				     GError **error);
/* Adds an application context of a version 6 application: the next
 * index, a valid name not registered yet, a declared type, within
 * TRACECTL_ABI_APP_CONTEXTS_MAX and the owner's metadata limit. */
gboolean tc_app_protocol_handle_app_context(TcApp *app, const struct tracectl_msg_app_context *msg,
					    GError **error);
/* Closes the open batch; FALSE when no REGISTER came first. */
gboolean tc_app_protocol_handle_events_end(TcApp *app, const struct tracectl_msg_batch *msg,
					   GError **error);
void tc_app_protocol_handle_reply(TcApp *app, const struct tracectl_msg_reply *msg);

/* Sending, from any thread. [A] held: sends one message, never waiting,
 * and fds when n_fds > 0. An application whose socket is full stopped
 * reading: it is disconnected, and FALSE returned. */
gboolean tc_app_protocol_send_locked(TcApp *app, void *msg, guint32 type, guint32 size, guint32 seq,
				     const int *fds, guint n_fds);
/* [A] held: unlinks the app and shuts its socket down; the listener then
 * closes it. */
void tc_app_protocol_disconnect_locked(TcApp *app, const char *why);
