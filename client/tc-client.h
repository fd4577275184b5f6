/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

#include "tc-client-libsystemd.h"
#include "tc-client-output.h"

typedef struct {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
} TcCommand;

#define TC_NAME "org.tracectl.Tracing1"
#define TC_MANAGER_PATH "/org/tracectl/Tracing1"
#define TC_MANAGER_INTERFACE "org.tracectl.Tracing1.Manager"
#define TC_SESSION_INTERFACE "org.tracectl.Tracing1.Session"

/* Connecting and calling (tc-client-bus.c): the command's one sd-bus
 * connection, made on first use, on the calling thread. */
sd_bus *tc_client_bus(GError **error);
/* What a connection to the service needs, set before sd_bus_start(): a
 * bus client, no descriptor passing, the CLI's method call timeout.
 * 0 or a negative errno. */
int tc_client_bus_setup(sd_bus *bus);
/* Calls method of the service's object at path, allowing interactive
 * authorization (and running the text agent when a person may be
 * asked). parameters: a tuple or NULL, consumed when floating; the reply
 * is a tuple, checked against reply_type unless NULL. Its errors are
 * those GDBus gave: "GDBus.Error:NAME: message" in NAME's domain for an
 * error reply, G_IO_ERROR_CLOSED for a lost connection. */
GVariant *tc_client_bus_call(const char *path, const char *interface, const char *method,
			     GVariant *parameters, const GVariantType *reply_type,
			     GError **error);
/* Every property of interface at path (an a{sv}), not interactive. */
GVariant *tc_client_bus_get_all(const char *path, const char *interface, GError **error);
/* The GError of a failed sd-bus call: r and the error it filled. */
void tc_client_bus_set_error(int r, const sd_bus_error *bus_error, GError **error);
/* The caller's uid as the service sees it: getuid() on this machine, the
 * remote user's with -H (asked of the remote bus once); G_MAXUINT32 when
 * it cannot be known. */
guint32 tc_client_caller_uid(void);

/* -H [USER@]HOST[:PORT] (tc-client-remote.c): the service of another
 * machine, through ssh and systemd-stdio-bridge there. */
void tc_client_remote_set_host(const char *host);
/* The host given to -H, NULL without it. */
const char *tc_client_remote_host(void);
gboolean tc_client_is_remote(void);
/* Connects to the remote system bus within a deadline (ssh, the bridge,
 * the authentication and Hello's reply); the error
 * (TC_CLIENT_ERROR_UNREACHABLE) quotes ssh's reason. */
sd_bus *tc_client_remote_connect(GError **error);
/* The last line ssh wrote on its standard error so far (its reason), or
 * NULL: why a connection failed, or why one that worked was lost. */
char *tc_client_remote_ssh_errors(void);
/* The ssh program: $TRACECTL_SSH, else ssh on PATH. */
const char *tc_client_ssh_program(void);
/* The last line an ssh wrote in errors_fd (a memory file of its standard
 * error), "ssh: " dropped, control characters blanked, or NULL. */
char *tc_client_ssh_last_line(int errors_fd);
/* The uid the remote bus gives the connection, G_MAXUINT32 if unknown. */
guint32 tc_client_remote_caller_uid(sd_bus *bus);
/* Reports what a command cannot do with -H (reading this machine's files
 * on the remote's behalf...), reason saying why and what to do instead,
 * and returns TC_EXIT_USAGE: refused before any call. */
int tc_client_remote_refused(const char *reason);

/* The service's objects (tc-client-session.c). Each starts with a
 * TcClientObject, so that tc_client_call() takes either. */
typedef struct {
	const char *path;
	const char *interface;
} TcClientObject;
typedef struct _TcClientManager {
	TcClientObject object;
} TcClientManager;
typedef struct _TcClientSession TcClientSession;
/* The manager, once the bus is reached: static, unref does nothing. */
TcClientManager *tc_client_manager(GError **error);
void tc_client_manager_unref(TcClientManager *manager);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TcClientManager, tc_client_manager_unref)
/* Calls method on target (a manager or a session), as tc_client_bus_call(). */
GVariant *tc_client_call(gpointer target, const char *method, GVariant *parameters,
			GError **error);
/* The object path of target (a manager or a session). */
const char *tc_client_object_path(gpointer target);
/* A property of the manager, asked for. NULL if unknown. */
GVariant *tc_client_manager_property(const char *name);
/* The same, asked for now and waited for later, so that the calls made
 * meanwhile do not wait behind it: every ask is waited for once. */
typedef struct _TcClientPending TcClientPending;
TcClientPending *tc_client_manager_property_ask(const char *name);
GVariant *tc_client_pending_wait(TcClientPending *pending);
/* The caller's session named name, or the current one when name is NULL,
 * with its properties. */
TcClientSession *tc_client_session(const char *name, GError **error);
/* The same session with no property loaded yet: for a command that calls
 * a method first and reads the properties after it
 * (tc_client_session_load()), one GetAll in all. */
TcClientSession *tc_client_session_unloaded(const char *name, GError **error);
/* The same session with its properties, and its channels' statistics (an
 * a(ssttttt), set only when a session is returned), in one call: for the
 * commands that print a session. */
TcClientSession *tc_client_session_describe(const char *name, GVariant **statistics,
					    GError **error);
void tc_client_session_free(TcClientSession *session);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TcClientSession, tc_client_session_free)
/* Its name: the Name property once loaded, else the name it was found by. */
const char *tc_client_session_name(TcClientSession *session);
/* Every property of session, read now. */
gboolean tc_client_session_load(TcClientSession *session, GError **error);
/* The same, where a command goes on without them. */
void tc_client_session_load_or_log(TcClientSession *session);
/* Its properties as read (org.tracectl.Tracing1.Session): a string is
 * NULL, a number 0 and a container NULL when it was not read or was of
 * another type. What is returned belongs to the session, but for
 * dup_channels' new reference. */
const char *tc_client_session_get_name(TcClientSession *session);
const char *tc_client_session_get_output_directory(TcClientSession *session);
const char *tc_client_session_get_output_url(TcClientSession *session);
const char *tc_client_session_get_state(TcClientSession *session);
const char *tc_client_session_get_problem(TcClientSession *session);
const char *tc_client_session_get_trace_hostname(TcClientSession *session);
const char *tc_client_session_get_last_archive(TcClientSession *session);
guint32 tc_client_session_get_owner_uid(TcClientSession *session);
guint32 tc_client_session_get_live_timer(TcClientSession *session);
gboolean tc_client_session_get_snapshot(TcClientSession *session);
guint64 tc_client_session_get_rotation_timer(TcClientSession *session);
guint64 tc_client_session_get_rotation_size(TcClientSession *session);
GVariant *tc_client_session_get_channels(TcClientSession *session);
GVariant *tc_client_session_dup_channels(TcClientSession *session);
GVariant *tc_client_session_get_tracking(TcClientSession *session);
const char *const *tc_client_session_get_tracked_units(TcClientSession *session);
/* The text polkit agent (tc-client-agent.c). Removes --no-ask-password
 * from the command line, wherever it is. */
void tc_client_agent_take_option(int *argc, char **argv);
/* FALSE with --no-ask-password: calls must not ask for interaction. */
gboolean tc_client_agent_may_ask(void);
/* Starts pkttyagent for this process when a person is at the terminal;
 * NULL when not started. */
GSubprocess *tc_client_agent_open(void);
void tc_client_agent_close(GSubprocess *agent);
/* Reports a failed call ("Error: <message>", or the JSON error object with
 * --json) and returns its exit status (tc-client-output.h). */
int tc_client_fail(GError *error);
/* Parses a command's options; prints the error and returns FALSE. */
gboolean tc_client_parse(GOptionContext *context, int *argc, char ***argv, int *status);

/* The current session, as lttng does with ~/.lttngrc (tc-client-config.c). */
char *tc_client_current_session(void);
gboolean tc_client_set_current_session(const char *name, GError **error);
void tc_client_clear_current_session(const char *name);
char *tc_client_config_path(void);
/* Replaces the file at path with contents, atomically, mode 0600
 * (tc-client-state-file.c). */
gboolean tc_client_state_file_write(const char *path, const char *contents, GError **error);

/* The trace directories of recently destroyed sessions
 * (tc-client-history.c, tc-client-history-file.c). */
#define TC_CLIENT_HISTORY_MAX 16
char *tc_client_history_add(const char *contents, const char *name, const char *directory);
char *tc_client_history_find(const char *contents, const char *name);
void tc_client_remember_destroyed(const char *name, const char *directory);
char *tc_client_destroyed_trace(const char *name);

/* Pure helpers (tc-client-parse.c), unit tested. */
gboolean tc_client_parse_size(const char *text, guint64 *size);
/* The log level named by text (TRACE_EMERG .. TRACE_DEBUG, or 0..14), or -1. */
int tc_client_parse_loglevel(const char *text);
gboolean tc_client_is_power_of_two(guint64 value);
/* A period: microseconds, or a number with a unit us, ms, s, m or h. */
gboolean tc_client_parse_period(const char *text, guint64 *microseconds);
char **tc_client_split_patterns(const char *list);
char **tc_client_kernel_patterns(const char *list, gboolean syscall);
char *tc_client_read_session_from_rc(const char *contents);
char *tc_client_rc_with_session(const char *contents, const char *name);
/* TRUE for a single 'unix:path=/…' address with an optional ',guid=';
 * anything else (unixexec:, tcp:, unix:abstract=, a list) is refused. */
gboolean tc_client_check_bus_address(const char *address, GError **error);
/* -H's [USER@]HOST[:PORT], as systemctl -H takes it (an IPv6 address in
 * brackets): *destination is what ssh connects to, [USER@]HOST without
 * brackets, and *port the port or NULL. FALSE for anything else,
 * including a name that starts with '-' and any character ssh or a shell
 * could read as more than a name. */
gboolean tc_client_parse_host(const char *text, char **destination, char **port,
			      GError **error);

/* Commands (commands/<verb>.c). */
int tc_cmd_create(int argc, char **argv);
int tc_cmd_destroy(int argc, char **argv);
int tc_cmd_start(int argc, char **argv);
int tc_cmd_stop(int argc, char **argv);
int tc_cmd_enable_channel(int argc, char **argv);
int tc_cmd_enable_event(int argc, char **argv);
int tc_cmd_add_context(int argc, char **argv);
int tc_cmd_snapshot(int argc, char **argv);
int tc_cmd_disable_event(int argc, char **argv);
int tc_cmd_list(int argc, char **argv);
int tc_cmd_status(int argc, char **argv);
int tc_cmd_view(int argc, char **argv);
int tc_cmd_export(int argc, char **argv);
int tc_cmd_version(int argc, char **argv);
int tc_cmd_track(int argc, char **argv);
int tc_cmd_untrack(int argc, char **argv);
/* The "Tracking:" lines of a session, for domain "ust" or "kernel"
 * (commands/track.c). */
void tc_client_print_tracking(TcClientSession *session, const char *domain);
/* The session commands of set-session.c, disable-channel.c... */
int tc_cmd_set_session(int argc, char **argv);
int tc_cmd_disable_channel(int argc, char **argv);
/* add-context --list (add-context-list.c). */
int tc_client_list_contexts(gboolean userspace, gboolean kernel);
/* Whether the user-space context name is one that tracectl's own
 * applications record and LTTng-UST applications do not ($app.). */
gboolean tc_client_context_is_own_only(const char *name);
/* lttng list's "Buffering scheme:" line of the user-space domain, as
 * the service gives it in its channels' settings (list-session.c). */
void tc_client_print_buffering(GVariant *channels);
/* list NAME with -u/-k/-p/-j/-l, --channel or --domain (list-session.c);
 * domain "ust", "kernel", an agent's ("python"...) or NULL for any. */
int tc_client_list_session_part(const char *name, const char *domain, const char *channel,
				gboolean domains_only);
int tc_cmd_monitor(int argc, char **argv);
int tc_cmd_add_trigger(int argc, char **argv);
int tc_cmd_list_triggers(int argc, char **argv);
int tc_cmd_remove_trigger(int argc, char **argv);
/* view --live (commands/view-live.c): the viewer run on a live session,
 * net://RELAY:LIVE_PORT/host/HOSTNAME/SESSION. */
int tc_client_view_live(TcClientSession *session, const char *viewer, guint16 live_port);
/* That URL, or NULL with error for a session that is not live. */
char *tc_client_live_viewer_url(TcClientSession *session, guint16 live_port, GError **error);
/* The live viewer's SSH tunnel to a net+ssh:// session's relay
 * (commands/view-live-tunnel.c): ssh run as the user, forwarding a free
 * port of 127.0.0.1 to live_port on the far side's loopback, returned
 * once ssh listens on it (after authenticating), or NULL with an error
 * that quotes ssh. Closing ends ssh. */
typedef struct _TcClientLiveTunnel TcClientLiveTunnel;
TcClientLiveTunnel *tc_client_live_tunnel_open(const char *url, guint16 live_port,
					       GError **error);
guint16 tc_client_live_tunnel_port(const TcClientLiveTunnel *tunnel);
/* [USER@]HOST, for messages. */
const char *tc_client_live_tunnel_destination(const TcClientLiveTunnel *tunnel);
/* ssh's last line so far, or NULL (a forward the far side refused). */
char *tc_client_live_tunnel_errors(TcClientLiveTunnel *tunnel);
void tc_client_live_tunnel_close(TcClientLiveTunnel *tunnel);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TcClientLiveTunnel, tc_client_live_tunnel_close)
/* lttng-relayd's default port for live viewers. */
#define TC_CLIENT_LIVE_PORT_DEFAULT 5344
/* Prints a session's details (list NAME, status), as text or JSON, with
 * its channels' statistics (NULL: none), as tc_client_session_describe()
 * gives them. */
int tc_client_print_session(TcClientSession *session, GVariant *statistics);

/* A channel's enabled events, each with its log level, exclusions and
 * filter: as text lines, or as the channel's "enablings" JSON member
 * (tc-client-enablings.c). patterns and settings come from a Channels
 * entry. */
void tc_client_print_enablings(const char *domain, GVariant *patterns, GVariant *settings);
void tc_client_enablings_json(JsonBuilder *builder, const char *domain, GVariant *patterns,
			      GVariant *settings);
/* The log levels of LTTng's agents, domain "python", "jul" or "log4j"
 * (tc-client-agent-level.c): a level by name (its domain's prefix
 * optional, any case) or number, FALSE for neither; and a level's name
 * as lttng shows it ("PYTHON_WARNING"), or its number when it has none. */
gboolean tc_client_agent_level_parse(const char *domain, const char *text, int *level);
char *tc_client_agent_level_name(const char *domain, int level);
/* The agents' domains of list SESSION: "python", "jul", "log4j", NULL. */
extern const char *const tc_client_agent_domains[];
/* The title lttng gives domain's section, and its line of list -d. */
const char *tc_client_agent_domain_title(const char *domain);
const char *tc_client_agent_domain_line(const char *domain);
/* The rules of agent domain's loggers among the session's channels (a
 * Channels property): text lines under a domain section, FALSE (nothing
 * printed) when there are none; or the session's "agents" JSON member
 * (tc-client-enablings.c). */
gboolean tc_client_print_agent_rules(const char *domain, GVariant *channels);
guint tc_client_agent_rule_count(const char *domain, GVariant *channels);
void tc_client_agent_rules_json(JsonBuilder *builder, GVariant *channels);
/* The session as JSON; statistics is a ChannelStatistics array or NULL
 * (tc-client-session-json.c). */
JsonNode *tc_client_session_json(TcClientSession *session, GVariant *statistics);
int tc_cmd_rotate(int argc, char **argv);
int tc_cmd_enable_rotation(int argc, char **argv);
int tc_cmd_disable_rotation(int argc, char **argv);
int tc_cmd_clear(int argc, char **argv);
/* Its rotation schedule and newest archive, when it has them (rotate.c). */
void tc_client_print_rotation(TcClientSession *session);
/* LTTng session configuration files (commands/save-load.c). */
int tc_cmd_save(int argc, char **argv);
int tc_cmd_load(int argc, char **argv);
