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

/* StopWithOptions. */

static gboolean
stop_work(TcRequest *request, GError **error)
{
	return tc_session_op_stop(request->session, error);
}

/* Main loop, authorized: with no-wait the caller is answered next, so the
 * one mistake a caller can see is checked first. The worker checks again. */
static gboolean
stop_check_active(TcRequest *request, GError **error)
{
	TcSession *session = request->session;
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&session->lock);

	if (session->state == TC_SESSION_ACTIVE && !session->destroyed)
		return TRUE;
	g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE, "Session '%s' is not started",
		    session->name);
	return FALSE;
}

static gboolean
handle_stop_with_options(TcDbusSession *object, GDBusMethodInvocation *invocation,
			 GVariant *options, TcSession *session)
{
	g_autoptr(GError) error = NULL;
	gboolean no_wait = FALSE;
	GVariantIter iter;
	const char *key;
	GVariant *value;
	TcRequest *request;

	g_variant_iter_init(&iter, options);
	while (g_variant_iter_next(&iter, "{&sv}", &key, &value)) {
		g_autoptr(GVariant) owned = value;

		if (g_str_equal(key, "no-wait") &&
		    g_variant_is_of_type(value, G_VARIANT_TYPE_BOOLEAN))
			no_wait = g_variant_get_boolean(value);
		else {
			set_unknown_option("StopWithOptions", key, value, &error);
			return refuse(invocation, error);
		}
	}
	request = tc_request_new(invocation, session);
	request->no_wait = no_wait;
	request->authorized = stop_check_active;
	request->work = stop_work;
	submit(session, request);
	return TRUE;
}

