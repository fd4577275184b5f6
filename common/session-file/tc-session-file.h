/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A session's configuration as LTTng's session configuration file (the XML
 * of lttng-save(1), described by lttng-tools' session.xsd): the model, the
 * strict parser and the writer. No D-Bus here (commands/save-load.c turns
 * the model into calls and back), so the unit tests run it on its own.
 */
#pragma once

#include <glib.h>

/* A loaded file is hostile input: these bound what the parser accepts. */
#define TC_SESSION_FILE_MAX_BYTES (1024 * 1024)
#define TC_SESSION_FILE_MAX_ELEMENTS 20000
#define TC_SESSION_FILE_MAX_SESSIONS 64

typedef enum {
	TC_FILE_EVENT_TRACEPOINT,
	TC_FILE_EVENT_SYSCALL,   /* kernel: pattern is the system call's name */
	TC_FILE_EVENT_KPROBE,    /* kernel: location "symbol[+offset]" or "0xADDR" */
	TC_FILE_EVENT_KRETPROBE,
	TC_FILE_EVENT_UPROBE,    /* kernel: location "/path:function" */
} TcFileEventType;

typedef struct {
	char *pattern; /* ust "provider:event", kernel "system:event" or a name */
	TcFileEventType type;
	int loglevel;  /* -1: every level */
	gboolean loglevel_only;
	char **exclusions; /* never NULL */
	char *filter;      /* NULL: none */
	char *location;    /* probes only */
} TcFileEvent;

typedef struct {
	char *name;
	gboolean kernel;
	gboolean enabled;
	gboolean overwrite;
	guint64 subbuf_size; /* 0: the default */
	guint64 num_subbuf;  /* 0: the default */
	guint32 switch_timer_us;
	guint32 read_timer_us;
	guint64 monitor_timer_us;
	GPtrArray *events;   /* TcFileEvent * */
	GPtrArray *contexts; /* char *, tracectl's names ("vpid", "procname"...) */
} TcFileChannel;

typedef struct {
	gboolean kernel;
	char *kind;     /* "pid", "vpid", "uid", "vuid", "gid", "vgid" */
	GArray *values; /* guint32; the set holds only these (maybe none) */
} TcFileTracker;

typedef struct {
	char *name;
	char *path;	   /* local directory, or NULL */
	char *control_url; /* relay: both set, path NULL */
	char *data_url;
	guint64 max_size;
} TcFileSnapshotOutput;

typedef struct {
	char *name;
	char *source;      /* the file it was read from, or NULL */
	char *path;        /* local output directory, or NULL */
	char *control_url; /* relay: both set, or both NULL */
	char *data_url;
	guint32 live_timer_us;
	gboolean snapshot;
	gboolean started;
	guint64 rotation_timer_us;
	guint64 rotation_size;
	GPtrArray *channels;         /* TcFileChannel * */
	GPtrArray *trackers;         /* TcFileTracker *, only sets not holding every value */
	GPtrArray *snapshot_outputs; /* TcFileSnapshotOutput * */
} TcFileSession;

/* "pid", "vpid", "uid", "vuid", "gid", "vgid", NULL: the trackers' kinds. */
extern const char *const tc_file_tracker_kinds[];

TcFileSession *tc_file_session_new(const char *name);
void tc_file_session_free(TcFileSession *session);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TcFileSession, tc_file_session_free)

TcFileChannel *tc_file_channel_new(const char *name, gboolean kernel);
TcFileEvent *tc_file_event_new(const char *pattern, TcFileEventType type);
TcFileTracker *tc_file_tracker_new(gboolean kernel, const char *kind);

/* A control_uri or data_uri of the file, LTTng's "tcp4://HOST:PORT/PATH",
 * as the "tcp://HOST:PORT" (tcp6://) that a session's ctrl-url and
 * data-url take: `tracectl load` and auto-loading read it alike. */
char *tc_session_file_relay_url(const char *uri);
/* A relay's "net://HOST:CTRL:DATA" (net6://) as the control and data URIs
 * of a file ("tcp4://HOST:CTRL", "tcp4://HOST:DATA"); FALSE when url is
 * not of that form. */
gboolean tc_session_file_relay_uris(const char *url, char **control, char **data);
/* What AddSnapshotOutput takes for output: its directory, or its relay
 * as "net://HOST:CTRL:DATA" (net6://); NotSupported when its control and
 * data URIs name different hosts, which that form cannot say. */
char *tc_session_file_snapshot_output_url(const TcFileSnapshotOutput *output, GError **error);

/* What tc_session_file_parse() refuses a file with; the error carries
 * the line where the problem was found. */
#define TC_SESSION_FILE_ERROR (tc_session_file_error_quark())
typedef enum {
	TC_SESSION_FILE_ERROR_INVALID,
} TcSessionFileError;
GQuark tc_session_file_error_quark(void);
/* The line of the file that a TC_SESSION_FILE_ERROR names, as libxml2 or
 * the parser found it; 0 for a refusal of the whole file (its size, a
 * NUL byte, a DTD) and for any other error. */
long tc_session_file_error_line(const GError *error);

/*
 * Parses (tc-session-file-read.c) a file's contents into its sessions (TcFileSession *). Refuses,
 * with a TC_SESSION_FILE_ERROR naming the element as /sessions/session[1]/...
 * and its line: malformed XML, a DOCTYPE (so no entity or external subset is ever
 * read), more than TC_SESSION_FILE_MAX_BYTES or _MAX_ELEMENTS, any element
 * session.xsd does not allow, and anything tracectl cannot honour (JUL,
 * log4j and python domains with channels, per-pid buffers, trace file
 * rotation, blocking, perf and app contexts...).
 */
GPtrArray *tc_session_file_parse(const char *contents, gsize length, GError **error);

/* The file of these sessions, as lttng-save(1) writes it
 * (tc-session-file-write.c). */
char *tc_session_file_write(GPtrArray *sessions);
