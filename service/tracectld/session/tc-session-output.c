/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where a new session's trace goes (tc-session-output.h). */
#define G_LOG_DOMAIN "tracectld-session"

#include "tc-session-output.h"

#include <string.h>

#include "tc-error.h"
#include "tc-random-uuid.h"
#include "tc-relay-url.h"
#include "tc-session.h"
#include "tc-user-account.h"

gboolean
tc_session_output_resolve(const TcSessionOutputOptions *options, const char *output_directory,
			  char **directory, struct tc_consumer_relay_output **relay,
			  GError **error)
{
	g_autofree struct tc_consumer_relay_output *output = NULL;
	g_autofree char *url_directory = NULL;
	const char *url = options->url;

	*directory = g_strdup(output_directory);
	/* A snapshot is sent whole when taken: there is nothing to watch live. */
	if (options->snapshot && options->has_live_timer) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "A snapshot session is not live: give --snapshot or --live, not both");
		return FALSE;
	}
	if (url == NULL && options->ctrl_url == NULL && options->data_url == NULL) {
		if (!options->has_live_timer)
			return TRUE;
		url = TC_RELAY_LIVE_DEFAULT_URL;
	}
	if (options->has_live_timer && options->live_timer_us == 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "The live timer must be at least %u us", TC_CONSUMER_TIMER_MIN_US);
		return FALSE;
	}
	output = g_new0(struct tc_consumer_relay_output, 1);
	if (!tc_relay_url_parse_output(url, options->ctrl_url, options->data_url,
				       options->live_timer_us, output, &url_directory, error))
		return FALSE;
	if (url_directory == NULL) {
		if (*output_directory) {
			g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				    "Give either an output directory ('%s') or a network URL, "
				    "not both",
				    output_directory);
			return FALSE;
		}
		*relay = g_steal_pointer(&output);
		return TRUE;
	}
	if (*output_directory && !g_str_equal(output_directory, url_directory)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "Give either an output directory ('%s') or a file:// URL ('%s'), "
			    "not both",
			    output_directory, url);
		return FALSE;
	}
	g_free(*directory);
	*directory = g_steal_pointer(&url_directory);
	return TRUE;
}

/* As LTTng's session daemon: one identity (a uuid and the session's id)
 * for every trace of the tracing session, so that the relay shares their
 * trace chunks and a rotation or clear spans every user's trace. */
gboolean
tc_session_output_set_relay(TcSession *session, struct tc_consumer_relay_output *relay,
			    GError **error)
{
	g_autofree struct tc_consumer_relay_output *owned = relay;

	G_STATIC_ASSERT(sizeof(relay->sessiond_uuid) == 16);
	tc_random_uuid(relay->sessiond_uuid);
	relay->sessiond_session_id = session->id;
	if (!tc_relay_url_identify(relay, session->name,
				   session->creation_realtime_us / G_USEC_PER_SEC, error))
		return FALSE;
	session->relay = g_steal_pointer(&owned);
	return TRUE;
}

/* $HOME/tracectl-traces/<name>-<YYYYmmdd-HHMMSS> of uid. */
char *
tc_session_output_default_directory(uid_t uid, const char *name, GError **error)
{
	g_autoptr(GDateTime) now = g_date_time_new_now_local();
	g_autofree char *stamp = g_date_time_format(now, "%Y%m%d-%H%M%S");
	g_autofree char *leaf = g_strdup_printf("%s-%s", name, stamp);
	g_autofree char *home = tc_user_account_home(uid, NULL);

	if (home == NULL) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "uid %u has no home directory; give an output directory",
			    (unsigned)uid);
		return NULL;
	}
	return g_build_filename(home, "tracectl-traces", leaf, NULL);
}
