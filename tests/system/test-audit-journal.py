#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The audit trail in the journal, under a real systemd: alice creates,
enables, starts, stops and destroys a session, bob tries to start it and is
refused; `journalctl --output=json` filtered by TRACECTL_OWNER_UID and by
MESSAGE_ID gives back each entry with its fields (caller uid and pid,
session, owner, action, result) as journal fields sent by tracectld.service,
not as text on its standard error; the calls that only read left none.

The journal of the namespace is the host's (old runs show up in it), so
everything is read after a cursor taken at the start and for a session name
used by this run alone."""

import json
import os

from sdlib import SystemdMachine, check, run_test, time

ALLOWED = "3076bc6606fd4a0fb1ee11139e4e7318"
REFUSED = "1fe20ed64684460381190d18946e38bc"
MANAGER = ["org.tracectl.Tracing1", "/org/tracectl/Tracing1", "org.tracectl.Tracing1.Manager"]
UNIT_MATCH = "_SYSTEMD_UNIT=tracectld.service"
READ_ONLY = ("ChannelStatistics", "FindSession", "ListApplications", "ListContexts",
             "ListKernelEvents", "ListSessions", "ListSnapshotOutputs", "ListTriggers")
# Prints the PID the command runs with inside the namespace, then becomes it,
# so that the test knows the caller's PID the bus daemon reports.
WITH_PID = ["sh", "-c", 'echo "$$"; exec "$@"', "sh"]


def run_with_pid(sd, user, *args, check_ok=True):
    """(pid, result) of args run as user inside."""
    result = sd.run(*WITH_PID, *args, user=user, check_ok=check_ok)
    first, _, rest = result.stdout.partition("\n")
    result.stdout = rest
    return int(first), result


def cursor(sd):
    out = sd.run("journalctl", "--no-pager", "-n", "0", "--show-cursor").stdout
    lines = [line for line in out.splitlines() if line.startswith("-- cursor: ")]
    return lines[-1][len("-- cursor: "):] if lines else None


def journal(sd, since, *matches):
    """The entries after the cursor since matching all of matches, parsed.
    --cursor and not --after-cursor: with matches, journalctl 252 skips the
    first matching entry after the cursor when told --after-cursor."""
    sd.run("journalctl", "--sync", check_ok=False)
    where = [f"--cursor={since}"] if since else []
    result = sd.run("journalctl", "--no-pager", "--output=json", *where, *matches,
                    check_ok=False)
    check(result.returncode == 0, f"journalctl {' '.join(matches)}: {result.stderr}")
    entries = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    return [e for e in entries if e.get("__CURSOR") != since]


def wait_for_entries(sd, since, count, *matches):
    """The entries journal() gives once there are count of them (journald
    writes asynchronously), or what there is after 10 s."""
    deadline = time.monotonic() + 10
    entries = journal(sd, since, *matches)
    while len(entries) < count and time.monotonic() < deadline:
        time.sleep(0.2)
        entries = journal(sd, since, *matches)
    return entries


def test():
    with SystemdMachine() as sd:
        alice = sd.add_user("tctest-alice", groups=("tracing",))
        bob = sd.add_user("tctest-bob")
        active = sd.run("systemctl", "is-active", "systemd-journald.service",
                        check_ok=False).stdout.strip()
        check(active == "active", f"systemd-journald in the namespace is {active}")
        since = cursor(sd)
        name = f"audit-{os.getpid()}-{int(time.time())}"
        sd.run("systemctl", "start", "tracectld.socket")

        pids = {}
        pids["create"], _ = run_with_pid(sd, alice, "tracectl", "create", name)
        pids["enable"], _ = run_with_pid(sd, alice, "tracectl", "enable-event", "-u",
                                         "example:*", "-s", name)
        pids["start"], _ = run_with_pid(sd, alice, "tracectl", "start", name)
        # Read-only calls, which must leave nothing.
        sd.run("tracectl", "list", name, user=alice)
        sd.run("tracectl", "list", user=bob)
        path = sd.run("busctl", "--system", "call", *MANAGER, "FindSession", "s", name,
                      user=alice).stdout.split('"')[1]
        sd.run("busctl", "--system", "call", *MANAGER, "ListSessions", user=alice)
        pids["refused"], refused = run_with_pid(
            sd, bob, "gdbus", "call", "--system", "--dest", "org.tracectl.Tracing1",
            "--object-path", path, "--method", "org.tracectl.Tracing1.Session.Stop",
            check_ok=False)
        check(refused.returncode != 0 and "PermissionDenied" in refused.stderr,
              f"bob stopped alice's session: {refused.stdout} {refused.stderr}")
        pids["stop"], _ = run_with_pid(sd, alice, "tracectl", "stop", name)
        pids["destroy"], _ = run_with_pid(sd, alice, "tracectl", "destroy", name)

        # By owner: what alice's session went through, in order.
        owner_match = f"TRACECTL_OWNER_UID={alice.uid}"
        session_match = f"TRACECTL_SESSION={name}"
        # alice's five calls and bob's refused one.
        entries = wait_for_entries(sd, since, 6, owner_match, session_match)
        actions = [e.get("TRACECTL_ACTION") for e in entries]
        everything = [e.get("MESSAGE") for e in journal(sd, since, UNIT_MATCH)]
        check(len(entries) == 6,
              f"alice's session's entries after {since}: {actions}; tracectld's: {everything}")
        for entry in entries:
            # Fields the journal adds itself: the entry came from the service
            # through sd_journal_send, not from its standard error.
            check(entry.get("_SYSTEMD_UNIT") == "tracectld.service" and
                  entry.get("_TRANSPORT") == "journal",
                  f"not sent by tracectld.service to the journal: {entry}")
            check("TRACECTL_" not in entry.get("MESSAGE", ""),
                  f"the fields are text in MESSAGE: {entry}")
            check(entry.get("TRACECTL_SESSION") == name and
                  entry.get("TRACECTL_OWNER_UID") == str(alice.uid), f"session, owner: {entry}")
        allowed = [e for e in entries if e["TRACECTL_CALLER_UID"] == str(alice.uid)]
        check(len(allowed) == 5 and
              [e["TRACECTL_ACTION"] for e in allowed][1:4] == ["EnableEvent", "Start", "Stop"],
              f"alice's actions: {actions}")
        check(allowed[0]["TRACECTL_ACTION"].startswith("CreateSession") and
              allowed[-1]["TRACECTL_ACTION"].startswith("Destroy"), f"alice's actions: {actions}")
        for entry, step in zip(allowed, ("create", "enable", "start", "stop", "destroy")):
            check(entry.get("MESSAGE_ID") == ALLOWED and
                  entry.get("TRACECTL_RESULT") == "allowed" and
                  entry.get("TRACECTL_CALLER_PID") == str(pids[step]),
                  f"alice's {step} (pid {pids[step]}): {entry}")

        # By message: bob's refusal names bob as the caller, alice as the owner.
        refusals = journal(sd, since, f"MESSAGE_ID={REFUSED}", session_match)
        check(len(refusals) == 1, f"refusals: {refusals}")
        entry = refusals[0]
        check(entry.get("TRACECTL_ACTION") == "Stop" and
              entry.get("TRACECTL_RESULT") == "refused" and
              entry.get("TRACECTL_CALLER_UID") == str(bob.uid) and
              entry.get("TRACECTL_CALLER_PID") == str(pids["refused"]) and
              entry.get("TRACECTL_OWNER_UID") == str(alice.uid) and
              entry.get("TRACECTL_DETAIL"), f"bob's refused stop (pid {pids['refused']}): {entry}")
        granted = journal(sd, since, f"MESSAGE_ID={ALLOWED}", session_match)
        check([e["TRACECTL_ACTION"] for e in granted] == [e["TRACECTL_ACTION"] for e in allowed],
              f"allowed entries by MESSAGE_ID: {granted}")

        # Nothing for the calls that only read, and nothing on stderr.
        audited = journal(sd, since, UNIT_MATCH)
        read_only = [e for e in audited if e.get("TRACECTL_ACTION") in READ_ONLY]
        check(not read_only, f"read-only calls audited: {read_only}")
        as_text = [e for e in audited if "tracectld-audit:" in str(e.get("MESSAGE", ""))]
        check(not as_text, f"audit lines on stderr under systemd: {as_text}")


run_test(test)
