/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

/*
 * The audit trail: one structured log entry per state-changing D-Bus call,
 * whether the service carried it out, refused it, or failed at it, so that
 * an administrator can answer "who traced what, when" with
 * `journalctl TRACECTL_OWNER_UID=1000` or `journalctl MESSAGE_ID=...`.
 * Under systemd the entry goes to the journal with its fields; otherwise one
 * line of KEY=VALUE fields goes to stderr. The fields name the caller, the
 * session and what the caller asked for; never anything an application
 * recorded. docs/security.md ("Audit trail") lists the fields.
 */

/* The MESSAGE_ID of each result, fixed forever. */
#define TC_AUDIT_MESSAGE_ALLOWED "3076bc6606fd4a0fb1ee11139e4e7318"
#define TC_AUDIT_MESSAGE_REFUSED "1fe20ed64684460381190d18946e38bc"
#define TC_AUDIT_MESSAGE_FAILED "76ab3347f3ff4d90a7b4ffdc360ad7f7"

typedef enum {
	TC_AUDIT_ALLOWED, /* authorized; the work follows */
	TC_AUDIT_REFUSED, /* polkit, ownership or a limit refused it */
	TC_AUDIT_FAILED,  /* authorized, then the work failed */
} TcAuditResult;

#define TC_AUDIT_NO_UID ((uid_t)-1)

typedef struct {
	const char *method;  /* the D-Bus method, e.g. "EnableEvent" */
	uid_t caller_uid;    /* from the bus; TC_AUDIT_NO_UID if unknown */
	pid_t caller_pid;    /* from the bus; 0 if unknown */
	const char *session; /* may be NULL */
	uid_t owner_uid;     /* the session's owner; TC_AUDIT_NO_UID if none */
	const char *detail;  /* what was asked, or why it was refused; may be NULL */
} TcAuditEntry;

/* FALSE for the calls that only read (listings, statistics, subscriptions). */
gboolean tc_audit_method_changes_state(const char *method);

void tc_audit_log(const TcAuditEntry *entry, TcAuditResult result);
