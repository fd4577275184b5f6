#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Streaming through SSH (net+ssh://) against plain streaming (net://),
both tracectl, in one run: the same program (ust-loop.c, two 64-bit
integers per event), the same channel geometry, the same lttng-relayd
on 127.0.0.1, run as a test user whose consumer runs ssh to Debian's
sshd on 127.0.0.1 with that user's key and the user's ssh configuration
(none: OpenSSH's defaults, with AES-GCM first where the CPU has AES
instructions, as the tunnel prefers; sshd's log names the cipher).
Prints one line per figure:

  figure NAME ours=X anchor=Y ratio=X/Y unit=U

ssh_stream_throughput_mb_per_s  trace bytes the relay stored per second
                                of a paced run, at each way's top lossless
                                rate (bisection on the rate asked for, as
                                bench-relay.py, to 10 %); ours through the
                                tunnel, the anchor plain
ssh_stream_consumer_cpu_s       the consumer's CPU time (the scheduler's,
                                all threads) while CPU_EVENTS events are
                                streamed at half the lower top rate and
                                flushed; ours through the tunnel, the
                                anchor plain
ssh_stream_ssh_cpu_s            the tunnel's own CPU for the same events,
                                ssh (the consumer's child) and sshd (the
                                connection's processes) together, against
                                the plain consumer's: what encryption adds
                                beside the consumer; each is logged apart

TRACECTL_BENCH_QUICK=1 shortens every run (a check that the benchmark
works, not figures). TRACECTL_BENCH_SSH_CIPHERS=LIST writes "Ciphers LIST"
into the user's ~/.ssh/config, as an owner would choose a cipher, which
the tunnel then leaves alone (for example chacha20-poly1305@openssh.com,
OpenSSH's default, to compare).
docs/performance.md states the goals and the latest figures.
"""

import os
import re
import socket
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration", "lib"))
from relaylib import Relay, free_port  # noqa: E402
from sshlib import SSHD, Sshd, forwarding_only, give_keys, keygen  # noqa: E402
from tclib import SOURCE, BUILD, Service, check, children, consumer_pid, require  # noqa: E402
from benchlib import (figure, machine, thread_cpu_ns, top_lossless_rate,  # noqa: E402
                      tree_bytes)

QUICK = os.environ.get("TRACECTL_BENCH_QUICK") == "1"
PACED_SECONDS = 1.0 if QUICK else 2.0
RATE_LOW, RATE_HIGH = 100000.0, 20000000.0
# Finer than bench-relay.py's 1.4: the goal is a ratio of 0.8, which
# steps of 40 % cannot tell from 1.
BISECTION_STEP = 2.0 if QUICK else 1.1
CPU_EVENTS = 1000000 if QUICK else 5000000
WARM_UP_RATE, WARM_UP_SECONDS = 1000.0, 0.1
GEOMETRY = ["--subbuf-size", "1M", "--num-subbuf", "8"]
USER = "tcbench-ssh"
CIPHERS = os.environ.get("TRACECTL_BENCH_SSH_CIPHERS")


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def build(tmp):
    subprocess.run(["cc", "-O2", "-o", f"{tmp}/loop", f"{HERE}/ust-loop.c",
                    f"-I{SOURCE}/probes/include", f"-L{BUILD}/probes", "-ltracectl-ust",
                    f"-Wl,-rpath,{os.path.abspath(BUILD)}/probes", "-lpthread"], check=True)


class BenchSshd(Sshd):
    """Debian's sshd on 127.0.0.1, keys only, forwarding to the relay's
    ports only; its log names the cipher each connection negotiated."""

    def __init__(self, svc, directory, user, relay):
        self.port = free_port()
        super().__init__(svc, directory, [f"Port {self.port}", "ListenAddress 127.0.0.1",
                                          *forwarding_only([user.name], relay.ports[:2]),
                                          "LogLevel DEBUG1"],
                         lambda: port_open(self.port))

    def pids(self):
        """The processes of its connections (every descendant)."""
        found, todo = [], [self.proc.pid]
        while todo:
            for child in children(todo.pop()):
                found.append(child)
                todo.append(child)
        return found

    def ciphers(self):
        with open(self.log_path, errors="replace") as f:
            return sorted(set(re.findall(r"kex: client->server cipher: (\S+)", f.read())))


def port_open(port):
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def used_s(before, after):
    return sum(ns - before.get(tid, 0) for tid, ns in after.items()) / 1e9


def comm(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return None


class Way:
    """Sessions of USER streaming to url: plainly, or through ssh."""

    def __init__(self, name, svc, user, relay, url, program):
        self.name, self.svc, self.user, self.relay, self.url = name, svc, user, relay, url
        self.program = program
        self.n = 0

    def session(self):
        self.n += 1
        name = f"{self.name}{self.n}"
        cli = self.svc.cli
        cli("create", name, "--set-url", self.url, user=self.user)
        cli("enable-channel", "-u", "c", "-s", name, *GEOMETRY, user=self.user)
        cli("enable-event", "-u", "-s", name, "-c", "c", "bench:*", user=self.user)
        cli("start", name, user=self.user)
        return name

    def run_paced(self, rate, seconds):
        out = subprocess.run(self.svc._as(self.user) + [self.program, "paced", str(rate),
                                                        str(seconds)],
                             env=self.svc.env(self.user), check=True, capture_output=True,
                             text=True, timeout=600, cwd="/").stdout
        return float(re.search(r"rate=([0-9.]+)", out).group(1))

    def stop(self, name):
        """Stops (every packet sent and confirmed); the events discarded."""
        self.svc.cli("stop", name, user=self.user)
        status = self.svc.cli("list", name, user=self.user).stdout
        return sum(int(n) for n in re.findall(r"Events discarded: (\d+)", status))

    def destroy(self, name):
        self.svc.cli("destroy", name, user=self.user)
        return tree_bytes(self.session_dir(name))

    def session_dir(self, name):
        root = os.path.join(self.relay.output, socket.gethostname())
        found = [d for d in os.listdir(root) if d.startswith(name + "-")]
        check(len(found) == 1, f"relay directories for {name}: {found}")
        path = os.path.join(root, found[0])
        self.relay.wait_closed(path, timeout=30)
        return path

    def ssh_pids(self):
        return [pid for pid in children(consumer_pid(self.svc, self.user.uid))
                if comm(pid) == "ssh"]


def throughput(way):
    """Bisection on the paced rate: the trace bytes per second the relay
    stored in the best lossless run."""
    def trial(rate):
        name = way.session()
        reached = way.run_paced(rate, PACED_SECONDS)
        discarded = way.stop(name)
        stored = way.destroy(name)
        # A run that fell behind its schedule took longer than asked.
        mb_per_s = stored / (PACED_SECONDS * rate / reached) / 1e6
        log(f"{way.name}: asked {rate / 1e6:.2f} M/s, reached {reached / 1e6:.2f} M/s, "
            f"discarded {discarded}, relay stored {mb_per_s:.1f} MB/s")
        return discarded == 0 and reached >= 0.99 * rate, mb_per_s

    return top_lossless_rate(trial, RATE_LOW, RATE_HIGH, BISECTION_STEP)


def cpu(way, sshd, rate):
    """CPU seconds of the consumer, of ssh and of sshd while CPU_EVENTS
    events are streamed at rate and flushed (the stop waits until the
    relay has them all)."""
    name = way.session()
    way.run_paced(WARM_UP_RATE, WARM_UP_SECONDS)
    groups = {"consumer": [consumer_pid(way.svc, way.user.uid)], "ssh": way.ssh_pids(),
              "sshd": sshd.pids() if way.ssh_pids() else []}
    before = {group: thread_cpu_ns(pids) for group, pids in groups.items()}
    way.run_paced(rate, CPU_EVENTS / rate)
    discarded = way.stop(name)
    used = {group: used_s(before[group], thread_cpu_ns(pids)) for group, pids in groups.items()}
    stored = way.destroy(name)
    log(f"{way.name}: {CPU_EVENTS} events at {rate / 1e6:.2f} M/s, discarded {discarded}, "
        f"relay stored {stored / 1e6:.1f} MB; CPU: consumer {used['consumer']:.3f} s, "
        f"ssh {used['ssh']:.3f} s, sshd {used['sshd']:.3f} s")
    return used


def main():
    for program in (SSHD, "/usr/bin/ssh", "/usr/bin/ssh-keygen", "/usr/bin/lttng-relayd"):
        require(os.path.exists(program), f"{program} is not installed")
    log(f"on {machine()}")
    with tempfile.TemporaryDirectory(prefix="tracectl-bench-ssh-") as tmp:
        os.chmod(tmp, 0o755)
        build(tmp)
        with Service() as svc, Relay(f"{tmp}/relay") as relay:
            user = svc.add_user(USER)
            sshd = BenchSshd(svc, tmp, user, relay)
            key = os.path.join(tmp, "id")
            give_keys(user, keygen(key), key=key,
                      known_line=f"[127.0.0.1]:{sshd.port} {sshd.host_public}",
                      config=f"Ciphers {CIPHERS}\n" if CIPHERS else None)
            plain = Way("plain", svc, user, relay, relay.url, f"{tmp}/loop")
            tunnel = Way("ssh", svc, user, relay,
                         f"net+ssh://{USER}@127.0.0.1:{sshd.port}/{relay.ports[0]}:"
                         f"{relay.ports[1]}", f"{tmp}/loop")
            ours, ours_rate = throughput(tunnel)
            anchor, anchor_rate = throughput(plain)
            rate = min(ours_rate, anchor_rate) / 2
            through = cpu(tunnel, sshd, rate)
            alone = cpu(plain, sshd, rate)
            log(f"ciphers negotiated: {', '.join(sshd.ciphers()) or 'not logged'}")
    figure("ssh_stream_throughput_mb_per_s", ours, anchor, "MB/s")
    figure("ssh_stream_consumer_cpu_s", through["consumer"], alone["consumer"], "s")
    figure("ssh_stream_ssh_cpu_s", through["ssh"] + through["sshd"], alone["consumer"], "s")


if __name__ == "__main__":
    main()
