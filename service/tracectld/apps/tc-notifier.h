/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

#include "tc-app.h"
#include "tc-event-rule.h"

/*
 * The notifier of an event-rule trigger (tracectl-abi.h): a page shared
 * with the applications of the trigger's owner (every application for
 * root), in which each of them counts the events that match the rule.
 * The service maps it read-only and sealed, so an application can only
 * change the count, and only of its own owner's triggers; the trigger
 * thread reads it at its tick. Nothing is sent or read on the
 * tracepoint's path but one atomic add.
 */
typedef struct _TcNotifier TcNotifier;

/* Takes rule. Gives the notifier to the owner's registered applications
 * with the events the rule selects enabled in it. */
TcNotifier *tc_notifier_new(uid_t owner, TcEventRule *rule, GError **error);
/* Tells the applications to drop it, then frees it. No lock held. */
void tc_notifier_free(TcNotifier *notifier);
/* The count the applications wrote: any value, only its changes mean
 * anything. */
guint64 tc_notifier_count(const TcNotifier *notifier);
/* The rule's event name pattern, for logs. */
const char *tc_notifier_pattern(const TcNotifier *notifier);
/* No lock held: gives app the notifiers of its owner's triggers, or
 * enables the events of a later batch in them. */
void tc_notifier_sync_app(TcApp *app);
