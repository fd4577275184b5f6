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

#include "tc-dbus-generated.h"
#include "tc-dbus-request.h"
#include "tc-error.h"
#include "tc-kernel.h"
#include "tc-session-ops.h"
#include "tc-validate.h"
#include "tc-rb.h"

#define TC_TYPE_SESSION_OBJECT (tc_session_object_get_type())
G_DECLARE_FINAL_TYPE(TcSessionObject, tc_session_object, TC, SESSION_OBJECT,
		     TcDbusSessionSkeleton)

struct _TcSessionObject {
	TcDbusSessionSkeleton parent;
	TcSession *session;
};

G_DEFINE_TYPE(TcSessionObject, tc_session_object, TC_DBUS_TYPE_SESSION_SKELETON)

static GVariant *
channels_variant_locked(TcSession *session)
{
	GVariantBuilder builder;

	g_variant_builder_init(&builder, G_VARIANT_TYPE("a(sstuas)"));
	for (guint i = 0; i < session->channels->len; i++) {
		TcChannel *channel = g_ptr_array_index(session->channels, i);

		GVariantBuilder patterns;

		g_variant_builder_init(&patterns, G_VARIANT_TYPE_STRING_ARRAY);
		for (guint j = 0; j < channel->patterns->len; j++)
			g_variant_builder_add(&patterns, "s",
					      (char *)g_ptr_array_index(channel->patterns, j));
		g_variant_builder_add(&builder, "(sstuas)", channel->name, "ust",
				      (guint64)channel->subbuf_size, channel->num_subbuf,
				      &patterns);
	}
	return g_variant_builder_end(&builder);
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
		return channels_variant_locked(session);
	return NULL;
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

/* Methods. */

static void
submit(TcSessionObject *self, TcRequest *request)
{
	tc_request_submit(request, TC_ACTION_MANAGE_SESSIONS, self->session->owner_uid,
			  TC_AUTHORITY_FLAGS_NONE);
}

static gboolean
start_work(TcRequest *request, GError **error)
{
	return tc_session_op_start(request->session, error);
}

static gboolean
handle_start(TcDbusSession *object, GDBusMethodInvocation *invocation)
{
	TcSessionObject *self = TC_SESSION_OBJECT(object);
	TcRequest *request = tc_request_new(invocation, self->session);

	request->work = start_work;
	submit(self, request);
	return TRUE;
}

static gboolean
stop_work(TcRequest *request, GError **error)
{
	return tc_session_op_stop(request->session, error);
}

static gboolean
handle_stop(TcDbusSession *object, GDBusMethodInvocation *invocation)
{
	TcSessionObject *self = TC_SESSION_OBJECT(object);
	TcRequest *request = tc_request_new(invocation, self->session);

	request->work = stop_work;
	submit(self, request);
	return TRUE;
}

static gboolean
check_domain(const char *domain, GError **error)
{
	if (g_str_equal(domain, "ust") || g_str_equal(domain, "kernel"))
		return TRUE;
	g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
		    "Unknown domain '%s', use \"ust\" or \"kernel\"", domain);
	return FALSE;
}

/* The root helper is started on demand and answers; the kernel domain
 * itself is not implemented yet. */
static gboolean
kernel_work(TcRequest *request, GError **error)
{
	guint32 version = 0;

	if (!tc_kernel_ping(&version, error))
		return FALSE;
	g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
		    "Kernel tracing is not available in this version of tracectl (kernel helper "
		    "protocol %u)",
		    version);
	return FALSE;
}

/* Kernel requests are authorized like every other (the kernel action,
 * then ownership), and only then refused as not implemented, so that who
 * may do what is already what it will be. */
static gboolean
submit_kernel_request(TcSessionObject *self, GDBusMethodInvocation *invocation)
{
	TcRequest *request = tc_request_new(invocation, self->session);

	request->work = kernel_work;
	tc_request_submit(request, TC_ACTION_TRACE_KERNEL, self->session->owner_uid,
			  TC_AUTHORITY_FLAGS_NONE);
	return TRUE;
}

static gboolean
parse_geometry(GVariant *options, guint32 *subbuf_size, guint32 *num_subbuf, GError **error)
{
	GVariantIter iter;
	const char *key;
	GVariant *value;
	guint64 size = TC_DEFAULT_SUBBUF_SIZE;
	guint64 count = TC_DEFAULT_NUM_SUBBUF;

	g_variant_iter_init(&iter, options);
	while (g_variant_iter_loop(&iter, "{&sv}", &key, &value)) {
		if (g_str_equal(key, "subbuf-size") &&
		    g_variant_is_of_type(value, G_VARIANT_TYPE_UINT64)) {
			size = g_variant_get_uint64(value);
		} else if (g_str_equal(key, "num-subbuf") &&
			   g_variant_is_of_type(value, G_VARIANT_TYPE_UINT32)) {
			count = g_variant_get_uint32(value);
		} else {
			g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				    "Unknown channel option '%s' of type %s", key,
				    g_variant_get_type_string(value));
			g_variant_unref(value);
			return FALSE;
		}
	}
	if (size < TC_RB_SUBBUF_SIZE_MIN || size > TC_RB_SUBBUF_SIZE_MAX || (size & (size - 1))) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "The sub-buffer size must be a power of two from %u to %u bytes, "
			    "not %" G_GUINT64_FORMAT,
			    TC_RB_SUBBUF_SIZE_MIN, TC_RB_SUBBUF_SIZE_MAX, size);
		return FALSE;
	}
	if (count < TC_RB_NUM_SUBBUF_MIN || count > TC_RB_NUM_SUBBUF_MAX || (count & (count - 1))) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "The number of sub-buffers must be a power of two from %u to %u, "
			    "not %" G_GUINT64_FORMAT,
			    TC_RB_NUM_SUBBUF_MIN, TC_RB_NUM_SUBBUF_MAX, count);
		return FALSE;
	}
	*subbuf_size = size;
	*num_subbuf = count;
	return TRUE;
}

static gboolean
enable_channel_work(TcRequest *request, GError **error)
{
	return tc_session_op_enable_channel(request->session, request->channel,
					    request->subbuf_size, request->num_subbuf, error);
}

static gboolean
handle_enable_channel(TcDbusSession *object, GDBusMethodInvocation *invocation,
		      const char *domain, const char *name, GVariant *options)
{
	TcSessionObject *self = TC_SESSION_OBJECT(object);
	g_autoptr(GError) error = NULL;
	guint32 subbuf_size, num_subbuf;
	TcRequest *request;

	if (!check_domain(domain, &error) || !tc_validate_name("channel", name, &error) ||
	    !parse_geometry(options, &subbuf_size, &num_subbuf, &error)) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		return TRUE;
	}
	if (g_str_equal(domain, "kernel"))
		return submit_kernel_request(self, invocation);
	request = tc_request_new(invocation, self->session);
	request->channel = g_strdup(name);
	request->subbuf_size = subbuf_size;
	request->num_subbuf = num_subbuf;
	request->work = enable_channel_work;
	submit(self, request);
	return TRUE;
}

static gboolean
enable_event_work(TcRequest *request, GError **error)
{
	return tc_session_op_enable_event(request->session, request->channel, request->pattern,
					  error);
}

static gboolean
disable_event_work(TcRequest *request, GError **error)
{
	return tc_session_op_disable_event(request->session, request->channel,
					   request->pattern, error);
}

static gboolean
handle_event_change(TcSessionObject *self, GDBusMethodInvocation *invocation,
		    const char *domain, const char *channel, const char *pattern,
		    TcRequestWorkFunc work)
{
	g_autoptr(GError) error = NULL;
	TcRequest *request;

	if (!check_domain(domain, &error) ||
	    (*channel && !tc_validate_name("channel", channel, &error)) ||
	    !tc_validate_pattern(pattern, &error)) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		return TRUE;
	}
	if (g_str_equal(domain, "kernel"))
		return submit_kernel_request(self, invocation);
	request = tc_request_new(invocation, self->session);
	request->channel = g_strdup(channel);
	request->pattern = g_strdup(pattern);
	request->work = work;
	submit(self, request);
	return TRUE;
}

static gboolean
handle_enable_event(TcDbusSession *object, GDBusMethodInvocation *invocation,
		    const char *domain, const char *channel, const char *pattern)
{
	return handle_event_change(TC_SESSION_OBJECT(object), invocation, domain, channel,
				   pattern, enable_event_work);
}

static gboolean
handle_disable_event(TcDbusSession *object, GDBusMethodInvocation *invocation,
		     const char *domain, const char *channel, const char *pattern)
{
	return handle_event_change(TC_SESSION_OBJECT(object), invocation, domain, channel,
				   pattern, disable_event_work);
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
	g_signal_connect(self, "handle-start", G_CALLBACK(handle_start), NULL);
	g_signal_connect(self, "handle-stop", G_CALLBACK(handle_stop), NULL);
	g_signal_connect(self, "handle-enable-channel", G_CALLBACK(handle_enable_channel), NULL);
	g_signal_connect(self, "handle-enable-event", G_CALLBACK(handle_enable_event), NULL);
	g_signal_connect(self, "handle-disable-event", G_CALLBACK(handle_disable_event), NULL);
}

gpointer
tc_session_object_export(TcSession *session, GDBusConnection *connection, GError **error)
{
	TcSessionObject *self = g_object_new(TC_TYPE_SESSION_OBJECT, NULL);

	self->session = tc_session_ref(session);
	if (!g_dbus_interface_skeleton_export(G_DBUS_INTERFACE_SKELETON(self), connection,
					      session->object_path, error)) {
		g_object_unref(self);
		return NULL;
	}
	session->dbus_object = self;
	return self;
}

void
tc_session_object_unexport(TcSession *session)
{
	TcSessionObject *self = session->dbus_object;

	if (self == NULL)
		return;
	session->dbus_object = NULL;
	g_dbus_interface_skeleton_unexport(G_DBUS_INTERFACE_SKELETON(self));
	g_object_unref(self);
}
