#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""owd.py - one-way delay of a path of the emulated fabric.

    owd.py send ADDR PORT INTERVAL_MS
    owd.py recv PORT OUT.json

Both run until SIGTERM; the receiver then writes OUT.json.

The sender stamps a small UDP datagram with CLOCK_MONOTONIC every
INTERVAL_MS; the receiver, in another network namespace of the same
guest (one clock for all of them), subtracts the stamp from the time it
arrives.  On a path that the workload leaves empty, what this adds to the
idle delay is the emulation's own: the time the guest's CPUs take to
forward packets through the switches' namespaces, which every transport
sharing the fabric reads as part of its RTT.  The receiver writes JSON:
"n" and "min_ms", "p10_ms", "p50_ms", "p90_ms", "p99_ms", "max_ms".
"""
import json
import signal
import socket
import struct
import sys
import time

PAD = 56  # a 64-byte payload


class Stop(Exception):
    pass


def stop(signum, frame):
    raise Stop()


def send(addr, port, interval_ms):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    while True:
        s.sendto(struct.pack("!Q", time.monotonic_ns()) + bytes(PAD),
                 (addr, port))
        time.sleep(interval_ms / 1000)


def summary(delays):
    d = sorted(delays)
    out = {"n": len(d)}
    if d:
        for name, q in (("min", 0), ("p10", .1), ("p50", .5), ("p90", .9),
                        ("p99", .99)):
            out[name + "_ms"] = round(d[min(len(d) - 1, int(q * len(d)))], 3)
        out["max_ms"] = round(d[-1], 3)
    return out


def recv(port, path):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", port))
    delays = []
    try:
        while True:
            b = s.recv(64 + PAD)
            if len(b) >= 8:
                sent = struct.unpack("!Q", b[:8])[0]
                delays.append((time.monotonic_ns() - sent) / 1e6)
    except Stop:
        pass
    with open(path, "w") as f:
        json.dump(summary(delays), f)
        f.write("\n")


def main():
    a = sys.argv[1:]
    signal.signal(signal.SIGTERM, stop)
    try:
        if len(a) == 4 and a[0] == "send":
            send(a[1], int(a[2]), float(a[3]))
        elif len(a) == 3 and a[0] == "recv":
            recv(int(a[1]), a[2])
        else:
            sys.exit(__doc__)
    except Stop:
        pass


if __name__ == "__main__":
    main()
