#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""One user cannot delay the news of another user's lost relay. The
service looks at every streaming session's relay through its owner's
consumer, which runs as the owner: a user whose consumer does not answer
(here frozen in a freezer cgroup: not stopped, which the service notices
and gives up on at once, but held as by work that does not end) makes a
look at their session wait until the service's reply timeout. Another user's relay killed meanwhile is still reported
to that user's subscriber (ProblemChanged, "unreachable") within a look
or two, as each owner's relays are looked at on their own.

The slow user's session is started first: a watch that looked at one
session after another would meet it first in every round. (A relay
that takes data slowly no longer holds its consumer at all:
integration-relay-trickle-neighbour.)"""

import contextlib
import os
import signal
import subprocess
import time

from relaylib import Relay
from signallib import Listener
from tclib import Service, check, consumer_pid, log, require, run, wait_for

# A look every 2 s, then the victim's consumer's answer: a watch that
# waited for the slow user's look first (up to the reply timeout of 10 s)
# takes well over this.
NEWS_BOUND_S = 7.0


FREEZER = "/sys/fs/cgroup/freezer"


class Frozen:
    """pid's process frozen in a cgroup (v1 freezer) of its own until
    thaw(): its threads sleep in the kernel, neither stopped nor traced."""

    def __init__(self, pid):
        require(os.access(FREEZER, os.W_OK), f"no writable cgroup v1 freezer at {FREEZER}")
        self.pid = pid
        self.path = os.path.join(FREEZER, f"tctest-watch-{os.getpid()}")
        os.makedirs(self.path, exist_ok=True)
        self._write("cgroup.procs", str(pid))
        self._write("freezer.state", "FROZEN")

    def _write(self, name, text, where=None):
        with open(os.path.join(where or self.path, name), "w") as f:
            f.write(text)

    def thaw(self):
        self._write("freezer.state", "THAWED")
        with contextlib.suppress(OSError):
            self._write("cgroup.procs", str(self.pid), where=FREEZER)
        with contextlib.suppress(OSError):
            os.rmdir(self.path)


def request_waiting(pid):
    """Whether a request of the service waits unread on pid's command
    socket (a SOCK_SEQPACKET one, as no other of the consumer's is): a
    look waiting for the consumer."""
    out = subprocess.run(["ss", "-xpnH"], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        fields = line.split()
        if fields[0] == "u_seq" and f"pid={pid}," in line and int(fields[2]) > 0:
            return True
    return False


def start_session(svc, user, name, url, channel_options=()):
    svc.cli("create", name, "--set-url", url, user=user)
    svc.cli("enable-channel", "-u", "chan", *channel_options, user=user)
    svc.cli("enable-event", "-u", "-c", "chan", "example:*", user=user)
    svc.cli("start", user=user)


def test():
    with Service() as svc, Relay(svc.rundir) as slow_relay, \
            Relay(os.path.join(svc.rundir, "victim")) as relay:
        hog = svc.add_user("tctest-hog")
        victim = svc.add_user("tctest-victim")
        start_session(svc, hog, "held", slow_relay.url)
        start_session(svc, victim, "victim", relay.url,
                      channel_options=("--switch-timer", "100000", "--subbuf-size", "16K"))
        svc.app("--forever", "--interval-us", "2000", user=hog)
        svc.app("--forever", "--interval-us", "2000", user=victim)
        subscriber = Listener(svc, user=victim)
        check(subscriber.name, f"the victim's subscriber: {subscriber.message}")
        hog_consumer = consumer_pid(svc, hog.uid)
        frozen = Frozen(hog_consumer)
        try:
            stalled = time.monotonic()
            # The next look at the hog's relay starts within an interval
            # and waits for the frozen consumer.
            wait_for(lambda: request_waiting(hog_consumer), 5,
                     "a look at the hog's relay to wait for its consumer")
            relay.stop(signal.SIGKILL)
            killed = time.monotonic()
            changed = subscriber.wait_member(
                "ProblemChanged", lambda s: "unreachable" in s["args"][1], timeout=20)
            took = time.monotonic() - killed
            still = request_waiting(hog_consumer)
            news = changed["args"][1]
            log(f"victim's ProblemChanged {took:.1f} s after the loss, "
                f"{killed - stalled:.1f} s after the hog's consumer was frozen "
                f"(the hog's look still waiting: {still}): {news}")
            check(took < NEWS_BOUND_S,
                  f"the victim learnt of the loss {took:.1f} s after it, "
                  f"not within {NEWS_BOUND_S} s")
            check(f"relay {relay.url}" in news, f"not the victim's relay: {news}")
            check(still, "the hog's consumer answered before the victim learnt")
        finally:
            frozen.thaw()
        subscriber.close()
        check(svc.alive(), "tracectld died")


run(test)
