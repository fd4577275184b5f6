#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Delegation of a unit under a real systemd: tctest-deleg.service runs an
instrumented application as its own system user; a polkit rule grants
alice that unit (org.tracectl.Tracing1.trace-unit, detail "unit").

1. alice's session that tracks the unit records the unit's applications
   (their uid's own trace in her output directory), and neither her own
   application nor one run by the service's user outside the unit;
2. alice's other session records her own application and gives the
   unit's application nothing (no trace of its uid, none of its events);
3. bob, whom no rule grants the unit, is refused naming the action and
   the unit; alice is refused a unit the rule does not name;
4. with the own-process kernel tier (a kernel with BTF), the session's
   kernel-own trace holds the system calls of the unit's application and
   of no other process, none of a second application of the unit that
   left the unit's group after it registered;
5. an application of the unit that leaves its group after it registered
   records nothing once the service read its group again (every 250 ms):
   one moved before the session started records none of its events; one
   moved while the session records may have its marker event, emitted
   before the move, recorded, and none of those emitted after it;
6. an application of the service's user that registered outside the unit
   and is moved into the unit's group while the session records: its
   marker, emitted before the move, is not recorded, and the events it
   emits once the service found it in the unit (within 250 ms) are.
"""

import os
import pwd
import re
import subprocess
import tempfile
import time

from sdlib import SystemdMachine, check, run_test, wait_for
from tclib import log, mount_tracefs
from tracelib import read_streams

ACTION = "org.tracectl.Tracing1.trace-unit"
UNIT = "tctest-deleg.service"
SERVICE_USER = "tctest-delegsvc"
RULES = "/etc/polkit-1/rules.d/50-tctest-deleg.rules"
# The own-process tier is for local users by default; alice runs through
# nsenter, in no login session, so a rule gives it to her.
RULE = """polkit.addRule(function(action, subject) {
    if (action.id == "%s" && action.lookup("unit") == "%s" &&
        subject.user == "tctest-alice")
        return polkit.Result.YES;
    if (action.id == "org.tracectl.Tracing1.trace-kernel-own" &&
        subject.user == "tctest-alice")
        return polkit.Result.YES;
});
""" % (ACTION, UNIT)
OWN_EVENTS = "raw_syscalls:sys_enter,raw_syscalls:sys_exit"
# The application moved while the session records emits its marker (i=0)
# at once, then one event every LATE_INTERVAL_US: the test moves it
# MOVE_AFTER_S after the marker, leaving the service's watch (250 ms) more
# than two seconds before the next event.
LATE_INTERVAL_US = 3000000
MOVE_AFTER_S = 0.5
SERVICE = f"""[Service]
User={SERVICE_USER}
ExecStart=/bin/sh -c "/usr/local/bin/tracectl-example-app --pause --count 4 & \
/usr/local/bin/tracectl-example-app --pause --count 3 --interval-us {LATE_INTERVAL_US} & \
exec /usr/local/bin/tracectl-example-app --pause --count 7"
"""


def install_text(sd, text, path):
    with tempfile.NamedTemporaryFile("w") as f:
        f.write(text)
        f.flush()
        sd.installed.install(f.name, path)
    os.chmod(path, 0o644)


def pid_of(user, pattern="tracectl-example-app"):
    out = subprocess.run(["pgrep", "-n", "-u", user, "-f", pattern], capture_output=True,
                         text=True).stdout.strip()
    check(out, f"no {pattern} of {user}")
    return int(out)


def app_uids(sd):
    return [app["uid"] for app in sd.tracectl_json("list", "-u")["applications"]]


def unified_root():
    """Where the unified control-group hierarchy is mounted."""
    fs = subprocess.run(["stat", "-f", "-c", "%T", "/sys/fs/cgroup"], capture_output=True,
                        text=True).stdout.strip()
    return "/sys/fs/cgroup" if fs == "cgroup2fs" else "/sys/fs/cgroup/unified"


def move_out_of_unit(pid):
    """Moves pid to the root control group, as root may."""
    with open(os.path.join(unified_root(), "cgroup.procs"), "w") as procs:
        procs.write(str(pid))


def move_into_unit(sd, pid):
    """Moves pid into the unit's control group, as root may."""
    group = sd.run("systemctl", "show", "-P", "ControlGroup", UNIT).stdout.strip()
    check(group.startswith("/"), f"{UNIT} has no control group: {group!r}")
    with open(os.path.join(unified_root(), group.lstrip("/"), "cgroup.procs"), "w") as procs:
        procs.write(str(pid))


def inner_pid(pid):
    """pid as the machine's namespace numbers it (the events' vpid)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("NSpid:"):
                return int(line.split()[-1])
    check(False, f"no NSpid for pid {pid}")


def seqs_of(sd, user, trace, vpid):
    """The seq fields of the example events of vpid in trace."""
    text = sd.run("babeltrace2", trace, user=user, check_ok=False).stdout
    return sorted(int(re.search(r"\bseq = (\d+)", line).group(1))
                  for line in text.splitlines()
                  if "example:all_types" in line and re.search(rf"\bvpid = {vpid}\b", line))


def is_gone(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def events(sd, user, trace):
    text = sd.run("babeltrace2", trace, user=user, check_ok=False).stdout
    return text.count("example:all_types")


def test():
    created_user = False
    mount_tracefs()
    has_own_tier = os.path.exists("/sys/kernel/btf/vmlinux")
    try:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell",
                        "/usr/sbin/nologin", SERVICE_USER], check=True)
        created_user = True
        service_uid = pwd.getpwnam(SERVICE_USER).pw_uid
        with SystemdMachine() as sd:
            # The journal may hold earlier runs' lines.
            since = sd.run("date", "+%Y-%m-%d %H:%M:%S").stdout.strip()
            install_text(sd, RULE, RULES)
            install_text(sd, SERVICE, f"/etc/systemd/system/{UNIT}")
            alice = sd.add_user("tctest-alice")
            bob = sd.add_user("tctest-bob")
            sd.run("systemctl", "daemon-reload")
            sd.run("systemctl", "start", "tracectld.socket", "tracectl-kernel-helper.socket")
            sd.run("systemctl", "start", UNIT)
            wait_for(lambda: app_uids(sd).count(service_uid) == 3, 20,
                     "the unit's applications to register")
            # One of the unit's processes leaves its group once registered
            # (before the tier starts: its tracer thread answers the
            # session's commands, system calls of its own).
            moved = pid_of(SERVICE_USER, "example-app --pause --count 4")
            move_out_of_unit(moved)
            # alice's own application, and one of the service's user outside
            # the unit: same uid as the unit's, another control group.
            mine = sd.popen("tracectl-example-app", "--pause", "--count", "3", user=alice)
            check(mine.stdout.readline().strip() == "ready", "alice's app did not start")
            stray = sd.popen("tracectl-example-app", "--pause", "--count", "5",
                             user=_Named(SERVICE_USER))
            check(stray.stdout.readline().strip() == "ready", "the stray app did not start")
            # One more of the service's user outside the unit, moved into it
            # while deleg records: its marker at once, then its other
            # events LATE_INTERVAL_US apart, after the move.
            arriving = sd.popen("tracectl-example-app", "--interval-us",
                                str(LATE_INTERVAL_US), "--pause", "--count", "3",
                                user=_Named(SERVICE_USER))
            check(arriving.stdout.readline().strip() == "ready",
                  "the arriving app did not start")

            # 3. Refusals.
            sd.run("tracectl", "create", "nope", user=bob)
            refused = sd.run("tracectl", "track", "--unit", UNIT, user=bob, check_ok=False)
            check(refused.returncode != 0 and ACTION in refused.stderr and
                  f"'{UNIT}'" in refused.stderr, f"bob was not refused: {refused.stderr}")
            sd.run("tracectl", "create", "other-unit", user=alice)
            refused = sd.run("tracectl", "track", "--unit", "polkit.service", user=alice,
                             check_ok=False)
            check(refused.returncode != 0 and ACTION in refused.stderr,
                  f"alice tracked a unit she was not granted: {refused.stderr}")
            sd.run("tracectl", "destroy", "other-unit", user=alice)
            log("bob and an ungranted unit are refused, naming the action and the unit")

            # 1 and 2. Two sessions of alice.
            sd.run("tracectl", "create", "mine", user=alice)
            sd.run("tracectl", "enable-event", "-u", "example:*", user=alice)
            sd.run("tracectl", "start", user=alice)
            sd.run("tracectl", "create", "deleg", user=alice)
            # The vpid tells the arriving application's events apart.
            sd.run("tracectl", "add-context", "-u", "-t", "vpid", user=alice)
            sd.run("tracectl", "enable-event", "-u", "example:*", user=alice)
            sd.run("tracectl", "track", "--unit", UNIT, user=alice)
            # The watch reads the moved application's group again.
            time.sleep(1)
            listed = sd.run("tracectl", "list", "deleg", user=alice).stdout
            check(f"unit: {UNIT}" in listed, f"list deleg does not show the unit: {listed}")
            if has_own_tier:
                sd.run("tracectl", "enable-event", "-k", "--own", OWN_EVENTS, user=alice)
            sd.run("tracectl", "start", user=alice)
            pids = {"unit": pid_of(SERVICE_USER, "example-app --pause --count 7"),
                    "moved": moved,
                    "late": pid_of(SERVICE_USER, "example-app --pause --count 3 --interval"),
                    "mine": pid_of(alice.name),
                    "stray": pid_of(SERVICE_USER, "example-app --pause --count 5")}
            arriving_pid = pid_of(SERVICE_USER, "example-app --interval-us")
            arriving_vpid = inner_pid(arriving_pid)
            # The late application emits its marker, then leaves the unit
            # while the session records, long before its next event (and
            # before the unit's main process ends, which stops the unit).
            # The arriving one emits its marker outside the unit, then comes
            # into it, and ends its events before the unit's main process
            # ends (the unit's stop kills what is left in its group).
            os.kill(pids["late"], 10)
            os.kill(arriving_pid, 10)
            time.sleep(MOVE_AFTER_S)
            move_out_of_unit(pids["late"])
            log(f"moved pid {pids['late']} out of the unit while deleg records")
            move_into_unit(sd, arriving_pid)
            log(f"moved pid {arriving_pid} into the unit while deleg records")
            arriving.communicate(timeout=60)
            for name, pid in pids.items():
                if name != "late":
                    os.kill(pid, 10)
            mine.communicate(timeout=60)
            stray.communicate(timeout=60)
            wait_for(lambda: sd.run("systemctl", "is-active", UNIT,
                                    check_ok=False).stdout.strip() != "active",
                     30, "the unit's application to finish")
            wait_for(lambda: is_gone(pids["moved"]), 30, "the moved application to finish")
            wait_for(lambda: is_gone(pids["late"]), 30, "the late-moved application to finish")
            traces = {}
            for name in ("deleg", "mine"):
                sd.run("tracectl", "stop", name, user=alice)
                traces[name] = sd.tracectl_json("list", name, user=alice)["output_directory"]
            deleg_uids = sorted(os.listdir(os.path.join(traces["deleg"], "ust", "uid")))
            mine_uids = sorted(os.listdir(os.path.join(traces["mine"], "ust", "uid")))
            log(f"deleg traces of uids {deleg_uids}, mine of {mine_uids}")
            check(str(service_uid) in deleg_uids, "no trace of the unit's uid in deleg")
            check(str(service_uid) not in mine_uids,
                  "alice's other session made a trace of the unit's uid")
            unit_trace = os.path.join(traces["deleg"], "ust", "uid", str(service_uid))
            # The unit's 7, none of the application moved before the
            # start, of the one moved out while recording at most its
            # marker (4 or 3 more would be events emitted out of the unit),
            # and the 2 the arriving one emitted in the unit (its marker,
            # emitted outside, would make 3).
            unit_events = events(sd, alice, unit_trace)
            check(unit_events in (9, 10),
                  f"the unit's events in deleg: {unit_events}, not 9 or 10: an application "
                  "was recorded out of the unit, or the one moved into it was not recorded "
                  "there")
            arrived_seqs = seqs_of(sd, alice, unit_trace, arriving_vpid)
            check(arrived_seqs == [1, 2],
                  f"the application moved into the unit recorded events {arrived_seqs}, not "
                  "[1, 2]: its marker, emitted before the move, must not be recorded, and "
                  "its events after the move must")
            check(events(sd, alice, traces["deleg"]) == unit_events,
                  f"deleg records more than the unit: {events(sd, alice, traces['deleg'])}")
            check(events(sd, alice, traces["mine"]) == 3,
                  f"mine: {events(sd, alice, traces['mine'])}, not alice's 3")
            log(f"deleg records the unit's {unit_events} events only (the late-moved "
                f"application's marker {'in' if unit_events == 10 else 'not in'} it, the "
                "arriving one's 2 after its move); mine alice's 3 and nothing of the unit")
            # Both moved applications are named (by their pids inside the
            # machine's namespace, which the test does not know).
            journal = sd.run("journalctl", "--no-pager", "-u", "tracectld.service", "--since",
                             since, check_ok=False).stdout
            left = [line for line in journal.splitlines()
                    if "Session 'deleg' of uid" in line and f" uid={service_uid} " in line and
                    "left the control groups of the units it tracks" in line]
            check(len(left) == 2, f"tracectld logged {len(left)} applications leaving the unit, "
                  "not 2")
            arrived = [line for line in journal.splitlines()
                       if "Session 'deleg' of uid" in line and f" uid={service_uid} " in line and
                       "moved into the control group of a unit it tracks" in line]
            check(len(arrived) == 1, f"tracectld logged {len(arrived)} applications moving "
                  "into the unit, not 1")
            sd.run("tracectl", "untrack", "--unit", UNIT, "-s", "deleg", user=alice)
            listed = sd.run("tracectl", "list", "deleg", user=alice).stdout
            check("unit:" not in listed, f"the unit is still tracked: {listed}")
            if has_own_tier:
                check_kernel(os.path.join(traces["deleg"], "kernel-own"), pids, arriving_pid)
            else:
                log("SKIP the unit's kernel activity: the kernel has no BTF")
    finally:
        if created_user:
            subprocess.run(["userdel", SERVICE_USER], check=False)


# x86-64 system calls that make a process: clone, fork, vfork, clone3.
FORKS = {56, 57, 58, 435}


def forked_children(events, parents):
    """The processes a process of parents made while recorded: each one's
    first event is its own return of 0 from a fork-family call (it began
    life in the unit's group, where its parent was), matched one to one
    with an earlier return of a child's number in the parents. An
    AddressSanitizer build's leak check, for one, clones a tracer task at
    each application's exit."""
    first = {}
    for e in events:
        first.setdefault(e.get("ctx_pid"), e)
    made = sorted(e["ts"] for e in events
                  if e.get("ctx_pid") in parents and e["name"] == "raw_syscalls:sys_exit" and
                  e.get("id") in FORKS and e.get("ret", 0) > 0)
    children = set()
    for pid, e in sorted(first.items(), key=lambda item: item[1]["ts"]):
        if pid in parents:
            continue
        began_forked = (e["name"] == "raw_syscalls:sys_exit" and e.get("id") in FORKS and
                        e.get("ret") == 0)
        if began_forked and made and made[0] <= e["ts"] + 1000000:
            made.pop(0)
            children.add(pid)
    return children


def check_kernel(path, pids, arriving_pid):
    """The kernel-own trace of the session that tracks the unit: system
    calls of the unit's application and of what it forked, none of any
    other process (alice's, the service user's outside the unit, the
    tracectl commands)."""
    events = read_streams(path)["events"]
    seen = {e.get("ctx_pid") for e in events}
    log(f"deleg kernel-own: {len(events)} events of pids {sorted(seen)}; pids {pids}")
    check(pids["unit"] in seen, "no system call of the unit's application")
    check(pids["moved"] not in seen, "the process that left the unit's group was recorded")
    outside = {pids["moved"], pids["mine"], pids["stray"]}
    check(not seen & outside, f"kernel-own recorded processes outside the unit: {seen & outside}")
    # The one moved out while recording made system calls in the unit
    # first, the one moved in after.
    unit = {pids["unit"], pids["late"], arriving_pid}
    children = forked_children(events, unit)
    log(f"deleg kernel-own: children forked in the unit {sorted(children)}")
    check(seen <= unit | children,
          f"kernel-own has other processes than the unit's: {seen - unit - children}")


class _Named:
    """A user for SystemdMachine.popen that the test did not create."""

    def __init__(self, name):
        self.name = name


run_test(test)
