/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-agent"

#include "tc-agents.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tc-agent-link.h"
#include "tc-agent-rule.h"
#include "tc-channel.h"
#include "tc-error.h"
#include "tc-lttng-owner.h"
#include "tc-peer-identity.h"
#include "tc-registry.h"
#include "tc-tcp-peer.h"

/* How many descriptors of a process are looked through for its
 * connection: an agent's process that holds more is refused. */
#define AGENT_FDS_SCANNED_MAX 65536

/* Module state, [M]: state_lock. */
static GMutex state_lock;
static GHashTable *agents;     /* [M] id -> TcAgentLink * (a reference) */
static GHashTable *pending;    /* [M] uid -> registrations under way */
static int listen_fd = -1;
static int epoll_fd = -1;
static int stop_fd = -1;
static GThread *thread;
static char *port_file;

/* A countdown one caller waits on while the owners' threads work. */
typedef struct {
	gint refcount;
	GMutex lock;
	GCond done;
	guint pending; /* [lock] */
} Countdown;

static Countdown *
countdown_new(void)
{
	Countdown *countdown = g_new0(Countdown, 1);

	countdown->refcount = 1;
	g_mutex_init(&countdown->lock);
	g_cond_init(&countdown->done);
	return countdown;
}

static void
countdown_unref(Countdown *countdown)
{
	if (countdown == NULL || !g_atomic_int_dec_and_test(&countdown->refcount))
		return;
	g_mutex_clear(&countdown->lock);
	g_cond_clear(&countdown->done);
	g_free(countdown);
}

static void
countdown_one_done(Countdown *countdown)
{
	g_mutex_lock(&countdown->lock);
	countdown->pending--;
	g_cond_signal(&countdown->done);
	g_mutex_unlock(&countdown->lock);
	countdown_unref(countdown);
}

/* Waits until every work counted is done or timeout_ms passed; FALSE
 * when some were not. */
static gboolean
countdown_wait(Countdown *countdown, guint timeout_ms)
{
	gint64 deadline = g_get_monotonic_time() + timeout_ms * G_TIME_SPAN_MILLISECOND;
	gboolean all;

	g_mutex_lock(&countdown->lock);
	while (countdown->pending > 0 &&
	       g_cond_wait_until(&countdown->done, &countdown->lock, deadline))
		;
	all = countdown->pending == 0;
	g_mutex_unlock(&countdown->lock);
	return all;
}

/* The agents table. */

static void
forget_agent(TcAgentLink *link, const char *why)
{
	TcAgentLink *held = NULL;

	g_mutex_lock(&state_lock);
	if (agents && g_hash_table_steal_extended(agents, &link->id, NULL, (gpointer *)&held))
		(void)epoll_ctl(epoll_fd, EPOLL_CTL_DEL, held->fd, NULL);
	g_mutex_unlock(&state_lock);
	if (held == NULL)
		return;
	g_message("%s agent pid=%d uid=%u gone: %s", tc_agent_domain_name(link->domain),
		  (int)link->pid, (unsigned)link->uid, why);
	tc_agent_link_shutdown(held);
	tc_agent_link_unref(held);
}

/* New references to the agents keep() selects. */
static GPtrArray *
select_agents(gboolean (*keep)(const TcAgentLink *link, gconstpointer data), gconstpointer data)
{
	GPtrArray *found = g_ptr_array_new_with_free_func((GDestroyNotify)tc_agent_link_unref);
	GHashTableIter iter;
	gpointer value;

	g_mutex_lock(&state_lock);
	if (agents) {
		g_hash_table_iter_init(&iter, agents);
		while (g_hash_table_iter_next(&iter, NULL, &value))
			if (keep(value, data))
				g_ptr_array_add(found, tc_agent_link_ref(value));
	}
	g_mutex_unlock(&state_lock);
	return found;
}

static gboolean
is_recorded_by(const TcAgentLink *link, gconstpointer session)
{
	return tc_session_records_uid(session, link->uid);
}

/* New references to the agents whose uid session records. */
static GPtrArray *
agents_of_session(TcSession *session)
{
	return select_agents(is_recorded_by, session);
}

/* What an agent should have been told: for each rule of its domain in
 * a session that records its uid, "SESSION-ID\x1eKEY" -> the command. */
static void
add_session_rules(TcAgentLink *link, TcSession *session, GHashTable *desired)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&session->lock);
	TcChannel *channel;

	if (session->destroyed || !tc_session_records_uid(session, link->uid))
		return;
	channel = tc_session_find_channel_locked(session, TC_DEFAULT_CHANNEL);
	for (guint i = 0; channel && i < channel->rules->len; i++) {
		const TcEventRule *rule = g_ptr_array_index(channel->rules, i);
		const TcAgentRule *agent = rule->agent;

		if (agent == NULL || agent->domain != (int)link->domain)
			continue;
		g_hash_table_insert(desired,
				    g_strdup_printf("%" G_GUINT64_FORMAT "\x1e%s", session->id,
						    agent->key),
				    tc_agent_protocol_enable(agent->logger, agent->loglevel,
							     agent->loglevel_type,
							     agent->filter_text));
	}
}

/* The logger an ENABLE command names (its fixed field, NUL-padded). */
static char *
enabled_logger(GBytes *enable)
{
	gsize size;
	const guint8 *bytes = g_bytes_get_data(enable, &size);

	return g_strndup((const char *)bytes + 16 + 8, TC_AGENT_NAME_MAX);
}

/* [owner's thread] Tells the agent what changed since it was last told:
 * a "disable" for each rule gone, an "enable" for each rule new. */
static gboolean
reconcile(TcAgentLink *link, GError **error)
{
	g_autoptr(GPtrArray) sessions = tc_registry_list_sessions_recording(link->uid);
	g_autoptr(GHashTable) desired =
	    g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_bytes_unref);
	GHashTableIter iter;
	gpointer key, value;

	for (guint i = 0; i < sessions->len; i++)
		add_session_rules(link, g_ptr_array_index(sessions, i), desired);
	g_hash_table_iter_init(&iter, link->enabled);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		g_autoptr(GBytes) disable = NULL;

		if (g_hash_table_contains(desired, key))
			continue;
		disable = tc_agent_protocol_disable(value);
		if (!tc_agent_link_send(link, disable, error))
			return FALSE;
		g_hash_table_iter_remove(&iter);
	}
	g_hash_table_iter_init(&iter, desired);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		if (g_hash_table_contains(link->enabled, key))
			continue;
		if (!tc_agent_link_send(link, value, error))
			return FALSE;
		g_hash_table_insert(link->enabled, g_strdup(key), enabled_logger(value));
	}
	return TRUE;
}

/* [owner's thread] reconcile(), dropping the agent when its link broke;
 * a refusal is only logged (the agent stays and is told again later). */
static void
reconcile_or_drop(TcAgentLink *link)
{
	g_autoptr(GError) error = NULL;

	if (reconcile(link, &error))
		return;
	if (error->domain == G_IO_ERROR) {
		forget_agent(link, error->message);
		return;
	}
	g_warning("%s agent pid=%d uid=%u: %s", tc_agent_domain_name(link->domain),
		  (int)link->pid, (unsigned)link->uid, error->message);
}

/* Work on the agents' owners' threads, waited for with one countdown. */

/* What a listing's works add to, kept until the caller and every work
 * left. */
typedef struct {
	gint refcount;
	GMutex lock;
	GPtrArray *result; /* [lock] TcAgentListing *, NULL once the caller left */
} Listing;

typedef struct {
	TcAgentLink *link;
	Countdown *countdown;
	Listing *listing; /* a listing's, NULL for a change */
} AgentWork;

static void listing_unref(Listing *listing);

static void
agent_work_free(gpointer data)
{
	AgentWork *work = data;

	tc_agent_link_unref(work->link);
	countdown_one_done(work->countdown);
	if (work->listing)
		listing_unref(work->listing);
	g_free(work);
}

/* run(work) for each of links on its owner's thread; the countdown to
 * wait on (the caller's reference). */
static Countdown *
push_works(GPtrArray *links, GFunc run, Listing *listing)
{
	Countdown *countdown = countdown_new();

	countdown->pending = links->len;
	for (guint i = 0; i < links->len; i++) {
		TcAgentLink *link = g_ptr_array_index(links, i);
		AgentWork *work = g_new0(AgentWork, 1);

		work->link = tc_agent_link_ref(link);
		g_atomic_int_inc(&countdown->refcount);
		work->countdown = countdown;
		if (listing) {
			g_atomic_int_inc(&listing->refcount);
			work->listing = listing;
		}
		tc_lttng_owner_push(link->uid, run, work, agent_work_free);
	}
	return countdown;
}

/* Session changes. */

static void
change_work_run(gpointer data, gpointer unused)
{
	AgentWork *work = data;

	reconcile_or_drop(work->link);
}

void
tc_agents_session_changed(TcSession *session)
{
	g_autoptr(GPtrArray) links = agents_of_session(session);
	Countdown *countdown;

	if (links->len == 0)
		return;
	countdown = push_works(links, change_work_run, NULL);
	if (!countdown_wait(countdown, TC_AGENTS_TIMEOUT_MS))
		g_warning("Session '%s': some agents were not told of its change within %d ms; "
			  "they will be",
			  session->name, TC_AGENTS_TIMEOUT_MS);
	countdown_unref(countdown);
}

/* Listings. */


static void
listing_free(gpointer data)
{
	TcAgentListing *listing = data;

	g_strfreev(listing->loggers);
	g_free(listing->procname);
	g_free(listing);
}

/* The process's name, for a person: the pid was shown to hold the
 * connection when the agent registered, and may have been reused since
 * if the agent is gone. */
static char *
procname_of(pid_t pid)
{
	g_autofree char *path = g_strdup_printf("/proc/%d/comm", (int)pid);
	char *contents = NULL;

	if (pid <= 0 || !g_file_get_contents(path, &contents, NULL, NULL))
		return g_strdup("?");
	return g_strchomp(contents);
}

static void
listing_unref(Listing *listing)
{
	if (!g_atomic_int_dec_and_test(&listing->refcount))
		return;
	g_mutex_clear(&listing->lock);
	g_clear_pointer(&listing->result, g_ptr_array_unref);
	g_free(listing);
}

static void
list_work_run(gpointer data, gpointer unused)
{
	AgentWork *work = data;
	g_autoptr(GError) error = NULL;
	TcAgentListing *one = g_new0(TcAgentListing, 1);

	one->pid = work->link->pid;
	one->uid = work->link->uid;
	one->domain = tc_agent_domain_name(work->link->domain);
	one->procname = procname_of(one->pid);
	one->loggers = tc_agent_link_list(work->link, &error);
	if (one->loggers == NULL) {
		g_warning("%s agent pid=%d uid=%u not listed: %s", one->domain, (int)one->pid,
			  (unsigned)one->uid, error->message);
		if (error->domain == G_IO_ERROR)
			forget_agent(work->link, error->message);
	}
	g_mutex_lock(&work->listing->lock);
	if (work->listing->result)
		g_ptr_array_add(work->listing->result, one);
	else
		listing_free(one);
	g_mutex_unlock(&work->listing->lock);
}

typedef struct {
	uid_t uid;
	gboolean all;
	const char *domain;
} ListedBy;

static gboolean
is_listed_by(const TcAgentLink *link, gconstpointer data)
{
	const ListedBy *by = data;

	return (by->all || link->uid == by->uid) &&
	       (by->domain == NULL || g_str_equal(by->domain, tc_agent_domain_name(link->domain)));
}

GPtrArray *
tc_agents_list(uid_t uid, gboolean all, const char *domain)
{
	ListedBy by = {.uid = uid, .all = all, .domain = domain};
	g_autoptr(GPtrArray) links = select_agents(is_listed_by, &by);
	Listing *listing = g_new0(Listing, 1);
	Countdown *countdown;
	GPtrArray *result;

	listing->refcount = 1;
	g_mutex_init(&listing->lock);
	listing->result = g_ptr_array_new_with_free_func(listing_free);
	countdown = push_works(links, list_work_run, listing);
	(void)countdown_wait(countdown, TC_AGENTS_TIMEOUT_MS);
	countdown_unref(countdown);
	g_mutex_lock(&listing->lock);
	result = g_steal_pointer(&listing->result);
	g_mutex_unlock(&listing->lock);
	listing_unref(listing);
	return result;
}

/* Registration. */

typedef struct {
	int fd;
	uid_t uid;
	guint64 inode;
} RegisterWork;

static void
pending_change(uid_t uid, int delta)
{
	gpointer key = GUINT_TO_POINTER(uid);
	int count;

	g_mutex_lock(&state_lock);
	if (pending) {
		count = GPOINTER_TO_INT(g_hash_table_lookup(pending, key)) + delta;
		if (count > 0)
			g_hash_table_insert(pending, key, GINT_TO_POINTER(count));
		else
			g_hash_table_remove(pending, key);
	}
	g_mutex_unlock(&state_lock);
}

static void
register_work_free(gpointer data)
{
	RegisterWork *work = data;

	if (work->fd >= 0)
		close(work->fd);
	pending_change(work->uid, -1);
	g_free(work);
}

/* The registration read and checked, charged to the accountable user. */
static TcAgentLink *
accept_registration(RegisterWork *work, GError **error)
{
	guint8 bytes[TC_AGENT_REGISTRATION_SIZE];
	TcAgentRegistration reg;
	TcUserCharge charge;
	TcPeerUserSource source;
	uid_t user;

	tc_agent_link_set_timeouts(work->fd, TC_AGENTS_TIMEOUT_MS);
	if (!tc_agent_link_read(work->fd, bytes, sizeof(bytes), error) ||
	    !tc_agent_protocol_parse_registration(bytes, &reg, error) ||
	    !tc_tcp_peer_pid_holds(reg.pid, work->uid, work->inode, AGENT_FDS_SCANNED_MAX,
				   error) ||
	    !tc_peer_identity_accountable_user_of_pid(reg.pid, work->uid, &user, &source, error))
		return NULL;
	tc_user_limits_charge_init(&charge, user);
	if (!tc_user_limits_charge(&charge, TC_LIMIT_CONNECTIONS, 1, error))
		return NULL;
	return tc_agent_link_new(g_steal_fd(&work->fd), work->uid, &reg, &charge);
}

static gboolean
publish(TcAgentLink *link, GError **error)
{
	struct epoll_event event = {.events = EPOLLRDHUP, .data.u64 = link->id};
	gboolean ok = FALSE;

	g_mutex_lock(&state_lock);
	if (agents == NULL)
		g_set_error_literal(error, TC_ERROR, TC_ERROR_INVALID_STATE, "The service stops");
	else if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, link->fd, &event) < 0)
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "Watching the agent: %s",
			    g_strerror(errno));
	else {
		g_hash_table_insert(agents, &link->id, tc_agent_link_ref(link));
		ok = TRUE;
	}
	g_mutex_unlock(&state_lock);
	return ok;
}

static void
register_work_run(gpointer data, gpointer unused)
{
	RegisterWork *work = data;
	g_autoptr(GError) error = NULL;
	g_autoptr(TcAgentLink) link = accept_registration(work, &error);
	g_autoptr(GBytes) done = NULL;

	if (link == NULL || !publish(link, &error)) {
		g_warning("Agent connection of uid %u refused: %s", (unsigned)work->uid,
			  error->message);
		return;
	}
	g_message("%s agent pid=%d uid=%u registered (protocol %d.%u)",
		  tc_agent_domain_name(link->domain), (int)link->pid, (unsigned)link->uid,
		  TC_AGENT_MAJOR, link->minor);
	/* The sessions' loggers before "registration done", which lets the
	 * agent's import return: its first records are recorded. */
	reconcile_or_drop(link);
	done = tc_agent_protocol_command(TC_AGENT_CMD_REGISTRATION_DONE);
	if (!tc_agent_link_send(link, done, &error))
		forget_agent(link, error->message);
}

/* The listen thread. */

static void
accept_one(void)
{
	g_autoptr(GError) error = NULL;
	RegisterWork *work;
	uid_t uid;
	guint64 inode;
	int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
	gboolean room;

	if (fd < 0)
		return;
	if (!tc_tcp_peer_identify(fd, &uid, &inode, &error)) {
		g_message("Agent connection refused: %s", error->message);
		close(fd);
		return;
	}
	g_mutex_lock(&state_lock);
	room = GPOINTER_TO_INT(g_hash_table_lookup(pending, GUINT_TO_POINTER(uid))) <
	       TC_AGENTS_PENDING_PER_UID_MAX;
	g_mutex_unlock(&state_lock);
	if (!room) {
		g_message("Agent connection of uid %u refused: %d registrations under way",
			  (unsigned)uid, TC_AGENTS_PENDING_PER_UID_MAX);
		close(fd);
		return;
	}
	pending_change(uid, +1);
	work = g_new0(RegisterWork, 1);
	work->fd = fd;
	work->uid = uid;
	work->inode = inode;
	tc_lttng_owner_push(uid, register_work_run, work, register_work_free);
}

static TcAgentLink *
find_agent(guint64 id)
{
	TcAgentLink *link;

	g_mutex_lock(&state_lock);
	link = agents ? g_hash_table_lookup(agents, &id) : NULL;
	if (link)
		tc_agent_link_ref(link);
	g_mutex_unlock(&state_lock);
	return link;
}

static gpointer
listen_thread(gpointer unused)
{
	for (;;) {
		struct epoll_event events[32];
		int n = epoll_wait(epoll_fd, events, G_N_ELEMENTS(events), -1);

		for (int i = 0; i < n; i++) {
			g_autoptr(TcAgentLink) link = NULL;

			if (events[i].data.u64 == 0)
				return NULL; /* stop_fd */
			if (events[i].data.u64 == G_MAXUINT64) {
				accept_one();
				continue;
			}
			link = find_agent(events[i].data.u64);
			if (link)
				forget_agent(link, "its connection closed");
		}
		if (n < 0 && errno != EINTR) {
			g_warning("Agents are no longer watched: %s", g_strerror(errno));
			return NULL;
		}
	}
}

/* Start and stop. */

static gboolean
fail_errno(GError **error, const char *what)
{
	g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "%s: %s", what, g_strerror(errno));
	return FALSE;
}

/* Binds the first free port of lttng-sessiond's range, so that agents
 * still running after a restart of the service, which keep retrying the
 * port they read once, find it again; else one of the kernel's choosing. */
static gboolean
bind_port(int fd)
{
	int one = 1;

	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	for (guint port = TC_AGENTS_PORT_FIRST; port <= TC_AGENTS_PORT_LAST + 1; port++) {
		struct sockaddr_in address = {
		    .sin_family = AF_INET,
		    .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
		    .sin_port = port > TC_AGENTS_PORT_LAST ? 0 : htons(port),
		};

		if (bind(fd, (struct sockaddr *)&address, sizeof(address)) == 0)
			return TRUE;
	}
	return FALSE;
}

static gboolean
open_listen_socket(guint16 *port, GError **error)
{
	struct sockaddr_in address;
	socklen_t length = sizeof(address);

	listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (listen_fd < 0)
		return fail_errno(error, "Opening the agents' socket");
	if (!bind_port(listen_fd) || listen(listen_fd, 64) < 0 ||
	    getsockname(listen_fd, (struct sockaddr *)&address, &length) < 0)
		return fail_errno(error, "Listening for agents on 127.0.0.1");
	*port = ntohs(address.sin_port);
	return TRUE;
}

/* The port in path, written whole (a new file renamed over the old one),
 * readable by everyone as lttng-sessiond's is. */
static gboolean
write_port_file(const char *path, guint16 port, GError **error)
{
	g_autofree char *text = g_strdup_printf("%u\n", port);

	if (!g_file_set_contents_full(path, text, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0644, error))
		return FALSE;
	return TRUE;
}

static gboolean
watch(int fd, guint64 data, GError **error)
{
	struct epoll_event event = {.events = EPOLLIN, .data.u64 = data};

	if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event) < 0)
		return fail_errno(error, "Watching the agents' socket");
	return TRUE;
}

gboolean
tc_agents_start(const char *path, GError **error)
{
	guint16 port;

	epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	stop_fd = eventfd(0, EFD_CLOEXEC);
	if (epoll_fd < 0 || stop_fd < 0) {
		fail_errno(error, "Watching agents");
		tc_agents_stop();
		return FALSE;
	}
	if (!open_listen_socket(&port, error) || !watch(listen_fd, G_MAXUINT64, error) ||
	    !watch(stop_fd, 0, error) || !write_port_file(path, port, error)) {
		tc_agents_stop();
		return FALSE;
	}
	port_file = g_strdup(path);
	g_mutex_lock(&state_lock);
	agents = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL,
				       (GDestroyNotify)tc_agent_link_unref);
	pending = g_hash_table_new(g_direct_hash, g_direct_equal);
	g_mutex_unlock(&state_lock);
	thread = g_thread_new("agents", listen_thread, NULL);
	g_message("Listening for LTTng agents on 127.0.0.1:%u (%s)", port, path);
	return TRUE;
}

static void
drop_all_agents(void)
{
	g_autoptr(GHashTable) old = NULL;
	GHashTableIter iter;
	gpointer value;

	g_mutex_lock(&state_lock);
	old = g_steal_pointer(&agents);
	g_clear_pointer(&pending, g_hash_table_unref);
	g_mutex_unlock(&state_lock);
	if (old == NULL)
		return;
	g_hash_table_iter_init(&iter, old);
	while (g_hash_table_iter_next(&iter, NULL, &value))
		tc_agent_link_shutdown(value);
}

void
tc_agents_stop(void)
{
	if (thread) {
		guint64 one = 1;

		(void)!write(stop_fd, &one, sizeof(one));
		g_thread_join(g_steal_pointer(&thread));
	}
	if (port_file) {
		(void)unlink(port_file);
		g_clear_pointer(&port_file, g_free);
	}
	drop_all_agents();
	if (listen_fd >= 0)
		close(g_steal_fd(&listen_fd));
	if (stop_fd >= 0)
		close(g_steal_fd(&stop_fd));
	if (epoll_fd >= 0)
		close(g_steal_fd(&epoll_fd));
}
