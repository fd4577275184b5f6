#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tracectl as it ships, under a real systemd:

1. bus activation: with the service stopped, `tracectl list` by bob starts
   it; socket activation: an application started while the service is
   stopped starts it and is listed;
2. alice's consumer is tracectl-consumer@<uid>.service running with her
   uid (bob's starting at the same time), its main thread with the
   consumer's short slice where the kernel has custom slices (Linux 6.12); her trace directory is hers, 0700, files 0600; bob can neither
   read it nor see her session or application;
3. after its idle time with no session the service exits, and the next
   call brings it back;
4. the consumer unit of a user lands in user-UID.slice, and a per-user
   limit of /etc/tracectl/tracectld.conf is enforced by the service.
"""

import os
import signal
import stat
import subprocess
import tempfile

from sdlib import SystemdMachine, check, run_test, time, wait_for
from schedlib import CONSUMER_SLICE_NS, kernel_has_custom_slices, sched_slice_ns
from tclib import log


CONFIG = "/etc/tracectl/tracectld.conf"


def is_active(sd, unit):
    return sd.run("systemctl", "is-active", unit, check_ok=False).stdout.strip() == "active"


def main_pid(sd, unit):
    return int(sd.run("systemctl", "show", "-p", "MainPID", "--value", unit).stdout.strip())


def proc_uid(sd, pid):
    status = sd.run("cat", f"/proc/{pid}/status").stdout
    return int(next(line for line in status.splitlines() if line.startswith("Uid:")).split()[1])


def session_thread_slice(sd, pid):
    """The EEVDF slice, ns, of the session thread ("tc-session", which
    waits for the session's wake-ups) of a consumer of the namespace (its
    PID there)."""
    tids = sd.run("sh", "-c", f"grep -lx tc-session /proc/{pid}/task/*/comm").stdout.split()
    check(tids, f"the consumer (pid {pid}) has no session thread")
    return sched_slice_ns(sd.run("cat", tids[0].replace("/comm", "/sched")).stdout)


def test():
    with SystemdMachine() as sd:
        alice = sd.add_user("tctest-alice", groups=("tracing",))
        bob = sd.add_user("tctest-bob")
        # 4. A per-user limit in the configuration file.
        with tempfile.NamedTemporaryFile("w", suffix=".conf") as conf:
            conf.write("[Limits]\nMaxSessions=1\n")
            conf.flush()
            if not os.path.isdir(os.path.dirname(CONFIG)):
                sd.created_dirs.append(os.path.dirname(CONFIG))
            sd.installed.install(conf.name, CONFIG)
        # A short idle time, so the test can see the service leave.
        sd.add_dropin("tracectld.service", "[Service]\nExecStart=\n"
                      "ExecStart=/usr/local/libexec/tracectld --idle-timeout=3 "
                      f"--config={CONFIG}\n")
        sd.run("systemctl", "start", "tracectld.socket")
        check(not is_active(sd, "tracectld.service"), "the service runs before any use")

        # 1. Bus activation by an unprivileged user.
        listed = sd.tracectl_json("list", user=bob)
        check(listed == {"sessions": []}, f"bob's list: {listed}")
        check(is_active(sd, "tracectld.service"), "tracectl list did not activate the service")
        tracectld = main_pid(sd, "tracectld.service")
        check(proc_uid(sd, tracectld) != 0, "tracectld runs as root")
        sd.run("systemctl", "stop", "tracectld.service")

        # 1. Socket activation by an application.
        app = sd.popen("tracectl-example-app", "--pause", "--count", "5", user=alice)
        check(app.stdout.readline().strip() == "ready", "the example app did not start")
        wait_for(lambda: is_active(sd, "tracectld.service"), 10,
                 "the application to activate the service")
        wait_for(lambda: _listed_by_name(sd, alice), 10, "alice's application to be listed")

        # 2. Alice traces; her consumer is a unit running as her. Bob's
        # starts at the same time: both connect to the one socket, and
        # each start gets its own user's connection.
        bob_create = sd.popen("tracectl", "create", "mine", user=bob)
        sd.run("tracectl", "create", "work", user=alice)
        _, err = bob_create.communicate(timeout=60)
        check(bob_create.returncode == 0, f"bob's create failed: {err}")
        check(is_active(sd, f"tracectl-consumer@{bob.uid}.service"),
              "bob's consumer is not running")
        sd.run("tracectl", "destroy", "mine", user=bob)
        sd.run("tracectl", "enable-event", "-u", "example:*", user=alice)
        sd.run("tracectl", "start", user=alice)
        unit = f"tracectl-consumer@{alice.uid}.service"
        check(is_active(sd, unit), f"{unit} is not running")
        check(proc_uid(sd, main_pid(sd, unit)) == alice.uid, "the consumer is not alice's")
        # 4. Her consumer and its buffers are charged to her slice.
        user_slice = f"user-{alice.uid}.slice"
        shown = sd.run("systemctl", "show", "-p", "Slice", "--value", unit).stdout.strip()
        check(shown == user_slice, f"{unit} is in {shown}, not {user_slice}")
        cgroup = sd.run("systemctl", "show", "-p", "ControlGroup", "--value", unit).stdout
        check(f"/{user_slice}/" in cgroup, f"{unit}'s control group: {cgroup}")
        # 4. Her second session is over MaxSessions=1.
        refused = sd.run("tracectl", "create", "second", user=alice, check_ok=False)
        check(refused.returncode != 0 and "'MaxSessions' of 1" in refused.stderr and
              CONFIG in refused.stderr, f"alice's second session: {refused.stderr}")
        if kernel_has_custom_slices():
            consumer_slice = session_thread_slice(sd, main_pid(sd, unit))
            check(consumer_slice == CONSUMER_SLICE_NS,
                  f"the consumer unit's session thread's slice is {consumer_slice} ns, not "
                  f"{CONSUMER_SLICE_NS}")
            log(f"{unit}: session thread slice {consumer_slice} ns")
        check(_apps_count(sd, bob) == 0, "bob sees alice's application")
        check(sd.tracectl_json("list", user=bob)["sessions"] == [], "bob sees alice's session")
        # Popen holds nsenter, which does not forward signals: signal the
        # application itself (the host sees the namespace's processes).
        pid = subprocess.run(["pgrep", "-n", "-u", alice.name, "-f", "tracectl-example-app"],
                             capture_output=True, text=True).stdout.strip()
        check(pid, "the example application is gone")
        os.kill(int(pid), signal.SIGUSR1)
        app.communicate(timeout=60)
        sd.run("tracectl", "stop", user=alice)
        trace = sd.tracectl_json("status", user=alice)["output_directory"]
        check(trace.startswith(alice.home), f"trace outside alice's home: {trace}")
        _check_private(trace, alice.uid)
        denied = sd.run("ls", trace, user=bob, check_ok=False)
        check(denied.returncode != 0, "bob can read alice's trace directory")
        text = sd.run("babeltrace2", trace, user=alice).stdout
        check(text.count("example:all_types") == 5, f"alice's trace: {text[:500]}")

        # 3. Idle exit, and back on the next call.
        sd.run("tracectl", "destroy", "work", user=alice)
        wait_for(lambda: not is_active(sd, "tracectld.service"), 20,
                 "the service to exit when idle")
        sd.run("tracectl", "list", user=bob)
        check(is_active(sd, "tracectld.service"), "the next call did not bring the service back")


def _apps_count(sd, user):
    return len(sd.tracectl_json("list", "-u", user=user)["applications"])


def _listed_by_name(sd, user):
    return any(app["process_name"] == "tracectl-exampl"
               for app in sd.tracectl_json("list", "-u", user=user)["applications"])


def _check_private(root, uid):
    for directory, dirs, files in os.walk(root):
        for name in dirs + files:
            st = os.stat(os.path.join(directory, name))
            mode = stat.S_IMODE(st.st_mode)
            check(st.st_uid == uid, f"{name} is owned by {st.st_uid}")
            check(mode == (0o700 if name in dirs else 0o600), f"{name} has mode {mode:o}")


run_test(test)
