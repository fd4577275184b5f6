/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The filtered event of filter-loop.c for LTTng-UST 2.13 (the anchor). */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER benchf

#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./filter-lttng-tp.h"

#if !defined(FILTER_LTTNG_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define FILTER_LTTNG_TP_H

#include <lttng/tracepoint.h>

TRACEPOINT_EVENT(benchf, event,
	TP_ARGS(int64_t, i, const char *, s),
	TP_FIELDS(
		ctf_integer(int64_t, intfield, i)
		ctf_string(strfield, s)))

#endif

#include <lttng/tracepoint-event.h>
