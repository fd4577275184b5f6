/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The checks of a channel's configuration and context names. */
#include "tc-channel-config.h"

#include <errno.h>
#include <string.h>

#include "tc-channel.h"
#include "tc-consumer-abi.h"
#include "tc-error.h"
#include "tc-perf-counter.h"
#include "tc-rb.h"
#include "tracectl-abi.h"

const TcContextName tc_channel_config_ust_contexts[] = {
    {"vpid", TRACECTL_CONTEXT_VPID},
    {"vtid", TRACECTL_CONTEXT_VTID},
    {"procname", TRACECTL_CONTEXT_PROCNAME},
    {"pthread_id", TRACECTL_CONTEXT_PTHREAD_ID},
    {"vuid", TRACECTL_CONTEXT_VUID},
    {"veuid", TRACECTL_CONTEXT_VEUID},
    {"vsuid", TRACECTL_CONTEXT_VSUID},
    {"vgid", TRACECTL_CONTEXT_VGID},
    {"vegid", TRACECTL_CONTEXT_VEGID},
    {"vsgid", TRACECTL_CONTEXT_VSGID},
    {"cgroup_ns", TRACECTL_CONTEXT_CGROUP_NS},
    {"ipc_ns", TRACECTL_CONTEXT_IPC_NS},
    {"mnt_ns", TRACECTL_CONTEXT_MNT_NS},
    {"net_ns", TRACECTL_CONTEXT_NET_NS},
    {"pid_ns", TRACECTL_CONTEXT_PID_NS},
    {"time_ns", TRACECTL_CONTEXT_TIME_NS},
    {"user_ns", TRACECTL_CONTEXT_USER_NS},
    {"uts_ns", TRACECTL_CONTEXT_UTS_NS},
    {"ip", TRACECTL_CONTEXT_IP},
    {NULL, 0},
};

const TcContextName tc_channel_config_kernel_contexts[] = {
    {"pid", TC_CONSUMER_KCTX_PID},
    {"tid", TC_CONSUMER_KCTX_TID},
    {"procname", TC_CONSUMER_KCTX_PROCNAME},
    {"prio", TC_CONSUMER_KCTX_PRIO},
    {NULL, 0},
};

static gboolean
check_power_of_two(const char *what, guint64 value, guint64 min, guint64 max, GError **error)
{
	if (value >= min && value <= max && (value & (value - 1)) == 0)
		return TRUE;
	g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
		    "%s must be a power of two from %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT
		    ", not %" G_GUINT64_FORMAT,
		    what, min, max, value);
	return FALSE;
}

static gboolean
check_timer(const char *key, guint32 us, GError **error)
{
	if (us == 0 || (us >= TC_CONSUMER_TIMER_MIN_US && us <= TC_CONSUMER_TIMER_MAX_US))
		return TRUE;
	g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
		    "The %s is 0 (off) or %u to %u microseconds, not %u", key,
		    TC_CONSUMER_TIMER_MIN_US, TC_CONSUMER_TIMER_MAX_US, us);
	return FALSE;
}

gboolean
tc_channel_config_check(guint64 subbuf_size, const TcChannelConfig *config, GError **error)
{
	return check_power_of_two("The sub-buffer size", subbuf_size, TC_RB_SUBBUF_SIZE_MIN,
				  TC_RB_SUBBUF_SIZE_MAX, error) &&
	       check_power_of_two("The number of sub-buffers", config->num_subbuf,
				  TC_RB_NUM_SUBBUF_MIN, TC_RB_NUM_SUBBUF_MAX, error) &&
	       check_timer("switch-timer", config->switch_timer_us, error) &&
	       check_timer("read-timer", config->read_timer_us, error) &&
	       check_timer("monitor-timer", config->monitor_timer_us, error);
}

/*
 * A session's kernel events share one tracefs instance, whose per-CPU
 * buffers the consumer reads as they fill (woken at a quarter full, every
 * 100 ms otherwise): one channel, whose losses count as discarded events.
 * What tracefs or the consumer would not do is refused rather than
 * recorded some other way than asked.
 */
gboolean
tc_channel_config_kernel_check(const char *name, const TcChannelConfig *config, GError **error)
{
	if (!g_str_equal(name, TC_DEFAULT_CHANNEL)) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
			    "The kernel domain has one channel, '%s', not '%.64s': a session's "
			    "kernel events share one tracefs instance, so a second kernel "
			    "channel cannot be honoured",
			    TC_DEFAULT_CHANNEL, name);
		return FALSE;
	}
	if (config->overwrite) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
			    "The kernel channel does not overwrite: the consumer reads the "
			    "kernel's buffers as they fill and counts what the kernel could not "
			    "keep as discarded (discard mode); a kernel flight recorder is not "
			    "supported");
		return FALSE;
	}
	if (config->switch_timer_us != 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
			    "The kernel channel has no switch timer: its packets are the pages "
			    "the consumer reads, written as it reads them");
		return FALSE;
	}
	return TRUE;
}

static gboolean
unknown_context(const char *name, const TcContextName *known, gboolean has_perf, GError **error)
{
	g_autoptr(GString) choices = g_string_new(NULL);

	for (const TcContextName *context = known; context->name; context++)
		g_string_append_printf(choices, "%s%s", context == known ? "" : ", ",
				       context->name);
	g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT, "Unknown context '%.64s': use %s%s",
		    name, choices->str,
		    has_perf ? ", a perf:thread: counter (tracectl add-context --list) or "
			       "$app.PROVIDER:NAME"
			     : "");
	return FALSE;
}

/* One perf:thread: spelling appended to perf_counters, unless there. */
static gboolean
parse_perf_counter(const char *name, GArray *perf_counters, GError **error)
{
	struct tc_perf_counter counter;
	int ret = tc_perf_counter_parse(name, &counter);

	if (ret == -EINVAL) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "Wrong perf raw counter '%.64s': expected perf:thread:raw:rHEX:NAME "
			    "(HEX: 1 to 16 hexadecimal digits, NAME: 1 to 64 letters, digits, "
			    "'_' or '-')",
			    name);
		return FALSE;
	}
	if (ret == -ENAMETOOLONG) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "Perf counter '%.64s...' is longer than %u characters", name,
			    TC_PERF_COUNTER_NAME_MAX - 1);
		return FALSE;
	}
	if (ret < 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "Unknown perf counter '%.64s' (tracectl add-context --list)", name);
		return FALSE;
	}
	for (guint i = 0; i < perf_counters->len; i++)
		if (tc_channel_config_perf_counter_equal(
			&g_array_index(perf_counters, struct tc_perf_counter, i), &counter))
			return TRUE;
	g_array_append_val(perf_counters, counter);
	return TRUE;
}

gboolean
tc_channel_config_perf_counter_equal(const struct tc_perf_counter *a,
				     const struct tc_perf_counter *b)
{
	return a->type == b->type && a->config == b->config && g_str_equal(a->name, b->name);
}

char *
tc_channel_config_app_context_field(const char *name)
{
	char *field = g_strconcat("_app_", name, NULL);

	*strchr(field, ':') = '_';
	return field;
}

/* "$app.provider:name" appended to app_contexts as "provider:name",
 * unless there. */
static gboolean
parse_app_context(const char *name, GPtrArray *app_contexts, GError **error)
{
	const char *bare = name + strlen(TC_CHANNEL_CONFIG_APP_PREFIX);

	if (strlen(bare) >= TRACECTL_ABI_APP_CONTEXT_NAME_MAX ||
	    !tracectl_abi_app_context_name_is_valid(bare, strlen(bare) + 1)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "Wrong application context '%.64s': expected $app.PROVIDER:NAME "
			    "(PROVIDER and NAME: letters, digits or '_', %u bytes at most in all)",
			    name, TRACECTL_ABI_APP_CONTEXT_NAME_MAX - 1);
		return FALSE;
	}
	for (guint i = 0; i < app_contexts->len; i++)
		if (g_str_equal(g_ptr_array_index(app_contexts, i), bare))
			return TRUE;
	g_ptr_array_add(app_contexts, g_strdup(bare));
	return TRUE;
}

gboolean
tc_channel_config_ust_contexts_parse(const char *const *names, guint32 *contexts,
				     GArray *perf_counters, GPtrArray *app_contexts,
				     GError **error)
{
	*contexts = 0;
	g_array_set_size(perf_counters, 0);
	g_ptr_array_set_size(app_contexts, 0);
	for (; *names; names++) {
		const TcContextName *context = tc_channel_config_ust_contexts;

		if (g_str_has_prefix(*names, TC_CHANNEL_CONFIG_APP_PREFIX)) {
			if (!parse_app_context(*names, app_contexts, error))
				return FALSE;
			/* Refused at once: a caller's long list costs no more. */
			if (app_contexts->len > TRACECTL_ABI_CHANNEL_APP_CONTEXTS_MAX)
				break;
			continue;
		}

		if (g_str_has_prefix(*names, "perf:cpu:")) {
			g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				    "Context '%.64s' counts per CPU, in the kernel domain only: "
				    "user space takes perf:thread: counters",
				    *names);
			return FALSE;
		}
		if (g_str_has_prefix(*names, TC_PERF_COUNTER_PREFIX)) {
			if (!parse_perf_counter(*names, perf_counters, error))
				return FALSE;
			/* Refused at once: a caller's long list costs no more. */
			if (perf_counters->len > TC_CHANNEL_PERF_COUNTERS_MAX)
				break;
			continue;
		}
		while (context->name && !g_str_equal(*names, context->name))
			context++;
		if (!context->name)
			return unknown_context(*names, tc_channel_config_ust_contexts, TRUE, error);
		*contexts |= context->bit;
	}
	if (perf_counters->len > TC_CHANNEL_PERF_COUNTERS_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "More than %u perf counters given: a channel records at most %u",
			    TC_CHANNEL_PERF_COUNTERS_MAX, TC_CHANNEL_PERF_COUNTERS_MAX);
		return FALSE;
	}
	if (app_contexts->len > TRACECTL_ABI_CHANNEL_APP_CONTEXTS_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "More than %u application contexts given: a channel records at most %u",
			    TRACECTL_ABI_CHANNEL_APP_CONTEXTS_MAX,
			    TRACECTL_ABI_CHANNEL_APP_CONTEXTS_MAX);
		return FALSE;
	}
	if (*contexts == 0 && perf_counters->len == 0 && app_contexts->len == 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT, "No context given");
		return FALSE;
	}
	return TRUE;
}

gboolean
tc_channel_config_kernel_context_bits(const char *const *names, guint32 *contexts, GError **error)
{
	*contexts = 0;
	for (; *names; names++) {
		const TcContextName *context = tc_channel_config_kernel_contexts;

		if (g_str_has_prefix(*names, "perf:")) {
			g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
				    "Context '%.64s': tracectl records no perf counter in the kernel "
				    "domain (user space takes perf:thread: counters)",
				    *names);
			return FALSE;
		}
		while (context->name && !g_str_equal(*names, context->name))
			context++;
		if (!context->name)
			return unknown_context(*names, tc_channel_config_kernel_contexts, FALSE,
					       error);
		*contexts |= context->bit;
	}
	if (*contexts == 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT, "No context given");
		return FALSE;
	}
	return TRUE;
}

char **
tc_channel_config_ust_context_names(guint32 contexts, const GArray *perf_counters,
				    const GPtrArray *app_contexts, gboolean lttng_ust_only)
{
	GPtrArray *names = g_ptr_array_new();

	/* Since tracectl's own applications record perf counters too, no
	 * context is LTTng-UST's only. */
	if (lttng_ust_only) {
		g_ptr_array_add(names, NULL);
		return (char **)g_ptr_array_free(names, FALSE);
	}
	for (const TcContextName *context = tc_channel_config_ust_contexts; context->name;
	     context++)
		if (contexts & context->bit)
			g_ptr_array_add(names, g_strdup(context->name));
	for (guint i = 0; perf_counters && i < perf_counters->len; i++) {
		const struct tc_perf_counter *counter =
		    &g_array_index(perf_counters, struct tc_perf_counter, i);
		char spelling[TC_PERF_COUNTER_NAME_MAX];

		/* Every counter of the model was parsed from its spelling. */
		if (tc_perf_counter_spell(counter, spelling, sizeof(spelling)) == 0)
			g_ptr_array_add(names, g_strdup(spelling));
		else
			g_ptr_array_add(names, g_strdup(counter->name));
	}
	for (guint i = 0; app_contexts && i < app_contexts->len; i++)
		g_ptr_array_add(names, g_strconcat(TC_CHANNEL_CONFIG_APP_PREFIX,
						   (const char *)g_ptr_array_index(app_contexts, i),
						   NULL));
	g_ptr_array_add(names, NULL);
	return (char **)g_ptr_array_free(names, FALSE);
}

char **
tc_channel_config_ust_context_list(void)
{
	GPtrArray *names = g_ptr_array_new();
	const char *perf;

	for (const TcContextName *context = tc_channel_config_ust_contexts; context->name;
	     context++)
		g_ptr_array_add(names, g_strdup(context->name));
	for (guint i = 0; (perf = tc_perf_counter_known_name(i)) != NULL; i++)
		g_ptr_array_add(names, g_strconcat(TC_PERF_COUNTER_PREFIX, perf, NULL));
	g_ptr_array_add(names, g_strdup(TC_PERF_COUNTER_RAW_PREFIX "rHEX:NAME"));
	g_ptr_array_add(names, NULL);
	return (char **)g_ptr_array_free(names, FALSE);
}

void
tc_channel_config_init_default(TcChannelConfig *config, gboolean snapshot)
{
	*config = (TcChannelConfig){
		.subbuf_size = TC_DEFAULT_SUBBUF_SIZE,
		.num_subbuf = TC_DEFAULT_NUM_SUBBUF,
		.overwrite = snapshot,
		/* A snapshot session writes only when asked to. */
		.read_timer_us = snapshot ? 0 : TC_DEFAULT_READ_TIMER_US,
		.monitor_timer_us = TC_DEFAULT_MONITOR_TIMER_US,
	};
}
