#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Auto-loading at login, under a real systemd with systemd-logind: alice
has a session file in her ~/.config/tracectl/sessions/ but is not logged in
when tracectld starts, so it loads nothing of hers; when logind announces
her (`loginctl enable-linger` creates her User object, hence UserNew), the
running service has her directory read and her session appears, owned by her.
The service runs as the shipped unit has it (its own user, ProtectHome=yes)
and alice's home is 0700, as Debian makes homes: the service cannot read
it, her consumer (tracectl-consumer@UID.service, running as her) reads it
and hands the files over. bob, logged in too, has no session directory:
the consumer started to read it goes away again.
Her directory is read once per service lifetime: after she destroys the
session, her next appearance (linger off, then on) does not bring it back."""

import os
import re

from sdlib import SystemdMachine, check, run_test, time, wait_for
import sessionxmllib  # found through the path sdlib sets

# Loaded but not started: the test checks it exists, not what it records.
CHANNEL = sessionxmllib.channel([sessionxmllib.event("example:*")], mode="DISCARD",
                             output_type="MMAP")


def own_directory(user):
    """user's ~/.config/tracectl/sessions, theirs at every step."""
    path = user.home
    for part in (".config", "tracectl", "sessions"):
        path = os.path.join(path, part)
        os.makedirs(path, exist_ok=True)
        os.chown(path, user.uid, user.uid)
        os.chmod(path, 0o700)
    return path


def sessions(sd, user):
    return {s["name"]: s for s in sd.tracectl_json("list", user=user)["sessions"]}


def logged_out(sd, user):
    """Whether logind no longer lists user. A listing that races with a
    User object going away fails ("Unknown object"): not yet."""
    listing = sd.run("loginctl", "list-users", "--no-legend", check_ok=False)
    return listing.returncode == 0 and user.name not in listing.stdout


def set_linger(sd, user, on):
    sd.run("loginctl", "enable-linger" if on else "disable-linger", user.name)


def unit_state(sd, unit):
    return sd.run("systemctl", "is-active", unit, check_ok=False).stdout.strip()


def service_journal(sd, started):
    """This run's service only (see test())."""
    pid = sd.run("systemctl", "show", "-p", "MainPID", "--value",
                 "tracectld.service").stdout.strip()
    sd.run("journalctl", "--sync", check_ok=False)
    return sd.run("journalctl", "--no-pager", f"--since=@{started}", f"_PID={pid}",
                  check_ok=False).stdout


def check_no_directory(sd, bob, started):
    """bob logs in with no session directory: the consumer started to
    read it finds nothing, and goes away as he has no session."""
    os.chmod(bob.home, 0o700)
    set_linger(sd, bob, True)
    retired = re.compile(rf"Consumer of uid {bob.uid} \(pid \d+\) retired")
    wait_for(lambda: retired.search(service_journal(sd, started)), 20,
             "bob's consumer to be let go")
    unit = f"tracectl-consumer@{bob.uid}.service"
    wait_for(lambda: unit_state(sd, unit) != "active", 20, f"{unit} to stop")
    check(sessions(sd, bob) == {}, f"bob has sessions: {sessions(sd, bob)}")


def test():
    # The namespace's journal is the host's, and pids repeat from one
    # namespace to the next: only entries since this test started count.
    started = int(time.time()) - 1
    with SystemdMachine() as sd:
        alice = sd.add_user("tctest-alice")
        bob = sd.add_user("tctest-bob")
        try:
            check_login(sd, alice, started)
            check_no_directory(sd, bob, started)
        finally:
            for user in (alice, bob):
                # The linger flag is a file on the host's file system.
                linger_file = f"/var/lib/systemd/linger/{user.name}"
                sd.run("loginctl", "disable-linger", user.name, check_ok=False)
                if os.path.exists(linger_file):
                    os.unlink(linger_file)


def check_login(sd, alice, started):
    name = f"login-{os.getpid()}"
    path = sessionxmllib.install(own_directory(alice), "login.lttng",
                              sessionxmllib.session(name, [sessionxmllib.ust_domain([CHANNEL])],
                                                 started=False),
                              alice.uid, group=alice.uid, mode=0o600)
    # As Debian makes homes; only alice (and so her consumer) may enter.
    os.chmod(alice.home, 0o700)

    sd.run("systemctl", "start", "systemd-logind.service")
    active = sd.run("systemctl", "is-active", "systemd-logind.service",
                    check_ok=False).stdout.strip()
    check(active == "active", f"systemd-logind in the namespace is {active}")
    users = sd.run("loginctl", "list-users", "--no-legend").stdout
    check(alice.name not in users, f"alice is logged in already: {users}")

    sd.run("systemctl", "start", "tracectld.socket")
    # Activates the service; its start-time load runs now, without alice.
    sd.run("tracectl", "list")
    time.sleep(2)
    check(name not in sessions(sd, alice), "alice's session loaded before she logged in")

    set_linger(sd, alice, True)
    wait_for(lambda: name in sessions(sd, alice), 20.0, "alice's session at her login")
    session = sessions(sd, alice)[name]
    check(session.get("owner_uid") == alice.uid, f"not alice's: {session}")
    check(name in sd.run("tracectl", "list").stdout, "root does not see alice's session")
    unit = f"tracectl-consumer@{alice.uid}.service"
    check(unit_state(sd, unit) == "active", f"{unit} does not serve her session")

    # Once per service lifetime: destroyed, it stays destroyed.
    sd.run("tracectl", "destroy", name, user=alice)
    set_linger(sd, alice, False)
    wait_for(lambda: logged_out(sd, alice), 20, "alice's User object to go")
    set_linger(sd, alice, True)
    time.sleep(3)
    check(name not in sessions(sd, alice), "alice's directory was read a second time")
    journal = service_journal(sd, started)
    check(journal.count(f"uid {alice.uid} logged in") == 1,
          f"alice's directory read other than once: {journal[-3000:]}")


run_test(test)
