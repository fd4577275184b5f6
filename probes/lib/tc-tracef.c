/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracectl/tracef.h: the messages are formatted here, once the caller saw
 * the event enabled (or, built with TRACECTL_SDT, a tool attached to the
 * SDT probe), then handed to the SDT probe and recorded through the
 * events' probe functions.
 *
 * The SDT probes are here, one per kind, rather than at each call site as
 * a tracepoint's: what a tool wants of a printf-style event is its
 * message, which exists only once formatted, and a call site's variadic
 * arguments have no declared types to give a probe. Each has a semaphore,
 * which the header's macros read only when the caller is built with
 * TRACECTL_SDT: other callers reach the probe only while the event is
 * recorded.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef TC_TRACEF_SDT
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
#endif

#include <tracectl/tracef.h>

#include "tc-tracef-tp.h"

/* Raised by the kernel (uprobe reference counters) or the tool while one is
 * attached; in section .probes, where perf looks for semaphores. Zero for
 * ever when the library is built without sys/sdt.h. */
unsigned short tracectl_tracef_event_semaphore
	__attribute__((visibility("hidden"), section(".probes")));
unsigned short tracectl_tracelog_message_semaphore
	__attribute__((visibility("hidden"), section(".probes")));

TRACECTL_TRACEF_API const volatile unsigned short *const tracectl_tracef__attached =
	&tracectl_tracef_event_semaphore;
TRACECTL_TRACEF_API const volatile unsigned short *const tracectl_tracelog__attached =
	&tracectl_tracelog_message_semaphore;

#ifdef TC_TRACEF_SDT
#define TC_TRACEF_SDT_PROBE(msg) STAP_PROBE1(tracectl_tracef, event, msg)
#define TC_TRACELOG_SDT_PROBE(level, file, line, func, msg)                                          \
	STAP_PROBE5(tracectl_tracelog, message, level, file, line, func, msg)
#else
#define TC_TRACEF_SDT_PROBE(msg) ((void)(msg))
#define TC_TRACELOG_SDT_PROBE(level, file, line, func, msg) ((void)(msg))
#endif

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
	TC_TRACEF_SDT_PROBE(msg);
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
	TC_TRACELOG_SDT_PROBE(level, file, line, func, msg);
	/* Called for a tool only, it must not record. */
	if (__atomic_load_n(tracectl_tracelog__enabled[level], __ATOMIC_RELAXED))
		tracelog_probes[level](file, (int32_t)line, func, msg,
				       __builtin_return_address(0));
	free(heap);
}
