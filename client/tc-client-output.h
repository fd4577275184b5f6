/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * How a command prints its result: text for people, or JSON (--json) for
 * programs, and which exit status and error object a failure gives.
 *
 * A command fetches its data once, then either prints text or builds a
 * JsonNode from the same data and hands it to tc_client_output_print_json().
 * docs/json.md documents the shape of every command's JSON and the exit
 * statuses; keep it in step with the builders.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

/* Exit statuses of every command (documented in docs/json.md and
 * 'tracectl --help'). Scripts match on these, so they never change. */
#define TC_EXIT_OK 0
#define TC_EXIT_FAILURE 1     /* any other failure */
#define TC_EXIT_USAGE 2       /* a command line the CLI rejects */
#define TC_EXIT_NOT_FOUND 3   /* no such session, channel, current session... */
#define TC_EXIT_PERMISSION 4  /* polkit or the service refused the caller */
#define TC_EXIT_UNREACHABLE 5 /* the service or its bus cannot be reached */
#define TC_EXIT_PARTIAL 6     /* some of the operations asked for failed */

typedef enum {
	TC_OUTPUT_TEXT,
	TC_OUTPUT_JSON_SHORT,  /* one line */
	TC_OUTPUT_JSON_PRETTY, /* indented */
} TcOutputMode;

/* The client's own error domain, for failures that have no D-Bus name. */
#define TC_CLIENT_ERROR (tc_client_error_quark())
typedef enum {
	TC_CLIENT_ERROR_UNREACHABLE, /* no bus, or no service on it */
} TcClientError;
GQuark tc_client_error_quark(void);

/* Parses the value of --json (NULL for a bare --json: pretty when stdout is
 * a terminal, short otherwise). FALSE for anything but short and pretty. */
gboolean tc_client_output_parse_mode(const char *value, gboolean is_terminal,
				     TcOutputMode *mode);
/* Removes every --json[=MODE] from argv (up to a "--"), sets the mode and
 * returns TRUE; FALSE with *bad set to the offending argument. */
gboolean tc_client_output_take_option(int *argc, char **argv, const char **bad);

void tc_client_output_set_mode(TcOutputMode mode);
TcOutputMode tc_client_output_get_mode(void);
gboolean tc_client_output_is_json(void);

/* node as JSON text, without a trailing newline. */
char *tc_client_output_to_string(JsonNode *node, gboolean pretty);
/* Prints node on stdout per the mode, with a newline. */
void tc_client_output_print_json(JsonNode *node);
/* Ends the builder's value and prints it. */
void tc_client_output_print_builder(JsonBuilder *builder);

/* Members of the object being built: a NULL string gives null, and
 * unsigned values above G_MAXINT64 (never seen in practice) are clamped. */
void tc_client_output_member_string(JsonBuilder *builder, const char *key, const char *value);
void tc_client_output_member_int(JsonBuilder *builder, const char *key, gint64 value);
void tc_client_output_member_uint(JsonBuilder *builder, const char *key, guint64 value);
void tc_client_output_member_bool(JsonBuilder *builder, const char *key, gboolean value);
/* key: [strv...] */
void tc_client_output_member_strv(JsonBuilder *builder, const char *key,
				  const char *const *values);

/* Which exit status a failure gives, from its D-Bus error name when it has
 * one (the names of the service's tc-error.c and org.freedesktop.DBus). */
int tc_client_output_exit_status(const GError *error);
/* The snake_case class of an exit status, as the "error" key of the error
 * object carries it ("usage", "not_found"...). */
const char *tc_client_output_error_class(int status);
/* The error object: {"error", "message", "exit_status", "dbus_error"?}. */
JsonNode *tc_client_output_error_node(const GError *error, const char *message, int status);
/* The status of a command that did n_ok operations and failed others, the
 * last failure's status being failed_status (TC_EXIT_OK if none failed). */
int tc_client_output_combine(guint n_ok, int failed_status);

/* Reports a failure (text "Error: ..." or the JSON error object, both on
 * stderr) and returns its exit status. */
int tc_client_output_fail(GError *error);

/*
 * With --json, text that commands write with g_printerr() (usage errors,
 * warnings) is held back and turned into JSON objects on stderr when the
 * command returns, so that commands need no JSON code for their messages.
 * tc_client_output_begin() installs that; tc_client_output_end() flushes it
 * and returns status.
 */
void tc_client_output_begin(void);
int tc_client_output_end(int status);
