/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

#include "tc-client-output.h"
#include "tc-dbus-generated.h"

typedef struct {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
} TcCommand;

/* Connecting (tc-client-bus.c). */
GDBusConnection *tc_client_connect(GError **error);
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
/* Connects to the remote system bus within a deadline; the error
 * (TC_CLIENT_ERROR_UNREACHABLE) quotes ssh's reason. */
GDBusConnection *tc_client_remote_connect(GError **error);
/* The last line ssh wrote on its standard error so far (its reason), or
 * NULL: why a connection failed, or why one that worked was lost. */
char *tc_client_remote_ssh_errors(void);
/* The uid the remote bus gives the connection, G_MAXUINT32 if unknown. */
guint32 tc_client_remote_caller_uid(GDBusConnection *connection);
/* Reports what a command cannot do with -H (reading this machine's files
 * on the remote's behalf...), reason saying why and what to do instead,
 * and returns TC_EXIT_USAGE: refused before any call. */
int tc_client_remote_refused(const char *reason);
TcDbusManager *tc_client_manager(GError **error);
/* A property of the manager, asked for: its proxy loads none. NULL if unknown. */
GVariant *tc_client_manager_property(TcDbusManager *manager, const char *name);
/* The same, asked for now and waited for later, so that the calls made
 * meanwhile do not wait behind it: every ask is waited for once. */
typedef struct _TcClientPending TcClientPending;
TcClientPending *tc_client_manager_property_ask(TcDbusManager *manager, const char *name);
GVariant *tc_client_pending_wait(TcClientPending *pending);
/* The caller's session named name, or the current one when name is NULL,
 * with its properties. */
TcDbusSession *tc_client_session(const char *name, GError **error);
/* The same session's proxy with no property loaded yet: for a command
 * that calls a method first and reads the properties after it
 * (tc_client_session_load()), one GetAll in all. */
TcDbusSession *tc_client_session_unloaded(const char *name, GError **error);
/* The same session's proxy with its properties, and its channels'
 * statistics (an a(ssttttt), set only when a proxy is returned), in one
 * call: for the commands that print a session. */
TcDbusSession *tc_client_session_describe(const char *name, GVariant **statistics,
					  GError **error);
/* Its name: the Name property once loaded, else the name it was found by. */
const char *tc_client_session_name(TcDbusSession *session);
/* Every property of session, read now into its proxy's cache. */
gboolean tc_client_session_load(TcDbusSession *session, GError **error);
/* The same, where a command goes on without them, as a proxy that loads
 * its own does. */
void tc_client_session_load_or_log(TcDbusSession *session);
/* Calls a method allowing interactive authorization. */
GVariant *tc_client_call(gpointer proxy, const char *method, GVariant *parameters,
			GError **error);
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
void tc_client_print_tracking(TcDbusSession *session, const char *domain);
/* The session commands of set-session.c, disable-channel.c... */
int tc_cmd_set_session(int argc, char **argv);
int tc_cmd_disable_channel(int argc, char **argv);
/* add-context --list (add-context-list.c). */
int tc_client_list_contexts(gboolean userspace, gboolean kernel);
/* Whether the user-space context name is one that LTTng-UST applications
 * record and tracectl's own applications do not (ip, perf:thread:). */
gboolean tc_client_context_is_lttng_ust_only(const char *name);
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
int tc_client_view_live(TcDbusSession *session, const char *viewer, guint16 live_port);
/* That URL, or NULL with error for a session that is not live. */
char *tc_client_live_viewer_url(TcDbusSession *session, guint16 live_port, GError **error);
/* lttng-relayd's default port for live viewers. */
#define TC_CLIENT_LIVE_PORT_DEFAULT 5344
/* Prints a session's details (list NAME, status), as text or JSON, with
 * its channels' statistics (NULL: none), as tc_client_session_describe()
 * gives them. */
int tc_client_print_session(TcDbusSession *session, GVariant *statistics);

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
JsonNode *tc_client_session_json(TcDbusSession *session, GVariant *statistics);
int tc_cmd_rotate(int argc, char **argv);
int tc_cmd_enable_rotation(int argc, char **argv);
int tc_cmd_disable_rotation(int argc, char **argv);
int tc_cmd_clear(int argc, char **argv);
int tc_cmd_regenerate(int argc, char **argv);
/* Its rotation schedule and newest archive, when it has them (rotate.c). */
void tc_client_print_rotation(TcDbusSession *session);
/* LTTng session configuration files (commands/save-load.c). */
int tc_cmd_save(int argc, char **argv);
int tc_cmd_load(int argc, char **argv);
