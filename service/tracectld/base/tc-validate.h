/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

/*
 * Checks of everything that comes from outside: names from D-Bus callers
 * and event descriptions from applications. Application strings end up
 * inside quoted TSDL metadata, so their alphabets are strict.
 */

#define TC_NAME_MAX 64
#define TC_PATTERN_MAX 127

/* Session and channel names: 1..64 of [A-Za-z0-9_.-], not starting with '.'. */
gboolean tc_validate_name(const char *what, const char *name, GError **error);
/* Event patterns: 1..127 of [A-Za-z0-9_:.*-]. */
gboolean tc_validate_pattern(const char *pattern, GError **error);
/* An absolute, normalized directory path without ".." components. */
gboolean tc_validate_output_directory(const char *path, GError **error);

/* Strings for the kernel helper (tc-kernel-names.h): kind is a
 * TC_KERNEL_PROBE_*; an InvalidArgument error names the bad character and
 * its position. */
gboolean tc_validate_kernel_probe(guint32 kind, const char *name, const char *location,
				  GError **error);
/* "system:event", each part a kernel name or glob, or LTTng's bare
 * event name or glob (no system). */
gboolean tc_validate_kernel_event(const char *pattern, GError **error);

/* Application event names: "provider:event", each part [A-Za-z0-9_.-]+. */
gboolean tc_validate_event_name(const char *name);
/* Application field names: [A-Za-z][A-Za-z0-9_]*, so that "_" prefixes and
 * the "__<name>_length" of byte sequences can never collide. */
gboolean tc_validate_field_name(const char *name);
