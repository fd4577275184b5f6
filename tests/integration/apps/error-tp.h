/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Events of the error application (error-app.c): many ordinary ones, and
 * errors, rare, that a trigger may wait for. */
#ifndef ERROR_TP_H
#define ERROR_TP_H

#include <stdint.h>
#include <tracectl/tracepoint.h>

TRACECTL_EVENT_LOGLEVEL(app, request, TRACECTL_LOGLEVEL_INFO,
	TRACECTL_ARGS(uint64_t, seq),
	TRACECTL_FIELDS(
		tracectl_field_integer(uint64_t, seq, seq)))

TRACECTL_EVENT_LOGLEVEL(app, error_io, TRACECTL_LOGLEVEL_ERR,
	TRACECTL_ARGS(int32_t, code, const char *, what),
	TRACECTL_FIELDS(
		tracectl_field_integer(int32_t, code, code),
		tracectl_field_string(what, what)))

#endif /* ERROR_TP_H */
