/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-lttng"

#include "tc-lttng-refused.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tc-peer-identity.h"

typedef struct {
	TcLttngRefused public;
	guint64 start_time; /* /proc/PID/stat's, in clock ticks since boot */
} Entry;

static GMutex lock;
static GQueue entries = G_QUEUE_INIT; /* [lock] Entry *, oldest first */

static void
entry_free(gpointer data)
{
	Entry *entry = data;

	g_free(entry->public.procname);
	g_free(entry->public.why);
	g_free(entry);
}

/* The start time of pid if it runs as uid; 0 when it does not run (or
 * not as uid), or its status cannot be read. */
/* /proc/PID/stat through the directory checked. */
static char *
read_stat(int dir_fd)
{
	char buffer[1024];
	int fd = openat(dir_fd, "stat", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buffer, sizeof(buffer) - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buffer[n] = '\0';
	return g_strdup(buffer);
}

static guint64
process_start_time(pid_t pid, uid_t uid)
{
	g_autofree char *path = g_strdup_printf("/proc/%d", (int)pid);
	g_autofree char *text = NULL;
	unsigned long long start = 0;
	int dir_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	const char *after_name;
	uid_t euid;
	gboolean ok;

	if (dir_fd < 0)
		return 0;
	ok = tc_peer_identity_proc_euid(dir_fd, &euid) && euid == uid &&
	     (text = read_stat(dir_fd)) != NULL;
	close(dir_fd);
	if (!ok)
		return 0;
	/* The name may hold spaces and parentheses: fields follow the last
	 * ')'; the start time is the 22nd field, the 20th after it. */
	after_name = strrchr(text, ')');
	if (after_name == NULL ||
	    sscanf(after_name + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
				   "%*d %*d %*d %*d %llu",
		   &start) != 1)
		return 0;
	return start;
}

static char *
process_name(pid_t pid)
{
	g_autofree char *path = g_strdup_printf("/proc/%d/comm", (int)pid);
	char *name = NULL;

	if (!g_file_get_contents(path, &name, NULL, NULL))
		return g_strdup("?");
	g_strchomp(name);
	return name;
}

/* [lock] */
static guint
count_of_uid(uid_t uid)
{
	guint count = 0;

	for (GList *l = entries.head; l; l = l->next)
		count += ((Entry *)l->data)->public.uid == uid;
	return count;
}

/* [lock] Forgets pid's refusal and, when room is needed, the oldest of
 * uid (or of anyone when the table is full). */
static void
make_room(pid_t pid, uid_t uid)
{
	for (GList *l = entries.head; l; l = l->next)
		if (((Entry *)l->data)->public.pid == pid) {
			entry_free(l->data);
			g_queue_delete_link(&entries, l);
			break;
		}
	if (count_of_uid(uid) >= TC_LTTNG_REFUSED_PER_UID_MAX) {
		for (GList *l = entries.head; l; l = l->next)
			if (((Entry *)l->data)->public.uid == uid) {
				entry_free(l->data);
				g_queue_delete_link(&entries, l);
				break;
			}
	}
	if (entries.length >= TC_LTTNG_REFUSED_MAX)
		entry_free(g_queue_pop_head(&entries));
}

/* [lock] */
static gboolean
is_known(pid_t pid, guint64 start_time, const char *why)
{
	for (GList *l = entries.head; l; l = l->next) {
		const Entry *entry = l->data;

		if (entry->public.pid == pid && entry->start_time == start_time &&
		    g_str_equal(entry->public.why, why))
			return TRUE;
	}
	return FALSE;
}

gboolean
tc_lttng_refused_add(pid_t pid, uid_t uid, const char *why)
{
	guint64 start_time = process_start_time(pid, uid);
	gboolean known;
	Entry *entry;

	if (start_time == 0)
		return TRUE; /* gone already */
	g_mutex_lock(&lock);
	known = is_known(pid, start_time, why);
	g_mutex_unlock(&lock);
	if (known)
		return FALSE;
	entry = g_new0(Entry, 1);
	entry->public.pid = pid;
	entry->public.uid = uid;
	entry->public.procname = process_name(pid);
	entry->public.why = g_strdup(why);
	entry->start_time = start_time;
	g_mutex_lock(&lock);
	make_room(pid, uid);
	g_queue_push_tail(&entries, entry);
	g_mutex_unlock(&lock);
	return TRUE;
}

static TcLttngRefused *
copy_of(const Entry *entry)
{
	TcLttngRefused *copy = g_new0(TcLttngRefused, 1);

	copy->pid = entry->public.pid;
	copy->uid = entry->public.uid;
	copy->procname = g_strdup(entry->public.procname);
	copy->why = g_strdup(entry->public.why);
	return copy;
}

static void
refused_free(gpointer data)
{
	TcLttngRefused *refused = data;

	g_free(refused->procname);
	g_free(refused->why);
	g_free(refused);
}

GPtrArray *
tc_lttng_refused_list(uid_t uid, gboolean all)
{
	GPtrArray *list = g_ptr_array_new_with_free_func(refused_free);
	GList *l, *next;

	g_mutex_lock(&lock);
	for (l = entries.head; l; l = next) {
		Entry *entry = l->data;

		next = l->next;
		if (process_start_time(entry->public.pid, entry->public.uid) != entry->start_time) {
			entry_free(entry);
			g_queue_delete_link(&entries, l);
		} else if (all || entry->public.uid == uid) {
			g_ptr_array_add(list, copy_of(entry));
		}
	}
	g_mutex_unlock(&lock);
	return list;
}

void
tc_lttng_refused_clear(void)
{
	g_mutex_lock(&lock);
	g_queue_clear_full(&entries, entry_free);
	g_mutex_unlock(&lock);
}
