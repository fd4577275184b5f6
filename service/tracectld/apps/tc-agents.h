/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

#include "config.h"
#include "tc-session.h"

/*
 * LTTng's agents: Python's logging handler (python3-lttngust) and the Java
 * agents for java.util.logging and log4j. Each connects over TCP to the
 * port lttng-sessiond writes in /var/run/lttng/agent.port, registers
 * (domain, pid, protocol version) and is then told which loggers the
 * sessions enable; it records each log record as an LTTng-UST event of its
 * process (lttng_python:event...), which the sessions select by logger
 * and level with a filter (tc-agent-rule.h) like any LTTng-UST event.
 *
 * tracectld serves them where it serves LTTng-UST applications (the
 * global paths, unless another session daemon holds them). An agent is
 * another party:
 *   - its uid is the kernel's (tc-tcp-peer.h), never its word; the pid
 *     it claims is kept only when that process holds the connection;
 *   - its registration is read on its owner's thread of the LTTng-UST
 *     owners' pool (tc-lttng-owner.h), with a deadline, as is every
 *     command sent to it: an agent that stops answering delays its own
 *     user's agents and applications only;
 *   - each agent is charged to its accountable user's connections
 *     (tc-user-limits.h), and registrations under way are bounded per uid;
 *   - it is told only of the rules of sessions that record its uid
 *     (tc_session_records_uid()), the same sessions that get its events.
 *
 * What an agent was told is kept per agent (session and rule), so that
 * every "enable" is matched by one "disable" when the rule or its session
 * goes: the Python agent counts them to know when to stop emitting.
 */

/* How long an agent has to send its registration and to answer. */
#define TC_AGENTS_TIMEOUT_MS 2000
/* Registrations read at once for one uid; more connections are closed. */
#define TC_AGENTS_PENDING_PER_UID_MAX 16
/* lttng-sessiond's ports for agents (DEFAULT_AGENT_TCP_PORT_RANGE). */
#define TC_AGENTS_PORT_FIRST 5345
#define TC_AGENTS_PORT_LAST 5354
/* Where the agents read the port of the system's session daemon. */
#define TC_AGENTS_PORT_FILE "/var/run/lttng/agent.port"

typedef struct {
	pid_t pid;
	uid_t uid;
	const char *domain; /* "python", "jul", "log4j" */
	char *procname;	    /* /proc/PID/comm when listed, "?" when unreadable */
	char **loggers;	    /* its listing; NULL when it did not answer */
} TcAgentListing;

#if TRACECTL_HAVE_LTTNG_UST

/* Listens on 127.0.0.1 (a port of the kernel's choosing) and writes it to
 * port_file. Needs the owners' pool (tc_lttng_owner_start()). */
gboolean tc_agents_start(const char *port_file, GError **error);
/* Stops listening, removes the port file, drops every agent. Before the
 * owners' pool stops. */
void tc_agents_stop(void);
/* The rules or the life of session changed: each agent of a uid it
 * records is told, and the caller waits for them at most
 * TC_AGENTS_TIMEOUT_MS. Not on an owner's thread nor the main loop's. */
void tc_agents_session_changed(TcSession *session);
/* The agents of uid (all when all) of domain (NULL: any), each with its
 * loggers, asked on the owners' threads within TC_AGENTS_TIMEOUT_MS.
 * TcAgentListing *, freed by the array. */
GPtrArray *tc_agents_list(uid_t uid, gboolean all, const char *domain);

#else

static inline void
tc_agents_session_changed(TcSession *session)
{
}

static inline GPtrArray *
tc_agents_list(uid_t uid, gboolean all, const char *domain)
{
	return g_ptr_array_new();
}

#endif
