/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Exhaustive small-state check of the ring buffer's counter algorithm, the
 * way the paper checked it with a model checker, but on the real code:
 * tc-rb.c is built with TC_RB_MODEL_CHECK, so every access to shared state
 * is a scheduling point, and this program runs two writers and a reader
 * as coroutines and explores every interleaving with at most
 * PREEMPTION_BOUND preemptions (a thread switch while the running thread
 * could go on), depth first, each one from a fresh buffer.
 *
 * After each interleaving, with the writers done, it flushes and drains,
 * then checks: no packet failed the reader's checks, every record read is
 * intact, timestamps never go back in buffer order (on TSC buffers with a
 * clock that may read the time from before the task's last shared access,
 * as a bare rdtsc can, and a double-width swap of the position; on the
 * others with a clock read in order and the offset swapped alone, its
 * timestamp stored after a scheduling point), each writer's records come
 * in order and once, and in discard mode recorded + discarded == emitted
 * for each writer; in both modes the newest record (reserved at the
 * highest offset) is read. In overwrite mode, a writer refuses a record
 * only while the other writer holds a reservation it has not committed,
 * or the reader is closing a sub-buffer, at some point of the refused
 * reservation (checked at the refusal). Every packet read carries an
 * events_discarded no lower than the packet before it, and the last one
 * (the final flush's empty packet if need be) reports every refused
 * record.
 *
 * The buffer is two sub-buffers of 4 KiB and records of 1000 bytes (four
 * per sub-buffer), so that a handful of records exercises opening,
 * closing with padding, Buffer Full and, in overwrite mode, pushing the
 * reader.
 *
 * The -local tests give the tasks CPUs: the writers run on the buffer's
 * CPU and move the position in a modelled restartable sequence
 * (tc_rb_model_move_locally(), tc_rb_rseq_move()), which starts over when
 * the task resumes after another task ran on its CPU, while the reader, on
 * the other CPU, also closes the sub-buffer being filled (tc_rb_flush(),
 * which locks those moves out and visits their CPU). -local-and-remote
 * moves the second writer to the reader's CPU, without rseq: it locks the
 * plain moves out for good before its first locked swap. -packet-ends
 * gives the second writer records four of which fill a sub-buffer
 * exactly, and has the reader write an empty packet after its flush, as
 * the consumer does: every way a packet ends races with the writers
 * there.
 */
#include <glib.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <setjmp.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <ucontext.h>

#if defined(__SANITIZE_ADDRESS__)
#define MODEL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MODEL_ASAN 1
#endif
#endif
#ifdef MODEL_ASAN
#include <dlfcn.h>
#include <sanitizer/common_interface_defs.h>
/* The sanitizer follows each _setjmp() with the clearing its _longjmp()
 * does: the two functions that save a switch's point go uninstrumented. */
#define SWITCH_POINT __attribute__((no_sanitize_address))
#else
#define SWITCH_POINT
#endif

#include "tc-rb.h"
#include "tc-rb-model.h"

#define SUBBUF_SIZE 4096u
#define NUM_SUBBUF 2u
#define RECORD_SIZE 1000u
/* The second writer's records in the -packet-ends test: four of them
 * fill a sub-buffer exactly. */
#define EXACT_RECORD_SIZE ((SUBBUF_SIZE - (uint32_t)sizeof(struct tc_packet_header)) / 4)
#define RECORDS_PER_WRITER 5u
#define READER_ATTEMPTS 3
#define NR_TASKS 3
#define STACK_SIZE (256 * 1024)
#define MAX_DECISIONS 4096

static const uint8_t uuid[16] = {7};

struct record {
	struct tc_event_header header;
	uint32_t writer;
	uint32_t seq;
	uint8_t filler[EXACT_RECORD_SIZE - sizeof(struct tc_event_header) - 8];
} __attribute__((packed));

G_STATIC_ASSERT(sizeof(struct record) == EXACT_RECORD_SIZE);
G_STATIC_ASSERT((SUBBUF_SIZE - sizeof(struct tc_packet_header)) % 4 == 0);
G_STATIC_ASSERT(EXACT_RECORD_SIZE > RECORD_SIZE);

/*
 * The coroutines. swapcontext() enters a task's stack the first time;
 * every switch after that is an _setjmp()/_longjmp() pair, which unlike
 * swapcontext() makes no system call to save the signal mask: that call
 * was half the check's time. Under AddressSanitizer the jumps go through
 * glibc's _longjmp() itself: the sanitizer's interceptor makes a system
 * call and clears the shadow of two stacks at each jump, half the check's
 * time again, to forget the frames a jump leaves for good; the switches
 * leave none but their own, and a task's whole stack is cleared when it
 * is entered anew.
 */
typedef struct {
	ucontext_t context;
	jmp_buf resume;
	void *fake_stack;
	void (*body)(int);
	int arg;
	gboolean started;
	gboolean done;
	char *stack;
} Task;

static Task tasks[NR_TASKS];
static ucontext_t scheduler_context;
static jmp_buf scheduler_resume;
static void *scheduler_fake_stack;
static const void *scheduler_stack_bottom;
static size_t scheduler_stack_size;
static int current = -1;
static uint64_t model_clock;

/* Depth-first search over the decisions of the scheduler. */
static int prefix[MAX_DECISIONS], prefix_len;
static int chosen[MAX_DECISIONS], alternatives[MAX_DECISIONS], nr_decisions;
static int preemption_bound = 2;

/* The -local tests' CPUs: of each task, and for each CPU the task that ran
 * there last and a count of the switches there. */
#define NR_CPUS 2
static int task_cpu[NR_TASKS];
static int last_on_cpu[NR_CPUS];
static uint64_t cpu_switches[NR_CPUS];
static gboolean local_moves, remote_writer;

/* The model's machine has NR_CPUS CPUs, whatever runs the check; this also
 * spares glibc's reading of sysfs for each buffer the check makes. */
int
get_nprocs_conf(void)
{
	return NR_CPUS;
}
/* The -packet-ends test: records that end a packet exactly, and a reader
 * that writes an empty packet after its flush. */
static gboolean packet_ends;

/* The system under test, fresh for each interleaving. */
static void *mapping;
static uint64_t mapping_size;
static struct tc_rb rb, remote_rb;
static struct tc_rb_reader reader;
static uint8_t packet[SUBBUF_SIZE];
static uint32_t emitted[2], refused[2], recorded[2], next_seq[2];
/* The last timestamp read, packet bounds included, in buffer order. */
static uint64_t last_read_timestamp;
/* events_discarded of the last packet read. */
static uint64_t last_read_discarded;
static gboolean was_read[2][RECORDS_PER_WRITER];
/* The record reserved at the highest offset: the newest of the buffer. */
static uint64_t newest_offset;
static int newest_writer = -1;
static uint32_t newest_seq;
static uint32_t flags;

/* The clock as of each task's last scheduling point. */
static uint64_t clock_at_yield[NR_TASKS];

static void note_busy(void);

#ifdef MODEL_ASAN
static void (*plain_longjmp)(struct __jmp_buf_tag *, int);

static void
find_plain_longjmp(void)
{
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);

	g_assert_nonnull(libc);
	plain_longjmp = (void (*)(struct __jmp_buf_tag *, int))dlsym(libc, "_longjmp");
	g_assert_nonnull(plain_longjmp);
}

/* Not declared noreturn: the sanitizer would precede each call with the
 * clearing this avoids. */
static void
jump_to(jmp_buf point)
{
	plain_longjmp(point, 1);
	__builtin_unreachable();
}
#else
static void
find_plain_longjmp(void)
{
}

static void __attribute__((noreturn))
jump_to(jmp_buf point)
{
	_longjmp(point, 1);
}
#endif

/* AddressSanitizer must know which stack runs (its fiber annotations):
 * the switches below leave one stack for another behind its back. A
 * fiber that ends passes no fake_stack, so that its own is freed. */
static void
fiber_leave(void **fake_stack, const void *bottom, size_t size)
{
#ifdef MODEL_ASAN
	__sanitizer_start_switch_fiber(fake_stack, bottom, size);
#else
	(void)fake_stack;
	(void)bottom;
	(void)size;
#endif
}

static void
fiber_enter(void *fake_stack, const void **old_bottom, size_t *old_size)
{
#ifdef MODEL_ASAN
	__sanitizer_finish_switch_fiber(fake_stack, old_bottom, old_size);
#else
	(void)fake_stack;
	(void)old_bottom;
	(void)old_size;
#endif
}

SWITCH_POINT void
tc_rb_model_yield(void)
{
	note_busy();
	if (current >= 0) {
		Task *task = &tasks[current];

		clock_at_yield[current] = ++model_clock;
		if (!_setjmp(task->resume)) {
			fiber_leave(&task->fake_stack, scheduler_stack_bottom, scheduler_stack_size);
			jump_to(scheduler_resume);
		}
		fiber_enter(task->fake_stack, NULL, NULL);
	}
}

/*
 * The writers' clock. On TSC buffers a bare rdtsc, which may run ahead of
 * the loads before it: a task reads the time of its last scheduling
 * point, from before the shared access that followed it and before
 * whatever other tasks did in between. On the others clock_gettime(),
 * read in order: the time now, after the loads before it. Outside the
 * tasks (the final flush), the time now.
 */
uint64_t
tc_rb_clock_now(void)
{
	if (current >= 0 && (flags & TC_RB_FLAG_CLOCK_TSC))
		return clock_at_yield[current];
	return ++model_clock;
}

static uint8_t
filler_byte(uint32_t writer, uint32_t seq, uint32_t i)
{
	return (uint8_t)(writer * 101 + seq * 13 + i);
}

/* The running task is on its CPU: a switch there if another ran there
 * last. */
static void
note_running(int task, int cpu)
{
	if (last_on_cpu[cpu] != task) {
		cpu_switches[cpu]++;
		last_on_cpu[cpu] = task;
	}
}

int
tc_rb_model_cpu(void)
{
	return current >= 0 ? task_cpu[current] : -1;
}

/* The reader's visit to the writers' CPU: it runs there for a moment. */
_Bool
tc_rb_model_visit(uint32_t cpu)
{
	g_assert_cmpuint(cpu, <, NR_CPUS);
	if (current < 0)
		return TRUE; /* alone, after the tasks */
	tc_rb_model_yield();
	note_running(current, (int)cpu);
	return TRUE;
}

/* Has a task been switched out of cpu since the switch count was
 * switches? The kernel then restarts the sequence it was inside. */
static gboolean
restarted(int cpu, uint64_t switches)
{
	return cpu_switches[cpu] != switches;
}

/*
 * tc_rb_rseq_move() and tc_rb_rseq_move_locked(), step by step: the
 * loads of locked_moves and of the position, then the plain store (or
 * the locked swap, one step), each after a scheduling point, where tasks
 * of the other CPU run as they like and tasks of this one restart the
 * sequence. Then the timestamp, stored after the move.
 */
enum tc_rb_move
tc_rb_model_move_locally(struct tc_rb *b, uint64_t *offset, uint64_t *timestamp,
			 uint64_t new_offset, uint64_t new_timestamp)
{
	struct tc_rb_shm *shm = b->shm;
	const int cpu = task_cpu[current];

	for (;;) {
		uint64_t switches = cpu_switches[cpu];
		gboolean locked;

		if (cpu != (int)b->cpu)
			return TC_RB_MOVE_ELSEWHERE;
		tc_rb_model_yield();
		if (restarted(cpu, switches))
			continue;
		locked = shm->locked_moves != 0;
		tc_rb_model_yield();
		if (restarted(cpu, switches))
			continue;
		if (!locked && shm->write_offset != *offset) {
			*offset = shm->write_offset;
			*timestamp = shm->last_timestamp;
			return TC_RB_MOVE_CHANGED;
		}
		tc_rb_model_yield();
		if (restarted(cpu, switches))
			continue;
		if (locked && shm->write_offset != *offset) {
			*offset = shm->write_offset;
			*timestamp = shm->last_timestamp;
			return TC_RB_MOVE_CHANGED;
		}
		shm->write_offset = new_offset;
		tc_rb_model_yield();
		shm->last_timestamp = new_timestamp;
		return TC_RB_MOVED;
	}
}

/* Each writer from its call to reserve until its commit is done, and the
 * reader from its flush's move until the padding is committed; for each
 * writer, whether the other writer or the reader was so at one of its
 * scheduling points since it began its reservation. */
static gboolean busy[2], flushing, other_was_busy[2];

static void
note_busy(void)
{
	if (current >= 0 && current < 2 && (busy[1 - current] || flushing))
		other_was_busy[current] = TRUE;
}

/*
 * Overwrite mode refuses a record only when the sub-buffer to open still
 * holds bytes of the round before that are not committed: some writer
 * other than the refused one is between a reservation and its commit.
 * (Buffer Full in discard mode is checked by the counts at the end.)
 */
void
tc_rb_model_refusing(const struct tc_rb *buffer, uint64_t boundary)
{
	g_assert_cmpuint(boundary % SUBBUF_SIZE, ==, 0);
	if (flags & TC_RB_FLAG_OVERWRITE)
		g_assert_true(other_was_busy[current]);
}

static uint32_t
record_size(uint32_t writer)
{
	return writer == 1 && packet_ends ? EXACT_RECORD_SIZE : RECORD_SIZE;
}

static uint32_t
filler_size(uint32_t writer)
{
	return record_size(writer) - (uint32_t)offsetof(struct record, filler);
}

static void
writer_body(int writer)
{
	const uint32_t size = record_size((uint32_t)writer);

	for (uint32_t seq = 0; seq < RECORDS_PER_WRITER; seq++) {
		struct record record = {.writer = (uint32_t)writer, .seq = seq};
		struct tc_rb_ctx ctx;

		for (uint32_t i = 0; i < filler_size((uint32_t)writer); i++)
			record.filler[i] = filler_byte((uint32_t)writer, seq, i);
		emitted[writer]++;
		busy[writer] = TRUE;
		other_was_busy[writer] = FALSE;
		note_busy();
		if (tc_rb_reserve(writer == 1 && remote_writer ? &remote_rb : &rb, &ctx, size) <
		    0) {
			busy[writer] = FALSE;
			refused[writer]++;
			continue;
		}
		if (newest_writer < 0 || ctx.offset > newest_offset) {
			newest_offset = ctx.offset;
			newest_writer = writer;
			newest_seq = seq;
		}
		record.header.id = (uint32_t)writer;
		record.header.timestamp = ctx.timestamp;
		/* In two parts, so that others can run in between. */
		tc_rb_write(&ctx, 0, &record, size / 2);
		tc_rb_write(&ctx, size / 2, (uint8_t *)&record + size / 2, size - size / 2);
		tc_rb_commit(&ctx);
		busy[writer] = FALSE;
	}
}

/* Checks every record of a valid packet. */
static void
check_packet(void)
{
	const struct tc_packet_header *header = (const void *)packet;
	uint64_t pos = sizeof(*header), end = header->content_size / 8;

	/* Physically consecutive: never back in time. */
	g_assert_cmpuint(header->timestamp_begin, >=, last_read_timestamp);
	/*
	 * The stream's discarded count never steps back, whoever closed the
	 * packet: a CTF reader takes the difference from the packet before
	 * modulo 2^64. The interleaving that broke it: a writer (or the
	 * reader's flush) moves the position to the boundary and is switched
	 * out before it writes the packet's end fields; the other writer
	 * fills and closes the next sub-buffer, then finds the buffer full,
	 * as the unfinished packet holds the reader, and drops a record; a
	 * count read once the first one resumes is ahead of the next
	 * packet's.
	 */
	g_assert_cmpuint(header->events_discarded, >=, last_read_discarded);
	last_read_discarded = header->events_discarded;
	last_read_timestamp = header->timestamp_begin;
	while (pos < end) {
		struct record record;

		g_assert_cmpuint(end - pos, >=, RECORD_SIZE);
		memcpy(&record, packet + pos, RECORD_SIZE);
		g_assert_cmpuint(record.writer, <, 2);
		g_assert_cmpuint(end - pos, >=, record_size(record.writer));
		memcpy(&record, packet + pos, record_size(record.writer));
		g_assert_cmpuint(record.header.id, ==, record.writer);
		g_assert_cmpuint(record.seq, >=, next_seq[record.writer]);
		g_assert_cmpuint(record.header.timestamp, >=, last_read_timestamp);
		g_assert_cmpuint(record.header.timestamp, <=, header->timestamp_end);
		last_read_timestamp = record.header.timestamp;
		for (uint32_t i = 0; i < filler_size(record.writer); i++)
			g_assert_cmpuint(record.filler[i], ==,
					 filler_byte(record.writer, record.seq, i));
		next_seq[record.writer] = record.seq + 1;
		was_read[record.writer][record.seq] = TRUE;
		recorded[record.writer]++;
		pos += record_size(record.writer);
	}
	last_read_timestamp = header->timestamp_end;
}

static gboolean
read_one(void)
{
	int ret = tc_rb_reader_get(&reader, packet);

	g_assert_cmpint(ret, !=, -EBADMSG);
	if (ret != 1)
		return FALSE;
	check_packet();
	tc_rb_reader_put(&reader);
	return TRUE;
}

static void
reader_body(int unused)
{
	for (int i = 0; i < READER_ATTEMPTS; i++) {
		read_one();
		/* The switch timer: close the sub-buffer being filled. */
		if (local_moves) {
			flushing = TRUE;
			tc_rb_flush(&reader.rb);
			/* An empty packet at the boundary, as the consumer's
			 * live timer writes for a stream it sent nothing of
			 * yet, and its stop flush for drops not reported. */
			if (packet_ends)
				tc_rb_close_empty_packet(&reader.rb);
			flushing = FALSE;
		}
	}
}

/* Never returns: a task that ends jumps back to the scheduler. */
static void
task_entry(void)
{
	Task *task = &tasks[current];

	fiber_enter(NULL, &scheduler_stack_bottom, &scheduler_stack_size);
	task->body(task->arg);
	task->done = TRUE;
	fiber_leave(NULL, scheduler_stack_bottom, scheduler_stack_size);
	jump_to(scheduler_resume);
}

/* Runs the task until its next scheduling point or its end. */
static SWITCH_POINT void
run_task(int index)
{
	Task *task = &tasks[index];

	if (_setjmp(scheduler_resume)) {
		fiber_enter(scheduler_fake_stack, NULL, NULL);
		return;
	}
	fiber_leave(&scheduler_fake_stack, task->stack, STACK_SIZE);
	if (task->started)
		jump_to(task->resume);
	task->started = TRUE;
	swapcontext(&scheduler_context, &task->context);
	g_assert_not_reached();
}

static void
task_start(int index, void (*body)(int), int arg)
{
	Task *task = &tasks[index];

	task->body = body;
	task->arg = arg;
	task->started = FALSE;
	task->done = FALSE;
	task->fake_stack = NULL;
	getcontext(&task->context);
	task->context.uc_stack.ss_sp = task->stack;
	task->context.uc_stack.ss_size = STACK_SIZE;
	task->context.uc_link = NULL;
	makecontext(&task->context, task_entry, 0);
}

/* The next task to run: the running one first (no preemption), then the
 * others while the preemption budget lasts. */
static int
pick(int last, int *preemptions)
{
	int options[NR_TASKS], count = 0, choice;

	if (last >= 0 && !tasks[last].done)
		options[count++] = last;
	for (int i = 0; i < NR_TASKS; i++) {
		if (i == last || tasks[i].done)
			continue;
		if (count > 0 && options[0] == last && *preemptions >= preemption_bound)
			continue;
		options[count++] = i;
	}
	if (count == 0)
		return -1;
	if (count == 1)
		return options[0];
	g_assert_cmpint(nr_decisions, <, MAX_DECISIONS);
	choice = nr_decisions < prefix_len ? prefix[nr_decisions] : 0;
	chosen[nr_decisions] = choice;
	alternatives[nr_decisions] = count;
	nr_decisions++;
	if (options[0] == last && choice != 0)
		(*preemptions)++;
	return options[choice];
}

static void
reset_system(void)
{
	memset(mapping, 0, mapping_size);
	g_assert_cmpint(tc_rb_init_mode(mapping, SUBBUF_SIZE, NUM_SUBBUF, 0, 1, uuid, flags), ==, 0);
	g_assert_cmpint(tc_rb_attach(&rb, mapping, mapping_size), ==, 0);
	g_assert_cmpint(tc_rb_reader_init(&reader, mapping, mapping_size, 1, 0, uuid), ==, 0);
	rb.move_locally = rb.picks_by_cpu = local_moves;
	g_assert_cmpint(tc_rb_attach(&remote_rb, mapping, mapping_size), ==, 0);
	/* Writers 0 and 1 on the buffer's CPU, the reader on the other; the
	 * remote writer on the reader's. */
	task_cpu[0] = 0;
	task_cpu[1] = remote_writer ? 1 : 0;
	task_cpu[2] = local_moves ? 1 : 0;
	memset(last_on_cpu, -1, sizeof(last_on_cpu));
	memset(cpu_switches, 0, sizeof(cpu_switches));
	memset(emitted, 0, sizeof(emitted));
	memset(refused, 0, sizeof(refused));
	memset(recorded, 0, sizeof(recorded));
	memset(next_seq, 0, sizeof(next_seq));
	memset(was_read, 0, sizeof(was_read));
	newest_writer = -1;
	model_clock = 0;
	memset(clock_at_yield, 0, sizeof(clock_at_yield));
	last_read_timestamp = 0;
	last_read_discarded = 0;
	busy[0] = busy[1] = flushing = FALSE;
	other_was_busy[0] = other_was_busy[1] = FALSE;
}

static void
run_one_interleaving(void)
{
	int last = -1, preemptions = 0;

	reset_system();
	nr_decisions = 0;
	task_start(0, writer_body, 0);
	task_start(1, writer_body, 1);
	task_start(2, reader_body, 0);
	while ((current = pick(last, &preemptions)) >= 0) {
		note_running(current, task_cpu[current]);
		run_task(current);
		last = current;
	}
	current = -1;

	/* Alone now: the stop flush, then everything left. */
	tc_rb_flush(&rb);
	while (read_one())
		;
	g_assert_cmpuint(reader.packets_corrupted, ==, 0);
	/* The newest record survives, flight recorder included. */
	g_assert_cmpint(newest_writer, >=, 0);
	g_assert_true(was_read[newest_writer][newest_seq]);
	g_assert_cmpuint(rb.shm->events_discarded, ==, refused[0] + refused[1]);
	/* The final flush's empty packet reports the drops since the last
	 * packet: what a CTF reader adds up is every record refused. */
	if (last_read_discarded != rb.shm->events_discarded) {
		g_assert_true(tc_rb_close_empty_packet(&reader.rb));
		g_assert_true(read_one());
	}
	g_assert_cmpuint(last_read_discarded, ==, refused[0] + refused[1]);

	for (int w = 0; w < 2 && !(flags & TC_RB_FLAG_OVERWRITE); w++)
		g_assert_cmpuint(recorded[w] + refused[w], ==, emitted[w]);
	/* The flushes lifted their lock-outs; writers without rseq (all of
	 * them outside the -local tests) raised theirs for good, once per
	 * process, or once per thread that raced to it; TSC buffers have no
	 * plain moves to lock out. */
	if ((local_moves && !remote_writer) || (flags & TC_RB_FLAG_CLOCK_TSC))
		g_assert_cmpuint(rb.shm->locked_moves, ==, 0);
	else if (refused[1] < emitted[1])
		g_assert_cmpuint(rb.shm->locked_moves, >=, 1);
}

/* The next prefix in depth-first order; FALSE when all were run. */
static gboolean
next_prefix(void)
{
	for (int d = nr_decisions - 1; d >= 0; d--) {
		if (chosen[d] + 1 < alternatives[d]) {
			memcpy(prefix, chosen, d * sizeof(int));
			prefix[d] = chosen[d] + 1;
			prefix_len = d + 1;
			return TRUE;
		}
	}
	return FALSE;
}

static void
explore(uint32_t mode)
{
	guint64 runs = 0;

	flags = mode;
	mapping_size = tc_rb_shm_size(SUBBUF_SIZE, NUM_SUBBUF);
	mapping = mmap(NULL, mapping_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
		       0);
	g_assert_true(mapping != MAP_FAILED);
	for (int i = 0; i < NR_TASKS; i++)
		tasks[i].stack = g_malloc(STACK_SIZE);
	prefix_len = 0;
	do {
		run_one_interleaving();
		runs++;
	} while (next_prefix());
	g_test_message("%" G_GUINT64_FORMAT " interleavings with up to %d preemptions", runs,
		       preemption_bound);
	g_assert_cmpuint(runs, >, 1000);
	for (int i = 0; i < NR_TASKS; i++)
		g_free(tasks[i].stack);
	munmap(mapping, mapping_size);
}

static void
test_discard(void)
{
	explore(0);
}

static void
test_discard_local(void)
{
	local_moves = TRUE;
	explore(0);
	local_moves = FALSE;
}

static void
test_overwrite_local(void)
{
	local_moves = TRUE;
	explore(TC_RB_FLAG_OVERWRITE);
	local_moves = FALSE;
}

static void
test_discard_local_and_remote(void)
{
	local_moves = remote_writer = TRUE;
	explore(0);
	local_moves = remote_writer = FALSE;
}

/* Every way a packet ends, each racing with the writers: a writer's close
 * and its exact fit, the reader's flush and its empty packet. */
static void
test_discard_local_packet_ends(void)
{
	local_moves = packet_ends = TRUE;
	explore(0);
	local_moves = packet_ends = FALSE;
}

static void
test_overwrite(void)
{
	explore(TC_RB_FLAG_OVERWRITE);
}

static void
test_discard_tsc_clock(void)
{
	explore(TC_RB_FLAG_CLOCK_TSC);
}

static void
test_overwrite_tsc_clock(void)
{
	explore(TC_RB_FLAG_OVERWRITE | TC_RB_FLAG_CLOCK_TSC);
}

static const struct {
	const char *path;
	GTestFunc run;
} cases[] = {
	{"/tracectl/rb-model/discard", test_discard},
	{"/tracectl/rb-model/overwrite", test_overwrite},
	{"/tracectl/rb-model/discard-tsc-clock", test_discard_tsc_clock},
	{"/tracectl/rb-model/overwrite-tsc-clock", test_overwrite_tsc_clock},
	{"/tracectl/rb-model/discard-local", test_discard_local},
	{"/tracectl/rb-model/overwrite-local", test_overwrite_local},
	{"/tracectl/rb-model/discard-local-and-remote", test_discard_local_and_remote},
	{"/tracectl/rb-model/discard-local-packet-ends", test_discard_local_packet_ends},
};

/*
 * TC_RB_MODEL_SHARD=K/N runs the cases whose index is K modulo N, so that
 * N processes share the check (meson runs them side by side); every case
 * falls in exactly one shard, a new one included.
 */
int
main(int argc, char **argv)
{
	const char *bound = g_getenv("TC_RB_MODEL_PREEMPTIONS");
	const char *shard = g_getenv("TC_RB_MODEL_SHARD");
	unsigned int index = 0, count = 1;

	g_test_init(&argc, &argv, NULL);
	find_plain_longjmp();
	if (bound)
		preemption_bound = atoi(bound);
	if (shard && (sscanf(shard, "%u/%u", &index, &count) != 2 || count == 0 ||
		      index >= count))
		g_error("TC_RB_MODEL_SHARD=%s: expected K/N with K < N", shard);
	for (unsigned int i = 0; i < G_N_ELEMENTS(cases); i++)
		if (i % count == index)
			g_test_add_func(cases[i].path, cases[i].run);
	return g_test_run();
}
