/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracectl track|untrack -u|-k [-s SESSION] (--pid=PID[,PID]... | --vpid=... |
 *   --uid=USER[,USER]... | --vuid=... | --gid=GROUP[,GROUP]... | --vgid=...)...
 * tracectl track|untrack -u|-k [-s SESSION] --all (--pid | --vpid | ...)...
 * tracectl track|untrack [-u] [-s SESSION] --unit=UNIT
 */
#include "tc-client.h"

#include <grp.h>
#include <pwd.h>

static const char *const kinds[] = {"pid", "vpid", "uid", "vuid", "gid", "vgid"};
#define KINDS G_N_ELEMENTS(kinds)

/* What the command line asked, per kind: present, and its values. */
typedef struct {
	gboolean given[KINDS];
	GArray *values[KINDS]; /* guint32 */
	gboolean all;
} TrackOptions;

static TrackOptions options;
static char *unit_name;

/* A number, or a user or group name for the (v)uid and (v)gid kinds. */
static gboolean
parse_value(guint kind, const char *text, guint32 *value, GError **error)
{
	guint64 number;

	if (g_ascii_string_to_unsigned(text, 10, 0, G_MAXUINT32 - 1, &number, NULL)) {
		*value = (guint32)number;
		return TRUE;
	}
	if (kind == 2 || kind == 3) {
		struct passwd *pw = getpwnam(text);

		if (pw) {
			*value = pw->pw_uid;
			return TRUE;
		}
	} else if (kind == 4 || kind == 5) {
		struct group *gr = getgrnam(text);

		if (gr) {
			*value = gr->gr_gid;
			return TRUE;
		}
	}
	g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--%s: '%s' is not %s",
		    kinds[kind], text,
		    kind < 2 ? "a process id"
			     : kind < 4 ? "a user id or name" : "a group id or name");
	return FALSE;
}

static gboolean
on_kind(const char *option_name, const char *value, gpointer data, GError **error)
{
	g_auto(GStrv) parts = NULL;
	guint kind = 0;

	/* "-p" or "--<kind>". */
	while (option_name[1] == '-' && kind < KINDS && !g_str_equal(option_name + 2, kinds[kind]))
		kind++;
	if (kind == KINDS) {
		g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_UNKNOWN_OPTION, "%s", option_name);
		return FALSE;
	}
	options.given[kind] = TRUE;
	if (value == NULL)
		return TRUE;
	parts = g_strsplit(value, ",", -1);
	for (guint i = 0; parts[i]; i++) {
		guint32 number;

		if (!parse_value(kind, parts[i], &number, error))
			return FALSE;
		g_array_append_val(options.values[kind], number);
	}
	return TRUE;
}

/* One call per kind given. */
static int
apply(TcClientSession *session, gboolean kernel, gboolean track)
{
	const char *domain = kernel ? "kernel" : "ust";

	for (guint kind = 0; kind < KINDS; kind++) {
		g_autoptr(GVariant) reply = NULL;
		g_autoptr(GError) error = NULL;
		GArray *values = options.values[kind];

		if (!options.given[kind])
			continue;
		if (options.all)
			reply = tc_client_call(session, track ? "TrackAll" : "UntrackAll",
					       g_variant_new("(ss)", domain, kinds[kind]), &error);
		else
			reply = tc_client_call(
				session, track ? "Track" : "Untrack",
				g_variant_new("(ss@au)", domain, kinds[kind],
					      g_variant_new_fixed_array(G_VARIANT_TYPE_UINT32,
									values->data, values->len,
									sizeof(guint32))),
				&error);
		if (reply == NULL)
			return tc_client_fail(g_steal_pointer(&error));
		if (options.all)
			g_print("%s %s: %s in session %s\n", kernel ? "Kernel" : "UST", kinds[kind],
				track ? "every value tracked" : "no value tracked",
				tc_client_session_get_name(session));
		for (guint i = 0; !options.all && i < values->len; i++)
			g_print("%s %s %u %s in session %s\n", kernel ? "Kernel" : "UST",
				kinds[kind], g_array_index(values, guint32, i),
				track ? "tracked" : "untracked", tc_client_session_get_name(session));
	}
	return TC_EXIT_OK;
}

/* --unit: a systemd unit delegated to the caller (TrackUnit). */
static int
apply_unit(TcClientSession *session, gboolean track)
{
	g_autoptr(GVariant) reply = NULL;
	g_autoptr(GError) error = NULL;

	reply = tc_client_call(session, track ? "TrackUnit" : "UntrackUnit",
			       g_variant_new("(s)", unit_name), &error);
	if (reply == NULL)
		return tc_client_fail(g_steal_pointer(&error));
	g_print("UST unit %s %s in session %s\n", unit_name, track ? "tracked" : "untracked",
		tc_client_session_get_name(session));
	return TC_EXIT_OK;
}

/* The manual: lttng-track(1)'s model, said for tracectl. */
static const char description[] =
	"Each session has, per domain, one inclusion set per process attribute.\n"
	"A new session's sets hold every value: every process records. Tracking a\n"
	"first value makes the set hold that value only; a process records when\n"
	"every set of the domain holds its attribute. 'untrack' removes values;\n"
	"'--all' with track puts every value back, with untrack empties the set\n"
	"(nothing records). Changes apply at once, recording or not.\n"
	"\n"
	"User space (-u): pid, uid, gid are the application's ids as the kernel\n"
	"gives them to tracectld (never what the application says); vpid, vuid,\n"
	"vgid are the same in the application's own namespaces. An application\n"
	"that registers later records if it matches; one that stops matching has\n"
	"the session's events disabled. Root's sessions record every user's\n"
	"applications: '--uid' limits them to some users.\n"
	"\n"
	"--unit=UNIT (user space): the applications running in a systemd unit's\n"
	"control group, whatever their user, and no other application; needs\n"
	"the org.tracectl.Tracing1.trace-unit authorization for that unit (an\n"
	"administrator's polkit rule).\n"
	"\n"
	"Kernel (-k): every attribute. With --pid alone, the process, its\n"
	"threads, and the threads and children it starts later record. With any\n"
	"other attribute (uid and gid are the real ids), each process is judged\n"
	"on its own ids: a child records from its start, and a process whose ids\n"
	"change (setuid) records, or stops, within a rescan (a quarter second).\n"
	"\n"
	"The values of a session's sets are limited (MaxTrackedValuesPerSession\n"
	"in tracectld.conf, 1024 by default).\n"
	"\n"
	"Examples:\n"
	"  tracectl track -u --vpid=1234,1240\n"
	"  sudo tracectl track -u --uid=alice,bob      (root's session)\n"
	"  tracectl track -k --pid=1234\n"
	"  sudo tracectl track -k --uid=alice          (alice's processes' kernel events)\n"
	"  tracectl untrack -u --all --vpid            (record no application)\n"
	"  tracectl track -u --all --vpid              (every application again)";

static int
run(int argc, char **argv, gboolean track)
{
	gboolean userspace = FALSE, kernel = FALSE;
	g_autofree char *session_name = NULL;
	GOptionEntry entries[] = {
		{"userspace", 'u', 0, G_OPTION_ARG_NONE, &userspace, "User-space domain", NULL},
		{"kernel", 'k', 0, G_OPTION_ARG_NONE, &kernel, "Kernel domain", NULL},
		{"session", 's', 0, G_OPTION_ARG_STRING, &session_name,
		 "The session (default: the current one)", "SESSION"},
		{"all", 'a', 0, G_OPTION_ARG_NONE, &options.all,
		 "Every value of the attributes given without values", NULL},
		{"pid", 'p', G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK, on_kind,
		 "Process ids", "PID[,PID]..."},
		{"vpid", 0, G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK, on_kind,
		 "Process ids in the process' pid namespace", "VPID[,VPID]..."},
		{"uid", 0, G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK, on_kind,
		 "User ids or names (-u only)", "USER[,USER]..."},
		{"vuid", 0, G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK, on_kind,
		 "User ids or names in the process' user namespace (-u only)",
		 "VUSER[,VUSER]..."},
		{"gid", 0, G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK, on_kind,
		 "Group ids or names (-u only)", "GROUP[,GROUP]..."},
		{"vgid", 0, G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK, on_kind,
		 "Group ids or names in the process' user namespace (-u only)",
		 "VGROUP[,VGROUP]..."},
		{"unit", 0, 0, G_OPTION_ARG_STRING, &unit_name,
		 "A systemd unit's applications, whatever their user (-u only)", "UNIT"},
		{NULL},
	};
	g_autoptr(GOptionContext) context = g_option_context_new(
		"-u|-k [-s SESSION] (--pid=PID[,PID]... | --vpid=... | --uid=... | --vuid=... | "
		"--gid=... | --vgid=...)... | --all (--pid | --vpid | ...)...");
	g_autoptr(GError) error = NULL;
	g_autoptr(TcClientSession) session = NULL;
	gboolean any = FALSE, bad = FALSE;
	int status;

	for (guint kind = 0; kind < KINDS; kind++)
		options.values[kind] = g_array_new(FALSE, FALSE, sizeof(guint32));
	g_option_context_set_summary(context, track ? "Let processes record events in a session."
						    : "Keep processes from recording events in a "
						      "session.");
	g_option_context_set_description(context, description);
	g_option_context_add_main_entries(context, entries, NULL);
	if (!tc_client_parse(context, &argc, &argv, &status))
		return status;
	for (guint kind = 0; kind < KINDS; kind++) {
		any |= options.given[kind];
		/* --all names every value; otherwise values are needed. */
		bad |= options.given[kind] && options.all != (options.values[kind]->len == 0);
	}
	if (unit_name && !kernel && argc == 1 && !any && !options.all) {
		session = tc_client_session(session_name, &error);
		if (session == NULL)
			return tc_client_fail(g_steal_pointer(&error));
		return apply_unit(session, track);
	}
	if (userspace == kernel || argc != 1 || !any || bad || unit_name) {
		g_printerr("Error: give -u or -k, and --pid=PID,... (or another attribute) with "
			   "values, or --all with attributes without values; or --unit=UNIT "
			   "alone (try 'tracectl %s --help')\n",
			   track ? "track" : "untrack");
		return TC_EXIT_USAGE;
	}
	session = tc_client_session(session_name, &error);
	if (session == NULL)
		return tc_client_fail(g_steal_pointer(&error));
	return apply(session, kernel, track);
}

int
tc_cmd_track(int argc, char **argv)
{
	return run(argc, argv, TRUE);
}

int
tc_cmd_untrack(int argc, char **argv)
{
	return run(argc, argv, FALSE);
}

/* The "unit:" line of the units the session tracks; FALSE when none. */
static gboolean
print_units(TcClientSession *session)
{
	const char *const *units = tc_client_session_get_tracked_units(session);
	g_autofree char *joined = NULL;

	if (units == NULL || units[0] == NULL)
		return FALSE;
	joined = g_strjoinv(", ", (char **)units);
	g_print("  unit: %s (only their applications)\n", joined);
	return TRUE;
}

/* "Tracking:" lines of list NAME and status: the sets that do not hold
 * every value (none: every process records). */
void
tc_client_print_tracking(TcClientSession *session, const char *domain)
{
	GVariant *tracking = tc_client_session_get_tracking(session);
	gboolean all_every = TRUE;
	GVariantIter iter;
	const char *set_domain, *kind;
	gboolean every;
	GVariant *values;

	if (tracking == NULL)
		return;
	g_print("Tracking:\n");
	g_variant_iter_init(&iter, tracking);
	while (g_variant_iter_loop(&iter, "(&s&sb@au)", &set_domain, &kind, &every, &values)) {
		gsize count;
		const guint32 *data;

		if (!g_str_equal(set_domain, domain) || every)
			continue;
		all_every = FALSE;
		data = g_variant_get_fixed_array(values, &count, sizeof(guint32));
		g_print("  %s:", kind);
		if (count == 0)
			g_print(" (none: nothing records)");
		for (gsize i = 0; i < count; i++)
			g_print("%s %u", i ? "," : "", data[i]);
		g_print("\n");
	}
	if (g_str_equal(domain, "ust") && print_units(session))
		all_every = FALSE;
	if (all_every)
		g_print("  every process\n");
	g_print("\n");
}
