#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""owd.py - one-way delay of a path of the emulated fabric.

    owd.py send ADDR PORT INTERVAL_MS
    owd.py recv PORT OUT.json
    owd.py show NAME OUT.json

send and recv run until SIGTERM; the receiver then writes OUT.json, which
show prints as one line labelled NAME.

The sender stamps a small UDP datagram with CLOCK_MONOTONIC every
INTERVAL_MS; the receiver, in another network namespace of the same
guest (one clock for all of them), subtracts the stamp from the time it
arrives.  On a path that the workload leaves empty, what this adds to the
idle delay is the emulation's own: the time the guest's CPUs take to
forward packets through the switches' namespaces, which every transport
sharing the fabric reads as part of its RTT.  The receiver writes JSON:
"n" and "min_ms", "p50_ms", "p90_ms", "p99_ms", "max_ms" (nearest-rank
percentiles, fct.py's).
"""
import json
import signal
import socket
import struct
import sys
import time

from fct import pct

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
        out["min_ms"] = round(d[0], 3)
        for p in (50, 90, 99):
            out["p%d_ms" % p] = round(pct(d, p), 3)
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
        # A second SIGTERM must not cut the summary short.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    with open(path, "w") as f:
        json.dump(summary(delays), f)
        f.write("\n")


def show(name, path):
    with open(path) as f:
        d = json.load(f)
    if not d["n"]:
        print("  %-26s n    0" % name)
        return
    print("  %-26s n %4d  min %6.2f  p50 %6.2f  p90 %6.2f  p99 %6.2f  "
          "max %7.2f" % (name, d["n"], d["min_ms"], d["p50_ms"],
                         d["p90_ms"], d["p99_ms"], d["max_ms"]))


def main():
    a = sys.argv[1:]
    signal.signal(signal.SIGTERM, stop)
    try:
        if len(a) == 4 and a[0] == "send":
            send(a[1], int(a[2]), float(a[3]))
        elif len(a) == 3 and a[0] == "recv":
            recv(int(a[1]), a[2])
        elif len(a) == 3 and a[0] == "show":
            show(a[1], a[2])
        else:
            sys.exit(__doc__)
    except Stop:
        pass


if __name__ == "__main__":
    main()
