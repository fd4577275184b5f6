# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the attacks on the root kernel helper share: an unprivileged
attacker in the 'tracing' group, a victim user whose kernel session must
keep working meanwhile, the helper's probes as tracefs shows them, and
ELF files made to measure."""

import os
import pwd
import re
import shutil
import struct
import subprocess
import threading
import time

from tclib import (TRACECTL, TRACEFS, check, kernel_instances, log, mount_tracefs,
                   require)

MANAGER = ["--object-path", "/org/tracectl/Tracing1"]
INVALID = "org.tracectl.Tracing1.Error.InvalidArgument"
HELPER_COMM = "tracectl-kernel"  # /proc/PID/comm keeps 15 characters


def require_uprobes():
    mount_tracefs()
    require(os.path.exists(os.path.join(TRACEFS, "uprobe_events")),
            "this kernel has no uprobe events")


def read(name):
    with open(os.path.join(TRACEFS, name)) as f:
        return f.read()


def probe_lines():
    """Every dynamic event line that is not the kernel's own: tracectl's
    and whatever an attack put there."""
    lines = set(read("uprobe_events").splitlines())
    if os.path.exists(os.path.join(TRACEFS, "dynamic_events")):
        lines |= set(read("dynamic_events").splitlines())
    return sorted(line for line in lines if line.strip())


def probe_groups():
    """{group/event: line} of every uprobe."""
    found = {}
    for line in probe_lines():
        match = re.match(r"^[pr]:(\S+)\s", line)
        if match:
            found[match.group(1)] = line
    return found


def instances():
    return kernel_instances()


def uprobe_hits():
    """{event: hits} from uprobe_profile ("path event hits" lines)."""
    hits = {}
    for line in read("uprobe_profile").splitlines():
        parts = line.split()
        if len(parts) >= 3:
            hits[parts[-2]] = int(parts[-1])
    return hits


def helper_pids(svc):
    """The kernel helpers tracectld started (not yet reaped)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat.rsplit(")", 1)[1].split()
        if comm == HELPER_COMM and int(fields[1]) == svc.proc.pid and fields[0] != "Z":
            found.append(int(entry))
    return found


def copy_binary(path, owner=None, mode=0o755):
    """A copy of the tracectl CLI (self-contained, with a 'main' symbol)."""
    shutil.copyfile(TRACECTL, path)
    os.chmod(path, mode)
    if owner:
        os.chown(path, owner.uid, pwd.getpwnam(owner.name).pw_gid)
    return path


def gvariant_string(text):
    """text as a GVariant text-format string, for gdbus call."""
    escaped = (text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n")
               .replace("\t", "\\t"))
    return "'" + escaped + "'"


def add_probe_gdbus(svc, user, session, kind, name, location):
    """AddKernelProbe straight on the bus: the error name is kept."""
    path = svc.gdbus(*MANAGER, "--method", "org.tracectl.Tracing1.Manager.FindSession",
                     session, user=user).stdout.strip().split("'")[1]
    return svc.gdbus("--object-path", path, "--method",
                     "org.tracectl.Tracing1.Session.AddKernelProbe", gvariant_string(kind),
                     gvariant_string(name), gvariant_string(location), user=user)


def elf_with_symbols(path, nr_symbols, file_size=None, function=b"f", shoff=None):
    """A small ELF64 whose .symtab holds nr_symbols entries, all zero (a
    sparse hole) but the last, the function 'function' at 0x1000. The
    section headers sit at shoff (by default after the tables); the file
    is file_size bytes long (sparse), by default just what it holds."""
    names = b"\0" + function + b"\0"
    symtab_offset = 0x2000
    symtab_size = nr_symbols * 24
    strtab_offset = symtab_offset + symtab_size
    end_of_tables = strtab_offset + len(names)
    if shoff is None:
        shoff = (end_of_tables + 7) & ~7
    phdr = struct.pack("=IIQQQQQQ", 1, 5, 0, 0, 0, 0x10000, 0x10000, 0x1000)
    ehdr = (b"\x7fELF" + bytes([2, 1, 1, 0]) + b"\0" * 8 +
            struct.pack("=HHIQQQIHHHHHH", 3, 62, 1, 0, 64, shoff, 0, 64, 56, 1, 64, 3, 0))
    null = b"\0" * 64
    symtab = struct.pack("=IIQQQQIIQQ", 0, 2, 0, 0, symtab_offset, symtab_size, 2, 0, 8, 24)
    strtab = struct.pack("=IIQQQQIIQQ", 0, 3, 0, 0, strtab_offset, len(names), 0, 0, 1, 0)
    last = struct.pack("=IBBHQQ", 1, 0x12, 0, 1, 0x1000, 16)
    with open(path, "wb") as f:
        f.write(ehdr + phdr)
        f.seek(symtab_offset + symtab_size - 24)
        f.write(last + names)
        f.seek(shoff)
        f.write(null + symtab + strtab)
        f.truncate(max(file_size or 0, shoff + 3 * 64))
    return path


class Victim:
    """Another user's kernel session, run again and again in a thread while
    an attack goes on: create -k, enable sched_switch, start, stop, a
    non-empty trace, destroy. Each command's time is kept."""

    def __init__(self, svc, user):
        self.svc, self.user = svc, user
        self.durations, self.errors, self.rounds = [], [], 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.loop, daemon=True)

    def cli(self, *args):
        result, took = self.svc.timed_cli(*args, user=self.user, check_ok=False, timeout=60)
        self.durations.append((took, args[0]))
        if result.returncode != 0:
            self.errors.append(f"{' '.join(args)}: {result.stderr.strip()}")
        return result

    def one_round(self):
        name = f"victim{self.rounds}"
        out = os.path.join(self.user.home, name)
        self.cli("create", name, "--output", out)
        self.cli("enable-event", "-k", "sched:sched_switch")
        self.cli("start")
        time.sleep(0.3)
        self.cli("stop")
        kernel = os.path.join(out, "kernel")
        size = sum(os.path.getsize(os.path.join(kernel, f)) for f in os.listdir(kernel)
                   if f != "metadata") if os.path.isdir(kernel) else 0
        if size == 0:
            self.errors.append(f"round {self.rounds}: an empty kernel trace")
        self.cli("destroy", name)
        self.rounds += 1

    def loop(self):
        while not self.stopping.is_set():
            self.one_round()

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stopping.set()
        self.thread.join(timeout=120)

    def check(self, slowest_s=5.0):
        check(self.rounds >= 1, "the victim finished no round")
        check(not self.errors, f"the victim's kernel session failed: {self.errors[:3]}")
        worst = max(self.durations)
        log(f"victim: {self.rounds} rounds, {len(self.durations)} commands, slowest "
            f"{worst[0]:.2f} s ({worst[1]})")
        check(worst[0] < slowest_s, f"a victim command took {worst[0]:.1f} s ({worst[1]})")


def as_user(user, script, *args, background=False):
    """/usr/bin/python3 -c script, as user."""
    argv = ["setpriv", f"--reuid={user.uid}", f"--regid={pwd.getpwnam(user.name).pw_gid}",
            "--init-groups",
            "/usr/bin/python3", "-c", script, *args]
    if background:
        return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return subprocess.run(argv, capture_output=True, text=True, timeout=60)
