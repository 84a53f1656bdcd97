#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""vm-watchdog.py - end a VM that outlived its time, saying where it was.

usage: vm-watchdog.py SECONDS PID QMP_SOCKET OUT MARKER

After SECONDS, creates MARKER, writes to OUT what QEMU's monitor tells of
every vCPU (its state, registers and the top of its stack: a guest that
froze with interrupts off prints nothing on its console), then sends
SIGTERM to PID, the timeout(1) that runs QEMU.  run.sh kills this script
when the VM ends in time.  Addresses are the guest kernel's, booted with
nokaslr: /proc/kallsyms of any boot of the same kernel names them.
"""

import json
import os
import re
import signal
import socket
import sys
import time

STACK_BYTES = 512


class Qmp:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(10)
        self.sock.connect(path)
        self.buf = b""
        self.reply()                      # the greeting
        self.run("qmp_capabilities")

    def reply(self):
        while True:
            while b"\n" not in self.buf:
                data = self.sock.recv(65536)
                if not data:
                    raise EOFError("QMP closed")
                self.buf += data
            line, self.buf = self.buf.split(b"\n", 1)
            msg = json.loads(line)
            if "event" not in msg:
                return msg

    def run(self, cmd, **args):
        self.sock.sendall(json.dumps({"execute": cmd,
                                      "arguments": args}).encode() + b"\n")
        msg = self.reply()
        if "error" in msg:
            raise RuntimeError(f"{cmd}: {msg['error'].get('desc')}")
        return msg["return"]

    def hmp(self, line):
        out = self.run("human-monitor-command", **{"command-line": line})
        return out.replace("\r\n", "\n")


def stack_words(qmp, cpu, rsp, path):
    """The qwords at the top of cpu's stack, through its page tables."""
    # QMP's integers are signed 64-bit: a kernel address is negative.
    val = rsp - (1 << 64) if rsp >= 1 << 63 else rsp
    # Within its page: the next may be unmapped (the stack's top).
    size = min(STACK_BYTES, 4096 - rsp % 4096)
    qmp.run("memsave", val=val, size=size, filename=path,
            **{"cpu-index": cpu})
    with open(path, "rb") as f:
        data = f.read()
    os.unlink(path)
    return [int.from_bytes(data[i:i + 8], "little")
            for i in range(0, len(data) - 7, 8)]


def dump(qmp, out, tmp):
    out.write(qmp.hmp("info cpus"))
    regs = qmp.hmp("info registers -a")
    out.write(regs)
    for cpu, block in enumerate(re.split(r"\n(?=CPU#\d+)", regs.strip())):
        m = re.search(r"RSP=([0-9a-f]{16})", block)
        if not m:
            continue
        out.write(f"\nCPU#{cpu} stack from RSP={m.group(1)}, kernel "
                  "addresses:\n")
        try:
            words = stack_words(qmp, cpu, int(m.group(1), 16), tmp)
        except (RuntimeError, OSError) as e:
            out.write(f"  unreadable: {e}\n")
            continue
        for i, w in enumerate(words):
            if w >= 0xffffffff80000000:
                out.write(f"  +{8 * i:#05x}: {w:016x}\n")


def main():
    secs, pid, path, out_path, marker = sys.argv[1:6]
    time.sleep(float(secs))
    open(marker, "w").close()
    with open(out_path, "w") as out:
        try:
            dump(Qmp(path), out, out_path + ".mem")
        except (OSError, EOFError, RuntimeError, ValueError) as e:
            out.write(f"no vCPU state: {e}\n")
    os.kill(int(pid), signal.SIGTERM)


if __name__ == "__main__":
    main()
