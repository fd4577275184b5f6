/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Hooks of the exhaustive interleaving test (tc-rb-model-test.c), which
 * builds probes/ringbuffer/tc-rb.c with TC_RB_MODEL_CHECK: every access to
 * shared state yields to the test's scheduler, and the clock is the test's.
 */
#ifndef TC_RB_MODEL_H
#define TC_RB_MODEL_H

void tc_rb_model_yield(void);

#define TC_RB_SCHED_POINT() tc_rb_model_yield()

#endif /* TC_RB_MODEL_H */
