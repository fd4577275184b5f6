/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * EnableEventWithOptions' option dictionary as a TcEventRuleSpec
 * (tc-dbus-event-rule.h).
 */
#define G_LOG_DOMAIN "tracectld-bus"

#include "tc-dbus-event-rule.h"

#include "tc-agent-rule.h"
#include "tc-error.h"
#include "tc-kernel-event-rule.h"
#include "tc-session-kernel.h"

/* The spec's strings point into the option values, which the reader
 * holds until it is cleared, as it holds the exclusions' array. */
typedef struct {
	TcEventRuleSpec spec;
	const char **exclusions;
	GPtrArray *values; /* GVariant * */
} SpecReader;

static void
spec_reader_clear(SpecReader *reader)
{
	g_clear_pointer(&reader->exclusions, g_free);
	g_clear_pointer(&reader->values, g_ptr_array_unref);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(SpecReader, spec_reader_clear)

/* One option into the spec; the reader holds value. */
static gboolean
read_option(SpecReader *reader, const char *key, GVariant *value, GError **error)
{
	if (g_str_equal(key, "loglevel") && g_variant_is_of_type(value, G_VARIANT_TYPE_INT32)) {
		reader->spec.has_loglevel = TRUE;
		reader->spec.loglevel = g_variant_get_int32(value);
		return TRUE;
	}
	if (g_str_equal(key, "loglevel-only") &&
	    g_variant_is_of_type(value, G_VARIANT_TYPE_BOOLEAN)) {
		reader->spec.loglevel_only = g_variant_get_boolean(value);
		return TRUE;
	}
	if (g_str_equal(key, "exclude") &&
	    g_variant_is_of_type(value, G_VARIANT_TYPE_STRING_ARRAY)) {
		g_free(reader->exclusions);
		reader->exclusions = g_variant_get_strv(value, NULL);
		reader->spec.exclusions = reader->exclusions;
		return TRUE;
	}
	if (g_str_equal(key, "filter") && g_variant_is_of_type(value, G_VARIANT_TYPE_STRING)) {
		reader->spec.filter = g_variant_get_string(value, NULL);
		return TRUE;
	}
	g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
		    "Unknown event option '%s' of type '%s' (known: loglevel i, loglevel-only b, "
		    "exclude as, filter s)",
		    key, g_variant_get_type_string(value));
	return FALSE;
}

/* A dictionary on the bus may repeat a key; a rule takes each option
 * once, as AddTrigger's options do, so that what is checked is what is
 * used. */
static gboolean
check_unique_keys(GVariant *options, GError **error)
{
	g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
	GVariantIter iter;
	const char *key;

	g_variant_iter_init(&iter, options);
	while (g_variant_iter_next(&iter, "{&s*}", &key, NULL))
		if (!g_hash_table_add(seen, (gpointer)key)) {
			g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				    "Event option '%.64s' is given twice", key);
			return FALSE;
		}
	return TRUE;
}

static gboolean
read_options(SpecReader *reader, const char *pattern, GVariant *options, GError **error)
{
	GVariantIter iter;
	const char *key;
	GVariant *value;

	reader->spec = (TcEventRuleSpec){.pattern = pattern, .loglevel = -1};
	reader->values = g_ptr_array_new_with_free_func((GDestroyNotify)g_variant_unref);
	g_variant_iter_init(&iter, options);
	while (g_variant_iter_next(&iter, "{&sv}", &key, &value)) {
		g_ptr_array_add(reader->values, value);
		if (!read_option(reader, key, value, error))
			return FALSE;
	}
	return check_unique_keys(options, error);
}

TcEventRule *
tc_dbus_event_rule_new(const char *pattern, GVariant *options, GError **error)
{
	g_auto(SpecReader) reader = {0};

	if (!read_options(&reader, pattern, options, error))
		return NULL;
	return tc_event_rule_new_from_spec(&reader.spec, error);
}

TcEventRule *
tc_dbus_event_rule_new_agent(int domain, const char *logger, GVariant *options, GError **error)
{
	g_auto(SpecReader) reader = {0};

	if (options == NULL) {
		TcEventRuleSpec spec = {.pattern = logger, .loglevel = -1};

		return tc_agent_rule_new(domain, &spec, error);
	}
	if (!read_options(&reader, logger, options, error))
		return NULL;
	return tc_agent_rule_new(domain, &reader.spec, error);
}

gboolean
tc_dbus_event_rule_check_kernel(const char *pattern, GVariant *options, char **tracefs_filter,
				GError **error)
{
	g_auto(SpecReader) reader = {0};

	*tracefs_filter = NULL;
	/* The pattern first, as the kernel's own checks take it. */
	if (!tc_session_kernel_validate_event(pattern, error) ||
	    !read_options(&reader, pattern, options, error))
		return FALSE;
	return tc_kernel_event_rule_check(&reader.spec, tracefs_filter, error);
}
