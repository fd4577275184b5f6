#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tracectl -H USER@HOST:PORT: a whole session driven through Debian's sshd
on 127.0.0.1, as a test user whose key sshd knows, from root's CLI.

sshd runs the bridge through a ForceCommand that checks what tracectl
asked for (`systemd-stdio-bridge`) and points the bridge at the embedded
service's bus instead of /run/dbus/system_bus_socket. The CLI runs as
root with the service's bus in DBUS_SYSTEM_BUS_ADDRESS: a CLI that
ignored -H would reach the same service as root, and every session would
be root's, not the remote user's. The session records the user's
application, `monitor --json` sees it start, and what would read this
machine's files for the remote one is refused. Then each failure (a key
sshd does not know, a host whose key is not the known one, a refused
connection, a host without the bridge, without a bus or without
tracectld, a host that never answers, a remote end that never speaks
D-Bus, a bridge killed under a monitor) must give its reason, ssh's
where ssh has one, and exit status 5, in bounded time.
"""

import json
import os
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tclib import TRACECTL, Service, check, log, require, run, wait_for  # noqa: E402
from relaylib import Relay  # noqa: E402
from tracelib import read_trace  # noqa: E402

SSHD = "/usr/sbin/sshd"
BRIDGE = "/usr/bin/systemd-stdio-bridge"
USER = "tcremote"
# Users whose host has no bridge, no bus, a bus without tracectld, or a
# bridge that never speaks.
NO_BRIDGE_USER = "tcremote-nb"
NO_BUS_USER = "tcremote-nd"
NO_SERVICE_USER = "tcremote-ns"
MUTE_USER = "tcremote-mu"
UNREACHABLE = 5
# Bounds on a failure: a refusal is quick; a host that never answers is
# bounded by ssh's ConnectTimeout of 20 s, which the CLI sets, and a
# remote end that never speaks D-Bus by the CLI's own 60 s.
QUICK_S = 15
SILENT_S = 45
MUTE_S = 75


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write(path, text, mode=0o644):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


def keygen(path):
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "", "-f", path],
                   check=True)
    with open(path + ".pub") as f:
        return f.read().strip()


class Sshd:
    """Debian's sshd on 127.0.0.1:port, its files in directory."""

    def __init__(self, svc, directory, users):
        self.dir = directory
        self.port = free_port()
        self.host_key = os.path.join(directory, "host_key")
        self.host_public = keygen(self.host_key)
        self.log_path = os.path.join(directory, "sshd.log")
        bridge = os.path.join(directory, "bridge")
        # What the CLI asks for, checked; the bus, the service's.
        write(bridge, "#!/bin/sh\n"
              "if [ \"$SSH_ORIGINAL_COMMAND\" != systemd-stdio-bridge ]; then\n"
              "  echo \"unexpected remote command: $SSH_ORIGINAL_COMMAND\" >&2; exit 1\n"
              "fi\n"
              f"exec {BRIDGE} --bus-path='{svc.address}'\n", 0o755)
        config = os.path.join(directory, "sshd_config")
        write(config, f"""Port {self.port}
ListenAddress 127.0.0.1
HostKey {self.host_key}
PidFile {directory}/sshd.pid
AuthenticationMethods publickey
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PermitRootLogin no
AllowUsers {' '.join(users)}
X11Forwarding no
ForceCommand {bridge}
Match User {NO_BRIDGE_USER}
    ForceCommand no-such-bridge
Match User {NO_BUS_USER}
    ForceCommand {BRIDGE} --bus-path=unix:path={directory}/no-bus
Match User {NO_SERVICE_USER}
    ForceCommand {BRIDGE} --bus-path=unix:path={directory}/empty-bus
Match User {MUTE_USER}
    ForceCommand exec sleep 600
""")
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
        check(subprocess.run([SSHD, "-t", "-f", config], capture_output=True).returncode == 0,
              "sshd -t refuses the configuration")
        self.logfile = open(self.log_path, "wb")
        self.proc = subprocess.Popen([SSHD, "-D", "-e", "-f", config], stdout=self.logfile,
                                     stderr=subprocess.STDOUT)
        svc.apps.append(self.proc)

        def listening():
            check(self.proc.poll() is None, f"sshd exited: {self.log()}")
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", self.port)) == 0
        wait_for(listening, 10, "sshd to listen")

    def log(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()[-4000:]


def ssh_wrapper(directory, name, key, known_host_line):
    """A TRACECTL_SSH: ssh with this key and only this known host."""
    known = os.path.join(directory, name + ".known_hosts")
    write(known, known_host_line + "\n", 0o600)
    path = os.path.join(directory, name + ".ssh")
    write(path, "#!/bin/sh\n"
          f"exec ssh -F /dev/null -i {key} -o IdentitiesOnly=yes -o BatchMode=yes "
          f"-o StrictHostKeyChecking=yes -o UserKnownHostsFile={known} "
          "-o GlobalKnownHostsFile=/dev/null \"$@\"\n", 0o755)
    return path


def tracectl(svc, ssh, host, *args, timeout=120):
    """tracectl -H host ARGS as root, with ssh as TRACECTL_SSH; returns
    (result, seconds)."""
    env = svc.env()
    env["TRACECTL_SSH"] = ssh
    start = time.monotonic()
    proc = subprocess.run([TRACECTL, "-H", host, *args], env=env, capture_output=True,
                          text=True, timeout=timeout, cwd="/", stdin=subprocess.DEVNULL)
    return proc, time.monotonic() - start


def ok(proc, what):
    check(proc.returncode == 0, f"{what}: status {proc.returncode}, {proc.stderr!r}")
    return proc


def test():
    for program in (SSHD, BRIDGE, "/usr/bin/ssh", "/usr/bin/ssh-keygen"):
        require(os.path.exists(program), f"{program} is not installed (openssh-server, systemd)")
    with Service() as svc:
        user = svc.add_user(USER)
        others = [svc.add_user(name) for name in (NO_BRIDGE_USER, NO_BUS_USER,
                                                  NO_SERVICE_USER, MUTE_USER)]
        directory = os.path.join(svc.rundir, "ssh")
        os.mkdir(directory, 0o755)
        key = os.path.join(directory, "id")
        public = keygen(key)
        wrong_key = os.path.join(directory, "wrong_id")
        keygen(wrong_key)
        for account in [user] + others:
            # A password of "*": no password, but not a locked account,
            # which sshd refuses even a key.
            subprocess.run(["usermod", "-p", "*", account.name], check=True)
            ssh_dir = os.path.join(account.home, ".ssh")
            os.makedirs(ssh_dir, mode=0o700, exist_ok=True)
            write(os.path.join(ssh_dir, "authorized_keys"), public + "\n", 0o600)
            for path in (ssh_dir, os.path.join(ssh_dir, "authorized_keys")):
                os.chown(path, account.uid, account.gid)
        sshd = Sshd(svc, directory, [user.name] + [o.name for o in others])
        host_line = f"[127.0.0.1]:{sshd.port} {sshd.host_public}"
        ssh = ssh_wrapper(directory, "good", key, host_line)
        host = f"{USER}@127.0.0.1:{sshd.port}"
        try:
            remote_session(svc, user, ssh, host)
            remote_refusals(svc, ssh, host)
            lost_connection(svc, user, ssh, host)
            failures(svc, sshd, directory, key, wrong_key, host_line, host)
        except AssertionError:
            log("---- sshd log ----")
            log(sshd.log())
            raise


def remote_session(svc, user, ssh, host):
    created, _ = tracectl(svc, ssh, host, "--json=short", "create", "far")
    check(json.loads(ok(created, "create").stdout)["name"] == "far", f"create: {created}")
    sessions = json.loads(ok(tracectl(svc, ssh, host, "--json=short", "list")[0],
                             "list").stdout)["sessions"]
    check([(s["name"], s["owner_uid"]) for s in sessions] == [("far", user.uid)],
          f"the remote user's sessions, from root's CLI through ssh: {sessions} "
          f"(uid {user.uid} expected)")
    # Root's own view of the service, on the local bus: the session is
    # the remote user's, not root's.
    local = svc.cli_json("list")["sessions"]
    check([(s["name"], s["owner_uid"]) for s in local] == [("far", user.uid)],
          f"the service's sessions seen by root locally: {local}")

    ok(tracectl(svc, ssh, host, "enable-event", "-u", "example:*", "-s", "far")[0],
       "enable-event")
    monitor = start_monitor(svc, ssh, host, user)
    try:
        ok(tracectl(svc, ssh, host, "start", "far")[0], "start")
        wait_for(lambda: "SessionStarted" in monitor_text(monitor), 20,
                 "monitor to print SessionStarted")
    finally:
        monitor_out = stop_monitor(monitor)
    started = [line for line in monitor_out.splitlines() if '"SessionStarted"' in line]
    check(started and json.loads(started[0])["signal"] == "SessionStarted",
          f"monitor --json through ssh: {monitor_out!r}")

    svc.run_app("--count", "5", user=user)
    ok(tracectl(svc, ssh, host, "stop", "far")[0], "stop")
    described = json.loads(ok(tracectl(svc, ssh, host, "--json=short", "list", "far")[0],
                              "list far").stdout)
    check(described["owner_uid"] == user.uid and described["state"] == "inactive",
          f"list far --json: {described}")
    events = [name for name, _ in read_trace(described["output_directory"])]
    check(len([e for e in events if e.startswith("example:")]) >= 5,
          f"the remote session recorded the user's application: {events[:20]}")

    # The trace's directory on the remote machine, which view cannot read.
    path = ok(tracectl(svc, ssh, host, "view", "--trace-path", "far")[0], "view -t").stdout
    check(path == described["output_directory"] + "\n", f"view --trace-path: {path!r}")
    version = json.loads(ok(tracectl(svc, ssh, host, "--json=short", "version")[0],
                            "version").stdout)
    check(version["service_version"] is not None, f"version through ssh: {version}")
    status, _ = tracectl(svc, ssh, host, "status")
    check(status.returncode == 3 and "with -H, name the session" in status.stderr,
          f"status without a name remotely: {status.returncode} {status.stderr!r}")
    # As text, a session of the caller's own (the remote user's) is just
    # "destroyed": tracectl knows who it is there.
    destroyed = ok(tracectl(svc, ssh, host, "destroy", "far")[0], "destroy").stdout
    check(destroyed == "Session far destroyed.\n", f"destroy: {destroyed!r}")
    left = json.loads(ok(tracectl(svc, ssh, host, "--json=short", "list")[0],
                         "list").stdout)["sessions"]
    check(left == [], f"sessions left: {left}")
    # Nothing of the remote session was written into root's files here.
    home = svc.env()["HOME"]
    for name in (".tracectlrc", ".tracectl-destroyed"):
        check(not os.path.exists(os.path.join(home, name)), f"~/{name} written")


def start_monitor(svc, ssh, host, user):
    env = svc.env()
    env["TRACECTL_SSH"] = ssh
    offset = svc.log_offset()
    out = open(os.path.join(svc.rundir, "monitor.out"), "w+")
    proc = subprocess.Popen([TRACECTL, "-H", host, "--json", "monitor"], env=env,
                            stdout=out, stderr=subprocess.PIPE, text=True, cwd="/",
                            stdin=subprocess.DEVNULL)
    svc.apps.append(proc)
    proc.out = out

    # Subscribed once the service says so, as the remote user.
    def subscribed():
        with open(svc.log_path, "rb") as f:
            f.seek(offset)
            return f"of uid {user.uid} added" in f.read().decode(errors="replace")
    wait_for(lambda: proc.poll() is None and subscribed(), 20, "the monitor's subscription")
    return proc


def monitor_text(proc):
    if proc.poll() is not None:
        check(False, f"monitor ended: {proc.returncode} {proc.stderr.read()!r}")
    proc.out.seek(0)
    return proc.out.read()


def stop_monitor(proc):
    proc.terminate()
    proc.wait(timeout=10)
    proc.out.seek(0)
    return proc.out.read()


def bridges(uid):
    """The pids of uid's systemd-stdio-bridge processes."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                command = f.read().split(b"\0")[0]
            with open(f"/proc/{entry}/status") as f:
                is_uid = f"\nUid:\t{uid}\t" in f.read()
            if is_uid and command.endswith(b"stdio-bridge"):
                found.append(int(entry))
        except (OSError, ValueError):
            continue
    return found


def lost_connection(svc, user, ssh, host):
    """A monitor whose remote end goes away ends with status 5, naming
    the host."""
    check(bridges(user.uid) == [], f"bridges left running: {bridges(user.uid)}")
    monitor = start_monitor(svc, ssh, host, user)
    [bridge] = bridges(user.uid)
    os.kill(bridge, 9)
    try:
        monitor.wait(timeout=QUICK_S)
    except subprocess.TimeoutExpired:
        check(False, "the monitor did not notice that its connection was lost")
    errors = monitor.stderr.read()
    check(monitor.returncode == UNREACHABLE and f"the connection to {host} was lost" in errors,
          f"monitor after its connection was lost: {monitor.returncode} {errors!r}")
    log(f"a lost connection: {errors.strip()}")


def remote_refusals(svc, ssh, host):
    """What would read this machine's files for the remote: refused."""
    for args, words in ((["view", "x"], "view cannot read the trace"),
                        (["save", "x"], "give their directory with -o"),
                        (["load"], "give them with -i"),
                        (["set-session", "x"], "there is no current session"),
                        (["create", "rel", "--output", "relative/dir"], "absolute path")):
        proc, _ = tracectl(svc, ssh, host, *args)
        check(proc.returncode == 2 and f"with -H {host}, " in proc.stderr and
              words in proc.stderr, f"{args}: {proc.returncode} {proc.stderr!r}")
    # A live session's relay is the remote host's own 127.0.0.1: a viewer
    # here would reach this machine's relay instead.
    with Relay(os.path.join(svc.rundir, "relay")) as relay:
        ok(tracectl(svc, ssh, host, "create", "lively", "--live", "--set-url", relay.url)[0],
           "create --live")
        for args in (["view", "--live", "lively"],
                     ["export", "--live", "lively", "--output", "-"]):
            proc, _ = tracectl(svc, ssh, host, *args)
            check(proc.returncode == 1 and "streams to the relay daemon of" in proc.stderr,
                  f"{args}: {proc.returncode} {proc.stderr!r}")
        ok(tracectl(svc, ssh, host, "destroy", "lively")[0], "destroy lively")
    bad, _ = tracectl(svc, ssh, "-oProxyCommand=x", "list")
    check(bad.returncode == 2 and "is not [USER@]HOST[:PORT]" in bad.stderr,
          f"a host that is an option: {bad.returncode} {bad.stderr!r}")


def expect_failure(svc, ssh, host, words, bound, what):
    proc, took = tracectl(svc, ssh, host, "list", timeout=bound + 30)
    check(proc.returncode == UNREACHABLE, f"{what}: status {proc.returncode}, {proc.stderr!r}")
    check(f"on {host.split('@')[-1]}" in proc.stderr or host in proc.stderr,
          f"{what}: the host is not named: {proc.stderr!r}")
    check(words in proc.stderr, f"{what}: {words!r} not in {proc.stderr!r}")
    check(took < bound, f"{what}: took {took:.1f} s (bound {bound} s)")
    log(f"{what}: {proc.stderr.strip()} ({took:.1f} s)")


def empty_bus(svc, directory):
    """A system bus of its own, where no tracectld runs."""
    config = os.path.join(directory, "empty-bus.conf")
    write(config, f"""<busconfig>
  <type>system</type>
  <listen>unix:path={directory}/empty-bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
""")
    proc = subprocess.Popen(["dbus-daemon", "--config-file", config, "--nofork", "--nopidfile"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    svc.apps.append(proc)
    wait_for(lambda: os.path.exists(os.path.join(directory, "empty-bus")), 10,
             "the empty bus")


def failures(svc, sshd, directory, key, wrong_key, host_line, host):
    wrong = ssh_wrapper(directory, "wrong-key", wrong_key, host_line)
    expect_failure(svc, wrong, host, "Permission denied (publickey)", QUICK_S,
                   "a key sshd does not know")
    # The known key of this host is another host's.
    other_host_key = keygen(os.path.join(directory, "other_host_key"))
    stranger = ssh_wrapper(directory, "wrong-host", key,
                           f"[127.0.0.1]:{sshd.port} {other_host_key}")
    expect_failure(svc, stranger, host, "Host key verification failed", QUICK_S,
                   "a host whose key is not the known one")
    good = os.path.join(directory, "good.ssh")
    closed = f"{USER}@127.0.0.1:{free_port()}"
    expect_failure(svc, good, closed, "Connection refused", QUICK_S, "a refused connection")
    expect_failure(svc, good, f"{NO_BRIDGE_USER}@127.0.0.1:{sshd.port}", "not found",
                   QUICK_S, "a host without systemd-stdio-bridge")
    expect_failure(svc, good, f"{NO_BUS_USER}@127.0.0.1:{sshd.port}", "ssh", QUICK_S,
                   "a host without a system bus")
    empty_bus(svc, directory)
    expect_failure(svc, good, f"{NO_SERVICE_USER}@127.0.0.1:{sshd.port}",
                   "org.tracectl.Tracing1", QUICK_S, "a host without the service")
    no_service, _ = tracectl(svc, good, f"{NO_SERVICE_USER}@127.0.0.1:{sshd.port}",
                             "--json=short", "list")
    errors = [json.loads(line) for line in no_service.stderr.splitlines()]
    check(len(errors) == 1 and errors[0]["error"] == "unreachable" and
          errors[0]["dbus_error"] == "org.freedesktop.DBus.Error.ServiceUnknown",
          f"the JSON error of a host without the service: {no_service.stderr!r}")
    # A host that accepts the connection and never speaks.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        expect_failure(svc, good, f"{USER}@127.0.0.1:{silent.getsockname()[1]}",
                       "timed out", SILENT_S, "a host that never answers")
    expect_failure(svc, good, f"{MUTE_USER}@127.0.0.1:{sshd.port}", "no answer within 60 s",
                   MUTE_S, "a remote end that never speaks D-Bus")


run(test)
