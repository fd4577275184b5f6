# SPDX-License-Identifier: LGPL-2.1-or-later
"""Debian's sshd for the tests and benchmarks that stream through SSH
(net+ssh://), set up as docs/relay.md tells a relay machine's
administrator: keys only, the tracing accounts forward to the relay's
ports and do nothing else; and the ~/.ssh of the test users whose
consumers run ssh."""

import os
import subprocess

from tclib import check, wait_for

SSHD = "/usr/sbin/sshd"


def keygen(path):
    """A new ed25519 key without a passphrase at path; its public line."""
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "", "-f", path],
                   check=True)
    with open(path + ".pub") as f:
        return f.read().strip()


def write(path, text, mode, owner=None):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)
    if owner:
        os.chown(path, owner.uid, owner.gid)


def forwarding_only(users, ports):
    """sshd_config lines: users log in with a key and may only forward to
    127.0.0.1:port for each of ports."""
    return [f"AllowUsers {' '.join(users)}", "AllowTcpForwarding local",
            "PermitOpen " + " ".join(f"127.0.0.1:{port}" for port in ports),
            "PasswordAuthentication no", "KbdInteractiveAuthentication no",
            "PermitRootLogin no", "AllowAgentForwarding no", "X11Forwarding no",
            "PermitTTY no", "ForceCommand /bin/false"]


class Sshd:
    """sshd -D with a host key and configuration of its own in directory,
    the lines of settings added, run under prefix (["ip", "netns", "exec",
    NS]) and ready once listening() says so; the service's applications
    hold it, so that the service's end ends it."""

    def __init__(self, svc, directory, settings, listening, prefix=()):
        self.host_key = os.path.join(directory, "host_key")
        self.host_public = keygen(self.host_key)
        self.log_path = os.path.join(directory, "sshd.log")
        config = os.path.join(directory, "sshd_config")
        write(config, "\n".join([f"HostKey {self.host_key}", f"PidFile {directory}/sshd.pid",
                                 "AuthenticationMethods publickey", "UsePAM no",
                                 *settings]) + "\n", 0o644)
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
        checked = subprocess.run([SSHD, "-t", "-f", config], capture_output=True, text=True)
        check(checked.returncode == 0, f"sshd -t refuses the configuration: {checked.stderr}")
        self.logfile = open(self.log_path, "wb")
        self.proc = subprocess.Popen([*prefix, SSHD, "-D", "-e", "-f", config],
                                     stdout=self.logfile, stderr=subprocess.STDOUT)
        svc.apps.append(self.proc)
        wait_for(lambda: self.proc.poll() is not None or listening(), 10, "sshd")
        check(self.proc.poll() is None, f"sshd exited: {self.log()}")

    def log(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()[-4000:]


def give_keys(user, authorized, key=None, known_line=None, config=None):
    """user's ~/.ssh: the keys the server takes for user's login
    (authorized), and for user's own ssh the key at key (copied as
    id_ed25519), the server's key as known_line in known_hosts and a
    config. sshd takes no key of an account whose password is locked:
    the password becomes "*", none but not locked."""
    ssh_dir = os.path.join(user.home, ".ssh")
    os.makedirs(ssh_dir, mode=0o700, exist_ok=True)
    os.chown(ssh_dir, user.uid, user.gid)
    write(os.path.join(ssh_dir, "authorized_keys"), authorized + "\n", 0o600, user)
    if key:
        with open(key) as f:
            write(os.path.join(ssh_dir, "id_ed25519"), f.read(), 0o600, user)
    if known_line:
        write(os.path.join(ssh_dir, "known_hosts"), known_line + "\n", 0o600, user)
    if config:
        write(os.path.join(ssh_dir, "config"), config, 0o600, user)
    subprocess.run(["usermod", "-p", "*", user.name], check=True)
