# SPDX-License-Identifier: LGPL-2.1-or-later
"""Debian's lttng-relayd on 127.0.0.1 (or ::1) for the streaming tests, and
readers of what a viewer prints while a session records."""

import contextlib
import os
import select
import signal
import socket
import subprocess
import threading
import time

from tclib import check, log, require, wait_for

LTTNG_RELAYD = "/usr/bin/lttng-relayd"


def family_of(host):
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def free_port(host="127.0.0.1"):
    with socket.socket(family_of(host), socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def free_ports(count, host="127.0.0.1"):
    """count distinct free ports: each stays bound until all are found, as
    ports asked for one after the other may repeat."""
    with contextlib.ExitStack() as stack:
        socks = [stack.enter_context(socket.socket(family_of(host), socket.SOCK_STREAM))
                 for _ in range(count)]
        for sock in socks:
            sock.bind((host, 0))
        return [sock.getsockname()[1] for sock in socks]


def port_is_open(port, host="127.0.0.1"):
    with socket.socket(family_of(host), socket.SOCK_STREAM) as sock:
        return sock.connect_ex((host, port)) == 0


def connection_holders(ports):
    """{pid: {peer port}} of the processes holding an established TCP
    connection to one of ports on this machine (the client ends: a relay
    daemon's own ends have those ports as local ports)."""
    inodes = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for line in f.readlines()[1:]:
                fields = line.split()
                port = int(fields[2].rsplit(":", 1)[1], 16)
                if fields[3] == "01" and port in ports:  # TCP_ESTABLISHED
                    inodes[f"socket:[{fields[9]}]"] = port
    holders = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    target = os.readlink(f"/proc/{pid}/fd/{fd}")
                    if target in inodes:
                        holders.setdefault(int(pid), set()).add(inodes[target])
    return holders


def start_streamed_session(svc, name, url):
    """Creates and starts a session streaming the example application's
    events to url, in small packets closed every 100 ms: the relay gets
    data all along."""
    svc.cli("create", name, "--set-url", url)
    svc.cli("enable-channel", "-u", "chan", "--switch-timer", "100000",
            "--subbuf-size", "16384")
    svc.cli("enable-event", "-u", "-c", "chan", "example:*")
    svc.cli("start")


def command_times(svc, seconds, directory, prefix="cmd", user=None, pause=0.0):
    """Creates and destroys a local session of user's again and again for
    seconds, pause between two: each needs an answer of the consumer, which
    a relay must not hold. Returns their times, less what polkitd held
    them (Service.polkit_waits())."""
    times, end = [], time.monotonic() + seconds
    while time.monotonic() < end:
        name = f"{prefix}{len(times)}"
        _, created = svc.timed_cli("create", name, "--output", os.path.join(directory, name),
                                   user=user)
        _, destroyed = svc.timed_cli("destroy", name, user=user)
        times.append(created + destroyed)
        time.sleep(pause)
    return times


def stream_through_trickle(svc, relay, proxy, owner, subbuf_size, num_subbuf):
    """owner's session "streamed" sends its data through proxy, an
    application writes without pause, and once the first data went
    through at full speed the proxy trickles: the consumer's socket and
    buffers fill. Returns the application."""
    svc.cli("create", "streamed", "--ctrl-url", f"tcp://127.0.0.1:{relay.ports[0]}",
            "--data-url", f"tcp://127.0.0.1:{proxy.port}", user=owner)
    svc.cli("enable-channel", "-u", "chan", "-s", "streamed", "--subbuf-size", subbuf_size,
            "--num-subbuf", num_subbuf, user=owner)
    svc.cli("enable-event", "-u", "-s", "streamed", "-c", "chan", "example:*", user=owner)
    svc.cli("start", "streamed", user=owner)
    app = svc.app("--forever", "--threads", "2", "--interval-us", "20", user=owner)
    wait_for(lambda: proxy.forwarded > 0, 10, "the first data through the proxy")
    proxy.trickle()
    return app


class TrickleProxy:
    """A TCP forwarder from a port of its own to target_port on 127.0.0.1:
    at full speed until trickle(), then STEP_BYTES every STEP_S, as a relay
    that takes data slowly but steadily. Its receive buffer holds a few
    steps, so what waits stays in the sender's socket; each read is at
    least a segment's worth, or TCP would not open the window again."""

    STEP_BYTES = 64 * 1024
    STEP_S = 0.5

    def __init__(self, target_port):
        self.target_port = target_port
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        # Before listen(): accepted sockets inherit it, window scale included.
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2 * self.STEP_BYTES)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(8)
        self.listener.settimeout(0.1)
        self.port = self.listener.getsockname()[1]
        self.trickling = threading.Event()
        self.stopping = threading.Event()
        self.forwarded = 0
        self.steps = []  # bytes read at each trickle step, in order
        self.sockets = []
        self.threads = [threading.Thread(target=self._accept, daemon=True)]
        self.threads[0].start()

    def trickle(self):
        self.trickling.set()

    def _accept(self):
        while not self.stopping.is_set():
            try:
                client = self.listener.accept()[0]
            except (socket.timeout, OSError):
                continue
            try:
                relay = socket.create_connection(("127.0.0.1", self.target_port), timeout=5)
            except OSError:
                client.close()
                continue
            # Blocking: each direction's thread waits in select(), and
            # a socket's timeout would be the other direction's too.
            client.settimeout(None)
            relay.settimeout(None)
            self.sockets += [client, relay]
            for args in ((client, relay, True), (relay, client, False)):
                thread = threading.Thread(target=self._forward, args=args, daemon=True)
                self.threads.append(thread)
                thread.start()

    def _forward(self, src, dst, to_relay):
        while not self.stopping.is_set():
            slow = to_relay and self.trickling.is_set()
            if slow and self.stopping.wait(self.STEP_S):
                break
            if not select.select([src], [], [], 0.1)[0]:
                if slow:
                    self.steps.append((time.monotonic(), 0))
                continue
            try:
                data = src.recv(self.STEP_BYTES)
            except OSError:
                break
            if not data:
                break
            if slow:
                self.steps.append((time.monotonic(), len(data)))
            try:
                dst.sendall(data)
            except OSError:
                break
            if to_relay:
                self.forwarded += len(data)

    def flowing(self, steps):
        """Whether each of the last steps, the last one just now, took
        data: the sender goes on sending, a little at a time."""
        last = self.steps[-steps:]
        return (len(last) == steps and all(n for _, n in last) and
                time.monotonic() - last[-1][0] < 2 * self.STEP_S)

    def close(self):
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=5)
        for sock in [*self.sockets, self.listener]:
            sock.close()


class HungRelay:
    """Listeners on the relay's ports that accept every connection and
    hold it, never reading nor answering: a relay daemon that stopped
    (on ports of its own unless given)."""

    def __init__(self, *ports):
        self.ports = list(ports) or free_ports(2)
        self.listeners = []
        for port in self.ports:
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind(("127.0.0.1", port))
            listener.listen(16)
            listener.settimeout(0.1)
            self.listeners.append(listener)
        self.held = []
        self.stopping = False
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        while not self.stopping:
            for listener in self.listeners:
                try:
                    self.held.append(listener.accept()[0])
                except (socket.timeout, OSError):
                    pass

    def close(self):
        self.stopping = True
        self.thread.join()
        for sock in [*self.held, *self.listeners]:
            sock.close()


class Relay:
    """lttng-relayd with control, data and live ports of its own on host
    (an IPv4 or an IPv6 address), writing under directory/relay; a context
    manager that kills it at the end."""

    def __init__(self, directory, *options, host="127.0.0.1"):
        require(os.access(LTTNG_RELAYD, os.X_OK), f"{LTTNG_RELAYD} is not installed")
        self.output = os.path.join(directory, "relay")
        self.home = os.path.join(directory, "relay-home")
        self.host = host
        self.ports = free_ports(3, host)
        self.options = list(options)  # more lttng-relayd options
        self.proc = None

    @property
    def authority(self):
        """The host as URLs write it: an IPv6 address in brackets."""
        return f"[{self.host}]" if family_of(self.host) == socket.AF_INET6 else self.host

    def listen_url(self, port):
        """lttng-relayd's URL for port: tcp6:// for an IPv6 address, which
        tcp:// does not take."""
        scheme = "tcp6" if family_of(self.host) == socket.AF_INET6 else "tcp"
        return f"{scheme}://{self.authority}:{port}"

    @property
    def url(self):
        scheme = "net6" if family_of(self.host) == socket.AF_INET6 else "net"
        return f"{scheme}://{self.authority}:{self.ports[0]}:{self.ports[1]}"

    @property
    def live_port(self):
        return self.ports[2]

    def start(self):
        os.makedirs(self.home, exist_ok=True)
        env = dict(os.environ, LTTNG_HOME=self.home)
        self.log = open(os.path.join(self.home, "relayd.log"), "ab")
        self.proc = subprocess.Popen(
            [LTTNG_RELAYD, "-o", self.output,
             *(arg for option, port in zip(("-C", "-D", "-L"), self.ports)
               for arg in (option, self.listen_url(port))), *self.options],
            env=env, stdout=self.log, stderr=subprocess.STDOUT)
        try:
            # A relay daemon that could not listen exits: no use waiting.
            wait_for(lambda: self.proc.poll() is not None or
                     all(port_is_open(p, self.host) for p in self.ports), 10, "lttng-relayd")
            check(self.proc.poll() is None, f"lttng-relayd exited ({self.proc.returncode})")
        except AssertionError:
            self.stop()
            with open(os.path.join(self.home, "relayd.log"), errors="replace") as f:
                log(f"lttng-relayd on {self.host} {self.ports}: {f.read()[-2000:]}")
            raise
        return self

    def stop(self, how=signal.SIGTERM):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(how)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc:
            self.log.close()
        self.proc = None

    def session_dir(self, hostname, name, closed=False):
        """The directory the relay made for session name of hostname (one
        only); with closed, once lttng-relayd is done with it, for a
        session destroyed and about to be read."""
        dirs = [d for d in self.trace_dirs(hostname)
                if os.path.basename(d).startswith(name + "-")]
        check(len(dirs) == 1, f"relay directories of {name}: {self.trace_dirs(hostname)}")
        if closed:
            self.wait_closed(dirs[0])
        return dirs[0]

    def files_open_under(self, path):
        """The files under path that lttng-relayd holds open."""
        if not self.proc:
            return []
        path = os.path.realpath(path)
        held = []
        fd_dir = f"/proc/{self.proc.pid}/fd"
        with contextlib.suppress(OSError):
            for fd in os.listdir(fd_dir):
                with contextlib.suppress(OSError):
                    target = os.readlink(os.path.join(fd_dir, fd))
                    if target == path or target.startswith(path + os.sep):
                        held.append(os.path.relpath(target, path))
        return sorted(held)

    def wait_closed(self, path, timeout=10):
        """Waits until lttng-relayd is done with the session whose
        directory is path: it closes a stream's files once it has written
        everything the stream was sent, and the session's directory when
        the session ends. The consumer waits for the relay to confirm its
        packets for a bounded time only, so a relay that lags (a loaded
        machine) may still be writing when destroy returns, and a trace
        read then may end in a cut packet."""
        try:
            wait_for(lambda: not self.files_open_under(path), timeout,
                     f"lttng-relayd to close its files under {path}")
        except AssertionError as error:
            raise AssertionError(f"{error}: {self.files_open_under(path)}") from None

    def trace_dirs(self, hostname):
        """The session directories the relay made for hostname."""
        root = os.path.join(self.output, hostname)
        if not os.path.isdir(root):
            return []
        return sorted(os.path.join(root, name) for name in os.listdir(root))

    def __enter__(self):
        return self.start()

    def __exit__(self, exc_type, exc, tb):
        self.stop()
        if exc_type is not None:
            # Its errors (a write that failed, a protocol error) say what
            # it made of what it was sent.
            with contextlib.suppress(OSError), \
                    open(os.path.join(self.home, "relayd.log"), errors="replace") as f:
                log(f"lttng-relayd's log: {f.read()[-4000:] or '(empty)'}")
        return False


class Reader:
    """A process whose output lines are collected by a thread, with the
    time each arrived, so that a test can wait for a line without
    blocking on the pipe."""

    def __init__(self, argv, env):
        self.lines = []
        self.proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.errors = ""
        self.threads = [threading.Thread(target=self._read, daemon=True),
                        threading.Thread(target=self._read_errors, daemon=True)]
        for thread in self.threads:
            thread.start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append((time.monotonic(), line))

    def _read_errors(self):
        self.errors = self.proc.stderr.read()

    def has(self, text):
        return any(text in line for _, line in self.lines)

    def wait_for(self, text, timeout):
        wait_for(lambda: self.has(text) or self.proc.poll() is not None, timeout,
                 f"'{text}' from {self.proc.args}")
        check(self.has(text),
              f"{self.proc.args[:3]} ended ({self.proc.returncode}) without '{text}': "
              f"{self.errors[-2000:]}")

    def finish(self, timeout):
        """Waits for the end (the session ended); kills it after timeout
        and returns None then."""
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None
        for thread in self.threads:
            thread.join(timeout=5)
        return self.proc.returncode

    def kill(self):
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        self.proc.wait()
