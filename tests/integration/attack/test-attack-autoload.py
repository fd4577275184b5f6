#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""One user's auto-loaded sessions cannot hold back another's. mallory
has twelve session files in the system's directory (named to come first)
and two in her own directory, each a session recording into a directory
on a FUSE server of hers whose mkdir never returns: each of her sessions
holds her consumer until the service's reply timeout. While her sessions
still load, bob's and root's sessions of the system's directory are
listed and answer commands within a few seconds of the service's start,
and carol, who logs in after mallory (logind's UserNew, from a stand-in
for logind on the test's bus), gets the session of her own directory
within a few seconds of her login: each owner's sessions are loaded on a
thread of that owner's and published as soon as each is loaded."""

import os
import re
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

import sessionxmllib
from fuselib import SlowDirectory, require_fuse
from logindlib import FakeLogind
from tclib import Service, check, log, run, wait_for

MALLORY_FILES = 12
MALLORY_HOME_FILES = 2
# The service's start, a consumer started for the owner and its answers;
# behind even one of mallory's sessions (a reply timeout: 10 s) it is more.
BOUND_S = 6.0
COMMAND_BOUND_S = 2.0

UST = sessionxmllib.ust_domain([sessionxmllib.channel([sessionxmllib.event("example:*")],
                                                mode="DISCARD", output_type="MMAP")])


def install(directory, file_name, name, owner, output=None):
    sessionxmllib.install(directory, file_name, sessionxmllib.session(name, [UST], output=output),
                       owner)


def names(svc, user):
    """user's sessions: each one listed has its object on the bus (the
    service lists a session once it is exported, not when auto-load
    creates it, so that a command on a listed session finds it)."""
    sessions = svc.cli_json("list", user=user, timeout=60)["sessions"]
    for s in sessions:
        check(exported(svc, s["path"]), f"session {s['name']} listed before its object exists")
    return {s["name"] for s in sessions}


def exported(svc, path):
    return svc.gdbus("--object-path", path, "--method",
                     "org.freedesktop.DBus.Properties.GetAll",
                     "org.tracectl.Tracing1.Session").returncode == 0


def listed_within(svc, user, name, since, what):
    """Seconds from since to name among user's sessions (BOUND_S at most),
    then a command on it, timed."""
    wait_for(lambda: name in names(svc, user), BOUND_S - (time.monotonic() - since),
             f"{what} within {BOUND_S} s")
    listed = time.monotonic() - since
    _, took = svc.timed_cli("stop", name, user=user, timeout=60)
    log(f"{what}: listed {listed:.2f} s after, stopped in {took:.2f} s")
    check(took < COMMAND_BOUND_S, f"{what}: stop took {took:.2f} s")
    return listed


def mallory_done(svc):
    """How many of mallory's sessions the service has loaded or given up."""
    with open(svc.log_path, errors="replace") as f:
        text = f.read()
    return len(re.findall(r"Auto-load: '[^']*hang-\d+\.lttng': session", text))


def test():
    require_fuse()
    top = tempfile.mkdtemp(prefix="tracectl-autoload-attack-")
    try:
        attack(top)
    finally:
        shutil.rmtree(top, ignore_errors=True)


def attack(top):
    os.chmod(top, 0o755)
    directory = os.path.join(top, "sessions")
    os.mkdir(directory, 0o755)
    svc = Service(args=["--session-dir", directory])
    mallory = svc.add_user("tctest-hmallory")
    bob = svc.add_user("tctest-hbob")
    carol = svc.add_user("tctest-hcarol")
    hung = SlowDirectory(os.path.join(top, "hung"), mallory, 300, ["mkdir"])
    try:
        for i in range(MALLORY_FILES):
            install(directory, f"a-hang-{i:02}.lttng", f"hang{i}", mallory.uid,
                    f"{hung.mountpoint}/t{i}")
        own = sessionxmllib.user_directory(mallory)
        for i in range(MALLORY_HOME_FILES):
            install(own, f"hang-{MALLORY_FILES + i:02}.lttng", f"hang{MALLORY_FILES + i}",
                    mallory.uid, f"{hung.mountpoint}/t{MALLORY_FILES + i}")
        install(directory, "b-bob.lttng", "bobs", bob.uid)
        install(directory, "c-root.lttng", "roots", 0, os.path.join(top, "root-out"))
        install(sessionxmllib.user_directory(carol), "carol.lttng", "carols", carol.uid)
        started = time.monotonic()
        with svc:
            logind = FakeLogind(svc)
            logind.user_new(mallory)
            login = time.monotonic()
            logind.user_new(carol)
            bob_s = listed_within(svc, bob, "bobs", started, "bob's session")
            root_s = listed_within(svc, None, "roots", started, "root's session")
            carol_s = listed_within(svc, carol, "carols", login, "carol's session after login")
            done = mallory_done(svc)
            log(f"meanwhile {done} of mallory's {MALLORY_FILES + MALLORY_HOME_FILES} "
                f"sessions were loaded or given up")
            check(done < MALLORY_FILES, "mallory's sessions did not hold her loading: "
                  "no attack")
            log(f"bob {bob_s:.2f} s, root {root_s:.2f} s after the start; carol "
                f"{carol_s:.2f} s after her login")
            logind.close()
            # Her mkdirs fail from now on: the service stops without
            # waiting for the rest.
            hung.close()
            check(svc.alive(), "tracectld died")
    finally:
        hung.close()


run(test)
