/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The checks of a channel's configuration and context names. */
#include "tc-channel-config.h"

#include "tc-channel.h"
#include "tc-consumer-abi.h"
#include "tc-error.h"
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

static gboolean
parse_contexts(const char *const *names, const TcContextName *known, guint32 *contexts,
	       GError **error)
{
	*contexts = 0;
	for (; *names; names++) {
		const TcContextName *context = known;

		while (context->name && !g_str_equal(*names, context->name))
			context++;
		if (!context->name) {
			g_autoptr(GString) choices = g_string_new(NULL);

			for (context = known; context->name; context++)
				g_string_append_printf(choices, "%s%s",
						       context == known ? "" : ", ", context->name);
			g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				    "Unknown context '%.64s': use %s", *names, choices->str);
			return FALSE;
		}
		*contexts |= context->bit;
	}
	if (*contexts == 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT, "No context given");
		return FALSE;
	}
	return TRUE;
}

gboolean
tc_channel_config_ust_context_bits(const char *const *names, guint32 *contexts, GError **error)
{
	return parse_contexts(names, tc_channel_config_ust_contexts, contexts, error);
}

gboolean
tc_channel_config_kernel_context_bits(const char *const *names, guint32 *contexts, GError **error)
{
	return parse_contexts(names, tc_channel_config_kernel_contexts, contexts, error);
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
