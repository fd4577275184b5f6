#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tracectl's exit statuses tell failures apart (docs/json.md): 2 for a
command line it rejects, 3 for a session that is not there (another
user's included: it is not visible), 4 when polkit refuses, 5 when the
service cannot be reached (no bus, or no tracectld on the bus), 6 when
some of several operations failed; with --json, each failure is also a
JSON object on stderr and stdout holds only results."""

import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import TRACECTL, Service, check, run

NOT_FOUND = "org.tracectl.Tracing1.Error.NotFound"
PERMISSION_DENIED = "org.tracectl.Tracing1.Error.PermissionDenied"


def failed(svc, status, cls, *args, user=None, dbus_error=None):
    """Runs tracectl --json ARGS, which must exit with status and report
    one error object of class cls (and dbus_error) on stderr, and return
    the result."""
    result = svc.cli("--json=short", *args, user=user, check_ok=False)
    check(result.returncode == status, f"{args}: exit status {result.returncode} != {status}: "
          f"{result}")
    errors = [e for e in result.errors if "error" in e]
    check(len(errors) >= 1, f"{args}: no error object on stderr: {result}")
    error = errors[-1]
    check(set(error) <= {"error", "message", "exit_status", "dbus_error"} and
          isinstance(error["message"], str) and error["message"], f"{args}: {error}")
    check(error["error"] == cls, f"{args}: class {error['error']} != {cls}")
    if dbus_error:
        check(error.get("dbus_error") == dbus_error, f"{args}: {error}")
    return result


def test_unreachable(svc):
    """No bus at all, then a bus with no tracectld on it."""
    with tempfile.TemporaryDirectory() as empty:
        env = svc.env()
        env["TRACECTL_RUNDIR"] = empty
        env["DBUS_SYSTEM_BUS_ADDRESS"] = f"unix:path={empty}/no-bus"
        for json_args in ([], ["--json"]):
            result = subprocess.run([TRACECTL, *json_args, "list"], env=env,
                                    capture_output=True, text=True, timeout=60)
            check(result.returncode == 5 and result.stdout == "", f"no bus: {result}")
        error = [line for line in result.stderr.splitlines() if line][-1]
        check('"error":"unreachable"' in error and "tracectld" in error, f"no bus: {error}")
        bus = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1",
                                "--nopidfile"], stdout=subprocess.PIPE, text=True)
        try:
            env["DBUS_SYSTEM_BUS_ADDRESS"] = bus.stdout.readline().strip()
            result = subprocess.run([TRACECTL, "--json", "list"], env=env,
                                    capture_output=True, text=True, timeout=60)
            check(result.returncode == 5 and
                  "org.freedesktop.DBus.Error.ServiceUnknown" in result.stderr,
                  f"no service on the bus: {result}")
            result = subprocess.run([TRACECTL, "--json", "version"], env=env,
                                    capture_output=True, text=True, timeout=60)
            check(result.returncode == 0 and '"service_version":null' in result.stdout,
                  f"version without a service: {result}")
        finally:
            bus.terminate()
            bus.wait(timeout=10)


def test():
    with Service() as svc:
        alice = svc.add_user("tctest-alice")
        bob = svc.add_user("tctest-bob")

        # Usage: what the CLI rejects before any call.
        for args in (["list", "--bogus"], ["enable-event", "example:*"], ["nosuch-command"],
                     ["create", "a", "b"]):
            result = failed(svc, 2, "usage", *args, user=alice)
            check(result.stdout == "", f"{args}: output on stdout: {result}")
        result = svc.cli("--json=yaml", "list", check_ok=False)
        check(result.returncode == 2, f"--json=yaml: {result}")

        # Not found: no such session, no current session.
        failed(svc, 3, "not_found", "list", "nosuch", user=alice, dbus_error=NOT_FOUND)
        failed(svc, 3, "not_found", "status", user=alice)
        text = svc.cli("list", "nosuch", user=alice, check_ok=False)
        check(text.returncode == 3 and text.stderr.startswith("Error: "), f"text: {text}")

        # Another user's session is not visible to bob: not found, untouched.
        svc.cli("create", "secret", user=alice)
        for args in (["list", "secret"], ["start", "secret"], ["destroy", "secret"],
                     ["enable-event", "-u", "example:*", "-s", "secret"]):
            failed(svc, 3, "not_found", *args, user=bob, dbus_error=NOT_FOUND)
        check(svc.session("secret", user=alice)["state"] == "inactive", "bob changed it")
        check(svc.sessions(user=bob) == [], "bob sees alice's session")

        # Permission denied: polkit refuses the kernel to bob (not in 'tracing').
        svc.cli("create", "mine", user=bob)
        failed(svc, 4, "permission_denied", "list", "-k", user=bob,
               dbus_error=PERMISSION_DENIED)
        failed(svc, 4, "permission_denied", "enable-event", "-k", "sched:sched_switch",
               user=bob, dbus_error=PERMISSION_DENIED)

        # Partial: one pattern accepted, one refused.
        partial = failed(svc, 6, "failed", "enable-event", "-u", "example:*,bad;pattern",
                         user=bob, dbus_error="org.tracectl.Tracing1.Error.InvalidArgument")
        check(partial.json["events"] == ["example:*"] and
              partial.json["failed"] == ["bad;pattern"], f"partial: {partial.json}")
        check(svc.session("mine", user=bob)["channels"][0]["events"] == ["example:*"],
              "the accepted pattern is not enabled")
        # All refused is a plain failure, not a partial one.
        none = failed(svc, 1, "failed", "enable-event", "-u", "bad;one,bad;two", user=bob)
        check(none.stdout == "" and len(none.errors) == 2, f"all refused: {none}")
        # A state the service refuses: 1, with its D-Bus name.
        svc.cli("start", user=bob)
        failed(svc, 1, "failed", "start", user=bob,
               dbus_error="org.tracectl.Tracing1.Error.InvalidState")

        test_unreachable(svc)


run(test)
