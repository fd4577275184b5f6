#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A session whose relay takes data slowly holds neither its owner's
consumer nor the owner's other sessions. One session of a user streams
through a proxy that lets the relay's data connection take about 128 KB/s
while an application fills its buffers; meanwhile a second session of
the same user records locally, and a third, a snapshot session, records
in memory, both only the events of a counted application (a filter on its
pid). Every event of the counted application is in the local session's
archives, every command on the other sessions (create, enable, start,
list, status, rotate, snapshot record, stop, destroy) answers within
COMMAND_BOUND_S, and the owner's consumer is the same process at the end:
the service never took it for unresponsive, not even when the streamed
session itself stops, which gives its relay a bounded time to take the
last packets. The streamed session's own
`list` is timed and logged, not bound: it has been seen to wait for
seconds while its relay trickles (docs/relay.md)."""

import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from relaylib import Relay, TrickleProxy, stream_through_trickle
from tclib import Service, check, consumer_pid, is_running, log, run, wait_for
from tracelib import read_streams

COMMAND_BOUND_S = 1.0
# CONSUMERD_RELAY_FLUSH_BUDGET_MS and CONSUMERD_RELAY_PACKET_BUDGET_MS: a
# stop waits for the packet under way, then for the flush.
FLUSH_BUDGET_S, PACKET_BUDGET_S = 15, 7
COUNT = 20000
# The streamed session's buffers: 32 sub-buffers of 64 KiB on each CPU,
# full, take the trickle minutes to send.
SUBBUF_SIZE, NUM_SUBBUF = "64K", "32"


class Timer:
    """Runs commands, keeping each one's time and failing on none."""

    def __init__(self, svc, user):
        self.svc, self.user, self.times = svc, user, []

    def __call__(self, *args, may_fail=None):
        result, took = self.svc.timed_cli(*args, user=self.user, check_ok=False, timeout=60)
        self.times.append((took, " ".join(args[:2])))
        allowed = may_fail is not None and may_fail in result.stderr
        check(result.returncode == 0 or allowed, f"tracectl {' '.join(args)} failed after "
              f"{took:.2f} s: {result}")
        return result

    def slowest(self):
        return max(self.times)


def counted_seqs(paths):
    seqs = []
    for path in paths:
        seqs += [e["seq"] for e in read_streams(path)["events"]
                 if e["name"] == "example:all_types"]
    return seqs


def archives(out):
    root = os.path.join(out, "archives")
    return [os.path.join(root, name) for name in sorted(os.listdir(root))]


def test():
    with Service() as svc, Relay(svc.rundir) as relay:
        owner = svc.add_user("tctest-trickle")
        proxy = TrickleProxy(relay.ports[1])
        try:
            stream_through_trickle(svc, relay, proxy, owner, SUBBUF_SIZE, NUM_SUBBUF)
            consumer = consumer_pid(svc, owner.uid)
            # Long enough for the old consumer to be seen held in send, and
            # for a new one's queue to fill.
            time.sleep(4)
            check(proxy.flowing(2), f"the trickle stopped: {proxy.steps[-6:]}")

            counted = svc.app("--pause", "--count", str(COUNT), "--interval-us", "100",
                              user=owner, wait_ready=True)
            only_counted = f"$ctx.vpid == {counted.pid}"
            out = os.path.join(owner.home, "local")
            timed = Timer(svc, owner)
            timed("create", "local", "--output", out)
            timed("enable-event", "-u", "-s", "local", "example:all_types", "--filter",
                  only_counted)
            timed("create", "snap", "--snapshot", "--output", os.path.join(owner.home, "snap"))
            timed("enable-event", "-u", "-s", "snap", "example:all_types", "--filter",
                  only_counted)
            timed("start", "local")
            timed("start", "snap")
            counted.send_signal(signal.SIGUSR1)
            deadline = time.monotonic() + 60
            streamed_list = 0.0
            while counted.poll() is None and time.monotonic() < deadline:
                timed("list")
                timed("list", "local")
                timed("set-session", "local")
                timed("status")
                timed("rotate", "local")
                timed("snapshot", "record", "-s", "snap")
                started = time.monotonic()
                svc.cli("list", "streamed", user=owner)
                streamed_list = max(streamed_list, time.monotonic() - started)
                time.sleep(0.3)
            check(counted.wait(timeout=10) == 0, "the counted application failed")
            timed("stop", "local")
            # The rest into a last archive, unless a rotation after the
            # application's end archived everything already.
            timed("rotate", "local", may_fail="archived already")
            timed("stop", "snap")
            timed("destroy", "snap")
            # The streamed session's data still trickled out meanwhile.
            check(proxy.flowing(2), f"the trickle stopped: {proxy.steps[-6:]}")
            streamed = svc.session("streamed", user=owner)
            log(f"the streamed session meanwhile: {streamed}")
            # Slow is not gone: its relay is not reported lost.
            check(not streamed.get("problem"), f"the streamed session's problem: "
                  f"{streamed.get('problem')}")
            took, what = timed.slowest()
            log(f"the streamed session's own list took up to {streamed_list:.2f} s")
            log(f"{len(timed.times)} commands while the relay trickled, slowest "
                f"{took:.2f} s ({what}); trickle steps: {proxy.steps[-4:]}")
            check(took < COMMAND_BOUND_S,
                  f"tracectl {what} took {took:.2f} s, not within {COMMAND_BOUND_S} s")

            seqs = counted_seqs(archives(out))
            missing = set(range(COUNT)) - set(seqs)
            log(f"the local session's archives hold {len(seqs)} events of {COUNT}")
            check(not missing, f"{len(missing)} events missing, e.g. {sorted(missing)[:5]}")
            check(len(seqs) == COUNT, f"{len(seqs) - COUNT} events recorded twice")

            check(is_running(consumer) and consumer_pid(svc, owner.uid) == consumer,
                  "the owner's consumer was replaced")
            problem = svc.session("local", user=owner).get("problem", "")
            check(not problem, f"the local session has a problem: {problem}")
            timed("destroy", "local")

            # The streamed session's own stop waits for its relay only so
            # long (the consumer's flush budget), not for the minutes its
            # full buffers take to trickle: the service gets its answer
            # and keeps the owner's consumer.
            started = time.monotonic()
            stopped = svc.cli("stop", "streamed", user=owner, check_ok=False, timeout=60)
            took = time.monotonic() - started
            log(f"the streamed session's stop took {took:.2f} s: {stopped}")
            check(stopped.returncode == 0, f"the streamed session's stop failed: {stopped}")
            check(took < PACKET_BUDGET_S + FLUSH_BUDGET_S + 3,
                  f"the streamed session's stop took {took:.2f} s")
            check(is_running(consumer) and consumer_pid(svc, owner.uid) == consumer,
                  "the owner's consumer was replaced at the streamed session's stop")
            svc.cli("destroy", "streamed", user=owner)
            check(svc.alive(), "tracectld died")
        finally:
            proxy.close()


run(test)
