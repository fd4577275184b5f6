/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* An LTTng-UST provider of the integration tests: four events of
 * different field types (one an enumeration) and log levels. */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER tc_lttng_test

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./lttng-tp.h"

#if !defined(TC_LTTNG_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define TC_LTTNG_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(tc_lttng_test, tick,
	LTTNG_UST_TP_ARGS(int, count),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(int, count, count)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(tc_lttng_test, tick, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)

LTTNG_UST_TRACEPOINT_EVENT(tc_lttng_test, message,
	LTTNG_UST_TP_ARGS(const char *, text, double, ratio),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_string(text, text)
			    lttng_ust_field_float(double, ratio, ratio)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(tc_lttng_test, message, LTTNG_UST_TRACEPOINT_LOGLEVEL_WARNING)

LTTNG_UST_TRACEPOINT_EVENT(tc_lttng_test, failure,
	LTTNG_UST_TP_ARGS(long, code),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_integer_hex(long, code, code)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(tc_lttng_test, failure, LTTNG_UST_TRACEPOINT_LOGLEVEL_ERR)

LTTNG_UST_TRACEPOINT_ENUM(tc_lttng_test, phase,
	LTTNG_UST_TP_ENUM_VALUES(lttng_ust_field_enum_value("even", 0)
				 lttng_ust_field_enum_value("odd", 1)
				 lttng_ust_field_enum_range("high", 2, 9)))

LTTNG_UST_TRACEPOINT_EVENT(tc_lttng_test, state,
	LTTNG_UST_TP_ARGS(int, value),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_enum(tc_lttng_test, phase, int, phase, value)))
LTTNG_UST_TRACEPOINT_LOGLEVEL(tc_lttng_test, state, LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)

#endif

#include <lttng/tracepoint-event.h>
