#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Auto-loading at the service's start (tracectld --session-dir, the
system's /etc/tracectl/sessions by default): a session file of the
directory becomes its owner's session, set up and recording as the file
says: root's file root's session, alice's file alice's (her limits, her
home, her consumer), which bob neither sees nor stops; an agent's loggers
(a PYTHON domain) are enabled as enable-event -p would. Then the
~/.config/tracectl/sessions of users with sessions (carol, known
from her file in the directory) make theirs, read by their consumers with
their own rights from homes of mode 0700 (a file carol may not read is
refused though root could read it: the service reads no home); bob, who
has none, gets no session of his. Files that others may write, that are symbolic links, or
that no user of the system owns, sessions over the owner's limits, links
and files of others on the way to a user's own directory, and sessions with what the service
leaves to `tracectl load` (a kernel domain in a file not root's), are refused with a log line
naming them, and no session comes of them. A file the parser refuses (one that once
crashed it, malformed XML in a home) is logged with its path, user and line, and the
service goes on with that user's other files and every other user's."""

import os
import pwd
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

import sessionxmllib
from tclib import Service, check, log, run, wait_for
from tracelib import read_trace

K = 50

# The user-space channel of every file; a kernel domain (in a file not
# root's, the service leaves it to `tracectl load`) when asked.
UST = sessionxmllib.ust_domain([sessionxmllib.channel(
    [sessionxmllib.event("example:all_types", filter_expression="seq > 40")], mode="DISCARD",
    switch_timer_us=0, read_timer_us=200000, output_type="MMAP")])
KERNEL = sessionxmllib.kernel_domain([sessionxmllib.channel(
    [sessionxmllib.event("sched_switch")], name="channel0", subbuf_size=None, subbuf_count=None)])


# A Python logger as lttng saves it, with the filter lttng built.
PYTHON = sessionxmllib.agent_domain("PYTHON", [sessionxmllib.event(
    "app.*", loglevel_type="RANGE", loglevel=30,
    filter_expression='(logger_name == "app.*") && (int_loglevel >= 30)')])


def write(directory, file_name, session, out, mode=0o644, owner=0, kernel=False,
          agent=False):
    """out None: no output element, the owner's default directory."""
    domains = ([KERNEL] if kernel else []) + [UST] + ([PYTHON] if agent else [])
    text = sessionxmllib.session(session, domains, output=out)
    return sessionxmllib.install(directory, file_name, text, owner, mode=mode)


# Line 4 holds an element name shorter than the trackers' suffix, which
# once made the parser ask for 2^64 bytes and abort the service.
SHORT_TRACKER = ("<?xml version=\"1.0\"?>\n<sessions><session><name>alicebad</name>\n"
                 "<domains><domain><type>UST</type><buffer_type>PER_UID</buffer_type>\n"
                 "<process_attr_trackers><pid/></process_attr_trackers></domain></domains>\n"
                 "</session></sessions>\n")
# Not well-formed: libxml2 finds the mismatched end tag on line 3.
MALFORMED = "<sessions>\n<session>\n</sessions>\n"


def unused_uid():
    uid = 4000000
    while True:
        try:
            pwd.getpwuid(uid)
        except KeyError:
            return uid
        uid += 1


def test():
    top = tempfile.mkdtemp(prefix="tracectl-autoload-")
    config = os.path.join(top, "tracectld.conf")
    try:
        # Users' limits apply to their files' sessions; root has none.
        with open(config, "w") as f:
            f.write("[Limits]\nMaxSessions=1\n[User tctest-acarol]\nMaxSessions=4\n")
        check_autoload(top, config)
    finally:
        shutil.rmtree(top, ignore_errors=True)


def consumer_uids(uid):
    """The real and effective uids of uid's consumers."""
    pids = subprocess.run(["pgrep", "-u", str(uid), "^tracectl-consum"],
                          capture_output=True, text=True).stdout.split()
    uids = []
    for pid in pids:
        with open(f"/proc/{pid}/status") as f:
            line = next(line for line in f if line.startswith("Uid:"))
        uids.append(tuple(int(u) for u in line.split()[1:3]))
    return uids


def check_autoload(top, config):
    os.chmod(top, 0o755)
    directory = os.path.join(top, "sessions")
    os.mkdir(directory, 0o755)
    out = os.path.join(top, "out")
    # Created before the service starts: it loads their files at start.
    svc = Service(args=["--session-dir", directory, "--config", config])
    alice = svc.add_user("tctest-aalice")
    bob = svc.add_user("tctest-abob")
    carol = svc.add_user("tctest-acarol")
    dave = svc.add_user("tctest-adave")
    write(directory, "carol.lttng", "autocarol", None, owner=carol.uid)
    write(directory, "dave.lttng", "autodave", None, owner=dave.uid)
    home_refusals = write_home_files(alice, bob, carol, dave)
    # Read before alice's good file, and before everyone else's.
    alice_bad = sessionxmllib.install(directory, "alice0bad.lttng", SHORT_TRACKER, alice.uid)
    write(directory, "good.lttng", "autoroot", out, agent=True)
    # Root's sessions have no per-user limit: a second one loads.
    write(directory, "good2.lttng", "autoroot2", os.path.join(top, "out2"))
    write(directory, "alice1.lttng", "autoalice", None, owner=alice.uid)
    alice2 = write(directory, "alice2.lttng", "autoalice2", None, owner=alice.uid)
    bad_mode = write(directory, "badmode.lttng", "badmode", os.path.join(top, "m"), mode=0o666)
    no_user = unused_uid()
    bad_owner = write(directory, "badowner.lttng", "badowner", os.path.join(top, "o"),
                      owner=no_user)
    kernel = write(directory, "kernel.lttng", "kernel", os.path.join(top, "k"),
                   owner=alice.uid, kernel=True)
    link = os.path.join(directory, "link.lttng")
    os.symlink(os.path.join(directory, "good.lttng"), link)
    # A name that would forge a log line if written out as it is.
    forged = write(directory, "forged.lttng", "x\nAuto-load: forged", os.path.join(top, "f"),
                   owner=alice.uid)
    with svc:
        wait_for(lambda: {"autoroot", "autoalice", "carolhome"} <=
                 {s["name"] for s in svc.sessions()},
                 timeout=30, what="the auto-loaded sessions")
        session = svc.session("autoroot")
        check(session["owner_uid"] == 0 and session["state"] == "active",
              f"auto-loaded session: {session}")
        enabling = session["channels"][0]["enablings"][0]
        check(session["channels"][0]["name"] == "ch" and enabling["filter"] == "seq > 40",
              f"auto-loaded channel: {session['channels']}")
        check(session["agent_rules"] == [
            {"domain": "python", "logger": "app.*", "loglevel": 30,
             "loglevel_name": "PYTHON_WARNING", "loglevel_only": False, "filter": None}],
            f"auto-loaded Python logger: {session['agent_rules']}")
        names = sorted(s["name"] for s in svc.sessions())
        check(names == ["autoalice", "autocarol", "autodave", "autoroot", "autoroot2",
                        "carolhome"],
              f"refused files made sessions: {names}")
        home = svc.session("carolhome", user=carol)
        check(home["owner_uid"] == carol.uid and home["state"] == "active" and
              home["output_directory"].startswith(carol.home + "/"),
              f"carol's session from her own directory: {home}")
        # Another user does not see root's session.
        check(svc.sessions(user=bob) == [], "another user sees auto-loaded sessions")
        svc.run_app("--count", str(K))
        svc.cli("stop", "autoroot")
        seqs = sorted(fields["seq"] for name, fields in read_trace(out)
                      if name.endswith("all_types"))
        check(seqs == list(range(41, K)), f"auto-loaded session recorded {seqs}")
        # After root's session stopped: it would record alice's application too.
        check_alice_session(svc, alice, bob)
        with open(svc.log_path, errors="replace") as f:
            logged = f.read()
        carol_bad = os.path.join(carol.home, ".config", "tracectl", "sessions", "bad.lttng")
        for path, why in ((bad_mode, "writable by its group or others (mode 0666)"),
                          (bad_owner, f"owned by uid {no_user}, which is no user of the system"),
                          (link, "a symbolic link"),
                          (kernel, "session 'kernel' not loaded: auto-loading sets up the "
                                   "kernel domain of root's files only"),
                          (alice2, "session 'autoalice2' not loaded: User "
                                   f"{alice.uid} would hold 2 sessions, over the limit "
                                   "'MaxSessions' of 1"),
                          *home_refusals):
            check(path in logged and why in logged, f"no refusal of {path} ({why}) logged")
        check(forged in logged and "\nAuto-load: forged" not in logged,
              "a session name from a file forged a line of the log")
        for path, user, line in ((alice_bad, alice, 4), (carol_bad, carol, 3)):
            said = (f"Auto-load: '{path}' of user {user.name} (uid {user.uid}) "
                    f"refused at line {line}: ")
            check(said in logged, f"no refusal of {path} at line {line} logged")
        check("process_attr_trackers/pid (line 4): not allowed here" in logged,
              "the refusal does not say why")
        check(svc.alive(), "tracectld died")
        log("root's, alice's and carol's files loaded and recording, fourteen refused by name")
        svc.cli("destroy", "autoroot")
        svc.cli("destroy", "autoroot2")
        svc.cli("destroy", "autoalice", user=alice)
        svc.cli("destroy", "autocarol", user=carol)
        svc.cli("destroy", "carolhome", user=carol)
        svc.cli("destroy", "autodave", user=dave)


def own_directory(user, link_config=False):
    """user's ~/.config/tracectl/sessions, theirs at every step;
    link_config: ~/.config a symbolic link to a directory of theirs."""
    config = os.path.join(user.home, ".config")
    if link_config:
        real = os.path.join(user.home, "real-config")
        os.makedirs(real, 0o755, exist_ok=True)
        os.symlink(real, config)
        os.lchown(config, user.uid, user.uid)
        os.chown(real, user.uid, user.uid)
    # As Debian makes homes: only the user may enter.
    os.chmod(user.home, 0o700)
    path = config
    for part in ("tracectl", "sessions"):
        path = os.path.join(path, part)
        os.makedirs(path, 0o700, exist_ok=True)
        os.chown(path, user.uid, user.uid)
    os.chown(config, user.uid, user.uid, follow_symlinks=False)
    return path


def write_home_files(alice, bob, carol, dave):
    """Files in the users' own directories; the refusals expected."""
    mine = own_directory(carol)
    # Read before her good file.
    sessionxmllib.install(mine, "bad.lttng", MALFORMED, carol.uid)
    write(mine, "mine.lttng", "carolhome", None, owner=carol.uid)
    rootfile = write(mine, "root.lttng", "carolroot", None, owner=0)
    writable = write(mine, "writable.lttng", "carolwritable", None, owner=carol.uid,
                     mode=0o664)
    # Hers, but not readable by her: her consumer cannot read it (root could).
    unreadable = write(mine, "unreadable.lttng", "carolunreadable", None, owner=carol.uid,
                       mode=0o200)
    # A step on the way that root owns: dave's directory is not read.
    write(own_directory(dave), "dave.lttng", "davehome", None, owner=dave.uid)
    dave_step = os.path.join(dave.home, ".config", "tracectl")
    os.chown(dave_step, 0, 0)
    os.chmod(dave_step, 0o755)  # dave may enter it: refused as root's, not unreadable
    # alice's ~/.config is a symbolic link: her directory is not read.
    write(own_directory(alice, link_config=True), "linked.lttng", "alicelinked", None,
          owner=alice.uid)
    # bob has no session: his directory is not read (no log line either).
    write(own_directory(bob), "bob.lttng", "bobhome", None, owner=bob.uid)
    return ((rootfile, f"owned by uid 0, not uid {carol.uid}"),
            (writable, "writable by its group or others (mode 0664)"),
            (unreadable, "Permission denied"),
            (dave_step, f"owned by uid 0, not uid {dave.uid}"),
            (os.path.join(alice.home, ".config"), "a symbolic link"))


def check_alice_session(svc, alice, bob):
    """alice's file made alice's session: hers in the listing, in her home,
    recorded by her consumer, charged to her, out of bob's reach."""
    mine = svc.sessions(user=alice)
    check([s["name"] for s in mine] == ["autoalice"], f"alice's sessions: {mine}")
    session = svc.session("autoalice", user=alice)
    check(session["owner_uid"] == alice.uid and session["state"] == "active",
          f"alice's auto-loaded session: {session}")
    trace = session["output_directory"]
    check(trace.startswith(os.path.join(alice.home, "tracectl-traces", "autoalice-")),
          f"alice's session writes to {trace}, not her default directory")
    check(consumer_uids(alice.uid) == [(alice.uid, alice.uid)],
          f"alice's consumer: {consumer_uids(alice.uid)}")
    # Her limit counts it: she may create no other session.
    refused = svc.cli("create", "more", user=alice, check_ok=False)
    check(refused.returncode != 0 and "MaxSessions" in str(refused),
          f"alice's second session was not refused by her limit: {refused}")
    # bob can neither see nor stop it, by name or by its object.
    check(svc.sessions(user=bob) == [], "bob sees alice's session")
    check(svc.cli("stop", "autoalice", user=bob, check_ok=False).returncode != 0,
          "bob stopped alice's session by name")
    stop = svc.gdbus("--object-path", session["path"], "--method",
                     "org.tracectl.Tracing1.Session.Stop", user=bob)
    check(stop.returncode != 0, f"bob stopped alice's session over the bus: {stop}")
    check(svc.session("autoalice", user=alice)["state"] == "active",
          "alice's session stopped by bob")
    svc.run_app("--count", str(K), user=alice)
    svc.cli("stop", "autoalice", user=alice)
    seqs = sorted(fields["seq"] for name, fields in read_trace(trace)
                  if name.endswith("all_types"))
    check(seqs == list(range(41, K)), f"alice's auto-loaded session recorded {seqs}")


run(test)
