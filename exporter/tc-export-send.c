/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Delivery of an exported document (tc-export-send.h). */
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tc-export-send.h"

/* The receiver's reply is not needed: drop it. */
static size_t
discard_reply(char *data, size_t size, size_t count, void *user_data)
{
	return size * count;
}

/* One attempt. Returns the HTTP status, or 0 with *why on a transport error. */
static long
post_once(const char *url, GBytes *body, const char *content_type, unsigned int timeout_ms,
	  char **why)
{
	g_autofree char *header = g_strdup_printf("Content-Type: %s", content_type);
	CURL *curl = curl_easy_init();
	struct curl_slist *headers = curl_slist_append(NULL, header);
	gsize length;
	const void *data = g_bytes_get_data(body, &length);
	CURLcode code;
	long status = 0;

	if (!curl || !headers) {
		*why = g_strdup("cannot set up libcurl");
		curl_slist_free_all(headers);
		if (curl)
			curl_easy_cleanup(curl);
		return 0;
	}
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(curl, CURLOPT_POSTFIELDS, data);
	curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)length);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, (long)timeout_ms);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, discard_reply);
	code = curl_easy_perform(curl);
	if (code == CURLE_OK)
		curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
	else
		*why = g_strdup(curl_easy_strerror(code));
	curl_slist_free_all(headers);
	curl_easy_cleanup(curl);
	return status;
}

static gboolean
worth_retrying(long status)
{
	return status == 0 || status == 429 || (status >= 500 && status <= 599);
}

gboolean
tc_export_post(const char *url, GBytes *body, const char *content_type,
	       const struct tc_export_send_options *options, char **why)
{
	unsigned int backoff_ms = options->first_backoff_ms;

	*why = NULL;
	for (unsigned int attempt = 1;; attempt++) {
		long status;

		g_clear_pointer(why, g_free);
		status = post_once(url, body, content_type, options->timeout_ms, why);
		if (status >= 200 && status <= 299)
			return TRUE;
		if (status != 0)
			*why = g_strdup_printf("HTTP status %ld", status);
		if (!worth_retrying(status) || attempt >= options->attempts) {
			g_autofree char *last = *why;

			*why = g_strdup_printf("%s (attempt %u of %u)", last, attempt,
					       options->attempts);
			return FALSE;
		}
		g_usleep((gulong)backoff_ms * 1000);
		backoff_ms = backoff_ms > G_MAXUINT / 2 ? G_MAXUINT : backoff_ms * 2;
	}
}

gboolean
tc_export_write(const char *path, GBytes *body, char **why)
{
	g_autoptr(GError) error = NULL;
	gsize length;
	const char *data = g_bytes_get_data(body, &length);

	if (strcmp(path, "-") == 0) {
		if (fwrite(data, 1, length, stdout) != length || fputc('\n', stdout) < 0 ||
		    fflush(stdout) != 0) {
			*why = g_strdup_printf("standard output: %s", g_strerror(errno));
			return FALSE;
		}
		return TRUE;
	}
	if (!g_file_set_contents(path, data, (gssize)length, &error)) {
		*why = g_strdup(error->message);
		return FALSE;
	}
	return TRUE;
}
