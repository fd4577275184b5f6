/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Who each kernel record belongs to, for the kernel context fields (pid,
 * tid, procname, prio). A record carries only its thread id (common_pid),
 * so the rest comes from the kernel:
 *
 *   comm, prio  sched_switch: the task now running on a CPU, whose records
 *               follow on that CPU (the kernel does not always record a
 *               switch out of the idle task, so the task's last known
 *               comm and prio are used when the CPU's is not it);
 *               sched_wakeup_new: a new task, before it ever runs;
 *               task_rename: a comm set by exec or prctl
 *   tgid        task_newtask: a new thread is in its creator's thread
 *               group, a new process is its own; for tasks created before
 *               tracing started (or whose creation the consumer has not
 *               read yet, being in a page of another CPU the kernel is
 *               still filling), /proc/<tid>/status while the task lives,
 *               then the kernel's saved_tgids map (the instance's
 *               record-tgid option has the scheduler fill it), read again
 *               at most once per drain. The map is only a last resort:
 *               it is never cleared, so the entry of a pid the kernel
 *               gave out again is the old task's until the new one is
 *               scheduled with tracing on
 *
 * and for comm and prio of tasks that ran only before tracing started,
 * /proc/<tid>/stat the first time they are seen ("" and -1 when the task
 * was gone by then). Tasks and thread groups are cached by thread id in
 * tables of sets of CACHE_WAYS entries, the least recently used one
 * replaced: an evicted entry is looked up again. With one entry per set,
 * two busy threads whose ids were equal modulo the table size (easily
 * met with pid_max at 4M, systemd's default) took turns evicting each
 * other, and every one of their records cost a /proc read.
 */
#include "tc-consumerd-kernel-task.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <unistd.h>


#define TASKS_CACHED 8192u  /* a power of two */
#define TGIDS_CACHED (1u << 18) /* a power of two */
#define CACHE_WAYS 4u       /* entries per set, in both tables */
#define TGIDS_TEXT_MAX (16u << 20)
#define MAX_RT_PRIO 100 /* kernel prio 120 is "20" in /proc and in LTTng */

struct field_ref {
	uint32_t offset, size; /* size 0: no such field */
};

/* How sure a thread group id is. */
enum tgid_source {
	TGID_FROM_MAP,      /* saved_tgids: maybe an older task's with that pid */
	TGID_FROM_MAP_ONLY, /* and /proc had no such task any more */
	TGID_EXACT,         /* its creation, or /proc while it lived */
};

struct tgid_entry {
	int32_t tid, tgid; /* tid 0: empty; tgid -1: not known */
	enum tgid_source source;
};

struct tc_consumerd_kernel_tasks {
	int switch_id, wakeup_new_id, rename_id, newtask_id; /* -1 until their formats are known */
	struct field_ref prev_pid, prev_comm, prev_prio, next_pid, next_comm, next_prio;
	struct field_ref new_pid, new_comm, new_prio, rename_pid, rename_comm;
	struct field_ref creator_pid, created_pid, clone_flags;
	int tgids_fd;        /* saved_tgids, or -1 */
	bool tgids_reread;   /* in this drain */
	char *tgids_text;
	struct tgid_entry tgids[TGIDS_CACHED];
	uint32_t nr_cpus;
	struct tc_consumerd_kernel_task *running; /* per CPU, tid -1: unknown */
	struct tc_consumerd_kernel_task cache[TASKS_CACHED];
	/* When each entry was last used, on a clock that ticks per use. */
	uint64_t clock;
	uint64_t tgid_used[TGIDS_CACHED];
	uint64_t task_used[TASKS_CACHED];
	uint64_t proc_reads;
};

static void
task_clear(struct tc_consumerd_kernel_task *task, int32_t tid)
{
	memset(task, 0, sizeof(*task));
	task->tid = tid;
	task->tgid = -1;
	task->prio = -1;
}

struct tc_consumerd_kernel_tasks *
tc_consumerd_kernel_task_new(uint32_t nr_cpus, int tgids_fd)
{
	struct tc_consumerd_kernel_tasks *tasks = calloc(1, sizeof(*tasks));

	if (tasks)
		tasks->running = calloc(nr_cpus, sizeof(tasks->running[0]));
	if (!tasks || !tasks->running) {
		free(tasks);
		if (tgids_fd >= 0)
			close(tgids_fd);
		return NULL;
	}
	tasks->tgids_fd = tgids_fd;
	tasks->nr_cpus = nr_cpus;
	tasks->switch_id = tasks->wakeup_new_id = tasks->rename_id = tasks->newtask_id = -1;
	for (uint32_t cpu = 0; cpu < nr_cpus; cpu++)
		task_clear(&tasks->running[cpu], -1);
	for (uint32_t i = 0; i < TASKS_CACHED; i++)
		task_clear(&tasks->cache[i], -1);
	return tasks;
}

void
tc_consumerd_kernel_task_free(struct tc_consumerd_kernel_tasks *tasks)
{
	if (!tasks)
		return;
	if (tasks->tgids_fd >= 0)
		close(tasks->tgids_fd);
	free(tasks->tgids_text);
	free(tasks->running);
	free(tasks);
}

static struct field_ref
find_field(struct tep_event *event, const char *name)
{
	struct tep_format_field *field = event ? tep_find_any_field(event, name) : NULL;
	struct field_ref ref = {0};

	if (field && !(field->flags & TEP_FIELD_IS_DYNAMIC) && field->size > 0) {
		ref.offset = (uint32_t)field->offset;
		ref.size = (uint32_t)field->size;
	}
	return ref;
}

void
tc_consumerd_kernel_task_use_formats(struct tc_consumerd_kernel_tasks *tasks,
				     struct tep_handle *tep)
{
	struct tep_event *sw = tep_find_event_by_name(tep, "sched", "sched_switch");
	struct tep_event *wn = tep_find_event_by_name(tep, "sched", "sched_wakeup_new");
	struct tep_event *rn = tep_find_event_by_name(tep, "task", "task_rename");
	struct tep_event *nt = tep_find_event_by_name(tep, "task", "task_newtask");

	tasks->switch_id = sw ? sw->id : -1;
	tasks->wakeup_new_id = wn ? wn->id : -1;
	tasks->rename_id = rn ? rn->id : -1;
	tasks->newtask_id = nt ? nt->id : -1;
	tasks->creator_pid = find_field(nt, "common_pid");
	tasks->created_pid = find_field(nt, "pid");
	tasks->clone_flags = find_field(nt, "clone_flags");
	tasks->new_pid = find_field(wn, "pid");
	tasks->new_comm = find_field(wn, "comm");
	tasks->new_prio = find_field(wn, "prio");
	tasks->rename_pid = find_field(rn, "pid");
	tasks->rename_comm = find_field(rn, "newcomm");
	tasks->prev_pid = find_field(sw, "prev_pid");
	tasks->prev_comm = find_field(sw, "prev_comm");
	tasks->prev_prio = find_field(sw, "prev_prio");
	tasks->next_pid = find_field(sw, "next_pid");
	tasks->next_comm = find_field(sw, "next_comm");
	tasks->next_prio = find_field(sw, "next_prio");
}

/* A signed or unsigned integer field of 1 to 8 bytes; false when the
 * record is too short for it. */
static bool
read_integer(const uint8_t *data, uint32_t size, struct field_ref ref, int64_t *value)
{
	uint64_t raw = 0;

	if (ref.size == 0 || ref.size > 8 || ref.offset > size || ref.size > size - ref.offset)
		return false;
	memcpy(&raw, data + ref.offset, ref.size); /* little endian */
	if (ref.size < 8 && (raw >> (ref.size * 8 - 1)) & 1)
		raw |= ~0ull << (ref.size * 8); /* pids and prios are signed */
	*value = (int64_t)raw;
	return true;
}

static bool
read_comm(const uint8_t *data, uint32_t size, struct field_ref ref, char comm[16])
{
	uint32_t len = ref.size < 15 ? ref.size : 15;

	if (ref.size == 0 || ref.offset > size || len > size - ref.offset)
		return false;
	memcpy(comm, data + ref.offset, len);
	comm[len] = '\0';
	return true;
}

/*
 * Where tid is, or goes, in a table of entries (a power of two) kept in
 * sets of CACHE_WAYS: first_tid is the thread id field of the table's
 * first entry, stride the size of an entry, used when each was last used.
 * Returns the entry that holds tid (*hit), else the one to give it: an
 * empty one (thread id empty), else the least recently used of its set.
 */
static uint32_t
cache_index(const int32_t *first_tid, size_t stride, const uint64_t *used, uint32_t entries,
	    int32_t tid, int32_t empty, bool *hit)
{
	uint32_t set = ((uint32_t)tid & (entries / CACHE_WAYS - 1)) * CACHE_WAYS;
	uint32_t victim = set;

	for (uint32_t index = set; index < set + CACHE_WAYS; index++) {
		int32_t id = *(const int32_t *)((const char *)first_tid + index * stride);
		int32_t victim_id = *(const int32_t *)((const char *)first_tid + victim * stride);

		if (id == tid && tid != empty) {
			*hit = true;
			return index;
		}
		if (victim_id != empty && (id == empty || used[index] < used[victim]))
			victim = index;
	}
	*hit = false;
	return victim;
}

static uint32_t
task_index(const struct tc_consumerd_kernel_tasks *tasks, int32_t tid, bool *hit)
{
	return cache_index(&tasks->cache[0].tid, sizeof(tasks->cache[0]), tasks->task_used,
			   TASKS_CACHED, tid, -1, hit);
}

/* The cached task tid, or a cleared entry for it. */
static struct tc_consumerd_kernel_task *
cache_entry(struct tc_consumerd_kernel_tasks *tasks, int32_t tid)
{
	bool hit;
	uint32_t index = task_index(tasks, tid, &hit);
	struct tc_consumerd_kernel_task *task = &tasks->cache[index];

	tasks->task_used[index] = ++tasks->clock;
	if (!hit)
		task_clear(task, tid);
	return task;
}

static void
remember(struct tc_consumerd_kernel_tasks *tasks, int32_t tid, const char *comm, int64_t prio)
{
	struct tc_consumerd_kernel_task *task = cache_entry(tasks, tid);

	memcpy(task->comm, comm, sizeof(task->comm));
	task->prio = (int32_t)(prio - MAX_RT_PRIO);
	task->has_comm = true;
}

static void
follow_switch(struct tc_consumerd_kernel_tasks *tasks, uint32_t cpu, const uint8_t *data,
	      uint32_t size)
{
	struct tc_consumerd_kernel_task *running = &tasks->running[cpu];
	int64_t prev_pid, prev_prio, next_pid, next_prio;
	char prev_comm[16], next_comm[16];

	if (read_integer(data, size, tasks->prev_pid, &prev_pid) &&
	    read_integer(data, size, tasks->prev_prio, &prev_prio) &&
	    read_comm(data, size, tasks->prev_comm, prev_comm))
		remember(tasks, (int32_t)prev_pid, prev_comm, prev_prio);
	if (!read_integer(data, size, tasks->next_pid, &next_pid) ||
	    !read_integer(data, size, tasks->next_prio, &next_prio) ||
	    !read_comm(data, size, tasks->next_comm, next_comm)) {
		task_clear(running, -1);
		return;
	}
	remember(tasks, (int32_t)next_pid, next_comm, next_prio);
	task_clear(running, (int32_t)next_pid);
	memcpy(running->comm, next_comm, sizeof(running->comm));
	running->prio = (int32_t)(next_prio - MAX_RT_PRIO);
	running->has_comm = true;
}

/* A new task: whatever was cached under its id was another one's. */
static void
follow_wakeup_new(struct tc_consumerd_kernel_tasks *tasks, const uint8_t *data, uint32_t size)
{
	int64_t pid, prio;
	char comm[16];

	if (read_integer(data, size, tasks->new_pid, &pid) && pid > 0 && pid <= INT32_MAX &&
	    read_integer(data, size, tasks->new_prio, &prio) &&
	    read_comm(data, size, tasks->new_comm, comm)) {
		task_clear(cache_entry(tasks, (int32_t)pid), (int32_t)pid);
		remember(tasks, (int32_t)pid, comm, prio);
	}
}

static void
follow_rename(struct tc_consumerd_kernel_tasks *tasks, uint32_t cpu, const uint8_t *data,
	      uint32_t size)
{
	struct tc_consumerd_kernel_task *task;
	int64_t pid;
	char comm[16];

	if (!read_integer(data, size, tasks->rename_pid, &pid) || pid <= 0 || pid > INT32_MAX ||
	    !read_comm(data, size, tasks->rename_comm, comm))
		return;
	task = cache_entry(tasks, (int32_t)pid);
	memcpy(task->comm, comm, sizeof(task->comm));
	if (cpu < tasks->nr_cpus && tasks->running[cpu].tid == (int32_t)pid)
		memcpy(tasks->running[cpu].comm, comm, sizeof(comm));
}

static uint32_t
tgid_index(const struct tc_consumerd_kernel_tasks *tasks, int32_t tid, bool *hit)
{
	return cache_index(&tasks->tgids[0].tid, sizeof(tasks->tgids[0]), tasks->tgid_used,
			   TGIDS_CACHED, tid, 0, hit);
}

/* tid's entry, or NULL. */
static struct tgid_entry *
find_tgid(struct tc_consumerd_kernel_tasks *tasks, int32_t tid)
{
	bool hit;
	uint32_t index = tgid_index(tasks, tid, &hit);

	if (!hit)
		return NULL;
	tasks->tgid_used[index] = ++tasks->clock;
	return &tasks->tgids[index];
}

static void
set_tgid(struct tc_consumerd_kernel_tasks *tasks, int32_t tid, int32_t tgid,
	 enum tgid_source source)
{
	bool hit;
	uint32_t index = tgid_index(tasks, tid, &hit);

	tasks->tgids[index] = (struct tgid_entry){.tid = tid, .tgid = tgid, .source = source};
	tasks->tgid_used[index] = ++tasks->clock;
}

/* A whole "tid tgid" line at *line, which then points past it; false
 * (and *line past the line) for anything else: kernel text, but a line
 * cut short must not be read as the start of the next one. */
static bool
parse_tgid_line(char **line, long *tid, long *tgid)
{
	char *end, *next = strchr(*line, '\n');
	bool ok;

	if (!next) { /* the last line, cut at the read's end */
		*line += strlen(*line);
		return false;
	}
	*tid = strtol(*line, &end, 10);
	ok = end != *line && *end == ' ';
	if (ok) {
		char *start = end + 1;

		*tgid = strtol(start, &end, 10);
		ok = end != start && end == next;
	}
	*line = next + 1;
	return ok && *tid > 0 && *tid <= INT32_MAX && *tgid > 0 && *tgid <= INT32_MAX;
}

/*
 * saved_tgids: what it says never overrides what is known exactly, and
 * takes only free entries or those it filled before (the map lists every
 * task the scheduler saw, far more than the table holds). Returns what it
 * says of wanted, or -1.
 */
static int32_t
reread_tgids(struct tc_consumerd_kernel_tasks *tasks, int32_t wanted)
{
	int32_t wanted_tgid = -1;
	size_t len = 0;
	ssize_t n;

	if (!tasks->tgids_text)
		tasks->tgids_text = malloc(TGIDS_TEXT_MAX + 1);
	if (!tasks->tgids_text)
		return -1;
	while (len < TGIDS_TEXT_MAX &&
	       (n = pread(tasks->tgids_fd, tasks->tgids_text + len, TGIDS_TEXT_MAX - len,
			  (off_t)len)) > 0)
		len += (size_t)n;
	tasks->tgids_text[len] = '\0';
	for (char *line = tasks->tgids_text; *line;) {
		long tid, tgid;

		struct tgid_entry *entry;
		bool hit;

		if (!parse_tgid_line(&line, &tid, &tgid))
			continue;
		if (tid == wanted)
			wanted_tgid = (int32_t)tgid;
		entry = &tasks->tgids[tgid_index(tasks, (int32_t)tid, &hit)];
		if (hit ? entry->source != TGID_EXACT
			: entry->tid == 0 || entry->source == TGID_FROM_MAP)
			*entry = (struct tgid_entry){.tid = (int32_t)tid, .tgid = (int32_t)tgid,
						     .source = TGID_FROM_MAP};
	}
	return wanted_tgid;
}

static bool
read_proc_file(struct tc_consumerd_kernel_tasks *tasks, int32_t tid, const char *name, char *buf,
	       size_t size)
{
	char path[64];
	ssize_t len;
	int fd;

	tasks->proc_reads++;
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)tid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	len = read(fd, buf, size - 1);
	close(fd);
	if (len <= 0)
		return false;
	buf[len] = '\0';
	return true;
}

/* The thread group of a live task, or -1. */
static int32_t
proc_tgid(struct tc_consumerd_kernel_tasks *tasks, int32_t tid)
{
	char status[4096], *line;
	long tgid;

	if (!read_proc_file(tasks, tid, "status", status, sizeof(status)))
		return -1;
	line = strstr(status, "\nTgid:");
	tgid = line ? strtol(line + 6, NULL, 10) : -1;
	return tgid > 0 && tgid <= INT32_MAX ? (int32_t)tgid : -1;
}

/* The thread group of tid, or -1; /proc is read once per task, the map
 * once per drain at most. */
static int32_t
lookup_tgid(struct tc_consumerd_kernel_tasks *tasks, int32_t tid)
{
	struct tgid_entry *entry = find_tgid(tasks, tid);
	int32_t tgid;

	if (entry && entry->source != TGID_FROM_MAP)
		return entry->tgid;
	tgid = proc_tgid(tasks, tid);
	if (tgid > 0) {
		set_tgid(tasks, tid, tgid, TGID_EXACT);
		return tgid;
	}
	/* An entry from an earlier read of the map may be an older task's
	 * whose pid the kernel gave out again (pids wrap, at 32768 by
	 * default): the map is read again first, once per drain, as the
	 * scheduler has saved the new task's by the time its records are
	 * read. */
	tgid = entry ? entry->tgid : -1;
	if (tasks->tgids_fd >= 0 && !tasks->tgids_reread) {
		int32_t fresh;

		tasks->tgids_reread = true;
		fresh = reread_tgids(tasks, tid);
		if (fresh > 0)
			tgid = fresh;
	}
	set_tgid(tasks, tid, tgid, TGID_FROM_MAP_ONLY);
	return tgid;
}

#define CLONE_THREAD_FLAG 0x00010000 /* CLONE_THREAD of <linux/sched.h> */

/* A new task, recorded by its creator: a thread joins its creator's
 * thread group, a process starts its own. */
static void
follow_newtask(struct tc_consumerd_kernel_tasks *tasks, const uint8_t *data, uint32_t size)
{
	int64_t creator, created, flags;
	struct tgid_entry *stale;
	int32_t tgid;

	if (!read_integer(data, size, tasks->creator_pid, &creator) || creator <= 0 ||
	    creator > INT32_MAX || !read_integer(data, size, tasks->created_pid, &created) ||
	    created <= 0 || created > INT32_MAX ||
	    !read_integer(data, size, tasks->clone_flags, &flags))
		return;
	tgid = (flags & CLONE_THREAD_FLAG) ? lookup_tgid(tasks, (int32_t)creator)
					   : (int32_t)created;
	if (tgid > 0)
		set_tgid(tasks, (int32_t)created, tgid, TGID_EXACT);
	else if ((stale = find_tgid(tasks, (int32_t)created))) /* looked up on its own, later */
		*stale = (struct tgid_entry){0};
}

void
tc_consumerd_kernel_task_follow(struct tc_consumerd_kernel_tasks *tasks, uint32_t cpu, int event_id,
				const uint8_t *data, uint32_t size)
{
	if (event_id == tasks->switch_id && cpu < tasks->nr_cpus)
		follow_switch(tasks, cpu, data, size);
	else if (event_id == tasks->wakeup_new_id)
		follow_wakeup_new(tasks, data, size);
	else if (event_id == tasks->rename_id)
		follow_rename(tasks, cpu, data, size);
	else if (event_id == tasks->newtask_id)
		follow_newtask(tasks, data, size);
}

void
tc_consumerd_kernel_task_new_drain(struct tc_consumerd_kernel_tasks *tasks)
{
	tasks->tgids_reread = false;
}

/* "tid (comm) state ppid ..." with prio the 18th field. */
static void
proc_comm_prio(struct tc_consumerd_kernel_tasks *tasks, struct tc_consumerd_kernel_task *task)
{
	char stat[1024], *open_paren, *close_paren, *field;
	long prio;
	size_t len;
	int n;

	if (!read_proc_file(tasks, task->tid, "stat", stat, sizeof(stat)))
		return;
	open_paren = strchr(stat, '(');
	close_paren = strrchr(stat, ')');
	if (!open_paren || !close_paren || close_paren < open_paren)
		return;
	len = (size_t)(close_paren - open_paren - 1);
	if (len > 15)
		len = 15;
	memcpy(task->comm, open_paren + 1, len);
	task->comm[len] = '\0';
	task->has_comm = true;
	/* From the space before field 3 to the one before field 18. */
	field = close_paren + 1;
	for (n = 3; n < 18 && field; n++)
		field = strchr(field + 1, ' ');
	if (field && sscanf(field, " %ld", &prio) == 1)
		task->prio = (int32_t)prio;
}

void
tc_consumerd_kernel_task_lookup(struct tc_consumerd_kernel_tasks *tasks, uint32_t cpu, int32_t tid,
				struct tc_consumerd_kernel_task *result)
{
	struct tc_consumerd_kernel_task *task;

	if (tid == 0) { /* the idle task of the CPU */
		task_clear(result, 0);
		result->tgid = 0;
		result->prio = 20;
		snprintf(result->comm, sizeof(result->comm), "swapper/%u", cpu);
		result->has_comm = true;
		return;
	}
	task = cache_entry(tasks, tid);
	if (!task->has_comm && !task->looked_up)
		proc_comm_prio(tasks, task);
	task->looked_up = true; /* /proc is read once per task */
	*result = *task;
	result->tgid = tid > 0 ? lookup_tgid(tasks, tid) : -1;
	/* What the scheduler said last about the running task wins. */
	if (cpu < tasks->nr_cpus && tasks->running[cpu].tid == tid) {
		memcpy(result->comm, tasks->running[cpu].comm, sizeof(result->comm));
		result->prio = tasks->running[cpu].prio;
		result->has_comm = true;
	}
}

uint64_t
tc_consumerd_kernel_task_proc_reads(const struct tc_consumerd_kernel_tasks *tasks)
{
	return tasks->proc_reads;
}
