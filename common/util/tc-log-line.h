/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The log-line formatter of the processes without GLib (the library and
 * the consumer): "PREFIX: message\n" written to stderr with one write(),
 * so that lines of several threads never mix, and no stdio state of the
 * process is touched. Longer lines are cut to TC_LOG_LINE_MAX bytes.
 */
#ifndef TC_LOG_LINE_H
#define TC_LOG_LINE_H

#include <stdarg.h>

#define TC_LOG_LINE_MAX 1024

/* Writes prefix (already formatted, may be empty) then format with args
 * and a newline. errno is preserved, so that callers can log and still
 * use it (and %m works). */
void tc_log_line_write(const char *prefix, const char *format, va_list args)
	__attribute__((format(printf, 2, 0)));

#endif /* TC_LOG_LINE_H */
