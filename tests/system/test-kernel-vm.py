#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The kernel domain on a stock distribution kernel, kprobes included.

The machines tracectl is built and tested on run a kernel without kprobe
events, so test-kernel-timeline.py can only check that kprobes are
refused there. This test boots Debian's own kernel (linux-image-amd64,
which has kprobe and uprobe events) in qemu, with this machine's root file
system as the guest's root: shared read-only over 9p, under a tmpfs
overlay, so whatever the guest writes (users, polkit rules, traces) stays
in the guest. Inside, test-kernel-timeline.py runs with kprobes required:
a kprobe on __x64_sys_getppid and a uprobe on the stress application's
marker must record one hit per call, in the merged timeline, and
destroying the session and killing the service must leave no instance
or dynamic event behind. The guest's exit status and output come back on
its serial console.
"""

import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "integration", "lib"))
from tclib import check, log, require, run  # noqa: E402

SOURCE = os.path.realpath(os.environ.get("TRACECTL_SOURCE_ROOT", "."))
BUILD = os.path.realpath(os.environ.get("TRACECTL_BUILD_ROOT", "build"))
QEMU = "qemu-system-x86_64"
# Software emulation: the machines this runs on have /dev/kvm, but qemu
# aborts there setting up a virtual CPU.
ACCEL = os.environ.get("TRACECTL_VM_ACCEL", "tcg")
BUSYBOX = "/bin/busybox"
MODULES = ["virtio_pci", "9pnet_virtio", "9p", "overlay"]
STATUS = re.compile(r"tracectl-vm-status (\d+)")
# About 90 s under software emulation; the guest's test is stopped first,
# so that the console says where it was.
VM_TIMEOUT_S = 540
GUEST_TIMEOUT_S = 420
# Passed on to the test in the guest, as meson set them for this one.
PASSED_ENV = ["TRACECTL_BUILD_ROOT", "TRACECTL_SOURCE_ROOT", "LD_LIBRARY_PATH", "ASAN_OPTIONS",
              "UBSAN_OPTIONS", "PYTHONDONTWRITEBYTECODE"]


def debian_kernel():
    """(version, vmlinuz) of the newest kernel in /boot with its modules."""
    kernels = []
    for vmlinuz in glob.glob("/boot/vmlinuz-*"):
        version = vmlinuz[len("/boot/vmlinuz-"):]
        if os.path.exists(f"/lib/modules/{version}/modules.dep"):
            kernels.append((version, vmlinuz))
    require(kernels, "no kernel in /boot with its modules (apt-get install linux-image-amd64)")
    return sorted(kernels)[-1]


def module_order(version, names):
    """The .ko paths to load, dependencies first, from modules.dep."""
    deps = {}
    with open(f"/lib/modules/{version}/modules.dep") as f:
        for line in f:
            path, _, rest = line.partition(":")
            deps[os.path.basename(path).split(".ko")[0]] = (path, rest.split())
    order = []

    def visit(path):
        name = os.path.basename(path).split(".ko")[0]
        check(name in deps, f"module {name} is not in modules.dep")
        for dep in deps[name][1]:
            visit(dep)
        if deps[name][0] not in order:
            order.append(deps[name][0])

    for name in names:
        visit(deps[name][0] if name in deps else name)
    return order


def guest_init(version, modules, command):
    lines = ["#!/bin/busybox sh",
             "/bin/busybox --install -s /bin",
             "mkdir -p /proc /sys /dev /lower /upper /newroot",
             "mount -t proc proc /proc && mount -t sysfs sysfs /sys",
             "mount -t devtmpfs devtmpfs /dev"]
    lines += [f"insmod /lib/modules/{version}/{path}" for path in modules]
    lines += [
        "mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000 hostroot /lower",
        "mount -t tmpfs -o size=2g tmpfs /upper && mkdir /upper/data /upper/work",
        "mount -t overlay overlay "
        "-o lowerdir=/lower,upperdir=/upper/data,workdir=/upper/work /newroot",
        "mount -t proc proc /newroot/proc && mount -t sysfs sysfs /newroot/sys",
        "mount -t devtmpfs devtmpfs /newroot/dev",
        "mkdir -p /newroot/dev/pts /newroot/dev/shm",
        "mount -t devpts devpts /newroot/dev/pts && mount -t tmpfs tmpfs /newroot/dev/shm",
        "mount -t tmpfs tmpfs /newroot/run",
        f"chroot /newroot {command}",
        "echo tracectl-vm-status $?",
        "poweroff -f",
    ]
    return "\n".join(lines) + "\n"


def build_initramfs(tmp, version, command):
    root = os.path.join(tmp, "initramfs")
    os.makedirs(os.path.join(root, "bin"))
    shutil.copy(BUSYBOX, os.path.join(root, "bin", "busybox"))
    modules = module_order(version, MODULES)
    for path in modules:
        target = os.path.join(root, "lib", "modules", version, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy(f"/lib/modules/{version}/{path}", target)
    init = os.path.join(root, "init")
    with open(init, "w") as f:
        f.write(guest_init(version, modules, command))
    os.chmod(init, 0o755)
    archive = os.path.join(tmp, "initramfs.cpio")
    files = subprocess.run(["find", "."], cwd=root, capture_output=True, text=True,
                           check=True).stdout
    with open(archive, "wb") as out:
        subprocess.run([BUSYBOX, "cpio", "-o", "-H", "newc"], cwd=root, input=files.encode(),
                       stdout=out, stderr=subprocess.DEVNULL, check=True)
    return archive


def guest_command():
    env = [f"{name}={os.environ[name]}" for name in PASSED_ENV if name in os.environ]
    env += ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "TRACECTL_REQUIRE_KPROBES=1", "LANG=C.UTF-8"]
    script = os.path.join(SOURCE, "tests", "integration", "kernel", "test-kernel-timeline.py")
    # SIGINT: Python prints where the test was when its time ran out.
    return (f"/usr/bin/timeout -s INT -k 10 {GUEST_TIMEOUT_S} /usr/bin/env -i " + " ".join(env) +
            f" /usr/bin/python3 {script}")


def test():
    require(os.geteuid() == 0, "the VM test needs root")
    require(shutil.which(QEMU), "qemu is not installed (apt-get install qemu-system-x86)")
    require(os.path.exists(BUSYBOX), "busybox is not installed (apt-get install busybox-static)")
    for path in (SOURCE, BUILD):
        check(" " not in path, f"a path with a space cannot go on the kernel command line: {path}")
    version, vmlinuz = debian_kernel()
    with tempfile.TemporaryDirectory(prefix="tracectl-vm-") as tmp:
        initramfs = build_initramfs(tmp, version, guest_command())
        log(f"booting {vmlinuz} in qemu")
        proc = subprocess.Popen(
            # One virtual CPU: with two, the test's teardown sometimes
            # hung with tracectl-kernel-helper spinning in the kernel on
            # one CPU while the other, idle, never answered (RCU: "0 ticks this
            # GP"), as if an inter-processor interrupt to an idle CPU was
            # lost under emulation (removing a kprobe patches kernel text,
            # which interrupts every other CPU and waits for each to answer);
            # with one CPU there is none to wait for. The merged timeline
            # of several CPUs is checked on the host (test-kernel-timeline).
            [QEMU, "-accel", ACCEL, "-cpu", "max", "-m", "2048", "-smp", "1", "-nodefaults",
             "-display", "none", "-serial", "stdio", "-no-reboot",
             "-kernel", vmlinuz, "-initrd", initramfs,
             # A soft lockup panics (and qemu exits) with its stack on the
             # console, rather than hanging until VM_TIMEOUT_S unexplained.
             "-append", "console=ttyS0 panic=-1 quiet loglevel=5 softlockup_panic=1",
             "-virtfs", "local,path=/,mount_tag=hostroot,security_model=none,readonly=on"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, errors="replace")
        try:
            output, errors = proc.communicate(timeout=VM_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            output, errors = proc.communicate()
    log("---- guest console ----")
    log(output[-20000:])
    log("-----------------------")
    check(proc.returncode is not None and proc.returncode >= 0,
          f"the guest did not power off within {VM_TIMEOUT_S} s (its console is above)")
    check("Kernel panic" not in output,
          "the guest kernel panicked (a soft lockup, with softlockup_panic): its console is above")
    status = STATUS.search(output)
    check(proc.returncode == 0, f"qemu failed ({proc.returncode}): {errors[-2000:]}")
    check(status is not None, "the guest did not report the test's status")
    check(status.group(1) == "0", f"test-kernel-timeline failed in the guest ({status.group(1)})")


if __name__ == "__main__":
    run(test)
