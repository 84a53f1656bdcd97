#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""netlink_helper.py: MPDT endpoints and forged packets for netlink.sh.

  hold --port P [--family 4|6] [--peers N] [--ready FILE --release FILE]
      Bind MPDT sockets to loopback ports P, P+1, ..., P+N (N: 1 by
      default) and send one message from P to each other one (so that P
      has N connections, the others one each); with --ready, create FILE
      and keep them all open until the release file appears.
  fail --peer ADDR --port P [--timeout S]
      Send one message to a peer that never answers and wait until the
      socket reports the failure.  JSON: {"error": ..., "secs": ...}; exit
      0 iff the error is ETIMEDOUT.
  forge --peer ADDR [--udp-port U] [--version V]
      Send two UDP datagrams to MPDT's UDP port: a 16-byte common header
      with wire version V (default 9, unknown), then a 3-byte runt.
"""

import argparse
import errno
import json
import os
import select
import socket
import struct
import sys
import time

IPPROTO_MPDT = 254


def wait_file(path, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if os.path.exists(path):
            return True
        time.sleep(0.05)
    return False


def cmd_hold(a):
    fam, lo = ((socket.AF_INET6, "::1") if a.family == 6 else
               (socket.AF_INET, "127.0.0.1"))
    socks = [socket.socket(fam, socket.SOCK_DGRAM, IPPROTO_MPDT)
             for _ in range(a.peers + 1)]
    for i, s in enumerate(socks):
        s.bind((lo, a.port + i))
        s.settimeout(20)
    msg = b"netlink.sh hold " + os.urandom(8)
    for i in range(1, len(socks)):
        socks[0].sendto(msg, (lo, a.port + i))
    for s in socks[1:]:
        if s.recv(1000) != msg:
            raise SystemExit("loopback round trip: wrong message")
    if a.ready:
        open(a.ready, "w").close()
        if not wait_file(a.release, 120):
            raise SystemExit("no release file")
    for s in socks:
        s.close()
    return 0


def cmd_fail(a):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, IPPROTO_MPDT)
    t0 = time.monotonic()
    s.sendto(b"x" * 1000, (a.peer, a.port))
    err = 0
    p = select.poll()
    p.register(s, select.POLLERR)
    while not err and time.monotonic() - t0 < a.timeout:
        p.poll(100)
        err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
    res = {"error": errno.errorcode.get(err, err) if err else None,
           "secs": round(time.monotonic() - t0, 3)}
    print(json.dumps(res), flush=True)
    s.close()
    return 0 if err == errno.ETIMEDOUT else 1


def cmd_forge(a):
    # version, type, flags, src port, dst port, nonce, ev, reserved
    header = struct.pack("!BBHHHIHH", a.version, 1, 0, 1, 1, 0, 0, 0)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for pkt in (header, header[:3]):
        s.sendto(pkt, (a.peer, a.udp_port))
    s.close()
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("cmd", choices=("hold", "fail", "forge"))
    ap.add_argument("--port", type=int)
    ap.add_argument("--family", type=int, choices=(4, 6), default=4)
    ap.add_argument("--peers", type=int, default=1)
    ap.add_argument("--ready")
    ap.add_argument("--release")
    ap.add_argument("--peer")
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("--udp-port", type=int, default=4796)
    ap.add_argument("--version", type=int, default=9)
    a = ap.parse_args()
    return {"hold": cmd_hold, "fail": cmd_fail, "forge": cmd_forge}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
