/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The events of tracectl/tracef.h: tracectl_tracef:event, and one
 * tracectl_tracelog event per log level, named after it as LTTng-UST names
 * its tracelog events, so that --loglevel selects among them.
 */
#ifndef TC_TRACEF_TP_H
#define TC_TRACEF_TP_H

#include <stdint.h>
#include <tracectl/tracepoint.h>

/* ip, no field: the caller's call site, for the ip context
 * (TRACECTL_TP_IP_PARAM in tc-tracef-tp.c). */
TRACECTL_EVENT_LOGLEVEL(tracectl_tracef, event, TRACECTL_LOGLEVEL_DEBUG,
	TRACECTL_ARGS(const char *, msg, const void *, ip),
	TRACECTL_FIELDS(
		tracectl_field_string(msg, msg)))

/* X(event name, TRACECTL_LOGLEVEL_ suffix) of every log level, in the
 * order of the levels: tc-tracef.c indexes its tables by level. */
#define TC_TRACELOG_LEVELS(X)                                           \
	X(TRACE_EMERG, EMERG)                                           \
	X(TRACE_ALERT, ALERT)                                           \
	X(TRACE_CRIT, CRIT)                                             \
	X(TRACE_ERR, ERR)                                               \
	X(TRACE_WARNING, WARNING)                                       \
	X(TRACE_NOTICE, NOTICE)                                         \
	X(TRACE_INFO, INFO)                                             \
	X(TRACE_DEBUG_SYSTEM, DEBUG_SYSTEM)                             \
	X(TRACE_DEBUG_PROGRAM, DEBUG_PROGRAM)                           \
	X(TRACE_DEBUG_PROCESS, DEBUG_PROCESS)                           \
	X(TRACE_DEBUG_MODULE, DEBUG_MODULE)                             \
	X(TRACE_DEBUG_UNIT, DEBUG_UNIT)                                 \
	X(TRACE_DEBUG_FUNCTION, DEBUG_FUNCTION)                         \
	X(TRACE_DEBUG_LINE, DEBUG_LINE)                                 \
	X(TRACE_DEBUG, DEBUG)

#define TC_TRACELOG_EVENT(_name, _level)                                            \
	TRACECTL_EVENT_LOGLEVEL(tracectl_tracelog, _name, TRACECTL_LOGLEVEL_##_level, \
		TRACECTL_ARGS(const char *, file, int32_t, line, const char *, func, \
			      const char *, msg, const void *, ip),                 \
		TRACECTL_FIELDS(                                                    \
			tracectl_field_string(file, file),                          \
			tracectl_field_integer(int32_t, line, line),                \
			tracectl_field_string(func, func),                          \
			tracectl_field_string(msg, msg)))

TC_TRACELOG_LEVELS(TC_TRACELOG_EVENT)

#endif /* TC_TRACEF_TP_H */
