# SPDX-License-Identifier: LGPL-2.1-or-later
"""Helpers of the integration tests: the real tracectld in embedded mode
(its own dbus-daemon and the real polkitd), the real CLI and example
application and test users. Reading traces is in tracelib.py, the
scheduler's slices in schedlib.py.

Every test starts its own service in a fresh run directory and removes
what it installed into system directories (polkit policy and rules, test
users) when it ends, even when it fails.
"""

import contextlib
import grp
import json
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SKIP = 77
BUILD = os.environ.get("TRACECTL_BUILD_ROOT", os.path.join(os.path.dirname(__file__), "..", "..", "..", "build"))
SOURCE = os.environ.get("TRACECTL_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", "..", ".."))
TRACECTLD = os.path.join(BUILD, "service", "tracectld", "tracectld")
TRACECTL = os.path.join(BUILD, "client", "tracectl")
EXAMPLE_APP = os.path.join(BUILD, "probes", "examples", "tracectl-example-app")
STRESS_APP = os.path.join(BUILD, "tests", "integration", "apps", "tracectl-stress-app")
FORK_APP = os.path.join(BUILD, "tests", "integration", "apps", "tracectl-fork-app")
CRED_APP = os.path.join(BUILD, "tests", "integration", "apps", "tracectl-cred-app")
POLKIT_ACTIONS = "/usr/share/polkit-1/actions/org.tracectl.policy"
POLKIT_RULES = "/etc/polkit-1/rules.d/60-org.tracectl.rules"
SYSTEM_PYTHON = "/usr/bin/python3"  # the one python3-bt2 imports under
# The service's account of a call that took 100 ms or more.
SLOW_CALL = re.compile(r"Slow call: (\S+) from \S+ \(uid (\d+)\) .*?: authorization ([0-9.]+) ms")


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def require(condition, why):
    if not condition:
        log("SKIP:", why)
        sys.exit(SKIP)


def check(condition, what):
    if not condition:
        raise AssertionError(what)


def wait_for(predicate, timeout=10.0, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


class Installed:
    """Files put into system directories for polkitd, restored at exit."""

    def __init__(self):
        self.saved = []

    def install(self, source, target):
        backup = None
        if os.path.exists(target):
            # Named after this object: two services of one test install
            # the same files, and restore them in the reverse order.
            backup = f"{target}.tracectl-test-backup-{id(self)}"
            shutil.copy2(target, backup)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(source, target)
        os.chmod(target, 0o644)
        self.saved.append((target, backup))

    def restore(self):
        for target, backup in reversed(self.saved):
            if backup:
                os.replace(backup, target)
            else:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(target)


class User:
    def __init__(self, name, groups=(), own_gid=False, uid=None):
        """own_gid: the user's primary group is a system group of its own,
        whose gid comes from the system range, which holds no uid, so a
        test that records ids tells a uid from a gid. uid: the user's, when
        the test needs one outside useradd's range."""
        self.name = name
        self.created = False
        self.created_groups = []
        for group in groups:
            try:
                grp.getgrnam(group)
            except KeyError:
                subprocess.run(["groupadd", "--system", group], check=True)
                self.created_groups.append(group)
        # Every test user's name is the test's own: one that exists already
        # was left by a run that was killed before it cleaned up, with its
        # home (snapshots, traces, session files) as that run left it.
        # Each test starts from an empty home.
        try:
            pwd.getpwnam(name)
            subprocess.run(["pkill", "-KILL", "-u", name], check=False)
            subprocess.run(["userdel", "--remove", name], check=False,
                           stderr=subprocess.DEVNULL)
        except KeyError:
            pass
        args = ["useradd", "--create-home", "--shell", "/bin/sh"]
        if own_gid:
            primary = f"{name}-g"
            with contextlib.suppress(KeyError):
                grp.getgrnam(primary)
                subprocess.run(["groupdel", primary], check=False)
            subprocess.run(["groupadd", "--system", primary], check=True)
            self.created_groups.append(primary)
            args += ["--no-user-group", "--gid", primary]
        if groups:
            args += ["--groups", ",".join(groups)]
        if uid is not None:
            args += ["--uid", str(uid)]
        # useradd warns of a uid outside UID_MIN..UID_MAX, and makes it.
        made = subprocess.run(args + [name], capture_output=True, text=True)
        if made.returncode != 0:
            raise AssertionError(f"useradd {name} failed: {made.stderr}")
        self.created = True
        entry = pwd.getpwnam(name)
        self.uid = entry.pw_uid
        self.gid = entry.pw_gid
        self.home = entry.pw_dir

    def remove(self):
        if self.created:
            subprocess.run(["pkill", "-KILL", "-u", self.name], check=False)
            subprocess.run(["userdel", "--remove", self.name], check=False,
                           stderr=subprocess.DEVNULL)
        for group in self.created_groups:
            subprocess.run(["groupdel", group], check=False)


class Result:
    def __init__(self, proc):
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr

    def __repr__(self):
        return f"<rc={self.returncode} out={self.stdout!r} err={self.stderr!r}>"

    @property
    def json(self):
        """stdout of a `tracectl --json` command, parsed (docs/json.md)."""
        return json.loads(self.stdout)

    @property
    def errors(self):
        """The error and warning objects `tracectl --json` wrote on
        stderr, one a line."""
        return [json.loads(line) for line in self.stderr.splitlines() if line.strip()]


def rundir_scope(rundir):
    """The scope tracectld gives the kernel helper's session ids of a run
    directory (FNV-1a, as tc-kernel.c computes it): the upper 32 bits of
    its tracefs instances' numbers."""
    scope = 2166136261
    for byte in os.fsencode(rundir):
        scope = ((scope ^ byte) * 16777619) & 0xFFFFFFFF
    return scope


def kernel_instances(rundir=None):
    """The tracectl-* tracefs instances of the service of rundir (of the
    last service started, by default), not those another run left."""
    rundir = rundir or LAST_RUNDIR[0]
    scope = rundir_scope(rundir) if rundir else None
    found = []
    with contextlib.suppress(FileNotFoundError):
        for name in os.listdir(os.path.join(TRACEFS, "instances")):
            number = name[len("tracectl-"):]
            if name.startswith("tracectl-") and number.isdigit() and \
                    (scope is None or int(number) >> 32 == scope):
                found.append(name)
    return sorted(found)


def remove_kernel_instances(rundir):
    """Instances a service of rundir left (killed, or crashed): nothing
    else would ever remove them, the next test's service has a scope of
    its own."""
    for name in kernel_instances(rundir):
        with contextlib.suppress(OSError):
            os.rmdir(os.path.join(TRACEFS, "instances", name))
            log(f"removed the tracefs instance {name} the service left")


LAST_RUNDIR = [None]


class Service:
    """tracectld --embedded in a private run directory."""

    def __init__(self, args=(), daemon_env=None, wrapper=()):
        """wrapper: a command that runs tracectld as its arguments, such as
        an unshare that gives it a host name of its own."""
        self.args = list(args)
        self.wrapper = list(wrapper)
        self.daemon_env = dict(daemon_env or {})
        for path in (TRACECTLD, TRACECTL, EXAMPLE_APP):
            require(os.path.exists(path), f"{path} is not built")
        require(os.geteuid() == 0, "integration tests need root (test users, polkitd)")
        require(os.path.exists("/usr/lib/polkit-1/polkitd"), "polkitd is not installed")
        require(shutil.which("dbus-daemon"), "dbus-daemon is not installed")
        self.installed = Installed()
        self.users = []
        self.rundir = tempfile.mkdtemp(prefix="tracectl-test-")
        LAST_RUNDIR[0] = self.rundir
        os.chmod(self.rundir, 0o755)
        self.log_path = os.path.join(self.rundir, "tracectld.log")
        self.proc = None
        self.apps = []

    def __enter__(self):
        try:
            self.installed.install(os.path.join(SOURCE, "policy", "org.tracectl.policy"),
                                   POLKIT_ACTIONS)
            self.installed.install(os.path.join(SOURCE, "policy", "org.tracectl.rules"),
                                   POLKIT_RULES)
            self.start()
        except BaseException:
            self.__exit__(*sys.exc_info())
            raise
        return self

    def env(self, user=None):
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
            "TRACECTL_RUNDIR": self.rundir,
            "LANG": "C.UTF-8",
        }
        if self.address:
            env["DBUS_SYSTEM_BUS_ADDRESS"] = self.address
        for key in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
            if key in os.environ:
                env[key] = os.environ[key]
        # Root's CLI remembers its current session in $HOME/.tracectlrc:
        # a home of the test's own keeps runs from seeing each other's.
        if user is None:
            os.makedirs(os.path.join(self.rundir, "root-home"), exist_ok=True)
        env["HOME"] = user.home if user else os.path.join(self.rundir, "root-home")
        return env

    def start(self, remove_stale=True):
        """Starts tracectld. After a killed instance, remove_stale=False
        leaves its files in place (as a crash does) and waits for a bus
        address other than the old one instead."""
        old_address = getattr(self, "address", None)
        self.address = None
        # A killed instance leaves its files: wait for the new ones.
        if remove_stale and self.proc is not None and self.proc.poll() is not None:
            for name in ("bus", "app.sock"):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(os.path.join(self.rundir, name))
        env = self.env()
        env.update(self.daemon_env)
        env["G_MESSAGES_DEBUG"] = "all"
        self.logfile = open(self.log_path, "ab")
        self.proc = subprocess.Popen([*self.wrapper, TRACECTLD, "--embedded", *self.args],
                                     env=env,
                                     stdout=self.logfile, stderr=subprocess.STDOUT)
        bus_file = os.path.join(self.rundir, "bus")
        sock = os.path.join(self.rundir, "app.sock")

        def ready():
            if self.proc.poll() is not None:
                raise AssertionError(f"tracectld exited with {self.proc.returncode}")
            if not (os.path.exists(bus_file) and os.path.exists(sock)):
                return False
            if remove_stale or old_address is None:
                return True
            with open(bus_file) as f:
                return f.read().strip() not in ("", old_address)
        try:
            wait_for(ready, 30, "tracectld to be ready")
        except AssertionError:
            self.dump_log()
            raise
        with open(bus_file) as f:
            self.address = f.read().strip()

    def log_offset(self):
        """Where the service's log ends now, for polkit_waits() and
        log_since()."""
        return os.path.getsize(self.log_path)

    def log_since(self, offset):
        """What the service logged from offset (a log_offset()) on."""
        with open(self.log_path, "rb") as f:
            f.seek(offset)
            return f.read().decode(errors="replace")

    def polkit_waits(self, offset=0, user=None, every_user=False, end=None):
        """[(method, seconds)]: how long each call the service logged as
        slow after offset (and before end, a later log_offset()), of user
        (root by default) or of every user, waited for
        polkitd's answer. Debian's polkitd 122 can miss the wake-up of the
        watchdog it runs the rules under and then answers that check, and
        queues every other, only after the watchdog's full 15 s
        (docs/testing.md, polkitd's stalls): polkitd's time, not tracectl's,
        and what a test bounds leaves it out."""
        uid = None if every_user else (user.uid if user else 0)
        with open(self.log_path, "rb") as f:
            f.seek(offset)
            text = f.read(-1 if end is None else max(0, end - offset)).decode(errors="replace")
        return [(m.group(1), float(m.group(3)) / 1000) for m in SLOW_CALL.finditer(text)
                if uid is None or int(m.group(2)) == uid]

    def own_time(self, took, offset, user=None, what="a command"):
        """took, less the time the calls of user (root by default) logged
        after offset waited for polkitd (polkit_waits() says why)."""
        if took >= 0.5:
            time.sleep(0.2)  # the service logs a slow call after its reply
        held = sum(s for _, s in self.polkit_waits(offset, user))
        if held >= 0.5:
            log(f"{what}: {took:.2f} s, {held:.2f} s of it waiting for polkitd, not counted")
        return took - held

    def timed_cli(self, *args, user=None, check_ok=True, timeout=120):
        """cli(), and the seconds it took less what polkitd held it."""
        offset = self.log_offset()
        start = time.monotonic()
        result = self.cli(*args, user=user, check_ok=check_ok, timeout=timeout)
        took = time.monotonic() - start
        return result, self.own_time(took, offset, user, f"tracectl {' '.join(args[:2])}")

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def dump_log(self):
        with contextlib.suppress(OSError):
            with open(self.log_path, "rb") as f:
                log("---- tracectld log ----")
                log(f.read().decode(errors="replace")[-20000:])
                log("-----------------------")

    def stop(self):
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.logfile.close()

    def __exit__(self, exc_type, exc, tb):
        for app in self.apps:
            if app.poll() is None:
                app.kill()
                app.wait()
        failed_exit = False
        if self.proc:
            self.stop()
            if exc_type is not None or self.proc.returncode not in (0, None):
                log(f"tracectld exit status: {self.proc.returncode}")
                self.dump_log()
                failed_exit = exc_type is None
        remove_kernel_instances(self.rundir)
        for user in self.users:
            user.remove()
        self.installed.restore()
        shutil.rmtree(self.rundir, ignore_errors=True)
        # A crash or a sanitizer report at exit is a failure too.
        check(not failed_exit, f"tracectld exited with status {self.proc.returncode}")
        return False

    def restart(self, how=signal.SIGTERM, remove_stale=True):
        """Ends the service with signal how, waits for it, starts a new
        instance in the same run directory."""
        self.proc.send_signal(how)
        self.proc.wait(timeout=30)
        self.logfile.close()
        self.start(remove_stale=remove_stale)

    def listed_pids(self, user=None):
        """The pids `tracectl list -u` shows (to user, root by default)."""
        return [app["pid"] for app in self.applications(user=user)]

    def applications(self, user=None):
        """`tracectl list -u --json`: the applications user sees."""
        return self.cli_json("list", "-u", user=user)["applications"]

    def listed_fields(self, program):
        """{event: fields} that `tracectl list -u` shows of one run of a
        test application that takes COUNT --pause (it prints "ready" and
        waits for SIGUSR1); the application is then let run to its end."""
        app = self.app("1", "--pause", program=program, wait_ready=True)
        wait_for(lambda: app.pid in self.listed_pids(), 10, "the application to be listed")
        listed = [a for a in self.applications() if a["pid"] == app.pid][0]
        app.send_signal(signal.SIGUSR1)
        app.communicate(timeout=60)
        return {event["name"]: event["fields"] for event in listed["events"]}

    def sessions(self, user=None):
        """`tracectl list --json`: the sessions user sees."""
        return self.cli_json("list", user=user)["sessions"]

    def session(self, name=None, user=None):
        """`tracectl list NAME --json`, or `status --json` without a name:
        one session with its channels."""
        return self.cli_json(*(("list", name) if name else ("status",)), user=user)

    def cli_json(self, *args, user=None, timeout=120):
        """The parsed JSON result of `tracectl --json=short ARGS`, which
        must succeed."""
        return self.cli("--json=short", *args, user=user, timeout=timeout).json

    def add_user(self, name, groups=(), own_gid=False, uid=None):
        user = User(name, groups, own_gid, uid)
        self.users.append(user)
        return user

    def _as(self, user):
        if user is None:
            return []
        return ["setpriv", f"--reuid={user.uid}", f"--regid={pwd.getpwnam(user.name).pw_gid}",
                "--init-groups", "--"]

    def cli(self, *args, user=None, check_ok=True, timeout=120):
        proc = subprocess.run(self._as(user) + [TRACECTL, *args], env=self.env(user),
                              capture_output=True, text=True, timeout=timeout,
                              cwd=user.home if user else "/")
        result = Result(proc)
        if check_ok and result.returncode != 0:
            raise AssertionError(f"tracectl {' '.join(args)} failed: {result}")
        return result

    def gdbus(self, *args, user=None):
        proc = subprocess.run(self._as(user) + ["gdbus", "call", "--system",
                                                "--dest", "org.tracectl.Tracing1", *args],
                              env=self.env(user), capture_output=True, text=True, timeout=120)
        return Result(proc)

    def app(self, *args, user=None, wait_ready=False, extra_env=None, program=EXAMPLE_APP):
        env = self.env(user)
        env["TRACECTL_UST_REGISTER_TIMEOUT"] = "5000"
        if extra_env:
            env.update(extra_env)
        proc = subprocess.Popen(self._as(user) + [program, *args], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.apps.append(proc)
        if wait_ready:
            line = proc.stdout.readline()
            check(line.strip() == "ready", f"example app did not get ready: {line!r}")
        return proc

    def run_app(self, *args, user=None, timeout=60, extra_env=None, program=EXAMPLE_APP):
        proc = self.app(*args, user=user, extra_env=extra_env, program=program)
        out, err = proc.communicate(timeout=timeout)
        check(proc.returncode == 0, f"example app failed ({proc.returncode}): {out} {err}")
        check(err == "", f"example app wrote to stderr: {err!r}")
        return out


def proc_status(pid, key):
    """An integer field of /proc/<pid>/status (kB for the Vm*/Rss* ones)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise AssertionError(f"no {key} in /proc/{pid}/status")


def is_sanitized(pid):
    """AddressSanitizer keeps freed memory in quarantine and maps shadow
    memory: the RSS of a process built with it says nothing."""
    with open(f"/proc/{pid}/maps") as f:
        return "libasan" in f.read()


def children(pid):
    """The pids whose parent is pid."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                with open(f"/proc/{entry}/stat") as f:
                    stat = f.read()
                if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry))
    return found


def consumer_pids(svc, uid=0):
    """The pids of uid's consumers, children of the service (one, unless
    one is being replaced)."""
    found = []
    for pid in children(svc.proc.pid):
        try:
            with open(f"/proc/{pid}/status") as f:
                status = f.read()
        except OSError:
            continue
        if "tracectl-consum" in status.split("\n", 1)[0] and f"\nUid:\t{uid}\t" in status:
            found.append(pid)
    return found


def consumer_pid(svc, uid=0):
    """The pid of uid's one consumer."""
    pids = consumer_pids(svc, uid)
    check(len(pids) == 1, f"one consumer of uid {uid} expected, found {pids}")
    return pids[0]


def is_running(pid):
    """pid exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def page_cache_bytes(path):
    """(bytes of the file in the page cache, file size), from fincore."""
    out = subprocess.run(["fincore", "--bytes", "--noheadings", "--output", "RES,SIZE", path],
                         capture_output=True, text=True, check=True).stdout.split()
    return int(out[0]), int(out[1])


# The file systems where the consumer writes packets of 256 KiB and more
# with direct I/O: ext4 (statfs says ext2/ext3, the same magic), XFS, Btrfs.
DIRECT_IO_FILE_SYSTEMS = {"ext2/ext3", "xfs", "btrfs"}


def file_system_type(path):
    return subprocess.run(["stat", "-f", "-c", "%T", path], capture_output=True, text=True,
                          check=True).stdout.strip()


TRACEFS = "/sys/kernel/tracing"


def mount_tracefs():
    """tracefs at TRACEFS, for the kernel tests (a fresh machine or
    container may not have it mounted)."""
    if not os.path.exists(os.path.join(TRACEFS, "instances")):
        subprocess.run(["mount", "-t", "tracefs", "nodev", TRACEFS], check=True)


def kernel_uses_tsc():
    """Whether sessions trace on the TSC clock by default: the kernel's
    clock source is the TSC, on x86-64 (common/abi and
    docs/ring-buffer.md, Trace clock)."""
    with open("/sys/devices/system/clocksource/clocksource0/current_clocksource") as f:
        return f.read().strip() == "tsc" and os.uname().machine == "x86_64"


def run(test):
    """Runs test(), turning an AssertionError into a failure with a message."""
    try:
        test()
    except AssertionError as error:
        log("FAIL:", error)
        sys.exit(1)
    log("PASS")
