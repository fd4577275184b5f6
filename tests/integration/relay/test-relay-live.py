#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Live sessions through lttng-relayd: `tracectl status` shows the URL,
host name and live timer; viewers of two live sessions run at once with
`tracectl view --live`, attached before any application runs, and print
the events of an application started afterwards (its event descriptions
reach them as the metadata grows) while the sessions record, and end when
their session is destroyed. Failures are immediate and name
the viewer URL: a second viewer of one session (lttng-relayd admits one
per session), a relay that does not know the session, a port nobody
listens on, a session that is not live."""

import os
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from relaylib import Relay, Reader, free_port
from tclib import TRACECTL, Service, check, log, run

LIVE_TIMER_US = 200000


def viewer(svc, relay, name):
    return Reader([TRACECTL, "view", "--live", "--live-port", str(relay.live_port), name],
                  svc.env())


def test():
    with Service() as svc, Relay(svc.rundir) as relay, Relay(svc.rundir + "/empty") as empty:
        hostname = socket.gethostname()
        for name in ("other", "watched"):
            created = svc.cli("create", name, "--set-url", relay.url,
                              f"--live={LIVE_TIMER_US}").stdout
            check(f"streamed to {relay.url}" in created, created)
            svc.cli("enable-event", "-u", "example:*")
            svc.cli("start")
        status = svc.cli("status").stdout
        check(f"Trace output: {relay.url} (host {hostname})" in status and
              f"Live timer interval: {LIVE_TIMER_US} us" in status, status)
        listing = svc.cli("list").stdout
        check(f"watched [active] ({relay.url})" in listing, listing)
        offline = svc.cli("view", check_ok=False)
        check(offline.returncode == 1 and f"streams to {relay.url}" in offline.stderr,
              f"view of a streamed session: {offline}")
        viewers = [viewer(svc, relay, "watched"), viewer(svc, relay, "other")]
        time.sleep(1)  # attached, with no application yet
        check(all(reader.proc.poll() is None for reader in viewers),
              f"a viewer ended: {[reader.errors[-2000:] for reader in viewers]}")
        svc.app("--forever", "--interval-us", "20000")
        for reader in viewers:
            reader.wait_for("example:all_types", 30)
        log(f"both viewers print events: {[len(v.lines) for v in viewers]} lines")

        url = f"net://127.0.0.1:{relay.live_port}/host/{hostname}/watched"
        second = svc.cli("view", "--live", "--live-port", str(relay.live_port), "watched",
                         check_ok=False, timeout=30)
        check(second.returncode == 1 and
              f"another viewer is attached to the live session at {url}" in second.stderr,
              f"second viewer: {second}")
        # The empty relay has never heard of the session: an error, not a wait.
        unknown = svc.cli("view", "--live", "--live-port", str(empty.live_port),
                          check_ok=False, timeout=30)
        url = f"net://127.0.0.1:{empty.live_port}/host/{hostname}/watched"
        check(unknown.returncode == 1 and
              f"the relay daemon has no live session at {url}" in unknown.stderr,
              f"unknown session: {unknown}")
        refused = svc.cli("view", "--live", "--live-port", str(free_port()), check_ok=False,
                          timeout=30)
        check(refused.returncode == 1 and "nothing listens for live viewers" in refused.stderr,
              f"no relay: {refused}")

        for name, reader in (("watched", viewers[0]), ("other", viewers[1])):
            svc.cli("destroy", name)
            status = reader.finish(30)
            check(status == 0, f"viewer of {name} ended with {status}: {reader.errors[-2000:]}")

        svc.cli("create", "local")
        not_live = svc.cli("view", "--live", check_ok=False)
        check(not_live.returncode == 1 and "is not streamed to a relay daemon" in not_live.stderr,
              f"{not_live}")
        svc.cli("destroy", "local")


run(test)
