# SPDX-License-Identifier: LGPL-2.1-or-later
"""systemd's busctl against a tclib.Service, as a user would call the
service without the CLI."""

import subprocess

from tclib import Result

MANAGER = ("/org/tracectl/Tracing1", "org.tracectl.Tracing1.Manager")
SESSION_INTERFACE = "org.tracectl.Tracing1.Session"


def busctl(svc, path, interface, method, signature="", *args, user=None):
    """busctl call on the service's bus, as user (root by default)."""
    command = ["busctl", "--system", "--no-pager", "call", "org.tracectl.Tracing1", path,
               interface, method]
    if signature:
        command += [signature, *[str(a) for a in args]]
    proc = subprocess.run(svc._as(user) + command, env=svc.env(user), capture_output=True,
                          text=True, timeout=60)
    return Result(proc)


def manager_call(svc, method, signature="", *args, user=None):
    return busctl(svc, *MANAGER, method, signature, *args, user=user)


def session_call(svc, path, method, signature="", *args, user=None):
    return busctl(svc, path, SESSION_INTERFACE, method, signature, *args, user=user)


def session_path(svc, name, user=None):
    """The object path of user's session name, by FindSession."""
    result = manager_call(svc, "FindSession", "s", name, user=user)
    if result.returncode != 0:
        raise AssertionError(f"FindSession {name} failed: {result}")
    # busctl prints: o "/org/tracectl/Tracing1/session/1"
    return result.stdout.split('"')[1]
