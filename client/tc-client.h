/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

#include "tc-dbus-generated.h"

/* Exit statuses of every command. */
#define TC_EXIT_OK 0
#define TC_EXIT_FAILURE 1 /* the service refused or failed */
#define TC_EXIT_USAGE 2   /* bad command line */

typedef struct {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
} TcCommand;

/* Connecting (tc-client-bus.c). */
GDBusConnection *tc_client_connect(GError **error);
TcDbusManager *tc_client_manager(GError **error);
/* The caller's session named name, or the current one when name is NULL. */
TcDbusSession *tc_client_session(const char *name, GError **error);
/* Calls a method allowing interactive authorization. */
GVariant *tc_client_call(gpointer proxy, const char *method, GVariant *parameters,
			GError **error);
/* Prints "Error: <message>" for a failed call and returns TC_EXIT_FAILURE. */
int tc_client_fail(GError *error);
/* Parses a command's options; prints the error and returns FALSE. */
gboolean tc_client_parse(GOptionContext *context, int *argc, char ***argv, int *status);

/* The current session, as lttng does with ~/.lttngrc (tc-client-config.c). */
char *tc_client_current_session(void);
gboolean tc_client_set_current_session(const char *name, GError **error);
void tc_client_clear_current_session(const char *name);
char *tc_client_config_path(void);

/* Pure helpers (tc-client-parse.c), unit tested. */
gboolean tc_client_parse_size(const char *text, guint64 *size);
gboolean tc_client_is_power_of_two(guint64 value);
char **tc_client_split_patterns(const char *list);
char **tc_client_kernel_patterns(const char *list, gboolean syscall);
char *tc_client_read_session_from_rc(const char *contents);
char *tc_client_rc_with_session(const char *contents, const char *name);
/* TRUE for a single 'unix:path=/…' address with an optional ',guid=';
 * anything else (unixexec:, tcp:, unix:abstract=, a list) is refused. */
gboolean tc_client_check_bus_address(const char *address, GError **error);

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
int tc_cmd_version(int argc, char **argv);
/* view --live (commands/view-live.c): the viewer URL of a live session,
 * net://RELAY:LIVE_PORT/host/HOSTNAME/SESSION, and the viewer run on it. */
char *tc_client_live_viewer_url(TcDbusSession *session, guint16 live_port, GError **error);
int tc_client_view_live(TcDbusSession *session, const char *viewer, guint16 live_port);
/* Prints a session's details (list NAME, status). */
int tc_client_print_session(TcDbusSession *session);
