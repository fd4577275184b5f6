# SPDX-License-Identifier: LGPL-2.1-or-later
"""Triggers under attack, shared by the trigger fairness test and the
multi-user benchmark: an attacker's 64 triggers whose every check waits
on the attacker's consumer, slowed by an output of theirs, and a victim's flight recorder whose
trigger is timed from the moment its condition becomes true to its
action."""

import os
import signal
import time

from fuselib import SlowDirectory
from tclib import check, consumer_pid, consumer_pids, log

# The victim's channel: its monitor timer samples the buffer usage, so it
# is the trigger's evaluation period (tc-triggers.h).
MONITOR_TIMER_US = 100000
EVALUATION_PERIOD_S = MONITOR_TIMER_US / 1e6
ATTACK_TRIGGERS = 64  # the default MaxTriggers


class TriggerAttack:
    """attacker's started session, recording an application of theirs
    into a directory of theirs whose every write takes WRITE_S (a FUSE
    server of theirs, fuselib.py), with ATTACK_TRIGGERS buffer usage
    triggers on it. Their consumer spends its time in those writes and
    answers the service between two of them: each check of each trigger
    waits for it, but never so long that the service gives up on it."""

    WRITE_S = 0.5

    def __init__(self, svc, attacker):
        self.svc = svc
        self.attacker = attacker
        self.output = None
        self.app = None

    def start(self):
        self.output = SlowDirectory(os.path.join(self.attacker.home, "slow"), self.attacker,
                                    self.WRITE_S, ["write"])
        self.svc.cli("create", "attacker-0", "--output", f"{self.output.mountpoint}/trace",
                     user=self.attacker)
        self.svc.cli("enable-channel", "-u", "channel0", "-s", "attacker-0", "--subbuf-size",
                     "4k", "--switch-timer", "100000", user=self.attacker)
        self.svc.cli("enable-event", "-u", "*", "-s", "attacker-0", user=self.attacker)
        self.svc.cli("start", "attacker-0", user=self.attacker)
        for i in range(ATTACK_TRIGGERS):
            self.svc.cli("add-trigger", "--name", f"hog-{i}", "-s", "attacker-0",
                         "--condition", "channel-buffer-usage-ge", "--threshold-ratio", "0.99",
                         "--action", "notify", user=self.attacker)
        self.consumer = consumer_pid(self.svc, self.attacker.uid)
        self.app = self.svc.app("--forever", "--interval-us", "100", user=self.attacker)
        # The checks now wait on the writes: an evaluation that served
        # owners one after another is held by the attacker's triggers.
        time.sleep(4 * self.WRITE_S)

    def stop(self):
        """Ends the attack; checks that the attacker's consumer is the same
        one throughout (the service never gave up on it)."""
        if self.app:
            self.app.kill()
            self.app.wait()
        still = consumer_pids(self.svc, self.attacker.uid)
        if self.output:
            self.output.close()
        check(still == [self.consumer],
              f"the attacker's consumer {self.consumer} was replaced ({still}): "
              "the attack did not hold")


def trigger_latency(svc, victim, listener, name, timeout):
    """Seconds from the victim's buffer usage condition becoming true to
    its action (TriggerFired), or None past timeout. The condition
    becomes true within a few events of the application's first ones: its
    4 sub-buffers of 4 KiB, read by nobody (a snapshot session), are a
    quarter full after about 40 events; the application, registered and
    paused, writes one every 200 us from the moment it is let go."""
    svc.cli("create", name, "--snapshot", "--output", f"{victim.home}/{name}", user=victim)
    svc.cli("enable-channel", "-u", "channel0", "-s", name, "--subbuf-size", "4k",
            "--num-subbuf", "4", "--monitor-timer", str(MONITOR_TIMER_US), user=victim)
    svc.cli("enable-event", "-u", "example:*", "-s", name, user=victim)
    svc.cli("add-trigger", "--name", name, "-s", name, "--condition", "channel-buffer-usage-ge",
            "--threshold-ratio", "0.25", "--action", "notify", user=victim)
    svc.cli("start", name, user=victim)
    app = svc.app("--pause", "--forever", "--interval-us", "200", user=victim,
                  wait_ready=True)
    true_at = time.monotonic()
    app.send_signal(signal.SIGUSR1)
    took = None
    try:
        listener.wait_member("TriggerFired", lambda s: s["args"][0] == name, timeout=timeout)
        took = time.monotonic() - true_at
    except AssertionError:
        pass
    finally:
        app.kill()
        app.wait()
    log(f"{name}: the victim's trigger fired "
        + (f"{took:.3f} s after its condition became true" if took is not None
           else f"not within {timeout} s"))
    svc.cli("remove-trigger", name, user=victim)
    svc.cli("destroy", name, user=victim, timeout=300)
    check(svc.alive(), "tracectld died")
    return took
