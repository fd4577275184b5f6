/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Kernel tracking by ids (TC_KERNEL_TRACK): tracefs filters events on the
 * task's pid only, so the helper keeps an instance's set_event_pid equal to
 * the tasks of the processes whose ids are in every set of the session's
 * tracker that does not hold every value (LTTng's inclusion sets).
 *
 * The instance's event-fork adds a recorded task's children at once and
 * drops the tasks that exit. What changes ids (setuid(), setgid(),
 * entering a namespace) is found by rescanning /proc in rounds: a round
 * first takes a snapshot of set_event_pid, then reads at most
 * SCAN_PER_TICK processes every TC_KERNEL_TRACK_RESCAN_MS, appends the
 * tasks of those that match (an append never opens a gap), and at its end
 * removes what the snapshot held and no matching process has. A removal
 * rewrites the list (tracefs cannot remove one pid), which would record
 * every task for a moment: the instance is paused for the two writes.
 *
 * Each process is judged on its own ids (its thread group leader's, as
 * /proc/PID/status shows them): children of a tracked process record from
 * their first instruction and are judged at the next round. Pid 0 (the
 * idle tasks) is always in both set_event_pid and set_event_notrace_pid,
 * so that the list is never empty (which would mean every task) and the
 * idle tasks record nothing.
 */
#include "tc-helper-track.h"
#include "tc-helper-log.h"
#include "tc-helper-pids.h"
#include "tc-helper-request.h"
#include "tc-helper-tracefs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tc-kernel-abi.h"

#define SESSIONS_MAX 256
#define SCAN_PER_TICK 2048
/* What a snapshot of set_event_pid may hold: the tracked threads and the
 * children event-fork added since the last round. */
#define SNAPSHOT_MAX (2 * TC_KERNEL_PID_THREADS_MAX)
#define STATUS_MAX 8192
/* The kernel allows 340 lines of "inside outside count". */
#define ID_MAP_MAX 16384

struct tids {
	int32_t *v;
	uint32_t n, cap, max;
};

struct tracked {
	uint64_t id;
	uint32_t all;
	uint32_t counts[TC_KERNEL_TRACK_KINDS];
	uint32_t *values[TC_KERNEL_TRACK_KINDS]; /* sorted */
	struct tids snapshot, desired, added;
	bool is_in_round, is_full, was_warned;
};

/* One process' ids, each known or not (an unmapped vuid matches none). */
struct process_ids {
	uint32_t id[TC_KERNEL_TRACK_KINDS];
	uint32_t known; /* 1 << kind */
};

static struct tracked *sessions[SESSIONS_MAX];
static int nr_sessions;
static DIR *proc_dir; /* the round under way, or NULL */
static int64_t next_tick_ms;

static int
compare_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int
compare_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return x < y ? -1 : x > y;
}

/* 0, or -E2BIG at the bound (nothing added then). */
static int
tids_push(struct tids *tids, int32_t tid)
{
	if (tids->n >= tids->max)
		return -E2BIG;
	if (tids->n == tids->cap) {
		uint32_t cap = tids->cap ? tids->cap * 2 : 256;
		int32_t *v = reallocarray(tids->v, cap, sizeof(*v));

		if (v == NULL)
			return -ENOMEM;
		tids->v = v;
		tids->cap = cap;
	}
	tids->v[tids->n++] = tid;
	return 0;
}

/* An empty set may have no array at all, which qsort() must not see. */
static void
tids_sort(struct tids *tids)
{
	if (tids->n > 0)
		qsort(tids->v, tids->n, sizeof(int32_t), compare_i32);
}

static bool
tids_has(const struct tids *sorted, int32_t tid)
{
	return sorted->n && bsearch(&tid, sorted->v, sorted->n, sizeof(tid), compare_i32);
}

static void
tracked_free(struct tracked *t)
{
	if (t == NULL)
		return;
	for (int k = 0; k < TC_KERNEL_TRACK_KINDS; k++)
		free(t->values[k]);
	free(t->snapshot.v);
	free(t->desired.v);
	free(t->added.v);
	free(t);
}

/* A decimal number of at most max after blanks; *p moves past it. */
static bool
parse_number(const char **p, uint64_t max, uint64_t *value)
{
	unsigned long long v = 0;
	const char *s = *p;
	int digits = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	for (; *s >= '0' && *s <= '9' && digits < 11; s++, digits++)
		v = v * 10 + (unsigned long long)(*s - '0');
	if (digits == 0 || digits == 11 || v > max)
		return false;
	*value = v;
	*p = s;
	return true;
}

/* An id: at most UINT32_MAX - 1, since (uid_t)-1 is no id. */
static bool
parse_u32(const char **p, uint32_t *value)
{
	uint64_t v;

	if (!parse_number(p, UINT32_MAX - 1, &v))
		return false;
	*value = (uint32_t)v;
	return true;
}

/* Reads a small /proc file of the process (through its directory) into
 * buf, NUL-terminated; false when it cannot be read whole. */
static bool
read_small(int dir_fd, const char *name, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t got = 1;
	int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return false;
	while (got > 0 && len < size - 1) {
		got = read(fd, buf + len, size - 1 - len);
		if (got < 0 && errno == EINTR)
			got = 1;
		else if (got > 0)
			len += (size_t)got;
	}
	close(fd);
	buf[len] = '\0';
	return got == 0;
}

/* The value after "\nName:" (the first of a line of several), or the
 * last of the line (NSpid's innermost pid). */
static bool
status_field(const char *status, const char *name, bool last, uint32_t *value)
{
	char key[16];
	const char *p;

	snprintf(key, sizeof(key), "\n%s:", name);
	p = strstr(status, key);
	if (p == NULL)
		return false;
	p += strlen(key);
	if (!parse_u32(&p, value))
		return false;
	while (last && (*p == ' ' || *p == '\t') && parse_u32(&p, value))
		;
	return true;
}

/* id as the process' user namespace sees it, through its uid_map or
 * gid_map ("inside outside count" lines, outside as the helper sees
 * it); false for an id the namespace does not map. */
static bool
map_id(int dir_fd, const char *map_name, uint32_t id, uint32_t *mapped)
{
	static char map[ID_MAP_MAX];
	const char *p = map;

	if (!read_small(dir_fd, map_name, map, sizeof(map)))
		return false;
	for (;;) {
		uint32_t inside, outside;
		uint64_t count;

		while (*p == '\n' || *p == ' ')
			p++;
		if (*p == '\0')
			return false;
		/* count may be UINT32_MAX ("0 0 4294967295"). */
		if (!parse_u32(&p, &inside) || !parse_u32(&p, &outside) ||
		    !parse_number(&p, UINT32_MAX, &count))
			return false;
		if (id >= outside && (uint64_t)id - outside < count) {
			*mapped = inside + (id - outside);
			return *mapped != UINT32_MAX;
		}
	}
}

/* The ids of the process of directory name in /proc that need asks for
 * (1 << kind); false when it is gone or its status makes no sense. */
static bool
read_process_ids(int dir_fd, int32_t pid, uint32_t need, struct process_ids *ids)
{
	static char status[STATUS_MAX];
	uint32_t tgid, vpid, uid, gid;

	/* The kernel escapes a newline in the process' name, the one field
	 * the process chooses, so "\nUid:" is the kernel's line. */

	if (!read_small(dir_fd, "status", status + 1, sizeof(status) - 1))
		return false;
	status[0] = '\n';
	if (!status_field(status, "Tgid", false, &tgid) || tgid != (uint32_t)pid ||
	    !status_field(status, "Uid", false, &uid) || !status_field(status, "Gid", false, &gid))
		return false;
	ids->known = 0;
	ids->id[TC_KERNEL_TRACK_PID] = tgid;
	ids->id[TC_KERNEL_TRACK_UID] = uid;
	ids->id[TC_KERNEL_TRACK_GID] = gid;
	ids->known |= 1u << TC_KERNEL_TRACK_PID | 1u << TC_KERNEL_TRACK_UID |
		      1u << TC_KERNEL_TRACK_GID;
	if ((need & 1u << TC_KERNEL_TRACK_VPID) && status_field(status, "NSpid", true, &vpid)) {
		ids->id[TC_KERNEL_TRACK_VPID] = vpid;
		ids->known |= 1u << TC_KERNEL_TRACK_VPID;
	}
	if ((need & 1u << TC_KERNEL_TRACK_VUID) &&
	    map_id(dir_fd, "uid_map", uid, &ids->id[TC_KERNEL_TRACK_VUID]))
		ids->known |= 1u << TC_KERNEL_TRACK_VUID;
	if ((need & 1u << TC_KERNEL_TRACK_VGID) &&
	    map_id(dir_fd, "gid_map", gid, &ids->id[TC_KERNEL_TRACK_VGID]))
		ids->known |= 1u << TC_KERNEL_TRACK_VGID;
	return true;
}

static bool
matches(const struct tracked *t, const struct process_ids *ids)
{
	for (int k = 0; k < TC_KERNEL_TRACK_KINDS; k++) {
		if (t->all & 1u << k)
			continue;
		if (!(ids->known & 1u << k) || t->counts[k] == 0 ||
		    !bsearch(&ids->id[k], t->values[k], t->counts[k], sizeof(uint32_t),
			     compare_u32))
			return false;
	}
	return true;
}

/* The pids as text, written in one call (tracefs parses what one write
 * holds). */
static int
write_pids(uint64_t session_id, const struct tids *tids, bool truncate)
{
	char *text = malloc((size_t)tids->n * 12 + 1);
	size_t len = 0;
	int ret;

	if (text == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < tids->n; i++)
		len += (size_t)snprintf(text + len, 12, "%" PRId32 " ", tids->v[i]);
	ret = tc_helper_pids_instance_write(session_id, "set_event_pid", text, len, truncate);
	free(text);
	return ret;
}

/* set_event_pid as it is now, sorted, at most tids->max of them. */
static int
read_event_pids(uint64_t session_id, struct tids *tids)
{
	char path[4096], buf[4096], number[16];
	size_t number_len = 0;
	ssize_t got;
	int fd, ret = 0;

	tids->n = 0;
	tc_helper_pids_instance_path(session_id, "set_event_pid", path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	while (ret == 0 && (got = read(fd, buf, sizeof(buf))) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			ret = -errno;
			break;
		}
		for (ssize_t i = 0; ret == 0 && i < got; i++) {
			if (buf[i] >= '0' && buf[i] <= '9' && number_len < sizeof(number) - 1) {
				number[number_len++] = buf[i];
				continue;
			}
			number[number_len] = '\0';
			/* The kernel writes pids; anything else is not one. */
			if (number_len > 0 && number_len < 11) {
				long tid = strtol(number, NULL, 10);

				if (tid <= INT32_MAX)
					ret = tids_push(tids, (int32_t)tid);
			}
			number_len = 0;
		}
	}
	close(fd);
	if (ret == 0)
		tids_sort(tids);
	return ret;
}

/* The threads of a matching process (its directory dir_fd) into the
 * round's sets: desired, and added for those set_event_pid lacks. */
static void
collect_tasks(struct tracked *t, int dir_fd)
{
	int task_fd = openat(dir_fd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = task_fd < 0 ? NULL : fdopendir(task_fd);
	struct dirent *entry;

	if (dir == NULL) {
		if (task_fd >= 0)
			close(task_fd);
		return;
	}
	while (!t->is_full && (entry = readdir(dir)) != NULL) {
		uint32_t tid;
		const char *p = entry->d_name;

		if (!parse_u32(&p, &tid) || *p || tid == 0 || tid > INT32_MAX)
			continue;
		if (tids_push(&t->desired, (int32_t)tid) < 0 ||
		    (!tids_has(&t->snapshot, (int32_t)tid) &&
		     tids_push(&t->added, (int32_t)tid) < 0))
			t->is_full = true;
	}
	closedir(dir);
}

/* The kinds some session in a round needs read beyond the status' own. */
static uint32_t
kinds_needed(void)
{
	uint32_t need = 0;

	for (int i = 0; i < nr_sessions; i++)
		if (sessions[i]->is_in_round)
			need |= ~sessions[i]->all;
	return need;
}

/* One /proc entry, for the sessions of the round (or t alone). */
static void
scan_entry(int proc_fd, const char *name, struct tracked *only, uint32_t need)
{
	struct process_ids ids;
	const char *p = name;
	uint32_t pid;
	int dir_fd;

	if (!parse_u32(&p, &pid) || *p || pid == 0 || pid > INT32_MAX)
		return;
	dir_fd = openat(proc_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (dir_fd < 0)
		return;
	if (read_process_ids(dir_fd, (int32_t)pid, need, &ids)) {
		for (int i = 0; only == NULL && i < nr_sessions; i++)
			if (sessions[i]->is_in_round && matches(sessions[i], &ids))
				collect_tasks(sessions[i], dir_fd);
		if (only && matches(only, &ids))
			collect_tasks(only, dir_fd);
	}
	close(dir_fd);
}

/* Takes the snapshot the round's removals are judged against. */
static int
round_begin(struct tracked *t)
{
	int ret = read_event_pids(t->id, &t->snapshot);

	t->desired.n = t->added.n = 0;
	t->is_full = false;
	t->is_in_round = ret == 0;
	/* Pid 0 stays: an empty list would record every task. */
	if (ret == 0 && tids_push(&t->desired, 0) == 0 && !tids_has(&t->snapshot, 0))
		ret = tids_push(&t->added, 0);
	return ret;
}

/* Appends what the round found missing. */
static int
flush_added(struct tracked *t)
{
	int ret = t->added.n ? write_pids(t->id, &t->added, false) : 0;

	t->added.n = 0;
	return ret;
}

static bool
is_recording(uint64_t session_id)
{
	char path[4096], buf[4] = "";
	int fd;

	tc_helper_pids_instance_path(session_id, "tracing_on", path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return false;
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = '\0';
	close(fd);
	return buf[0] == '1';
}

/* Replaces set_event_pid by tids with the instance paused: between the
 * truncating open and the write the list is empty, and an empty list
 * records every task. */
static int
rewrite_pids_paused(uint64_t session_id, const struct tids *tids)
{
	bool was_on = is_recording(session_id);
	int ret = was_on ? tc_helper_tracefs_tracing_on(session_id, false) : 0;

	if (ret == 0)
		ret = write_pids(session_id, tids, true);
	if (was_on && tc_helper_tracefs_tracing_on(session_id, true) < 0 && ret == 0)
		ret = -EIO;
	return ret;
}

/* The round's end: what the snapshot held and no matching process has
 * leaves set_event_pid; the children event-fork added meanwhile stay. */
static int
round_end(struct tracked *t)
{
	struct tids now = {.max = SNAPSHOT_MAX}, kept = {.max = SNAPSHOT_MAX};
	bool is_removing = false;
	int ret = 0;

	t->is_in_round = false;
	if (t->is_full)
		return 0; /* desired lacks some: nothing is judged gone */
	tids_sort(&t->desired);
	for (uint32_t i = 0; !is_removing && i < t->snapshot.n; i++)
		is_removing = !tids_has(&t->desired, t->snapshot.v[i]);
	if (!is_removing)
		return 0;
	ret = read_event_pids(t->id, &now);
	for (uint32_t i = 0; ret == 0 && i < now.n; i++)
		if (!tids_has(&t->snapshot, now.v[i]) || tids_has(&t->desired, now.v[i]))
			ret = tids_push(&kept, now.v[i]);
	if (ret == 0 && kept.n == 0)
		ret = tids_push(&kept, 0);
	if (ret == 0)
		ret = rewrite_pids_paused(t->id, &kept);
	free(now.v);
	free(kept.v);
	return ret;
}

static void
warn_once(struct tracked *t, int ret)
{
	if (ret == 0 && !t->is_full) {
		t->was_warned = false;
		return;
	}
	if (t->was_warned)
		return;
	t->was_warned = true;
	tc_helper_log("warning", "session %" PRIu64 ": %s", t->id,
		      ret < 0 ? strerror(-ret)
			      : "the tracked processes have more threads than the limit, some "
				"are not recorded");
}

static int
find_session(uint64_t session_id)
{
	for (int i = 0; i < nr_sessions; i++)
		if (sessions[i]->id == session_id)
			return i;
	return -1;
}

void
tc_helper_track_forget(uint64_t session_id)
{
	int i = find_session(session_id);

	if (i < 0)
		return;
	tracked_free(sessions[i]);
	sessions[i] = sessions[--nr_sessions];
	if (nr_sessions == 0 && proc_dir) {
		closedir(proc_dir);
		proc_dir = NULL;
	}
}

/* The message's sets, sorted, or NULL with *ret. */
static struct tracked *
tracked_new(const struct tc_kernel_track_msg *msg, int *ret)
{
	struct tracked *t = calloc(1, sizeof(*t));
	uint32_t offset = 0;

	*ret = -ENOMEM;
	if (t == NULL)
		return NULL;
	t->id = msg->header.session_id;
	t->all = msg->all;
	t->snapshot.max = SNAPSHOT_MAX;
	t->desired.max = t->added.max = TC_KERNEL_PID_THREADS_MAX;
	for (int k = 0; k < TC_KERNEL_TRACK_KINDS; k++) {
		uint32_t count = msg->counts[k];

		t->counts[k] = count;
		t->values[k] = malloc(sizeof(uint32_t) * (count ? count : 1));
		if (t->values[k] == NULL) {
			tracked_free(t);
			return NULL;
		}
		memcpy(t->values[k], msg->values + offset, sizeof(uint32_t) * count);
		qsort(t->values[k], count, sizeof(uint32_t), compare_u32);
		offset += count;
	}
	*ret = 0;
	return t;
}

/* A whole round for t alone, before it replaces the session's tracker:
 * -E2BIG leaves the instance as it was. */
static int
first_round(struct tracked *t)
{
	int proc_fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = proc_fd < 0 ? NULL : fdopendir(proc_fd);
	struct dirent *entry;
	int ret;

	if (dir == NULL) {
		if (proc_fd >= 0)
			close(proc_fd);
		return -errno;
	}
	ret = round_begin(t);
	while (ret == 0 && !t->is_full && (entry = readdir(dir)) != NULL)
		scan_entry(dirfd(dir), entry->d_name, t, ~t->all);
	closedir(dir);
	return ret < 0 ? ret : t->is_full ? -E2BIG : 0;
}

/* Writes what the first round found: the idle task kept out, the
 * processes added and removed, children followed from their fork. */
static int
apply_first_round(struct tracked *t)
{
	int ret = tc_helper_pids_instance_write(t->id, "set_event_notrace_pid", "0 ", 2, false);

	if (ret == 0)
		ret = flush_added(t);
	if (ret == 0)
		ret = round_end(t);
	if (ret == 0)
		ret = tc_helper_pids_instance_write(t->id, "options/event-fork", "1", 1, true);
	return ret;
}

/* After a failed first round of a session with no tracker yet (a
 * tracker would correct the list at its next round): set_event_pid goes
 * back to what the first round found, or, if that cannot be written, to
 * pid 0 alone, which records nothing, rather than a list half changed. */
static void
restore_snapshot(struct tracked *t)
{
	struct tids nothing = {.max = 1};
	int ret = rewrite_pids_paused(t->id, &t->snapshot);

	if (ret < 0 && tids_push(&nothing, 0) == 0)
		ret = rewrite_pids_paused(t->id, &nothing);
	free(nothing.v);
	if (ret < 0)
		tc_helper_log("warning", "session %" PRIu64 ": cannot restore set_event_pid: %s",
			      t->id, strerror(-ret));
}

int
tc_helper_track(const struct tc_kernel_track_msg *msg)
{
	struct tracked *t;
	int ret, i;

	if (!tc_helper_request_track_is_valid(msg))
		return -EINVAL;
	i = find_session(msg->header.session_id);
	if (i < 0 && nr_sessions >= SESSIONS_MAX)
		return -EMFILE;
	t = tracked_new(msg, &ret);
	if (t && (ret = first_round(t)) == 0 && (ret = apply_first_round(t)) < 0 && i < 0)
		restore_snapshot(t);
	tc_helper_log("info", "session %" PRIu64 ": processes recorded by their ids (%s)",
		      msg->header.session_id, ret == 0 ? "ok" : strerror(-ret));
	if (ret < 0) {
		tracked_free(t);
		return ret;
	}
	if (i >= 0) {
		tracked_free(sessions[i]);
		sessions[i] = t;
	} else {
		sessions[nr_sessions++] = t;
	}
	if (next_tick_ms == 0 || nr_sessions == 1)
		next_tick_ms = tc_helper_log_now_ms() + TC_KERNEL_TRACK_RESCAN_MS;
	return 0;
}

int64_t
tc_helper_track_deadline_ms(void)
{
	return nr_sessions ? next_tick_ms : -1;
}

/* Starts a round for every session. */
static void
rounds_begin(void)
{
	proc_dir = opendir("/proc");
	for (int i = 0; proc_dir && i < nr_sessions; i++)
		warn_once(sessions[i], round_begin(sessions[i]));
}

static void
rounds_end(void)
{
	closedir(proc_dir);
	proc_dir = NULL;
	for (int i = 0; i < nr_sessions; i++)
		if (sessions[i]->is_in_round)
			warn_once(sessions[i], round_end(sessions[i]));
}

void
tc_helper_track_tick(void)
{
	struct dirent *entry = NULL;
	uint32_t need;

	if (nr_sessions == 0 || tc_helper_log_now_ms() < next_tick_ms)
		return;
	next_tick_ms = tc_helper_log_now_ms() + TC_KERNEL_TRACK_RESCAN_MS;
	if (proc_dir == NULL)
		rounds_begin();
	if (proc_dir == NULL)
		return;
	need = kinds_needed();
	for (int n = 0; n < SCAN_PER_TICK && (entry = readdir(proc_dir)) != NULL; n++)
		scan_entry(dirfd(proc_dir), entry->d_name, NULL, need);
	for (int i = 0; i < nr_sessions; i++)
		if (sessions[i]->is_in_round)
			warn_once(sessions[i], flush_added(sessions[i]));
	if (entry == NULL)
		rounds_end();
}
