#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A consumer that exits while its relay takes data slowly exits by itself
within what the service waits for it. A user's session streams through a
proxy that lets the relay's data connection take about 128 KB/s while an
application fills buffers that take the trickle minutes to send, so the
session's thread is in the middle of a drain when the service stops. The
consumer's exit cuts that drain after the packet under way and gives the
relay what is left of its exit budget (CONSUMERD_EXIT_BUDGET_MS, 18 s),
not a drain of whole buffers and then a flush's own 15 s: it exits well
before tracectld's 25 s (CONSUMER_EXIT_TIMEOUT_MS), and tracectld never
kills it."""

import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from relaylib import Relay, TrickleProxy, stream_through_trickle
from tclib import Service, check, consumer_pid, is_running, log, run, wait_for

# CONSUMERD_EXIT_BUDGET_MS, then the relay's last confirmation (2 s) and a
# margin, within CONSUMER_EXIT_TIMEOUT_MS (25 s).
EXIT_BOUND_S = 23
# 64 sub-buffers of 64 KiB on each CPU, full: a drain of one takes the
# trickle half a minute.
SUBBUF_SIZE, NUM_SUBBUF = "64K", "64"


def test():
    with Service() as svc, Relay(svc.rundir) as relay:
        owner = svc.add_user("tctest-exit")
        proxy = TrickleProxy(relay.ports[1])
        try:
            app = stream_through_trickle(svc, relay, proxy, owner, SUBBUF_SIZE, NUM_SUBBUF)
            consumer = consumer_pid(svc, owner.uid)
            # The socket's and the buffers fill; the session's thread is
            # held in its drains, the application still writing.
            time.sleep(10)
            check(proxy.flowing(2), f"the trickle stopped: {proxy.steps[-6:]}")
            check(app.poll() is None, "the application ended")

            started = time.monotonic()
            svc.proc.send_signal(signal.SIGTERM)
            wait_for(lambda: not is_running(consumer), 40, "the consumer's exit")
            took = time.monotonic() - started
            svc.proc.wait(timeout=30)
            with open(svc.log_path, errors="replace") as f:
                text = f.read()
            log(f"the consumer exited {took:.2f} s after the service's stop; trickle steps: "
                f"{proxy.steps[-4:]}")
            log("\n".join(line for line in text.splitlines()[-400:]
                           if "consumerd" in line or "Consumer" in line))
            check("did not exit, killing it" not in text,
                  "tracectld killed the consumer at its exit")
            check(took < EXIT_BOUND_S,
                  f"the consumer took {took:.2f} s to exit, not within {EXIT_BOUND_S} s")
        finally:
            proxy.close()


run(test)
