/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-audit.h"

#include <stdio.h>
#include <syslog.h>
#include <string.h>
#include <systemd/sd-journal.h>
#include <unistd.h>

/* Methods that change nothing: every other method is audited, so that a
 * method added later is audited unless someone decides otherwise here. */
static const char *const read_only_methods[] = {
    "ChannelStatistics", "DescribeSession",	"FindSession",	"ListAgents",
    "ListApplications",	 "ListAppContexts",	"ListContexts",	"ListKernelEvents", "ListSessions",
    "ListSnapshotOutputs", "ListTriggers",	"Subscribe",	"Unsubscribe",
};

gboolean
tc_audit_method_changes_state(const char *method)
{
	for (gsize i = 0; i < G_N_ELEMENTS(read_only_methods); i++)
		if (g_str_equal(method, read_only_methods[i]))
			return FALSE;
	return TRUE;
}

static const char *
result_name(TcAuditResult result)
{
	switch (result) {
	case TC_AUDIT_ALLOWED:
		return "allowed";
	case TC_AUDIT_REFUSED:
		return "refused";
	case TC_AUDIT_FAILED:
		return "failed";
	}
	g_assert_not_reached();
}

static const char *
message_id(TcAuditResult result)
{
	switch (result) {
	case TC_AUDIT_ALLOWED:
		return TC_AUDIT_MESSAGE_ALLOWED;
	case TC_AUDIT_REFUSED:
		return TC_AUDIT_MESSAGE_REFUSED;
	case TC_AUDIT_FAILED:
		return TC_AUDIT_MESSAGE_FAILED;
	}
	g_assert_not_reached();
}

static char *
uid_text(uid_t uid)
{
	return uid == TC_AUDIT_NO_UID ? g_strdup("") : g_strdup_printf("%u", (unsigned)uid);
}

/* Caller-chosen text (session names, patterns) goes into one line: newlines
 * and other control characters are escaped so that no caller can forge a
 * second entry on stderr. */
static char *
one_line(const char *text)
{
	return text ? g_strescape(text, NULL) : g_strdup("");
}

static void
log_to_stderr(const TcAuditEntry *entry, TcAuditResult result, const char *caller,
	      const char *owner)
{
	g_autofree char *session = one_line(entry->session);
	g_autofree char *detail = one_line(entry->detail);

	fprintf(stderr,
		"tracectld-audit: MESSAGE_ID=%s TRACECTL_ACTION=%s TRACECTL_RESULT=%s "
		"TRACECTL_CALLER_UID=%s TRACECTL_CALLER_PID=%ld TRACECTL_SESSION=\"%s\" "
		"TRACECTL_OWNER_UID=%s TRACECTL_DETAIL=\"%s\"\n",
		message_id(result), entry->method, result_name(result), caller,
		(long)entry->caller_pid, session, owner, detail);
}

void
tc_audit_log(const TcAuditEntry *entry, TcAuditResult result)
{
	g_autofree char *caller = uid_text(entry->caller_uid);
	g_autofree char *owner = uid_text(entry->owner_uid);
	g_autofree char *session = one_line(entry->session);
	g_autofree char *message =
	    g_strdup_printf("%s %s for uid %s, session '%s'", entry->method, result_name(result),
			    *caller ? caller : "?", session);

	if (!g_log_writer_is_journald(fileno(stderr))) {
		log_to_stderr(entry, result, caller, owner);
		return;
	}
	/* An entry the journal did not take is not lost: stderr is the
	 * journal's stream too, or the unit's log when journald is gone. */
	if (sd_journal_send("MESSAGE=%s", message, "MESSAGE_ID=%s", message_id(result),
			    "PRIORITY=%d", result == TC_AUDIT_ALLOWED ? LOG_INFO : LOG_NOTICE,
			    "SYSLOG_IDENTIFIER=tracectld", "TRACECTL_ACTION=%s", entry->method,
			    "TRACECTL_RESULT=%s", result_name(result), "TRACECTL_CALLER_UID=%s",
			    caller, "TRACECTL_CALLER_PID=%ld", (long)entry->caller_pid,
			    "TRACECTL_SESSION=%s", entry->session ? entry->session : "",
			    "TRACECTL_OWNER_UID=%s", owner, "TRACECTL_DETAIL=%s",
			    entry->detail ? entry->detail : "", NULL) < 0)
		log_to_stderr(entry, result, caller, owner);
}
