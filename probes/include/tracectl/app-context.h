/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Application contexts: values of the application's own, added to every
 * event of the channels that ask for them (tracectl add-context -u -t
 * '$app.PROVIDER:NAME'), as LTTng-UST's context providers and its Java
 * agent's context retrievers give them.
 *
 *   static void
 *   get_request_id(void *priv, struct tracectl_app_context_value *value)
 *   {
 *           value->u.s64 = current_request_id;
 *   }
 *
 *   tracectl_app_context_register("myprov", "request_id",
 *                                 TRACECTL_APP_CONTEXT_INT64, get_request_id, NULL);
 *
 * The callback runs inside every tracepoint that writes a record into a
 * channel recording the context, in the thread and with the signals of
 * that tracepoint: it must be quick, must not block, and may be called
 * from a signal handler's tracepoint. It finds value->type set to the
 * declared type and fills the member of that type (s64, u64 or d); it may
 * set value->type to another of the types, or to TRACECTL_APP_CONTEXT_NONE
 * when it has no value for this event. A tracepoint the callback runs
 * nests in the one that called it; nesting stops at four levels.
 *
 * The trace holds each context as a CTF variant of a one-byte tag (none,
 * int64, uint64, double) and the value, 9 bytes whatever the type: an
 * application that has no context of that name records none, and
 * applications that declare other types share the channel.
 *
 * Names: PROVIDER and NAME are 1 or more of [A-Za-z0-9_], "PROVIDER:NAME"
 * shorter than TRACECTL_APP_CONTEXT_NAME_MAX bytes. Each application
 * registers at most TRACECTL_APP_CONTEXTS_MAX contexts, each name once.
 * A context stays registered until tracectl_app_context_unregister().
 */
#ifndef TRACECTL_APP_CONTEXT_H
#define TRACECTL_APP_CONTEXT_H

#include <stdint.h>

#include <tracectl/tracepoint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TRACECTL_APP_CONTEXT_NAME_MAX 128
#define TRACECTL_APP_CONTEXTS_MAX 32

enum tracectl_app_context_type {
	TRACECTL_APP_CONTEXT_NONE = 0,
	TRACECTL_APP_CONTEXT_INT64 = 1,
	TRACECTL_APP_CONTEXT_UINT64 = 2,
	TRACECTL_APP_CONTEXT_DOUBLE = 3,
};

struct tracectl_app_context_value {
	enum tracectl_app_context_type type;
	union {
		int64_t s64;
		uint64_t u64;
		double d;
	} u;
};

typedef void (*tracectl_app_context_cb)(void *priv, struct tracectl_app_context_value *value);

/* Registers PROVIDER:NAME of the declared type (INT64, UINT64 or DOUBLE),
 * whose values get(priv, value) gives. Returns 0, or -EINVAL (a bad name
 * or type, no callback), -EEXIST (registered already), -ENOSPC (the
 * application has TRACECTL_APP_CONTEXTS_MAX). Sessions that record it see
 * its values from the registration on. */
TRACECTL_UST_EXPORT int tracectl_app_context_register(const char *provider, const char *name,
						      enum tracectl_app_context_type type,
						      tracectl_app_context_cb get, void *priv);
/* Stops calling PROVIDER:NAME's callback: from the return on it is never
 * called again (the events record none), so priv may be freed. The name
 * stays taken. Returns 0, or -ENOENT. Never from a tracepoint's callback. */
TRACECTL_UST_EXPORT int tracectl_app_context_unregister(const char *provider, const char *name);

#ifdef __cplusplus
}
#endif

#endif /* TRACECTL_APP_CONTEXT_H */
