#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""One user's triggers cannot delay another's. The attacker has 64
triggers on buffer usage (MaxTriggers) on a session that records into a
directory whose every write takes half a second (a FUSE server of
theirs): their consumer answers the service between two writes, so
every check of every one of their triggers waits for it, a round of them
for half a minute, and never so long that the service gives up on it. The victim's flight recorder has one
trigger on buffer usage, sampled by a monitor timer of 100 ms (its
evaluation period); it fires within that period and a margin of its
condition becoming true, as it does unattacked, because each owner's
triggers are evaluated on a thread of that owner's."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from fuselib import require_fuse
from signallib import Listener
from tclib import Service, check, log, run
from triggerlib import EVALUATION_PERIOD_S, TriggerAttack, trigger_latency

# The consumer's sample and the signal's way to the subscriber; a trigger
# waiting behind a round of the attacker's takes far more.
MARGIN_S = 1.5
BOUND_S = EVALUATION_PERIOD_S + MARGIN_S
GIVE_UP_S = 60


def test():
    require_fuse()
    with Service() as svc:
        attacker = svc.add_user("tctest-mallory")
        victim = svc.add_user("tctest-victim")
        listener = Listener(svc, victim)
        check(listener.name, f"the victim's subscriber: {listener.message}")
        quiet = trigger_latency(svc, victim, listener, "quiet", GIVE_UP_S)
        check(quiet is not None and quiet < BOUND_S,
              f"unattacked, the victim's trigger took {quiet} s, not under {BOUND_S:.1f} s")
        attack = TriggerAttack(svc, attacker)
        try:
            attack.start()
            attacked = trigger_latency(svc, victim, listener, "attacked", GIVE_UP_S)
        finally:
            attack.stop()
        log(f"the victim's trigger: {quiet:.3f} s unattacked, "
            + (f"{attacked:.3f} s" if attacked is not None else f"over {GIVE_UP_S} s")
            + " under attack")
        check(attacked is not None and attacked < BOUND_S,
              f"under attack, the victim's trigger took {attacked} s, not under {BOUND_S:.1f} s")
        listener.close()
        check(svc.alive(), "tracectld died")


run(test)
