#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Figure 3.9 of the session-daemon thesis (docs/architecture.md), many
times over: applications start and register while event patterns are
enabled and disabled concurrently. Once the dust settles, every
application records exactly the final enabled set: each registration and
each command end in the same state, whichever came first."""

import os
import random
import signal
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, run, wait_for
from tracelib import read_trace

ITERATIONS = 8
APPS = 4
K = 20
EVENTS = ["example:all_types", "example:done"]


def toggle(svc, session, final, rng):
    """Enables and disables patterns in a random order, ending in final."""
    enabled = set()
    for _ in range(6):
        event = rng.choice(EVENTS)
        verb = "disable-event" if event in enabled else "enable-event"
        svc.cli(verb, "-u", event, "-s", session)
        enabled ^= {event}
        time.sleep(rng.random() * 0.01)
    for event in EVENTS:
        if (event in final) != (event in enabled):
            verb = "enable-event" if event in final else "disable-event"
            svc.cli(verb, "-u", event, "-s", session)


def one_round(svc, n, rng):
    session = f"race{n}"
    out = os.path.join(svc.rundir, session)
    final = set(rng.sample(EVENTS, rng.randint(0, len(EVENTS))))
    svc.cli("create", session, "--output", out)
    svc.cli("enable-channel", "-u", "channel0", "-s", session)
    svc.cli("start", session)
    apps = []
    starter = threading.Thread(target=lambda: apps.extend(
        svc.app("--pause", "--count", str(K)) for _ in range(APPS)))
    starter.start()
    toggle(svc, session, final, rng)
    starter.join()
    for app in apps:
        check(app.stdout.readline().strip() == "ready", "an application did not start")
    wait_for(lambda: {a.pid for a in apps} <= set(svc.listed_pids()), 10,
             "every application to register")
    for app in apps:
        app.send_signal(signal.SIGUSR1)
    for app in apps:
        app.communicate(timeout=60)
    svc.cli("stop", session)
    names = [name for name, _ in read_trace(out)]
    expected = {"example:all_types": APPS * K, "example:done": APPS}
    for event in EVENTS:
        want = expected[event] if event in final else 0
        check(names.count(event) == want,
              f"round {n}: {event} recorded {names.count(event)} times, expected {want} "
              f"(final set {sorted(final)})")
    svc.cli("destroy", session)


def test():
    rng = random.Random(int(os.environ.get("TRACECTL_TEST_SEED", "1234")))
    with Service() as svc:
        for n in range(ITERATIONS):
            one_round(svc, n, rng)


run(test)
