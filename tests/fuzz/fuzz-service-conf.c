/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes tracectld.conf as the service reads it at start
 * (tc_user_limits_load(), through tc_user_limits_load_data() on the
 * contents): GLib's key file syntax, then tracectl's groups ([Limits],
 * [User NAME], [Group NAME]), keys and values (counts and sizes with K, M,
 * G or T, "infinity"). The file is the administrator's, but a mistake in
 * it must be refused by name, never crash the service or give a limit
 * other than the one written.
 *
 * What must hold whatever the input: no access outside a buffer, no
 * undefined behaviour, no leak (the sanitizers abort on the first); a
 * refusal has a message naming the file; a file taken leaves every limit
 * resolvable.
 *
 * Seeds: tests/fuzz/corpus/fuzz-service-conf (the manual's example and
 * the shapes of its values). Outcomes counted: parsed, refused.
 */
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "fuzz-driver.h"
#include "tc-user-limits.h"

#define NAME "tracectld.conf"

enum outcome {
	PARSED,
	REFUSED,
	OUTCOMES,
};

/* Named by the standalone driver only. */
static const char *const outcome_names[OUTCOMES] __attribute__((unused)) = {"parsed", "refused"};
static unsigned long long outcomes[OUTCOMES];

/* Warnings of names that are no user of the system are expected; a
 * critical is a bug. */
static GLogWriterOutput
quiet_writer(GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer data)
{
	(void)fields;
	(void)n_fields;
	(void)data;
	if (level & (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_ERROR))
		abort();
	return G_LOG_WRITER_HANDLED;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static gsize writer_set;
	g_autoptr(GError) error = NULL;

	if (g_once_init_enter(&writer_set)) {
		g_log_set_writer_func(quiet_writer, NULL, NULL);
		g_once_init_leave(&writer_set, 1);
	}
	/* Each input is a service's first load: no option given before. */
	tc_user_limits_reset();
	if (!tc_user_limits_load_data((const char *)data, size, NAME, &error)) {
		if (!error || !g_str_has_prefix(error->message, NAME ": "))
			abort();
		outcomes[REFUSED]++;
		return 0;
	}
	if (error)
		abort();
	/* A uid with no account, once: the password database's reads would
	 * be most of a run. */
	(void)tc_user_limits_get(4000000000u, TC_LIMIT_SESSIONS);
	outcomes[PARSED]++;
	return 0;
}

#ifndef FUZZ_LIBFUZZER
/* No built-in seeds: the suite gives the corpus directory (--seeds). */
const struct fuzz_harness fuzz_harness = {
    .seeds = NULL,
    .nr_seeds = 0,
    .input_max = 4096,
    .outcome_names = outcome_names,
    .outcomes = outcomes,
    .nr_outcomes = OUTCOMES,
};
#endif
