# SPDX-License-Identifier: GPL-2.0
"""Python side of the MPDT kselftests: the socket API, MPDT_INFO, the wire
format (to forge packets) and mpdt_msg's message generator.

Written from include/uapi/linux/mpdt.h, net/mpdt/wire.h and
selftests/net/mpdt_msg.c only, so that it is an independent implementation
of what those promise.
"""

import ctypes
import errno
import math
import os
import socket
import struct
import time

IPPROTO_MPDT = 254
SOL_MPDT = IPPROTO_MPDT
MPDT_INFO = 1
MPDT_MSG_MAX = 16 << 20
MPDT_UDP_PORT = 4796

MPDT_CONN_ACTIVE = 1
MPDT_CONN_FAILED = 2

# struct mpdt_info (x86-64): sockaddr_storage, 12 x u32, retx[4] u64,
# 11 x u64, 2 x u32, lb[16], cc[16], 2 x u32, u64, u32 and its padding.
_INFO_FMT = "<128s12I4Q11Q2I16s16s2IQI4x"
INFO_SIZE = struct.calcsize(_INFO_FMT)
assert INFO_SIZE == 360
_INFO_FIELDS = (
    "peer state nonce cwnd inflight srtt_us rttvar_us min_rtt_us rto_us "
    "snd_una snd_nxt rcv_epsn rcv_ooo retx_ooo retx_probe retx_rto "
    "retx_nack probes rtos sacks_rcvd sacks_sent nacks_rcvd nacks_sent "
    "msgs_sent msgs_acked msgs_rcvd bytes_sent bytes_acked msgs_inflight "
    "ev lb cc base_rtt_us bdp delivery_rate peer_room").split()


def mpdt_socket():
    return socket.socket(socket.AF_INET, socket.SOCK_DGRAM, IPPROTO_MPDT)


_libc = ctypes.CDLL(None, use_errno=True)


def get_info(sock, peer=None):
    """MPDT_INFO about peer (addr, port[, scope id]), IPv4 or IPv6, or the
    connected peer if None.

    MPDT_INFO reads mi_peer from the buffer it fills, which
    socket.getsockopt() cannot pass in (its buffer is uninitialized), so
    this calls getsockopt(2) through ctypes.
    """
    buf = ctypes.create_string_buffer(INFO_SIZE)
    if peer is not None and ":" in peer[0]:
        sin = (struct.pack("<H", socket.AF_INET6) +
               struct.pack("!HI", peer[1], 0) +
               socket.inet_pton(socket.AF_INET6, peer[0]) +
               struct.pack("<I", peer[2] if len(peer) > 2 else 0))
        ctypes.memmove(buf, sin, len(sin))
    elif peer is not None:
        sin = struct.pack("<H", socket.AF_INET) + struct.pack("!H", peer[1]) + \
            socket.inet_aton(peer[0])
        ctypes.memmove(buf, sin, len(sin))
    optlen = ctypes.c_uint32(INFO_SIZE)
    if _libc.getsockopt(sock.fileno(), SOL_MPDT, MPDT_INFO, buf,
                        ctypes.byref(optlen)) != 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    raw = buf.raw[:optlen.value]
    vals = struct.unpack(_INFO_FMT, raw.ljust(INFO_SIZE, b"\0"))
    info = dict(zip(_INFO_FIELDS, vals))
    info["lb"] = info["lb"].split(b"\0")[0].decode()
    info["cc"] = info["cc"].split(b"\0")[0].decode()
    fam, port = struct.unpack("<H", info["peer"][:2])[0], \
        struct.unpack("!H", info["peer"][2:4])[0]
    addr = info["peer"]
    info["peer"] = (fam, socket.inet_ntop(socket.AF_INET6, addr[8:24])
                    if fam == socket.AF_INET6 else
                    socket.inet_ntoa(addr[4:8]), port)
    return info


def now_ns():
    return time.monotonic_ns()


# --------------------------------------------------------------------------
# Wire format v1 (net/mpdt/wire.h): 16-byte common header, then per type.
# --------------------------------------------------------------------------

T_DATA, T_SACK, T_NACK, T_PROBE = 1, 2, 3, 4
F_AR, F_RETX, F_TRIMMED, F_CE, F_PROBE_ACK, F_FLOWLET, F_COOKIE = \
    0x1, 0x2, 0x4, 0x8, 0x10, 0x20, 0x40
NACK_NO_BUFFER, NACK_TRIMMED, NACK_FLOWLET_GAP, NACK_CHALLENGE = 1, 2, 3, 4
NACK_CODES = (NACK_NO_BUFFER, NACK_TRIMMED, NACK_FLOWLET_GAP, NACK_CHALLENGE)
COMMON_LEN = 16
DATA_HLEN = COMMON_LEN + 32
SACK_LEN = COMMON_LEN + 40
NACK_LEN = COMMON_LEN + 20
PROBE_LEN = COMMON_LEN + 16
COOKIE_LEN = 8      # after a PROBE with F_COOKIE


def common(ptype, flags=0, sport=1, dport=1, nonce=0, ev=0, version=1):
    return struct.pack("!BBHHHIHH", version, ptype, flags, sport, dport,
                       nonce, ev, 0)


def data_pkt(psn, msg_id, offset, msg_len, payload, payload_len=None, ts=0,
             prev_psn=None, **kw):
    """A DATA packet; prev_psn (the PSN sent before it on its in-order
    stream) defaults to psn itself, as for a retransmission."""
    if payload_len is None:
        payload_len = len(payload)
    if prev_psn is None:
        prev_psn = psn
    return (common(T_DATA, **kw) +
            struct.pack("!IIIIQHHI", psn, msg_id, offset, msg_len, ts,
                        payload_len, 0, prev_psn) + payload)


def sack_pkt(epsn, base, bitmap, recv_bytes=0, echo_ts=0, ooo=0, ce=0, **kw):
    return (common(T_SACK, **kw) +
            struct.pack("!IIQQQIHH", epsn, base, bitmap, recv_bytes, echo_ts,
                        ooo, ce, 0))


def nack_pkt(psn, code=NACK_NO_BUFFER, epsn=0, echo_ts=0, **kw):
    return (common(T_NACK, **kw) +
            struct.pack("!IBBHIQ", psn, code, 0, 0, epsn, echo_ts))


def probe_pkt(base, ts=0, cookie=None, **kw):
    """A PROBE; with a cookie, F_COOKIE is set and the cookie follows."""
    if cookie is None:
        return common(T_PROBE, **kw) + struct.pack("!IIQ", base, 0, ts)
    kw["flags"] = kw.get("flags", 0) | F_COOKIE
    return (common(T_PROBE, **kw) +
            struct.pack("!IIQQ", base, 0, ts, cookie))


assert len(data_pkt(0, 0, 0, 0, b"")) == DATA_HLEN
assert len(sack_pkt(0, 0, 0)) == SACK_LEN
assert len(nack_pkt(0)) == NACK_LEN
assert len(probe_pkt(0)) == PROBE_LEN
assert len(probe_pkt(0, cookie=0)) == PROBE_LEN + COOKIE_LEN


def parse_common(buf):
    """(version, type, flags, sport, dport, nonce, ev) of an MPDT packet."""
    return struct.unpack("!BBHHHIH", buf[:14])


def parse_data(buf):
    """(psn, msg_id, offset, msg_len, ts, payload_len) of a DATA packet."""
    return struct.unpack("!IIIIQH", buf[COMMON_LEN:COMMON_LEN + 26])


def parse_prev_psn(buf):
    return struct.unpack("!I", buf[COMMON_LEN + 28:COMMON_LEN + 32])[0]


# --------------------------------------------------------------------------
# mpdt_msg's messages (selftests/net/mpdt_msg.c): sizes log-uniform in
# [min, max] from the seed, content a splitmix64 stream of (seed, index)
# with a 16-byte header (magic, index, length, 0) when len >= 16.
# --------------------------------------------------------------------------

_M64 = (1 << 64) - 1
MAGIC = 0x4d504454
HDR_LEN = 16


def _splitmix(state):
    state = (state + 0x9e3779b97f4a7c15) & _M64
    z = state
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & _M64
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & _M64
    return state, z ^ (z >> 31)


def msg_size(seed, i, lo, hi):
    if i == 0:
        return lo
    if i == 1:
        return hi
    _, r = _splitmix((seed * 1000003 + i) & _M64)
    u = (r >> 11) * (1.0 / 9007199254740992.0)
    a, b = math.log(float(lo)), math.log(float(hi) + 1)
    n = int(math.exp(a + u * (b - a))) & 0xffffffff
    return min(max(n, lo), hi)


def msg_fill(seed, i, length):
    s = (seed ^ (i << 32)) & _M64
    words = []
    pack = struct.Struct("<Q").pack
    for _ in range((length + 7) // 8):
        s, r = _splitmix(s)
        words.append(pack(r))
    buf = b"".join(words)[:length]
    if length >= HDR_LEN:
        buf = struct.pack("!IIII", MAGIC, i, length, 0) + buf[HDR_LEN:]
    return buf


# --------------------------------------------------------------------------
# A cheap self-describing pattern for long streams (vanish tests): an
# 8-byte header (sequence number, length) and a byte ramp from the
# sequence number.  Any partial or mixed-up message fails check_pattern().
# --------------------------------------------------------------------------

_RAMP = bytes(range(256)) * 2


def pattern(seq, length):
    if length < 8:
        return bytes((seq + k) & 0xff for k in range(length))
    body_len = length - 8
    start = seq & 0xff
    reps = body_len // 256 + 1
    body = (_RAMP[start:start + 256] * reps)[:body_len]
    return struct.pack("!II", seq & 0xffffffff, length) + body


def check_pattern(buf):
    """The sequence number of a well-formed pattern message, or None."""
    if len(buf) < 8:
        return None
    seq, length = struct.unpack("!II", buf[:8])
    if length != len(buf) or pattern(seq, length) != buf:
        return None
    return seq


def errname(e):
    return errno.errorcode.get(e, str(e))


def touch(path):
    with open(path, "w"):
        pass


def wait_file(path, timeout):
    deadline = time.time() + timeout
    while not os.path.exists(path):
        if time.time() > deadline:
            return False
        time.sleep(0.05)
    return True
