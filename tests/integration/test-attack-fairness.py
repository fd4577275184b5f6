#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""One user attacks the others' use of the service: it stops its own
consumer (SIGSTOP, again each time the service replaces it), floods the
service with 20 parallel calls that wait on that consumer, and keeps 4
applications connected that register new events and never read their
socket (a new one every 100 ms, whose metadata is for the stopped
consumer). Meanwhile a
second user, and root, create, enable, start, record the example
application, stop and destroy sessions: each of their calls answers
within a bound, and the second user's traces hold every event of its
application, values intact."""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attack import Attack, finish_victim, percentile, start_victim  # noqa: E402
from tclib import EXAMPLE_APP, Service, check, log, run  # noqa: E402
from tracelib import expected_all_types, read_trace  # noqa: E402

CYCLES = 6
EVENTS = 200
# Without an attack a call takes milliseconds; the bound leaves room for
# a sanitizer build on a loaded machine, far below the waits the attacks
# used to cause (a consumer reply, acknowledgement deadlines).
CALL_BOUND_S = 1.0
# A run of the example application, which registers then emits its events.
RECORD_BOUND_S = 1.0
# The cycles take seconds; before the service was fair they took minutes.
VICTIM_TIMEOUT_S = 30


def check_latencies(who, latencies):
    seconds = [s for _, s in latencies]
    log(f"{who}: {len(seconds)} calls, p50 {percentile(seconds, 0.5) * 1000:.1f} ms, "
        f"p99 {percentile(seconds, 0.99) * 1000:.1f} ms, max {max(seconds) * 1000:.1f} ms")
    log(f"{who}'s calls over 100 ms: "
        f"{[(method, round(s, 3)) for method, s in latencies if s >= 0.1]}")
    slow = [(method, round(s, 3)) for method, s in latencies if s >= CALL_BOUND_S]
    check(not slow, f"{who}'s calls took {CALL_BOUND_S} s or more: {slow}")


def check_trace(out):
    events = read_trace(out)
    names = [name for name, _ in events]
    values = sorted((fields for name, fields in events if name == "example:all_types"),
                    key=lambda f: f["seq"])
    check("<discarded>" not in names, f"{out}: events were discarded")
    check(names.count("example:startup") == 1 and names.count("example:done") == 1,
          f"{out}: startup/done events: {names.count('example:startup')}, "
          f"{names.count('example:done')}")
    check(len(values) == EVENTS, f"{out}: {len(values)} all_types events of {EVENTS}")
    for i, fields in enumerate(values):
        check(fields == expected_all_types(i), f"{out}: event {i}: {fields}")


def test():
    with Service() as svc:
        attacker = svc.add_user("tctest-mallory")
        victim = svc.add_user("tctest-bob")
        attack = Attack(svc, attacker)
        victims = []
        try:
            attack.start()
            for user, name in ((victim, "bob"), (None, "root")):
                victims.append(start_victim(svc, user, f"{name}-{os.getpid()}", CYCLES, EVENTS,
                                            EXAMPLE_APP))
            bob_latencies, bob_outputs, bob_records = finish_victim(victims[0],
                                                                    VICTIM_TIMEOUT_S)
            root_latencies, _, _ = finish_victim(victims[1], VICTIM_TIMEOUT_S)
            log(f"attacker: {attack.calls} calls done, "
                f"{len(attack.stopped_consumers)} consumer(s) stopped")
        finally:
            for proc in victims:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
            attack.stop()
        check(attack.stopped_consumers, "the attacker's consumer was never stopped")
        # The attacker's own calls fail soon, saying whose consumer and why.
        with open(svc.log_path, errors="replace") as f:
            check(re.search(rf"The consumer of uid {attacker.uid} \(pid \d+\) is stopped",
                            f.read()),
                  "no error names the attacker's stopped consumer")
        check(svc.alive(), "tracectld died")
        check_latencies("bob", bob_latencies)
        check_latencies("root", root_latencies)
        # Registration included: the answer waits for the metadata to reach
        # bob's consumer, never for the attacker's.
        log(f"bob's application runs: {[round(s, 3) for s in bob_records]} s")
        check(max(bob_records) < RECORD_BOUND_S,
              f"bob's application took {max(bob_records):.3f} s or more to run")
        for out in bob_outputs:
            check_trace(out)
        # The attacker is served again once it lets its consumer run.
        svc.cli("create", "after", user=attacker)
        svc.cli("destroy", "after", user=attacker)


run(test)
