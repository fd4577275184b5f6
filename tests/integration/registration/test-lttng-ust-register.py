#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Applications instrumented with LTTng-UST (Debian's liblttng-ust, not
tracectl's library) register with tracectld on LTTng's global paths,
whether they start before the service (they wait on LTTng's wait page
and are woken) or after it (their constructor gets register_done at
once); `tracectl list -u` shows them to their owner with their pid, uid,
kind and tracepoints, never to another user; one over
MaxLttngApplications is refused with a line naming the limit; one that
dies leaves the listing, its sockets closed. Applications of another
LTTng-UST ABI major or word size are refused with one log line each that
names both versions, and listed (to their owner) as not served, with
why, until they exit. With a real lttng-sessiond on the global socket, tracectld
keeps off it and says so in its status; a socket nobody answers on is
taken over. `tracectl list -p` shows a Python program's logging agent
and its loggers to its owner and root, not to another user."""

import os
import pwd
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from tclib import BUILD, SKIP, Service, check, log, require, run, wait_for

LTTNG_APP = os.path.join(BUILD, "tests", "integration", "apps", "tracectl-lttng-app")
AGENT_APP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "apps",
                         "lttng-agent-app.py")
GLOBAL_SOCKET = "/var/run/lttng/lttng-ust-sock-8"
WAIT_PAGE = "/dev/shm/lttng-ust-wait-8"
# LTTng's log levels of the test provider's events (lttng/ust-tracepoint-event.h).
# Fields as a set: LTTng-UST lists them in an order of its own.
EXPECTED = {
    "tc_lttng_test:tick": (6, {"integer count"}),  # INFO
    "tc_lttng_test:message": (4, {"string text", "float ratio"}),  # WARNING
    "tc_lttng_test:failure": (3, {"integer code"}),  # ERR
    "tc_lttng_test:state": (14, {"enum phase"}),  # DEBUG
}


def start_app(svc, user):
    """The LTTng-UST test application as user; returns it and how long
    its constructor held main()."""
    env = svc.env(user)
    started = time.monotonic()
    proc = subprocess.Popen(svc._as(user) + [LTTNG_APP], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=user.home)
    svc.apps.append(proc)
    line = proc.stdout.readline()
    check(line.startswith("ready"), f"the LTTng-UST application did not start: {line!r}")
    return proc, time.monotonic() - started


def listed(svc, user=None):
    """{pid: application} of the LTTng-UST applications user sees."""
    return {app["pid"]: app for app in svc.applications(user=user) if app["kind"] == "lttng-ust"}


def check_listing(app, proc, user):
    check(app["uid"] == user.uid, f"pid {proc.pid} listed with uid {app['uid']}, not {user.uid}")
    check(app["tracer_version"].startswith("lttng-ust "),
          f"tracer version {app['tracer_version']!r} does not say LTTng-UST")
    events = {event["name"]: (event["log_level"], set(event["fields"].split(", ")))
              for event in app["events"]}
    ours = {name: value for name, value in events.items() if name.startswith("tc_lttng_test:")}
    check(ours == EXPECTED, f"pid {proc.pid} listed the events {ours}, not {EXPECTED}")
    # liblttng-ust's own providers are the application's too.
    check("lttng_ust_tracef:event" in events, f"pid {proc.pid}: no lttng_ust_tracef:event")


def answers(path):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        try:
            sock.connect(path)
            return True
        except OSError:
            return False


def open_fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def lttng_status(svc):
    """The manager's LttngUstApplications, which `tracectl status` shows."""
    result = svc.gdbus("--object-path", "/org/tracectl/Tracing1",
                       "--method", "org.freedesktop.DBus.Properties.Get",
                       "org.tracectl.Tracing1.Manager", "LttngUstApplications")
    check(result.returncode == 0, f"no LttngUstApplications property: {result}")
    return result.stdout


def registration_and_listing(svc, alice, bob):
    svc.stop()
    check(not os.path.exists(GLOBAL_SOCKET), "the global socket outlived the service")
    early, held = start_app(svc, alice)
    check(held < 2.5, f"with no session daemon, the constructor held main() {held:.2f} s")
    svc.start()
    wait_for(lambda: early.pid in listed(svc, alice), 20,
             "the application started first to register once woken")
    late, held = start_app(svc, alice)
    # LTTng-UST's constructor waits for register_done up to 3 s; the
    # bound leaves room for a loaded machine and still fails without it.
    log(f"the application started after the service waited {held:.2f} s for register_done")
    check(held < 2.5, f"register_done took {held:.2f} s")
    check(late.pid in listed(svc, alice), "the application started after the service is not listed")
    apps = listed(svc, alice)
    check_listing(apps[early.pid], early, alice)
    check_listing(apps[late.pid], late, alice)
    check(not ({early.pid, late.pid} & set(listed(svc, bob))), "bob sees alice's applications")
    check({early.pid, late.pid} <= set(listed(svc)), "root does not see alice's applications")
    # A third one of alice's is over MaxLttngApplications (2 here): refused,
    # with a log line that names the limit, and its main() runs on.
    offset = svc.log_offset()
    third, held = start_app(svc, alice)
    check(held < 2.5, f"the refused application was held {held:.2f} s")
    check(third.pid not in listed(svc, alice), "an application over the limit is listed")
    with open(svc.log_path, "rb") as f:
        f.seek(offset)
        refusals = [line for line in f.read().decode(errors="replace").splitlines()
                    if f"pid={third.pid}" in line and "MaxLttngApplications" in line]
    check(refusals, f"no refusal of pid {third.pid} naming MaxLttngApplications")
    third.kill()
    third.wait()
    # Its two sockets are closed on their hang-up, before any listing
    # would find it gone.
    fds = open_fds(svc.proc.pid)
    early.send_signal(signal.SIGKILL)
    early.wait()
    # At most: a descriptor another thread held for a moment when they
    # were counted may be closed since.
    wait_for(lambda: open_fds(svc.proc.pid) <= fds - 2, 10,
             "tracectld to close the killed application's two sockets")
    check(early.pid not in listed(svc, alice), "the killed application is still listed")
    check(late.pid in listed(svc, alice), "the living application went with the killed one")
    check(svc.alive(), "tracectld died")
    late.kill()
    late.wait()


def unsupported_registration(user, major, bits):
    """A child process of user that registers on the global socket as an
    LTTng-UST application of ABI major and bits per long (LTTng-UST 2.13's
    136-byte message) twice, as LTTng-UST retries, then waits to be
    killed."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        try:
            os.setgid(pwd.getpwnam(user.name).pw_gid)
            os.setuid(user.uid)
            message = struct.pack("=14I16s64s", 0xC57C57C5, major, 0, os.getpid(),
                                  os.getppid(), user.uid, os.getgid(), bits, 1, 2, 4, 8,
                                  bits // 8, 0, b"old-abi-app", b"")
            for _ in range(2):
                conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                conn.connect(GLOBAL_SOCKET)
                conn.sendall(message)
                conn.settimeout(10)
                conn.recv(16)  # the service closes it
                conn.close()
            os.write(write_end, b"sent")
            time.sleep(120)
        finally:
            os._exit(0)
    os.close(write_end)
    check(os.read(read_end, 16) == b"sent", "the unsupported application did not register")
    os.close(read_end)
    return pid


def unsupported_applications(svc, alice, bob):
    offset = svc.log_offset()
    old = unsupported_registration(alice, 10, 64)
    narrow = unsupported_registration(alice, 9, 32)
    try:
        wait_for(lambda: {old, narrow} <= set(listed(svc, alice)), 10,
                 "the unsupported applications listed")
        apps = listed(svc, alice)
        check("not served" in apps[old]["tracer_version"] and
              "ABI 10.0" in apps[old]["tracer_version"] and not apps[old]["events"],
              f"the ABI 10 application was listed as {apps[old]}")
        check("32-bit" in apps[narrow]["tracer_version"],
              f"the 32-bit application was listed as {apps[narrow]}")
        check(old not in listed(svc, bob), "bob sees alice's unsupported application")
        # Its second registration is not logged again.
        with open(svc.log_path, errors="replace") as f:
            f.seek(offset)
            text = f.read()
        check(text.count(f"pid={old} ") == 1 and "this service speaks" in text,
              f"the ABI 10 application was not refused once, naming both versions:\n"
              f"{text[-2000:]}")
    finally:
        for pid in (old, narrow):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    wait_for(lambda: old not in listed(svc, alice), 10, "the exited application unlisted")


def agents(svc, domain, user=None):
    """{pid: agent} of domain's agents user sees (tracectl list -p...)."""
    flag = {"python": "-p", "jul": "-j", "log4j": "-l"}[domain]
    found = svc.cli_json("list", flag, user=user)["agents"]
    check(all(agent["domain"] == domain for agent in found), f"list {flag}: {found}")
    return {agent["pid"]: agent for agent in found}


def agents_listing(svc, alice, bob):
    """A Python program with LTTng's logging agent: `tracectl list -p`
    shows its process and loggers to its owner and root, not to bob."""
    proc = subprocess.Popen(svc._as(alice) + ["/usr/bin/python3", AGENT_APP, "600", "0.05"],
                            env=svc.env(alice), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=alice.home)
    svc.apps.append(proc)
    line = proc.stdout.readline()
    check(line.startswith("ready"), f"the agent application did not start: {line!r}")
    loggers = {"app.alpha", "app.beta", "other"}
    wait_for(lambda: loggers <= set(agents(svc, "python", alice).get(proc.pid, {})
                                    .get("loggers", ())), 20,
             "the Python agent to list its loggers")
    mine = agents(svc, "python", alice)[proc.pid]
    check(mine["uid"] == alice.uid and mine["process_name"].startswith("python3"),
          f"listed as {mine}")
    out = svc.cli("list", "-p", user=alice).stdout
    check(out.startswith("python events (Logger name):") and
          f"PID: {proc.pid} - Name: python3" in out and "      - app.alpha" in out, out)
    check(proc.pid not in agents(svc, "python", bob), "bob sees alice's agent")
    check(proc.pid in agents(svc, "python"), "root does not see alice's agent")
    check(not agents(svc, "jul", alice), "alice has a JUL agent")
    check("None" in svc.cli("list", "-j", user=alice).stdout, "list -j is not empty")
    proc.kill()
    proc.wait()
    log(f"list -p: the Python agent pid {proc.pid} and its loggers, to its owner and root")


def another_session_daemon(svc, alice):
    sessiond = shutil.which("lttng-sessiond")
    if sessiond is None:
        log("lttng-sessiond is not installed: its part is skipped")
        return
    svc.stop()
    home = tempfile.mkdtemp(prefix="lttng-home-")
    proc = subprocess.Popen([sessiond, "--no-kernel"], env={**svc.env(), "LTTNG_HOME": home},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # Answering, not only there: the file exists from bind(), before
        # listen(), and a refused connection is what a stale one gives.
        wait_for(lambda: answers(GLOBAL_SOCKET), 20, "lttng-sessiond's global socket")
        inode = os.stat(GLOBAL_SOCKET).st_ino
        svc.start()
        status = lttng_status(svc)
        log(f"with lttng-sessiond running: {status}")
        check("another session daemon" in status, f"status: {status!r}")
        check(os.stat(GLOBAL_SOCKET).st_ino == inode, "tracectld replaced lttng-sessiond's socket")
        app, _ = start_app(svc, alice)
        time.sleep(0.5)
        check(app.pid not in listed(svc, alice), "an application of lttng-sessiond is listed")
        app.kill()
        app.wait()
        svc.stop()
        # Killed, it leaves its socket file: a stale socket, taken over.
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        check(os.path.exists(GLOBAL_SOCKET), "lttng-sessiond left no socket file to take over")
        svc.start()
        status = lttng_status(svc)
        log(f"after lttng-sessiond was killed: {status}")
        check("served on" in status, f"status after the stale socket: {status!r}")
        app, _ = start_app(svc, alice)
        check(app.pid in listed(svc, alice), "not registered after taking over a stale socket")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        shutil.rmtree(home, ignore_errors=True)


def test():
    require(os.path.exists(LTTNG_APP), f"{LTTNG_APP} is not built (no liblttng-ust)")
    config_dir = tempfile.mkdtemp(prefix="tracectld-conf-")
    config = os.path.join(config_dir, "tracectld.conf")
    with open(config, "w") as f:
        f.write("[Limits]\nMaxLttngApplications=2\n")
    try:
        with_service(config)
    finally:
        shutil.rmtree(config_dir, ignore_errors=True)


def with_service(config):
    with Service(args=["--lttng-ust", "--config", config]) as svc:
        status = lttng_status(svc)
        if "built without" in status:
            sys.exit(SKIP)
        check(f"served on '{GLOBAL_SOCKET}'" in status, f"status: {status!r}")
        check(os.path.exists(WAIT_PAGE), "no wait page")
        alice = svc.add_user("tctest-alice")
        bob = svc.add_user("tctest-bob")
        registration_and_listing(svc, alice, bob)
        unsupported_applications(svc, alice, bob)
        agents_listing(svc, alice, bob)
        another_session_daemon(svc, alice)


run(test)
