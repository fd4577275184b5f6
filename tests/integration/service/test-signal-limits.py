#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Subscriptions are limited per user (MaxSubscriptions): alice's third
connection is refused with LimitExceeded naming the limit while bob
still subscribes; subscribing twice on one connection counts once; a
connection that leaves the bus gives its subscription back."""

import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from signallib import Listener
from tclib import Service, check, run, wait_for

LIMIT = "org.tracectl.Tracing1.Error.LimitExceeded"


def test():
    with tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False) as config:
        config.write("[Limits]\nMaxSubscriptions=2\n")
    os.chmod(config.name, 0o644)
    try:
        with Service(args=["--config", config.name]) as svc:
            alice = svc.add_user("tcsig-alice")
            bob = svc.add_user("tcsig-bob")
            first = Listener(svc, alice)
            second = Listener(svc, alice)
            check(first.name and second.name, f"{first.error} {second.error}")
            second.command("subscribe")  # again: no second charge
            third = Listener(svc, alice)
            check(third.error == LIMIT and "MaxSubscriptions" in third.message,
                  f"third subscription: {third.error} {third.message}")
            bob_one = Listener(svc, bob)
            check(bob_one.name, f"bob refused: {bob_one.error}")

            first.close()

            def subscribed_again():
                listener = Listener(svc, alice)
                if listener.error:
                    return False
                subscribed_again.listener = listener
                return True
            wait_for(subscribed_again, 10, "alice's subscription to be given back")
            # Still two of alice's at most.
            check(Listener(svc, alice).error == LIMIT, "a fourth subscription was accepted")
            svc.cli("create", "work", user=alice)
            subscribed_again.listener.wait_member("SessionCreated")
            second.wait_member("SessionCreated")
            time.sleep(0.2)
            check(bob_one.signals == [], f"bob got {bob_one.signals}")
    finally:
        os.unlink(config.name)


run(test)
