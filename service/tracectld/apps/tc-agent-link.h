/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

#include "tc-agent-protocol.h"
#include "tc-user-limits.h"

/*
 * One registered agent and its connection. Commands are sent and their
 * replies read on the agent's owner's thread only (one at a time, so no
 * lock guards the socket); every read and write has TC_AGENTS_TIMEOUT_MS.
 * A broken or late link is reported as a G_IO_ERROR: the agent is then
 * dropped, since a late reply would be read as the next command's.
 */
typedef struct {
	gint refcount;
	guint64 id;
	int fd;
	uid_t uid; /* the kernel's */
	pid_t pid; /* claimed, and shown to hold the connection */
	TcAgentDomain domain;
	guint32 minor;
	TcUserCharge charge;
	/* [owner's thread] "SESSION-ID\x1eKEY" -> the logger enabled, for
	 * each rule the agent was told of. */
	GHashTable *enabled;
} TcAgentLink;

/* Takes fd (blocking) and charge. */
TcAgentLink *tc_agent_link_new(int fd, uid_t uid, const TcAgentRegistration *reg,
			       TcUserCharge *charge);
TcAgentLink *tc_agent_link_ref(TcAgentLink *link);
void tc_agent_link_unref(TcAgentLink *link);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TcAgentLink, tc_agent_link_unref)

/* Sets the socket's send and receive deadlines. */
void tc_agent_link_set_timeouts(int fd, guint timeout_ms);
/* Reads exactly size bytes of fd: G_IO_ERROR when it closes or is late. */
gboolean tc_agent_link_read(int fd, guint8 *buffer, gsize size, GError **error);
/* Sends command and, unless it is "registration done" (which has no
 * reply), reads its status; FALSE when the agent refused it
 * (TC_ERROR_FAILED) or the link broke (G_IO_ERROR). */
gboolean tc_agent_link_send(TcAgentLink *link, GBytes *command, GError **error);
/* Lists the agent's loggers. */
char **tc_agent_link_list(TcAgentLink *link, GError **error);
/* Shuts the connection down (the agent reconnects by itself). */
void tc_agent_link_shutdown(TcAgentLink *link);
