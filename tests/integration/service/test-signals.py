#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Signals are private: alice's subscriber receives the lifecycle of her
session (created, PropertiesChanged and started, application registered
and gone, stopped, destroyed) in order; bob's subscriber, bob's and
alice's connections that did not subscribe, and alice's after she
unsubscribed receive nothing of it, although they ask the bus for every
signal; root's and carol's subscribers (administrators, carol through a
polkit rule) receive alice's too, and her Problem when her consumer dies; a monitor on the bus sees that the service never broadcasts a
signal and addresses each of alice's to her subscribers alone.
`tracectl monitor` (text and --json) prints the same signals."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from signallib import Listener
from tclib import TRACECTL, Installed, Service, check, children, log, proc_status, run

# carol administers: polkit authorizes her for other users' sessions.
ADMIN_RULE = """polkit.addRule(function(action, subject) {
    if (action.id == "org.tracectl.Tracing1.manage-other-users" &&
        subject.user == "tcsig-carol")
        return polkit.Result.YES;
});
"""
ADMIN_RULE_PATH = "/etc/polkit-1/rules.d/59-tracectl-test-signals.rules"

STATE_CHANGE = "PropertiesChanged"


def lifecycle(listener, path):
    """The signals of listener about path, as (member, detail)."""
    out = []
    for s in listener.signals:
        args = s["args"]
        if s["member"] == STATE_CHANGE and s["path"] == path:
            out.append((STATE_CHANGE, tuple(sorted(args[1].items())), tuple(args[2])))
        elif s["member"].startswith("Session") and args and args[0] == path:
            out.append((s["member"], None, None))
    return out


class Monitor:
    """tracectl monitor [--json] as user, its lines collected."""

    def __init__(self, svc, user, *args):
        self.proc = subprocess.Popen(svc._as(user) + [TRACECTL, "monitor", *args],
                                     env=svc.env(user), stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, cwd="/")
        svc.apps.append(self.proc)
        self.lines = []
        threading.Thread(target=lambda: self.lines.extend(self.proc.stdout),
                         daemon=True).start()

    def printed(self, text, timeout, about=""):
        """Whether a line with text (and about) is printed within timeout
        seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(text in line and about in line for line in self.lines):
                return True
            time.sleep(0.05)
        return False

    def wait_for(self, text, timeout=15, about=""):
        if not self.printed(text, timeout, about):
            raise AssertionError(f"tracectl monitor printed no {text!r} {about!r}: "
                                 f"{self.lines} {self.proc.poll()}")

    def forget(self):
        """Drops the lines printed so far."""
        del self.lines[:len(self.lines)]

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)
        check(self.proc.returncode == 0, f"tracectl monitor: {self.proc.returncode}")


def check_monitors(json_monitor, text_monitor, path):
    # A warm-up round's late lines may come first: look for this session's.
    json_monitor.wait_for("SessionDestroyed", about=path)
    text_monitor.wait_for("SessionDestroyed", about=path)
    json_monitor.stop()
    text_monitor.stop()
    objects = [json.loads(line) for line in json_monitor.lines]
    created = [o for o in objects
               if o["signal"] == "SessionCreated" and o["args"]["session"] == path]
    check(created and created[0]["args"] == {"session": path, "name": "work",
                                             "owner_uid": created[0]["args"]["owner_uid"]},
          f"monitor --json: {created}")
    changes = [o for o in objects if o["signal"] == "PropertiesChanged" and o["path"] == path]
    check({"State": "active"} in [o["changed"] for o in changes], f"monitor --json: {changes}")
    check(any(line.split()[1:3] == ["SessionStarted", f"session=objectpath '{path}'"]
              or line.split()[1:3] == ["SessionStarted", f"session='{path}'"]
              for line in text_monitor.lines), f"monitor: {text_monitor.lines}")


def consumer_of(svc, user):
    for pid in children(svc.proc.pid):
        with open(f"/proc/{pid}/comm") as f:
            name = f.read().strip()
        if name.startswith("tracectl-consum") and proc_status(pid, "Uid") == user.uid:
            return pid
    raise AssertionError(f"no consumer of {user.name} among {children(svc.proc.pid)}")


def check_problem(svc, alice, mine, root):
    """alice's consumer dies: her subscriber and root's learn the Problem."""
    svc.cli("create", "doomed", user=alice)
    svc.cli("enable-event", "-u", "example:*", user=alice)
    svc.cli("start", user=alice)
    path = mine.wait_member("SessionCreated", lambda s: s["args"][1] == "doomed")["args"][0]
    os.kill(consumer_of(svc, alice), signal.SIGKILL)
    problem = mine.wait_member("ProblemChanged", lambda s: s["args"][0] == path)
    check("consumer" in problem["args"][1], f"{problem}")
    change = mine.wait_member("PropertiesChanged",
                              lambda s: s["path"] == path and "Problem" in s["args"][1])
    check(change["args"][1]["Problem"] == problem["args"][1], f"{change}")
    root.wait_member("ProblemChanged", lambda s: s["args"][0] == path)
    return path


def test():
    installed = Installed()
    try:
        with tempfile.NamedTemporaryFile("w", suffix=".rules") as rule:
            rule.write(ADMIN_RULE)
            rule.flush()
            installed.install(rule.name, ADMIN_RULE_PATH)
        check_signals()
    finally:
        installed.restore()


def warm_up(svc, user, monitors, rounds=15):
    """A session of user created and destroyed, again until each of
    monitors has printed its end: `tracectl monitor` says nothing when it
    has subscribed, so a monitor that subscribes after a round's destroy
    sees the next one. Their lines are then forgotten."""
    for _ in range(rounds):
        svc.cli("create", "warmup", user=user)
        svc.cli("destroy", "warmup", user=user)
        if all(monitor.printed("SessionDestroyed", timeout=1) for monitor in monitors):
            break
    for monitor in monitors:
        monitor.wait_for("SessionDestroyed", timeout=1)
        monitor.forget()


def check_signals():
    with Service() as svc:
        alice = svc.add_user("tcsig-alice")
        bob = svc.add_user("tcsig-bob")
        json_monitor = Monitor(svc, alice, "--json")
        text_monitor = Monitor(svc, alice)
        bob_monitor = Monitor(svc, bob, "--json")
        # Before the listeners, which would see the warm-up sessions.
        warm_up(svc, alice, (json_monitor, text_monitor))
        warm_up(svc, bob, (bob_monitor,))
        spy = Listener(svc, mode="monitor")
        mine = Listener(svc, alice)
        others = Listener(svc, bob)
        idle_alice = Listener(svc, alice, mode="listen")
        idle_bob = Listener(svc, bob, mode="listen")
        root = Listener(svc)  # an administrator: sees every user's
        carol = Listener(svc, svc.add_user("tcsig-carol"))  # another

        svc.cli("create", "work", user=alice)
        created = mine.wait_member("SessionCreated", lambda s: s["args"][1] == "work")
        path, owner = created["args"][0], created["args"][2]
        check(owner == alice.uid, f"owner {owner} in {created}")
        svc.cli("enable-event", "-u", "example:*", user=alice)
        svc.cli("start", user=alice)
        app = svc.app("--count", "5", user=alice)
        registered = mine.wait_member("ApplicationRegistered",
                                      lambda s: s["args"][0] == app.pid)
        check(registered["args"][1] == alice.uid, f"{registered}")
        app.communicate(timeout=30)
        mine.wait_member("ApplicationGone", lambda s: s["args"][0] == app.pid)
        svc.cli("stop", user=alice)
        svc.cli("destroy", "work", user=alice)
        mine.wait_member("SessionDestroyed", lambda s: s["args"][0] == path)

        check_monitors(json_monitor, text_monitor, path)
        got = lifecycle(mine, path)
        log("alice's subscriber:", got)
        expected = [
            ("SessionCreated", None, None),
            (STATE_CHANGE, (), ("Channels",)),                       # enable-event
            (STATE_CHANGE, (("State", "active"),), ("Channels",)),  # start
            ("SessionStarted", None, None),
            (STATE_CHANGE, (("State", "inactive"),), ()),
            ("SessionStopped", None, None),
            ("SessionDestroyed", None, None),
        ]
        check(got == expected, f"alice's subscriber got {got}")
        for s in mine.signals:
            if s["member"] == STATE_CHANGE:
                check(s["args"][0] == "org.tracectl.Tracing1.Session", f"{s}")

        # Bob's own session is a marker: once his subscriber has it, it
        # has everything the service sent before.
        svc.cli("create", "marker", user=bob)
        others.wait_member("SessionCreated", lambda s: s["args"][1] == "marker")
        time.sleep(0.3)
        check(not any(path in str(s) or str(alice.uid) in str(s["args"])
                      for s in others.signals),
              f"bob's subscriber saw alice's: {others.signals}")
        check(others.members() == ["SessionCreated"], f"bob's: {others.signals}")
        bob_monitor.wait_for('"marker"')
        bob_monitor.stop()
        check(len(bob_monitor.lines) == 1, f"bob's tracectl monitor: {bob_monitor.lines}")
        check(mine.members("marker") == [], "alice's subscriber saw bob's session")
        check(idle_alice.signals == [] and idle_bob.signals == [],
              f"unsubscribed: {idle_alice.signals} {idle_bob.signals}")
        # Their last signal of alice's session delivered: the whole lifecycle is.
        for listener in (root, carol):
            listener.wait_member("SessionDestroyed", lambda s: s["args"][0] == path)
        check(lifecycle(root, path) == expected, f"root's subscriber: {lifecycle(root, path)}")
        check(lifecycle(carol, path) == expected, f"carol's: {lifecycle(carol, path)}")
        doomed = check_problem(svc, alice, mine, root)

        # Unsubscribed, alice's connection gets nothing more.
        mine.command("unsubscribe")
        before = len(mine.signals)
        svc.cli("create", "later", user=alice)
        svc.cli("create", "marker2", user=bob)
        others.wait_member("SessionCreated", lambda s: s["args"][1] == "marker2")
        time.sleep(0.3)
        check(len(mine.signals) == before, f"after Unsubscribe: {mine.signals[before:]}")
        check(not any(path in str(s) or doomed in str(s) or str(alice.uid) in str(s["args"])
                      for s in others.signals), f"bob's subscriber: {others.signals}")

        # Nothing broadcast; alice's signals went to her subscriber alone.
        service_names = {s["sender"] for s in mine.signals}
        check(len(service_names) == 1, f"senders {service_names}")
        sent = [s for s in spy.signals if s["sender"] in service_names]
        log(f"monitor: {len(sent)} signals from the service")
        check(sent, "the monitor saw no signal of the service")
        broadcast = [s for s in sent if not s["destination"]]
        check(not broadcast, f"broadcast: {broadcast}")
        about_alice = [s for s in sent if path in str(s["args"]) or s["path"] == path]
        # To alice's subscriber, her two monitors, root's and carol's, to
        # no one else.
        destinations = {s["destination"] for s in about_alice}
        check({mine.name, root.name, carol.name} <= destinations and
              len(destinations) == 5 and
              not destinations & {others.name, idle_alice.name, idle_bob.name},
              f"alice's signals went to {destinations}")
        for listener in (mine, others, idle_alice, idle_bob, spy, root, carol):
            listener.close()


run(test)
