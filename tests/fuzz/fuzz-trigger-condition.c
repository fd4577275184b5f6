/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the trigger conditions and actions a user gives tracectld. The
 * service keeps no trigger on disk: AddTrigger(name, condition, options,
 * actions) over D-Bus is the only way in, so the input is the call's
 * arguments as they cross the bus, the GVariant of type (ssa{sv}as) in
 * its serialised form, taken as GDBus hands it to a handler (in normal
 * form), unpacked as tc-dbus-triggers.c does and given to
 * tc_dbus_triggers_add(), which parses the options there and hands the
 * trigger to tc-triggers.c. tc-dbus-triggers.c, tc-triggers.c,
 * tc-validate.c, tc-event-rule.c and tc-filter.c (an event rule's filter)
 * are built into the program with AddressSanitizer and UBSan; the rest
 * comes from the daemon's library.
 *
 * What must hold, beside no error under the sanitizers and no critical:
 * - a trigger taken is listed (ListTriggers) with its name, condition,
 *   session and actions as given, and a second one of the same name is
 *   refused with AlreadyExists; a refusal has an error of the service's
 *   domain;
 * - what the listing shows of a trigger is accepted back as a new
 *   trigger, and listed the same: a trigger saved from the listing and
 *   added again is the same trigger;
 * - the rules of tc-triggers.h, written out again here: a condition of
 *   the five, one to 16 actions of the five, "notify" with no session.
 *
 * Built with libFuzzer, from the top of the source tree once `build` is
 * built (Debian's clang):
 *
 *   clang -g -O1 -DFUZZ_LIBFUZZER -fsanitize=fuzzer,address,undefined \
 *     -Itests/fuzz $(for d in base core consumer kernel apps session bus; do \
 *     echo -Iservice/tracectld/$d; done) -Icommon/abi -Icommon/ringbuffer \
 *     -Ibuild -Ibuild/data -D_GNU_SOURCE $(pkg-config --cflags \
 *     glib-2.0 gio-unix-2.0 polkit-gobject-1 liburcu-cds) \
 *     tests/fuzz/fuzz-trigger-condition.c \
 *     service/tracectld/bus/tc-dbus-triggers.c \
 *     service/tracectld/session/tc-triggers.c \
 *     service/tracectld/base/tc-validate.c service/tracectld/core/tc-event-rule.c \
 *     service/tracectld/base/tc-filter.c build/data/tc-dbus-generated.c \
 *     build/service/tracectld/libtracectld.a build/common/libtc-session-file.a \
 *     build/common/libtc-util.a build/common/libtc-rb.a $(pkg-config --libs \
 *     glib-2.0 gio-unix-2.0 polkit-gobject-1 liburcu-cds liburcu libsystemd \
 *     json-glib-1.0 libxml-2.0) -lm -o fuzz-trigger-condition
 *   ./fuzz-trigger-condition -max_len=1024 -detect_leaks=0 \
 *     tests/fuzz/corpus/fuzz-trigger-condition
 *
 * (-detect_leaks=0: GLib's caches allocate on the first use of a type,
 * which makes libFuzzer check for leaks after nearly every input.)
 *
 * Otherwise fuzz-driver.c's main() mutates the seeds built below:
 * `fuzz-trigger-condition --seed N --runs M`.
 */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-driver.h"
#include "tc-error.h"
#include "tc-registry.h"
#include "tc-dbus-triggers.h"
#include "tc-triggers.h"
#include "tc-user-limits.h"

#define OWNER 1001u
#define ACTIONS_MAX 16u
#define SEEDS_MAX 24u

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		fprintf(stderr, "fuzz-trigger-condition: " __VA_ARGS__);                           \
		fprintf(stderr, "\n");                                                             \
		abort();                                                                           \
	} while (0)

enum outcome {
	NOT_NORMAL,
	REFUSED,
	ADDED,
	EVENT_RULE_ADDED,
	ADDED_BACK,
	OUTCOMES,
};
static const char *const outcome_names[OUTCOMES] = {
    "not in normal form", "refused", "added", "event rule added", "added back",
};
static unsigned long long outcomes[OUTCOMES];

/* tc-triggers.h's rules, written again. */
static const char *const conditions[] = {
    "channel-buffer-usage-ge",	  "channel-buffer-usage-le", "session-consumed-size-ge",
    "session-rotation-completed", "event-rule-matches",
};
static const char *const actions[] = {
    "notify", "start-session", "stop-session", "snapshot-session", "rotate-session",
};

static gboolean
in_list(const char *text, const char *const *list, size_t n, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(list[i]) == len && strncmp(text, list[i], len) == 0)
			return TRUE;
	return FALSE;
}

static gboolean
rule_actions(const char *const *given)
{
	guint n = g_strv_length((char **)given);

	if (n == 0 || n > ACTIONS_MAX)
		return FALSE;
	for (; *given; given++) {
		const char *colon = strchr(*given, ':');
		size_t len = colon ? (size_t)(colon - *given) : strlen(*given);

		if (!in_list(*given, actions, G_N_ELEMENTS(actions), len) ||
		    (colon && len == strlen("notify")))
			return FALSE;
	}
	return TRUE;
}

/* The listing's entry of name, or NULL. */
static GVariant *
listed(const char *name)
{
	g_autoptr(GVariant) list = g_variant_ref_sink(tc_dbus_triggers_list(OWNER, FALSE));

	for (gsize i = 0; i < g_variant_n_children(list); i++) {
		GVariant *entry = g_variant_get_child_value(list, i);
		const char *entry_name;

		g_variant_get_child(entry, 0, "&s", &entry_name);
		if (g_str_equal(entry_name, name))
			return entry;
		g_variant_unref(entry);
	}
	return NULL;
}

/* What the listing shows of name: as given, and the same as entry when
 * entry is not NULL (but for the name). */
static void
check_listed(const char *name, const char *condition, GVariant *options, const char *const *given,
	     GVariant *entry)
{
	g_autoptr(GVariant) mine = listed(name);
	g_autoptr(GVariant) listed_options = NULL, listed_actions = NULL;
	g_autofree const char **strv = NULL;
	const char *listed_condition, *session = NULL, *listed_session = NULL;
	guint32 owner;

	if (mine == NULL)
		FAIL("trigger '%s' was added but is not listed", name);
	g_variant_get(mine, "(&su&s@a{sv}@ast)", NULL, &owner, &listed_condition, &listed_options,
		      &listed_actions, NULL);
	strv = g_variant_get_strv(listed_actions, NULL);
	g_variant_lookup(options, "session", "&s", &session);
	g_variant_lookup(listed_options, "session", "&s", &listed_session);
	if (owner != OWNER || !g_str_equal(listed_condition, condition) ||
	    g_strcmp0(session, listed_session) != 0 ||
	    !g_strv_equal((const char *const *)strv, given))
		FAIL("trigger '%s' is not listed as it was given", name);
	if (entry) {
		g_autoptr(GVariant) entry_options = g_variant_get_child_value(entry, 3);
		g_autoptr(GVariant) entry_actions = g_variant_get_child_value(entry, 4);

		if (!g_variant_equal(entry_options, listed_options) ||
		    !g_variant_equal(entry_actions, listed_actions))
			FAIL("trigger '%s' added back from its listing is listed otherwise", name);
	}
}

/* Adds back what the listing shows of name, under another name. */
static void
add_back(const char *name)
{
	g_autoptr(GVariant) entry = listed(name);
	g_autoptr(GVariant) options = NULL;
	g_autofree const char **given = NULL;
	g_autoptr(GError) error = NULL;
	const char *condition;

	g_variant_get(entry, "(&su&s@a{sv}^a&st)", NULL, NULL, &condition, &options, &given, NULL);
	if (!tc_dbus_triggers_add(OWNER, "added-back", condition, options, given, &error))
		FAIL("trigger '%s' as listed is refused: %s", name, error->message);
	check_listed("added-back", condition, options, given, entry);
	if (!tc_triggers_remove(OWNER, "added-back", NULL))
		FAIL("cannot remove the trigger added back");
	outcomes[ADDED_BACK]++;
}

static void
try_add(GVariant *parameters)
{
	g_autoptr(GVariant) options = NULL;
	g_autofree const char **given = NULL;
	g_autoptr(GError) error = NULL;
	const char *name, *condition;

	/* As tc-dbus-triggers.c unpacks the call. */
	g_variant_get(parameters, "(&s&s@a{sv}^a&s)", &name, &condition, &options, &given);
	if (!tc_dbus_triggers_add(OWNER, name, condition, options, given, &error)) {
		if (error == NULL || error->domain != TC_ERROR)
			FAIL("a refusal without the service's error");
		outcomes[REFUSED]++;
		return;
	}
	if (!in_list(condition, conditions, G_N_ELEMENTS(conditions), strlen(condition)) ||
	    !rule_actions(given))
		FAIL("trigger '%s' (%s) was taken against tc-triggers.h's rules", name, condition);
	outcomes[ADDED]++;
	outcomes[EVENT_RULE_ADDED] += g_str_equal(condition, "event-rule-matches");
	check_listed(name, condition, options, given, NULL);
	g_clear_error(&error);
	if (tc_dbus_triggers_add(OWNER, name, condition, options, given, &error) ||
	    !g_error_matches(error, TC_ERROR, TC_ERROR_ALREADY_EXISTS))
		FAIL("trigger '%s' was added twice", name);
	if (!g_str_equal(name, "added-back"))
		add_back(name);
	if (!tc_triggers_remove(OWNER, name, NULL) || listed(name) != NULL)
		FAIL("trigger '%s' cannot be removed", name);
}

/* The service logs every trigger it adds: keep the output for failures. */
static GLogWriterOutput
quiet_writer(GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer data)
{
	if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))
		return g_log_writer_standard_streams(level, fields, n_fields, data);
	return G_LOG_WRITER_HANDLED;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static gboolean is_ready;
	/* GVariant wants its data aligned: a D-Bus message body is. */
	g_autofree void *copy = g_memdup2(data, size);
	g_autoptr(GVariant) bytes = NULL, parameters = NULL;

	if (!is_ready) {
		g_log_set_writer_func(quiet_writer, NULL, NULL);
		g_log_set_always_fatal(G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
		tc_user_limits_set_default(TC_LIMIT_TRIGGERS, 4);
		/* An event rule goes to the owner's applications: none here. */
		rcu_register_thread();
		tc_registry_init();
		is_ready = TRUE;
	}
	bytes = g_variant_ref_sink(
	    g_variant_new_from_data(G_VARIANT_TYPE("(ssa{sv}as)"), copy, size, FALSE, NULL, NULL));
	outcomes[NOT_NORMAL] += !g_variant_is_normal_form(bytes);
	parameters = g_variant_get_normal_form(bytes); /* a full reference */
	try_add(parameters);
	return 0;
}

#ifndef FUZZ_LIBFUZZER
static struct fuzz_seed seeds[SEEDS_MAX];
static size_t n_seeds;

static void
add_seed(const char *name, const char *condition, const char *options_text,
	 const char *const *given)
{
	g_autoptr(GError) error = NULL;
	GVariant *options =
	    g_variant_parse(G_VARIANT_TYPE_VARDICT, options_text, NULL, NULL, &error);
	g_autoptr(GVariant) call = NULL;

	if (options == NULL)
		FAIL("seed options %s: %s", options_text, error->message);
	call = g_variant_ref_sink(g_variant_new("(ss@a{sv}^as)", name, condition, options, given));
	seeds[n_seeds].size = g_variant_get_size(call);
	seeds[n_seeds].data = g_memdup2(g_variant_get_data(call), seeds[n_seeds].size);
	n_seeds++;
}

/* What `tracectl add-trigger` sends, as in docs and tests, and a few
 * refusals. */
__attribute__((constructor)) static void
make_seeds(void)
{
	static const char *const notify[] = {"notify", NULL};
	static const char *const snapshot[] = {"snapshot-session", "notify", NULL};
	static const char *const stop_other[] = {"stop-session:other", "start-session", NULL};
	static const char *const rotate[] = {"rotate-session", NULL};
	static const char *const bad[] = {"notify:x", NULL};
	static const char *const none[] = {NULL};

	add_seed("full", "channel-buffer-usage-ge",
		 "{'session': <'flight'>, 'channel': <'channel0'>, 'threshold-ratio': <0.75>}",
		 snapshot);
	add_seed("low", "channel-buffer-usage-le",
		 "{'session': <'s'>, 'threshold-size': <uint64 4096>}", notify);
	add_seed("big", "session-consumed-size-ge",
		 "{'session': <'s'>, 'threshold-size': <uint64 1048576>}", stop_other);
	add_seed("rotated", "session-rotation-completed", "{'session': <'s'>}", notify);
	add_seed(
	    "err", "event-rule-matches",
	    "{'session': <'s'>, 'name': <'app:error*'>, 'filter': <'code > 3 && msg == \"x*\"'>,"
	    " 'loglevel': <int32 3>, 'loglevel-only': <true>}",
	    snapshot);
	add_seed("e2", "event-rule-matches", "{'session': <'s'>, 'name': <'*'>}", notify);
	add_seed("r", "channel-buffer-usage-ge", "{'session': <'s'>, 'threshold-ratio': <0.5>}",
		 rotate);
	add_seed("n", "channel-buffer-usage-ge", "{'session': <'s'>, 'threshold-ratio': <1.5>}",
		 bad);
	add_seed("x", "session-rotation-completed",
		 "{'session': <'s'>, 'channel': <'c'>, 'threshold-size': <uint64 1>}", none);
	add_seed("../t", "nope", "{'name': <int32 1>, 'session': <uint32 2>}", notify);
}

const struct fuzz_harness fuzz_harness = {
    .seeds = seeds,
    .nr_seeds = 10,
    .input_max = 1024,
    .outcome_names = outcome_names,
    .outcomes = outcomes,
    .nr_outcomes = OUTCOMES,
};
#endif
