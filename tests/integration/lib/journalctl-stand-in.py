#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""journalctl for a test with no journal: the audit entries of an embedded
tracectld, read from its log, as `journalctl -o json` would print the
entries the same service writes to the journal under systemd.

    journalctl-stand-in.py --service-log LOG [journalctl's arguments]

tracectld writes each audit entry to the journal when its standard error
is the journal's, and otherwise as one line on standard error
(service/tracectld/bus/tc-audit.c, docs/security.md):

    tracectld-audit: MESSAGE_ID=... TRACECTL_ACTION=... TRACECTL_SESSION="..." ...

with the same fields, caller-chosen strings quoted and escaped as C does
(g_strescape). The test's service logs to a file (tclib.Service); this
program gives those lines back as journal records, so that what reads the
journal (the Cockpit page's audit trail) is tested against what the
service writes. cockpitlib.Cockpit mounts it over /usr/bin/journalctl in
cockpit-ws's mount namespace only.

What it takes of journalctl's command line: FIELD=VALUE matches (the
same field twice is either value, different fields all of them, "+"
between groups either group), -n/--lines N, -o/--output json, --no-pager
and -q/--quiet; anything else is refused, exit status 1, so that a page
asking for more than this stands for fails the test rather than getting
an answer journalctl would not give. Like journalctl, a user outside the
groups that read the system's journal (adm, systemd-journal) and
not root gets no system entry, and the hint journalctl prints then on
standard error unless -q.

What it does not stand for: the records' times (the service's lines have
none, so there is no __REALTIME_TIMESTAMP), journald's storage, its
rate limits and its access control lists.
"""

import codecs
import grp
import json
import os
import re
import sys

FIELD = re.compile(r'([A-Z_][A-Z0-9_]*)=("((?:[^"\\]|\\.)*)"|\S*)')
PREFIX = "tracectld-audit: "
# As Debian's journalctl (systemd 252) says it.
JOURNAL_GROUPS = ("adm", "systemd-journal")
HINT = ("Hint: You are currently not seeing messages from other users and the system.\n"
        "      Users in groups 'adm', 'systemd-journal' can see all messages.\n"
        "      Pass -q to turn off this notice.\n")
RESULT_PRIORITY = {"allowed": "6", "refused": "5", "failed": "5"}


def unescape(quoted):
    """The text g_strescape() escaped: \\" \\\\ \\n \\t and octal bytes."""
    return codecs.escape_decode(quoted.encode())[0].decode("utf-8", errors="replace")


def record_of(fields):
    """The journal record of one audit line's fields, as tc_audit_log()
    sends them to the journal."""
    record = {"SYSLOG_IDENTIFIER": "tracectld"}
    for key, raw, quoted in FIELD.findall(fields):
        record[key] = unescape(quoted) if raw.startswith('"') else raw
    record["PRIORITY"] = RESULT_PRIORITY.get(record.get("TRACECTL_RESULT"), "5")
    caller = record.get("TRACECTL_CALLER_UID") or "?"
    record["MESSAGE"] = (f"{record.get('TRACECTL_ACTION', '')} "
                         f"{record.get('TRACECTL_RESULT', '')} for uid {caller}, "
                         f"session '{record.get('TRACECTL_SESSION', '')}'")
    return record


def parse(arguments):
    """(service log, groups of matches, lines, quiet); exits 1 on what it
    does not stand for."""
    log_path, groups, lines, quiet = None, [{}], None, False
    i = 0
    while i < len(arguments):
        argument = arguments[i]
        if argument == "--service-log":
            log_path = arguments[i + 1]
            i += 1
        elif argument in ("-n", "--lines"):
            lines = int(arguments[i + 1])
            i += 1
        elif argument.startswith("--lines="):
            lines = int(argument.split("=", 1)[1])
        elif argument in ("-o", "--output") and i + 1 < len(arguments) and \
                arguments[i + 1] == "json":
            i += 1
        elif argument == "--output=json":
            pass
        elif argument == "--no-pager":
            pass
        elif argument in ("-q", "--quiet"):
            quiet = True
        elif argument == "+":
            groups.append({})
        elif re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", argument):
            key, value = argument.split("=", 1)
            groups[-1].setdefault(key, set()).add(value)
        else:
            sys.exit(f"journalctl (the test's stand-in): {argument!r} is not stood for")
        i += 1
    if log_path is None:
        sys.exit("journalctl (the test's stand-in): no --service-log")
    return log_path, groups, lines, quiet


def matches(record, groups):
    return any(all(record.get(key) in values for key, values in group.items())
               for group in groups)


def reads_system_journal():
    if os.geteuid() == 0:
        return True
    names = set()
    for gid in {os.getegid(), *os.getgroups()}:
        try:
            names.add(grp.getgrgid(gid).gr_name)
        except KeyError:
            pass
    return any(name in names for name in JOURNAL_GROUPS)


def main():
    log_path, groups, lines, quiet = parse(sys.argv[1:])
    if not reads_system_journal():
        if not quiet:
            sys.stderr.write(HINT)
        return 0
    records = []
    with open(log_path, errors="replace") as log:
        for line in log:
            # As test-audit.py reads them: another thread's output may
            # come first on the line.
            if PREFIX in line:
                record = record_of(line.rstrip("\n").split(PREFIX, 1)[1])
                if matches(record, groups):
                    records.append(record)
    if lines is not None:
        records = records[-lines:] if lines > 0 else []
    for record in records:
        print(json.dumps(record))
    return 0


if __name__ == "__main__":
    sys.exit(main())
