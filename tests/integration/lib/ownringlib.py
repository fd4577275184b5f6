# SPDX-License-Identifier: LGPL-2.1-or-later
"""The own-process kernel tier's ring buffer, read as its consumer reads
it (common/abi/tc-kernel-own.h): the consumer position page mapped
writable, the producer page and data read-only."""

import mmap
import struct

RING_BYTES = 4 << 20
PAGE = mmap.PAGESIZE
BUSY, DISCARD = 1 << 31, 1 << 30
RECORD = struct.Struct("=QHHiiiq6Q")
TYPES = {1: "sys_enter", 2: "sys_exit", 3: "switch_out", 4: "switch_in", 5: "wakeup",
         6: "migrate", 7: "page_fault", 8: "signal", 9: "lost", 10: "bio_queue",
         11: "net_dev_queue"}
# Kernel addresses, less the top page (-errno and -1, which user space
# passes everywhere as "none", are never kernel addresses).
KERNEL_LOW, KERNEL_HIGH = 0xffff800000000000, 0xfffffffffffff000


class Ring:
    def __init__(self, fd):
        self.consumer = mmap.mmap(fd, PAGE, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        self.data = mmap.mmap(fd, PAGE + 2 * RING_BYTES, mmap.MAP_SHARED, mmap.PROT_READ,
                              offset=PAGE)

    def read(self):
        """The records committed since the last call, as dicts."""
        records = []
        cons = struct.unpack_from("=Q", self.consumer, 0)[0]
        prod = struct.unpack_from("=Q", self.data, 0)[0]
        while cons < prod:
            offset = PAGE + (cons & (RING_BYTES - 1))
            length = struct.unpack_from("=I", self.data, offset)[0]
            if length & BUSY:
                break
            if not length & DISCARD:
                records.append(decode(self.data[offset + 8:offset + 8 + RECORD.size]))
            cons += (8 + (length & ~(BUSY | DISCARD)) + 7) & ~7
        struct.pack_into("=Q", self.consumer, 0, cons)
        return records


def decode(raw):
    ts, rtype, cpu, tid, pid, ident, value, *args = RECORD.unpack(raw)
    return {"timestamp": ts, "type": TYPES.get(rtype, rtype), "cpu": cpu, "tid": tid,
            "pid": pid, "id": ident, "value": value, "args": args}


def kernel_values(record):
    """The fields of a record whose value, as 64 bits, is a kernel address."""
    values = [record["value"] & (2**64 - 1)] + list(record["args"])
    return [hex(v) for v in values if KERNEL_LOW <= v < KERNEL_HIGH]
