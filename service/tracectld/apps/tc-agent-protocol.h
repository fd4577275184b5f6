/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

#include "tc-agent-rule.h"

/*
 * LTTng's agent protocol, version 2.0, as lttng-sessiond speaks it to the
 * Python and Java agents over TCP on 127.0.0.1: every integer big-endian.
 *
 *   agent → service  registration: domain, pid, major, minor (u32 each)
 *   service → agent  command: data size (u64), command, version (u32),
 *                    then the data
 *   agent → service  reply: status (u32); a listing's adds the size of
 *                    its names (u32), their count (u32), then the names,
 *                    each ended by a NUL
 *
 * Every byte the agent sends is another party's: this file only encodes
 * and checks, and refuses what it cannot account for.
 */

#define TC_AGENT_REGISTRATION_SIZE 16
#define TC_AGENT_MAJOR 2
/* The most names and bytes of names a listing may bring back. */
#define TC_AGENT_LIST_NAMES_MAX 4096
#define TC_AGENT_LIST_BYTES_MAX (256 * 1024)

typedef enum {
	TC_AGENT_CMD_LIST = 1,
	TC_AGENT_CMD_ENABLE = 2,
	TC_AGENT_CMD_DISABLE = 3,
	TC_AGENT_CMD_REGISTRATION_DONE = 4,
} TcAgentCommand;

/* An agent's answer to a command. */
#define TC_AGENT_REPLY_SUCCESS 1

typedef struct {
	TcAgentDomain domain;
	pid_t pid;
	guint32 major, minor;
} TcAgentRegistration;

/* The registration in bytes (TC_AGENT_REGISTRATION_SIZE of them): FALSE
 * (error set) for a domain that is not an agent's, a pid that cannot be
 * one, or another major version (named, with ours). */
gboolean tc_agent_protocol_parse_registration(const guint8 *bytes, TcAgentRegistration *reg,
					      GError **error);

/* The command enabling logger (at most TC_AGENT_NAME_MAX - 1 bytes) with
 * a level and the caller's filter (NULL: none). */
GBytes *tc_agent_protocol_enable(const char *logger, int loglevel,
				 TcAgentLoglevelType loglevel_type, const char *filter);
GBytes *tc_agent_protocol_disable(const char *logger);
/* A command without data: listing, registration done. */
GBytes *tc_agent_protocol_command(TcAgentCommand command);

/* The status of a reply (4 bytes). */
guint32 tc_agent_protocol_parse_status(const guint8 *bytes);
/* A listing's head after its status (8 bytes): the size of its names and
 * their count, both checked against the bounds above. */
gboolean tc_agent_protocol_parse_list_head(const guint8 *bytes, guint32 *size, guint32 *count,
					   GError **error);
/* The count names in size bytes, each ended by a NUL, every byte
 * accounted for; names that are not printable UTF-8 are refused. A
 * NULL-terminated vector. */
char **tc_agent_protocol_parse_list_names(const guint8 *bytes, guint32 size, guint32 count,
					  GError **error);
