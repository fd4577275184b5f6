/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * org.tracectl.Tracing1.Session objects.
 *
 * Properties are not stored in the generated skeleton: GDBus would answer
 * Get/GetAll to anyone and broadcast PropertiesChanged to the whole bus,
 * showing one user's sessions to the others. Reads go through
 * session_get_property(), which checks the caller's uid first, and no
 * change signal is emitted; clients read the properties when they need
 * them. The session objects are deliberately not published through an
 * ObjectManager, whose GetManagedObjects would list every user's sessions.
 */
#define G_LOG_DOMAIN "tracectld-dbus"

#include "tc-dbus-session.h"

#include "tc-channel-config.h"
#include "tc-dbus-channels.h"
#include "tc-channel.h"
#include "tc-dbus-generated.h"
#include "tc-dbus-lifecycle.h"
#include "tc-dbus-request.h"
#include "tc-dbus-rotation.h"
#include "tc-dbus-snapshot.h"
#include "tc-dbus-track.h"
#include "tc-error.h"
#include "tc-relay-url.h"
#include "tc-kernel-domain.h"
#include "tc-session.h"

#define TC_TYPE_SESSION_OBJECT (tc_session_object_get_type())
G_DECLARE_FINAL_TYPE(TcSessionObject, tc_session_object, TC, SESSION_OBJECT,
		     TcDbusSessionSkeleton)

struct _TcSessionObject {
	TcDbusSessionSkeleton parent;
	TcSession *session;
};

G_DEFINE_TYPE(TcSessionObject, tc_session_object, TC_DBUS_TYPE_SESSION_SKELETON)

static GVariant *
output_url_variant(TcSession *session)
{
	g_autofree char *url = session->relay
				   ? tc_relay_url_format_output(session->relay)
				   : g_strconcat("file://", session->output_directory, NULL);

	return g_variant_new_string(url);
}

static GVariant *
property_value_locked(TcSession *session, const char *name)
{
	if (g_str_equal(name, "Name"))
		return g_variant_new_string(session->name);
	if (g_str_equal(name, "OwnerUid"))
		return g_variant_new_uint32(session->owner_uid);
	if (g_str_equal(name, "OutputDirectory"))
		return g_variant_new_string(session->output_directory);
	if (g_str_equal(name, "State"))
		return g_variant_new_string(session->state == TC_SESSION_ACTIVE ? "active"
										: "inactive");
	if (g_str_equal(name, "Problem"))
		return g_variant_new_string(session->problem ? session->problem : "");
	if (g_str_equal(name, "Channels"))
		return tc_dbus_channels_variant_locked(session);
	if (g_str_equal(name, "Snapshot"))
		return g_variant_new_boolean(session->snapshot);
	if (g_str_equal(name, "Tracking"))
		return tc_dbus_track_tracking_variant_locked(session);
	if (g_str_equal(name, "TrackedUnits"))
		return tc_dbus_track_units_variant_locked(session);
	if (g_str_equal(name, "OutputUrl"))
		return output_url_variant(session);
	if (g_str_equal(name, "LiveTimer"))
		return g_variant_new_uint32(session->relay ? session->relay->live_timer_us : 0);
	if (g_str_equal(name, "TraceHostname"))
		return g_variant_new_string(session->relay ? session->relay->hostname : "");
	return tc_dbus_rotation_property_locked(session, name);
}

GVariant *
tc_dbus_session_properties(TcSession *session)
{
	GDBusPropertyInfo **properties = tc_dbus_session_interface_info()->properties;
	GVariantBuilder builder;

	g_variant_builder_init(&builder, G_VARIANT_TYPE_VARDICT);
	g_mutex_lock(&session->lock);
	for (guint i = 0; properties[i]; i++) {
		GVariant *value = property_value_locked(session, properties[i]->name);

		if (value)
			g_variant_builder_add(&builder, "{sv}", properties[i]->name, value);
	}
	g_mutex_unlock(&session->lock);
	return g_variant_builder_end(&builder);
}

static GVariant *
session_get_property(GDBusConnection *connection, const char *sender, const char *object_path,
		     const char *interface_name, const char *property_name, GError **error,
		     gpointer user_data)
{
	TcSessionObject *self = TC_SESSION_OBJECT(user_data);
	GVariant *value;
	uid_t uid;

	if (!tc_authority_peer_uid_sync(connection, sender, &uid) ||
	    (uid != 0 && uid != self->session->owner_uid)) {
		g_set_error(error, TC_ERROR, TC_ERROR_PERMISSION_DENIED,
			    "This session belongs to another user");
		return NULL;
	}
	g_mutex_lock(&self->session->lock);
	value = property_value_locked(self->session, property_name);
	g_mutex_unlock(&self->session->lock);
	if (value == NULL)
		g_set_error(error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_PROPERTY,
			    "No property %s", property_name);
	return value;
}

static GDBusInterfaceVTable *
session_object_get_vtable(GDBusInterfaceSkeleton *skeleton)
{
	static GDBusInterfaceVTable vtable;
	GDBusInterfaceVTable *parent = G_DBUS_INTERFACE_SKELETON_CLASS(
		tc_session_object_parent_class)->get_vtable(skeleton);

	vtable = *parent;
	vtable.get_property = session_get_property;
	vtable.set_property = NULL;
	return &vtable;
}

static void
tc_session_object_finalize(GObject *object)
{
	TcSessionObject *self = TC_SESSION_OBJECT(object);

	tc_session_unref(self->session);
	G_OBJECT_CLASS(tc_session_object_parent_class)->finalize(object);
}

static void
tc_session_object_class_init(TcSessionObjectClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	GDBusInterfaceSkeletonClass *skeleton_class = G_DBUS_INTERFACE_SKELETON_CLASS(klass);

	object_class->finalize = tc_session_object_finalize;
	skeleton_class->get_vtable = session_object_get_vtable;
}

static void
tc_session_object_init(TcSessionObject *self)
{
}

gpointer
tc_dbus_session_export(TcSession *session, GDBusConnection *connection, GError **error)
{
	TcSessionObject *self = g_object_new(TC_TYPE_SESSION_OBJECT, NULL);

	self->session = tc_session_ref(session);
	tc_dbus_lifecycle_connect(self, session);
	tc_dbus_channels_connect(self, session);
	tc_dbus_snapshot_connect(self, session);
	tc_dbus_track_connect(self, session);
	tc_dbus_rotation_connect(self, session);
	if (!g_dbus_interface_skeleton_export(G_DBUS_INTERFACE_SKELETON(self), connection,
					      session->object_path, error)) {
		g_object_unref(self);
		return NULL;
	}
	session->bus_data = self;
	return self;
}

gboolean
tc_dbus_session_is_exported(TcSession *session)
{
	return session->bus_data != NULL;
}

TcSession *
tc_dbus_session_exported_or_unref(TcSession *session)
{
	if (session == NULL || tc_dbus_session_is_exported(session))
		return session;
	tc_session_unref(session);
	return NULL;
}

void
tc_dbus_session_unexport(TcSession *session)
{
	TcSessionObject *self = session->bus_data;

	if (self == NULL)
		return;
	session->bus_data = NULL;
	g_dbus_interface_skeleton_unexport(G_DBUS_INTERFACE_SKELETON(self));
	g_object_unref(self);
}

GVariant *
tc_dbus_session_context_names(const char *domain)
{
	GVariantBuilder names;

	if (g_str_equal(domain, "ust")) {
		g_auto(GStrv) list = tc_channel_config_ust_context_list();

		return g_variant_new_strv((const char *const *)list, -1);
	}
	if (!g_str_equal(domain, "kernel"))
		return NULL;
	g_variant_builder_init(&names, G_VARIANT_TYPE_STRING_ARRAY);
	for (const TcContextName *known = tc_channel_config_kernel_contexts; known->name; known++)
		g_variant_builder_add(&names, "s", known->name);
	return g_variant_builder_end(&names);
}
