/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The service's objects as the CLI sees them: the manager, and a session
 * as its path and a copy of its properties (from DescribeSession or one
 * GetAll), read through accessors. A command lives for a few calls, so
 * nothing follows changes: what was read is what is printed.
 */
#include <string.h>

#include "tc-client-interface.h"
#include "tc-client.h"

struct _TcClientSession {
	TcClientObject object; /* first: a session is a call target */
	char *found_name;      /* the name it was found by */
	GHashTable *properties; /* name -> GVariant, empty until loaded */
	char **units;          /* TrackedUnits as a strv, made when asked */
};

TcClientManager *
tc_client_manager(GError **error)
{
	static TcClientManager manager = {
		.object = {.path = TC_MANAGER_PATH, .interface = TC_MANAGER_INTERFACE},
	};

	return tc_client_bus(error) ? &manager : NULL;
}

void
tc_client_manager_unref(TcClientManager *manager)
{
	/* The manager is static: nothing to free. */
}

/* The type of method's reply as the interface declares it, NULL for a
 * method it does not declare. */
static const GVariantType *
reply_type(const char *interface, const char *method)
{
	for (gsize i = 0; i < G_N_ELEMENTS(tc_client_method_replies); i++)
		if (g_str_equal(tc_client_method_replies[i].method, method) &&
		    g_str_equal(tc_client_method_replies[i].interface, interface))
			return G_VARIANT_TYPE(tc_client_method_replies[i].reply);
	return NULL;
}

GVariant *
tc_client_call(gpointer target, const char *method, GVariant *parameters, GError **error)
{
	TcClientObject *object = target;

	/* Every reply is checked against the interface, as the generated
	 * proxies checked them: a command reads it with g_variant_get(),
	 * which must not meet another type (a remote end is not trusted
	 * more than a local bus). */
	return tc_client_bus_call(object->path, object->interface, method, parameters,
				  reply_type(object->interface, method), error);
}

const char *
tc_client_object_path(gpointer target)
{
	return ((TcClientObject *)target)->path;
}

static TcClientSession *
session_new(const char *path, const char *name)
{
	TcClientSession *session = g_new0(TcClientSession, 1);

	session->object.path = g_strdup(path);
	session->object.interface = TC_SESSION_INTERFACE;
	session->found_name = g_strdup(name);
	session->properties =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_variant_unref);
	return session;
}

void
tc_client_session_free(TcClientSession *session)
{
	if (session == NULL)
		return;
	g_free((char *)session->object.path);
	g_free(session->found_name);
	g_hash_table_unref(session->properties);
	g_free(session->units);
	g_free(session);
}

/* Takes every entry of an a{sv} into the session's properties. */
static void
take_properties(TcClientSession *session, GVariant *properties)
{
	GVariantIter iter;
	const char *name;
	GVariant *value;

	g_variant_iter_init(&iter, properties);
	while (g_variant_iter_next(&iter, "{&sv}", &name, &value))
		g_hash_table_replace(session->properties, g_strdup(name), value);
}

/* name, or the current session's when name is NULL (then set in *current,
 * which the caller frees); NULL with an error when there is none. */
static const char *
session_name_or_current(const char *name, char **current, GError **error)
{
	if (name)
		return name;
	*current = tc_client_current_session();
	if (*current == NULL && tc_client_is_remote())
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
			    "no session given: with -H, name the session (the current session "
			    "is this machine's)");
	else if (*current == NULL)
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
			    "no session given and no current session (create one with "
			    "'tracectl create')");
	return *current;
}

TcClientSession *
tc_client_session_unloaded(const char *name, GError **error)
{
	g_autofree char *current = NULL;
	g_autoptr(GVariant) reply = NULL;
	const char *path;

	if (tc_client_manager(error) == NULL ||
	    !(name = session_name_or_current(name, &current, error)))
		return NULL;
	reply = tc_client_bus_call(TC_MANAGER_PATH, TC_MANAGER_INTERFACE, "FindSession",
				   g_variant_new("(s)", name), G_VARIANT_TYPE("(o)"), error);
	if (reply == NULL)
		return NULL;
	g_variant_get(reply, "(&o)", &path);
	return session_new(path, name);
}

TcClientSession *
tc_client_session_describe(const char *name, GVariant **statistics, GError **error)
{
	g_autofree char *current = NULL;
	g_autoptr(GVariant) reply = NULL;
	g_autoptr(GVariant) properties = NULL;
	TcClientSession *session;
	const char *path;

	if (tc_client_manager(error) == NULL ||
	    !(name = session_name_or_current(name, &current, error)))
		return NULL;
	reply = tc_client_bus_call(TC_MANAGER_PATH, TC_MANAGER_INTERFACE, "DescribeSession",
				   g_variant_new("(s)", name),
				   G_VARIANT_TYPE("(oa{sv}a(ssttttt))"), error);
	if (reply == NULL)
		return NULL;
	g_variant_get(reply, "(&o@a{sv}@a(ssttttt))", &path, &properties, statistics);
	session = session_new(path, name);
	take_properties(session, properties);
	return session;
}

const char *
tc_client_session_name(TcClientSession *session)
{
	const char *loaded = tc_client_session_get_name(session);

	return loaded ? loaded : session->found_name;
}

gboolean
tc_client_session_load(TcClientSession *session, GError **error)
{
	g_autoptr(GVariant) properties =
		tc_client_bus_get_all(session->object.path, session->object.interface, error);

	if (properties == NULL)
		return FALSE;
	take_properties(session, properties);
	return TRUE;
}

TcClientSession *
tc_client_session(const char *name, GError **error)
{
	TcClientSession *session = tc_client_session_unloaded(name, error);

	if (session)
		tc_client_session_load_or_log(session);
	return session;
}

void
tc_client_session_load_or_log(TcClientSession *session)
{
	g_autoptr(GError) error = NULL;

	/* A command goes on without them (each accessor then gives its
	 * type's zero) and says why in debug, as a proxy that loads its own
	 * did. */
	if (!tc_client_session_load(session, &error))
		g_debug("The session's properties could not be read: %s", error->message);
}

/* The property name if it was read and is of type, else NULL: a
 * property of another type counts as missing, as the generated proxy's
 * getters had it. Owned by the session. */
static GVariant *
property(TcClientSession *session, const char *name, const char *type)
{
	GVariant *value = g_hash_table_lookup(session->properties, name);

	return value && g_variant_is_of_type(value, G_VARIANT_TYPE(type)) ? value : NULL;
}

static const char *
string_property(TcClientSession *session, const char *name)
{
	GVariant *value = property(session, name, "s");

	return value ? g_variant_get_string(value, NULL) : NULL;
}

const char *
tc_client_session_get_name(TcClientSession *session)
{
	return string_property(session, "Name");
}

const char *
tc_client_session_get_output_directory(TcClientSession *session)
{
	return string_property(session, "OutputDirectory");
}

const char *
tc_client_session_get_output_url(TcClientSession *session)
{
	return string_property(session, "OutputUrl");
}

const char *
tc_client_session_get_state(TcClientSession *session)
{
	return string_property(session, "State");
}

const char *
tc_client_session_get_problem(TcClientSession *session)
{
	return string_property(session, "Problem");
}

const char *
tc_client_session_get_trace_hostname(TcClientSession *session)
{
	return string_property(session, "TraceHostname");
}

const char *
tc_client_session_get_last_archive(TcClientSession *session)
{
	return string_property(session, "LastArchive");
}

guint32
tc_client_session_get_owner_uid(TcClientSession *session)
{
	GVariant *value = property(session, "OwnerUid", "u");

	return value ? g_variant_get_uint32(value) : 0;
}

guint32
tc_client_session_get_live_timer(TcClientSession *session)
{
	GVariant *value = property(session, "LiveTimer", "u");

	return value ? g_variant_get_uint32(value) : 0;
}

gboolean
tc_client_session_get_snapshot(TcClientSession *session)
{
	GVariant *value = property(session, "Snapshot", "b");

	return value ? g_variant_get_boolean(value) : FALSE;
}

guint64
tc_client_session_get_rotation_timer(TcClientSession *session)
{
	GVariant *value = property(session, "RotationTimer", "t");

	return value ? g_variant_get_uint64(value) : 0;
}

guint64
tc_client_session_get_rotation_size(TcClientSession *session)
{
	GVariant *value = property(session, "RotationSize", "t");

	return value ? g_variant_get_uint64(value) : 0;
}

GVariant *
tc_client_session_get_channels(TcClientSession *session)
{
	return property(session, "Channels", "a(sstuasa{sv})");
}

GVariant *
tc_client_session_dup_channels(TcClientSession *session)
{
	GVariant *channels = tc_client_session_get_channels(session);

	return channels ? g_variant_ref(channels) : NULL;
}

GVariant *
tc_client_session_get_tracking(TcClientSession *session)
{
	return property(session, "Tracking", "a(ssbau)");
}

const char *const *
tc_client_session_get_tracked_units(TcClientSession *session)
{
	GVariant *value = property(session, "TrackedUnits", "as");

	if (value == NULL)
		return NULL;
	if (session->units == NULL)
		session->units = (char **)g_variant_get_strv(value, NULL);
	return (const char *const *)session->units;
}
