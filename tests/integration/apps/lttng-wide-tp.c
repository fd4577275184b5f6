/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The probes of lttng-wide-tp.h, a library to preload. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "lttng-wide-tp.h"
