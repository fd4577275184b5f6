#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The permission matrix (README.md, Authorization) under a real systemd
and polkitd, one assertion per cell: {create, list, start, stop,
destroy, enable user events, enable kernel events, list other users'
applications, act on another user's session} x {root, alice (in
'tracing'), bob}; root's own sessions are refused while the service runs
as the tracectl user (they would need a consumer running as root).
Kernel events are accepted from an authorized caller (after the root
helper, started on demand, answered), refused to an unauthorized one
with PermissionDenied naming the group. Also: the API with busctl alone,
and a killed consumer reported by `tracectl status`. A uprobe is placed
by the helper, run by systemd, with its owner's rights: on alice's own
program, not on a root-only one."""

import os
import pwd
import shutil

from sdlib import BUILD, SystemdMachine, check, run_test, wait_for

DENIED = "PermissionDenied"
MANAGER = ["org.tracectl.Tracing1", "/org/tracectl/Tracing1", "org.tracectl.Tracing1.Manager"]


def session_path(sd, user, name):
    out = sd.run("busctl", "--system", "call", *MANAGER, "FindSession", "s", name,
                 user=user).stdout
    return out.split('"')[1]


def call_session(sd, user, path, method, *args):
    """gdbus, which prints the D-Bus error name of a failure."""
    return sd.run("gdbus", "call", "--system", "--dest", "org.tracectl.Tracing1",
                  "--object-path", path, "--method", f"org.tracectl.Tracing1.Session.{method}",
                  *args, user=user, check_ok=False)


def busctl_session(sd, user, path, method, *args):
    return sd.run("busctl", "--system", "call", "org.tracectl.Tracing1", path,
                  "org.tracectl.Tracing1.Session", method, *args, user=user, check_ok=False)


def example_app_listed(sd, user):
    return any(app["process_name"] == "tracectl-exampl"
               for app in sd.tracectl_json("list", "-u", user=user)["applications"])


def own_session_cells(sd, who, user):
    """create, list, enable user events, start, stop, destroy: allowed."""
    name = f"s-{who}"
    sd.run("tracectl", "create", name, user=user)
    check(name in [s["name"] for s in sd.tracectl_json("list", user=user)["sessions"]],
          f"{who}: list")
    sd.run("tracectl", "enable-event", "-u", "example:*", "-s", name, user=user)
    sd.run("tracectl", "start", name, user=user)
    sd.run("tracectl", "stop", name, user=user)
    kernel = sd.run("tracectl", "enable-event", "-k", "sched:sched_switch", "-s", name,
                    user=user, check_ok=False)
    return name, kernel


class Account:
    """A system account for sd.run(user=...)."""
    def __init__(self, name):
        self.name = name


def root_consumer_cells(sd):
    """root's consumer writes with root's rights: tracectld, which runs as
    the tracectl user, may not have it started, so root's sessions are
    refused with the reason; and the tracectl user cannot start
    tracectl-consumer@0.service itself."""
    result = sd.run("tracectl", "create", "s-root", check_ok=False)
    check(result.returncode != 0 and "only when tracectld runs as root" in result.stderr,
          f"root: create: {result}")
    result = sd.run("systemctl", "start", "tracectl-consumer@0.service",
                    user=Account("tracectl"), check_ok=False)
    check(result.returncode != 0, f"the tracectl user started root's consumer: {result}")
    active = sd.run("systemctl", "is-active", "tracectl-consumer@0.service",
                    check_ok=False).stdout.strip()
    check(active != "active", f"tracectl-consumer@0.service is {active}")


def uprobes_as_owner(sd, alice):
    """The helper's unit keeps what opening a file as its owner needs."""
    program = os.path.join(alice.home, "prog")
    shutil.copyfile(os.path.join(BUILD, "client", "tracectl"), program)
    os.chmod(program, 0o755)
    os.chown(program, alice.uid, pwd.getpwnam(alice.name).pw_gid)
    secret = "/var/lib/tracectl-test-secret"
    shutil.copyfile(program, secret)
    os.chmod(secret, 0o700)
    try:
        sd.run("tracectl", "create", "up", user=alice)
        sd.run("tracectl", "enable-event", "-k", "--userspace-probe", f"{program}:main", "mine",
               "-s", "up", user=alice)
        sd.run("tracectl", "start", "up", user=alice)
        refused = sd.run("tracectl", "enable-event", "-k", "--userspace-probe",
                         f"{secret}:main", "theirs", "-s", "up", user=alice, check_ok=False)
        check(refused.returncode != 0 and "may not read" in refused.stderr,
              f"alice: uprobe on a root-only file: {refused.stderr}")
        sd.run("tracectl", "stop", "up", user=alice)
        sd.run("tracectl", "destroy", "up", user=alice)
    finally:
        os.unlink(secret)


def test():
    with SystemdMachine() as sd:
        alice = sd.add_user("tctest-alice", groups=("tracing",))
        bob = sd.add_user("tctest-bob")
        sd.run("systemctl", "start", "tracectld.socket", "tracectl-kernel-helper.socket")
        users = {"alice": alice, "bob": bob}
        sessions, kernel = {}, {}
        for who, user in users.items():
            sessions[who], kernel[who] = own_session_cells(sd, who, user)
        root_consumer_cells(sd)

        # enable kernel events
        # (the CLI prints the message; the error names are checked with busctl below)
        for who in ("alice",):
            check(kernel[who].returncode == 0, f"{who}: kernel: {kernel[who].stderr}")
            # This machine records user space only from here on.
            sd.run("tracectl", "disable-event", "-k", "sched:sched_switch", "-s",
                   sessions[who], user=users[who])
        check(kernel["bob"].returncode != 0 and "'tracing' group" in kernel["bob"].stderr,
              f"bob: kernel: {kernel['bob'].stderr}")
        # The root helper was started on demand by the authorized requests,
        # runs as root, and nobody but root and tracectld may reach it.
        started = sd.run("systemctl", "show", "-p", "ExecMainStartTimestampMonotonic",
                         "--value", "tracectl-kernel-helper.service").stdout.strip()
        check(started not in ("", "0"), "tracectl-kernel-helper.service was never started")
        probe = sd.run("python3", "-c",
                       "import socket; s=socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET);"
                       " s.connect('/run/tracectl/kernel-helper.sock')",
                       user=bob, check_ok=False)
        check(probe.returncode != 0 and "Permission denied" in probe.stderr,
              f"bob reached the kernel helper: {probe.stderr}")
        uprobes_as_owner(sd, alice)

        # list other users' applications
        alice_app = sd.popen("tracectl-example-app", "--pause", user=alice)
        check(alice_app.stdout.readline().strip() == "ready", "alice's app did not start")
        wait_for(lambda: example_app_listed(sd, alice), 10, "alice's application to register")
        check(example_app_listed(sd, None), "root: does not see alice's application")
        check(not example_app_listed(sd, bob), "bob: sees alice's application")
        alice_app.kill()

        # act on another user's session
        alice_path = session_path(sd, alice, sessions["alice"])
        bob_path = session_path(sd, bob, sessions["bob"])
        result = call_session(sd, bob, alice_path, "Start")
        check(result.returncode != 0 and DENIED in result.stderr, f"bob on alice's: {result}")
        result = call_session(sd, alice, bob_path, "Start")
        check(result.returncode != 0 and DENIED in result.stderr, f"alice on bob's: {result}")
        result = call_session(sd, None, alice_path, "Start")
        check(result.returncode == 0, f"root on alice's: {result.stderr}")
        result = call_session(sd, None, alice_path, "Stop")
        check(result.returncode == 0, f"root stopping alice's: {result.stderr}")

        # The API with busctl alone.
        introspection = sd.run("busctl", "--system", "introspect", "org.tracectl.Tracing1",
                               "/org/tracectl/Tracing1", user=bob).stdout
        check(".CreateSession" in introspection, "introspection lacks CreateSession")
        created = sd.run("busctl", "--system", "call", *MANAGER, "CreateSession", "ss", "viabus",
                         "", user=bob).stdout
        path = created.split('"')[1]
        check(busctl_session(sd, bob, path, "EnableEvent", "sss", "ust", "",
                             "example:*").returncode == 0, "EnableEvent over busctl")
        check(busctl_session(sd, bob, path, "Start").returncode == 0, "Start over busctl")
        check(busctl_session(sd, bob, path, "Stop").returncode == 0, "Stop over busctl")

        for who in ("alice", "bob"):
            path = session_path(sd, users[who], sessions[who])
            result = call_session(sd, users[who], path, "EnableEvent", "kernel", "",
                                  "sched:sched_switch")
            if who == "bob":
                check(DENIED in result.stderr, f"bob: kernel over busctl: {result.stderr}")
                continue
            check(result.returncode == 0, f"alice: kernel over busctl: {result.stderr}")
            call_session(sd, users[who], path, "DisableEvent", "kernel", "",
                         "sched:sched_switch")

        # A killed consumer is reported.
        sd.run("tracectl", "start", sessions["alice"], user=alice)
        sd.run("systemctl", "kill", "--signal=KILL", f"tracectl-consumer@{alice.uid}.service")

        def reported():
            return sd.tracectl_json("list", sessions["alice"], user=alice)["problem"] is not None
        wait_for(reported, 10, "tracectl to report the dead consumer")

        # destroy, every user their own.
        for who, user in users.items():
            sd.run("tracectl", "destroy", sessions[who], user=user)
        sd.run("tracectl", "destroy", "viabus", user=bob)


run_test(test)
