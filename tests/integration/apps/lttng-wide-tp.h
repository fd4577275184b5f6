/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* An LTTng-UST provider of 256 events of one integer field each, e000 to
 * e377: preloaded into an application, it makes a listing of it 512
 * round trips long. */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER tc_lttng_wide

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./lttng-wide-tp.h"

#if !defined(TC_LTTNG_WIDE_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define TC_LTTNG_WIDE_TP_H

#include <lttng/tracepoint.h>

/* Expanded again at each of LTTng-UST's readings of this header, with its
 * definition of LTTNG_UST_TRACEPOINT_EVENT for that reading. */
#ifndef TC_WIDE_EVENT
#define TC_WIDE_EVENT(n)                                                                   \
	LTTNG_UST_TRACEPOINT_EVENT(tc_lttng_wide, e##n, LTTNG_UST_TP_ARGS(int, v),          \
				   LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(int, v, v)))
#define TC_WIDE_8(p)                                                                       \
	TC_WIDE_EVENT(p##0) TC_WIDE_EVENT(p##1) TC_WIDE_EVENT(p##2) TC_WIDE_EVENT(p##3)    \
	TC_WIDE_EVENT(p##4) TC_WIDE_EVENT(p##5) TC_WIDE_EVENT(p##6) TC_WIDE_EVENT(p##7)
#define TC_WIDE_64(p)                                                                      \
	TC_WIDE_8(p##0) TC_WIDE_8(p##1) TC_WIDE_8(p##2) TC_WIDE_8(p##3) TC_WIDE_8(p##4)    \
	TC_WIDE_8(p##5) TC_WIDE_8(p##6) TC_WIDE_8(p##7)
#endif

TC_WIDE_64(0)
TC_WIDE_64(1)
TC_WIDE_64(2)
TC_WIDE_64(3)

#endif /* TC_LTTNG_WIDE_TP_H */

#include <lttng/tracepoint-event.h>
