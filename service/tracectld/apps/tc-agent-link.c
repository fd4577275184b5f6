/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-agent"

#include "tc-agent-link.h"

#include <errno.h>
#include <string.h>
#include <gio/gio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tc-error.h"

static guint64 next_id = 1; /* atomic */

TcAgentLink *
tc_agent_link_new(int fd, uid_t uid, const TcAgentRegistration *reg, TcUserCharge *charge)
{
	TcAgentLink *link = g_new0(TcAgentLink, 1);

	link->refcount = 1;
	link->id = __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED);
	link->fd = fd;
	link->uid = uid;
	link->pid = reg->pid;
	link->domain = reg->domain;
	link->minor = reg->minor;
	link->charge = *charge;
	tc_user_limits_charge_init(charge, charge->user); /* the link's now */
	link->enabled = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	return link;
}

TcAgentLink *
tc_agent_link_ref(TcAgentLink *link)
{
	g_atomic_int_inc(&link->refcount);
	return link;
}

void
tc_agent_link_unref(TcAgentLink *link)
{
	if (link == NULL || !g_atomic_int_dec_and_test(&link->refcount))
		return;
	close(link->fd);
	tc_user_limits_release(&link->charge);
	g_hash_table_unref(link->enabled);
	g_free(link);
}

void
tc_agent_link_set_timeouts(int fd, guint timeout_ms)
{
	struct timeval timeout = {.tv_sec = timeout_ms / 1000,
				  .tv_usec = (timeout_ms % 1000) * 1000};

	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
}

static gboolean
link_broken(GError **error, int err, const char *what)
{
	g_set_error(error, G_IO_ERROR, g_io_error_from_errno(err), "%s: %s", what,
		    err == EAGAIN ? "no answer in time" : g_strerror(err));
	return FALSE;
}

gboolean
tc_agent_link_read(int fd, guint8 *buffer, gsize size, GError **error)
{
	gsize done = 0;

	while (done < size) {
		ssize_t n = recv(fd, buffer + done, size - done, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return link_broken(error, errno, "Reading from the agent");
		if (n == 0) {
			g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED,
					    "The agent closed its connection");
			return FALSE;
		}
		done += n;
	}
	return TRUE;
}

static gboolean
write_all(int fd, const guint8 *data, gsize size, GError **error)
{
	gsize done = 0;

	while (done < size) {
		ssize_t n = send(fd, data + done, size - done, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return link_broken(error, errno, "Writing to the agent");
		done += n;
	}
	return TRUE;
}

static TcAgentCommand
command_of(GBytes *command)
{
	gsize size;
	const guint8 *bytes = g_bytes_get_data(command, &size);
	guint32 be;

	memcpy(&be, bytes + 8, sizeof(be));
	return GUINT32_FROM_BE(be);
}

gboolean
tc_agent_link_send(TcAgentLink *link, GBytes *command, GError **error)
{
	gsize size;
	const guint8 *bytes = g_bytes_get_data(command, &size);
	guint8 status[4];
	guint32 value;

	if (!write_all(link->fd, bytes, size, error))
		return FALSE;
	if (command_of(command) == TC_AGENT_CMD_REGISTRATION_DONE)
		return TRUE;
	if (!tc_agent_link_read(link->fd, status, sizeof(status), error))
		return FALSE;
	value = tc_agent_protocol_parse_status(status);
	if (value != TC_AGENT_REPLY_SUCCESS) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "The agent answered status %u",
			    value);
		return FALSE;
	}
	return TRUE;
}

char **
tc_agent_link_list(TcAgentLink *link, GError **error)
{
	g_autoptr(GBytes) command = tc_agent_protocol_command(TC_AGENT_CMD_LIST);
	g_autofree guint8 *names = NULL;
	g_autoptr(GError) bad = NULL;
	guint8 head[12];
	guint32 status, size, count;
	char **list;
	gsize length;
	const guint8 *bytes = g_bytes_get_data(command, &length);

	if (!write_all(link->fd, bytes, length, error) ||
	    !tc_agent_link_read(link->fd, head, sizeof(head), error))
		return NULL;
	status = tc_agent_protocol_parse_status(head);
	if (!tc_agent_protocol_parse_list_head(head + 4, &size, &count, &bad)) {
		/* What follows cannot be skipped safely: the link is lost. */
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
			    "Listing the agent's loggers: %s", bad->message);
		return NULL;
	}
	names = g_malloc(size + 1);
	if (!tc_agent_link_read(link->fd, names, size, error))
		return NULL;
	if (status != TC_AGENT_REPLY_SUCCESS) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "The agent answered status %u",
			    status);
		return NULL;
	}
	list = tc_agent_protocol_parse_list_names(names, size, count, error);
	if (list == NULL)
		g_prefix_error(error, "Listing the agent's loggers: ");
	return list;
}

void
tc_agent_link_shutdown(TcAgentLink *link)
{
	(void)shutdown(link->fd, SHUT_RDWR);
}
