/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-lttng"

#include "tc-lttng-session.h"

#include <errno.h>
#include <gio/gio.h>
#include <lttng/ust-ctl.h>
#include <lttng/ust-error.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tc-channel.h"
#include "tc-consumer.h"
#include "tc-error.h"
#include "tc-event-rule.h"
#include "tc-lttng-context.h"
#include "tc-lttng-owner.h"
#include "tc-lttng-registry.h"
#include "tc-lttng-trace.h"
#include "tc-perf-counter.h"
#include "tc-registry.h"
#include "tracectl-abi.h"

/* Whether a command's failure means the command socket is out of use:
 * broken, timed out (the late answer would be taken for the next
 * command's), or the application exiting. */
static gboolean
link_is_lost(int ret)
{
	return ret == -EPIPE || ret == -ECONNRESET || ret == -EAGAIN || ret == -ETIMEDOUT ||
	       ret == -ENOTCONN || ret == -LTTNG_UST_ERR_EXITING;
}

/* A failed command: a G_IO_ERROR when the link is lost (the batch then
 * drops the application), else TC_ERROR_FAILED. */
static gboolean
session_fail(GError **error, int ret, const char *what)
{
	const char *why = ret < 0 && ret > -1000 ? g_strerror(-ret) : "LTTng-UST error";

	if (link_is_lost(ret))
		g_set_error(error, G_IO_ERROR, ret == -LTTNG_UST_ERR_EXITING
						   ? G_IO_ERROR_CLOSED
						   : g_io_error_from_errno(-ret),
			    "%s: %s", what, why);
	else
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "%s: %s", what, why);
	return FALSE;
}

/* A fresh object of the channel for one application: liblttng-ust-ctl
 * writes the application's handle into it; the descriptors are copies,
 * closed once sent. A failed dup() leaves -1 (checked by the sender).
 * GLib allocates with malloc(), which lttng_ust_ctl_release_object()
 * and free() undo. */
static struct lttng_ust_abi_object_data *
channel_object_new(const TcConsumerLttngChannel *channel)
{
	struct lttng_ust_abi_object_data *obj = g_new0(struct lttng_ust_abi_object_data, 1);
	gsize size;
	const void *data = g_bytes_get_data(channel->data, &size);

	obj->type = LTTNG_UST_ABI_OBJECT_TYPE_CHANNEL;
	obj->handle = -1;
	obj->size = size;
	obj->u.channel.data = g_memdup2(data, size);
	obj->u.channel.type = channel->chan_type;
	obj->u.channel.wakeup_fd = dup(channel->wakeup_fd);
	return obj;
}

static struct lttng_ust_abi_object_data *
stream_object_new(const TcConsumerLttngChannel *channel, guint index)
{
	struct lttng_ust_abi_object_data *obj = g_new0(struct lttng_ust_abi_object_data, 1);

	obj->type = LTTNG_UST_ABI_OBJECT_TYPE_STREAM;
	obj->handle = -1;
	obj->size = channel->stream_size;
	obj->u.stream.shm_fd = dup(channel->stream_fds[2 * index]);
	obj->u.stream.wakeup_fd = dup(channel->stream_fds[2 * index + 1]);
	obj->u.stream.stream_nr = index;
	return obj;
}

/* Closes our copies of its descriptors and frees it (the application's
 * objects stay: sock -1 releases nothing there). */
static void
object_free(struct lttng_ust_abi_object_data *obj)
{
	if (obj == NULL)
		return;
	(void)lttng_ust_ctl_release_object(-1, obj);
	free(obj);
}

static gboolean
send_buffers(TcLttngApp *app, int handle, const TcConsumerLttngChannel *channel,
	     struct lttng_ust_abi_object_data *chan_obj, GError **error)
{
	int ret;

	if (chan_obj->u.channel.wakeup_fd < 0)
		return session_fail(error, -errno, "dup");
	ret = lttng_ust_ctl_send_channel_to_ust(app->cmd_fd, handle, chan_obj);
	if (ret < 0)
		return session_fail(error, ret, "sending the channel");
	for (guint i = 0; i < channel->nr_streams; i++) {
		struct lttng_ust_abi_object_data *stream = stream_object_new(channel, i);

		ret = stream->u.stream.shm_fd < 0 || stream->u.stream.wakeup_fd < 0
			  ? -EMFILE
			  : lttng_ust_ctl_send_stream_to_ust(app->cmd_fd, chan_obj, stream);
		object_free(stream);
		if (ret < 0)
			return session_fail(error, ret, "sending a stream");
	}
	return TRUE;
}

/* What an application is told of an event rule, copied out of the
 * session under [S]. */
typedef struct {
	char *pattern;
	char *key; /* what disable-event names it by (tc_event_rule_key()) */
	int loglevel; /* -1: any */
	gboolean loglevel_only;
	char **exclusions;
	GBytes *filter; /* LTTng-UST's bytecode, NULL: none */
	guint32 reloc_offset;
	char *refusal; /* why the rule's filter cannot be given, or NULL */
	guint64 seqnum; /* the rule's place in its channel, as LTTng orders filters */
} RuleCopy;

static void
rule_copy_free(gpointer data)
{
	RuleCopy *copy = data;

	g_free(copy->pattern);
	g_free(copy->key);
	g_strfreev(copy->exclusions);
	g_clear_pointer(&copy->filter, g_bytes_unref);
	g_free(copy->refusal);
	g_free(copy);
}

/* The rules of the session's channel of that name (or the newest of
 * key, when not NULL), read under [S]; a disabled channel's too (the
 * channel is disabled in the application, its rules stay). */
static GPtrArray *
session_rules(TcSession *session, const char *channel_name, const char *key)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&session->lock);
	TcChannel *channel = tc_session_find_channel_locked(session, channel_name);
	GPtrArray *rules = g_ptr_array_new_with_free_func(rule_copy_free);

	for (guint i = 0; channel && i < channel->rules->len; i++) {
		const TcEventRule *rule = g_ptr_array_index(channel->rules, i);
		RuleCopy *copy;

		if (key && !g_str_equal(tc_event_rule_key(rule), key))
			continue;
		copy = g_new0(RuleCopy, 1);
		copy->pattern = g_strdup(rule->pattern);
		copy->key = g_strdup(tc_event_rule_key(rule));
		copy->loglevel = rule->loglevel;
		copy->loglevel_only = rule->loglevel_only;
		copy->exclusions = g_strdupv(rule->exclusions);
		copy->filter = rule->lttng_filter ? g_bytes_ref(rule->lttng_filter) : NULL;
		copy->reloc_offset = rule->lttng_reloc_offset;
		copy->refusal = g_strdup(rule->lttng_refusal);
		copy->seqnum = i;
		/* Of one key, the rule just added: the last. */
		if (key)
			g_ptr_array_set_size(rules, 0);
		g_ptr_array_add(rules, copy);
	}
	return rules;
}

/* cmd_lock held: the exclusions of rule on the event rule event. */
static int
set_exclusions(TcLttngApp *app, const RuleCopy *rule, struct lttng_ust_abi_object_data *event)
{
	guint count = g_strv_length(rule->exclusions);
	g_autofree struct lttng_ust_abi_event_exclusion *exclusion = NULL;

	if (count == 0)
		return 0;
	exclusion = g_malloc0(sizeof(*exclusion) + (gsize)count * LTTNG_UST_ABI_SYM_NAME_LEN);
	exclusion->count = count;
	for (guint i = 0; i < count; i++)
		g_strlcpy(exclusion->names[i], rule->exclusions[i], LTTNG_UST_ABI_SYM_NAME_LEN);
	return lttng_ust_ctl_set_exclusion(app->cmd_fd, exclusion, event);
}

/* cmd_lock held: the rule's filter on the event rule event, before it
 * is enabled (as lttng-sessiond's set_ust_object_filter()). */
static int
set_filter(TcLttngApp *app, const RuleCopy *rule, struct lttng_ust_abi_object_data *event)
{
	gsize len;
	const void *data;
	g_autofree struct lttng_ust_abi_filter_bytecode *bytecode = NULL;

	if (rule->filter == NULL)
		return 0;
	data = g_bytes_get_data(rule->filter, &len);
	/* tc_filter_lttng_compile() bounds it to LTTng-UST's maximum. */
	g_assert(len <= LTTNG_UST_ABI_FILTER_BYTECODE_MAX_LEN);
	bytecode = g_malloc0(sizeof(*bytecode) + len);
	bytecode->len = (uint32_t)len;
	bytecode->reloc_offset = rule->reloc_offset;
	bytecode->seqnum = rule->seqnum;
	memcpy(bytecode->data, data, len);
	return lttng_ust_ctl_set_filter(app->cmd_fd, bytecode, event);
}

/* Whether ret is the application's answer to a command, rather than its
 * socket failing or the application leaving: then the next commands can
 * still be sent. */
static gboolean
is_refusal(int ret)
{
	return ret < 0 && ret != -EPIPE && ret != -ECONNRESET && ret != -ETIMEDOUT &&
	       ret != -EAGAIN && ret != -LTTNG_UST_ERR_EXITING;
}

/* cmd_lock held: one event rule in the trace's channel, of the
 * application's object chan_obj, enabled. TC_ERROR_NOT_SUPPORTED for a
 * rule this application is not given: its filter has no LTTng-UST
 * equivalent, or the application refused it (rather than recording what
 * it filters out). */
static gboolean
enable_event(TcLttngApp *app, TcLttngTrace *trace, const TcLttngTraceChannel *channel,
	     struct lttng_ust_abi_object_data *chan_obj, const RuleCopy *rule, GError **error)
{
	struct lttng_ust_abi_object_data *event = NULL;
	struct lttng_ust_abi_event attr = {
	    .instrumentation = LTTNG_UST_ABI_TRACEPOINT,
	    .loglevel_type = rule->loglevel < 0	  ? LTTNG_UST_ABI_LOGLEVEL_ALL
			     : rule->loglevel_only ? LTTNG_UST_ABI_LOGLEVEL_SINGLE
						   : LTTNG_UST_ABI_LOGLEVEL_RANGE,
	    .loglevel = rule->loglevel < 0 ? -1 : rule->loglevel,
	};
	int ret;

	if (rule->refusal) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
			    "'%s' is not given to LTTng-UST applications: %s", rule->pattern,
			    rule->refusal);
		return FALSE;
	}
	g_strlcpy(attr.name, rule->pattern, sizeof(attr.name));
	ret = lttng_ust_ctl_create_event(app->cmd_fd, &attr, chan_obj, &event);
	if (ret >= 0 && is_refusal(ret = set_filter(app, rule, event))) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
			    "'%s': the application refused its filter (%s); the rule is left out",
			    rule->pattern, ret > -1000 ? g_strerror(-ret) : "LTTng-UST error");
		/* The rule's object stays disabled; release it in the application. */
		(void)lttng_ust_ctl_release_object(app->cmd_fd, event);
		free(event);
		return FALSE;
	}
	if (ret >= 0)
		ret = set_exclusions(app, rule, event);
	if (ret >= 0)
		ret = lttng_ust_ctl_enable(app->cmd_fd, event);
	if (ret >= 0)
		tc_lttng_trace_add_event_handle(trace, channel, app->id, rule->key, event->handle);
	free(event);
	return ret < 0 ? session_fail(error, ret, "creating an event rule") : TRUE;
}

/* cmd_lock held: the rules of the session's channel (of key only, when
 * not NULL); a rule not supported yet is left out with a warning. */
static gboolean
enable_events(TcLttngApp *app, TcSession *session, TcLttngTrace *trace,
	      const TcLttngTraceChannel *channel, struct lttng_ust_abi_object_data *chan_obj,
	      const char *key, GError **error)
{
	g_autoptr(GPtrArray) rules = session_rules(session, channel->name, key);

	for (guint i = 0; i < rules->len; i++) {
		g_autoptr(GError) refusal = NULL;

		if (enable_event(app, trace, channel, chan_obj, g_ptr_array_index(rules, i),
				 &refusal))
			continue;
		if (!g_error_matches(refusal, TC_ERROR, TC_ERROR_NOT_SUPPORTED)) {
			g_propagate_error(error, g_steal_pointer(&refusal));
			return FALSE;
		}
		g_warning("Session '%s', LTTng-UST application pid=%d: %s", session->name,
			  (int)app->pid, refusal->message);
	}
	return TRUE;
}

/* cmd_lock held: one context in the channel's object chan_obj. */
static gboolean
add_context(TcLttngApp *app, struct lttng_ust_context_attr *attr,
	    struct lttng_ust_abi_object_data *chan_obj, const char *name, GError **error)
{
	struct lttng_ust_abi_object_data *context = NULL;
	int ret = lttng_ust_ctl_add_context(app->cmd_fd, attr, chan_obj, &context);

	free(context);
	if (ret >= 0)
		return TRUE;
	session_fail(error, ret, "adding a context");
	if (attr->ctx != LTTNG_UST_ABI_CONTEXT_PERF_THREAD_COUNTER)
		g_prefix_error(error, "Context '%s': ", name);
	return FALSE;
}

/* cmd_lock held: the channel's contexts in its object chan_obj, before
 * it records, always in this order: the order of the TRACECTL_CONTEXT_*
 * bits (which is also the order of tracectl's own stream classes and of
 * the session's context list), ip, then the perf counters in the order
 * they were added (the applications of one trace share its stream class;
 * lttng-sessiond adds them all in the order they were added to the
 * channel). Every context of the session model has its LTTng-UST 2.13
 * counterpart: the application describes each one's field (ids as
 * 32-bit, namespaces, ip and perf counters as 64-bit unsigned integers)
 * in its channel registration. LTTng-UST opens a perf counter in each
 * thread that records (perf_event_open() in the application, its
 * value read at each event); it refuses the context when the counter
 * cannot be opened, and the application is then left out of the session,
 * as under lttng-sessiond (the stream class the service declared for the
 * channel when it made the trace still describes its packets). */
static gboolean
add_contexts(TcLttngApp *app, const TcLttngTraceChannel *channel,
	     struct lttng_ust_abi_object_data *chan_obj, GError **error)
{
	gsize count;
	const TcLttngContext *map = tc_lttng_context_table(&count);

	for (gsize i = 0; i < count; i++) {
		struct lttng_ust_context_attr attr = {.ctx = map[i].type};

		if ((channel->contexts & map[i].bit) &&
		    !add_context(app, &attr, chan_obj, map[i].name, error))
			return FALSE;
	}
	for (guint i = 0; i < channel->perf_counters->len; i++) {
		const struct tc_perf_counter *counter =
		    &g_array_index(channel->perf_counters, struct tc_perf_counter, i);
		struct lttng_ust_context_attr attr = {.ctx =
							  LTTNG_UST_ABI_CONTEXT_PERF_THREAD_COUNTER};

		G_STATIC_ASSERT(sizeof(counter->name) <= sizeof(attr.u.perf_counter.name));
		attr.u.perf_counter.type = counter->type;
		attr.u.perf_counter.config = counter->config;
		memcpy(attr.u.perf_counter.name, counter->name, sizeof(counter->name));
		if (!add_context(app, &attr, chan_obj, counter->name, error)) {
			char spelling[TC_PERF_COUNTER_NAME_MAX];

			if (tc_perf_counter_spell(counter, spelling, sizeof(spelling)) < 0)
				g_strlcpy(spelling, counter->name, sizeof(spelling));
			g_prefix_error(error,
				       "Perf counter context '%s' refused by the application (it "
				       "opens the counter itself: can this machine count it?): ",
				       spelling);
			return FALSE;
		}
	}
	return TRUE;
}

static gboolean
channel_is_disabled(TcSession *session, const char *name)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&session->lock);
	TcChannel *channel = tc_session_find_channel_locked(session, name);

	return channel && channel->is_disabled;
}

/* cmd_lock held: one channel of the trace in the application's session
 * handle: its buffers, its contexts, its events, and disabled when it
 * is (LTTng-UST records nothing of a disabled channel). */
static gboolean
channel_to_app(TcSession *session, TcLttngTrace *trace, const TcLttngTraceChannel *channel,
	       TcLttngApp *app, int handle, GError **error)
{
	struct lttng_ust_abi_object_data *chan_obj = channel_object_new(channel->buffers);
	gboolean ok = send_buffers(app, handle, channel->buffers, chan_obj, error);
	int ret;

	if (ok)
		tc_lttng_trace_set_channel_handle(trace, channel, app->id, chan_obj->handle);
	ok = ok && add_contexts(app, channel, chan_obj, error) &&
	     enable_events(app, session, trace, channel, chan_obj, NULL, error);
	if (ok && channel_is_disabled(session, channel->name)) {
		ret = lttng_ust_ctl_disable(app->cmd_fd, chan_obj);
		ok = ret >= 0 || session_fail(error, ret, "disabling a channel");
	}
	object_free(chan_obj);
	return ok;
}

/* cmd_lock held: the whole of one application's setup. */
static gboolean
apply_to_app(TcSession *session, TcLttngTrace *trace, TcLttngApp *app, GError **error)
{
	gboolean ok = TRUE;
	int handle, ret;

	handle = tc_lttng_trace_handle_of(trace, app->id);
	if (handle >= 0) {
		/* Started again after a stop: its buffers and rules are there.
		 * LTTng-UST answers its generic error when the session is
		 * active already (a start and a registration both applied
		 * it): that is success. */
		ret = lttng_ust_ctl_start_session(app->cmd_fd, handle);
		return ret < 0 && ret != -LTTNG_UST_ERR
			   ? session_fail(error, ret, "starting the session again")
			   : TRUE;
	}
	handle = lttng_ust_ctl_create_session(app->cmd_fd);
	if (handle < 0)
		return session_fail(error, handle, "creating the session");
	/* Bound before anything makes it register on its notify socket. */
	tc_lttng_trace_bind(trace, app->id, handle);
	for (guint i = 0; ok && i < trace->channels->len; i++)
		ok = channel_to_app(session, trace, g_ptr_array_index(trace->channels, i), app,
				    handle, error);
	if (ok) {
		ret = lttng_ust_ctl_start_session(app->cmd_fd, handle);
		ok = ret >= 0 || session_fail(error, ret, "starting the session");
	}
	if (!ok) {
		/* Half set up: forgotten on both sides, so that the next start
		 * sets it up from the beginning (a lost link is not asked
		 * again: the application is dropped). */
		if ((*error)->domain != G_IO_ERROR)
			(void)lttng_ust_ctl_release_handle(app->cmd_fd, handle);
		tc_lttng_trace_unbind(trace, app->id);
	}
	return ok;
}

/* What an application's part of an operation needs, referenced: the
 * work may run after the operation gave up waiting for it. */
typedef struct {
	TcSession *session;
	TcLttngTrace *trace;
	const TcLttngTraceChannel *channel; /* the trace's, for enable and disable */
	char *pattern; /* the rule's key, likewise */
} AppWork;

static AppWork *
app_work_new(TcSession *session, TcLttngTrace *trace, const TcLttngTraceChannel *channel,
	     const char *pattern)
{
	AppWork *work = g_new0(AppWork, 1);

	work->session = tc_session_ref(session);
	work->trace = tc_lttng_trace_ref(trace);
	work->channel = channel;
	work->pattern = g_strdup(pattern);
	return work;
}

static void
app_work_free(gpointer data)
{
	AppWork *work = data;

	tc_session_unref(work->session);
	tc_lttng_trace_unref(work->trace);
	g_free(work->pattern);
	g_free(work);
}

/* The owner's thread: the whole of one application's setup, or its
 * start again (either way idempotent: what a start and a registration
 * both queue is applied once). */
static gboolean
apply_work(TcLttngApp *app, gpointer data, GError **error)
{
	AppWork *work = data;
	gboolean ok;

	g_mutex_lock(&app->cmd_lock);
	ok = apply_to_app(work->session, work->trace, app, error);
	g_mutex_unlock(&app->cmd_lock);
	if (ok)
		g_message("Session '%s' applied to the LTTng-UST application pid=%d uid=%u",
			  work->session->name, (int)app->pid, (unsigned)app->uid);
	return ok;
}

/* op_lock held: the trace of session that app records into (a new
 * reference), made if needed. */
static TcLttngTrace *
trace_for_locked(TcSession *session, TcLttngApp *app, GError **error)
{
	if (app->bits_per_long != 64) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
			    "only 64-bit LTTng-UST applications are traced yet");
		return NULL;
	}
	return tc_lttng_trace_ensure_locked(session, app, error);
}

static gboolean
session_is_active(TcSession *session)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&session->lock);

	return session->state == TC_SESSION_ACTIVE && !session->destroyed;
}

void
tc_lttng_session_start_locked(TcSession *session)
{
	g_autoptr(GPtrArray) apps = NULL;
	TcLttngBatch *batch;

	if (!session_is_active(session))
		return;
	apps = tc_lttng_registry_list(session->owner_uid, session->owner_uid == 0);
	batch = tc_lttng_owner_batch_new(session->name, "the start");
	for (guint i = 0; i < apps->len; i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(TcLttngTrace) trace = NULL;
		TcLttngApp *app = g_ptr_array_index(apps, i);

		if (!tc_session_records_uid(session, app->uid))
			continue;
		trace = trace_for_locked(session, app, &error);
		if (trace)
			tc_lttng_owner_batch_add(batch, app, apply_work,
						 app_work_new(session, trace, NULL, NULL), app_work_free);
		else
			g_warning("Session '%s' not applied to the LTTng-UST application pid=%d: %s",
				  session->name, (int)app->pid, error->message);
	}
	tc_lttng_owner_batch_wait(batch, TC_LTTNG_SESSION_DEADLINE_MS);
}

/* Queues work on every application of trace's uid, or on its one
 * application for a per-PID trace (each work finds out whether the
 * application is bound to the trace when it runs, after the works
 * queued before it). */
static void
batch_add_trace(TcLttngBatch *batch, TcSession *session, TcLttngTrace *trace,
		const TcLttngTraceChannel *channel, TcLttngBatchFunc func, const char *pattern)
{
	g_autoptr(GPtrArray) apps = tc_lttng_registry_list(trace->uid, FALSE);

	for (guint i = 0; i < apps->len; i++) {
		TcLttngApp *app = g_ptr_array_index(apps, i);

		if (trace->app_id == 0 || trace->app_id == app->id)
			tc_lttng_owner_batch_add(batch, app, func,
						 app_work_new(session, trace, channel, pattern),
						 app_work_free);
	}
}

static gboolean
stop_work(TcLttngApp *app, gpointer data, GError **error)
{
	AppWork *work = data;
	int handle = tc_lttng_trace_handle_of(work->trace, app->id), ret;

	if (handle < 0)
		return TRUE;
	g_mutex_lock(&app->cmd_lock);
	ret = lttng_ust_ctl_stop_session(app->cmd_fd, handle);
	g_mutex_unlock(&app->cmd_lock);
	return ret < 0 ? session_fail(error, ret, "stopping the session") : TRUE;
}

gboolean
tc_lttng_session_stop_locked(TcSession *session, GError **error)
{
	g_autoptr(GPtrArray) traces = tc_lttng_trace_list(session->id);
	g_autoptr(TcConsumer) consumer = NULL;
	TcLttngBatch *batch;

	if (traces->len == 0)
		return TRUE;
	batch = tc_lttng_owner_batch_new(session->name, "the stop");
	for (guint i = 0; i < traces->len; i++)
		batch_add_trace(batch, session, g_ptr_array_index(traces, i), NULL, stop_work, NULL);
	tc_lttng_owner_batch_wait(batch, TC_LTTNG_SESSION_DEADLINE_MS);
	consumer = tc_consumer_get(session->owner_uid, error);
	if (consumer == NULL)
		return FALSE;
	for (guint i = 0; i < traces->len; i++) {
		TcLttngTrace *trace = g_ptr_array_index(traces, i);

		if (!tc_consumer_flush_session(consumer, trace->consumer_id, NULL, error))
			return FALSE;
	}
	return TRUE;
}

/* The application's object of the work's channel: only its handle (-1:
 * none) is read by lttng_ust_ctl_create_event(), _enable() and
 * _disable(). */
static struct lttng_ust_abi_object_data
work_channel_object(const AppWork *work, const TcLttngApp *app)
{
	return (struct lttng_ust_abi_object_data){
	    .type = LTTNG_UST_ABI_OBJECT_TYPE_CHANNEL,
	    .handle = tc_lttng_trace_channel_handle(work->trace, work->channel, app->id),
	};
}

static gboolean
enable_work(TcLttngApp *app, gpointer data, GError **error)
{
	AppWork *work = data;
	struct lttng_ust_abi_object_data chan_obj = work_channel_object(work, app);
	gboolean ok;

	if (chan_obj.handle < 0)
		return TRUE;
	g_mutex_lock(&app->cmd_lock);
	ok = enable_events(app, work->session, work->trace, work->channel, &chan_obj,
			   work->pattern, error);
	g_mutex_unlock(&app->cmd_lock);
	return ok;
}

static gboolean
disable_work(TcLttngApp *app, gpointer data, GError **error)
{
	AppWork *work = data;
	g_autoptr(GArray) handles =
	    tc_lttng_trace_take_event_handles(work->trace, work->channel, app->id, work->pattern);
	int ret = 0;

	g_mutex_lock(&app->cmd_lock);
	for (guint j = 0; ret >= 0 && j < handles->len; j++) {
		/* Only the handle is read by lttng_ust_ctl_disable(). */
		struct lttng_ust_abi_object_data event = {
		    .type = LTTNG_UST_ABI_OBJECT_TYPE_EVENT,
		    .handle = g_array_index(handles, int, j),
		};

		ret = lttng_ust_ctl_disable(app->cmd_fd, &event);
	}
	g_mutex_unlock(&app->cmd_lock);
	return ret < 0 ? session_fail(error, ret, "disabling an event rule") : TRUE;
}

/* Events of pattern enabled or disabled in a channel of session's
 * traces, in the applications bound to them. Every trace has every
 * channel: a session takes channels only before its first start, and
 * traces are made at or after it. op_lock held. */
static void
change_events_locked(TcSession *session, const char *channel_name, const char *pattern,
		     gboolean enable)
{
	g_autoptr(GPtrArray) traces = tc_lttng_trace_list(session->id);
	TcLttngBatch *batch;

	if (traces->len == 0)
		return;
	batch = tc_lttng_owner_batch_new(session->name, enable ? "enable-event" : "disable-event");
	for (guint i = 0; i < traces->len; i++) {
		TcLttngTrace *trace = g_ptr_array_index(traces, i);
		const TcLttngTraceChannel *channel = tc_lttng_trace_find_channel(trace, channel_name);

		if (channel == NULL) {
			g_critical("Session '%s': channel '%s' is not in the LTTng-UST trace of uid %u",
				   session->name, channel_name, (unsigned)trace->uid);
			continue;
		}
		batch_add_trace(batch, session, trace, channel, enable ? enable_work : disable_work,
				pattern);
	}
	tc_lttng_owner_batch_wait(batch, TC_LTTNG_SESSION_DEADLINE_MS);
}

void
tc_lttng_session_enable_event_locked(TcSession *session, const char *channel,
				     const char *pattern)
{
	change_events_locked(session, channel, pattern, TRUE);
}

void
tc_lttng_session_disable_event_locked(TcSession *session, const char *channel,
				      const char *pattern)
{
	change_events_locked(session, channel, pattern, FALSE);
}

/* The owner's thread: the channel of work enabled or disabled in the
 * application. */
static gboolean
set_channel_state(TcLttngApp *app, AppWork *work, gboolean enabled, GError **error)
{
	struct lttng_ust_abi_object_data chan_obj = work_channel_object(work, app);
	int ret;

	if (chan_obj.handle < 0)
		return TRUE;
	g_mutex_lock(&app->cmd_lock);
	ret = enabled ? lttng_ust_ctl_enable(app->cmd_fd, &chan_obj)
		      : lttng_ust_ctl_disable(app->cmd_fd, &chan_obj);
	g_mutex_unlock(&app->cmd_lock);
	return ret < 0 ? session_fail(error, ret, enabled ? "enabling a channel"
							  : "disabling a channel")
		       : TRUE;
}

static gboolean
channel_enable_work(TcLttngApp *app, gpointer data, GError **error)
{
	return set_channel_state(app, data, TRUE, error);
}

static gboolean
channel_disable_work(TcLttngApp *app, gpointer data, GError **error)
{
	return set_channel_state(app, data, FALSE, error);
}

void
tc_lttng_session_set_channel_enabled_locked(TcSession *session, const char *channel_name,
					    gboolean enabled)
{
	g_autoptr(GPtrArray) traces = tc_lttng_trace_list(session->id);
	TcLttngBatch *batch;

	if (traces->len == 0)
		return;
	batch = tc_lttng_owner_batch_new(session->name,
					 enabled ? "enable-channel" : "disable-channel");
	for (guint i = 0; i < traces->len; i++) {
		TcLttngTrace *trace = g_ptr_array_index(traces, i);
		const TcLttngTraceChannel *channel = tc_lttng_trace_find_channel(trace, channel_name);

		if (channel != NULL)
			batch_add_trace(batch, session, trace, channel,
					enabled ? channel_enable_work : channel_disable_work, NULL);
	}
	tc_lttng_owner_batch_wait(batch, TC_LTTNG_SESSION_DEADLINE_MS);
}

/* The owner's thread: the session released in the application (it
 * unmaps the buffers), its binding forgotten. */
static gboolean
release_work(TcLttngApp *app, gpointer data, GError **error)
{
	AppWork *work = data;
	int handle = tc_lttng_trace_handle_of(work->trace, app->id), ret;

	if (handle < 0)
		return TRUE;
	g_mutex_lock(&app->cmd_lock);
	ret = lttng_ust_ctl_release_handle(app->cmd_fd, handle);
	g_mutex_unlock(&app->cmd_lock);
	tc_lttng_trace_unbind(work->trace, app->id);
	return ret < 0 ? session_fail(error, ret, "releasing the session") : TRUE;
}

void
tc_lttng_session_destroy_locked(TcSession *session)
{
	g_autoptr(GPtrArray) traces = tc_lttng_trace_forget(session->id);
	g_autoptr(TcConsumer) consumer = NULL;
	TcLttngBatch *batch;

	if (traces->len == 0)
		return;
	batch = tc_lttng_owner_batch_new(session->name, "the release");
	for (guint i = 0; i < traces->len; i++)
		batch_add_trace(batch, session, g_ptr_array_index(traces, i), NULL, release_work,
				NULL);
	tc_lttng_owner_batch_wait(batch, TC_LTTNG_SESSION_DEADLINE_MS);
	/* Works not done by now find the bindings gone: nothing of the
	 * traces is asked of the applications after this. */
	for (guint i = 0; i < traces->len; i++)
		tc_lttng_trace_unbind_trace(g_ptr_array_index(traces, i));
	consumer = tc_consumer_find(session->owner_uid);
	for (guint i = 0; consumer && i < traces->len; i++) {
		g_autoptr(GError) error = NULL;
		TcLttngTrace *trace = g_ptr_array_index(traces, i);

		if (!tc_consumer_destroy_session(consumer, trace->consumer_id, &error))
			g_warning("Session '%s': the LTTng-UST trace %s: %s", session->name,
				  trace->path, error->message);
	}
}

/* The session owner's thread: a per-PID trace whose application went,
 * written out and closed under its session's op_lock (so that no
 * rotation, clear, stop or snapshot lists it meanwhile). FALSE when
 * op_lock is held: its operation may be waiting for this very thread. */
static gboolean
release_per_pid_trace(TcLttngTrace *trace)
{
	g_autoptr(TcSession) session = tc_registry_find_session(trace->session_id);
	g_autoptr(TcConsumer) consumer = NULL;
	g_autoptr(GError) error = NULL;

	/* Gone from the registry: its destroy forgets and closes it. */
	if (session == NULL)
		return TRUE;
	if (!g_mutex_trylock(&session->op_lock))
		return FALSE;
	if (tc_lttng_trace_unlink(trace)) {
		tc_lttng_trace_unbind_trace(trace);
		consumer = tc_consumer_find(session->owner_uid);
		if (consumer && tc_consumer_destroy_session(consumer, trace->consumer_id, &error))
			g_message("Session '%s': the LTTng-UST trace %s is complete: its "
				  "application ended",
				  session->name, trace->path);
		else
			g_warning("Session '%s': the LTTng-UST trace %s of an application that "
				  "ended: %s",
				  session->name, trace->path,
				  error ? error->message : "no consumer");
	}
	g_mutex_unlock(&session->op_lock);
	return TRUE;
}

static void
release_per_pid_cb(gpointer data, gpointer user_data)
{
	TcLttngTrace *trace = data;

	if (release_per_pid_trace(trace))
		return;
	/* The operation's works are queued behind this one or running
	 * elsewhere: a short pause, then behind them. */
	g_usleep(TC_LTTNG_SESSION_REQUEUE_PAUSE_MS * 1000);
	tc_lttng_owner_push(trace->owner, release_per_pid_cb, tc_lttng_trace_ref(trace),
			    (GDestroyNotify)tc_lttng_trace_unref);
}

void
tc_lttng_session_app_gone(TcLttngApp *app)
{
	g_autoptr(GPtrArray) traces = tc_lttng_trace_list_app(app->id);

	for (guint i = 0; i < traces->len; i++) {
		TcLttngTrace *trace = g_ptr_array_index(traces, i);

		tc_lttng_owner_push(trace->owner, release_per_pid_cb, tc_lttng_trace_ref(trace),
				    (GDestroyNotify)tc_lttng_trace_unref);
	}
}

/* The owner's thread, op_lock held by it: the trace app records into for
 * session, when the session is active and records app, or NULL. */
static TcLttngTrace *
registration_trace_locked(TcSession *session, TcLttngApp *app)
{
	g_autoptr(GError) error = NULL;
	TcLttngTrace *trace;

	if (!session_is_active(session))
		return NULL;
	trace = trace_for_locked(session, app, &error);
	if (trace == NULL)
		g_warning("Session '%s' not applied to the LTTng-UST application pid=%d: %s",
			  session->name, (int)app->pid, error->message);
	return trace;
}

gboolean
tc_lttng_session_apply_all(TcLttngApp *app, GHashTable *applied)
{
	g_autoptr(GPtrArray) sessions = tc_registry_list_sessions_recording(app->uid);

	for (guint i = 0; i < sessions->len; i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(TcLttngTrace) trace = NULL;
		TcSession *session = g_ptr_array_index(sessions, i);
		AppWork *work;

		if (g_hash_table_contains(applied, &session->id) ||
		    !tc_session_records_uid(session, app->uid))
			continue;
		/* An operation holding op_lock may be waiting for this very
		 * thread: never block on it. */
		if (!g_mutex_trylock(&session->op_lock))
			return FALSE;
		trace = registration_trace_locked(session, app);
		g_mutex_unlock(&session->op_lock);
		g_hash_table_add(applied, g_memdup2(&session->id, sizeof(session->id)));
		if (trace == NULL)
			continue;
		work = app_work_new(session, trace, NULL, NULL);
		if (!apply_work(app, work, &error))
			g_warning("Session '%s' not applied to the LTTng-UST application pid=%d: %s",
				  session->name, (int)app->pid, error->message);
		app_work_free(work);
		if (error && error->domain == G_IO_ERROR) {
			tc_lttng_owner_drop(app, error->message);
			return TRUE;
		}
	}
	return TRUE;
}

guint
tc_lttng_session_trace_count(TcSession *session)
{
	g_autoptr(GPtrArray) traces = tc_lttng_trace_list(session->id);

	return traces->len;
}

void
tc_lttng_session_append_consumer_ids(TcSession *session, GArray *ids)
{
	g_autoptr(GPtrArray) traces = tc_lttng_trace_list(session->id);

	for (guint i = 0; i < traces->len; i++)
		g_array_append_val(ids, ((TcLttngTrace *)g_ptr_array_index(traces, i))->consumer_id);
}

gboolean
tc_lttng_session_channel_stats_locked(TcSession *session, TcConsumer *consumer,
				      const char *channel, TcChannelStats *stats, GError **error)
{
	g_autoptr(GPtrArray) traces = tc_lttng_trace_list(session->id);

	for (guint i = 0; i < traces->len; i++) {
		TcLttngTrace *trace = g_ptr_array_index(traces, i);
		const TcLttngTraceChannel *found = tc_lttng_trace_find_channel(trace, channel);

		if (found &&
		    !tc_consumer_channel_stats(consumer, trace->consumer_id, found->chan_id, stats,
					       error)) {
			g_prefix_error(error, "the LTTng-UST trace %s: ", trace->path);
			return FALSE;
		}
	}
	return TRUE;
}

gboolean
tc_lttng_session_snapshot_locked(TcSession *session, TcConsumer *consumer, const char *root,
				 const struct tc_consumer_relay_output *relay, guint64 per_stream,
				 guint64 *packets, GError **error)
{
	g_autoptr(GPtrArray) traces = tc_lttng_trace_list(session->id);

	for (guint i = 0; i < traces->len; i++) {
		TcLttngTrace *trace = g_ptr_array_index(traces, i);
		g_autofree char *dir = g_build_filename(root, trace->path, NULL);
		guint64 count = 0;

		if (relay ? !tc_consumer_snapshot_relay(consumer, trace->consumer_id, relay, dir,
							per_stream, &count, error)
			  : !tc_consumer_snapshot(consumer, trace->consumer_id, dir, per_stream,
						  &count, error)) {
			g_prefix_error(error, "the LTTng-UST trace %s: ", trace->path);
			return FALSE;
		}
		*packets += count;
	}
	return TRUE;
}
