#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""One user's scheduled rotations cannot delay another's. The attacker
has sessions with a rotation timer recording into a directory whose every
write takes half a second (a FUSE server of theirs): each of their
rotations waits on their consumer, busy with those writes, for a second
or more, and then fails on that directory (the test's FUSE server does
not take the archive's rename): each is retried 10 s later, so a dozen
sessions keep the consumer and a scheduler that serves owners in turn
busy.
The victim's session rotates every second (enable-rotation --timer 1s);
its archives appear within that period and a margin of one another, as
they do unattacked, because each owner's rotations are run on a thread
of that owner's."""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from fuselib import SlowDirectory, require_fuse
from tclib import Service, check, log, run

ATTACK_SESSIONS = 12
WRITE_S = 0.5
PERIOD_S = 1.0
# The scheduler's look (200 ms) and the rotation itself; an owner waiting
# behind the attacker's rotations takes far more.
MARGIN_S = 1.5
BOUND_S = PERIOD_S + MARGIN_S
WATCH_S = 8.0


def archive_count(out):
    directory = os.path.join(out, "archives")
    return len(os.listdir(directory)) if os.path.isdir(directory) else 0


def longest_wait(svc, victim, name):
    """The longest time, in seconds, the victim's 1 s timer session went
    without a new archive over WATCH_S, counted from its schedule."""
    out = os.path.join(victim.home, name)
    svc.cli("create", name, "--output", out, user=victim)
    svc.cli("enable-event", "-u", "example:*", "-s", name, user=victim)
    svc.cli("start", name, user=victim)
    app = svc.app("--forever", "--interval-us", "1000", user=victim)
    svc.cli("enable-rotation", "-s", name, "--timer", "1s", user=victim)
    last = start = time.monotonic()
    count, longest = 0, 0.0
    try:
        while time.monotonic() - start < WATCH_S:
            time.sleep(0.05)
            now = time.monotonic()
            seen = archive_count(out)
            if seen != count:
                count, last = seen, now
            longest = max(longest, now - last)
    finally:
        app.kill()
        app.wait()
    log(f"{name}: {count} archives in {WATCH_S:.0f} s, at most {longest:.3f} s apart")
    svc.cli("destroy", name, user=victim, timeout=300)
    check(svc.alive(), "tracectld died")
    return longest


class RotationAttack:
    """attacker's ATTACK_SESSIONS started sessions, each rotated every
    second, recording an application of theirs into a directory of theirs
    whose every write takes WRITE_S: each rotation waits on their consumer
    while it writes."""

    def __init__(self, svc, attacker):
        self.svc = svc
        self.attacker = attacker
        self.output = None
        self.app = None

    def start(self):
        user = self.attacker
        self.output = SlowDirectory(os.path.join(user.home, "slow"), user, WRITE_S, ["write"])
        for i in range(ATTACK_SESSIONS):
            name = f"attacker-{i}"
            self.svc.cli("create", name, "--output", f"{self.output.mountpoint}/{name}",
                         user=user)
            self.svc.cli("enable-channel", "-u", "channel0", "-s", name, "--subbuf-size", "4k",
                         "--switch-timer", "100000", user=user)
            self.svc.cli("enable-event", "-u", "*", "-s", name, user=user)
            self.svc.cli("start", name, user=user)
            self.svc.cli("enable-rotation", "-s", name, "--timer", "1s", user=user)
        self.app = self.svc.app("--forever", "--interval-us", "100", user=user)
        # The rotations now wait on the writes: a scheduler that served
        # owners one after another is held by the attacker's.
        time.sleep(4 * WRITE_S)

    def stop(self):
        if self.app:
            self.app.kill()
            self.app.wait()
        if self.output:
            self.output.close()


def test():
    require_fuse()
    with Service() as svc:
        attacker = svc.add_user("tctest-mallory")
        victim = svc.add_user("tctest-victim")
        quiet = longest_wait(svc, victim, "quiet")
        check(quiet < BOUND_S,
              f"unattacked, the victim's archives were {quiet:.3f} s apart, not under "
              f"{BOUND_S:.1f} s")
        attack = RotationAttack(svc, attacker)
        try:
            attack.start()
            attacked = longest_wait(svc, victim, "attacked")
        finally:
            attack.stop()
        log(f"the victim's archives at most {quiet:.3f} s apart unattacked, "
            f"{attacked:.3f} s under attack")
        check(attacked < BOUND_S,
              f"under attack, the victim's archives were {attacked:.3f} s apart, not under "
              f"{BOUND_S:.1f} s")
        check(svc.alive(), "tracectld died")


run(test)
