/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-unit"

#include "tc-unit.h"

#include <gio/gio.h>
#include <string.h>
#include <systemd/sd-daemon.h>

#include "tc-error.h"

#define UNIT_NAME_MAX 255 /* systemd's UNIT_NAME_MAX less the NUL */
#define SYSTEMD_NAME "org.freedesktop.systemd1"
#define SYSTEMD_PATH "/org/freedesktop/systemd1"
#define SYSTEMD_CALL_TIMEOUT_MS 5000

/* The unit types whose units have a control group, and the interface that
 * carries their ControlGroup property. */
static const struct {
	const char *suffix;
	const char *interface;
} unit_types[] = {
	{".service", "org.freedesktop.systemd1.Service"},
	{".scope", "org.freedesktop.systemd1.Scope"},
	{".slice", "org.freedesktop.systemd1.Slice"},
	{".socket", "org.freedesktop.systemd1.Socket"},
};

void
tc_unit_tracked_free(TcTrackedUnit *unit)
{
	if (unit == NULL)
		return;
	g_free(unit->name);
	g_free(unit->cgroup);
	g_free(unit);
}

static const char *
unit_interface(const char *name)
{
	for (guint i = 0; i < G_N_ELEMENTS(unit_types); i++)
		if (g_str_has_suffix(name, unit_types[i].suffix) &&
		    strlen(name) > strlen(unit_types[i].suffix))
			return unit_types[i].interface;
	return NULL;
}

static gboolean
refuse_name(const char *name, const char *why, GError **error)
{
	g_autofree char *shown = g_strescape(name, NULL);

	if (strlen(shown) > 64)
		strcpy(shown + 61, "...");
	g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT, "'%s' is not a unit name: %s",
		    shown, why);
	return FALSE;
}

gboolean
tc_unit_name_check(const char *name, GError **error)
{
	gsize length = strlen(name);
	const char *at = strchr(name, '@');

	if (length == 0 || length > UNIT_NAME_MAX)
		return refuse_name(name, "a unit name has 1 to 255 characters", error);
	for (const char *c = name; *c; c++)
		if (!g_ascii_isalnum(*c) && !strchr(":_.@-\\", *c))
			return refuse_name(name,
					   "only letters, digits and ':_.@-\\' (no wildcard, no "
					   "path)",
					   error);
	if (strstr(name, "..") || name[0] == '.' || name[0] == '@')
		return refuse_name(name, "no '..', and no '.' or '@' first", error);
	if (unit_interface(name) == NULL)
		return refuse_name(name, "the unit types with processes are .service, .scope, "
				   ".slice and .socket", error);
	if (at && (strchr(at + 1, '@') || at[1] == '.'))
		return refuse_name(name, "one '@', and a template needs an instance", error);
	return TRUE;
}

gboolean
tc_unit_cgroup_contains(const char *unit_cgroup, const char *group)
{
	gsize length = strlen(unit_cgroup);

	if (group == NULL || length == 0 || g_str_equal(unit_cgroup, "/"))
		return FALSE;
	return strncmp(group, unit_cgroup, length) == 0 &&
	       (group[length] == '\0' || group[length] == '/');
}

char *
tc_unit_parse_proc_cgroup(const char *contents)
{
	g_auto(GStrv) lines = g_strsplit(contents ? contents : "", "\n", 0);
	const char *named = NULL;

	for (guint i = 0; lines[i]; i++) {
		if (g_str_has_prefix(lines[i], "0::/"))
			return g_strdup(lines[i] + 3);
		if (named == NULL && strstr(lines[i], ":name=systemd:/"))
			named = strstr(lines[i], ":name=systemd:/") + strlen(":name=systemd:");
	}
	return g_strdup(named);
}

/* Whether systemd is the manager and answers on the system bus. */
static gboolean
systemd_on_bus(GDBusConnection *bus, GError **error)
{
	g_autoptr(GVariant) reply = NULL;
	gboolean has_owner = FALSE;

	if (sd_booted() > 0) {
		reply = g_dbus_connection_call_sync(
			bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
			"NameHasOwner", g_variant_new("(s)", SYSTEMD_NAME), G_VARIANT_TYPE("(b)"),
			G_DBUS_CALL_FLAGS_NONE, SYSTEMD_CALL_TIMEOUT_MS, NULL, NULL);
		if (reply)
			g_variant_get(reply, "(b)", &has_owner);
	}
	if (!has_owner)
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
			    "Delegation by unit needs systemd: no systemd manager answers on "
			    "the system bus as %s",
			    SYSTEMD_NAME);
	return has_owner;
}

static char *
unit_object_path(GDBusConnection *bus, const char *unit, GError **error)
{
	g_autoptr(GError) local_error = NULL;
	g_autoptr(GVariant) reply = g_dbus_connection_call_sync(
		bus, SYSTEMD_NAME, SYSTEMD_PATH, "org.freedesktop.systemd1.Manager", "GetUnit",
		g_variant_new("(s)", unit), G_VARIANT_TYPE("(o)"), G_DBUS_CALL_FLAGS_NO_AUTO_START,
		SYSTEMD_CALL_TIMEOUT_MS, NULL, &local_error);
	char *path = NULL;

	if (reply == NULL) {
		g_autofree char *remote = g_dbus_error_get_remote_error(local_error);

		if (g_strcmp0(remote, "org.freedesktop.systemd1.NoSuchUnit") == 0)
			g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND,
				    "Unit '%s' is not loaded: start it before tracking it", unit);
		else
			g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
				    "systemd did not find unit '%s': %s", unit,
				    local_error->message);
		return NULL;
	}
	g_variant_get(reply, "(o)", &path);
	return path;
}

char *
tc_unit_resolve_cgroup(const char *unit, GError **error)
{
	g_autoptr(GDBusConnection) bus = g_bus_get_sync(G_BUS_TYPE_SYSTEM, NULL, error);
	g_autofree char *path = NULL;
	g_autoptr(GVariant) reply = NULL;
	g_autoptr(GVariant) value = NULL;
	const char *cgroup;

	if (bus == NULL || !systemd_on_bus(bus, error))
		return NULL;
	path = unit_object_path(bus, unit, error);
	if (path == NULL)
		return NULL;
	reply = g_dbus_connection_call_sync(
		bus, SYSTEMD_NAME, path, "org.freedesktop.DBus.Properties", "Get",
		g_variant_new("(ss)", unit_interface(unit), "ControlGroup"), G_VARIANT_TYPE("(v)"),
		G_DBUS_CALL_FLAGS_NO_AUTO_START, SYSTEMD_CALL_TIMEOUT_MS, NULL, error);
	if (reply == NULL) {
		g_prefix_error(error, "Cannot read the control group of unit '%s': ", unit);
		return NULL;
	}
	g_variant_get(reply, "(v)", &value);
	if (!g_variant_is_of_type(value, G_VARIANT_TYPE_STRING) ||
	    g_variant_get_string(value, NULL)[0] != '/') {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE,
			    "Unit '%s' has no control group: it is not running", unit);
		return NULL;
	}
	cgroup = g_variant_get_string(value, NULL);
	if (g_str_equal(cgroup, "/")) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "Unit '%s' is the root control group, the whole machine: that is a "
			    "session of root, not a delegation",
			    unit);
		return NULL;
	}
	return g_strdup(cgroup);
}
