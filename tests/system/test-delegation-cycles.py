#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A delegated user cannot make the delegated unit's processes grow: alice,
granted tctest-cycles.service by a polkit rule, makes and destroys
CYCLES sessions that track the unit (a filtered enabling, a context,
start, stop, destroy) over D-Bus, while the unit's traced application,
of another user, waits. Its resident memory, mappings and descriptors
after all the cycles stay within a small margin of what they were after
the first FIRST_CYCLES (libtracectl-ust frees what a session made in it
when the session goes). A session started once shows that the cycles
reach the application: its buffers are mapped while it records."""

import os
import pwd
import subprocess
import tempfile
import time

from sdlib import SystemdMachine, check, run_test, wait_for
from tclib import log

ACTION = "org.tracectl.Tracing1.trace-unit"
UNIT = "tctest-cycles.service"
SERVICE_USER = "tctest-cyclesvc"
RULES = "/etc/polkit-1/rules.d/50-tctest-cycles.rules"
RULE = """polkit.addRule(function(action, subject) {
    if (action.id == "%s" && action.lookup("unit") == "%s" &&
        subject.user == "tctest-alice")
        return polkit.Result.YES;
});
""" % (ACTION, UNIT)
SERVICE = f"""[Service]
User={SERVICE_USER}
ExecStart=/usr/local/bin/tracectl-example-app --pause --count 1
"""
FIRST_CYCLES = 50
CYCLES = 1000
# What the application may hold more at the end than after the first
# cycles: the allocator's noise (AddressSanitizer's quarantine keeps what
# is freed for a while: a few kilobytes a cycle). One kept buffer a cycle
# adds two mappings, two descriptors and, its pages populated, megabytes.
RSS_MARGIN_KB = 8192
MAPS_MARGIN = 16
FDS_MARGIN = 2

# Runs as alice inside the machine: one D-Bus connection for every call
# (the CLI would start a process for each), WORKERS sessions under way at
# a time, since each call mostly waits (polkit, the consumer, the
# application). Arguments: the first cycle's number, the number of cycles,
# and "hold" to leave one session started (its object path printed) or
# "cycle" (the mean time of each call printed), or "destroy PATH".
WORKERS = 8
CLIENT = r"""
import sys
import threading
import time
from gi.repository import Gio, GLib

bus = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)
NAME, MANAGER = "org.tracectl.Tracing1", "/org/tracectl/Tracing1"
spent = {}
lock = threading.Lock()


def call(path, interface, method, args=None, reply=None):
    started = time.monotonic()
    result = bus.call_sync(NAME, path, NAME + "." + interface, method, args,
                           GLib.VariantType(reply) if reply else None,
                           Gio.DBusCallFlags.NONE, 60000, None)
    with lock:
        spent.setdefault(method, []).append(time.monotonic() - started)
    return result


def session(name):
    path = call(MANAGER, "Manager", "CreateSession", GLib.Variant("(ss)", (name, "")),
                "(o)").unpack()[0]
    call(path, "Session", "EnableEventWithOptions",
         GLib.Variant("(sssa{sv})", ("ust", "", "example:*",
                                     {"filter": GLib.Variant("s", "seq >= 0")})))
    call(path, "Session", "AddContext", GLib.Variant("(ssas)", ("ust", "", ["vpid", "vtid"])))
    call(path, "Session", "TrackUnit", GLib.Variant("(s)", (sys.argv[-1],)))
    call(path, "Session", "Start")
    return path


def destroy(path):
    call(path, "Session", "Stop")
    call(MANAGER, "Manager", "DestroySession", GLib.Variant("(o)", (path,)))


def worker(cycles, failures):
    try:
        for cycle in cycles:
            destroy(session("cycle%d" % cycle))
    except Exception as e:
        failures.append(e)


if sys.argv[1] == "destroy":
    destroy(sys.argv[2])
    sys.exit(0)
first, count = int(sys.argv[1]), int(sys.argv[2])
if sys.argv[3] == "hold":
    print(session("cycle%d" % first))
    sys.exit(0)
failures = []
workers = [threading.Thread(target=worker, args=(range(first + i, first + count, @WORKERS@), failures))
           for i in range(@WORKERS@)]
for w in workers:
    w.start()
for w in workers:
    w.join()
if failures:
    sys.exit("cycles failed: %r" % failures[:3])
print(", ".join("%s %.1f ms" % (m, 1000 * sum(t) / len(t)) for m, t in spent.items()))
""".replace("@WORKERS@", str(WORKERS))


def install_text(sd, text, path):
    with tempfile.NamedTemporaryFile("w") as f:
        f.write(text)
        f.flush()
        sd.installed.install(f.name, path)
    os.chmod(path, 0o644)


def app_pid():
    out = subprocess.run(["pgrep", "-n", "-u", SERVICE_USER, "-f", "tracectl-example-app"],
                         capture_output=True, text=True).stdout.strip()
    check(out, f"no tracectl-example-app of {SERVICE_USER}")
    return int(out)


# The library frees what the last commands removed once they have been
# quiet for a few milliseconds (probes/lib/tc-ust-listener.c).
RECLAIM_WAIT_S = 0.5


def holdings(pid):
    """(resident kB, mappings, descriptors) of pid, once the library had
    time to free what the last commands removed."""
    time.sleep(RECLAIM_WAIT_S)
    with open(f"/proc/{pid}/status") as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    with open(f"/proc/{pid}/maps") as f:
        maps = sum(1 for _ in f)
    return rss, maps, len(os.listdir(f"/proc/{pid}/fd"))


def client(sd, user, *args):
    return sd.run("/usr/bin/python3", "-c", CLIENT, *map(str, args), UNIT, user=user,
                  timeout=300).stdout.strip()


def test():
    created_user = False
    try:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell",
                        "/usr/sbin/nologin", SERVICE_USER], check=True)
        created_user = True
        service_uid = pwd.getpwnam(SERVICE_USER).pw_uid
        with SystemdMachine() as sd:
            install_text(sd, RULE, RULES)
            install_text(sd, SERVICE, f"/etc/systemd/system/{UNIT}")
            alice = sd.add_user("tctest-alice")
            sd.run("systemctl", "daemon-reload")
            sd.run("systemctl", "start", "tracectld.socket")
            sd.run("systemctl", "start", UNIT)
            wait_for(lambda: service_uid in [app["uid"] for app in sd.tracectl_json(
                "list", "-u")["applications"]], 20, "the unit's application to register")
            pid = app_pid()
            # A session kept all along keeps alice's consumer running.
            sd.run("tracectl", "create", "keep", user=alice)
            idle = holdings(pid)
            held = client(sd, alice, 0, 1, "hold")
            recording = holdings(pid)
            client(sd, alice, "destroy", held)
            log(f"the application (rss kB, maps, fds): idle {idle}, while a session "
                f"tracking the unit records {recording}")
            check(recording[1] > idle[1] and recording[2] > idle[2],
                  "a session tracking the unit mapped nothing in its application")

            started = time.monotonic()
            means = client(sd, alice, 1, FIRST_CYCLES, "cycle")
            log(f"mean time of each call: {means}")
            first = holdings(pid)
            client(sd, alice, 1 + FIRST_CYCLES, CYCLES - FIRST_CYCLES, "cycle")
            last = holdings(pid)
            log(f"{CYCLES} sessions in {time.monotonic() - started:.1f} s; the application "
                f"(rss kB, maps, fds) after {FIRST_CYCLES}: {first}, after {CYCLES}: {last}")
            check(os.path.exists(f"/proc/{pid}"), "the unit's application is gone")
            check(last[0] <= first[0] + RSS_MARGIN_KB,
                  f"its resident memory grew by {last[0] - first[0]} kB")
            check(last[1] <= first[1] + MAPS_MARGIN,
                  f"its mappings grew by {last[1] - first[1]}")
            check(last[2] <= first[2] + FDS_MARGIN,
                  f"its descriptors grew by {last[2] - first[2]}")
            sd.run("tracectl", "destroy", "keep", user=alice)
            os.kill(pid, 10)
    finally:
        if created_user:
            subprocess.run(["userdel", SERVICE_USER], check=False)


run_test(test)
