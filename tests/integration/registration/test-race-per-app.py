#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Figure 3.9 of the session-daemon thesis (docs/architecture.md), per
application: many rounds of applications registering while event rules
(exact names and wildcard patterns) are enabled and disabled
concurrently, in both race orders (commands first, applications first,
and interleaved). Once the dust settles:

- `list -u` shows every application of the round;
- every application records exactly the final enabled set, checked per
  application through the trace: the applications of a round get distinct
  --count values, so example:done (whose field is the count) names each
  one, and the histogram of example:all_types `seq` values is what exactly
  those counts give (an application missing or doubling any event changes
  it);
- example:startup, emitted before main() goes on and enabled (or not)
  before the applications start, is recorded exactly once per pid when
  enabled and never otherwise: the shadow copy an application receives at
  registration is never lost to a concurrent command on other rules.

The whole test stays under about a minute (TRACECTL_TEST_ROUNDS rounds,
TRACECTL_TEST_SEED for the random choices)."""

import collections
import os
import random
import signal
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, log, run, wait_for
from tracelib import read_trace

ROUNDS = int(os.environ.get("TRACECTL_TEST_ROUNDS", "50"))
APPS = 8
# Rules toggled during the race, and the events each one enables. None
# of them matches example:startup, whose state is fixed for a round.
RULES = {
    "example:all_types": {"example:all_types"},
    "example:done": {"example:done"},
    "example:a*": {"example:all_types"},
    "example:d*": {"example:done"},
}


def enabled_events(rules):
    """The events a set of enabled rules records."""
    return set().union(*(RULES[rule] for rule in rules)) if rules else set()


def toggle(svc, session, final, rng, steps):
    """Enables and disables rules in random order, then sets final."""
    enabled = set()
    for _ in range(steps):
        rule = rng.choice(sorted(RULES))
        verb = "disable-event" if rule in enabled else "enable-event"
        svc.cli(verb, "-u", rule, "-s", session)
        enabled ^= {rule}
        time.sleep(rng.random() * 0.005)
    for rule in sorted(RULES):
        if (rule in final) != (rule in enabled):
            verb = "enable-event" if rule in final else "disable-event"
            svc.cli(verb, "-u", rule, "-s", session)


def start_apps(svc, counts, delay, out):
    """Starts one paused application per count, after delay seconds."""
    time.sleep(delay)
    for count in counts:
        out.append(svc.app("--pause", "--count", str(count)))


def race(svc, session, final, counts, rng):
    """Applications start while the rules change; the order varies."""
    order = rng.choice(["apps-first", "commands-first", "interleaved"])
    apps = []
    delay = {"apps-first": 0, "commands-first": 0.05, "interleaved": rng.random() * 0.03}[order]
    starter = threading.Thread(target=start_apps, args=(svc, counts, delay, apps))
    starter.start()
    if order == "apps-first":
        time.sleep(0.01)
    try:
        toggle(svc, session, final, rng, rng.randint(3, 8))
    finally:
        starter.join()
    return apps, order


def expected_seq_histogram(counts):
    """How many all_types events carry each seq, for these counts."""
    histogram = collections.Counter()
    for count in counts:
        histogram.update(range(count))
    return histogram


def check_trace(out, n, apps, counts, final_events, startup_on):
    events = read_trace(out)
    names = collections.Counter(name for name, _ in events)
    check(names["<discarded>"] == 0, f"round {n}: events were discarded")
    unknown = set(names) - {"example:startup", "example:all_types", "example:done"}
    check(not unknown, f"round {n}: unexpected events {unknown}")
    startup_pids = sorted(f["pid"] for name, f in events if name == "example:startup")
    want_pids = sorted(app.pid for app in apps) if startup_on else []
    check(startup_pids == want_pids,
          f"round {n}: example:startup recorded for pids {startup_pids}, expected {want_pids}")
    seqs = collections.Counter(f["seq"] for name, f in events if name == "example:all_types")
    want = expected_seq_histogram(counts) if "example:all_types" in final_events else {}
    check(seqs == want, f"round {n}: example:all_types per application wrong: "
          f"seq histogram {dict(seqs)}, expected {dict(want)} for counts {counts}")
    done = sorted(f["count"] for name, f in events if name == "example:done")
    want_done = sorted(counts) if "example:done" in final_events else []
    check(done == want_done, f"round {n}: example:done recorded for counts {done}, "
          f"expected {want_done}")


def one_round(svc, n, rng):
    session = f"race{n}"
    out = os.path.join(svc.rundir, session)
    final = set(rng.sample(sorted(RULES), rng.randint(0, len(RULES))))
    startup_on = rng.random() < 0.5
    counts = rng.sample(range(1, 60), APPS)
    svc.cli("create", session, "--output", out)
    svc.cli("enable-channel", "-u", "channel0", "-s", session)
    if startup_on:
        svc.cli("enable-event", "-u", "example:startup", "-s", session)
    svc.cli("start", session)
    apps, order = race(svc, session, final, counts, rng)
    for app in apps:
        check(app.stdout.readline().strip() == "ready", f"round {n}: an application did not start")
    pids = {app.pid for app in apps}
    wait_for(lambda: pids <= set(svc.listed_pids()), 5, f"round {n}: every application listed")
    for app in apps:
        app.send_signal(signal.SIGUSR1)
    for app in apps:
        _, err = app.communicate(timeout=30)
        check(app.returncode == 0, f"round {n}: application {app.pid} failed: {err}")
    svc.apps.clear()
    svc.cli("stop", session)
    final_events = enabled_events(final)
    log(f"round {n}: {order}, final rules {sorted(final)}, startup {startup_on}, counts {counts}")
    check_trace(out, n, apps, counts, final_events, startup_on)
    svc.cli("destroy", session)


def test():
    rng = random.Random(int(os.environ.get("TRACECTL_TEST_SEED", "4242")))
    with Service() as svc:
        started = time.monotonic()
        for n in range(ROUNDS):
            one_round(svc, n, rng)
        check(svc.alive(), "tracectld died")
        log(f"{ROUNDS} rounds in {time.monotonic() - started:.1f} s")


run(test)
