/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* org.tracectl.Tracing1.Manager at /org/tracectl/Tracing1. */
#define G_LOG_DOMAIN "tracectld-dbus"

#include "tc-dbus-manager.h"

#include <string.h>
#include <unistd.h>

#include "config.h"
#include "tc-agent-rule.h"
#include "tc-agents.h"
#include "tc-app.h"
#include "tc-channel-config.h"
#include "tc-dbus-generated.h"
#include "tc-dbus-describe.h"
#include "tc-dbus-request.h"
#include "tc-dbus-session.h"
#include "tc-dbus-triggers.h"
#include "tc-error.h"
#include "tc-kernel.h"
#include "tc-lttng-apps.h"
#include "tc-lttng-refused.h"
#include "tc-lttng-registry.h"
#include "tc-peer-identity.h"
#include "tc-registry.h"
#include "tc-relay-url.h"
#include "tc-session-ops.h"
#include "tc-session-output.h"
#include "tc-dbus-signals.h"
#include "tc-session.h"
#include "tc-validate.h"

static GDBusConnection *manager_connection;

/*
 * Worker thread: the session counts against the limits of the caller's
 * login user (tc-peer-identity.h), so that a user's subordinate uids do
 * not multiply its sessions, channels and buffers. The bus daemon knows
 * the caller's pid; /proc/PID must still run as the caller's uid.
 */
static gboolean
charge_to_caller_login(TcRequest *request, GError **error)
{
	GDBusConnection *connection = g_dbus_method_invocation_get_connection(request->invocation);
	const char *sender = g_dbus_method_invocation_get_sender(request->invocation);
	g_autoptr(GVariant) reply = NULL;
	TcPeerUserSource source;
	guint32 pid;
	uid_t user;

	if (request->caller.uid == 0 || sender == NULL)
		return TRUE;
	reply = g_dbus_connection_call_sync(connection, "org.freedesktop.DBus",
					    "/org/freedesktop/DBus", "org.freedesktop.DBus",
					    "GetConnectionUnixProcessID", g_variant_new("(s)", sender),
					    G_VARIANT_TYPE("(u)"), G_DBUS_CALL_FLAGS_NONE, 5000, NULL,
					    error);
	if (reply == NULL)
		return FALSE;
	g_variant_get(reply, "(u)", &pid);
	if (!tc_peer_identity_accountable_user_of_pid((pid_t)pid, request->caller.uid, &user,
						      &source, error))
		return FALSE;
	tc_user_limits_charge_init(&request->session->charge, user);
	return TRUE;
}

static gboolean
create_work(TcRequest *request, GError **error)
{
	if (!charge_to_caller_login(request, error)) {
		g_prefix_error(error, "Cannot tell which user pays for session '%s': ",
			       request->name);
		return FALSE;
	}
	return tc_session_ops_create(request->session, error);
}

static void
create_done(TcRequest *request)
{
	g_autoptr(GError) error = NULL;

	if (!tc_dbus_session_export(request->session, manager_connection, &error)) {
		g_warning("Cannot export session '%s': %s", request->session->name,
			  error->message);
		g_mutex_lock(&request->session->lock);
		tc_registry_remove_session_locked(request->session);
		g_mutex_unlock(&request->session->lock);
		g_dbus_method_invocation_return_gerror(request->invocation, error);
		return;
	}
	tc_dbus_signals_session_created(request->session);
	g_dbus_method_invocation_return_value(request->invocation,
					      g_variant_new("(o)", request->session->object_path));
}

gboolean
tc_dbus_manager_publish_session(TcSession *session, GError **error)
{
	if (manager_connection == NULL) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "The service is not on the bus");
		return FALSE;
	}
	if (!tc_dbus_session_export(session, manager_connection, error))
		return FALSE;
	tc_dbus_signals_session_created(session);
	return TRUE;
}

/* The default directory depends on who asked, known only now. A relay
 * session has no local directory: its paths are relative to the relay's. */
static gboolean
create_authorized(TcRequest *request, GError **error)
{
	g_autofree char *directory = NULL;

	if (request->relay != NULL)
		directory = g_strdup("");
	else if (*request->directory)
		directory = g_strdup(request->directory);
	else
		directory =
		    tc_session_output_default_directory(request->caller.uid, request->name, error);
	if (directory == NULL)
		return FALSE;
	request->session = tc_session_new(request->name, request->caller.uid, directory);
	request->session->output_is_default = request->relay == NULL && *request->directory == '\0';
	request->session->snapshot = request->snapshot;
	return request->relay == NULL ||
	       tc_session_output_set_relay(request->session, g_steal_pointer(&request->relay),
					   error);
}

static gboolean
parse_string_option(const char *key, GVariant *value, const char *name, const char **out)
{
	if (!g_str_equal(key, name) || !g_variant_is_of_type(value, G_VARIANT_TYPE_STRING))
		return FALSE;
	*out = g_variant_get_string(value, NULL);
	return TRUE;
}

static gboolean
parse_session_options(GVariant *options, TcSessionOutputOptions *parsed, GError **error)
{
	GVariantIter iter;
	const char *key;
	GVariant *value;

	memset(parsed, 0, sizeof(*parsed));
	if (options == NULL)
		return TRUE;
	g_variant_iter_init(&iter, options);
	while (g_variant_iter_loop(&iter, "{&sv}", &key, &value)) {
		if (g_str_equal(key, "snapshot") &&
		    g_variant_is_of_type(value, G_VARIANT_TYPE_BOOLEAN)) {
			parsed->snapshot = g_variant_get_boolean(value);
			continue;
		}
		if (parse_string_option(key, value, "url", &parsed->url) ||
		    parse_string_option(key, value, "ctrl-url", &parsed->ctrl_url) ||
		    parse_string_option(key, value, "data-url", &parsed->data_url))
			continue;
		if (g_str_equal(key, "live-timer-us") &&
		    g_variant_is_of_type(value, G_VARIANT_TYPE_UINT32)) {
			parsed->has_live_timer = TRUE;
			parsed->live_timer_us = g_variant_get_uint32(value);
			continue;
		}
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "Unknown session option '%s' of type %s", key,
			    g_variant_get_type_string(value));
		g_variant_unref(value);
		return FALSE;
	}
	return TRUE;
}

static gboolean
create_session(GDBusMethodInvocation *invocation, const char *name, const char *output_directory,
	       GVariant *options)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *directory = NULL;
	g_autofree struct tc_consumer_relay_output *relay = NULL;
	TcSessionOutputOptions parsed;
	TcRequest *request;

	if (!tc_validate_name("session", name, &error) ||
	    (*output_directory && !tc_validate_output_directory(output_directory, &error)) ||
	    !parse_session_options(options, &parsed, &error) ||
	    !tc_session_output_resolve(&parsed, output_directory, &directory, &relay, &error)) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		return TRUE;
	}
	request = tc_dbus_request_new(invocation, NULL);
	request->snapshot = parsed.snapshot;
	request->name = g_strdup(name);
	request->directory = g_steal_pointer(&directory);
	request->relay = g_steal_pointer(&relay);
	request->authorized = create_authorized;
	request->work = create_work;
	request->done = create_done;
	tc_dbus_request_submit(request, TC_ACTION_MANAGE_SESSIONS, TC_NO_TARGET_UID,
			       TC_AUTHORITY_FLAGS_NONE);
	return TRUE;
}

static gboolean
handle_create_session(TcDbusManager *manager, GDBusMethodInvocation *invocation,
		      const char *name, const char *output_directory)
{
	return create_session(invocation, name, output_directory, NULL);
}

static gboolean
handle_create_session_with_options(TcDbusManager *manager, GDBusMethodInvocation *invocation,
				   const char *name, const char *output_directory,
				   GVariant *options)
{
	return create_session(invocation, name, output_directory, options);
}

static void
find_done(TcRequest *request)
{
	g_autoptr(TcSession) session = tc_dbus_session_exported_or_unref(
		tc_registry_find_session_by_name(request->caller.uid, request->name));

	if (session == NULL) {
		g_dbus_method_invocation_return_error(request->invocation, TC_ERROR,
						      TC_ERROR_NOT_FOUND,
						      "You have no session named '%s'",
						      request->name);
		return;
	}
	g_dbus_method_invocation_return_value(request->invocation,
					      g_variant_new("(o)", session->object_path));
}

static gboolean
handle_find_session(TcDbusManager *manager, GDBusMethodInvocation *invocation, const char *name)
{
	g_autoptr(GError) error = NULL;
	TcRequest *request;

	if (!tc_validate_name("session", name, &error)) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		return TRUE;
	}
	request = tc_dbus_request_new(invocation, NULL);
	request->name = g_strdup(name);
	request->done = find_done;
	tc_dbus_request_submit(request, TC_ACTION_MANAGE_SESSIONS, TC_NO_TARGET_UID,
			       TC_AUTHORITY_FLAGS_NONE);
	return TRUE;
}

static void
list_sessions_done(TcRequest *request)
{
	g_autoptr(GPtrArray) sessions =
		tc_registry_list_sessions(request->caller.uid, request->caller.is_admin);
	GVariantBuilder builder;

	g_variant_builder_init(&builder, G_VARIANT_TYPE("a(osuss)"));
	for (guint i = 0; i < sessions->len; i++) {
		TcSession *session = g_ptr_array_index(sessions, i);
		g_autofree char *url = NULL;

		if (!tc_dbus_session_is_exported(session))
			continue;
		/* relay is fixed at creation: no lock needed to read it */
		if (session->relay)
			url = tc_relay_url_format_output(session->relay);
		g_mutex_lock(&session->lock);
		g_variant_builder_add(&builder, "(osuss)", session->object_path, session->name,
				      (guint32)session->owner_uid,
				      session->state == TC_SESSION_ACTIVE ? "active" : "inactive",
				      url ? url : session->output_directory);
		g_mutex_unlock(&session->lock);
	}
	tc_dbus_request_return(request, g_variant_new("(a(osuss))", &builder));
}

static gboolean
handle_list_sessions(TcDbusManager *manager, GDBusMethodInvocation *invocation)
{
	TcRequest *request = tc_dbus_request_new(invocation, NULL);

	request->done = list_sessions_done;
	tc_dbus_request_submit(request, TC_ACTION_MANAGE_SESSIONS, TC_NO_TARGET_UID,
			       TC_AUTHORITY_FLAGS_QUERY_ADMIN);
	return TRUE;
}

static gboolean
destroy_work(TcRequest *request, GError **error)
{
	return tc_session_ops_destroy(request->session, error);
}

static void
destroy_done(TcRequest *request)
{
	tc_dbus_session_unexport(request->session);
	tc_dbus_signals_session_destroyed(request->session);
	g_dbus_method_invocation_return_value(request->invocation, NULL);
}

/* The session at path, or NULL with NotFound. */
static TcSession *
session_from_path(const char *path, GError **error)
{
	guint64 id = 0;
	TcSession *session = NULL;

	if (g_str_has_prefix(path, TC_DBUS_SESSION_PATH_PREFIX) &&
	    g_ascii_string_to_unsigned(path + strlen(TC_DBUS_SESSION_PATH_PREFIX), 10, 1,
				       G_MAXUINT64, &id, NULL))
		session = tc_dbus_session_exported_or_unref(tc_registry_find_session(id));
	if (session == NULL)
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND, "No session at '%s'", path);
	return session;
}

static gboolean
handle_destroy_session(TcDbusManager *manager, GDBusMethodInvocation *invocation,
		       const char *path)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(TcSession) session = session_from_path(path, &error);
	TcRequest *request;

	if (session == NULL) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		return TRUE;
	}
	request = tc_dbus_request_new(invocation, session);
	request->work = destroy_work;
	request->done = destroy_done;
	tc_dbus_request_submit(request, TC_ACTION_MANAGE_SESSIONS, session->owner_uid,
			       TC_AUTHORITY_FLAGS_NONE);
	return TRUE;
}

static GVariant *
app_events_variant(TcApp *app)
{
	GVariantBuilder builder;

	g_variant_builder_init(&builder, G_VARIANT_TYPE("a(sis)"));
	for (guint i = 0; i < app->events->len; i++) {
		TcAppEvent *event = g_ptr_array_index(app->events, i);

		g_variant_builder_add(&builder, "(sis)", event->name, event->loglevel,
				      event->signature);
	}
	return g_variant_builder_end(&builder);
}

static GVariant *
lttng_app_events_variant(TcLttngApp *app)
{
	g_autoptr(GPtrArray) events = tc_lttng_app_dup_events(app);
	GVariantBuilder builder;

	g_variant_builder_init(&builder, G_VARIANT_TYPE("a(sis)"));
	for (guint i = 0; i < events->len; i++) {
		TcLttngEvent *event = g_ptr_array_index(events, i);

		g_variant_builder_add(&builder, "(sis)", event->name, event->loglevel,
				      event->fields);
	}
	return g_variant_builder_end(&builder);
}

/* The LTTng-UST applications refused at registration, with why in their
 * tracer's version and no events. */
static void
add_refused_lttng_applications(GVariantBuilder *builder, const TcRequest *request)
{
	g_autoptr(GPtrArray) refused =
		tc_lttng_refused_list(request->caller.uid, request->caller.is_admin);

	for (guint i = 0; i < refused->len; i++) {
		const TcLttngRefused *app = g_ptr_array_index(refused, i);
		g_autofree char *version = g_strdup_printf("lttng-ust (not served: %s)", app->why);

		g_variant_builder_add(builder, "(iuss@a(sis))", (gint32)app->pid,
				      (guint32)app->uid, app->procname, version,
				      g_variant_new_array(G_VARIANT_TYPE("(sis)"), NULL, 0));
	}
}

/* The LTTng-UST applications, after tracectl's own. */
static void
add_lttng_applications(GVariantBuilder *builder, const TcRequest *request)
{
	g_autoptr(GPtrArray) apps =
		tc_lttng_registry_list(request->caller.uid, request->caller.is_admin);

	for (guint i = 0; i < apps->len; i++) {
		TcLttngApp *app = g_ptr_array_index(apps, i);
		g_autofree char *version =
			g_strdup_printf("lttng-ust %u.%u", app->abi_major, app->abi_minor);

		g_variant_builder_add(builder, "(iuss@a(sis))", (gint32)app->pid,
				      (guint32)app->uid, app->procname, version,
				      lttng_app_events_variant(app));
	}
	add_refused_lttng_applications(builder, request);
}

/* Off the main loop: LTTng-UST applications are asked for their
 * tracepoints now (they may have loaded providers since), each on its
 * owner's thread, for a bounded time. */
static gboolean
list_applications_work(TcRequest *request, GError **error)
{
	tc_lttng_apps_refresh(request->caller.uid, request->caller.is_admin);
	return TRUE;
}

static void
list_applications_done(TcRequest *request)
{
	g_autoptr(GPtrArray) apps = NULL;
	GVariantBuilder builder;

	g_variant_builder_init(&builder, G_VARIANT_TYPE("a(iussa(sis))"));
	apps = tc_registry_list_apps(request->caller.uid, request->caller.is_admin);
	for (guint i = 0; i < apps->len; i++) {
		TcApp *app = g_ptr_array_index(apps, i);
		g_autofree char *version =
			g_strdup_printf("%u.%u", app->tracer_major, app->tracer_minor);

		g_mutex_lock(&app->lock);
		if (app->state == TC_APP_REGISTERED)
			g_variant_builder_add(&builder, "(iuss@a(sis))", (gint32)app->pid,
					      (guint32)app->uid, app->procname, version,
					      app_events_variant(app));
		g_mutex_unlock(&app->lock);
	}
	add_lttng_applications(&builder, request);
	tc_dbus_request_return(request, g_variant_new("(a(iussa(sis)))", &builder));
}

static gboolean
handle_list_applications(TcDbusManager *manager, GDBusMethodInvocation *invocation)
{
	TcRequest *request = tc_dbus_request_new(invocation, NULL);

	request->work = list_applications_work;
	request->done = list_applications_done;
	tc_dbus_request_submit(request, TC_ACTION_LIST_APPLICATIONS, TC_NO_TARGET_UID,
			       TC_AUTHORITY_FLAGS_QUERY_ADMIN);
	return TRUE;
}

/* Off the main loop: tc_agents_list() waits for the agents' answers. */
static gboolean
list_agents_work(TcRequest *request, GError **error)
{
	const char *domain = request->data;
	g_autoptr(GPtrArray) agents =
		tc_agents_list(request->caller.uid, request->caller.is_admin, domain);
	GVariantBuilder builder;

	g_variant_builder_init(&builder, G_VARIANT_TYPE("a(siusas)"));
	for (guint i = 0; i < agents->len; i++) {
		const TcAgentListing *agent = g_ptr_array_index(agents, i);
		const char *const none[] = {NULL};

		g_variant_builder_add(&builder, "(sius^as)", agent->domain, (gint32)agent->pid,
				      (guint32)agent->uid, agent->procname,
				      agent->loggers ? agent->loggers : (char **)none);
	}
	request->result = g_variant_new("(a(siusas))", &builder);
	return TRUE;
}

static gboolean
handle_list_agents(TcDbusManager *manager, GDBusMethodInvocation *invocation,
		   const char *domain)
{
	TcAgentDomain known;
	TcRequest *request;

	if (*domain && !tc_agent_domain_from_name(domain, &known)) {
		g_dbus_method_invocation_return_error(invocation, TC_ERROR,
						      TC_ERROR_INVALID_ARGUMENT,
						      "Unknown agent domain '%.32s', use \"python\", "
						      "\"jul\", \"log4j\" or \"\"",
						      domain);
		return TRUE;
	}
	request = tc_dbus_request_new(invocation, NULL);
	/* NULL: every domain's. */
	request->data = *domain ? g_strdup(domain) : NULL;
	request->data_free = g_free;
	request->work = list_agents_work;
	tc_dbus_request_submit(request, TC_ACTION_LIST_APPLICATIONS, TC_NO_TARGET_UID,
			       TC_AUTHORITY_FLAGS_QUERY_ADMIN);
	return TRUE;
}

static gboolean
list_kernel_events_work(TcRequest *request, GError **error)
{
	g_auto(GStrv) events = tc_kernel_list(request->syscalls, error);

	if (events == NULL)
		return FALSE;
	request->result = g_variant_new("(^as)", events);
	return TRUE;
}

static gboolean
handle_list_kernel_events(TcDbusManager *manager, GDBusMethodInvocation *invocation,
			  gboolean syscalls)
{
	TcRequest *request = tc_dbus_request_new(invocation, NULL);

	/* Reused flag: the kind of list. */
	request->syscalls = syscalls;
	request->work = list_kernel_events_work;
	tc_dbus_request_submit(request, TC_ACTION_TRACE_KERNEL, TC_NO_TARGET_UID,
			       TC_AUTHORITY_FLAGS_NONE);
	return TRUE;
}

/* destroy --no-wait: the caller was answered when authorized. */
static void
destroy_no_wait_done(TcRequest *request)
{
	tc_dbus_session_unexport(request->session);
}

static gboolean
handle_destroy_session_with_options(TcDbusManager *manager, GDBusMethodInvocation *invocation,
				    const char *path, GVariant *options)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(TcSession) session = NULL;
	gboolean no_wait = FALSE;
	GVariantIter iter;
	const char *key;
	GVariant *value;
	TcRequest *request;

	g_variant_iter_init(&iter, options);
	while (g_variant_iter_next(&iter, "{&sv}", &key, &value)) {
		g_autoptr(GVariant) owned = value;

		if (!g_str_equal(key, "no-wait") ||
		    !g_variant_is_of_type(value, G_VARIANT_TYPE_BOOLEAN)) {
			g_dbus_method_invocation_return_error(
				invocation, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				"Unknown DestroySessionWithOptions option '%.64s' of type %s", key,
				g_variant_get_type_string(value));
			return TRUE;
		}
		no_wait = g_variant_get_boolean(value);
	}
	session = session_from_path(path, &error);
	if (session == NULL) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		return TRUE;
	}
	request = tc_dbus_request_new(invocation, session);
	request->no_wait = no_wait;
	request->work = destroy_work;
	request->done = no_wait ? destroy_no_wait_done : destroy_done;
	tc_dbus_request_submit(request, TC_ACTION_MANAGE_SESSIONS, session->owner_uid,
			       TC_AUTHORITY_FLAGS_NONE);
	return TRUE;
}

/* (pid, uid, "$app.provider:name", type) of each application context
 * of the caller's applications (everyone's for an administrator), for
 * each in the order registered. */
static GVariant *
app_contexts_variant(const TcRequest *request)
{
	g_autoptr(GPtrArray) apps =
		tc_registry_list_apps(request->caller.uid, request->caller.is_admin);
	GVariantBuilder builder;

	g_variant_builder_init(&builder, G_VARIANT_TYPE("a(iuss)"));
	for (guint i = 0; i < apps->len; i++) {
		TcApp *app = g_ptr_array_index(apps, i);

		g_mutex_lock(&app->lock);
		for (guint j = 0; app->state == TC_APP_REGISTERED && j < app->app_contexts->len;
		     j++) {
			const TcAppContext *context =
				&g_array_index(app->app_contexts, TcAppContext, j);
			g_autofree char *name =
				g_strconcat(TC_CHANNEL_CONFIG_APP_PREFIX, context->name, NULL);

			g_variant_builder_add(&builder, "(iuss)", (gint32)app->pid,
					      (guint32)app->uid, name,
					      tc_app_context_type_name(context->type));
		}
		g_mutex_unlock(&app->lock);
	}
	return g_variant_builder_end(&builder);
}

static void
list_app_contexts_done(TcRequest *request)
{
	tc_dbus_request_return(request, g_variant_new_tuple(
						(GVariant *[]){app_contexts_variant(request)}, 1));
}

static gboolean
handle_list_app_contexts(TcDbusManager *manager, GDBusMethodInvocation *invocation)
{
	TcRequest *request = tc_dbus_request_new(invocation, NULL);

	request->done = list_app_contexts_done;
	tc_dbus_request_submit(request, TC_ACTION_LIST_APPLICATIONS, TC_NO_TARGET_UID,
			       TC_AUTHORITY_FLAGS_QUERY_ADMIN);
	return TRUE;
}

/* ListContexts("ust"): the names AddContext takes, then the application
 * contexts the caller's applications registered, each name once. */
static void
list_ust_contexts_done(TcRequest *request)
{
	g_autoptr(GVariant) app_contexts = g_variant_ref_sink(app_contexts_variant(request));
	g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
	g_autoptr(GVariant) names = g_variant_ref_sink(tc_dbus_session_context_names("ust"));
	g_autoptr(GVariantIter) iter = g_variant_iter_new(app_contexts);
	GVariantBuilder builder;
	const char *name;

	g_variant_builder_init(&builder, G_VARIANT_TYPE_STRING_ARRAY);
	for (gsize i = 0; i < g_variant_n_children(names); i++) {
		g_variant_get_child(names, i, "&s", &name);
		g_variant_builder_add(&builder, "s", name);
	}
	while (g_variant_iter_next(iter, "(iu&s&s)", NULL, NULL, &name, NULL))
		if (g_hash_table_add(seen, (gpointer)name))
			g_variant_builder_add(&builder, "s", name);
	tc_dbus_request_return(request, g_variant_new("(as)", &builder));
}

static gboolean
handle_list_contexts(TcDbusManager *manager, GDBusMethodInvocation *invocation,
		     const char *domain)
{
	GVariant *names = tc_dbus_session_context_names(domain);
	TcRequest *request;

	if (names != NULL && g_str_equal(domain, "ust")) {
		g_variant_unref(g_variant_ref_sink(names));
		request = tc_dbus_request_new(invocation, NULL);
		request->done = list_ust_contexts_done;
		tc_dbus_request_submit(request, TC_ACTION_MANAGE_SESSIONS, TC_NO_TARGET_UID,
				       TC_AUTHORITY_FLAGS_QUERY_ADMIN);
		return TRUE;
	}

	if (names == NULL) {
		g_dbus_method_invocation_return_error(invocation, TC_ERROR,
						      TC_ERROR_INVALID_ARGUMENT,
						      "Unknown domain '%.32s', use \"ust\" or "
						      "\"kernel\"",
						      domain);
		return TRUE;
	}
	request = tc_dbus_request_new(invocation, NULL);
	request->result = g_variant_new_tuple(&names, 1);
	tc_dbus_request_submit(request, TC_ACTION_MANAGE_SESSIONS, TC_NO_TARGET_UID,
			       TC_AUTHORITY_FLAGS_NONE);
	return TRUE;
}

static void
subscribe_done(TcRequest *request)
{
	g_autoptr(GError) error = NULL;

	if (!tc_dbus_signals_subscribe(g_dbus_method_invocation_get_sender(request->invocation),
				       &request->caller, &error)) {
		g_dbus_method_invocation_return_gerror(request->invocation, error);
		return;
	}
	g_dbus_method_invocation_return_value(request->invocation, NULL);
}

/* Whether the caller may see other users' objects is asked now, without
 * interaction, and kept for the subscription's life. */
static gboolean
handle_subscribe(TcDbusManager *manager, GDBusMethodInvocation *invocation)
{
	TcRequest *request = tc_dbus_request_new(invocation, NULL);

	request->done = subscribe_done;
	tc_dbus_request_submit(request, TC_ACTION_MANAGE_SESSIONS, TC_NO_TARGET_UID,
			       TC_AUTHORITY_FLAGS_QUERY_ADMIN);
	return TRUE;
}

/* Needs no authorization: it only takes away what the caller had. */
static gboolean
handle_unsubscribe(TcDbusManager *manager, GDBusMethodInvocation *invocation)
{
	tc_dbus_signals_unsubscribe(g_dbus_method_invocation_get_sender(invocation));
	g_dbus_method_invocation_return_value(invocation, NULL);
	return TRUE;
}

void
tc_dbus_manager_refresh_lttng_status(gpointer manager)
{
	g_autofree char *status = tc_lttng_apps_dup_status();

	tc_dbus_manager_set_lttng_ust_applications(manager, status);
}

gpointer
tc_dbus_manager_export(GDBusConnection *connection, GError **error)
{
	TcDbusManager *manager = tc_dbus_manager_skeleton_new();

	manager_connection = connection;
	tc_dbus_signals_init(connection);
	tc_dbus_manager_set_version(manager, PACKAGE_VERSION);
	tc_dbus_manager_refresh_lttng_status(manager);
	g_signal_connect(manager, "handle-create-session", G_CALLBACK(handle_create_session),
			 NULL);
	g_signal_connect(manager, "handle-create-session-with-options",
			 G_CALLBACK(handle_create_session_with_options), NULL);
	g_signal_connect(manager, "handle-find-session", G_CALLBACK(handle_find_session), NULL);
	tc_dbus_describe_connect(manager);
	g_signal_connect(manager, "handle-list-sessions", G_CALLBACK(handle_list_sessions),
			 NULL);
	g_signal_connect(manager, "handle-destroy-session", G_CALLBACK(handle_destroy_session),
			 NULL);
	g_signal_connect(manager, "handle-destroy-session-with-options",
			 G_CALLBACK(handle_destroy_session_with_options), NULL);
	g_signal_connect(manager, "handle-list-contexts", G_CALLBACK(handle_list_contexts), NULL);
	g_signal_connect(manager, "handle-list-app-contexts", G_CALLBACK(handle_list_app_contexts),
			 NULL);
	g_signal_connect(manager, "handle-list-applications",
			 G_CALLBACK(handle_list_applications), NULL);
	g_signal_connect(manager, "handle-list-agents", G_CALLBACK(handle_list_agents), NULL);
	g_signal_connect(manager, "handle-list-kernel-events",
			 G_CALLBACK(handle_list_kernel_events), NULL);
	g_signal_connect(manager, "handle-subscribe", G_CALLBACK(handle_subscribe), NULL);
	g_signal_connect(manager, "handle-unsubscribe", G_CALLBACK(handle_unsubscribe), NULL);
	tc_dbus_triggers_connect(manager);
	if (!g_dbus_interface_skeleton_export(G_DBUS_INTERFACE_SKELETON(manager), connection,
					      TC_DBUS_MANAGER_PATH, error)) {
		g_object_unref(manager);
		return NULL;
	}
	return manager;
}
