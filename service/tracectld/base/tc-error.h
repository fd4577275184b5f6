/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

/* The service's one error domain; each code travels on the bus under the
 * name org.tracectl.Tracing1.Error.<Name>, so clients match on names. */
#define TC_ERROR (tc_error_quark())

typedef enum {
	TC_ERROR_FAILED,
	TC_ERROR_NOT_FOUND,
	TC_ERROR_ALREADY_EXISTS,
	TC_ERROR_PERMISSION_DENIED,
	TC_ERROR_INVALID_ARGUMENT,
	TC_ERROR_INVALID_STATE,
	TC_ERROR_NOT_SUPPORTED,
	TC_ERROR_LIMIT_EXCEEDED, /* a per-user limit (tc-user-limits.h) */
} TcError;

GQuark tc_error_quark(void);
