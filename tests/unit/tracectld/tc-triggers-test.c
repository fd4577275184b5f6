/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The trigger table: what AddTrigger accepts and refuses, ownership,
 * MaxTriggers, listing and removal (no evaluation thread). */
#include <glib.h>
#include <string.h>

#include "tc-error.h"
#include "tc-dbus-triggers.h"
#include "tc-triggers.h"
#include "tc-user-limits.h"

#define ALICE 1001
#define BOB 1002

static GVariant *
options(const char *session, const char *channel, double ratio, guint64 size)
{
	GVariantBuilder builder;

	g_variant_builder_init(&builder, G_VARIANT_TYPE_VARDICT);
	if (session)
		g_variant_builder_add(&builder, "{sv}", "session", g_variant_new_string(session));
	if (channel)
		g_variant_builder_add(&builder, "{sv}", "channel", g_variant_new_string(channel));
	if (ratio >= 0)
		g_variant_builder_add(&builder, "{sv}", "threshold-ratio",
				      g_variant_new_double(ratio));
	if (size)
		g_variant_builder_add(&builder, "{sv}", "threshold-size",
				      g_variant_new_uint64(size));
	return g_variant_ref_sink(g_variant_builder_end(&builder));
}

static void
expect_refused(const char *condition, GVariant *opts, const char *const *actions, gint code)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GVariant) owned = opts;

	g_assert_false(tc_dbus_triggers_add(ALICE, "t", condition, owned, actions, &error));
	g_assert_error(error, TC_ERROR, code);
}

static void
test_refusals(void)
{
	static const char *const notify[] = {"notify", NULL};
	static const char *const none[] = {NULL};
	static const char *const rotate_other[] = {"rotate-session:../x", NULL};
	static const char *const unknown[] = {"explode", NULL};
	/* Splits into no part at all: once read as a NULL action name. */
	static const char *const empty[] = {"notify", "", NULL};
	static const char *const notify_with_session[] = {"notify:other", NULL};
	const char *many[18];

	for (guint i = 0; i < 17; i++)
		many[i] = "notify";
	many[17] = NULL;

	expect_refused("channel-buffer-usage-gt", options("s", NULL, 0.5, 0), notify,
		       TC_ERROR_INVALID_ARGUMENT);
	expect_refused("channel-buffer-usage-ge", options(NULL, NULL, 0.5, 0), notify,
		       TC_ERROR_INVALID_ARGUMENT);
	expect_refused("channel-buffer-usage-ge", options("s", NULL, 1.5, 0), notify,
		       TC_ERROR_INVALID_ARGUMENT);
	expect_refused("channel-buffer-usage-ge", options("s", NULL, -1, 0), notify,
		       TC_ERROR_INVALID_ARGUMENT);
	expect_refused("session-consumed-size-ge", options("s", NULL, 0.5, 0), notify,
		       TC_ERROR_INVALID_ARGUMENT);
	expect_refused("session-consumed-size-ge", options("s", "c", -1, 4096), notify,
		       TC_ERROR_INVALID_ARGUMENT);
	expect_refused("session-rotation-completed", options("s", NULL, -1, 4096), notify,
		       TC_ERROR_INVALID_ARGUMENT);
	expect_refused("channel-buffer-usage-ge", options("../x", NULL, 0.5, 0), notify,
		       TC_ERROR_INVALID_ARGUMENT);
	expect_refused("channel-buffer-usage-ge", options("s", NULL, 0.5, 0), none,
		       TC_ERROR_INVALID_ARGUMENT);
	expect_refused("channel-buffer-usage-ge", options("s", NULL, 0.5, 0), unknown,
		       TC_ERROR_INVALID_ARGUMENT);
	expect_refused("channel-buffer-usage-ge", options("s", NULL, 0.5, 0), empty,
		       TC_ERROR_INVALID_ARGUMENT);
	/* One session listed, another used: a repeated option is refused. */
	expect_refused("channel-buffer-usage-ge",
		       g_variant_ref_sink(g_variant_new_parsed(
			   "{'session': <'s'>, 'session': <'t'>, 'threshold-ratio': <0.5>}")),
		       notify, TC_ERROR_INVALID_ARGUMENT);
	expect_refused("channel-buffer-usage-ge", options("s", NULL, 0.5, 0), notify_with_session,
		       TC_ERROR_INVALID_ARGUMENT);
	expect_refused("channel-buffer-usage-ge", options("s", NULL, 0.5, 0), rotate_other,
		       TC_ERROR_INVALID_ARGUMENT);
	expect_refused("channel-buffer-usage-ge", options("s", NULL, 0.5, 0),
		       (const char *const *)many, TC_ERROR_INVALID_ARGUMENT);
	g_autoptr(GVariant) listed = g_variant_ref_sink(tc_dbus_triggers_list(ALICE, TRUE));

	g_assert_cmpuint(g_variant_n_children(listed), ==, 0);
}

/* An event-rule-matches condition's options: "name", "filter", "loglevel". */
static GVariant *
rule_options(const char *name, const char *filter, gint32 loglevel, guint64 size)
{
	GVariantBuilder builder;

	g_variant_builder_init(&builder, G_VARIANT_TYPE_VARDICT);
	g_variant_builder_add(&builder, "{sv}", "session", g_variant_new_string("s"));
	if (name)
		g_variant_builder_add(&builder, "{sv}", "name", g_variant_new_string(name));
	if (filter)
		g_variant_builder_add(&builder, "{sv}", "filter", g_variant_new_string(filter));
	if (loglevel != G_MININT32)
		g_variant_builder_add(&builder, "{sv}", "loglevel", g_variant_new_int32(loglevel));
	if (size)
		g_variant_builder_add(&builder, "{sv}", "threshold-size",
				      g_variant_new_uint64(size));
	return g_variant_ref_sink(g_variant_builder_end(&builder));
}

static void
test_event_rule_refusals(void)
{
	static const char *const snapshot[] = {"snapshot-session", NULL};
	const char *condition = "event-rule-matches";

	/* No pattern, a pattern that is not one, a filter that does not
	 * parse, a log level out of range, a threshold it does not take. */
	expect_refused(condition, rule_options(NULL, "code == 1", G_MININT32, 0), snapshot,
		       TC_ERROR_INVALID_ARGUMENT);
	expect_refused(condition, rule_options("app:err\nor", NULL, G_MININT32, 0), snapshot,
		       TC_ERROR_INVALID_ARGUMENT);
	expect_refused(condition, rule_options("app:error*", "code == ", G_MININT32, 0),
		       snapshot, TC_ERROR_INVALID_ARGUMENT);
	expect_refused(condition, rule_options("app:error*", NULL, 15, 0), snapshot,
		       TC_ERROR_INVALID_ARGUMENT);
	expect_refused(condition, rule_options("app:error*", NULL, G_MININT32, 4096), snapshot,
		       TC_ERROR_INVALID_ARGUMENT);
	/* An event rule on another condition. */
	expect_refused("session-rotation-completed",
		       rule_options("app:error*", NULL, G_MININT32, 0), snapshot,
		       TC_ERROR_INVALID_ARGUMENT);
}

static void
test_ownership_and_limit(void)
{
	static const char *const actions[] = {"notify", "snapshot-session", "stop-session:other",
					      NULL};
	g_autoptr(GVariant) opts = options("flight", NULL, 0.5, 0);
	g_autoptr(GVariant) alice_list = NULL;
	g_autoptr(GVariant) all = NULL;
	g_autoptr(GError) error = NULL;
	const char *name, *condition;
	g_autofree const char **listed_actions = NULL;
	g_autoptr(GVariant) listed_options = NULL;
	guint32 owner;
	guint64 fired;
	double ratio;
	const char *channel;

	tc_user_limits_reset();
	tc_user_limits_set_default(TC_LIMIT_TRIGGERS, 2);
	g_assert_true(
	    tc_dbus_triggers_add(ALICE, "full", "channel-buffer-usage-ge", opts, actions, &error));
	g_assert_no_error(error);
	g_assert_false(
	    tc_dbus_triggers_add(ALICE, "full", "channel-buffer-usage-ge", opts, actions, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_ALREADY_EXISTS);
	g_clear_error(&error);
	/* Names are per owner. */
	g_assert_true(
	    tc_dbus_triggers_add(BOB, "full", "channel-buffer-usage-ge", opts, actions, NULL));
	g_assert_true(
	    tc_dbus_triggers_add(ALICE, "two", "channel-buffer-usage-le", opts, actions, NULL));
	g_assert_false(
	    tc_dbus_triggers_add(ALICE, "three", "channel-buffer-usage-le", opts, actions, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_LIMIT_EXCEEDED);
	g_assert_nonnull(strstr(error->message, "MaxTriggers"));
	g_clear_error(&error);

	alice_list = g_variant_ref_sink(tc_dbus_triggers_list(ALICE, FALSE));
	all = g_variant_ref_sink(tc_dbus_triggers_list(ALICE, TRUE));
	g_assert_cmpuint(g_variant_n_children(alice_list), ==, 2);
	g_assert_cmpuint(g_variant_n_children(all), ==, 3);
	g_variant_get_child(alice_list, 0, "(&su&s@a{sv}^a&st)", &name, &owner, &condition,
			    &listed_options, &listed_actions, &fired);
	g_assert_cmpstr(name, ==, "full");
	g_assert_cmpuint(owner, ==, ALICE);
	g_assert_cmpstr(condition, ==, "channel-buffer-usage-ge");
	g_assert_true(g_variant_lookup(listed_options, "threshold-ratio", "d", &ratio));
	g_assert_cmpfloat(ratio, ==, 0.5);
	g_assert_true(g_variant_lookup(listed_options, "channel", "&s", &channel));
	g_assert_cmpstr(channel, ==, "channel0");
	g_assert_cmpstrv(listed_actions, actions);
	g_assert_cmpuint(fired, ==, 0);

	/* Bob cannot remove alice's. */
	g_assert_false(tc_triggers_remove(BOB, "two", &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_NOT_FOUND);
	g_clear_error(&error);
	g_assert_true(tc_triggers_remove(ALICE, "two", NULL));
	g_assert_true(
	    tc_dbus_triggers_add(ALICE, "three", "channel-buffer-usage-le", opts, actions, NULL));
	g_assert_true(tc_triggers_remove(ALICE, "full", NULL));
	g_assert_true(tc_triggers_remove(ALICE, "three", NULL));
	g_assert_true(tc_triggers_remove(BOB, "full", NULL));
	g_variant_unref(g_variant_ref_sink(tc_dbus_triggers_list(0, TRUE)));
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/triggers/refusals", test_refusals);
	g_test_add_func("/tracectl/triggers/event-rule-refusals", test_event_rule_refusals);
	g_test_add_func("/tracectl/triggers/ownership-and-limit", test_ownership_and_limit);
	return g_test_run();
}
