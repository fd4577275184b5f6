#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""What one local user's attacks cost the others: a second user's calls
and the service's memory, with and without the attacks (the anchor), in
one run. Prints one line per figure:

  figure NAME ours=X anchor=Y ratio=X/Y unit=U

victim_command_p99_ms        p99 of the second user's D-Bus calls (create,
                             enable-event, start, stop, destroy, timed in
                             process, around a recorded example
                             application) during the attacks, against the
                             same cycles with no attack. Goal: ratio <= 2
                             and <= 100 ms.
service_rss_mb_under_attack  tracectld's peak RSS (VmHWM) at the end of the
                             attacks, against idle after start-up. Goal:
                             <= 64 MB.
trigger_latency_under_attack_ms
                             median delay from a second user's trigger
                             condition becoming true (buffer usage of a
                             flight recorder) to its action (TriggerFired),
                             over TRACECTL_BENCH_TRIGGER_ROUNDS rounds (5),
                             while a third user's 64 triggers wait on a
                             consumer slowed by their own output
                             (tests/integration/lib/triggerlib.py), against the
                             same rounds unattacked. Goal: ratio <= 2.

The attacks, all by one user (tests/integration/lib/attacklib.py): its consumer
stopped (again each time the service replaces it), 20 calls in flight
that wait on it, 4 applications that register and never read, 4 that
describe TRACECTL_BENCH_EVENTS events each (65,536 by default) and never
read, and a started session with TRACECTL_BENCH_CHANNELS channels (100).
"""

import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration", "lib"))
from attacklib import Attack, finish_victim, percentile, start_victim  # noqa: E402
from fuselib import fuse_missing  # noqa: E402
from signallib import Listener  # noqa: E402
from tclib import EXAMPLE_APP, Service, log, proc_status  # noqa: E402
from triggerlib import TriggerAttack, trigger_latency  # noqa: E402
from benchlib import figure, machine  # noqa: E402

CYCLES = int(os.environ.get("TRACECTL_BENCH_CYCLES", "20"))
EVENTS = int(os.environ.get("TRACECTL_BENCH_EVENTS", "65536"))
CHANNELS = int(os.environ.get("TRACECTL_BENCH_CHANNELS", "100"))
TRIGGER_ROUNDS = int(os.environ.get("TRACECTL_BENCH_TRIGGER_ROUNDS", "5"))
TRIGGER_GIVE_UP_S = 120
APP_EVENTS = 100


def victim_p99_ms(svc, user, prefix):
    latencies, _, _ = finish_victim(start_victim(svc, user, prefix, CYCLES, APP_EVENTS,
                                              EXAMPLE_APP), 600)
    seconds = [s for _, s in latencies]
    by_method = {}
    for method, s in latencies:
        by_method.setdefault(method, []).append(s)
    log(f"{prefix}: {len(seconds)} calls, p50 {percentile(seconds, 0.5) * 1000:.1f} ms, "
        f"p99 {percentile(seconds, 0.99) * 1000:.1f} ms; max per call: "
        + ", ".join(f"{m} {max(v) * 1000:.0f} ms" for m, v in by_method.items()))
    return percentile(seconds, 0.99) * 1000


def trigger_latency_ms(svc, user, listener, prefix):
    """The median of TRIGGER_ROUNDS trigger latencies; a trigger that did
    not fire counts as TRIGGER_GIVE_UP_S."""
    took = [trigger_latency(svc, user, listener, f"{prefix}{i}", TRIGGER_GIVE_UP_S)
            for i in range(TRIGGER_ROUNDS)]
    seconds = [TRIGGER_GIVE_UP_S if t is None else t for t in took]
    return statistics.median(seconds) * 1000


def trigger_figure(svc):
    """trigger_latency_under_attack_ms, with users of its own."""
    attacker = svc.add_user("tctest-trudy")
    victim = svc.add_user("tctest-carol")
    listener = Listener(svc, victim)
    anchor_ms = trigger_latency_ms(svc, victim, listener, "quiet")
    attack = TriggerAttack(svc, attacker)
    try:
        attack.start()
        ours_ms = trigger_latency_ms(svc, victim, listener, "attacked")
    finally:
        attack.stop()
    listener.close()
    figure("trigger_latency_under_attack_ms", ours_ms, anchor_ms, "ms")


def main():
    log(f"machine: {machine()}")
    with Service() as svc:
        attacker = svc.add_user("tctest-mallory")
        victim = svc.add_user("tctest-bob")
        time.sleep(1)
        idle_mb = proc_status(svc.proc.pid, "VmHWM") / 1024
        anchor_ms = victim_p99_ms(svc, victim, f"quiet-{os.getpid()}")

        attack = Attack(svc, attacker, flood_threads=20, mute_apps=4, describing_apps=4,
                        events_per_app=EVENTS, channels=CHANNELS)
        try:
            started = time.monotonic()
            attack.start()
            log(f"attacks in place after {time.monotonic() - started:.1f} s "
                f"({attack.channels_made} channels)")
            ours_ms = victim_p99_ms(svc, victim, f"attacked-{os.getpid()}")
            peak_mb = proc_status(svc.proc.pid, "VmHWM") / 1024
            log(f"attacker: {attack.calls} calls done, "
                f"{len(attack.stopped_consumers)} consumer(s) stopped")
        finally:
            attack.stop()
        figure("victim_command_p99_ms", ours_ms, anchor_ms, "ms")
        figure("service_rss_mb_under_attack", peak_mb, idle_mb, "MB")
        if fuse_missing():
            log(f"trigger_latency_under_attack_ms not measured: {fuse_missing()}")
        else:
            trigger_figure(svc)


main()
