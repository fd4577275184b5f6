/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* EnableEventWithOptions' options read by bus/ into a TcEventRuleSpec and
 * checked below it: what is taken, and each refusal's message. */
#include "tc-dbus-event-rule.h"

#include "tc-error.h"

static GVariant *
options(const char *text)
{
	g_autoptr(GError) error = NULL;
	GVariant *value = g_variant_parse(G_VARIANT_TYPE_VARDICT, text, NULL, NULL, &error);

	g_assert_no_error(error);
	return value;
}

static void
assert_refused(const char *pattern, const char *text, const char *message)
{
	g_autoptr(GVariant) dict = options(text);
	g_autoptr(GError) error = NULL;
	g_autoptr(TcEventRule) rule = tc_dbus_event_rule_new(pattern, dict, &error);

	g_assert_null(rule);
	g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
	g_assert_cmpstr(error->message, ==, message);
}

static void
test_taken(void)
{
	g_autoptr(GVariant) dict = options("{'loglevel': <int32 4>, 'loglevel-only': <true>, "
					   "'exclude': <['app:noisy*', 'app:x']>, "
					   "'filter': <'seq > 1'>}");
	g_autoptr(GError) error = NULL;
	g_autoptr(TcEventRule) rule = tc_dbus_event_rule_new("app:*", dict, &error);
	g_autofree char *described = NULL;

	g_assert_no_error(error);
	described = tc_event_rule_describe(rule);
	g_assert_cmpstr(described, ==,
			"app:* loglevel == 4 exclude app:noisy*,app:x filter 'seq > 1'");
}

static void
test_empty(void)
{
	g_autoptr(GVariant) dict = options("@a{sv} {}");
	g_autoptr(GError) error = NULL;
	g_autoptr(TcEventRule) rule = tc_dbus_event_rule_new("app:ev", dict, &error);

	g_assert_no_error(error);
	g_assert_cmpint(rule->loglevel, ==, -1);
	g_assert_null(rule->exclusions[0]);
	g_assert_null(rule->filter);
}

static void
test_refused(void)
{
	assert_refused("app:*", "{'colour': <'red'>}",
		       "Unknown event option 'colour' of type 's' (known: loglevel i, "
		       "loglevel-only b, exclude as, filter s)");
	assert_refused("app:*", "{'loglevel': <'3'>}",
		       "Unknown event option 'loglevel' of type 's' (known: loglevel i, "
		       "loglevel-only b, exclude as, filter s)");
	/* -1 is no "any level" on the bus: it is out of range. */
	assert_refused("app:*", "{'loglevel': <int32 -1>}", "Log level -1 is not in 0..14");
	assert_refused("app:*", "{'loglevel': <int32 15>}", "Log level 15 is not in 0..14");
	assert_refused("app:*", "{'loglevel-only': <true>}", "'loglevel-only' needs a 'loglevel'");
	/* What is checked is what is used: an option given twice, even a
	 * valid value after one out of range, is refused. */
	assert_refused("app:*", "{'loglevel': <int32 99>, 'loglevel': <int32 3>}",
		       "Event option 'loglevel' is given twice");
	assert_refused("app:ev", "{'exclude': <['app:x']>}",
		       "Exclusions need a pattern with '*', not 'app:ev'");
	assert_refused("app:*", "{'filter': <'seq > 1 && (seq < )'>}",
		       "filter: unexpected ')' at column 19");
}

/* Kernel events: the same reader, then the kernel's own refusals. */
static void
test_kernel(void)
{
	g_autoptr(GVariant) level = options("{'loglevel': <int32 2>}");
	g_autoptr(GVariant) filter = options("{'filter': <'prev_pid == 1'>}");
	g_autoptr(GVariant) unknown = options("{'colour': <'red'>}");
	g_autoptr(GError) error = NULL;
	g_autofree char *tracefs = NULL;

	g_assert_false(
	    tc_dbus_event_rule_check_kernel("sched:sched_switch", level, &tracefs, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED);
	g_clear_error(&error);
	g_assert_false(
	    tc_dbus_event_rule_check_kernel("sched:sched_switch", unknown, &tracefs, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
	g_clear_error(&error);
	/* A bad pattern is named before a bad option, as the kernel checks. */
	g_assert_false(tc_dbus_event_rule_check_kernel("sched:sched switch", unknown, &tracefs,
							&error));
	g_assert_nonnull(error);
	g_assert_false(g_str_has_prefix(error->message, "Unknown event option"));
	g_clear_error(&error);
	g_assert_true(
	    tc_dbus_event_rule_check_kernel("sched:sched_switch", filter, &tracefs, &error));
	g_assert_no_error(error);
	g_assert_cmpstr(tracefs, ==, "prev_pid == 1");
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/dbus-event-rule/taken", test_taken);
	g_test_add_func("/tracectl/dbus-event-rule/empty", test_empty);
	g_test_add_func("/tracectl/dbus-event-rule/refused", test_refused);
	g_test_add_func("/tracectl/dbus-event-rule/kernel", test_kernel);
	return g_test_run();
}
