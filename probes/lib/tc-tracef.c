/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracectl/tracef.h: the messages are formatted here, once the caller saw
 * the event enabled, then recorded through the events' probe functions.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <tracectl/tracef.h>

#include "tc-tracef-tp.h"

/* Table entries, by log level (tc-tracef-tp.h lists the levels in order). */
#define TC_TRACELOG_ENABLED(_name, _level) &_TRACECTL_EVENT_SYMBOL(tracectl_tracelog, _name).enabled,
#define TC_TRACELOG_PROBE(_name, _level) _TRACECTL_PROBE_SYMBOL(tracectl_tracelog, _name),

TRACECTL_TRACEF_API const uint32_t *const tracectl_tracef__enabled =
	&_TRACECTL_EVENT_SYMBOL(tracectl_tracef, event).enabled;

TRACECTL_TRACEF_API const uint32_t *const tracectl_tracelog__enabled[TRACECTL_LOGLEVEL_DEBUG + 1] = {
	TC_TRACELOG_LEVELS(TC_TRACELOG_ENABLED)
};

typedef void tc_tracelog_probe(const char *file, int32_t line, const char *func, const char *msg,
				const void *ip);

static tc_tracelog_probe *const tracelog_probes[] = {TC_TRACELOG_LEVELS(TC_TRACELOG_PROBE)};
_Static_assert(sizeof(tracelog_probes) / sizeof(tracelog_probes[0]) == TRACECTL_LOGLEVEL_DEBUG + 1,
	       "one tracelog event per log level");

/*
 * The message of format and its arguments: in stack (of
 * TRACECTL_TRACEF_STACK_SIZE bytes) when it fits, else in *heap, which the
 * caller frees. A message that malloc() cannot hold is recorded as far as
 * stack holds it rather than not at all; a format vsnprintf() refuses is
 * recorded as itself.
 */
static const char *__attribute__((format(printf, 3, 0)))
tc_tracef_format(char *stack, char **heap, const char *format, va_list args)
{
	va_list again;
	int length;

	*heap = NULL;
	va_copy(again, args);
	length = vsnprintf(stack, TRACECTL_TRACEF_STACK_SIZE, format, args);
	if (length < 0) {
		va_end(again);
		return format;
	}
	if ((size_t)length >= TRACECTL_TRACEF_STACK_SIZE) {
		*heap = malloc((size_t)length + 1);
		if (*heap)
			vsnprintf(*heap, (size_t)length + 1, format, again);
	}
	va_end(again);
	return *heap ? *heap : stack;
}

void TRACECTL_TRACEF_API
tracectl_tracef__record(const char *format, ...)
{
	char stack[TRACECTL_TRACEF_STACK_SIZE];
	char *heap;
	const char *msg;
	va_list args;

	va_start(args, format);
	msg = tc_tracef_format(stack, &heap, format, args);
	va_end(args);
	/* The address tracectl_tracef() returns to: the ip context. */
	tracectl_tracepoint(tracectl_tracef, event, msg, __builtin_return_address(0));
	free(heap);
}

void TRACECTL_TRACEF_API
tracectl_tracelog__record(int level, const char *file, int line, const char *func,
			  const char *format, ...)
{
	char stack[TRACECTL_TRACEF_STACK_SIZE];
	char *heap;
	const char *msg;
	va_list args;

	if (level < 0 || level > TRACECTL_LOGLEVEL_DEBUG)
		return;
	va_start(args, format);
	msg = tc_tracef_format(stack, &heap, format, args);
	va_end(args);
	tracelog_probes[level](file, (int32_t)line, func, msg, __builtin_return_address(0));
	free(heap);
}
