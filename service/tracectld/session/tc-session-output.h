/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-consumer-abi.h"
#include "tc-session.h"

/*
 * Where a new session's trace goes, however the session comes to be:
 * CreateSessionWithOptions, or a session file loaded at start. Both take
 * this one path, so a file sets up exactly what its owner's own call
 * would. The service only checks text here: the owner's consumer opens
 * the relay's connections, with the owner's rights.
 */

typedef struct {
	gboolean snapshot;
	const char *url, *ctrl_url, *data_url; /* borrowed; NULL: not given */
	gboolean has_live_timer;
	guint32 live_timer_us;
} TcSessionOutputOptions;

/*
 * The output directory (output_directory, "" for the owner's default, or
 * a file:// URL's) in *directory, or a relay (*relay set, *directory
 * then output_directory) from the URLs of options. A live timer alone
 * streams to the relay on this machine, as `lttng create --live` does.
 */
gboolean tc_session_output_resolve(const TcSessionOutputOptions *options,
				   const char *output_directory, char **directory,
				   struct tc_consumer_relay_output **relay, GError **error);

/* $HOME/tracectl-traces/<name>-<date>-<time> of uid: where a session
 * created without an output directory records, whichever front end
 * created it. */
char *tc_session_output_default_directory(uid_t uid, const char *name, GError **error);

/* Makes relay (taken, freed on failure) the output of session, not yet
 * created: the relay files it under this machine's name and the
 * session's, and every per-user trace of it shares its identity. */
gboolean tc_session_output_set_relay(TcSession *session, struct tc_consumer_relay_output *relay,
				     GError **error);
