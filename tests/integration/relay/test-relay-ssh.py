#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Streaming through SSH (net+ssh://): lttng-relayd listens on 127.0.0.1
of a network namespace of the test's, where Debian's sshd listens on the
namespace's end of a veth pair; from the test's side, the relay's ports
are refused both on the far address and on this side's loopback, so
the trace can only have gone through the tunnel. The far side's sshd
lets the tracing account forward to the relay's two ports and nothing
else (PermitOpen), and runs no command (ForceCommand /bin/false).

- A session file of the user's in the service's session directory
  (net+ssh:// in both of its URIs) is loaded at the start: its first
  connection is made through the tunnel without the creation waiting for
  it, and every event arrives, nothing lost, no Problem.
- A login whose key the far side does not know fails the creation with
  ssh's own words, within what a creation may take, and so does a
  forward the far side refuses.
- A session of a test user streams the example application through the
  tunnel: every event arrives. Its consumer's ssh runs as that user,
  with the owner's ssh configuration left alone (no StrictHostKeyChecking
  on its command line), its sockets in a 0700 directory of that user's.
- That ssh killed while the application writes: the consumer runs a new
  one and reconnects by itself, Problem says the relay was unreachable
  and reconnected, and the relay's trace reads whole, events from
  before and after, the packets dropped reported as discarded.
- A snapshot recorded to net+ssh:// goes through a tunnel of its own,
  every event of the buffers in the relay's copy.
- The key refused meanwhile (authorized_keys taken away, ssh killed):
  Problem names ssh's reason, "Permission denied (publickey)"; once the
  key is back the consumer reconnects.
- The session destroyed: its ssh has ended and its directory is gone;
  a consumer killed: its ssh dies with it.
- `tracectl view --live` of a live session streamed through SSH opens a
  tunnel of its own, as the user who runs it, to the relay's live port
  on the far side's loopback, and prints the events of an application
  started afterwards; its ssh ends when the viewer ends (the session
  destroyed). With the user's key refused there, it fails at once in
  ssh's words, with a non-zero exit; given a live port the far side does
  not forward to, it fails naming ssh's reason, not babeltrace2's chain
  of errors."""

import contextlib
import glob
import os
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from relaylib import Reader, Relay, port_is_open
import sessionxmllib
from sshlib import SSHD, Sshd, forwarding_only, give_keys, keygen
from tclib import (EXAMPLE_APP, TRACECTL, Service, check, children, consumer_pid, is_running, log,
                   require, run, wait_for)
from tracelib import read_streams

NS = "tcssh-far"
NEAR, FAR = "10.254.7.1", "10.254.7.2"
USER = "tcssh"
# A login on the far side whose authorized keys do not hold the owner's.
NOKEY_USER = "tcssh-nokey"
COUNT = 400
INTERVAL_US = 2000
# A creation waits 5 s for ssh at most, then its handshake: 10 s bounds it.
CREATE_S = 10


def ip(*args):
    subprocess.run(["ip", *args], check=True)


class FarSide:
    """The namespace NS joined to this side by a veth pair (NEAR here,
    FAR there), its loopback up."""

    def __enter__(self):
        subprocess.run(["ip", "netns", "del", NS], stderr=subprocess.DEVNULL)
        ip("netns", "add", NS)
        ip("link", "add", "tcssh0", "type", "veth", "peer", "name", "tcssh1", "netns", NS)
        ip("addr", "add", f"{NEAR}/30", "dev", "tcssh0")
        ip("link", "set", "tcssh0", "up")
        ip("-n", NS, "addr", "add", f"{FAR}/30", "dev", "tcssh1")
        ip("-n", NS, "link", "set", "tcssh1", "up")
        ip("-n", NS, "link", "set", "lo", "up")
        return self

    def __exit__(self, *exc):
        subprocess.run(["ip", "netns", "del", NS], stderr=subprocess.DEVNULL)
        return False


def listening(port):
    """Whether something listens on port in NS."""
    out = subprocess.run(["ss", "-N", NS, "-Hltn", f"sport = :{port}"], capture_output=True,
                         text=True).stdout
    return out.strip() != ""


class FarRelay(Relay):
    """lttng-relayd in NS, on its loopback only, lttng-relayd's ports."""

    def __init__(self, directory):
        super().__init__(directory)
        self.ports = [5342, 5343, 5344]

    def start(self):
        os.makedirs(self.home, exist_ok=True)
        self.log = open(os.path.join(self.home, "relayd.log"), "ab")
        self.proc = subprocess.Popen(
            ["ip", "netns", "exec", NS, "lttng-relayd", "-o", self.output,
             *(arg for option, port in zip(("-C", "-D", "-L"), self.ports)
               for arg in (option, f"tcp://127.0.0.1:{port}"))],
            env=dict(os.environ, LTTNG_HOME=self.home), stdout=self.log,
            stderr=subprocess.STDOUT)
        wait_for(lambda: self.proc.poll() is not None or all(map(listening, self.ports)), 10,
                 "lttng-relayd in the far namespace")
        check(self.proc.poll() is None, f"lttng-relayd exited ({self.proc.returncode})")
        return self


def problem(svc, user, name=None):
    """The Problem line of one tracectl status, or list NAME (both ask the
    consumer)."""
    command = ("list", name) if name else ("status",)
    for line in svc.cli(*command, user=user).stdout.splitlines():
        if line.strip().startswith("Problem:"):
            return line.strip()
    return ""


def tunnel_ssh(svc, user):
    """The pid of user's consumer's one ssh, and its command line."""
    found = []
    for pid in children(consumer_pid(svc, user.uid)):
        with contextlib.suppress(OSError), open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = f.read().decode().split("\0")[:-1]
            if os.path.basename(argv[0]) == "ssh" and is_running(pid):
                found.append((pid, argv))
    check(len(found) == 1, f"one ssh of the consumer expected: {found}")
    return found[0]


def check_ssh_process(pid, argv, user):
    with open(f"/proc/{pid}/status") as f:
        status = f.read()
    check(f"\nUid:\t{user.uid}\t" in status, f"ssh does not run as {user.name}")
    check(not any("StrictHostKeyChecking" in a or "KnownHostsFile" in a for a in argv),
          f"ssh's host key checking overridden: {argv}")
    check(argv[-2:] == ["--", FAR], f"the host after '--': {argv}")
    forwards = [argv[i + 1] for i, a in enumerate(argv) if a == "-L"]
    check(len(forwards) == 2 and forwards[0].endswith(":127.0.0.1:5342") and
          forwards[1].endswith(":127.0.0.1:5343"), f"forwards: {forwards}")
    directory = os.path.dirname(forwards[0].split(":")[0])
    st = os.stat(directory)
    check(st.st_uid == user.uid and st.st_mode & 0o777 == 0o700,
          f"the tunnel's directory {directory}: uid {st.st_uid}, mode {st.st_mode:o}")
    return directory


def autoloaded(directory, owner):
    """A session file of owner's streaming through SSH, loaded at start."""
    domain = sessionxmllib.ust_domain([sessionxmllib.channel(
        [sessionxmllib.event("example:*")], mode="DISCARD", switch_timer_us=100000,
        read_timer_us=100000, output_type="MMAP")])
    sessionxmllib.install(directory, "autossh.lttng", sessionxmllib.session(
        "autossh", [domain], output=f"net+ssh://{USER}@{FAR}"), owner.uid)


def test_autoloaded(svc, relay, user, hostname):
    wait_for(lambda: svc.cli("list", "autossh", user=user, check_ok=False).returncode == 0,
             15, "the auto-loaded session")
    svc.run_app("--count", str(COUNT), user=user)
    text = problem(svc, user, "autossh")
    check(text == "", f"the auto-loaded session has a Problem: {text!r}")
    svc.cli("stop", "autossh", user=user)
    svc.cli("destroy", "autossh", user=user)
    trace = read_streams(relay.session_dir(hostname, "autossh", closed=True))
    seqs = sorted(e["seq"] for e in trace["events"] if e["name"] == "example:all_types")
    check(seqs == list(range(COUNT)), f"{len(seqs)} of {COUNT} events of the loaded session")
    log(f"the auto-loaded session: all {COUNT} events through the tunnel")


def test_refused_creation(svc, user):
    url = f"net+ssh://{NOKEY_USER}@{FAR}"
    start = time.monotonic()
    refused = svc.cli("create", "refused", "--set-url", url, user=user, check_ok=False)
    took = time.monotonic() - start
    log(f"creation through a key not known there, {took:.1f} s: {refused.stderr.strip()}")
    check(refused.returncode != 0 and "Permission denied (publickey)" in refused.stderr and
          f"net+ssh://{NOKEY_USER}@{FAR}/5342:5343" in refused.stderr,
          f"the creation's error names the URL and ssh's reason: {refused}")
    check(took < CREATE_S, f"the refused creation took {took:.1f} s")
    # Logged in, but the far side forwards to the relay's ports only: ssh
    # says what became of the forward.
    refused = svc.cli("create", "refused", "--set-url", f"net+ssh://{USER}@{FAR}/6000:6001",
                      user=user, check_ok=False)
    log(f"a forward the far side refuses: {refused.stderr.strip()}")
    check(refused.returncode != 0 and "ssh: channel" in refused.stderr and
          "open failed" in refused.stderr, f"the creation's error names ssh's reason: {refused}")


def stream(svc, user, name, *app_args):
    svc.cli("create", name, "--set-url", f"net+ssh://{USER}@{FAR}", user=user)
    svc.cli("enable-channel", "-u", "chan", "-s", name, "--switch-timer", "100000",
            "--subbuf-size", "16384", user=user)
    svc.cli("enable-event", "-u", "-s", name, "-c", "chan", "example:*", user=user)
    svc.cli("start", name, user=user)


def test_every_event(svc, relay, user, hostname):
    stream(svc, user, "whole")
    listed = svc.cli_json("list", user=user)["sessions"]
    check([s.get("output_directory") for s in listed] == [f"net+ssh://{USER}@{FAR}/5342:5343"],
          f"the session's URL: {listed}")
    pid, argv = tunnel_ssh(svc, user)
    directory = check_ssh_process(pid, argv, user)
    log(f"ssh {pid}: {' '.join(argv)}")
    svc.run_app("--count", str(COUNT), user=user)
    svc.cli("stop", "whole", user=user)
    svc.cli("destroy", "whole", user=user)
    wait_for(lambda: not is_running(pid), 5, "the destroyed session's ssh to end")
    check(not os.path.exists(directory), f"{directory} left after the session")
    trace = read_streams(relay.session_dir(hostname, "whole", closed=True))
    seqs = sorted(e["seq"] for e in trace["events"] if e["name"] == "example:all_types")
    check(seqs == list(range(COUNT)), f"{len(seqs)} of {COUNT} events through the tunnel")
    log(f"all {COUNT} events through the tunnel")


def test_snapshot(svc, relay, user, hostname):
    svc.cli("create", "flight", "--snapshot", user=user)
    svc.cli("enable-event", "-u", "-s", "flight", "example:*", user=user)
    svc.cli("start", "flight", user=user)
    svc.run_app("--count", str(COUNT), user=user)
    url = f"net+ssh://{USER}@{FAR}"
    sent = svc.cli_json("snapshot", "record", "-s", "flight", url, user=user)["directory"]
    check(sent.startswith(f"{url}/5342:5343/{hostname}/flight-"), f"snapshot sent to {sent}")
    svc.cli("destroy", "flight", user=user)
    found = glob.glob(os.path.join(relay.output, hostname, "flight-*", "snapshot-*", "ust",
                                   "uid", "*", "*-bit"))
    check(len(found) == 1, f"the relay's copy of the snapshot: {found}")
    relay.wait_closed(found[0])
    seqs = sorted(e["seq"] for e in read_streams(found[0])["events"]
                  if e["name"] == "example:all_types")
    check(seqs == list(range(COUNT)), f"{len(seqs)} of {COUNT} events in the snapshot")
    log(f"a snapshot through the tunnel: {sent}")


def pinned_app(svc, user):
    """The example application on one CPU, so that the stream that loses
    packets had packets before: a gap needs a packet before it."""
    return svc.app("-c", "0", EXAMPLE_APP, "--forever", "--interval-us", str(INTERVAL_US),
                   user=user, program="taskset")


def test_tunnel_lost(svc, relay, user, hostname, authorized):
    stream(svc, user, "cut")
    app = pinned_app(svc, user)
    time.sleep(1.5)
    first, _ = tunnel_ssh(svc, user)
    os.kill(first, signal.SIGKILL)
    killed = time.monotonic()
    wait_for(lambda: "reconnected" in problem(svc, user), 15, "the consumer to reconnect")
    log(f"ssh killed, back after {time.monotonic() - killed:.1f} s: {problem(svc, user)}")
    second, _ = tunnel_ssh(svc, user)
    check(second != first, "the same ssh after the reconnection")

    # The key refused: the next ssh cannot log in, and Problem says so.
    os.rename(authorized, authorized + ".away")
    os.kill(second, signal.SIGKILL)
    wait_for(lambda: "Permission denied (publickey)" in problem(svc, user), 15,
             "Problem to name ssh's reason")
    refused = problem(svc, user)
    log(f"key refused: {refused}")
    check(f"relay net+ssh://{USER}@{FAR}/5342:5343 unreachable (ssh: {USER}@{FAR}: "
          "Permission denied (publickey).)" in refused and "lost" in refused,
          f"Problem: {refused!r}")
    check(app.poll() is None, "the application stopped while the tunnel was down")
    os.rename(authorized + ".away", authorized)
    wait_for(lambda: "reconnected" in problem(svc, user), 20, "the consumer to reconnect")
    log(f"key back: {problem(svc, user)}")
    time.sleep(1.0)
    app.terminate()
    app.wait(timeout=10)
    svc.cli("stop", "cut", user=user)
    svc.cli("destroy", "cut", user=user)

    trace = read_streams(relay.session_dir(hostname, "cut", closed=True))
    seqs = sorted(e["seq"] for e in trace["events"] if e["name"] == "example:all_types")
    gaps = [(a, b) for a, b in zip(seqs, seqs[1:]) if b != a + 1]
    log(f"{len(seqs)} events, gaps {gaps[:4]}, {trace['packets_lost']} packets lost")
    check(seqs and seqs[0] < 100, f"events from before the loss: {seqs[:3]}")
    check(gaps and seqs[-1] > gaps[-1][1], "no events after the tunnel came back")
    check(trace["packets_lost"] > 0, "the gap is not reported as discarded packets")


def children_named(parent, program):
    """The running children of parent that run program: (pid, argv)."""
    found = []
    for pid in children(parent):
        with contextlib.suppress(OSError), open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = f.read().decode().split("\0")[:-1]
            if argv and os.path.basename(argv[0]) == program and is_running(pid):
                found.append((pid, argv))
    return found


def viewer_ssh(viewer, user):
    """The pid of the viewer's ssh and its command line."""
    found = children_named(viewer.proc.pid, "ssh")
    check(len(found) == 1, f"one ssh of the viewer expected: {found}")
    pid, argv = found[0]
    with open(f"/proc/{pid}/status") as f:
        check(f"\nUid:\t{user.uid}\t" in f.read(), f"the viewer's ssh does not run as {user}")
    return pid, argv


def test_view_live(svc, user, authorized):
    svc.cli("create", "watched", "--set-url", f"net+ssh://{USER}@{FAR}", "--live=200000",
            user=user)
    svc.cli("enable-event", "-u", "-s", "watched", "example:*", user=user)
    svc.cli("start", "watched", user=user)

    # The key refused on the far side: ssh's words, at once, non-zero.
    os.rename(authorized, authorized + ".away")
    try:
        refused = svc.cli("view", "--live", "watched", user=user, check_ok=False, timeout=30)
    finally:
        os.rename(authorized + ".away", authorized)
    log(f"view --live with the key refused: {refused.returncode}: {refused.stderr.strip()}")
    check(refused.returncode != 0 and
          f"Cannot open an SSH tunnel to {USER}@{FAR} for the live viewer: ssh: "
          f"{USER}@{FAR}: Permission denied (publickey)." in refused.stderr,
          f"the viewer's error names the tunnel and ssh's reason: {refused}")

    # A live port the far side does not forward to: babeltrace2 sees its
    # connection closed, ssh's words say why.
    closed = svc.cli("view", "--live", "--live-port", "5345", "watched", user=user,
                     check_ok=False, timeout=30)
    log(f"view --live of a port not forwarded there: {closed.returncode}: "
        f"{closed.stderr.strip()}")
    check(closed.returncode != 0 and f"through the SSH tunnel to {USER}@{FAR}" in closed.stderr
          and "ssh: channel" in closed.stderr and "administratively prohibited" in closed.stderr
          and "CAUSED BY" not in closed.stderr,
          f"the viewer's error names ssh's reason: {closed}")

    viewer = Reader([*svc._as(user), TRACECTL, "view", "--live", "watched"], svc.env(user))
    try:
        wait_for(lambda: viewer.proc.poll() is not None or
                 children_named(viewer.proc.pid, "babeltrace2"), 30,
                 "the viewer to run babeltrace2 through its tunnel")
        time.sleep(1)  # attached, with no application yet
        check(viewer.proc.poll() is None, f"the viewer ended: {viewer.errors[-2000:]}")
        pid, argv = viewer_ssh(viewer, user)
        log(f"the viewer's ssh {pid}: {' '.join(argv)}")
        forward = argv[argv.index("-L") + 1]
        check(forward.startswith("127.0.0.1:") and forward.endswith(":127.0.0.1:5344") and
              argv[-2:] == ["--", FAR], f"the viewer's forward: {argv}")
        svc.run_app("--count", str(COUNT), user=user)
        viewer.wait_for("example:all_types", 30)
        svc.cli("destroy", "watched", user=user)
        check(viewer.finish(30) == 0, f"the viewer's end: {viewer.errors[-2000:]}")
        check(not is_running(pid), "the viewer's ssh outlived it")
        printed = sum("example:all_types" in line for _, line in viewer.lines)
        log(f"view --live through its own tunnel: {printed} events printed")
        check(printed == COUNT, f"{printed} of {COUNT} events printed by the viewer")
    finally:
        if viewer.proc.poll() is None:
            viewer.proc.kill()


def test_dies_with_consumer(svc, user):
    stream(svc, user, "orphan")
    pid, _ = tunnel_ssh(svc, user)
    os.kill(consumer_pid(svc, user.uid), signal.SIGKILL)
    wait_for(lambda: not is_running(pid), 5, "ssh to die with its consumer")
    log("the consumer killed, its ssh died with it")


def test():
    for program in (SSHD, "/usr/bin/ssh", "/usr/bin/ssh-keygen", "/usr/bin/lttng-relayd"):
        require(os.path.exists(program), f"{program} is not installed")
    require(subprocess.run(["ip", "netns", "list"], capture_output=True).returncode == 0,
            "ip netns does not work here")
    hostname = socket.gethostname()
    svc = Service()
    sessions = os.path.join(svc.rundir, "sessions")
    os.mkdir(sessions, 0o755)
    svc.args += ["--session-dir", sessions]
    user = svc.add_user(USER)
    nokey = svc.add_user(NOKEY_USER)
    with FarSide():
        directory = os.path.join(svc.rundir, "far")
        os.mkdir(directory, 0o755)
        key = os.path.join(directory, "id")
        public = keygen(key)
        # Keys only; the tracing accounts forward to the relay's control
        # and data ports and do nothing else.
        sshd = Sshd(svc, directory, [f"ListenAddress {FAR}",
                                     *forwarding_only([USER, NOKEY_USER],
                                                      [5342, 5343, 5344])],
                    lambda: listening(22), prefix=["ip", "netns", "exec", NS])
        give_keys(user, public, key=key, known_line=f"{FAR} {sshd.host_public}")
        give_keys(nokey, keygen(os.path.join(directory, "other_id")))
        autoloaded(sessions, user)
        with FarRelay(directory) as relay, svc:
            # Only through the tunnel: the relay's ports are the far
            # side's loopback's, closed on its address and on this side.
            for host in (FAR, "127.0.0.1"):
                check(not port_is_open(5342, host) and not port_is_open(5343, host),
                      f"the relay is reachable at {host} without the tunnel")
            check(port_is_open(22, FAR), "sshd is not reachable")
            try:
                test_autoloaded(svc, relay, user, hostname)
                test_refused_creation(svc, user)
                test_every_event(svc, relay, user, hostname)
                test_snapshot(svc, relay, user, hostname)
                test_view_live(svc, user, os.path.join(user.home, ".ssh", "authorized_keys"))
                test_tunnel_lost(svc, relay, user, hostname,
                                 os.path.join(user.home, ".ssh", "authorized_keys"))
                test_dies_with_consumer(svc, user)
                check(svc.alive(), "tracectld died")
            except AssertionError:
                log("---- sshd log ----")
                log(sshd.log())
                for path in glob.glob(os.path.join(relay.home, "*.log")):
                    with open(path, errors="replace") as f:
                        log(f"---- {path} ----\n{f.read()[-3000:]}")
                raise


run(test)
