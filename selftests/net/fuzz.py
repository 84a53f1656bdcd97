#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""fuzz.py: throw malformed, forged and stale MPDT packets at both ends of
a running transfer and say which drop counters must have moved by how much.

  fuzz.py --ns-a NS --ns-b NS --dev-b IFNAME [--seed N] [--count K]

NS A (10.0.0.1) sends to NS B (10.0.0.2).  The script joins the namespaces
itself (setns), sniffs one DATA packet on IFNAME in NS B to learn the
transfer's nonce, MPDT ports and current PSN, then sends, K of each:

  stateful, while the transfer runs (checked by sniffing again after):
    to A from B's address: SACK/NACK with a wrong nonce (drop_stale_nonce),
      SACKs acking PSNs never sent (epsn far ahead; bitmap far ahead) and
      NACKs of PSNs never sent (drop_bogus_ack), SACKs from an unknown MPDT
      port (drop_no_conn), to an unbound MPDT port (drop_no_socket)
    to B from A's address: DATA with the transfer's nonce and a PSN far
      beyond the window (drop_out_of_window) or far behind (rx_dup_data),
      SACK/NACK from unknown ports (drop_no_conn), to an unbound port
      (drop_no_socket); a fake peer whose message changes length
      (drop_msg_mismatch), whose new nonce comes while its incarnation
      is live (drop_new_nonce) and whose old incarnation comes back after
      it restarted (drop_stale_nonce), whose packet was trimmed
      (drop_trimmed)
  stateless, to both: short packets, bad version, bad type (and NACK
    code), bad flags, zero ports, bad lengths, bad offsets, and random
    garbage classified by an independent validator written from the wire
    format (valid garbage is not sent).
  then, to a socket of its own in B: PROBEs from 4096 + 64 MPDT ports of
    one address, more connections than a socket may hold: each beyond the
    512 one host may open evicts one of its probe-only ones (conn_evicted).

  fuzz.py --memory N ...: instead, one fake peer starts N 16 MiB messages
  with one packet each on a socket of ours with a small SO_RCVBUF; prints
  how much memory (MemAvailable) the receiver held, and after its close.

Prints one JSON object: {"expect": {"A": {counter: [n, "eq"|"ge"]}, "B":
...}, "sniffed": {...}, "alive_after": bool, ...}.  Exit 0 if it could do
all that, 1 if not (no transfer seen, or it ended too early).
"""

import argparse
import ctypes
import json
import os
import random
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpdtlib as m  # noqa: E402

CLONE_NEWNET = 0x40000000
ETH_P_IP = 0x0800
ADDR_A, ADDR_B = "10.0.0.1", "10.0.0.2"
PORT = m.MPDT_UDP_PORT
MAX_CONNS = 4096
MAX_HOST_CONNS = MAX_CONNS // 8
# A receiving half adopts a new nonce only after this much quiet: twice
# rto-max-us, whose module default is 1 s (wire-format.rst section 5).
QUIET_S = 2.0

_libc = ctypes.CDLL(None, use_errno=True)


def setns(name):
    fd = os.open("/run/netns/" + name, os.O_RDONLY)
    try:
        if _libc.setns(fd, CLONE_NEWNET) != 0:
            e = ctypes.get_errno()
            raise OSError(e, "setns %s: %s" % (name, os.strerror(e)))
    finally:
        os.close(fd)


def sniff_data(dev, timeout, want_nonce=None, near_psn=None, ready=None):
    """First MPDT DATA packet from ADDR_A seen on dev (in the current ns),
    of incarnation want_nonce and at most 2^19 PSNs after near_psn if set
    (so that our own forged DATA never counts).  Creates the file ready, if
    named, once it listens."""
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_IP))
    s.bind((dev, ETH_P_IP))
    if ready:
        open(ready, "w").close()
    s.settimeout(0.5)
    deadline = time.time() + timeout
    try:
        while time.time() < deadline:
            try:
                frame = s.recv(65535)
            except socket.timeout:
                continue
            if len(frame) < 14 + 20 + 8 + m.DATA_HLEN:
                continue
            if struct.unpack("!H", frame[12:14])[0] != ETH_P_IP:
                continue
            ip = frame[14:]
            ihl = (ip[0] & 15) * 4
            if ip[9] != socket.IPPROTO_UDP or socket.inet_ntoa(ip[12:16]) != ADDR_A:
                continue
            udp = ip[ihl:]
            if struct.unpack("!H", udp[2:4])[0] != PORT:
                continue
            mp = udp[8:]
            ver, typ, flags, sport, dport, nonce, ev = m.parse_common(mp)
            if ver != 1 or typ != m.T_DATA:
                continue
            if want_nonce is not None and nonce != want_nonce:
                continue
            psn, msg_id, off, msg_len, ts, plen = m.parse_data(mp)
            if near_psn is not None and (psn - near_psn) & 0xffffffff >= 1 << 19:
                continue
            return {"nonce": nonce, "sport": sport, "dport": dport,
                    "psn": psn, "msg_id": msg_id, "msg_len": msg_len}
    finally:
        s.close()
    return None


# --------------------------------------------------------------------------
# An independent validator: which drop counter a packet must hit, or None
# if it is well formed (net/mpdt/wire.h, Documentation/wire-format.rst).
# --------------------------------------------------------------------------

HLEN = {m.T_DATA: m.DATA_HLEN, m.T_SACK: m.SACK_LEN, m.T_NACK: m.NACK_LEN,
        m.T_PROBE: m.PROBE_LEN}
ALLOWED = {m.T_DATA: m.F_AR | m.F_RETX | m.F_TRIMMED | m.F_FLOWLET,
           m.T_SACK: m.F_CE | m.F_PROBE_ACK, m.T_NACK: m.F_CE,
           m.T_PROBE: m.F_COOKIE}


def classify(p):
    if len(p) < m.COMMON_LEN:
        return "drop_short"
    ver, typ, flags, sport, dport, nonce, ev = m.parse_common(p)
    if ver != 1:
        return "drop_bad_version"
    if typ not in HLEN:
        return "drop_bad_type"
    hlen = HLEN[typ]
    if typ == m.T_PROBE and flags & m.F_COOKIE:
        hlen += m.COOKIE_LEN
    if len(p) < hlen:
        return "drop_short"
    if flags & ~ALLOWED[typ]:
        return "drop_bad_flags"
    if not sport or not dport:
        return "drop_bad_port"
    if typ == m.T_DATA:
        psn, msg_id, off, msg_len, ts, plen = m.parse_data(p)
        avail = len(p) - m.DATA_HLEN
        if (avail > plen) if flags & m.F_TRIMMED else (avail != plen):
            return "drop_bad_length"
        if msg_len > m.MPDT_MSG_MAX:
            return "drop_bad_length"
        if plen == 0 and msg_len:
            return "drop_bad_length"
        if off > msg_len or plen > msg_len - off:
            return "drop_bad_offset"
        return None
    if typ == m.T_NACK and p[m.COMMON_LEN + 4] not in m.NACK_CODES:
        return "drop_bad_type"
    return None if len(p) == hlen else "drop_bad_length"


class Target:
    """Packets to one end's MPDT UDP port, and what they must cause there."""

    def __init__(self, name, sock, addr):
        self.name, self.sock, self.addr = name, sock, addr
        self.expect = {}
        self.sent = 0

    def send(self, pkt, counter=None, how="eq", n=1):
        self.sock.sendto(pkt, (self.addr, PORT))
        self.sent += 1
        if self.sent % 64 == 0:
            time.sleep(0.005)   # never overrun the veth backlog
        if counter:
            self.expect_add(counter, n, how)

    def expect_add(self, counter, n, how="eq"):
        old = self.expect.get(counter, [0, how])
        # One "ge" contribution makes the whole counter a lower bound.
        self.expect[counter] = [old[0] + n, "ge" if "ge" in (old[1], how) else "eq"]


def malformed(t, rnd, k, sport, dport):
    """Stateless garbage: every class k times, then k random packets."""
    ok = {"sport": sport, "dport": dport, "nonce": rnd.getrandbits(32)}
    good_sack = m.sack_pkt(0, 0, 0, **ok)
    good_data = m.data_pkt(0, 1, 0, 100, b"x" * 100, **ok)
    for i in range(k):
        # short: nothing, less than the common header, less than the type's
        for p in (b"", b"\x01", good_sack[:15], good_data[:m.DATA_HLEN - 1],
                  good_sack[:m.SACK_LEN - 1], m.probe_pkt(0, **ok)[:20],
                  m.probe_pkt(0, cookie=1, **ok)[:m.PROBE_LEN]):
            t.send(p, "drop_short")
        # bad version
        for v in (0, 2, 255):
            t.send(m.common(m.T_SACK, version=v, **ok) + good_sack[16:],
                   "drop_bad_version")
        # bad type, and a NACK with an unknown code
        for ty in (0, 5, 255):
            t.send(m.common(ty, **ok) + b"\0" * 40, "drop_bad_type")
        t.send(m.nack_pkt(1, code=0, **ok), "drop_bad_type")
        t.send(m.nack_pkt(1, code=5, **ok), "drop_bad_type")
        t.send(m.nack_pkt(1, code=255, **ok), "drop_bad_type")
        # bad flags for the type
        t.send(m.data_pkt(0, 1, 0, 100, b"x" * 100, flags=m.F_CE, **ok),
               "drop_bad_flags")
        t.send(m.sack_pkt(0, 0, 0, flags=m.F_AR, **ok), "drop_bad_flags")
        t.send(m.probe_pkt(0, flags=m.F_AR, **ok), "drop_bad_flags")
        t.send(m.nack_pkt(0, flags=m.F_PROBE_ACK, **ok), "drop_bad_flags")
        t.send(m.sack_pkt(0, 0, 0, flags=0x8000, **ok), "drop_bad_flags")
        t.send(m.data_pkt(0, 1, 0, 100, b"x" * 100, flags=0x40, **ok),
               "drop_bad_flags")
        t.send(m.sack_pkt(0, 0, 0, flags=m.F_FLOWLET, **ok), "drop_bad_flags")
        t.send(m.nack_pkt(0, flags=m.F_COOKIE, **ok), "drop_bad_flags")
        # zero MPDT ports
        t.send(m.sack_pkt(0, 0, 0, sport=0, dport=dport, nonce=1), "drop_bad_port")
        t.send(m.probe_pkt(0, sport=sport, dport=0, nonce=1), "drop_bad_port")
        # bad lengths
        t.send(m.data_pkt(0, 1, 0, 100, b"x" * 50, payload_len=100, **ok),
               "drop_bad_length")                      # payload missing
        t.send(m.data_pkt(0, 1, 0, 100, b"x" * 100, payload_len=50, **ok),
               "drop_bad_length")                      # payload too long
        t.send(m.data_pkt(0, 1, 0, m.MPDT_MSG_MAX + 1, b"x" * 10, **ok),
               "drop_bad_length")                      # message too big
        t.send(m.data_pkt(0, 1, 0, 0xffffffff, b"x" * 10, **ok),
               "drop_bad_length")
        t.send(m.data_pkt(0, 1, 0, 100, b"", **ok),
               "drop_bad_length")                      # empty, msg not
        t.send(m.data_pkt(0, 1, 0, 100, b"x" * 50, payload_len=40,
                          flags=m.F_TRIMMED, **ok),
               "drop_bad_length")                      # "trimmed" grew
        t.send(good_sack + b"\0", "drop_bad_length")   # trailing bytes
        t.send(m.probe_pkt(0, **ok) + b"\0" * 8, "drop_bad_length")
        t.send(m.probe_pkt(0, cookie=1, **ok) + b"\0", "drop_bad_length")
        t.send(m.nack_pkt(0, **ok) + b"\0", "drop_bad_length")
        # bad offsets
        t.send(m.data_pkt(0, 1, 2000, 1000, b"x" * 10, **ok), "drop_bad_offset")
        t.send(m.data_pkt(0, 1, 900, 1000, b"x" * 200, **ok), "drop_bad_offset")
        t.send(m.data_pkt(0, 1, 0xffffff00, 1000, b"x" * 10, **ok),
               "drop_bad_offset")
        t.send(m.data_pkt(0, 1, 1001, 1000, b"x", **ok), "drop_bad_offset")
    # random garbage, half of it with a plausible version and type
    n = 0
    while n < 4 * k:
        ln = rnd.choice((rnd.randrange(0, 64), rnd.randrange(0, 120),
                         rnd.randrange(0, 1400)))
        p = bytearray(rnd.getrandbits(8) for _ in range(ln))
        if ln >= 2 and rnd.random() < 0.5:
            p[0] = 1
            p[1] = rnd.randrange(1, 5)
        p = bytes(p)
        c = classify(p)
        if c is None:
            continue            # well formed by chance: not garbage
        t.send(p, c)
        n += 1


def mem_available():
    for line in open("/proc/meminfo"):
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    return 0


def memory_phase(a):
    """One fake peer starts a.memory 16 MiB messages of one packet each on
    a socket with a small SO_RCVBUF: how much kernel memory does the
    receiver hold for them (the pages are charged to SO_RCVBUF; is the
    rest bounded)?"""
    setns(a.ns_b)
    target = m.mpdt_socket()
    target.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
    target.bind(("0.0.0.0", a.flood_port))
    rcvbuf = target.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
    setns(a.ns_a)
    tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    tx.bind((ADDR_A, 0))
    fake = {"sport": 5555, "dport": a.flood_port, "nonce": 0x600dcafe}
    time.sleep(0.5)
    before = mem_available()
    payload = b"m" * 1400
    for i in range(a.memory):
        tx.sendto(m.data_pkt(i, i, 0, m.MPDT_MSG_MAX, payload, **fake),
                  (ADDR_B, PORT))
        if i % 64 == 63:
            time.sleep(0.005)
    time.sleep(1)
    held = before - mem_available()
    target.close()
    time.sleep(2)
    after_close = before - mem_available()
    print(json.dumps({"packets": a.memory, "rcvbuf": rcvbuf,
                      "held_bytes": held, "after_close_bytes": after_close}))
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ns-a", required=True)
    ap.add_argument("--ns-b", required=True)
    ap.add_argument("--dev-b", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--flood-port", type=int, default=9999)
    ap.add_argument("--sniff-timeout", type=float, default=60)
    ap.add_argument("--ready", help="file to create once sniffing")
    ap.add_argument("--memory", type=int, default=0,
                    help="only the receiver memory check, with N packets")
    a = ap.parse_args()
    if a.memory:
        return memory_phase(a)
    rnd = random.Random(a.seed)
    k = a.count
    res = {"seed": a.seed}

    # Sockets in each netns; they stay there when we move on.
    setns(a.ns_b)
    sock_in_b = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock_in_b.bind((ADDR_B, 0))
    sniffed = sniff_data(a.dev_b, a.sniff_timeout, ready=a.ready)
    if not sniffed:
        res["error"] = "no DATA packet seen on %s" % a.dev_b
        print(json.dumps(res))
        return 1
    flood = m.mpdt_socket()
    flood.bind(("0.0.0.0", a.flood_port))
    setns(a.ns_a)
    sock_in_a = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock_in_a.bind((ADDR_A, 0))
    res["sniffed"] = sniffed
    nonce, s_port, r_port, psn = (sniffed["nonce"], sniffed["sport"],
                                  sniffed["dport"], sniffed["psn"])

    # Packets to A come from B's address (sock_in_b), and vice versa.
    to_a = Target("A", sock_in_b, ADDR_A)
    to_b = Target("B", sock_in_a, ADDR_B)
    far = (psn + (1 << 20)) & 0xffffffff
    as_recv = {"sport": r_port, "dport": s_port}   # B's socket -> A's
    as_send = {"sport": s_port, "dport": r_port}   # A's socket -> B's
    wrong = nonce ^ 0x5a5a5a5a
    t0 = time.time()

    # ---- stateful, to the sender (A) --------------------------------------
    for i in range(k):
        to_a.send(m.sack_pkt(psn, psn, 1, nonce=wrong, **as_recv),
                  "drop_stale_nonce")
        to_a.send(m.nack_pkt(psn, nonce=wrong, **as_recv), "drop_stale_nonce")
        # EPSN beyond anything sent
        to_a.send(m.sack_pkt((psn + (1 << 30)) & 0xffffffff, 0, 0,
                             nonce=nonce, **as_recv), "drop_bogus_ack", "ge")
        # bitmap acking PSNs never sent (EPSN harmlessly far behind)
        to_a.send(m.sack_pkt((psn - (1 << 30)) & 0xffffffff,
                             (psn + (1 << 29)) & 0xffffffff, 1 | 1 << 63,
                             nonce=nonce, **as_recv), "drop_bogus_ack", "ge")
        # NACK of a PSN never sent
        to_a.send(m.nack_pkt(far, epsn=psn, nonce=nonce, **as_recv),
                  "drop_bogus_ack", "ge")
        # from an MPDT port A never talked to
        to_a.send(m.sack_pkt(0, 0, 0, nonce=nonce, sport=4242, dport=s_port),
                  "drop_no_conn")
        # to an MPDT port nobody has
        to_a.send(m.sack_pkt(0, 0, 0, nonce=nonce, sport=r_port, dport=1),
                  "drop_no_socket", "ge")

    # ---- stateful, to the receiver (B) ------------------------------------
    for i in range(k):
        # the transfer's own incarnation, PSN far beyond the window
        to_b.send(m.data_pkt(far + i, 0x7fff0000 + i, 0, 100, b"z" * 100,
                             nonce=nonce, **as_send), "drop_out_of_window")
        # ... and far behind EPSN: an old duplicate
        to_b.send(m.data_pkt((psn - (1 << 30) + i) & 0xffffffff, 0x7fff1000,
                             0, 100, b"z" * 100, nonce=nonce, **as_send),
                  "rx_dup_data", "ge")
        to_b.send(m.sack_pkt(0, 0, 0, nonce=1, sport=4242, dport=r_port),
                  "drop_no_conn")
        to_b.send(m.nack_pkt(0, nonce=1, sport=4242, dport=r_port),
                  "drop_no_conn")
        to_b.send(m.data_pkt(0, 1, 0, 10, b"y" * 10, nonce=1, sport=s_port,
                             dport=1), "drop_no_socket", "ge")
    # A fake peer (MPDT port 4343 at A's address) starts a message and then
    # changes its length: the second packet must not be placed.
    fake = {"sport": 4343, "dport": r_port, "nonce": rnd.getrandbits(32)}
    for i in range(k):
        to_b.send(m.data_pkt(2 * i, 100 + i, 0, 3000, b"f" * 1400, **fake))
        to_b.send(m.data_pkt(2 * i + 1, 100 + i, 1400, 5000, b"f" * 1400,
                             **fake), "drop_msg_mismatch")
    # ... and sends a payload a switch trimmed: NACKed, never placed.
    to_b.send(m.data_pkt(2 * k, 999, 0, 3000, b"t" * 100, payload_len=1400,
                         flags=m.F_TRIMMED, **fake), "drop_trimmed")
    to_b.expect_add("conn_created", 1)
    # A second fake peer (4444): a new nonce cannot replace its incarnation
    # while that is live; once it has been quiet for the quiet time, the
    # peer restarts (new nonce) and the old incarnation's late packets are
    # then stale.
    old = {"sport": 4444, "dport": r_port, "nonce": 0x11111111}
    new = dict(old, nonce=0x22222222)
    to_b.send(m.data_pkt(0, 1, 0, 3000, b"o" * 1400, **old))
    to_b.send(m.data_pkt(0, 1, 0, 3000, b"n" * 1400, **new), "drop_new_nonce")
    to_b.expect_add("conn_created", 1)
    res["stateful_seconds"] = round(time.time() - t0, 2)

    # Was the transfer alive all along?  The same incarnation still sends.
    setns(a.ns_b)
    later = sniff_data(a.dev_b, 10, want_nonce=nonce, near_psn=psn)
    res["alive_after"] = bool(later)
    res["sniffed_after"] = later
    setns(a.ns_a)

    # The fake peer 4444, quiet for the quiet time, restarts.
    time.sleep(QUIET_S + 0.5)
    to_b.send(m.data_pkt(0, 1, 0, 3000, b"n" * 1400, **new))
    for i in range(k):
        to_b.send(m.data_pkt(1 + i, 1, 1400, 3000, b"o" * 1400, **old),
                  "drop_stale_nonce")

    # ---- stateless, to both ------------------------------------------------
    malformed(to_a, rnd, k, r_port, s_port)
    malformed(to_b, rnd, k, s_port, r_port)

    # ---- connection limit, on our own socket in B ---------------------------
    flood_n = MAX_CONNS + 64
    for i in range(flood_n):
        to_b.send(m.probe_pkt(0, nonce=i + 1, sport=10000 + i,
                              dport=a.flood_port))
    # A host at its share evicts its own probe-only connections.
    to_b.expect_add("conn_created", flood_n)
    to_b.expect_add("conn_evicted", flood_n - MAX_HOST_CONNS)
    # Its SACKs go back to ports A has no socket on.
    to_a.expect_add("drop_no_socket", MAX_CONNS, "ge")
    time.sleep(0.5)
    flood.close()

    res["expect"] = {"A": to_a.expect, "B": to_b.expect}
    res["sent"] = {"A": to_a.sent, "B": to_b.sent}
    res["seconds"] = round(time.time() - t0, 2)
    print(json.dumps(res))
    return 0 if res["alive_after"] else 1


if __name__ == "__main__":
    sys.exit(main())
