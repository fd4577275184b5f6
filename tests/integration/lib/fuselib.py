# SPDX-License-Identifier: LGPL-2.1-or-later
"""A directory whose writes take as long as its owner wants: a FUSE
server, passing through to a directory of its own, that sleeps in the
operations it is told to (mkdir, create, write, ...) before doing them,
as a user who runs their own FUSE server can make. It runs as root with
allow_other, standing for the attacker's; what it creates belongs to the
caller, so a consumer writing there as its owner finds its files its own."""

import os
import pwd
import shutil
import subprocess
import tempfile
import time

from tclib import require

SERVER = r"""
import errno, os, sys, time
from fusepy import FUSE, FuseOSError, Operations, fuse_get_context

backing, mountpoint, delay = sys.argv[1], sys.argv[2], float(sys.argv[3])
slow = set(sys.argv[4].split(","))

def wait(op):
    if op in slow:
        time.sleep(delay)

class Slow(Operations):
    def _path(self, path):
        return os.path.join(backing, path.lstrip("/"))

    def _own(self, path):
        uid, gid, _ = fuse_get_context()
        os.lchown(self._path(path), uid, gid)

    def __call__(self, op, *args):
        try:
            return super().__call__(op, *args)
        except OSError as e:
            raise FuseOSError(e.errno or errno.EIO)

    def getattr(self, path, fh=None):
        st = os.lstat(self._path(path))
        return {k: getattr(st, k) for k in ("st_mode", "st_nlink", "st_uid", "st_gid",
                                             "st_size", "st_atime", "st_mtime", "st_ctime")}

    def access(self, path, mode):
        if not os.path.lexists(self._path(path)):
            raise FuseOSError(errno.ENOENT)

    def readdir(self, path, fh):
        return [".", ".."] + os.listdir(self._path(path))

    def mkdir(self, path, mode):
        wait("mkdir")
        os.mkdir(self._path(path), mode)
        self._own(path)

    def rmdir(self, path):
        os.rmdir(self._path(path))

    def chmod(self, path, mode):
        os.chmod(self._path(path), mode)

    def chown(self, path, uid, gid):
        os.lchown(self._path(path), uid, gid)

    def create(self, path, mode, fi=None):
        wait("create")
        fd = os.open(self._path(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        self._own(path)
        return fd

    def open(self, path, flags):
        wait("open")
        return os.open(self._path(path), flags & ~(os.O_CREAT | os.O_EXCL))

    def read(self, path, size, offset, fh):
        return os.pread(fh, size, offset)

    def write(self, path, data, offset, fh):
        wait("write")
        return os.pwrite(fh, data, offset)

    def truncate(self, path, length, fh=None):
        os.truncate(self._path(path), length)

    def unlink(self, path):
        os.unlink(self._path(path))

    def rename(self, old, new):
        os.rename(self._path(old), self._path(new))

    def utimens(self, path, times=None):
        os.utime(self._path(path), times)

    def flush(self, path, fh):
        return 0

    def fsync(self, path, datasync, fh):
        return 0

    def release(self, path, fh):
        os.close(fh)

    def statfs(self, path):
        st = os.statvfs(backing)
        return {k: getattr(st, k) for k in ("f_bsize", "f_frsize", "f_blocks", "f_bfree",
                                             "f_bavail", "f_files", "f_ffree", "f_namemax")}

FUSE(Slow(), mountpoint, foreground=True, allow_other=True, nothreads=False)
"""


def fuse_missing():
    """Why there is no FUSE server to be had here, or None."""
    if not (os.access("/dev/fuse", os.R_OK | os.W_OK) and shutil.which("fusermount3")):
        return "no FUSE here"
    if subprocess.run(["/usr/bin/python3", "-c", "import fusepy"]).returncode != 0:
        return "no python3-fusepy"
    return None


def require_fuse():
    missing = fuse_missing()
    require(missing is None, missing)


class SlowDirectory:
    """mountpoint (made, owned by owner) on a FUSE server whose operations
    named in slow ("mkdir", "create", "open", "write") each sleep delay_s
    first. A context manager: unmounted at the end."""

    def __init__(self, mountpoint, owner, delay_s, slow):
        self.mountpoint = mountpoint
        self.backing = tempfile.mkdtemp(prefix="tracectl-slow-")
        os.makedirs(mountpoint, exist_ok=True)
        for path in (mountpoint, self.backing):
            os.chown(path, owner.uid, pwd.getpwnam(owner.name).pw_gid)
            os.chmod(path, 0o755)
        self.server = subprocess.Popen(
            ["/usr/bin/python3", "-c", SERVER, self.backing, mountpoint, str(delay_s),
             ",".join(slow)], stderr=subprocess.PIPE)
        for _ in range(100):
            if os.path.ismount(mountpoint):
                return
            time.sleep(0.05)
        self.close()
        raise AssertionError(f"the FUSE server did not mount: {self.server.stderr.read()}")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def close(self):
        subprocess.run(["fusermount3", "-uz", self.mountpoint], stderr=subprocess.DEVNULL)
        if self.server.poll() is None:
            self.server.kill()
        self.server.wait()
        shutil.rmtree(self.backing, ignore_errors=True)
