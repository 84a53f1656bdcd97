#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""test_dissector.py: check tools/wireshark/mpdt.lua with tshark, no VM.

  test_dissector.py
      Builds a pcap file (Ethernet, IPv4 or IPv6, UDP with correct lengths
      and checksums, all made here) holding packets of every MPDT type, the
      worked example of Documentation/wire-format.rst section 10 byte for
      byte, and malformed packets; decodes it with
      tshark -X lua_script:mpdt.lua -T json and checks that
        - the dissector registers exactly the fields this test knows;
        - every packet to the MPDT port is MPDT, and every mpdt.* field
          tshark shows equals what was encoded (no field missing, none
          extra), the DATA payload is shown as data, with the Info column
          of the worked example;
        - every malformed packet names the drop counter of a v1 receiver
          (mpdt.drop) and gets the expected expert info; no valid packet
          gets any (IP and UDP checksums are verified too);
        - a UDP packet on another port is not MPDT;
        - preference mpdt.udp_port moves the dissector to another port.
  test_dissector.py [--port N] CAPTURE
      Decodes a real capture (pcap or pcapng): every UDP packet to or from
      the MPDT port (default 4796) must be recognised as MPDT with a valid
      type and no malformation; prints the counts per type and flag.

tshark is installed with apt-get if it is missing and we are root.
Exit 0 on success, 1 on a failed check, 2 on a usage or setup error.
"""

import argparse
import ipaddress
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LUA = os.path.join(HERE, "mpdt.lua")
DOC = os.path.join(HERE, "..", "..", "Documentation", "wire-format.rst")

UDP_PORT = 4796  # module parameter udp_port, default
ENTROPY_BASE = 49152  # module parameter entropy_base, default (256 EVs)
ECT0, CE = 0x02, 0x03  # ECN field of the outer IP header

T_DATA, T_SACK, T_NACK, T_PROBE = 1, 2, 3, 4
TYPE_NAMES = {T_DATA: "DATA", T_SACK: "SACK", T_NACK: "NACK",
              T_PROBE: "PROBE"}
FLAGS = {"ar": 0x0001, "retx": 0x0002, "trimmed": 0x0004, "ce": 0x0008,
         "probe_ack": 0x0010, "flowlet": 0x0020, "cookie": 0x0040}
F_AR, F_RETX, F_TRIMMED = FLAGS["ar"], FLAGS["retx"], FLAGS["trimmed"]
F_CE, F_PROBE_ACK, F_FLOWLET = (FLAGS["ce"], FLAGS["probe_ack"],
                                FLAGS["flowlet"])
F_COOKIE = FLAGS["cookie"]
FLAGS_UNASSIGNED = 0xFF80
NACK_CHALLENGE = 4

# Every field of the dissector, and how its tshark value is compared.
BYTES_FIELDS = {"mpdt.reserved", "mpdt.undecoded"}
STRING_FIELDS = {"mpdt.drop"}
MPDT_FIELDS = {
    "mpdt.version", "mpdt.type", "mpdt.flags", "mpdt.flags.unassigned",
    "mpdt.srcport", "mpdt.dstport", "mpdt.port", "mpdt.nonce", "mpdt.ev",
    "mpdt.psn", "mpdt.msg_id", "mpdt.offset", "mpdt.msg_len", "mpdt.ts",
    "mpdt.payload_len", "mpdt.prev_psn",
    "mpdt.sack.epsn", "mpdt.sack.base", "mpdt.sack.bitmap",
    "mpdt.sack.acked", "mpdt.sack.recv_bytes", "mpdt.sack.echo_ts",
    "mpdt.sack.ooo_count", "mpdt.sack.ce_count", "mpdt.sack.room",
    "mpdt.nack.psn", "mpdt.nack.code", "mpdt.nack.epsn",
    "mpdt.nack.echo_ts", "mpdt.nack.cookie",
    "mpdt.probe.sack_base", "mpdt.probe.ts", "mpdt.probe.cookie",
} | {"mpdt.flags." + name for name in FLAGS} | BYTES_FIELDS | STRING_FIELDS
EXPERTS = {"short", "bad_version", "bad_type", "bad_flags", "bad_port",
           "bad_length", "bad_offset", "bad_nack_code", "truncated",
           "reserved", "bogus_sack"}
MPDT_EXPERTS = {"mpdt.expert." + name for name in EXPERTS}

# Section 10 of wire-format.rst: the DATA header of PSN 2 and SACK 1.
DOC_DATA_PSN2 = bytes.fromhex(
    "01010001 17701b58 5eed1234 00110000"
    "00000002 00000000 00000af0 00000fa0"
    "00000001 a13b8dd0 04b00000 00000001")
DOC_SACK1 = bytes.fromhex(
    "01020000 1b581770 5eed1234 00110000"
    "00000001 00000001 00000000 00000002"
    "00000000 00000a28 00000001 a13b8dd0"
    "00000001 00000000")


class Failure(Exception):
    """A check failed."""


class SetupError(Exception):
    """tshark or an input is missing."""


# ---------------------------------------------------------------------------
# MPDT encoding (wire-format.rst sections 3-4), each returning the bytes and
# the mpdt.* fields tshark must show for them: {field: [values]}.

def merge(*dicts):
    out = {}
    for d in dicts:
        for key, values in d.items():
            out.setdefault(key, []).extend(values)
    return out


def common(ptype, flags=0, sport=6000, dport=7000, nonce=0x5EED1234, ev=17,
           version=1, reserved=0):
    raw = struct.pack("!BBHHHIHH", version, ptype, flags, sport, dport,
                      nonce, ev, reserved)
    fields = {"mpdt.version": [version], "mpdt.type": [ptype],
              "mpdt.flags": [flags],
              "mpdt.flags.unassigned": [(flags & FLAGS_UNASSIGNED) >> 7],
              "mpdt.srcport": [sport], "mpdt.dstport": [dport],
              "mpdt.port": [sport, dport], "mpdt.nonce": [nonce],
              "mpdt.ev": [ev], "mpdt.reserved": [raw[14:16]]}
    for name, mask in FLAGS.items():
        fields["mpdt.flags." + name] = [int(bool(flags & mask))]
    return raw, fields


def data(psn, msg_id, offset, msg_len, ts, prev_psn, payload,
         payload_len=None, data_reserved=0, **hdr):
    if payload_len is None:
        payload_len = len(payload)
    raw, fields = common(T_DATA, **hdr)
    body = struct.pack("!IIIIQHHI", psn, msg_id, offset, msg_len, ts,
                       payload_len, data_reserved, prev_psn)
    return raw + body + payload, merge(fields, {
        "mpdt.psn": [psn], "mpdt.msg_id": [msg_id], "mpdt.offset": [offset],
        "mpdt.msg_len": [msg_len], "mpdt.ts": [ts],
        "mpdt.payload_len": [payload_len], "mpdt.reserved": [body[26:28]],
        "mpdt.prev_psn": [prev_psn]})


def sack(epsn, base, bitmap, recv_bytes, echo_ts, ooo, ce, room=0, **hdr):
    raw, fields = common(T_SACK, **hdr)
    body = struct.pack("!IIQQQIHH", epsn, base, bitmap, recv_bytes, echo_ts,
                       ooo, ce, room)
    acked = [(base + i) % 2**32 for i in range(64) if bitmap >> i & 1]
    return raw + body, merge(fields, {
        "mpdt.sack.epsn": [epsn], "mpdt.sack.base": [base],
        "mpdt.sack.bitmap": [bitmap], "mpdt.sack.acked": acked,
        "mpdt.sack.recv_bytes": [recv_bytes], "mpdt.sack.echo_ts": [echo_ts],
        "mpdt.sack.ooo_count": [ooo], "mpdt.sack.ce_count": [ce],
        "mpdt.sack.room": [room]})


def nack(psn, code, epsn, echo_ts, **hdr):
    """echo_ts: the Echo Timestamp, or for CHALLENGE the Cookie."""
    raw, fields = common(T_NACK, **hdr)
    body = struct.pack("!IB3xIQ", psn, code, epsn, echo_ts)
    echo = ("mpdt.nack.cookie" if code == NACK_CHALLENGE else
            "mpdt.nack.echo_ts")
    return raw + body, merge(fields, {
        "mpdt.nack.psn": [psn], "mpdt.nack.code": [code],
        "mpdt.reserved": [body[5:8]], "mpdt.nack.epsn": [epsn],
        echo: [echo_ts]})


def probe(base, ts, probe_reserved=0, cookie=None, **hdr):
    """A PROBE; with cookie, 8 more bytes carrying it (the COOKIE flag
    is the caller's, so that both can be tested apart)."""
    raw, fields = common(T_PROBE, **hdr)
    body = struct.pack("!IIQ", base, probe_reserved, ts)
    extra = {}
    if cookie is not None:
        body += struct.pack("!Q", cookie)
        extra = {"mpdt.probe.cookie": [cookie]}
    return raw + body, merge(fields, {
        "mpdt.probe.sack_base": [base], "mpdt.reserved": [body[4:8]],
        "mpdt.probe.ts": [ts]}, extra)


# ---------------------------------------------------------------------------
# Packets of the test: the MPDT bytes, the outer headers, what tshark must
# show.

class Packet:
    def __init__(self, name, mpdt, fields, *, t_us, src="10.0.0.1",
                 dst="10.0.0.2", dport=UDP_PORT, tos=ECT0, drop=None,
                 drop_expert=None, experts=(), info=None, snap=None,
                 payload=None):
        self.name = name
        self.mpdt = mpdt
        self.fields = dict(fields)
        if drop:
            self.fields["mpdt.drop"] = [drop]
        self.t_us = t_us
        self.src, self.dst = src, dst
        # The EV of the packet (17 if it has none) selects the UDP source
        # port and the IPv6 flow label (wire-format.rst section 2).
        self.ev = struct.unpack("!H", mpdt[12:14])[0] if len(mpdt) >= 14 \
            else 17
        self.sport = ENTROPY_BASE + self.ev % 256
        self.dport = dport
        self.tos = tos
        self.drop = drop
        # The mpdt.expert.* names this packet must get, and no others.
        self.experts = {"mpdt.expert." + e for e in experts}
        if drop:
            self.experts.add("mpdt.expert." + (drop_expert or drop[5:]))
        self.info = info
        self.snap = snap  # captured bytes of the frame, if cut
        self.payload = payload  # DATA payload tshark shows as data


def worked_example():
    """Section 10: one 4000-byte message, PSN 1 lost, found by a probe,
    resent; the packets as captured on sender A (10.0.0.1, MPDT port
    6000) exchanging with receiver B (10.0.0.2, MPDT port 7000), nonce
    0x5EED1234, EV 17, so UDP ports 49169 -> 4796 both ways."""
    msg = bytes((i * 7 + 3) % 256 for i in range(4000))
    t0, t1, t2 = 7000000000, 7000001000, 7000002000
    tp, t1r = 7000352000, 7000402000
    b2a = {"src": "10.0.0.2", "dst": "10.0.0.1"}
    bhdr = {"sport": 7000, "dport": 6000}
    pkts = []

    def add_data(t_us, psn, prev, off, ts, flags, info):
        chunk = msg[off:off + 1400]
        raw, fields = data(psn, 0, off, 4000, ts, prev, chunk, flags=flags)
        pkts.append(Packet("example DATA PSN %d%s" % (
            psn, " RETX" if flags & F_RETX else ""), raw, fields,
            t_us=t_us, info=info, payload=chunk))
        return raw

    add_data(0, 0, 0xFFFFFFFF, 0, t0, 0,
             "DATA psn=0 msg=0 off=0/4000 len=1400 prev=4294967295 "
             "6000 \u2192 7000")
    add_data(1, 1, 0, 1400, t1, 0,
             "DATA psn=1 msg=0 off=1400/4000 len=1400 prev=0 6000 \u2192 7000")
    raw = add_data(2, 2, 1, 2800, t2, F_AR,
                   "DATA psn=2 msg=0 off=2800/4000 len=1200 prev=1 [AR] "
                   "6000 \u2192 7000")
    if raw[:48] != DOC_DATA_PSN2:
        raise Failure("encoded DATA PSN 2 header differs from section 10:\n"
                      "  %s\n  %s" % (raw[:48].hex(), DOC_DATA_PSN2.hex()))
    raw, fields = sack(1, 1, 0x2, 2600, t2, 1, 0, **bhdr)
    if raw != DOC_SACK1:
        raise Failure("encoded SACK 1 differs from section 10:\n  %s\n  %s"
                      % (raw.hex(), DOC_SACK1.hex()))
    pkts.append(Packet("example SACK 1", raw, fields, t_us=52, info=(
        "SACK epsn=1 base=1 bitmap=0x0000000000000002 rcvd=2600 ooo=1 ce=0 "
        "7000 \u2192 6000"), **b2a))
    raw, fields = probe(1, tp)
    pkts.append(Packet("example PROBE", raw, fields, t_us=352,
                       info="PROBE base=1 6000 \u2192 7000"))
    raw, fields = sack(1, 1, 0x2, 2600, tp, 1, 0, flags=F_PROBE_ACK, **bhdr)
    pkts.append(Packet("example SACK 2 (PROBE_ACK)", raw, fields, t_us=402,
                       info="SACK epsn=1 base=1 bitmap=0x0000000000000002 "
                       "rcvd=2600 ooo=1 ce=0 [PROBE_ACK] 7000 \u2192 6000",
                       **b2a))
    add_data(402, 1, 1, 1400, t1r, F_RETX | F_AR,
             "DATA psn=1 msg=0 off=1400/4000 len=1400 prev=1 [AR,RETX] "
             "6000 \u2192 7000")
    raw, fields = sack(3, 3, 0, 4000, t1r, 0, 0, **bhdr)
    pkts.append(Packet("example SACK 3", raw, fields, t_us=452, info=(
        "SACK epsn=3 base=3 bitmap=0x0000000000000000 rcvd=4000 ooo=0 ce=0 "
        "7000 \u2192 6000"), **b2a))
    return pkts


V6_A, V6_B = "fd00::1", "fd00::2"


def other_valid():
    """Every flag a type allows, every NACK code, extreme values, PSN
    wrap, IPv6, a CE-marked packet, a header cut by the snap length."""
    pkts = []
    t = 1000

    def add(name, pair, **kw):
        nonlocal t
        t += 10
        pkts.append(Packet(name, pair[0], pair[1], t_us=t, **kw))

    ab, ba = " 6000 \u2192 7000", " 7000 \u2192 6000"
    payload = bytes(range(100))
    add("DATA AR|RETX|FLOWLET extremes, IPv6 CE",
        data(0xFFFFFFFF, 0xFFFFFFFF, 16777116, 16777216,
             0xFEDCBA9876543210, 0xFFFFFFFE, payload,
             flags=F_AR | F_RETX | F_FLOWLET, sport=65535, dport=1,
             nonce=0xFFFFFFFF, ev=255),
        src=V6_A, dst=V6_B, tos=CE, payload=payload,
        info="DATA psn=4294967295 msg=4294967295 off=16777116/16777216 "
        "len=100 prev=4294967294 [AR,RETX,FLOWLET] 65535 \u2192 1")
    add("DATA TRIMMED to 100 of 1400 bytes",
        data(10, 5, 1400, 2800, 1, 9, payload, payload_len=1400,
             flags=F_TRIMMED, ev=3), payload=payload,
        info="DATA psn=10 msg=5 off=1400/2800 len=1400 prev=9 [TRIMMED]" + ab)
    add("DATA TRIMMED to nothing",
        data(11, 5, 0, 2800, 2, 10, b"", payload_len=1400, flags=F_TRIMMED),
        info="DATA psn=11 msg=5 off=0/2800 len=1400 prev=10 [TRIMMED]" + ab)
    add("DATA TRIMMED, nothing cut",
        data(13, 7, 0, 100, 2, 12, payload, flags=F_TRIMMED),
        payload=payload,
        info="DATA psn=13 msg=7 off=0/100 len=100 prev=12 [TRIMMED]" + ab)
    add("DATA empty message, first of a flowlet",
        data(12, 6, 0, 0, 3, 12, b"", flags=F_FLOWLET, ev=0),
        info="DATA psn=12 msg=6 off=0/0 len=0 prev=12 [FLOWLET]" + ab)
    add("SACK CE|PROBE_ACK, extremes, PSN wrap",
        sack(0xFFFFFFF0, 0x30, 0x8000000100000001, 2**63 + 5, 2**64 - 1,
             0xFFFFFFFF, 65535, flags=F_CE | F_PROBE_ACK, sport=65535,
             dport=1, ev=65535),
        src="10.0.0.2", dst="10.0.0.1",
        info="SACK epsn=4294967280 base=48 bitmap=0x8000000100000001 "
        "rcvd=9223372036854775813 ooo=4294967295 ce=65535 [CE,PROBE_ACK] "
        "65535 \u2192 1")
    add("SACK bitmap across PSN 0",
        sack(0xFFFFFFFE, 0xFFFFFFFE, 0b1110, 4200, 4, 3, 1, sport=7000,
             dport=6000), src="10.0.0.2", dst="10.0.0.1",
        info="SACK epsn=4294967294 base=4294967294 bitmap=0x000000000000000e "
        "rcvd=4200 ooo=3 ce=1" + ba)
    add("SACK with Room (300 KiB)",
        sack(7, 7, 0, 1400, 9, 0, 0, room=301, sport=7000, dport=6000),
        src="10.0.0.2", dst="10.0.0.1",
        info="SACK epsn=7 base=7 bitmap=0x0000000000000000 rcvd=1400 ooo=0 "
        "ce=0 room=300K" + ba)
    add("SACK full bitmap, IPv6",
        sack(100, 164, 2**64 - 1, 1 << 40, 5, 64, 0, sport=7000, dport=6000,
             ev=1000), src=V6_B, dst=V6_A,
        info="SACK epsn=100 base=164 bitmap=0xffffffffffffffff "
        "rcvd=1099511627776 ooo=64 ce=0" + ba)
    add("NACK NO_BUFFER with CE",
        nack(20, 1, 18, 6, flags=F_CE, sport=7000, dport=6000),
        src="10.0.0.2", dst="10.0.0.1",
        info="NACK NO_BUFFER psn=20 epsn=18 [CE]" + ba)
    add("NACK TRIMMED", nack(10, 2, 10, 1, sport=7000, dport=6000),
        src="10.0.0.2", dst="10.0.0.1",
        info="NACK TRIMMED psn=10 epsn=10" + ba)
    add("NACK FLOWLET_GAP, IPv6",
        nack(0xFFFFFFFF, 3, 0, 2**64 - 2, sport=7000, dport=6000),
        src=V6_B, dst=V6_A,
        info="NACK FLOWLET_GAP psn=4294967295 epsn=0" + ba)
    add("PROBE, IPv6", probe(0x12345678, 0x0102030405060708, ev=42),
        src=V6_A, dst=V6_B, info="PROBE base=305419896" + ab)
    # Wire-format.rst section 5.1: a new incarnation (nonce 0x0BADCAFE)
    # refused while the old one is live is challenged, on the EV of the
    # refused packet, and proves itself with a PROBE with COOKIE.
    add("NACK CHALLENGE of a DATA",
        nack(0, NACK_CHALLENGE, 0, 0x0123456789ABCDEF, sport=7000,
             dport=6000, nonce=0x0BADCAFE, ev=9),
        src="10.0.0.2", dst="10.0.0.1",
        info="NACK CHALLENGE psn=0 epsn=0 cookie=0x0123456789abcdef" + ba)
    add("PROBE with COOKIE",
        probe(0, 0x1122334455667788, cookie=0x0123456789ABCDEF,
              flags=F_COOKIE, nonce=0x0BADCAFE, ev=9),
        info="PROBE base=0 cookie=0x0123456789abcdef [COOKIE]" + ab)
    add("NACK CHALLENGE of a PROBE, cookie extremes, IPv6",
        nack(0xFFFFFFFF, NACK_CHALLENGE, 0, 2**64 - 1, sport=7000,
             dport=6000, ev=65535),
        src=V6_B, dst=V6_A,
        info="NACK CHALLENGE psn=4294967295 epsn=0 "
        "cookie=0xffffffffffffffff" + ba)
    add("PROBE with COOKIE 0, IPv6",
        probe(0xFFFFFFFF, 3, cookie=0, flags=F_COOKIE, ev=255),
        src=V6_A, dst=V6_B,
        info="PROBE base=4294967295 cookie=0x0000000000000000 [COOKIE]" + ab)
    # A burst as captured on its sending host, before UDP segmentation
    # (design.rst section 2): two full packets and a shorter last one.
    parts = [data(20 + i, 8, 100 * i, 250, 9, 19 + i, payload[:n], ev=5)
             for i, n in enumerate((100, 100, 50))]
    add("burst of 3 DATA, one UDP GSO datagram",
        (b"".join(p[0] for p in parts), merge(*(p[1] for p in parts))),
        payload=payload * 2 + payload[:50],
        info="burst of 3: " + " | ".join(
            "DATA psn=%u msg=8 off=%u/250 len=%u prev=%u" % (
                20 + i, 100 * i, n, 19 + i) + ab
            for i, n in enumerate((100, 100, 50))))
    raw, fields = sack(7, 7, 0x4, 100, 7, 1, 0)
    add("SACK cut by the snap length",
        (raw, {k: v for k, v in fields.items()
               if not k.startswith("mpdt.sack.")}
         | {"mpdt.reserved": fields["mpdt.reserved"][:1]}),
        experts=("truncated",), snap=14 + 20 + 8 + 40,
        info="SACK 6000 \u2192 7000 (header not captured)")
    return pkts


def malformed():
    """Each stateless check of wire-format.rst section 6.1, and the
    warnings for reserved bits and a bogus SACK bitmap."""
    pkts = []
    t = 2000

    def add(name, pair, drop=None, **kw):
        nonlocal t
        t += 10
        pkts.append(Packet(name, pair[0], pair[1], t_us=t, drop=drop, **kw))

    def trailing(pair, extra):
        """A packet with extra bytes after its header."""
        return pair[0] + extra, merge(pair[1], {"mpdt.undecoded": [extra]})

    def head(raw, fields, keep):
        """The first keep bytes of a packet: its common header's fields
        and the rest undecoded."""
        fields = {k: v for k, v in fields.items()
                  if k.split(".")[1] in ("version", "type", "flags",
                                         "srcport", "dstport", "port",
                                         "nonce", "ev")}
        fields["mpdt.reserved"] = [raw[14:16]]
        if keep > 16:
            fields["mpdt.undecoded"] = [raw[16:keep]]
        return raw[:keep], fields

    ex_raw, _ = probe(1, 2)
    add("10 bytes", (ex_raw[:10], {"mpdt.undecoded": [ex_raw[:10]]}),
        drop="drop_short")
    raw, _ = probe(1, 2, version=2)
    add("version 2", (raw, {"mpdt.version": [2],
                             "mpdt.undecoded": [raw[1:]]}),
        drop="drop_bad_version")
    raw, fields = common(5, flags=0xFFFF, sport=0)
    raw += b"\xaa" * 8
    add("type 5", head(raw, fields, len(raw)), drop="drop_bad_type")
    raw, fields = common(0, sport=0)
    add("type 0, header only", head(raw, fields, 16), drop="drop_bad_type")
    raw, fields = sack(1, 1, 2, 3, 4, 5, 6, flags=0x8000, sport=0)
    add("SACK of 40 bytes", head(raw, fields, 40), drop="drop_short")
    raw, fields = data(1, 2, 0, 1, 3, 0, b"x")
    add("DATA of 47 bytes", head(raw, fields, 47), drop="drop_short")
    add("DATA with PROBE_ACK",
        data(1, 2, 0, 1, 3, 0, b"x", flags=F_AR | F_PROBE_ACK),
        drop="drop_bad_flags", payload=b"x")
    add("PROBE with AR", probe(1, 2, flags=F_AR), drop="drop_bad_flags")
    add("NACK with an unassigned flag, bad code",
        nack(1, 7, 1, 1, flags=0x8000 | F_CE), drop="drop_bad_flags",
        experts=("bad_nack_code",))
    add("SACK with RETX, port 0, trailing bytes",
        trailing(sack(0, 0, 0, 0, 0, 0, 0, flags=F_RETX, dport=0), b"\0\0"),
        drop="drop_bad_flags", experts=("bad_port", "bad_length"))
    add("DATA from MPDT port 0",
        data(1, 2, 0, 1, 3, 0, b"x", sport=0), drop="drop_bad_port",
        payload=b"x")
    add("PROBE to MPDT port 0", probe(1, 2, dport=0), drop="drop_bad_port")
    add("DATA 50 of 100 bytes",
        data(1, 2, 0, 100, 3, 0, bytes(50), payload_len=100),
        drop="drop_bad_length", payload=bytes(50))
    add("DATA TRIMMED with more than Payload Length",
        data(1, 2, 0, 100, 3, 0, bytes(60), payload_len=50,
             flags=F_TRIMMED), drop="drop_bad_length", payload=bytes(60))
    add("DATA Message Length 16 MiB + 1",
        data(1, 2, 0, 16777217, 3, 0, b"x"), drop="drop_bad_length",
        payload=b"x")
    add("DATA empty payload in a 10-byte message",
        data(1, 2, 0, 10, 3, 0, b""), drop="drop_bad_length")
    add("DATA Offset beyond the message",
        data(1, 2, 11, 10, 3, 0, b"x"), drop="drop_bad_offset",
        payload=b"x")
    add("DATA payload beyond the message",
        data(1, 2, 5, 10, 3, 0, bytes(6)), drop="drop_bad_offset",
        payload=bytes(6))
    add("NACK code 0", nack(1, 0, 1, 1), drop="drop_bad_type",
        drop_expert="bad_nack_code")
    add("NACK code 5 with 3 trailing bytes",
        trailing(nack(1, 5, 1, 1), b"abc"),
        drop="drop_bad_type", drop_expert="bad_nack_code",
        experts=("bad_length",))
    add("NACK CHALLENGE with 1 trailing byte",
        trailing(nack(1, NACK_CHALLENGE, 0, 7), b"c"),
        drop="drop_bad_length")
    add("PROBE with 1 trailing byte",
        trailing(probe(1, 2), b"z"), drop="drop_bad_length")
    # A PROBE is 32 bytes without COOKIE, 40 with it (section 4.4).
    add("PROBE of 40 bytes without COOKIE",
        trailing(probe(1, 2), bytes(8)), drop="drop_bad_length")
    raw, fields = probe(1, 2, flags=F_COOKIE)
    add("PROBE with COOKIE of 32 bytes", head(raw, fields, 32),
        drop="drop_short")
    raw, fields = probe(1, 2, cookie=5, flags=F_COOKIE | F_AR)
    add("PROBE with COOKIE|AR of 39 bytes (length before flags)",
        head(raw, fields, 39), drop="drop_short")
    add("PROBE with COOKIE and 1 trailing byte",
        trailing(probe(1, 2, cookie=5, flags=F_COOKIE), b"z"),
        drop="drop_bad_length")
    add("PROBE with COOKIE|AR",
        probe(1, 2, cookie=5, flags=F_COOKIE | F_AR), drop="drop_bad_flags")
    add("DATA with COOKIE",
        data(1, 2, 0, 1, 3, 0, b"x", flags=F_COOKIE),
        drop="drop_bad_flags", payload=b"x")
    add("NACK CHALLENGE with COOKIE",
        nack(1, NACK_CHALLENGE, 0, 7, flags=F_COOKIE),
        drop="drop_bad_flags")
    add("PROBE, reserved fields not zero (valid)",
        probe(1, 2, probe_reserved=0xDEADBEEF, nonce=9),
        experts=("reserved",))
    add("DATA, common reserved not zero (valid)",
        data(1, 2, 0, 1, 3, 0, b"x", data_reserved=0x0100, reserved=1),
        experts=("reserved",), payload=b"x")
    add("SACK acknowledging its EPSN (valid header, bogus bitmap)",
        sack(5, 5, 0x3, 0, 0, 2, 0), experts=("bogus_sack",))
    add("SACK acknowledging before EPSN (valid header, bogus bitmap)",
        sack(5, 0xFFFFFFFF, 0x1, 0, 0, 1, 0), experts=("bogus_sack",))
    return pkts


# ---------------------------------------------------------------------------
# Ethernet, IP and UDP headers, and the pcap file.

def inet_checksum(buf):
    if len(buf) % 2:
        buf += b"\0"
    s = sum(struct.unpack("!%dH" % (len(buf) // 2), buf))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def frame(pkt):
    src, dst = ipaddress.ip_address(pkt.src), ipaddress.ip_address(pkt.dst)
    udp_len = 8 + len(pkt.mpdt)
    if src.version == 4:
        pseudo = struct.pack("!4s4sBBH", src.packed, dst.packed, 0, 17,
                             udp_len)
    else:
        pseudo = struct.pack("!16s16sI3xB", src.packed, dst.packed, udp_len,
                             17)
    udp = struct.pack("!HHHH", pkt.sport, pkt.dport, udp_len, 0) + pkt.mpdt
    csum = inet_checksum(pseudo + udp) or 0xFFFF
    udp = udp[:6] + struct.pack("!H", csum) + udp[8:]
    if src.version == 4:
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, pkt.tos, 20 + udp_len,
                         pkt.t_us & 0xFFFF, 0x4000, 64, 17, 0, src.packed,
                         dst.packed)
        ip = ip[:10] + struct.pack("!H", inet_checksum(ip)) + ip[12:]
        ethertype = 0x0800
    else:
        # Flow label EV + 1 (wire-format.rst section 2).
        ip = struct.pack("!IHBB16s16s", 6 << 28 | pkt.tos << 20 |
                         (pkt.ev + 1) & 0xFFFFF, udp_len, 17, 64,
                         src.packed, dst.packed)
        ethertype = 0x86DD
    eth = (bytes.fromhex("020000000002") + bytes.fromhex("020000000001") +
           struct.pack("!H", ethertype))
    return eth + ip + udp


def write_pcap(path, pkts):
    with open(path, "wb") as out:
        out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for pkt in pkts:
            raw = frame(pkt)
            cap = raw[:pkt.snap] if pkt.snap else raw
            sec, usec = divmod(1700000000 * 10**6 + pkt.t_us, 10**6)
            out.write(struct.pack("<IIII", sec, usec, len(cap), len(raw)))
            out.write(cap)


# ---------------------------------------------------------------------------
# tshark

def find_tshark():
    path = shutil.which("tshark")
    if path:
        return path
    if os.geteuid() != 0:
        raise SetupError("tshark is missing: apt-get install tshark "
                         "(as root, or run this test as root)")
    print("tshark is missing: installing it with apt-get", flush=True)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    install = ["apt-get", "install", "-y", "--no-install-recommends",
               "tshark"]
    if subprocess.run(install, env=env).returncode != 0:
        subprocess.run(["apt-get", "update"], env=env)
        subprocess.run(install, env=env)
    path = shutil.which("tshark")
    if not path:
        raise SetupError("apt-get install tshark failed")
    return path


def run_tshark(tshark, args, first=()):
    cmd = [tshark] + list(first) + ["-n", "-X", "lua_script:" + LUA] + args
    res = subprocess.run(cmd, capture_output=True, text=True)
    # tshark reports a Lua error in the script on stderr and goes on.
    errors = [line for line in res.stderr.splitlines()
              if "lua" in line.lower()]
    if res.returncode != 0 or errors:
        raise Failure("%s failed (exit %d):\n%s" % (
            " ".join(cmd), res.returncode, res.stderr.strip()))
    return res.stdout


def decode(tshark, pcap, fields, extra=()):
    """One {field: [values]} per frame."""
    args = ["-r", pcap, "-T", "json"] + list(extra)
    for field in fields:
        args += ["-e", field]
    return [frame["_source"]["layers"]
            for frame in json.loads(run_tshark(tshark, args) or "[]")]


def normalize(field, value):
    if field in BYTES_FIELDS:
        return bytes.fromhex(value.replace(":", ""))
    if field in STRING_FIELDS:
        return value
    if value in ("True", "False"):  # booleans in newer Wireshark
        return int(value == "True")
    return int(value, 0)


def show(field, values):
    if field in BYTES_FIELDS:
        return [v.hex() for v in values]
    return values


# ---------------------------------------------------------------------------
# The checks

def check_registered_fields(tshark):
    out = run_tshark(tshark, [], first=["-G", "fields"])
    rows = [line.split("\t") for line in out.splitlines()]
    fields = {r[2] for r in rows if r[0] == "F" and r[2].startswith("mpdt.")}
    experts = {r[2] for r in rows if r[0] == "F" and
               r[2].startswith("mpdt.expert.")}
    fields -= experts
    if fields != MPDT_FIELDS:
        raise Failure("registered fields differ from the test's: "
                      "not tested %s, missing %s" % (
                          sorted(fields - MPDT_FIELDS),
                          sorted(MPDT_FIELDS - fields)))
    if experts != MPDT_EXPERTS:
        raise Failure("registered expert infos differ: extra %s, missing %s"
                      % (sorted(experts - MPDT_EXPERTS),
                         sorted(MPDT_EXPERTS - experts)))
    return len(fields), len(experts)


def check_packets(tshark, pcap, pkts):
    wanted = (sorted(MPDT_FIELDS) + sorted(MPDT_EXPERTS) +
              ["frame.protocols", "_ws.col.Info", "_ws.expert.message",
               "data.data"])
    frames = decode(tshark, pcap, wanted,
                    ["-o", "ip.check_checksum:TRUE",
                     "-o", "udp.check_checksum:TRUE"])
    if len(frames) != len(pkts):
        raise Failure("tshark decoded %d frames, %d written"
                      % (len(frames), len(pkts)))
    errors = []
    counts = {}
    for num, (pkt, layers) in enumerate(zip(pkts, frames), 1):
        where = "frame %d (%s)" % (num, pkt.name)
        messages = layers.get("_ws.expert.message", [])
        lua_errors = [m for m in messages if m.startswith("Lua Error")]
        if lua_errors:
            errors.append("%s: %s" % (where, "; ".join(lua_errors)))
            continue
        protocols = layers.get("frame.protocols", [""])[0].split(":")
        if "mpdt" not in protocols:
            errors.append("%s: not MPDT: %s" % (where, ":".join(protocols)))
            continue
        got = {}
        for field in MPDT_FIELDS:
            if field in layers:
                got[field] = [normalize(field, v) for v in layers[field]]
        for field in sorted(set(got) | set(pkt.fields)):
            if got.get(field, []) != pkt.fields.get(field, []):
                errors.append("%s: %s is %s, encoded %s" % (
                    where, field, show(field, got.get(field, [])),
                    show(field, pkt.fields.get(field, []))))
        experts = {e for e in MPDT_EXPERTS if e in layers}
        if experts != pkt.experts:
            errors.append("%s: expert info %s, expected %s (messages: %s)"
                          % (where, sorted(experts), sorted(pkt.experts),
                             messages))
        elif not pkt.experts and messages:
            errors.append("%s: unexpected expert info %s" % (where, messages))
        payload = b"".join(bytes.fromhex(d.replace(":", ""))
                           for d in layers.get("data.data", []))
        if payload != (pkt.payload or b""):
            errors.append("%s: data is %d bytes %s..., sent %d bytes" % (
                where, len(payload), payload[:8].hex(),
                len(pkt.payload or b"")))
        info = layers.get("_ws.col.Info", [""])[0]
        if pkt.info is not None and info != pkt.info:
            errors.append("%s: Info column %r, expected %r"
                          % (where, info, pkt.info))
        if pkt.drop and "[Malformed: %s]" % pkt.drop not in info:
            errors.append("%s: Info column %r does not name %s"
                          % (where, info, pkt.drop))
        if not pkt.drop and "Malformed" in info:
            errors.append("%s: Info column %r" % (where, info))
        key = ("malformed" if pkt.drop else
               TYPE_NAMES[got["mpdt.type"][0]])
        counts[key] = counts.get(key, 0) + 1
    if errors:
        raise Failure("\n".join(errors))
    return counts


# Display filters of the documentation, and the packets each must select.
FILTERS = [
    ("mpdt.type == 1", lambda p: T_DATA in p.fields.get("mpdt.type", [])),
    ("mpdt.type == SACK", lambda p: T_SACK in p.fields.get("mpdt.type", [])),
    ("mpdt.psn == 1", lambda p: 1 in p.fields.get("mpdt.psn", [])),
    ("mpdt.flags.retx == 1",
     lambda p: 1 in p.fields.get("mpdt.flags.retx", [])),
    ("mpdt.nack.code == FLOWLET_GAP",
     lambda p: 3 in p.fields.get("mpdt.nack.code", [])),
    ("mpdt.nack.code == CHALLENGE",
     lambda p: NACK_CHALLENGE in p.fields.get("mpdt.nack.code", [])),
    ("mpdt.flags.cookie == 1",
     lambda p: 1 in p.fields.get("mpdt.flags.cookie", [])),
    ("mpdt.probe.cookie",
     lambda p: "mpdt.probe.cookie" in p.fields),
    ("mpdt.sack.acked == 0",
     lambda p: 0 in p.fields.get("mpdt.sack.acked", [])),
    ("mpdt.drop", lambda p: p.drop is not None),
    ("mpdt.expert.bad_length",
     lambda p: "mpdt.expert.bad_length" in p.experts),
]


def check_filters(tshark, pcap, pkts):
    errors = []
    for expr, selects in FILTERS:
        frames = decode(tshark, pcap, ["frame.number"], ["-Y", expr])
        got = [int(f["frame.number"][0]) for f in frames]
        want = [num for num, pkt in enumerate(pkts, 1) if selects(pkt)]
        if got != want or not want:
            errors.append("filter %r selects frames %s, expected %s"
                          % (expr, got, want))
    if errors:
        raise Failure("\n".join(errors))


def check_port_preference(tshark, tmp):
    """Not MPDT on another port; MPDT there with -o mpdt.udp_port."""
    raw, _ = probe(1, 2)
    pcap = os.path.join(tmp, "port.pcap")
    write_pcap(pcap, [Packet("PROBE to UDP 4797", raw, {}, t_us=0,
                             dport=4797),
                      Packet("PROBE to UDP 4796", raw, {}, t_us=1)])
    fields = ["frame.protocols", "mpdt.type"]
    default = decode(tshark, pcap, fields)
    moved = decode(tshark, pcap, fields, ["-o", "mpdt.udp_port:4797"])
    is_mpdt = [["mpdt" in f["frame.protocols"][0].split(":") for f in run]
               for run in (default, moved)]
    if is_mpdt != [[False, True], [True, False]]:
        raise Failure("MPDT on UDP ports 4797, 4796: %s by default, %s with "
                      "-o mpdt.udp_port:4797; expected [False, True], "
                      "[True, False]" % tuple(is_mpdt))


def self_test(tshark):
    pkts = worked_example() + other_valid() + malformed()
    check_doc()
    nfields, nexperts = check_registered_fields(tshark)
    with tempfile.TemporaryDirectory(prefix="mpdt-wireshark.") as tmp:
        pcap = os.path.join(tmp, "mpdt.pcap")
        write_pcap(pcap, pkts)
        counts = check_packets(tshark, pcap, pkts)
        check_filters(tshark, pcap, pkts)
        check_port_preference(tshark, tmp)
    print("test_dissector: %d packets decoded as written (%s); %d fields, "
          "%d expert infos, %d display filters; port preference works" % (
              len(pkts), ", ".join("%s %d" % (name, counts.get(name, 0))
                                   for name in list(TYPE_NAMES.values()) +
                                   ["malformed"]),
              nfields, nexperts, len(FILTERS)))


def check_doc():
    """The dumps of section 10 are still the ones this test encodes."""
    if not os.path.exists(DOC):
        return  # the test runs from a copy
    dumps, current = [], None
    with open(DOC, encoding="utf-8") as doc:
        for line in doc:
            words = line.split()
            if words[:1] == ["0000:"]:
                current = bytearray()
                dumps.append(current)
            if current is not None and words and words[0].endswith(":") \
                    and len(words[0]) == 5:
                current += bytes.fromhex("".join(words[1:]))
            elif not words or not words[0].endswith(":"):
                current = None
    if dumps[-2:] != [DOC_DATA_PSN2, DOC_SACK1]:
        raise Failure("%s section 10 no longer shows the DATA and SACK this "
                      "test encodes:\n%s" % (
                          DOC, "\n".join(bytes(d).hex() for d in dumps)))


# ---------------------------------------------------------------------------
# A real capture

def check_capture(tshark, pcap, port):
    if not os.path.exists(pcap):
        raise SetupError("%s: no such file" % pcap)
    flag_fields = ["mpdt.flags." + name for name in FLAGS]
    frames = decode(tshark, pcap, [
        "frame.number", "frame.len", "frame.cap_len", "frame.protocols",
        "mpdt.type", "mpdt.drop", "_ws.expert.message"] + flag_fields +
        sorted(MPDT_EXPERTS), [
        "-o", "mpdt.udp_port:%d" % port,
        "-Y", "udp.port == %d && !icmp && !icmpv6" % port])
    counts, flags, errors, cut, bursts = {}, {}, [], 0, 0
    for layers in frames:
        num = layers["frame.number"][0]
        messages = layers.get("_ws.expert.message", [])
        truncated = layers["frame.cap_len"] != layers["frame.len"]
        if "mpdt" not in layers["frame.protocols"][0].split(":"):
            errors.append("frame %s: not MPDT (%s)%s" % (
                num, layers["frame.protocols"][0],
                ": capture cut before the MPDT header" if truncated else ""))
        elif "mpdt.drop" in layers:
            errors.append("frame %s: malformed, %s: %s"
                          % (num, layers["mpdt.drop"][0], messages))
        elif [e for e in MPDT_EXPERTS
              if e in layers and e != "mpdt.expert.truncated"]:
            # Reserved bits set, a SACK acknowledging PSNs before EPSN:
            # valid headers no MPDT implementation sends.
            errors.append("frame %s: not as the specification says: %s"
                          % (num, messages))
        else:
            # A burst (one GSO datagram) counts each of its packets.
            for ptype in layers["mpdt.type"]:
                name = TYPE_NAMES[int(ptype)]
                counts[name] = counts.get(name, 0) + 1
            bursts += len(layers["mpdt.type"]) > 1
            cut += "mpdt.expert.truncated" in layers
            for field in flag_fields:
                for value in layers.get(field, []):
                    if normalize(field, value):
                        flag = field.split(".")[-1].upper()
                        flags[flag] = flags.get(flag, 0) + 1
    print("%s: %d UDP datagrams to or from port %d, %d of them bursts"
          % (pcap, len(frames), port, bursts))
    for name in TYPE_NAMES.values():
        print("  %-6s %d" % (name, counts.get(name, 0)))
    for name, count in sorted(flags.items()):
        print("  flag %-10s %d" % (name, count))
    if cut:
        print("  %d with the header cut by the capture length (not "
              "checked)" % cut)
    if errors:
        raise Failure("%d packets not decoded as valid MPDT:\n%s" % (
            len(errors), "\n".join(errors[:50])))
    if not frames:
        raise Failure("no UDP packet to or from port %d in %s"
                      % (port, pcap))


def main():
    parser = argparse.ArgumentParser(
        description="Test the MPDT Wireshark dissector with tshark.")
    parser.add_argument("capture", nargs="?",
                        help="a capture to check instead of the self-test")
    parser.add_argument("--port", type=int, default=UDP_PORT,
                        help="MPDT UDP port of the capture "
                        "(default %(default)s)")
    args = parser.parse_args()
    try:
        tshark = find_tshark()
        if args.capture:
            check_capture(tshark, args.capture, args.port)
        else:
            self_test(tshark)
    except Failure as err:
        print("test_dissector: FAILED: %s" % err, file=sys.stderr)
        return 1
    except SetupError as err:
        print("test_dissector: %s" % err, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
