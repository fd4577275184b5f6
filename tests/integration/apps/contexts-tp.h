/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Events of the contexts application (contexts-app.c): one event, called
 * from two functions so that the ip context tells the call sites apart. */
#ifndef CONTEXTS_TP_H
#define CONTEXTS_TP_H

#include <stdint.h>
#include <tracectl/tracepoint.h>

TRACECTL_EVENT(contexts, mark,
	TRACECTL_ARGS(uint32_t, step),
	TRACECTL_FIELDS(
		tracectl_field_integer(uint32_t, step, step)))

#endif /* CONTEXTS_TP_H */
