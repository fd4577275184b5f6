#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A live session with a long live timer: the events of a slow application
reach a babeltrace2 live viewer well before the timer's period, as the
consumer sends a stream's new events to the relay a fraction of the period
after they are written (and a beacon on the idle streams, so that the
viewer moves past them), not only at each period. The live timer stays
the bound: here, the median delay from an event's timestamp to its line
must stay under a quarter of the period, where waiting for the period
(and for the idle stream's beacon) gives half of it or more. And no event
waits longer than the live timer plus one second."""

import os
import re
import socket
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from relaylib import Reader, Relay
from tclib import Service, check, log, run

LIVE_TIMER_US = 2000000
SECONDS = 6.0
# What a viewer may wait for any event: a whole live timer period, plus
# a second for the relay and the viewer's own polling.
MAX_DELAY_MS = LIVE_TIMER_US / 1e3 + 1000


class WallClockReader(Reader):
    """Lines stamped with the real time they arrived, the clock the
    viewer prints the events' timestamps in (--clock-seconds)."""

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append((time.time(), line))

    @property
    def first_time(self):
        return self.lines[0][0]


def test():
    with Service() as svc, Relay(svc.rundir) as relay:
        svc.cli("create", "slow", "--set-url", relay.url, f"--live={LIVE_TIMER_US}")
        svc.cli("enable-event", "-u", "example:*")
        svc.cli("start")
        app = svc.app("--forever", "--interval-us", "73000")
        time.sleep(1.0)  # the application's events are in the metadata
        url = f"net://127.0.0.1:{relay.live_port}/host/{socket.gethostname()}/slow"
        viewer = WallClockReader(
            ["babeltrace2", "--component=src.ctf.lttng-live", "--params", f'inputs=["{url}"]',
             "--component=sink.text.pretty", "--params", "clock-seconds=true"], svc.env())
        try:
            viewer.wait_for("example:all_types", 30)
            time.sleep(SECONDS)
        finally:
            app.kill()
            app.wait()
            viewer.proc.terminate()
            viewer.finish(10)
        svc.cli("destroy", "slow")
        # the events stamped after the first line arrived
        first = viewer.first_time
        delays = [(arrived - float(m.group(1))) * 1e3
                  for arrived, line in viewer.lines
                  for m in [re.match(r"\[(\d+\.\d+)\]", line)]
                  if m and "example:all_types" in line and float(m.group(1)) > first]
        check(len(delays) >= 20, f"the viewer printed {len(delays)} events: "
              f"{viewer.errors[-2000:]}")
        median = statistics.median(delays)
        log(f"{len(delays)} events, delays {min(delays):.0f}..{max(delays):.0f} ms, "
            f"median {median:.0f} ms, max allowed {MAX_DELAY_MS:.0f} ms")
        check(median < LIVE_TIMER_US / 4e3,
              f"median live delay {median:.0f} ms with a live timer of "
              f"{LIVE_TIMER_US / 1e3:.0f} ms")
        check(max(delays) < MAX_DELAY_MS,
              f"an event arrived {max(delays):.0f} ms after its timestamp, more than "
              f"the live timer plus one second ({MAX_DELAY_MS:.0f} ms)")


run(test)
