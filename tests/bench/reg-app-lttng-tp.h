/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The same event for LTTng-UST 2.13 (the anchor). */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER bench

#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./reg-app-lttng-tp.h"

#if !defined(REG_APP_LTTNG_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define REG_APP_LTTNG_TP_H

#include <lttng/tracepoint.h>

TRACEPOINT_EVENT(bench, event,
	TP_ARGS(uint64_t, a, uint64_t, b),
	TP_FIELDS(
		ctf_integer(uint64_t, a, a)
		ctf_integer(uint64_t, b, b)))

#endif

#include <lttng/tracepoint-event.h>
