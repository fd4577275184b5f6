#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""One user cannot delay the news of another user's lost relay. The
service looks at every streaming session's relay through its owner's
consumer, which runs as the owner: a user whose relay takes data slowly
but steadily holds their session's thread in the consumer in send
(named "tc-session"), while the consumer's main thread still answers the
looks, from what that thread published. Another user's relay killed
meanwhile is reported to that user's subscriber (ProblemChanged,
"unreachable") within a look or two, as each owner's relays are looked
at on their own, and the slow user's consumer is never taken for
unresponsive.

The slow user's session is started first: a watch that looked at one
session after another would meet it first in every round."""

import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from relaylib import Relay, TrickleProxy
from signallib import Listener
from tclib import Service, check, consumer_pid, log, run, wait_for

# A look every 2 s, then the victim's consumer's answer: a watch that
# waited for the slow user's look first (up to the reply timeout of 10 s)
# takes well over this.
NEWS_BOUND_S = 7.0
# The slow user's buffers: 32 sub-buffers of 64 KiB on each CPU, full, take
# the trickle well over the service's reply timeout to drain.
SUBBUF_SIZE, NUM_SUBBUF = "64K", "32"
SENDMSG = {"x86_64": 46, "aarch64": 211}.get(os.uname().machine)


def session_thread(pid):
    """The consumer pid's thread of its one session, or None."""
    try:
        tids = [tid for tid in os.listdir(f"/proc/{pid}/task")
                if open(f"/proc/{pid}/task/{tid}/comm").read().strip() == "tc-session"]
    except OSError:
        return None
    return int(tids[0]) if len(tids) == 1 else None


def in_sendmsg(pid):
    """Whether the session thread of consumer pid is blocked in sendmsg(2)
    (where its number is known)."""
    if SENDMSG is None:
        return True
    tid = session_thread(pid)
    if tid is None:
        return False
    try:
        with open(f"/proc/{pid}/task/{tid}/syscall") as f:
            return f.read().split()[0] == str(SENDMSG)
    except (OSError, IndexError):
        return False


def stuck(proxy, pid):
    """Whether consumer pid's session thread stayed in sendmsg(2) for the
    last second, while the
    trickle took its data all along: it is held by the trickle, not by a
    relay that stopped."""
    for _ in range(10):
        if not in_sendmsg(pid):
            return False
        time.sleep(0.1)
    return proxy.flowing(2)


def start_session(svc, user, name, *url_options, channel_options=()):
    svc.cli("create", name, *url_options, user=user)
    svc.cli("enable-channel", "-u", "chan", *channel_options, user=user)
    svc.cli("enable-event", "-u", "-c", "chan", "example:*", user=user)
    svc.cli("start", user=user)


def test():
    with Service() as svc, Relay(svc.rundir) as slow_relay, \
            Relay(os.path.join(svc.rundir, "victim")) as relay:
        hog = svc.add_user("tctest-hog")
        victim = svc.add_user("tctest-victim")
        proxy = TrickleProxy(slow_relay.ports[1])
        try:
            start_session(svc, hog, "trickled",
                          "--ctrl-url", f"tcp://127.0.0.1:{slow_relay.ports[0]}",
                          "--data-url", f"tcp://127.0.0.1:{proxy.port}",
                          channel_options=("--subbuf-size", SUBBUF_SIZE,
                                           "--num-subbuf", NUM_SUBBUF))
            start_session(svc, victim, "victim", "--set-url", relay.url,
                          channel_options=("--switch-timer", "100000", "--subbuf-size", "16K"))
            svc.app("--forever", "--threads", "2", "--interval-us", "20", user=hog)
            svc.app("--forever", "--interval-us", "2000", user=victim)
            subscriber = Listener(svc, user=victim)
            check(subscriber.name, f"the victim's subscriber: {subscriber.message}")
            wait_for(lambda: proxy.forwarded > 0, 10, "the hog's first data through the proxy")
            proxy.trickle()
            hog_consumer = consumer_pid(svc, hog.uid)
            try:
                wait_for(lambda: stuck(proxy, hog_consumer), 15,
                         "the hog's consumer to block in send behind the trickle")
            except AssertionError:
                log(f"trickle steps: {proxy.steps[-12:]}, hog's consumer in "
                    f"sendmsg: {in_sendmsg(hog_consumer)}")
                raise
            stalled = time.monotonic()
            relay.stop(signal.SIGKILL)
            killed = time.monotonic()
            changed = subscriber.wait_member(
                "ProblemChanged", lambda s: "unreachable" in s["args"][1], timeout=20)
            took = time.monotonic() - killed
            still = stuck(proxy, hog_consumer)
            news = changed["args"][1]
            log(f"victim's ProblemChanged {took:.1f} s after the loss, "
                f"{killed - stalled:.1f} s after the hog's consumer was seen blocked "
                f"(the hog's session thread still in send: {still}): {news}")
            log(f"trickle steps: {proxy.steps[-12:]}")
            check(took < NEWS_BOUND_S,
                  f"the victim learnt of the loss {took:.1f} s after it, "
                  f"not within {NEWS_BOUND_S} s")
            check(f"relay {relay.url}" in news, f"not the victim's relay: {news}")
            check(still, "the hog's session thread was no longer held by the trickle")
            check(consumer_pid(svc, hog.uid) == hog_consumer,
                  "the hog's consumer was replaced: taken for unresponsive")
            subscriber.close()
            check(svc.alive(), "tracectld died")
        finally:
            proxy.close()


run(test)
