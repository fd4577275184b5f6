#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Delegation of a systemd unit, where there is no systemd (the private
bus of the integration tests): `track --unit` refuses names outside
systemd's grammar, wildcards and path tricks (InvalidArgument, naming the
name) before polkit; bob, whom no rule grants the unit, is refused naming
org.tracectl.Tracing1.trace-unit and the unit; alice, granted
nginx.service by a rule, is refused with NotSupported saying that
delegation needs systemd; the audit trail names the unit; untracking a unit not tracked is NotFound.
The matching itself runs under the real
systemd of tests/system/test-unit-delegation.py."""

import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, log, run

ACTION = "org.tracectl.Tracing1.trace-unit"
ERROR = "org.tracectl.Tracing1.Error."
RULE = """polkit.addRule(function(action, subject) {
    if (action.id == "%s" && action.lookup("unit") == "nginx.service" &&
        subject.user == "tcunitalice")
        return polkit.Result.YES;
});
""" % ACTION
BAD_NAMES = ["*.service", "nginx*.service", "ngin?.service", "../nginx.service",
             "/system.slice/nginx.service", "a/../b.service", "nginx", "nginx.mount",
             "getty@.service", "nginx.service\\n", "x" * 300 + ".service", ".service"]


def track(svc, user, unit, verb="track"):
    return svc.cli("--json=short", verb, "--unit", unit, user=user, check_ok=False)


def refused(result, error, words, what):
    errors = result.errors
    check(result.returncode != 0 and errors and errors[0].get("dbus_error") == ERROR + error,
          f"{what}: not refused with {error}: {result}")
    for word in words:
        check(word in errors[0]["message"], f"{what}: the refusal does not name {word!r}: "
              f"{errors[0]['message']}")


def test():
    svc = Service()
    with tempfile.NamedTemporaryFile("w", suffix=".rules") as rule:
        rule.write(RULE)
        rule.flush()
        svc.installed.install(rule.name, "/etc/polkit-1/rules.d/59-tracectl-unit-test.rules")
    with svc:
        alice = svc.add_user("tcunitalice")
        bob = svc.add_user("tcunitbob")
        for user in (alice, bob):
            svc.cli("create", "deleg", user=user)
        for name in BAD_NAMES:
            for user in (alice, bob):
                refused(track(svc, user, name), "InvalidArgument",
                        ["is not a unit name", name[:12]], f"{user.name}: {name[:40]!r}")
        log(f"{len(BAD_NAMES)} bad unit names refused before polkit, naming the name")
        refused(track(svc, bob, "nginx.service"), "PermissionDenied",
                [ACTION, "'nginx.service'"], "bob without a rule")
        refused(track(svc, alice, "sshd.service"), "PermissionDenied",
                [ACTION, "'sshd.service'"], "alice, a unit the rule does not grant")
        log("units not granted are refused, naming the action and the unit")
        refused(track(svc, alice, "nginx.service"), "NotSupported",
                ["needs systemd"], "alice without systemd")
        log("without systemd, delegation by unit is refused: NotSupported")
        with open(svc.log_path, errors="replace") as f:
            audited = [line for line in f if "tracectld-audit: " in line and
                       "TrackUnit" in line and "unit=nginx.service" in line]
        check(any("refused" in line for line in audited) and
              any("allowed" in line for line in audited),
              f"the audit trail does not name the unit: {audited}")
        refused(track(svc, alice, "nginx.service", "untrack"), "NotFound",
                ["nginx.service"], "untracking a unit not tracked")
        check(svc.cli("track", "--unit", "nginx.service", "-k", user=alice,
                      check_ok=False).returncode != 0, "track --unit with -k was accepted")

run(test)
