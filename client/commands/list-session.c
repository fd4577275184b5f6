/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracectl list SESSION -d            the session's domains
 * tracectl list SESSION -u|-k         one domain of the session
 * tracectl list SESSION -p|-j|-l      its rules of an agent's loggers
 * tracectl list SESSION -c CHANNEL    one channel of the session
 */
#include "tc-client.h"

static const char *
domain_title(const char *domain)
{
	return g_str_equal(domain, "kernel") ? "Kernel" : "User space";
}

static void
print_channel(const char *name, const char *domain, guint64 subbuf_size, guint32 num_subbuf,
	      GVariant *patterns, GVariant *settings)
{
	gboolean enabled = TRUE, overwrite = FALSE;

	g_variant_lookup(settings, "enabled", "b", &enabled);
	g_variant_lookup(settings, "overwrite", "b", &overwrite);
	g_print("- %s: [%s]\n", name, enabled ? "enabled" : "disabled");
	g_print("    Sub-buffer size: %" G_GUINT64_FORMAT " bytes\n", subbuf_size);
	g_print("    Number of sub-buffers: %u\n", num_subbuf);
	g_print("    Mode: %s\n", overwrite ? "overwrite" : "discard");
	g_print("    Enabled events:\n");
	tc_client_print_enablings(domain, patterns, settings);
}

void
tc_client_print_buffering(GVariant *channels)
{
	GVariantIter iter;
	const char *domain, *buffers = NULL;
	GVariant *settings;

	g_variant_iter_init(&iter, channels);
	while (buffers == NULL &&
	       g_variant_iter_next(&iter, "(&s&stuas@a{sv})", NULL, &domain, NULL, NULL, NULL,
				   &settings)) {
		if (g_str_equal(domain, "ust"))
			g_variant_lookup(settings, "buffers", "&s", &buffers);
		g_variant_unref(settings);
	}
	if (buffers)
		g_print("Buffering scheme: %s\n\n",
			g_str_equal(buffers, "pid") ? "per-process" : "per-user");
}

/* Prints the channels of domain (NULL: any) named channel (NULL: any);
 * returns how many. */
static guint
print_channels(GVariant *channels, const char *domain, const char *channel)
{
	GVariantIter iter;
	const char *name, *channel_domain;
	guint64 subbuf_size;
	guint32 num_subbuf;
	GVariant *patterns, *settings;
	guint printed = 0;

	g_variant_iter_init(&iter, channels);
	while (g_variant_iter_next(&iter, "(&s&stu@as@a{sv})", &name, &channel_domain, &subbuf_size,
				   &num_subbuf, &patterns, &settings)) {
		if ((domain == NULL || g_str_equal(domain, channel_domain)) &&
		    (channel == NULL || g_str_equal(channel, name))) {
			if (printed++ == 0) {
				g_print("=== Domain: %s ===\n\n", domain_title(channel_domain));
				if (g_str_equal(channel_domain, "ust"))
					tc_client_print_buffering(channels);
				g_print("Channels:\n");
			}
			print_channel(name, channel_domain, subbuf_size, num_subbuf, patterns,
				      settings);
		}
		g_variant_unref(patterns);
		g_variant_unref(settings);
	}
	return printed;
}

static void
print_domains(GVariant *channels)
{
	GVariantIter iter;
	const char *domain;
	gboolean has_ust = FALSE, has_kernel = FALSE;

	g_variant_iter_init(&iter, channels);
	while (
	    g_variant_iter_next(&iter, "(&s&stuas@a{sv})", NULL, &domain, NULL, NULL, NULL, NULL)) {
		has_kernel |= g_str_equal(domain, "kernel");
		has_ust |= !g_str_equal(domain, "kernel");
	}
	g_print("Domains:\n");
	if (has_kernel)
		g_print("  - Kernel\n");
	if (has_ust)
		g_print("  - UST global\n");
	for (const char *const *agent = tc_client_agent_domains; *agent; agent++)
		if (tc_client_agent_rule_count(*agent, channels) > 0)
			g_print("  - %s\n", tc_client_agent_domain_line(*agent));
	if (!has_kernel && !has_ust)
		g_print("  (none yet)\n");
}

static gboolean
is_agent_domain(const char *domain)
{
	return domain && g_strv_contains(tc_client_agent_domains, domain);
}

int
tc_client_list_session_part(const char *name, const char *domain, const char *channel,
			    gboolean domains_only)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(TcClientSession) session = tc_client_session(name, &error);
	g_autoptr(GVariant) channels = NULL;

	if (session == NULL)
		return tc_client_fail(error);
	channels = tc_client_session_dup_channels(session);
	if (channels == NULL)
		channels = g_variant_ref_sink(
		    g_variant_new_array(G_VARIANT_TYPE("(sstuasa{sv})"), NULL, 0));
	g_print("Tracing session %s: [%s%s]\n    Trace output: %s\n\n",
		tc_client_session_get_name(session), tc_client_session_get_state(session),
		tc_client_session_get_snapshot(session) ? ", snapshot" : "",
		tc_client_session_get_output_directory(session));
	if (domains_only) {
		print_domains(channels);
		return TC_EXIT_OK;
	}
	if (is_agent_domain(domain)) {
		if (!tc_client_print_agent_rules(domain, channels))
			g_print("(no %s logger enabled)\n", tc_client_agent_domain_title(domain));
		return TC_EXIT_OK;
	}
	if (print_channels(channels, domain, channel) > 0)
		return TC_EXIT_OK;
	if (channel) {
		g_printerr("Error: session %s has no %schannel '%s'\n", name,
			   domain ? (g_str_equal(domain, "kernel") ? "kernel " : "user-space ")
				  : "",
			   channel);
		return TC_EXIT_FAILURE;
	}
	g_print("(no %s channel)\n", domain_title(domain));
	return TC_EXIT_OK;
}
