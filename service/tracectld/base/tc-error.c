/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-error.h"

#include <gio/gio.h>

static const GDBusErrorEntry tc_error_entries[] = {
	{TC_ERROR_FAILED, "org.tracectl.Tracing1.Error.Failed"},
	{TC_ERROR_NOT_FOUND, "org.tracectl.Tracing1.Error.NotFound"},
	{TC_ERROR_ALREADY_EXISTS, "org.tracectl.Tracing1.Error.AlreadyExists"},
	{TC_ERROR_PERMISSION_DENIED, "org.tracectl.Tracing1.Error.PermissionDenied"},
	{TC_ERROR_INVALID_ARGUMENT, "org.tracectl.Tracing1.Error.InvalidArgument"},
	{TC_ERROR_INVALID_STATE, "org.tracectl.Tracing1.Error.InvalidState"},
	{TC_ERROR_NOT_SUPPORTED, "org.tracectl.Tracing1.Error.NotSupported"},
	{TC_ERROR_LIMIT_EXCEEDED, "org.tracectl.Tracing1.Error.LimitExceeded"},
};

GQuark
tc_error_quark(void)
{
	static gsize quark;

	g_dbus_error_register_error_domain("tc-error-quark", &quark, tc_error_entries,
					   G_N_ELEMENTS(tc_error_entries));
	return (GQuark)quark;
}
