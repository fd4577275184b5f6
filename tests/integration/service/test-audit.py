#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The audit trail: every state-changing call, authorized or refused, is one
entry with the caller's uid and pid, the session, its owner, the action and
the result (on stderr in embedded mode); read-only calls leave none."""

import os
import pwd
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import Service, check, run

ALLOWED = "3076bc6606fd4a0fb1ee11139e4e7318"
REFUSED = "1fe20ed64684460381190d18946e38bc"
FIELD = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\S*)')


def entries(svc):
    with open(svc.log_path, errors="replace") as f:
        lines = [line.split("tracectld-audit: ", 1)[1] for line in f
                 if "tracectld-audit: " in line]
    result = []
    for line in lines:
        fields = {key: value.strip('"') for key, value in FIELD.findall(line)}
        result.append(fields)
    return result


def find(svc, **wanted):
    return [e for e in entries(svc) if all(e.get(k) == v for k, v in wanted.items())]


def test():
    with Service() as svc:
        alice = svc.add_user("tctest-alice")
        bob = svc.add_user("tctest-bob")
        alice_uid = str(pwd.getpwnam("tctest-alice").pw_uid)
        bob_uid = str(pwd.getpwnam("tctest-bob").pw_uid)

        svc.cli("create", "audited", user=alice)
        svc.cli("enable-event", "-u", "example:*", user=alice)
        svc.cli("list", user=alice)
        result = svc.gdbus("--object-path", "/org/tracectl/Tracing1", "--method",
                           "org.tracectl.Tracing1.Manager.FindSession", "audited", user=alice)
        path = result.stdout.strip().split("'")[1]
        result = svc.gdbus("--object-path", path,
                           "--method", "org.tracectl.Tracing1.Session.Start", user=bob)
        check(result.returncode != 0, f"bob started alice's session: {result}")
        svc.cli("start", "audited", user=alice)
        # Root, an administrator, destroys alice's session.
        result = svc.gdbus("--object-path", "/org/tracectl/Tracing1", "--method",
                           "org.tracectl.Tracing1.Manager.DestroySession", path)
        check(result.returncode == 0, f"root's destroy: {result}")

        created = find(svc, TRACECTL_ACTION="CreateSessionWithOptions",
                       TRACECTL_SESSION="audited")
        if not created:
            created = find(svc, TRACECTL_ACTION="CreateSession", TRACECTL_SESSION="audited")
        check(len(created) == 1, f"create entries: {entries(svc)}")
        entry = created[0]
        check(entry["MESSAGE_ID"] == ALLOWED and entry["TRACECTL_RESULT"] == "allowed",
              f"create: {entry}")
        check(entry["TRACECTL_CALLER_UID"] == alice_uid and
              entry["TRACECTL_OWNER_UID"] == alice_uid, f"create's uids: {entry}")
        check(int(entry["TRACECTL_CALLER_PID"]) > 0, f"create's pid: {entry}")

        enabled = find(svc, TRACECTL_ACTION="EnableEvent", TRACECTL_RESULT="allowed")
        check(len(enabled) == 1 and "pattern=example:*" in enabled[0]["TRACECTL_DETAIL"],
              f"enable-event entries: {entries(svc)}")

        refused = find(svc, TRACECTL_ACTION="Start", TRACECTL_CALLER_UID=bob_uid)
        check(len(refused) == 1, f"bob's start: {entries(svc)}")
        entry = refused[0]
        check(entry["MESSAGE_ID"] == REFUSED and entry["TRACECTL_RESULT"] == "refused" and
              entry["TRACECTL_OWNER_UID"] == alice_uid and
              entry["TRACECTL_SESSION"] == "audited" and entry["TRACECTL_DETAIL"] != "",
              f"bob's refused start: {entry}")

        started = find(svc, TRACECTL_ACTION="Start", TRACECTL_CALLER_UID=alice_uid)
        check(len(started) == 1 and started[0]["TRACECTL_RESULT"] == "allowed",
              f"alice's start: {entries(svc)}")
        destroyed = [e for e in entries(svc) if e["TRACECTL_ACTION"].startswith("Destroy")]
        check(len(destroyed) == 1 and destroyed[0]["TRACECTL_CALLER_UID"] == "0" and
              destroyed[0]["TRACECTL_OWNER_UID"] == alice_uid and
              destroyed[0]["TRACECTL_RESULT"] == "allowed",
              f"root's destroy of alice's session: {entries(svc)}")
        # Listings change nothing and are not audited.
        check(not [e for e in entries(svc) if e["TRACECTL_ACTION"].startswith(("List", "Find"))],
              f"read-only calls audited: {entries(svc)}")


run(test)
