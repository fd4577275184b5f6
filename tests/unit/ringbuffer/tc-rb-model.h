/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Hooks of the exhaustive interleaving test (tc-rb-model-test.c), which
 * builds common/ringbuffer/tc-rb.c with TC_RB_MODEL_CHECK: every access to
 * shared state yields to the test's scheduler, and the clock is the test's.
 */
#ifndef TC_RB_MODEL_H
#define TC_RB_MODEL_H

#include <stdint.h>

void tc_rb_model_yield(void);

#define TC_RB_SCHED_POINT() tc_rb_model_yield()

/* Called when a writer is about to refuse a record for want of a
 * sub-buffer to open at boundary, with no scheduling point in between. */
struct tc_rb;
void tc_rb_model_refusing(const struct tc_rb *rb, uint64_t boundary);

#define TC_RB_REFUSING(rb, boundary) tc_rb_model_refusing(rb, boundary)

/* The CPU the running task is on, and a visit of it to another
 * (tc_rb_flush()'s lock-out): a switch on that CPU, which restarts the
 * sequence of a task there that was inside one. */
int tc_rb_model_cpu(void);
_Bool tc_rb_model_visit(uint32_t cpu);

#endif /* TC_RB_MODEL_H */
