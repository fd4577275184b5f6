/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Delivery of an exported document: POST to a URL, with retries, or a file. */
#ifndef TC_EXPORT_SEND_H
#define TC_EXPORT_SEND_H

#include <glib.h>

struct tc_export_send_options {
	unsigned int attempts;        /* at least 1 */
	unsigned int first_backoff_ms; /* doubled after each failure */
	unsigned int timeout_ms;      /* of one attempt */
};

/*
 * POSTs body (of content_type) to url. Retries after a connection failure,
 * a timeout, 429 or a 5xx status, waiting first_backoff_ms, then twice
 * that, and so on; other statuses are final. Returns TRUE on a 2xx, or
 * FALSE with *why saying what the last attempt got.
 */
gboolean tc_export_post(const char *url, GBytes *body, const char *content_type,
			const struct tc_export_send_options *options, char **why);
/* Writes body to path ("-": standard output, then a newline). FALSE with
 * *why on error. */
gboolean tc_export_write(const char *path, GBytes *body, char **why);

#endif /* TC_EXPORT_SEND_H */
