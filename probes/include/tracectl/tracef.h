/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracectl printf-style events: a message formatted like printf(3) and
 * recorded as an event, for the quick trace of a debugging session. Link
 * with libtracectl-tracef (pkg-config tracectl-tracef).
 *
 *   #include <tracectl/tracef.h>
 *
 *   tracectl_tracef("retry %d of %s", attempt, host);
 *   tracectl_tracelog(TRACECTL_LOGLEVEL_WARNING, "queue at %zu%%", percent);
 *
 * tracectl_tracef() records the event tracectl_tracef:event, its one
 * field msg the formatted message, at log level TRACE_DEBUG.
 * tracectl_tracelog() records tracectl_tracelog:TRACE_EMERG to
 * tracectl_tracelog:TRACE_DEBUG, the event of its log level (0 to 14, as
 * TRACECTL_LOGLEVEL_*), with the fields file, line and func of the call
 * site, then msg; a level out of that range records nothing. A session
 * enables them as any event (`tracectl enable-event -u 'tracectl_tracelog:*'
 * --loglevel TRACE_WARNING` keeps TRACE_WARNING and the more severe).
 *
 * Cost. Disabled, a call is one load and one predicted branch (two loads
 * for tracectl_tracelog()): neither the message is formatted nor the
 * arguments evaluated. Enabled, the message is formatted with vsnprintf()
 * into a buffer on the stack, or in one from malloc() when it is longer
 * than TRACECTL_TRACEF_STACK_SIZE - 1 bytes, which makes these calls
 * unfit for signal handlers, unlike tracectl_tracepoint(). A message that
 * does not fit a sub-buffer is counted as discarded, never cut.
 *
 * The events are registered when libtracectl-tracef loads, so that the
 * programs that do not use them list none.
 *
 * SDT probes. libtracectl-tracef carries two SystemTap SDT probes, with
 * semaphores: tracectl_tracef:event (msg) and tracectl_tracelog:message
 * (level, file, line, func, msg; perf wants probe names distinct across
 * providers), fired with the formatted message at
 * every call that formats one, whether tracectl records it or not
 * (`perf probe -x libtracectl-tracef.so sdt_tracectl_tracef:event`,
 * bpftrace's `usdt:…/libtracectl-tracef.so:tracectl_tracef:event`). A file
 * built with TRACECTL_SDT defined (as for tracepoint.h) also formats its
 * messages while a tool is attached to the probe and tracectl does not
 * record them, at the cost of a second load and branch per call while
 * neither is; other files' calls reach the probe only while the event is
 * recorded. Unlike LTTng-UST's tracef probes, placed at each call site
 * with the raw arguments (evaluated twice), these give the message, one
 * probe for all call sites of a kind and every log level.
 */
#ifndef TRACECTL_TRACEF_H
#define TRACECTL_TRACEF_H

#include <stdint.h>
#include <tracectl/tracepoint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TRACECTL_TRACEF_API __attribute__((visibility("default")))
/* Messages up to this size, their NUL included, are formatted on the
 * stack. */
#define TRACECTL_TRACEF_STACK_SIZE 512

/* Each points at the enabled word of its event (struct tracectl_ust_event);
 * tracectl_tracelog__enabled is indexed by log level. */
extern TRACECTL_TRACEF_API const uint32_t *const tracectl_tracef__enabled;
extern TRACECTL_TRACEF_API const uint32_t *const tracectl_tracelog__enabled[TRACECTL_LOGLEVEL_DEBUG + 1];
/* The SDT probes' semaphores: non-zero while a tool is attached. */
extern TRACECTL_TRACEF_API const volatile unsigned short *const tracectl_tracef__attached;
extern TRACECTL_TRACEF_API const volatile unsigned short *const tracectl_tracelog__attached;

/* Whether a call formats its message: the event is recorded, or (callers
 * built with TRACECTL_SDT) a tool is attached to the SDT probe. */
#define _TRACECTL_TRACEF_LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#ifdef TRACECTL_SDT
#define _TRACECTL_TRACEF_WANTED(enabled, attached)                                          \
	__builtin_expect(_TRACECTL_TRACEF_LOAD(enabled) || _TRACECTL_TRACEF_LOAD(attached), 0)
#else
#define _TRACECTL_TRACEF_WANTED(enabled, attached) __builtin_expect(_TRACECTL_TRACEF_LOAD(enabled), 0)
#endif

/* The slow paths of the macros below: they format and record. */
TRACECTL_TRACEF_API void tracectl_tracef__record(const char *format, ...)
	__attribute__((format(printf, 1, 2)));
TRACECTL_TRACEF_API void tracectl_tracelog__record(int level, const char *file, int line,
						   const char *func, const char *format, ...)
	__attribute__((format(printf, 5, 6)));

#define tracectl_tracef(...)                                                                \
	do {                                                                                \
		if (_TRACECTL_TRACEF_WANTED(tracectl_tracef__enabled, tracectl_tracef__attached)) { \
			tracectl_tracef__record(__VA_ARGS__);                               \
			__asm__ __volatile__("");  /* no tail call: the ip context */       \
		}                                                                           \
	} while (0)

#define tracectl_tracelog(level, ...)                                                       \
	do {                                                                                \
		unsigned int _tc_level = (unsigned int)(level);                             \
		if (_tc_level <= TRACECTL_LOGLEVEL_DEBUG &&                                 \
		    _TRACECTL_TRACEF_WANTED(tracectl_tracelog__enabled[_tc_level],          \
					    tracectl_tracelog__attached)) {                 \
			tracectl_tracelog__record((int)_tc_level, __FILE__, __LINE__, __func__, \
						  __VA_ARGS__);                             \
			__asm__ __volatile__("");                                           \
		}                                                                           \
	} while (0)

#ifdef __cplusplus
}
#endif

#endif /* TRACECTL_TRACEF_H */
