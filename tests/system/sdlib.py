# SPDX-License-Identifier: LGPL-2.1-or-later
"""A real systemd, booted as PID 1 of a PID and mount namespace (see
docs/testing.md), with tracectl installed into it the way a distribution would:
units in /etc/systemd/system, bus policy in /etc/dbus-1/system.d, the bus
activation file in /usr/local/share/dbus-1/system-services, binaries in
/usr/local, the polkit policy and rules where polkitd reads them, and the
tracectl system user. Everything installed into the host is removed (or
restored) at the end, and systemd is powered off.
"""

import grp
import json
import os
import pwd
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "integration", "lib"))
from tclib import SKIP, Installed, User, check, log, require, wait_for  # noqa: E402

BUILD = os.environ.get("TRACECTL_BUILD_ROOT", "build")
SOURCE = os.environ.get("TRACECTL_SOURCE_ROOT", ".")
SYSTEMD = "/lib/systemd/systemd"
ENV = {"PATH": "/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin", "LANG": "C.UTF-8"}


class SystemdMachine:
    def __init__(self):
        require(os.geteuid() == 0, "system tests need root")
        require(os.path.exists(SYSTEMD), "systemd is not installed")
        require(shutil.which("unshare") and shutil.which("nsenter"), "util-linux is missing")
        require(os.path.exists(os.path.join(BUILD, "data", "tracectld.service")),
                "the build has no units")
        self.installed = Installed()
        self.users = []
        self.created_system_user = False
        self.created_group = False
        self.created_dirs = []
        self.proc = None
        self.pid = None

    # Installing.
    def install(self):
        data = os.path.join(BUILD, "data")
        put = self.installed.install
        for unit in ("tracectld.service", "tracectld.socket", "tracectl-consumer@.service",
                     "tracectl-kernel-helper.service", "tracectl-kernel-helper.socket"):
            put(os.path.join(data, unit), f"/etc/systemd/system/{unit}")
        put(os.path.join(data, "org.tracectl.Tracing1.conf"),
            "/etc/dbus-1/system.d/org.tracectl.Tracing1.conf")
        put(os.path.join(data, "org.tracectl.Tracing1.service"),
            "/usr/local/share/dbus-1/system-services/org.tracectl.Tracing1.service")
        put(os.path.join(SOURCE, "policy", "org.tracectl.policy"),
            "/usr/share/polkit-1/actions/org.tracectl.policy")
        put(os.path.join(SOURCE, "policy", "org.tracectl.rules"),
            "/etc/polkit-1/rules.d/60-org.tracectl.rules")
        binaries = {
            "service/tracectld/tracectld": "/usr/local/libexec/tracectld",
            "service/consumerd/tracectl-consumerd": "/usr/local/libexec/tracectl-consumerd",
            "service/kernel-helper/tracectl-kernel-helper":
                "/usr/local/libexec/tracectl-kernel-helper",
            "client/tracectl": "/usr/local/bin/tracectl",
            "probes/examples/tracectl-example-app": "/usr/local/bin/tracectl-example-app",
        }
        for source, target in binaries.items():
            put(os.path.join(BUILD, source), target)
            os.chmod(target, 0o755)
        lib = os.path.realpath(os.path.join(BUILD, "probes", "libtracectl-ust.so.0"))
        put(lib, "/usr/local/lib/libtracectl-ust.so.0")
        # The service account and the kernel-tracing group, as sysusers.d says.
        try:
            pwd.getpwnam("tracectl")
        except KeyError:
            subprocess.run(["useradd", "--system", "--no-create-home", "--shell",
                            "/usr/sbin/nologin", "tracectl"], check=True)
            self.created_system_user = True
        try:
            grp.getgrnam("tracing")
        except KeyError:
            subprocess.run(["groupadd", "--system", "tracing"], check=True)
            self.created_group = True

    def add_dropin(self, unit, text):
        """A drop-in for unit, removed with everything else."""
        directory = f"/etc/systemd/system/{unit}.d"
        if not os.path.isdir(directory):
            os.makedirs(directory)
            self.created_dirs.append(directory)
        path = os.path.join(directory, "50-test.conf")
        with open(path, "w") as f:
            f.write(text)
        self.installed.saved.append((path, None))
        self.run("systemctl", "daemon-reload")

    def add_user(self, name, groups=()):
        user = User(name, groups)
        self.users.append(user)
        return user

    # Booting.
    def boot(self):
        script = ("mount -t tmpfs tmpfs /tmp && "
                  "exec env container=other " + SYSTEMD + " --system --unit=basic.target")
        self.proc = subprocess.Popen(
            ["unshare", "--pid", "--fork", "--mount", "--mount-proc",
             "--propagation", "private", "sh", "-c", script],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)

        def find_pid():
            out = subprocess.run(["pgrep", "-f", "-P", str(self.proc.pid), "systemd"],
                                 capture_output=True, text=True).stdout.split()
            # unshare forks: systemd is its child (PID 1 inside).
            self.pid = int(out[0]) if out else None
            return self.pid is not None
        wait_for(find_pid, 20, "systemd to start")

        def booted():
            state = self.run("systemctl", "is-system-running", check_ok=False).stdout.strip()
            return state in ("running", "degraded")
        wait_for(booted, 60, "systemd to finish booting")
        self.run("systemctl", "daemon-reload")
        self.run("ldconfig")

    def run(self, *args, user=None, check_ok=True, timeout=120):
        """Runs a command inside, as user (None: root)."""
        prefix = ["nsenter", "-t", str(self.pid), "-m", "-p"]
        if user is not None:
            entry = pwd.getpwnam(user.name)
            prefix += ["setpriv", f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}",
                       "--init-groups", "--"]
            env = dict(ENV, HOME=entry.pw_dir)
        else:
            env = dict(ENV, HOME="/root")
        proc = subprocess.run(prefix + list(args), env=env, capture_output=True, text=True,
                              timeout=timeout)
        if check_ok and proc.returncode != 0:
            raise AssertionError(f"{' '.join(args)} failed ({proc.returncode}): "
                                 f"{proc.stdout} {proc.stderr}")
        return proc

    def tracectl_json(self, *args, user=None):
        """The parsed result of `tracectl --json=short ARGS` inside, which
        must succeed (docs/json.md)."""
        return json.loads(self.run("tracectl", "--json=short", *args, user=user).stdout)

    def popen(self, *args, user):
        entry = pwd.getpwnam(user.name)
        return subprocess.Popen(
            ["nsenter", "-t", str(self.pid), "-m", "-p", "setpriv",
             f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}", "--init-groups", "--",
             *args],
            env=dict(ENV, HOME=entry.pw_dir), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True)

    def journal(self, unit):
        return self.run("journalctl", "--no-pager", "-u", unit, check_ok=False).stdout

    def shutdown(self):
        if self.pid:
            self.run("systemctl", "poweroff", check_ok=False, timeout=30)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, 9)
                self.proc.wait()
        for user in self.users:
            user.remove()
        if self.created_system_user:
            subprocess.run(["userdel", "tracectl"], check=False)
        if self.created_group:
            subprocess.run(["groupdel", "tracing"], check=False)
        self.installed.restore()
        for directory in reversed(self.created_dirs):
            try:
                os.rmdir(directory)
            except OSError:
                pass
        subprocess.run(["ldconfig"], check=False)

    def __enter__(self):
        try:
            self.install()
            self.boot()
        except BaseException:
            self.shutdown()
            raise
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None and self.pid:
            for unit in ("tracectld.service", "polkit.service", "tracectl-consumer@*"):
                log(f"---- journal of {unit} ----")
                log(self.journal(unit)[-8000:])
        self.shutdown()
        return False


def run_test(test):
    try:
        test()
    except AssertionError as error:
        log("FAIL:", error)
        sys.exit(1)
    log("PASS")


__all__ = ["SystemdMachine", "run_test", "check", "wait_for", "SKIP", "time"]
