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
	TC_FILE_EVENT_UPROBE,    /* kernel: location "/path:function" or
				  * "sdt:/path:provider:name" */
} TcFileEventType;

/* The domains of LTTng's agents (Python's logging, java.util.logging,
 * log4j): in a file, each has one channel of LTTng's name
 * (lttng_python_channel...) whose events are loggers; tracectl records
 * them in the session's default channel, as the D-Bus domains "python",
 * "jul" and "log4j" of EnableEventWithOptions. */
typedef enum {
	TC_FILE_AGENT_NONE,
	TC_FILE_AGENT_JUL,
	TC_FILE_AGENT_LOG4J,
	TC_FILE_AGENT_PYTHON,
} TcFileAgent;

typedef struct {
	char *pattern; /* ust "provider:event", kernel "system:event", a name,
			* or an agent's logger */
	TcFileEventType type;
	int loglevel;  /* -1: every level; an agent's: see has_loglevel */
	/* An agent's event: whether loglevel applies (the agents' levels are
	 * any int). Other events say it with loglevel >= 0. */
	gboolean has_loglevel;
	gboolean loglevel_only;
	char **exclusions; /* never NULL */
	char *filter;      /* NULL: none; an agent's: the caller's, without
			    * the logger and level lttng adds */
	char *location;    /* probes only */
} TcFileEvent;

typedef struct {
	char *name;
	gboolean kernel;
	TcFileAgent agent; /* an agent's channel: kernel FALSE, events are loggers */
	gboolean enabled;
	gboolean overwrite;
	guint64 subbuf_size; /* 0: the default */
	guint64 num_subbuf;  /* 0: the default */
	guint32 switch_timer_us;
	guint32 read_timer_us;
	guint64 monitor_timer_us;
	GPtrArray *events;   /* TcFileEvent * */
	/* char *, tracectl's names ("vpid", "procname", "ip",
	 * "perf:thread:task-clock", "perf:thread:raw:r0110:foo"...): a
	 * <perf> element is kept as its spelling (tc-perf-counter.h) */
	GPtrArray *contexts;
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
	/* The user-space domain's buffers: per application (PER_PID), or per
	 * uid (PER_UID, lttng's default); lttng writes the agents' domains
	 * with the same. */
	gboolean ust_per_pid;
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
/* The agent's channel as lttng saves it: its name and LTTng's default
 * geometry (which tracectl does not use: its records go to channel0). */
TcFileChannel *tc_file_channel_new_agent(TcFileAgent agent);
TcFileEvent *tc_file_event_new(const char *pattern, TcFileEventType type);
TcFileTracker *tc_file_tracker_new(gboolean kernel, const char *kind);

/* An agent domain's names: the D-Bus domain ("python", "jul", "log4j"),
 * the file's domain type ("PYTHON", "JUL", "LOG4J") and the channel's
 * ("lttng_python_channel"...); NULL for TC_FILE_AGENT_NONE. */
const char *tc_session_file_agent_domain(TcFileAgent agent);
const char *tc_session_file_agent_type(TcFileAgent agent);
const char *tc_session_file_agent_channel(TcFileAgent agent);
/* The agent of a D-Bus domain or file type; TC_FILE_AGENT_NONE for
 * another name. */
TcFileAgent tc_session_file_agent_from_domain(const char *domain);
TcFileAgent tc_session_file_agent_from_type(const char *type);
/*
 * lttng saves an agent's event with the filter it built, the caller's
 * wrapped with the logger and level (lttng-ctl's set_agent_filter()):
 * "(FILTER) && (logger_name == \"LOGGER\")", then "(...) && (int_loglevel
 * >= LEVEL)" (== for one level), the logger left out for "*". Returns
 * the caller's filter of event's saved one (NULL when lttng built it all,
 * a copy of it when it was not built so), as enable-event takes it.
 */
char *tc_session_file_agent_filter(const TcFileEvent *event);

/* A control_uri or data_uri of the file, LTTng's "tcp4://HOST:PORT/PATH",
 * as the "tcp://HOST:PORT" (tcp6://) that a session's ctrl-url and
 * data-url take: `tracectl load` and auto-loading read it alike. */
char *tc_session_file_relay_url(const char *uri);
/* A relay's "net://HOST:CTRL:DATA" (net6://) as the control and data URIs
 * of a file ("tcp4://HOST:CTRL", "tcp4://HOST:DATA"); FALSE when url is
 * not of that form. A relay reached through SSH, net+ssh://..., which
 * LTTng's URIs cannot say, is saved as that URL in both (`lttng load`
 * refuses such a file; tracectl reads it back, tc_session_file_ssh_url()). */
gboolean tc_session_file_relay_uris(const char *url, char **control, char **data);
/* The net+ssh:// URL of a file's control and data URIs that hold one
 * (the reader checked they are the same), as a session's set-url takes
 * it; NULL for LTTng's pair of tcp:// URIs. */
const char *tc_session_file_ssh_url(const char *control_uri);
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
 * session.xsd does not allow, and anything tracectl cannot honour
 * (trace file rotation, blocking, app contexts, perf counters but the
 * perf:thread: ones tracectl spells (tc-perf-counter.h), an agent's
 * channel that is off or has contexts, exclusions or another name than
 * LTTng's...).
 */
GPtrArray *tc_session_file_parse(const char *contents, gsize length, GError **error);

/* The file of these sessions, as lttng-save(1) writes it
 * (tc-session-file-write.c). */
char *tc_session_file_write(GPtrArray *sessions);
