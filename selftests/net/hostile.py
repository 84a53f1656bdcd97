#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""hostile.py: the attacks of hostile.sh, one case per invocation.

  hostile.py CASE... --ns-a NS --ns-b NS --dev-a IF --dev-b IF
             --mpdt-msg BIN --cli BIN --workdir DIR [--seed N] [--ipv6 0|1]
  hostile.py crash-client --peer ADDR --port P --lport L --size N --ready F

The victim is always in NS B (10.0.0.2, fd00::2).  Attacks come from NS A
over plain UDP sockets: from 10.0.0.3 (a second address on A's veth, so the
attacker is a host of its own), from 10.0.0.10-18 when it needs many hosts,
from 10.0.0.1 when it spoofs the honest sender, or from fd00::1.  Replies
are captured with a packet socket on A's veth.  Beside each attack an
honest transfer runs (mpdt_msg, or for a victim that needs its own
SO_RCVBUF a python receiver that checks mpdt_msg's messages byte for byte)
and must complete intact.

The script joins the namespaces itself (setns), reads the counters of
/proc/net/mpdt_stats there, and prints "ok: ..." or "FAIL: ..." per check
and "--- CASE: passed" or "FAILED" per case (each case undoes its
processes, sockets, tc filters and parameter changes at its end, so one
python runs them all: it starts slowly under TCG); the last line names the
failed cases ("HOSTILE-FAILED: ..."); exit 0 iff every check passed.  Every wait is bounded (a hang is a failure,
never a pass), and no check depends on how fast the guest is: where a rule
is about time (reassembly timeout, nonce idle time) the case either waits
for the counter that proves the event or keeps the attack alive so that the
event cannot happen during the check.

Cases (see hostile.sh for the rules they check):
  expire quota conn-evict conn-full nonce not-host overlap reply-port
  ipv6-csum crash zero-len params time-wait gso idle broadcast-source room
  incarnation bound-dev
"""

import time
_T_EXEC = time.time()

import argparse  # noqa: E402
import ctypes
import errno
import hashlib
import json
import os
import random
import re
import select
import signal
import socket
import struct
import subprocess
import sys
import threading

SELFTEST_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, SELFTEST_DIR)
import mpdtlib as m  # noqa: E402

CLONE_NEWNET = 0x40000000
ETH_P_ALL, ETH_P_IP, ETH_P_IPV6 = 0x0003, 0x0800, 0x86DD
PACKET_OUTGOING = 4
SO_SNDBUFFORCE = 32
SO_RCVBUFFORCE = 33
UDP_NO_CHECK6_TX = 101
UDP_SEGMENT = 103
SO_MEMINFO = 55
SO_BINDTODEVICE = 25

PORT = m.MPDT_UDP_PORT
ADDR_A, ADDR_B, ADDR_X = "10.0.0.1", "10.0.0.2", "10.0.0.3"
ADDR6_A, ADDR6_B = "fd00::1", "fd00::2"
PAYLOAD = 1400

_libc = ctypes.CDLL(None, use_errno=True)
T0 = time.monotonic()


def log(msg):
    print("[%6.1fs] %s" % (time.monotonic() - T0, msg), flush=True)


class Fatal(Exception):
    """A case cannot go on (its setup failed, or a bounded wait ran out)."""


# --------------------------------------------------------------------------
# Network namespaces: the main thread moves between them; sockets and child
# processes stay in the one they were created in.
# --------------------------------------------------------------------------

_NS_FDS = {}
_NS_CUR = [None]


def _setns_fd(fd):
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "setns: %s" % os.strerror(e))


class netns:
    """with netns(NAME): run in network namespace NAME (None: the original
    one), then come back."""

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        if not _NS_FDS:
            _NS_FDS[None] = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
        if self.name not in _NS_FDS:
            _NS_FDS[self.name] = os.open("/run/netns/" + self.name, os.O_RDONLY)
        self.prev = _NS_CUR[0]
        _setns_fd(_NS_FDS[self.name])
        _NS_CUR[0] = self.name
        return self

    def __exit__(self, *exc):
        _setns_fd(_NS_FDS[self.prev])
        _NS_CUR[0] = self.prev
        return False


def stats(ns):
    """Every counter of /proc/net/mpdt_stats in ns."""
    with netns(ns):
        with open("/proc/thread-self/net/mpdt_stats") as f:
            text = f.read()
    out = {}
    for line in text.splitlines():
        k, _, v = line.partition(" ")
        if v.strip().isdigit():
            out[k] = int(v)
    if not out:
        raise Fatal("no counters in /proc/net/mpdt_stats of %s" % ns)
    return out


def snmp6(ns, name):
    with netns(ns):
        with open("/proc/thread-self/net/snmp6") as f:
            for line in f:
                k, _, v = line.partition(" ")
                if k == name:
                    return int(v)
    raise Fatal("no %s in /proc/net/snmp6 of %s" % (name, ns))


def snmp(ns, proto, name):
    """Counter name of proto ("Udp") in ns's /proc/net/snmp."""
    with netns(ns):
        with open("/proc/thread-self/net/snmp") as f:
            rows = [ln.split() for ln in f if ln.startswith(proto + ":")]
    for names, values in zip(rows[::2], rows[1::2]):
        if name in names:
            return int(values[names.index(name)])
    raise Fatal("no %s %s in /proc/net/snmp of %s" % (proto, name, ns))


def delta(new, old, name):
    if name not in new or name not in old:
        raise Fatal("counter %s missing from /proc/net/mpdt_stats "
                    "(is it implemented?)" % name)
    return new[name] - old[name]


def wait_until(fn, timeout, interval=0.05):
    """fn()'s first true value within timeout seconds, else None."""
    deadline = time.monotonic() + timeout
    while True:
        v = fn()
        if v:
            return v
        if time.monotonic() > deadline:
            return None
        time.sleep(interval)


# --------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------

class Checks:
    def __init__(self):
        self.failed = []

    def ok(self, what, cond, detail=""):
        if cond:
            log("ok: %s%s" % (what, " (%s)" % detail if detail else ""))
        else:
            log("FAIL: %s%s" % (what, ": %s" % detail if detail else ""))
            self.failed.append(what)
        return bool(cond)

    def eq(self, what, want, got):
        return self.ok(what, want == got, "expected %r, got %r" % (want, got)
                       if want != got else "%r" % (got,))

    def ge(self, what, lo, got):
        return self.ok(what, got >= lo, "%r, expected >= %r" % (got, lo))

    def le(self, what, hi, got):
        return self.ok(what, got <= hi, "%r, expected <= %r" % (got, hi))


# --------------------------------------------------------------------------
# Packets seen on an interface (the replies of the victim's host)
# --------------------------------------------------------------------------

class Pkt:
    __slots__ = ("ip_src", "ip_dst", "tos", "udp_sport", "udp_dport", "type",
                 "flags", "msport", "mdport", "nonce", "ev", "body", "t")

    def sack(self):
        """(epsn, base, bitmap, recv_bytes, echo_ts, ooo, ce)"""
        return struct.unpack("!IIQQQIH", self.body[16:54])

    def room(self):
        """The SACK's Room in bytes (whole KiB), None if unsaid."""
        v = struct.unpack("!H", self.body[54:56])[0]
        return (v - 1) << 10 if v else None

    def nack(self):
        """(psn, code, epsn, echo_ts)"""
        psn, code, _, _, epsn, echo = struct.unpack("!IBBHIQ",
                                                    self.body[16:36])
        return psn, code, epsn, echo

    def data(self):
        """(psn, msg_id, offset, msg_len, ts, payload_len)"""
        return m.parse_data(self.body)

    def __repr__(self):
        return ("<%s %s -> %s udp %d->%d mpdt %d->%d ev %d flags %#x>" %
                ({1: "DATA", 2: "SACK", 3: "NACK", 4: "PROBE"}.get(
                    self.type, self.type), self.ip_src, self.ip_dst,
                 self.udp_sport, self.udp_dport, self.msport, self.mdport,
                 self.ev, self.flags))


def parse_frame(frame):
    """The MPDT packet (to UDP port 4796) in an Ethernet frame, or None."""
    if len(frame) < 14:
        return None
    et = struct.unpack("!H", frame[12:14])[0]
    ip = frame[14:]
    if et == ETH_P_IP and len(ip) >= 20:
        ihl = (ip[0] & 15) * 4
        if ip[9] != socket.IPPROTO_UDP:
            return None
        tot = struct.unpack("!H", ip[2:4])[0]
        src, dst, tos = (socket.inet_ntoa(ip[12:16]),
                         socket.inet_ntoa(ip[16:20]), ip[1])
        udp = ip[ihl:tot]
    elif et == ETH_P_IPV6 and len(ip) >= 40:
        if ip[6] != socket.IPPROTO_UDP:
            return None
        plen = struct.unpack("!H", ip[4:6])[0]
        src = socket.inet_ntop(socket.AF_INET6, ip[8:24])
        dst = socket.inet_ntop(socket.AF_INET6, ip[24:40])
        tos = (struct.unpack("!I", ip[:4])[0] >> 20) & 0xff
        udp = ip[40:40 + plen]
    else:
        return None
    if len(udp) < 8 + m.COMMON_LEN:
        return None
    sport, dport, ulen = struct.unpack("!HHH", udp[:6])
    if dport != PORT:
        return None
    p = Pkt()
    p.ip_src, p.ip_dst, p.tos = src, dst, tos
    p.udp_sport, p.udp_dport = sport, dport
    p.body = udp[8:ulen]
    (_, p.type, p.flags, p.msport, p.mdport, p.nonce,
     p.ev) = m.parse_common(p.body)
    p.t = time.monotonic()
    return p


def packet_socket(ns, dev):
    with netns(ns):
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                          socket.htons(ETH_P_ALL))
        try:
            s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20)
        except OSError:
            pass
        s.bind((dev, ETH_P_ALL))
    return s


class Sniffer:
    """Every MPDT packet arriving at dev in ns (not those it sends), kept
    in order by a thread."""

    def __init__(self, ns, dev):
        self.sock = packet_socket(ns, dev)
        self.sock.settimeout(0.2)
        self.pkts = []
        self.cv = threading.Condition()
        self.stop = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stop:
            try:
                frame, addr = self.sock.recvfrom(65535)
            except socket.timeout:
                continue
            except OSError:
                return
            if addr[2] == PACKET_OUTGOING:
                continue
            p = parse_frame(frame)
            if p:
                with self.cv:
                    self.pkts.append(p)
                    self.cv.notify_all()

    def match(self, pred):
        with self.cv:
            return [p for p in self.pkts if pred(p)]

    def wait(self, pred, n, timeout):
        """The packets matching pred once there are n of them; fewer if
        timeout seconds pass first."""
        deadline = time.monotonic() + timeout
        with self.cv:
            while True:
                got = [p for p in self.pkts if pred(p)]
                left = deadline - time.monotonic()
                if len(got) >= n or left <= 0:
                    return got
                self.cv.wait(min(left, 0.2))

    def close(self):
        self.stop = True
        self.thread.join(2)
        self.sock.close()


def fresh_data(sock, src, msport, timeout):
    """The next DATA from (src, msport) to arrive at a packet socket after
    the call: the socket is drained first, so what it returns arrived just
    now (the peer is live at this moment)."""
    sock.setblocking(False)
    try:
        while True:
            sock.recv(65535)
    except (BlockingIOError, InterruptedError):
        pass
    sock.settimeout(0.2)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            frame, addr = sock.recvfrom(65535)
        except socket.timeout:
            continue
        if addr[2] == PACKET_OUTGOING:
            continue
        p = parse_frame(frame)
        if (p and p.type == m.T_DATA and p.ip_src == src and
                p.msport == msport):
            return p
    return None


# --------------------------------------------------------------------------
# The attacker: plain UDP sockets
# --------------------------------------------------------------------------

class Attacker:
    def __init__(self, ns, addr, family=socket.AF_INET, nocsum=False,
                 dev=None):
        with netns(ns):
            self.s = socket.socket(family, socket.SOCK_DGRAM)
            if nocsum:
                self.s.setsockopt(socket.IPPROTO_UDP, UDP_NO_CHECK6_TX, 1)
            if dev:
                self.s.setsockopt(socket.SOL_SOCKET, SO_BINDTODEVICE,
                                  dev.encode())
            self.s.bind((addr, 0))
        self.family = family
        self.sent = 0

    def send(self, pkt, dst=ADDR_B, scope=0):
        self.s.sendto(pkt, (dst, PORT) if self.family == socket.AF_INET
                      else (dst, PORT, 0, scope))
        self.sent += 1
        if self.sent % 64 == 0:
            time.sleep(0.002)   # never overrun the veth backlog


def data(psn, msg_id, off, msg_len, payload, flags=0, ts=None, **kw):
    return m.data_pkt(psn, msg_id, off, msg_len, payload, flags=flags,
                      ts=psn + 1 if ts is None else ts, prev_psn=psn, **kw)


# --------------------------------------------------------------------------
# Honest transfers
# --------------------------------------------------------------------------

class Env:
    def __init__(self, a):
        self.a = a
        self.procs = []
        self.cleanups = []
        self.rnd = random.Random(a.seed)
        self.start = {ns: stats(ns) for ns in (a.ns_a, a.ns_b)}

    def spawn(self, ns, argv, out):
        with netns(ns):
            p = subprocess.Popen([str(x) for x in argv], stdin=subprocess.DEVNULL,
                                 stdout=open(out, "w"),
                                 stderr=subprocess.STDOUT)
        self.procs.append(p)
        return p

    def run(self, ns, argv, check=True):
        with netns(ns):
            r = subprocess.run([str(x) for x in argv], stdin=subprocess.DEVNULL,
                               capture_output=True, text=True)
        if check and r.returncode:
            raise Fatal("%s: exit %d: %s" % (" ".join(map(str, argv)),
                                             r.returncode, r.stderr.strip()))
        return r

    def cli(self, ns, *args):
        r = subprocess.run([self.a.cli, "-n", ns] + [str(x) for x in args],
                           stdin=subprocess.DEVNULL, capture_output=True,
                           text=True)
        return r

    def params(self, ns):
        r = self.cli(ns, "param", "show")
        if r.returncode:
            raise Fatal("mpdt param show: %s" % r.stderr.strip())
        out = {}
        for line in r.stdout.splitlines():
            f = line.split()
            if len(f) == 2:
                out[f[0]] = f[1]
        return out

    def param_set(self, ns, **kv):
        """Set parameters (name_with_underscores=value) of ns until the case
        ends."""
        old = self.params(ns)
        args = []
        restore = []
        for k, v in kv.items():
            name = k.replace("_", "-")
            args += [name, v]
            restore += [name, old[name]]
        r = self.cli(ns, "param", "set", *args)
        if r.returncode:
            raise Fatal("mpdt param set %s: %s" % (" ".join(map(str, args)),
                                                   r.stderr.strip()))
        self.cleanups.append(lambda: self.cli(ns, "param", "set", *restore))
        log("%s: param set %s" % (ns, " ".join(map(str, args))))

    def show_counters(self):
        """The counters that moved during the case, per side."""
        for side, ns in (("A", self.a.ns_a), ("B", self.a.ns_b)):
            now = stats(ns)
            moved = ["%s=%d" % (k, now[k] - self.start[ns].get(k, 0))
                     for k in sorted(now)
                     if now[k] != self.start[ns].get(k, 0)]
            log("%s counters moved: %s" % (side, " ".join(moved) or "none"))

    def finish(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                pass
        for fn in reversed(self.cleanups):
            try:
                fn()
            except Exception as e:  # noqa: BLE001
                log("cleanup: %r" % e)


def last_json(path):
    obj = None
    try:
        for line in open(path, errors="replace"):
            line = line.strip()
            if line.startswith("{"):
                try:
                    obj = json.loads(line)
                except ValueError:
                    pass
    except FileNotFoundError:
        pass
    return obj


class Gen:
    """mpdt_msg's message list: COUNT messages of log-uniform sizes in
    [LO, HI] from SEED (index 0 is LO bytes, index 1 HI bytes)."""

    def __init__(self, seed, count, lo, hi):
        self.seed, self.count, self.lo, self.hi = seed, count, lo, hi

    def size(self, i):
        return m.msg_size(self.seed, i, self.lo, self.hi)

    def msg(self, i):
        return m.msg_fill(self.seed, i, self.size(i))


class MsgRecv:
    """mpdt_msg recv in ns: verifies every message it gets."""

    def __init__(self, env, label, ns, port, gen, timeout, v6=False):
        self.env, self.label, self.gen = env, label, gen
        wd = env.a.workdir
        self.out = os.path.join(wd, "recv.%s.out" % label)
        ready = os.path.join(wd, "ready.%s" % label)
        argv = [env.a.mpdt_msg, "recv", "-p", port, "-n", gen.count, "-m",
                gen.lo, "-M", gen.hi, "-s", gen.seed, "-t", timeout, "-r",
                ready] + (["-6"] if v6 else [])
        self.p = env.spawn(ns, argv, self.out)
        if not wait_until(lambda: os.path.exists(ready) or
                          self.p.poll() is not None, 30):
            raise Fatal("%s: receiver not ready after 30 s" % label)
        if self.p.poll() is not None:
            raise Fatal("%s: receiver exited: %s" % (label,
                                                     open(self.out).read()))

    def result(self, timeout):
        try:
            rc = self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            rc = "hung"
        res = last_json(self.out) or {}
        log("%s: receiver (exit %s): %s" % (self.label, rc,
                                             open(self.out).read().strip()))
        return rc, res


class MsgSend:
    """mpdt_msg send in ns from MPDT port lport: messages first ..
    first + count - 1 of gen, then waits until all are acknowledged."""

    def __init__(self, env, label, ns, addr, port, lport, gen, count,
                 first=0, timeout=60):
        self.env, self.label, self.count = env, label, count
        self.out = os.path.join(env.a.workdir, "send.%s.out" % label)
        argv = [env.a.mpdt_msg, "send", "-a", addr, "-p", port, "-n", count,
                "-m", gen.lo, "-M", gen.hi, "-s", gen.seed, "-t", timeout,
                "-l", lport, "-o", first]
        self.t0 = time.monotonic()
        self.p = env.spawn(ns, argv, self.out)
        self.timeout = timeout

    def result(self, timeout=None):
        try:
            rc = self.p.wait(timeout or self.timeout + 20)
        except subprocess.TimeoutExpired:
            self.p.kill()
            rc = "hung"
        self.secs = time.monotonic() - self.t0
        res = last_json(self.out) or {}
        log("%s: sender (exit %s, %.1f s): %s" % (
            self.label, rc, self.secs, open(self.out).read().strip()))
        return rc, res


def check_sender(c, label, snd, count):
    rc, res = snd.result()
    c.eq("%s: sender exit status" % label, 0, rc)
    c.eq("%s: messages acknowledged (MPDT_INFO)" % label, count,
         res.get("msgs_acked"))
    return rc == 0


def check_msg_recv(c, label, rcv, count, timeout=30):
    rc, res = rcv.result(timeout)
    c.eq("%s: receiver exit status" % label, 0, rc)
    c.eq("%s: messages received intact, once each" % label, count,
         res.get("received"))
    for k in ("duplicates", "corrupt", "truncated"):
        c.eq("%s: %s" % (label, k), 0, res.get(k))


class Victim:
    """A python MPDT socket in ns that checks the honest messages (mpdt_msg's
    list gen, from the MPDT ports in honest_ports) byte for byte and keeps
    (source, length, sha256) of every other message."""

    def __init__(self, label, ns, port, family=socket.AF_INET, rcvbuf=None,
                 gen=None, honest_ports=(), bufsize=1 << 20, reader=True,
                 check_bytes=True, dev=None):
        self.label, self.gen, self.check_bytes = label, gen, check_bytes
        self.honest_ports = set(honest_ports)
        with netns(ns):
            self.s = socket.socket(family, socket.SOCK_DGRAM, m.IPPROTO_MPDT)
            if rcvbuf:
                self.s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, rcvbuf)
            if dev:
                self.s.setsockopt(socket.SOL_SOCKET, SO_BINDTODEVICE,
                                  dev.encode())
            self.s.bind(("0.0.0.0" if family == socket.AF_INET else "::",
                         port))
        self.rcvbuf = self.s.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
        self.bufsize = max(bufsize, (gen.hi if gen else 0) + 1)
        self.seen = set()
        self.dup = self.bad = 0
        self.others = []
        self.errors = []
        self.lock = threading.Lock()
        self.stop = False
        self.done = threading.Event()
        self.thread = None
        if reader:
            self.start_reader()
        log("%s: MPDT socket on port %d, SO_RCVBUF %d" % (label, port,
                                                          self.rcvbuf))

    def start_reader(self):
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _identify(self, buf):
        g = self.gen
        if len(buf) >= m.HDR_LEN:
            magic, i, ln, _ = struct.unpack("!IIII", buf[:16])
            if magic != m.MAGIC or ln != len(buf) or i >= g.count or \
                    g.size(i) != len(buf):
                return None
            return i if not self.check_bytes or g.msg(i) == buf else None
        for i in range(g.count):
            if i not in self.seen and g.size(i) == len(buf) and \
                    g.msg(i) == buf:
                return i
        return None

    def _run(self):
        self.s.settimeout(0.2)
        while not self.stop:
            try:
                buf, src = self.s.recvfrom(self.bufsize)
            except socket.timeout:
                continue
            except OSError as e:
                self.errors.append(m.errname(e.errno))
                time.sleep(0.05)
                continue
            if self.gen and src[1] in self.honest_ports:
                i = self._identify(buf)
                with self.lock:
                    if i is None:
                        self.bad += 1
                    elif i in self.seen:
                        self.dup += 1
                    else:
                        self.seen.add(i)
                        if len(self.seen) == self.gen.count:
                            self.done.set()
            else:
                with self.lock:
                    self.others.append((src[0], src[1], len(buf),
                                        hashlib.sha256(buf).hexdigest()))

    def wait_honest(self, timeout):
        self.done.wait(timeout)
        return len(self.seen)

    def check(self, c, what=None):
        what = what or self.label
        checked = "intact" if self.check_bytes else "by header"
        c.eq("%s: honest messages received %s, once each" % (what, checked),
             self.gen.count, len(self.seen))
        c.eq("%s: duplicates" % what, 0, self.dup)
        c.eq("%s: corrupt" % what, 0, self.bad)

    def close(self):
        self.stop = True
        if self.thread:
            self.thread.join(5)
        self.s.close()


# --------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------

def honest_gen(a, count=24, hi=128 << 10, salt=0):
    return Gen(a.seed + salt, count, 1, hi)


def rmem_alloc(vic):
    """What the victim's socket holds: SO_MEMINFO's rmem_alloc."""
    return struct.unpack("9I", vic.s.getsockopt(socket.SOL_SOCKET,
                                                SO_MEMINFO, 36))[0]


def replies_to(sn, mdport, n, timeout=10):
    return sn.wait(lambda p: p.mdport == mdport and p.type in
                   (m.T_SACK, m.T_NACK), n, timeout)


def case_evict(env, c):
    """1. The attack of a few packets: two DATA packets announce two 16 MiB
    messages, never finished, into a socket whose SO_RCVBUF (4 MiB) the
    first one fills, and a PROBE every 0.5 s keeps their incarnation heard,
    so the reassembly timeout never ends it.  An honest sender's first
    message finds the socket full: the attacker's message, behind its
    length per reassembly time after the quiet time (1 s), is evicted
    with its incarnation (rx_msg_evicted exactly 1, rx_msg_expired 0),
    its later packets are refused (drop_stale_nonce), and the honest
    sender completes."""
    a = env.a
    gen = honest_gen(a)
    v = Victim("victim", a.ns_b, 7101, rcvbuf=2 << 20, gen=gen,
               honest_ports=[6001])
    env.cleanups.append(v.close)
    if v.rcvbuf >= m.MPDT_MSG_MAX:
        raise Fatal("SO_RCVBUF %d: cannot make it smaller than a message"
                    % v.rcvbuf)
    sn = Sniffer(a.ns_a, a.dev_a)
    env.cleanups.append(sn.close)
    x = Attacker(a.ns_a, ADDR_X)
    peer = {"sport": 21100, "dport": 7101, "nonce": env.rnd.getrandbits(32)}
    b0 = stats(a.ns_b)
    x.send(data(0, 1, 0, m.MPDT_MSG_MAX, b"a" * PAYLOAD, flags=m.F_AR, **peer))
    x.send(data(1, 2, 0, m.MPDT_MSG_MAX, b"b" * PAYLOAD, flags=m.F_AR, **peer))
    rep = replies_to(sn, 21100, 2)
    log("replies to the attacker: %r" % rep)
    b1 = stats(a.ns_b)
    c.eq("replies to the two DATA packets", 2, len(rep))
    if len(rep) == 2:
        c.ok("first 16 MiB message admitted into the empty socket (SACK, "
             "EPSN 1)", rep[0].type == m.T_SACK and rep[0].sack()[0] == 1,
             repr(rep[0]))
        c.ok("second 16 MiB message refused (NACK NO_BUFFER for PSN 1)",
             rep[1].type == m.T_NACK and rep[1].nack()[:2] ==
             (1, m.NACK_NO_BUFFER), repr(rep[1]))
    c.eq("second message counted as drop_peer_quota or drop_no_buffer", 1,
         delta(b1, b0, "drop_peer_quota") + delta(b1, b0, "drop_no_buffer"))

    stop = threading.Event()

    def keepalive():
        while not stop.wait(0.5):
            x.send(m.probe_pkt(0, ts=1, **peer))
    ka = threading.Thread(target=keepalive, daemon=True)
    ka.start()
    env.cleanups.append(stop.set)
    snd = MsgSend(env, "honest", a.ns_a, ADDR_B, 7101, 6001, gen, gen.count,
                  timeout=60)
    check_sender(c, "honest", snd, gen.count)
    v.wait_honest(30)
    v.check(c, "honest")
    x.send(data(2, 1, PAYLOAD, m.MPDT_MSG_MAX, b"a" * PAYLOAD, flags=m.F_AR,
                **peer))
    wait_until(lambda: delta(stats(a.ns_b), b1, "drop_stale_nonce") >= 1, 10)
    stop.set()
    ka.join()
    b2 = stats(a.ns_b)
    c.eq("the attacker's partial message evicted (rx_msg_evicted)", 1,
         delta(b2, b0, "rx_msg_evicted"))
    c.eq("nothing expired: the probes kept it heard (rx_msg_expired)", 0,
         delta(b2, b0, "rx_msg_expired"))
    c.ge("the attacker's packets after it refused (drop_stale_nonce)", 1,
         delta(b2, b1, "drop_stale_nonce"))
    c.eq("messages the attacker completed", [], v.others)


def case_pressure(env, c):
    """1b. Live senders into a full buffer are not evicted.  Eight senders
    of three 1 MiB messages each into a socket with a 2 MiB SO_RCVBUF that
    starts reading only once they were refused (NACK NO_BUFFER).  A
    message is then often admitted by the one packet that tests the full
    socket, and its sender sends the rest only once that packet's SACK is
    back, while the others' refused messages look for one to evict: none
    lags its length per reassembly time after the quiet time (the link
    delays 20 ms).  rx_msg_evicted 0, every message acknowledged and
    received once (by its header: the bytes of 24 MiB would take python
    minutes to check under TCG, and every other case checks them)."""
    a = env.a
    n, per = 8, 3
    # A fabric's RTT, so that the SACK a sender waits for after its test
    # packet takes longer than its message may go without progress were
    # there no quiet time first (13 ms for 1 MiB after one packet).
    env.run(a.ns_a, ["tc", "qdisc", "replace", "dev", a.dev_a, "root",
                     "netem", "delay", "20ms", "limit", "100000"])
    env.cleanups.append(lambda: env.run(a.ns_a, ["tc", "qdisc", "del", "dev",
                                                 a.dev_a, "root"], False))
    gen = Gen(a.seed + 3, n * per, 1 << 20, 1 << 20)
    ports = [6041 + i for i in range(n)]
    v = Victim("victim", a.ns_b, 7141, rcvbuf=1 << 20, gen=gen,
               honest_ports=ports, reader=False, check_bytes=False)
    env.cleanups.append(v.close)
    b0 = stats(a.ns_b)
    snds = [MsgSend(env, "sender%d" % i, a.ns_a, ADDR_B, 7141, ports[i], gen,
                    per, first=i * per, timeout=90) for i in range(n)]
    full = wait_until(lambda: delta(stats(a.ns_b), b0, "drop_no_buffer")
                      >= n, 30)
    c.ok("the socket filled: new messages refused (drop_no_buffer >= %d)"
         % n, full, "drop_no_buffer +%d" %
         delta(stats(a.ns_b), b0, "drop_no_buffer"))
    v.start_reader()
    for i, snd in enumerate(snds):
        check_sender(c, "sender%d" % i, snd, per)
    v.wait_honest(60)
    v.check(c)
    b1 = stats(a.ns_b)
    log("refused while full: drop_no_buffer +%d" %
        delta(b1, b0, "drop_no_buffer"))
    c.eq("live senders' messages evicted (rx_msg_evicted)", 0,
         delta(b1, b0, "rx_msg_evicted"))


def case_quota(env, c):
    """2. Per-peer quota: a peer's partial messages may hold at most half of
    SO_RCVBUF (a peer holding nothing may always start one message while the
    socket has room or is empty); the rest get NACK NO_BUFFER and count in
    drop_peer_quota.  Two victims: one (8 MiB) where one peer starts eight
    1 MiB messages, one (64 MiB) under the attack of case evict (two
    16 MiB messages).  Other senders' messages get through while the
    attackers' partial messages are held (kept alive, and a long
    reassembly timeout: nothing expires meanwhile; the sockets have room:
    nothing is evicted)."""
    a = env.a
    # Every node uses the same rto-max-us (wire-format.rst section 5).
    for ns in (a.ns_a, a.ns_b):
        env.param_set(ns, rto_max_us=2000000)
    gen = honest_gen(a)
    v = Victim("victim", a.ns_b, 7102, rcvbuf=4 << 20, gen=gen,
               honest_ports=[6002])
    env.cleanups.append(v.close)
    vb = Victim("victim-64M", a.ns_b, 7122, rcvbuf=32 << 20, gen=gen,
                honest_ports=[6032])
    env.cleanups.append(vb.close)
    v2 = Victim("victim2", a.ns_b, 7112, rcvbuf=4 << 20, reader=False)
    env.cleanups.append(v2.close)
    half, L, n = v.rcvbuf // 2, 1 << 20, 8
    sn = Sniffer(a.ns_a, a.dev_a)
    env.cleanups.append(sn.close)
    x = Attacker(a.ns_a, ADDR_X)
    p1 = {"sport": 21200, "dport": 7102, "nonce": env.rnd.getrandbits(32)}
    p0 = {"sport": 21210, "dport": 7122, "nonce": env.rnd.getrandbits(32)}
    b0 = stats(a.ns_b)
    for i in range(n):
        x.send(data(i, 100 + i, 0, L, b"q" * PAYLOAD, flags=m.F_AR, **p1))
    x.send(data(0, 1, 0, m.MPDT_MSG_MAX, b"a" * PAYLOAD, flags=m.F_AR, **p0))
    x.send(data(1, 2, 0, m.MPDT_MSG_MAX, b"b" * PAYLOAD, flags=m.F_AR, **p0))
    rep = replies_to(sn, 21200, n)
    rep0 = replies_to(sn, 21210, 2)
    b1 = stats(a.ns_b)
    c.eq("replies to %d one-packet starts of 1 MiB messages" % n, n, len(rep))
    sacked = sorted(p.sack()[4] - 1 for p in rep if p.type == m.T_SACK)
    nacked = sorted(p.nack()[0] for p in rep if p.type == m.T_NACK and
                    p.nack()[1] == m.NACK_NO_BUFFER)
    adm = len(sacked)
    amax = (half - 1) // L
    log("SO_RCVBUF %d, half %d: admitted %s, refused %s" % (v.rcvbuf, half,
                                                           sacked, nacked))
    c.ok("the attacker's admitted messages fit in half of SO_RCVBUF "
         "(1 <= admitted <= %d)" % amax, 1 <= adm <= amax, "admitted %d" % adm)
    c.eq("admitted are the first ones, the others NACKed NO_BUFFER",
         (list(range(adm)), list(range(adm, n))), (sacked, nacked))
    log("two 16 MiB messages into SO_RCVBUF %d: %r" % (vb.rcvbuf, rep0))
    c.ok("the first 16 MiB message admitted (SACK), the second over quota "
         "(NACK NO_BUFFER) although the socket has room",
         len(rep0) == 2 and rep0[0].type == m.T_SACK and
         rep0[1].type == m.T_NACK and rep0[1].nack()[:2] ==
         (1, m.NACK_NO_BUFFER), repr(rep0))
    c.eq("drop_peer_quota", n - adm + 1, delta(b1, b0, "drop_peer_quota"))
    c.eq("drop_no_buffer (the sockets had room: quota refusals)", 0,
         delta(b1, b0, "drop_no_buffer"))

    # Keep the admitted partial messages alive (new payload every 0.25 s)
    # while honest senders transfer.
    stop = threading.Event()
    state = {"psn": n, "off": [PAYLOAD] * adm, "psn0": 2, "off0": PAYLOAD}

    def keepalive():
        while not stop.wait(0.25):
            for i in range(adm):
                x.send(data(state["psn"], 100 + i, state["off"][i], L,
                            b"k" * PAYLOAD, **p1))
                state["psn"] += 1
                state["off"][i] += PAYLOAD
            x.send(data(state["psn0"], 1, state["off0"], m.MPDT_MSG_MAX,
                        b"k" * PAYLOAD, **p0))
            state["psn0"] += 1
            state["off0"] += PAYLOAD
    ka = threading.Thread(target=keepalive, daemon=True)
    ka.start()
    env.cleanups.append(stop.set)
    snd = MsgSend(env, "honest", a.ns_a, ADDR_B, 7102, 6002, gen, gen.count)
    sndb = MsgSend(env, "honest-64M", a.ns_a, ADDR_B, 7122, 6032, gen,
                   gen.count)
    check_sender(c, "honest", snd, gen.count)
    check_sender(c, "honest-64M", sndb, gen.count)
    v.wait_honest(30)
    vb.wait_honest(30)
    b2 = stats(a.ns_b)
    stop.set()
    ka.join()
    v.check(c, "honest")
    vb.check(c, "honest-64M")
    c.eq("no partial message expired while the honest senders were served "
         "(the attackers' were still held)", 0,
         delta(b2, b1, "rx_msg_expired"))
    c.eq("nor was one evicted: the sockets had room", 0,
         delta(b2, b1, "rx_msg_evicted"))
    log("keep-alive packets sent: %d" % (state["psn"] - n + state["psn0"] - 2))

    # A peer holding nothing starts one message larger than half the
    # buffer in an empty socket; its next message is over quota although
    # the socket has room; another peer still starts one.
    p2 = {"sport": 21201, "dport": 7112, "nonce": env.rnd.getrandbits(32)}
    p3 = {"sport": 21202, "dport": 7112, "nonce": env.rnd.getrandbits(32)}
    big = (v2.rcvbuf * 3) // 4
    x.send(data(0, 1, 0, big, b"p" * PAYLOAD, flags=m.F_AR, **p2))
    x.send(data(1, 2, 0, 3000, b"p" * PAYLOAD, flags=m.F_AR, **p2))
    x.send(data(0, 1, 0, 1 << 20, b"r" * PAYLOAD, flags=m.F_AR, **p3))
    r2 = replies_to(sn, 21201, 2)
    r3 = replies_to(sn, 21202, 1)
    b3 = stats(a.ns_b)
    log("replies: %r %r" % (r2, r3))
    c.ok("one message of 3/4 SO_RCVBUF from a peer holding nothing, into an "
         "empty socket: admitted", len(r2) >= 1 and r2[0].type == m.T_SACK,
         repr(r2))
    c.ok("that peer's next message: NACK NO_BUFFER", len(r2) == 2 and
         r2[1].type == m.T_NACK and r2[1].nack()[:2] ==
         (1, m.NACK_NO_BUFFER), repr(r2))
    c.ok("another peer holding nothing, 1 MiB with room left: admitted",
         len(r3) == 1 and r3[0].type == m.T_SACK, repr(r3))
    c.eq("drop_peer_quota (that peer's second message)", 1,
         delta(b3, b2, "drop_peer_quota"))
    c.eq("drop_no_buffer", 0, delta(b3, b2, "drop_no_buffer"))


def conn_count(env, ns, local_port, peer=None):
    r = env.cli(ns, "-j", "conn", "show")
    if r.returncode:
        raise Fatal("mpdt conn show: %s" % r.stderr.strip())
    conns = json.loads(r.stdout or "[]")
    mine = [x for x in conns if x.get("local_port") == local_port]
    if peer:
        return [x for x in mine if (x.get("peer"), x.get("peer_port")) == peer]
    return mine


def flood(x, ns_b, pkts, what, counter, timeout=60):
    """Send pkts in batches, each once the victim host has seen the previous
    batch (counter grew by as many): none is lost in a queue."""
    b0 = stats(ns_b)
    sent = 0
    for i in range(0, len(pkts), 256):
        for p in pkts[i:i + 256]:
            x.send(p)
        sent += len(pkts[i:i + 256])
        if not wait_until(lambda: delta(stats(ns_b), b0, counter) >= sent,
                          timeout):
            raise Fatal("%s: %s grew by %d of %d sent" % (
                what, counter, delta(stats(ns_b), b0, counter), sent))
    return sent


MAX_CONNS = 4096
MAX_HOST_CONNS = MAX_CONNS // 8
# The attacker's hosts: MAX_CONNS / MAX_HOST_CONNS + 1 more addresses on A.
ADDR_HOSTS = ["10.0.0.%d" % (10 + i) for i in range(MAX_CONNS //
                                                    MAX_HOST_CONNS + 1)]


def host_flood(env, ns_b, host, n, pkt, what, counter):
    """n packets pkt(i, port) from ADDR_HOSTS[host], MPDT ports from 20000
    + 1000 * host."""
    x = Attacker(env.a.ns_a, ADDR_HOSTS[host])
    first = 20000 + 1000 * host
    return flood(x, ns_b, [pkt(i, first + i) for i in range(n)],
                 "%s from %s" % (what, ADDR_HOSTS[host]), counter)


def case_conn_evict(env, c):
    """3a. Connection caps: PROBEs from many MPDT ports do not lock the
    socket out.  One address opens at most MAX_HOST_CONNS connections, a
    new one of its own evicting its least recently heard; the table holds
    MAX_CONNS, a new peer evicting the least recently heard that holds
    nothing, probe-only ones first (conn_evicted).  Afterwards a new honest
    peer transfers and the socket's own sendto() to a new peer works."""
    a = env.a
    gen = honest_gen(a, count=32)
    n1 = 16
    v = Victim("victim", a.ns_b, 7103, rcvbuf=16 << 20, gen=gen,
               honest_ports=[6003, 6013])
    env.cleanups.append(v.close)
    # An honest peer first: idle when the flood comes, holding nothing, and
    # older than every probe, but not probe-only.
    snd = MsgSend(env, "honest-before", a.ns_a, ADDR_B, 7103, 6003, gen, n1)
    check_sender(c, "honest-before", snd, n1)
    probe = (lambda i, sport: m.probe_pkt(0, ts=i + 1, nonce=i + 1,
                                          sport=sport, dport=7103))

    # One host, 64 ports beyond its share: it evicts its own.
    extra = 64
    b0 = stats(a.ns_b)
    host_flood(env, a.ns_b, 0, MAX_HOST_CONNS + extra, probe, "PROBEs",
               "rx_packets")
    b1 = stats(a.ns_b)
    c.eq("one host: conn_created", MAX_HOST_CONNS + extra,
         delta(b1, b0, "conn_created"))
    c.eq("one host: conn_evicted (its own, beyond its share)", extra,
         delta(b1, b0, "conn_evicted"))
    c.eq("one host: connections it holds", MAX_HOST_CONNS,
         len([x for x in conn_count(env, a.ns_b, 7103)
              if x.get("peer") == ADDR_HOSTS[0]]))

    # Enough hosts to fill the table, and one more.
    hosts = MAX_CONNS // MAX_HOST_CONNS
    for h in range(1, hosts):
        host_flood(env, a.ns_b, h, MAX_HOST_CONNS, probe, "PROBEs",
                   "rx_packets")
    host_flood(env, a.ns_b, hosts, extra, probe, "PROBEs", "rx_packets")
    b2 = stats(a.ns_b)
    nflood = (hosts - 1) * MAX_HOST_CONNS + extra
    mine = conn_count(env, a.ns_b, 7103)
    log("flood: %d PROBEs from %d hosts; the socket has %d connections"
        % (MAX_HOST_CONNS + extra + nflood, hosts + 1, len(mine)))
    c.eq("many hosts: conn_created", nflood, delta(b2, b1, "conn_created"))
    c.eq("many hosts: conn_evicted (one per probe beyond the cap, the "
         "honest peer being one of the %d before)" % (MAX_CONNS + 1),
         1 + MAX_HOST_CONNS + nflood - MAX_CONNS,
         delta(b2, b1, "conn_evicted"))
    c.eq("drop_conn_limit (every connection held nothing)", 0,
         delta(b2, b0, "drop_conn_limit"))
    c.eq("connections of the socket: the cap", MAX_CONNS, len(mine))
    c.eq("the idle honest peer survived (probe-only ones go first)", 1,
         len([x for x in mine if (x.get("peer"), x.get("peer_port")) ==
              (ADDR_A, 6003)]))
    c.eq("probes answered (tx_sack)", MAX_HOST_CONNS + extra + nflood,
         delta(b2, b0, "tx_sack"))

    # A new honest peer, and the socket's own send to a new peer.
    snd = MsgSend(env, "honest-after", a.ns_a, ADDR_B, 7103, 6013, gen,
                  gen.count - n1, first=n1)
    check_sender(c, "honest-after", snd, gen.count - n1)
    v.wait_honest(30)
    v.check(c, "honest")
    g2 = Gen(a.seed + 1, 2, 1000, 100000)
    rcv = MsgRecv(env, "new-peer", a.ns_a, 7203, g2, 30)
    err = None
    try:
        for i in range(2):
            v.s.sendto(g2.msg(i), (ADDR_A, 7203))
    except OSError as e:
        err = m.errname(e.errno)
    c.eq("the flooded socket's sendto() to a new peer", None, err)
    acked = wait_until(lambda: m.get_info(v.s, (ADDR_A, 7203))["msgs_acked"]
                       >= 2, 30) if err is None else None
    c.ok("its 2 messages acknowledged (MPDT_INFO)", acked)
    check_msg_recv(c, "new-peer", rcv, 2)
    b3 = stats(a.ns_b)
    c.eq("drop_conn_limit after the new peers", 0,
         delta(b3, b0, "drop_conn_limit"))
    c.le("connections of the socket after the new peers", MAX_CONNS,
         len(conn_count(env, a.ns_b, 7103)))
    log("conn_evicted in all: %d" % delta(b3, b0, "conn_evicted"))


def case_conn_full(env, c):
    """3b. When every connection holds state (here a partial message each),
    a new peer is refused (drop_conn_limit) and nothing is evicted: beyond
    its host's share, and beyond the table.  The last connection of the
    first host, and the table's, is a stranger's (PROBE only), heard after
    the others: a peer's packet looks at the 64 least recently heard only,
    of its host's and of the table's, so that packets from ever new ports
    or sources cannot each walk all of them to replace the stranger before
    them.  Once those messages expired, a new honest peer gets in by
    eviction."""
    a = env.a
    gen = honest_gen(a)
    v = Victim("victim", a.ns_b, 7104, rcvbuf=32 << 20, gen=gen,
               honest_ports=[6004])
    env.cleanups.append(v.close)
    start = (lambda i, sport: data(0, 1, 0, PAYLOAD + 1, b"f" * PAYLOAD,
                                   nonce=i + 1, sport=sport, dport=7104))
    probe = (lambda i, sport: m.probe_pkt(0, ts=1, nonce=1, sport=sport,
                                          dport=7104))
    hosts = MAX_CONNS // MAX_HOST_CONNS
    b0 = stats(a.ns_b)
    host_flood(env, a.ns_b, 0, MAX_HOST_CONNS - 1, start, "partial messages",
               "rx_data")
    b_s = stats(a.ns_b)
    Attacker(a.ns_a, ADDR_HOSTS[0]).send(
        probe(0, 20000 + MAX_HOST_CONNS - 1))
    wait_until(lambda: delta(stats(a.ns_b), b_s, "tx_sack") >= 1, 10)
    b1 = stats(a.ns_b)
    Attacker(a.ns_a, ADDR_HOSTS[0]).send(probe(0, 20000 + MAX_HOST_CONNS))
    wait_until(lambda: delta(stats(a.ns_b), b1, "rx_packets") >= 1, 10)
    b2 = stats(a.ns_b)
    c.eq("a host's %dth peer: drop_conn_limit" % (MAX_HOST_CONNS + 1), 1,
         delta(b2, b1, "drop_conn_limit"))
    c.eq("a host's %dth peer: conn_evicted (its stranger is not among its "
         "64 least recently heard)" % (MAX_HOST_CONNS + 1), 0,
         delta(b2, b1, "conn_evicted"))
    for h in range(1, hosts):
        host_flood(env, a.ns_b, h, MAX_HOST_CONNS - (h == hosts - 1), start,
                   "partial messages", "rx_data")
    b_s = stats(a.ns_b)
    Attacker(a.ns_a, ADDR_HOSTS[hosts - 1]).send(
        probe(0, 20000 + 1000 * (hosts - 1) + MAX_HOST_CONNS - 1))
    wait_until(lambda: delta(stats(a.ns_b), b_s, "tx_sack") >= 1, 10)
    b3 = stats(a.ns_b)
    c.eq("conn_created: one per peer, the strangers last", MAX_CONNS,
         delta(b3, b0, "conn_created"))
    for k in ("drop_no_buffer", "drop_peer_quota", "conn_evicted"):
        c.eq("%s while %d peers each started a message" % (k, MAX_CONNS), 0,
             delta(b3, b0, k))
    Attacker(a.ns_a, ADDR_HOSTS[hosts]).send(probe(0, 20000 + 1000 * hosts))
    wait_until(lambda: delta(stats(a.ns_b), b3, "rx_packets") >= 1, 10)
    b4 = stats(a.ns_b)
    c.eq("the %dth peer: drop_conn_limit" % (MAX_CONNS + 1), 1,
         delta(b4, b3, "drop_conn_limit"))
    c.eq("the %dth peer: conn_evicted (the stranger is not among the "
         "64 least recently heard)" % (MAX_CONNS + 1),
         0, delta(b4, b3, "conn_evicted"))
    partial = MAX_CONNS - 2
    got = wait_until(lambda: delta(stats(a.ns_b), b0, "rx_msg_expired")
                     >= partial, 60)
    if not got:
        raise Fatal("the %d partial messages did not expire within 60 s "
                    "(rx_msg_expired +%d)" % (partial, delta(
                        stats(a.ns_b), b0, "rx_msg_expired")))
    c.eq("partial messages expired (rx_msg_expired)", partial,
         delta(stats(a.ns_b), b0, "rx_msg_expired"))
    b5 = stats(a.ns_b)
    snd = MsgSend(env, "honest", a.ns_a, ADDR_B, 7104, 6004, gen, gen.count)
    check_sender(c, "honest", snd, gen.count)
    v.wait_honest(30)
    v.check(c, "honest")
    b6 = stats(a.ns_b)
    c.eq("drop_conn_limit once the connections hold nothing", 0,
         delta(b6, b5, "drop_conn_limit"))
    c.le("connections of the socket", MAX_CONNS,
         len(conn_count(env, a.ns_b, 7104)))


def case_nonce(env, c):
    """4. A DATA or PROBE with a new nonce from a live peer (address and MPDT
    port) does not replace its receiving half: blind spoofs during a transfer
    are dropped (drop_new_nonce) and the transfer goes on, same incarnation,
    intact.  After 2 x rto-max-us of silence a new incarnation is adopted.

    The transfer is held open while the spoofs go (the receiver's SACKs to
    the honest sender are dropped by tc meanwhile: the sender keeps
    retransmitting, at least once per rto-max-us, so it stays live), and
    each burst of 6 spoofs follows a DATA of the real incarnation that just
    arrived."""
    a = env.a
    for ns in (a.ns_a, a.ns_b):
        env.param_set(ns, rto_max_us=1000000)
    # The held sender must not give up meanwhile.
    env.param_set(a.ns_a, max_retries=1000)
    gen = Gen(a.seed, 608, 1, 200000)
    n1, nspoof = 600, 24
    rcv = MsgRecv(env, "victim", a.ns_b, 7105, gen, 90)
    ps = packet_socket(a.ns_b, a.dev_b)
    env.cleanups.append(ps.close)
    x = Attacker(a.ns_a, ADDR_A)        # the honest peer's own address
    env.run(a.ns_b, ["tc", "qdisc", "replace", "dev", a.dev_b, "clsact"])
    env.cleanups.append(lambda: env.run(a.ns_b, ["tc", "qdisc", "del", "dev",
                                                 a.dev_b, "clsact"], False))
    hold = ["tc", "filter", "add", "dev", a.dev_b, "egress", "protocol",
            "ip", "prio", "3", "u32", "match", "ip", "dst", ADDR_A + "/32",
            "match", "u16", "6005", "0xffff", "at", "34", "action", "drop"]
    unhold = ["tc", "filter", "del", "dev", a.dev_b, "egress", "prio", "3"]
    b0 = stats(a.ns_b)
    snd = MsgSend(env, "honest", a.ns_a, ADDR_B, 7105, 6005, gen, n1,
                  timeout=90)
    first = fresh_data(ps, ADDR_A, 6005, 60)
    if not first:
        raise Fatal("no DATA of the honest transfer seen")
    env.run(a.ns_b, hold)
    real = first.nonce
    spoofs = {"DATA": 0, "PROBE": 0}
    k = 0
    while k < nspoof:
        # A burst of spoofs right after each DATA of the real incarnation
        # (it keeps retransmitting, once per RTO at least).
        live = fresh_data(ps, ADDR_A, 6005, 10)
        if not live or live.nonce != real:
            break
        for _ in range(6):
            nonce = env.rnd.getrandbits(32)
            while nonce == real:
                nonce = env.rnd.getrandbits(32)
            spoof = {"sport": 6005, "dport": 7105, "nonce": nonce,
                     "ev": env.rnd.randrange(256)}
            if k % 2:
                x.send(m.probe_pkt(0, ts=k, **spoof))
                spoofs["PROBE"] += 1
            else:
                x.send(data(0, env.rnd.getrandbits(32), 0, 2 * PAYLOAD,
                            b"s" * PAYLOAD, flags=m.F_AR, **spoof))
                spoofs["DATA"] += 1
            k += 1
    after = fresh_data(ps, ADDR_A, 6005, 10)
    env.run(a.ns_b, unhold)
    log("spoofed %r with new nonces, each right after a DATA of the live "
        "incarnation %#x" % (spoofs, real))
    c.eq("spoofs sent while the transfer was live", nspoof,
         sum(spoofs.values()))
    c.ok("the transfer still sends with its own nonce after the spoofs",
         after and after.nonce == real,
         "next DATA: %s" % (after and hex(after.nonce)))
    wait_until(lambda: delta(stats(a.ns_b), b0, "drop_new_nonce") >=
               sum(spoofs.values()), 5)
    b1 = stats(a.ns_b)
    c.eq("drop_new_nonce", sum(spoofs.values()),
         delta(b1, b0, "drop_new_nonce"))
    c.eq("drop_stale_nonce (the real incarnation never refused)", 0,
         delta(b1, b0, "drop_stale_nonce"))
    c.eq("tx_challenge (each spoof challenged)", sum(spoofs.values()),
         delta(b1, b0, "tx_challenge"))
    c.eq("rx_nonce_proven (none of them could prove it)", 0,
         delta(b1, b0, "rx_nonce_proven"))
    check_sender(c, "honest", snd, n1)
    # The same peer restarts (a new socket on the same MPDT port: a new
    # incarnation) right away: adopted once it proved itself, or once the
    # old one was silent for 2 x rto-max-us, so its messages arrive.
    snd2 = MsgSend(env, "restart", a.ns_a, ADDR_B, 7105, 6005, gen,
                   gen.count - n1, first=n1, timeout=60)
    check_sender(c, "restart", snd2, gen.count - n1)
    check_msg_recv(c, "victim", rcv, gen.count)
    b2 = stats(a.ns_b)
    log("restart: drop_new_nonce +%d before the new incarnation was adopted"
        ", rx_nonce_proven +%d" % (delta(b2, b1, "drop_new_nonce"),
                                   delta(b2, b1, "rx_nonce_proven")))
    c.eq("drop_stale_nonce", 0, delta(b2, b0, "drop_stale_nonce"))


TRACEFS = "/sys/kernel/tracing"


class DropTrace:
    """The kernel's skb:kfree_skb events (what drop monitors such as
    dropwatch, perf and pwru see) while it is open."""

    def __init__(self):
        self.enable = TRACEFS + "/events/skb/kfree_skb/enable"
        if not os.path.exists(self.enable):
            subprocess.run(["mount", "-t", "tracefs", "nodev", TRACEFS],
                           check=False, capture_output=True)
        self.ok = os.path.exists(self.enable)
        if self.ok:
            open(TRACEFS + "/trace", "w").close()   # clears the buffer
            self._write("1")

    def _write(self, v):
        with open(self.enable, "w") as f:
            f.write(v)

    def count(self, reason):
        with open(TRACEFS + "/trace") as f:
            return sum(1 for line in f
                       if line.rstrip().endswith("reason: " + reason))

    def close(self):
        if self.ok:
            self._write("0")


def case_not_host(env, c):
    """5. DATA and PROBE sent to a broadcast or multicast address are
    dropped (drop_not_host), never answered, and freed as drops with the
    kernel's reason OTHERHOST."""
    a = env.a
    gen = honest_gen(a)
    # The victim stays open until the end of the case (an AF_INET6 socket:
    # it takes IPv4 and IPv6).
    v = Victim("victim", a.ns_b, 7106, family=socket.AF_INET6, gen=gen,
               honest_ports=[6006])
    env.cleanups.append(v.close)
    sn = Sniffer(a.ns_a, a.dev_a)
    env.cleanups.append(sn.close)
    with netns(a.ns_a):
        ifindex = socket.if_nametoindex(a.dev_a)
    x4 = Attacker(a.ns_a, ADDR_X, dev=a.dev_a)
    x4.s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    x4.s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF,
                    socket.inet_aton(ADDR_X))
    x4.s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)
    dests = [(x4, "10.0.0.255"), (x4, "255.255.255.255"), (x4, "224.0.0.1")]
    if a.ipv6:
        x6 = Attacker(a.ns_a, "::", family=socket.AF_INET6)
        x6.s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_IF,
                        ifindex)
        x6.s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_LOOP, 0)
        dests.append((x6, "ff02::1"))
    k = 4
    dt = DropTrace()
    env.cleanups.append(dt.close)
    b0 = stats(a.ns_b)
    snd = MsgSend(env, "honest", a.ns_a, ADDR_B, 7106, 6006, gen, gen.count)
    ports = []
    for j, (x, dst) in enumerate(dests):
        peer = {"sport": 21600 + j, "dport": 7106,
                "nonce": env.rnd.getrandbits(32)}
        ports.append(peer["sport"])
        scope = ifindex if ":" in dst else 0
        for i in range(k):
            x.send(data(i, 1, 0, 2 * PAYLOAD, b"B" * PAYLOAD, flags=m.F_AR,
                        **peer), dst, scope)
            x.send(m.probe_pkt(0, ts=i + 1, **peer), dst, scope)
    want = 2 * k * len(dests)
    wait_until(lambda: delta(stats(a.ns_b), b0, "drop_not_host") >= want, 15)
    # A unicast probe from the same host answers: the capture works, and
    # everything sent before it was processed.
    x4.send(m.probe_pkt(0, ts=1, sport=21690, dport=7106, nonce=1), ADDR_B)
    ctl = replies_to(sn, 21690, 1)
    b1 = stats(a.ns_b)
    c.eq("drop_not_host: %d DATA + %d PROBE to each of %s" % (
        k, k, ", ".join(d for _, d in dests)), want,
        delta(b1, b0, "drop_not_host"))
    c.eq("the unicast probe's answer (control)", 1, len(ctl))
    c.ok("tracefs for the skb:kfree_skb event", dt.ok, TRACEFS)
    if dt.ok:
        c.ge("skb:kfree_skb events with reason OTHERHOST", want,
             dt.count("OTHERHOST"))
    bad = sn.match(lambda p: p.mdport in ports)
    c.eq("answers to the broadcast/multicast packets", [], bad)
    check_sender(c, "honest", snd, gen.count)
    v.wait_honest(30)
    v.check(c, "honest")
    c.eq("messages completed by the attacker", [], v.others)


def sysctl_set(ns, path, value):
    """Write a sysctl of ns (/proc/sys/net is the opener's netns'); the
    value it had."""
    with netns(ns):
        with open(path, "r+") as f:
            old = f.read().strip()
            f.seek(0)
            f.write(value)
    return old


def case_broadcast_source(env, c):
    """15. DATA and PROBE from the subnet's broadcast address (10.0.0.255),
    which IP takes as a source where rp_filter is off, open no connection
    and draw no answer: an answer would reach every host of the subnet
    (drop_not_unicast)."""
    a = env.a
    gen = honest_gen(a)
    v = Victim("victim", a.ns_b, 7107, gen=gen, honest_ports=[6007])
    env.cleanups.append(v.close)
    for conf in ("all", a.dev_b):
        path = "/proc/sys/net/ipv4/conf/%s/rp_filter" % conf
        old = sysctl_set(a.ns_b, path, "0")
        env.cleanups.append(lambda p=path, o=old: sysctl_set(a.ns_b, p, o))
    sn = Sniffer(a.ns_a, a.dev_a)
    env.cleanups.append(sn.close)
    # A UDP socket bound to a broadcast address sends from the route's
    # source (inet_bind()): the header is written here.
    with netns(a.ns_a):
        x = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    env.cleanups.append(x.close)

    def send(pkt):
        udp = struct.pack("!HHHH", 40000, PORT, 8 + len(pkt), 0) + pkt
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000,
                         64, socket.IPPROTO_UDP, 0,
                         socket.inet_aton("10.0.0.255"),
                         socket.inet_aton(ADDR_B))
        x.sendto(ip + udp, (ADDR_B, 0))

    k = 4
    b0 = stats(a.ns_b)
    snd = MsgSend(env, "honest", a.ns_a, ADDR_B, 7107, 6007, gen, gen.count)
    peer = {"sport": 21700, "dport": 7107, "nonce": env.rnd.getrandbits(32)}
    for i in range(k):
        send(data(i, 1, 0, 2 * PAYLOAD, b"B" * PAYLOAD, flags=m.F_AR, **peer))
        send(m.probe_pkt(0, ts=i + 1, **peer))
    wait_until(lambda: delta(stats(a.ns_b), b0, "drop_not_unicast") >=
               2 * k, 15)
    # A unicast probe answers: the capture works, and everything sent
    # before it was processed.
    ctl = Attacker(a.ns_a, ADDR_X)
    ctl.send(m.probe_pkt(0, ts=1, sport=21790, dport=7107, nonce=1))
    c.eq("the unicast probe's answer (control)", 1,
         len(replies_to(sn, 21790, 1)))
    b1 = stats(a.ns_b)
    c.eq("drop_not_unicast: %d DATA + %d PROBE from 10.0.0.255" % (k, k),
         2 * k, delta(b1, b0, "drop_not_unicast"))
    c.eq("answers to 10.0.0.255", [],
         sn.match(lambda p: p.mdport == peer["sport"]))
    check_sender(c, "honest", snd, gen.count)
    v.wait_honest(30)
    v.check(c, "honest")


def msg_bytes(msg_id, ln):
    return random.Random(msg_id * 7919).randbytes(ln)


def case_overlap(env, c):
    """6. DATA packets of one message must tile it: every packet but the
    last carries the same length S at an offset that is a multiple of S,
    the last msg_len - offset <= S.  Packets under new PSNs that overlap or
    misalign are dropped (drop_overlap); no message completes with bytes
    never written, and every message completes intact once its real
    packets arrived."""
    a = env.a
    gen = honest_gen(a)
    v = Victim("victim", a.ns_b, 7107, rcvbuf=4 << 20, gen=gen,
               honest_ports=[6007], bufsize=65536)
    env.cleanups.append(v.close)
    x = Attacker(a.ns_a, ADDR_X)
    peer = {"sport": 22000, "dport": 7107, "nonce": env.rnd.getrandbits(32)}
    # (msg_id, msg_len, [(offset, length, good)]), in the order sent; None
    # as offset: the previous packet again, same PSN (a retransmission).
    G, B = True, False
    msgs = [
        (1, 2800, [(0, 1400, G), (0, 1400, B), (1400, 1400, G)]),
        (2, 4200, [(0, 1400, G), (700, 1400, B), (1400, 1400, G),
                   (2100, 1400, B), (2800, 1400, G)]),
        (3, 3000, [(0, 1000, G), (1000, 2000, B), (1000, 1000, G),
                   (2000, 1000, G)]),
        (4, 4000, [(0, 1400, G), (1400, 700, B), (1400, 1400, G),
                   (2800, 1200, G)]),
        (5, 3000, [(2800, 200, G), (0, 1400, G), (1400, 1400, G)]),
        (6, 4200, [(1400, 1400, G), (0, 1400, G), (None, 0, G),
                   (2800, 1400, G)]),
        (7, 3000, [(0, 1400, G), (2100, 900, B), (1400, 1400, G),
                   (2800, 200, G)]),
    ]
    nbad = sum(1 for _, _, ps in msgs for _, _, g in ps if not g)
    snd = MsgSend(env, "honest", a.ns_a, ADDR_B, 7107, 6007, gen, gen.count)
    b0 = stats(a.ns_b)
    psn = 0
    want = {}
    for mid, ln, pkts in msgs:
        content = msg_bytes(mid, ln)
        want[(ln, hashlib.sha256(content).hexdigest())] = mid
        last = None
        for off, plen, good in pkts:
            if off is None:
                x.send(last)           # same PSN, same bytes
                continue
            body = content[off:off + plen] if good else b"X" * plen
            last = data(psn, mid, off, ln, body, **peer)
            x.send(last)
            psn += 1
    wait_until(lambda: len(v.others) >= len(msgs) and
               delta(stats(a.ns_b), b0, "drop_overlap") >= nbad, 15)
    b1 = stats(a.ns_b)
    c.eq("drop_overlap", nbad, delta(b1, b0, "drop_overlap"))
    got = sorted(want.get((ln, h), "corrupt %d B" % ln)
                 for _, _, ln, h in v.others)
    c.eq("the attacker's messages, each complete, intact and once",
         sorted(want.values()), got)
    check_sender(c, "honest", snd, gen.count)
    v.wait_honest(30)
    v.check(c, "honest")


def case_reply_port(env, c):
    """8. SACKs and NACKs leave from UDP port entropy-base + EV only for an
    EV below entropies; for any other echoed EV (up to 65535) the source
    port stays in [entropy-base, entropy-base + entropies), never 0, and the
    echoed EV field is the packet's, unchanged."""
    a = env.a
    pr = env.params(a.ns_b)
    base, ents = int(pr["entropy-base"]), int(pr["entropies"])
    gen = honest_gen(a)
    v = Victim("victim", a.ns_b, 7108, gen=gen, honest_ports=[6008])
    env.cleanups.append(v.close)
    sn = Sniffer(a.ns_a, a.dev_a)
    env.cleanups.append(sn.close)
    x = Attacker(a.ns_a, ADDR_X)
    snd = MsgSend(env, "honest", a.ns_a, ADDR_B, 7108, 6008, gen, gen.count)
    # In range, at its ends, and the values that wrapped to port 0 or
    # 65535 or back into the range when added to entropy-base.
    evs = {0, 7, ents - 1, ents, 65535, 65536 - base, 65535 - base,
           65536 - base + ents - 1}
    evs = sorted(e for e in evs if 0 <= e <= 65535)
    reqs = []
    port = 22500
    for ev in evs:
        peer = {"sport": port, "dport": 7108, "nonce": port, "ev": ev}
        x.send(data(0, 1, 0, 2 * PAYLOAD, b"e" * PAYLOAD, flags=m.F_AR,
                    **peer))
        reqs.append((port, "DATA", ev, m.T_SACK))
        port += 1
    for ev in (ents, 65535, 65536 - base):
        if 0 <= ev <= 65535:
            x.send(m.probe_pkt(0, ts=1, sport=port, dport=7108, nonce=port,
                               ev=ev))
            reqs.append((port, "PROBE", ev, m.T_SACK))
            port += 1
    x.send(data(0, 1, 0, 2 * PAYLOAD, b"t" * 100, payload_len=PAYLOAD,
                flags=m.F_TRIMMED, sport=port, dport=7108, nonce=port,
                ev=65535))
    reqs.append((port, "trimmed DATA", 65535, m.T_NACK))
    ports = {r[0] for r in reqs}
    got = sn.wait(lambda p: p.mdport in ports and p.type in
                  (m.T_SACK, m.T_NACK), len(reqs), 15)
    for p, what, ev, typ in reqs:
        rep = [r for r in got if r.mdport == p]
        if not c.eq("%s with EV %d: one answer" % (what, ev), 1, len(rep)):
            continue
        r = rep[0]
        inrange = base <= r.udp_sport < base + ents
        c.ok("%s with EV %d: %s from UDP port %d in [%d, %d), EV echoed" % (
            what, ev, "SACK" if typ == m.T_SACK else "NACK", r.udp_sport,
            base, base + ents), r.type == typ and inrange and r.ev == ev and
            r.udp_sport != 0 and (ev >= ents or r.udp_sport == base + ev),
            repr(r))
    check_sender(c, "honest", snd, gen.count)
    v.wait_honest(30)
    v.check(c, "honest")


def case_ipv6_csum(env, c):
    """9. An MPDT packet over IPv6 with UDP checksum 0 is dropped by UDP
    (Udp6InCsumErrors): MPDT never sees it (rx_packets does not grow) and
    never answers it, also during a transfer over IPv6."""
    a = env.a
    if not a.ipv6:
        raise Fatal("no IPv6 in the test netns")
    gen = honest_gen(a)
    v = Victim("victim", a.ns_b, 7109, family=socket.AF_INET6, gen=gen,
               honest_ports=[6009])
    env.cleanups.append(v.close)
    sn = Sniffer(a.ns_a, a.dev_a)
    env.cleanups.append(sn.close)
    x0 = Attacker(a.ns_a, ADDR6_A, family=socket.AF_INET6, nocsum=True)
    xc = Attacker(a.ns_a, ADDR6_A, family=socket.AF_INET6)
    k = 8
    peer = {"sport": 23000, "dport": 7109, "nonce": env.rnd.getrandbits(32)}

    def zero(n, psn0):
        for i in range(n):
            x0.send(data(psn0 + i, 1 + psn0 + i, 0, 2 * PAYLOAD,
                         b"z" * PAYLOAD, flags=m.F_AR, **peer), ADDR6_B)

    # Quiet: nothing else arrives at B meanwhile.
    b0, u0 = stats(a.ns_b), snmp6(a.ns_b, "Udp6InCsumErrors")
    zero(k, 0)
    wait_until(lambda: snmp6(a.ns_b, "Udp6InCsumErrors") - u0 +
               delta(stats(a.ns_b), b0, "rx_packets") >= k, 10)
    b1, u1 = stats(a.ns_b), snmp6(a.ns_b, "Udp6InCsumErrors")
    c.eq("MPDT rx_packets after %d zero-checksum DATA" % k, 0,
         delta(b1, b0, "rx_packets"))
    c.eq("Udp6InCsumErrors", k, u1 - u0)
    xc.send(data(0, 1, 0, 2 * PAYLOAD, b"c" * PAYLOAD, flags=m.F_AR,
                 sport=23001, dport=7109, nonce=5), ADDR6_B)
    ctl = replies_to(sn, 23001, 1)
    c.eq("the same DATA with a checksum is answered (control)", 1, len(ctl))
    # During a transfer over IPv6.
    snd = MsgSend(env, "honest", a.ns_a, ADDR6_B, 7109, 6009, gen, gen.count)
    zero(k, k)
    check_sender(c, "honest", snd, gen.count)
    v.wait_honest(30)
    v.check(c, "honest")
    wait_until(lambda: snmp6(a.ns_b, "Udp6InCsumErrors") - u1 >= k, 10)
    c.eq("Udp6InCsumErrors during the transfer", k,
         snmp6(a.ns_b, "Udp6InCsumErrors") - u1)
    c.eq("answers to zero-checksum packets", [],
         sn.match(lambda p: p.mdport == 23000))


def case_crash(env, c):
    """10. A client killed with SIGKILL in the middle of a 16 MiB message
    leaves a partial message at the server; other clients are served (their
    messages arrive intact within the transfer timeout) and the partial
    message expires (rx_msg_expired) while the server's socket stays open
    (the server keeps its default SO_RCVBUF)."""
    a = env.a
    gen = honest_gen(a, count=32)
    v = Victim("server", a.ns_b, 7110, gen=gen, honest_ports=[6011, 6012])
    env.cleanups.append(v.close)
    # The crashing client's packets past 8 MiB never arrive: its message
    # cannot complete before the kill, however fast or slow the guest.
    tc = ["tc", "filter", "add", "dev", a.dev_a, "egress", "protocol", "ip",
          "prio", "7", "u32", "match", "u16", "6010", "0xffff", "at", "32",
          "match", "u32", "0x00800000", "0x00800000", "at", "52", "action",
          "drop"]
    env.run(a.ns_a, ["tc", "qdisc", "replace", "dev", a.dev_a, "clsact"])
    env.cleanups.append(lambda: env.run(a.ns_a, ["tc", "qdisc", "del", "dev",
                                                 a.dev_a, "clsact"], False))
    env.run(a.ns_a, tc)
    ready = os.path.join(a.workdir, "crash.ready")
    b0 = stats(a.ns_b)
    cl = env.spawn(a.ns_a, [sys.executable, "-S", os.path.abspath(__file__),
                            "crash-client", "--peer", ADDR_B, "--port", 7110,
                            "--lport", 6010, "--size", m.MPDT_MSG_MAX,
                            "--ready", ready],
                   os.path.join(a.workdir, "crash.out"))
    if not wait_until(lambda: os.path.exists(ready) or cl.poll() is not None,
                      90) or cl.poll() is not None:
        raise Fatal("crash client: %s" % open(os.path.join(
            a.workdir, "crash.out")).read())
    if not wait_until(lambda: delta(stats(a.ns_b), b0, "rx_data") >= 64, 90):
        raise Fatal("the crash client's message does not arrive")
    b1 = stats(a.ns_b)
    c.eq("messages completed before the kill", 0, delta(b1, b0, "msg_rx"))
    cl.send_signal(signal.SIGKILL)
    cl.wait(10)
    t_kill = time.monotonic()
    log("client killed (SIGKILL) after %d DATA packets of its 16 MiB message "
        "arrived" % delta(b1, b0, "rx_data"))
    n = gen.count // 2
    s1 = MsgSend(env, "client1", a.ns_a, ADDR_B, 7110, 6011, gen, n)
    s2 = MsgSend(env, "client2", a.ns_a, ADDR_B, 7110, 6012, gen, n, first=n)
    check_sender(c, "client1", s1, n)
    check_sender(c, "client2", s2, n)
    v.wait_honest(30)
    v.check(c, "clients")
    log("other clients served %.1f s after the kill" %
        (time.monotonic() - t_kill))
    got = wait_until(lambda: delta(stats(a.ns_b), b0, "rx_msg_expired") >= 1,
                     60)
    b2 = stats(a.ns_b)
    c.ok("the dead client's partial message expired (rx_msg_expired)", got,
         "rx_msg_expired +%d, drop_peer_quota +%d, drop_no_buffer +%d" % (
             delta(b2, b0, "rx_msg_expired"),
             delta(b2, b0, "drop_peer_quota"),
             delta(b2, b0, "drop_no_buffer")))
    log("partial message expired %.1f s after the kill" %
        (time.monotonic() - t_kill))
    c.eq("messages the dead client completed", [], v.others)


def crash_client(a):
    s = m.mpdt_socket()
    # Killed, it must stop as a crashed host would: no delivery in the
    # background after its process is gone.
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                 struct.pack("ii", 1, 0))
    s.setsockopt(socket.SOL_SOCKET, SO_SNDBUFFORCE, a.size)
    s.bind(("0.0.0.0", a.lport))
    s.sendto(b"c" * a.size, (a.peer, a.port))
    m.touch(a.ready)
    while True:
        time.sleep(60)


def case_zero_len(env, c):
    """11. Zero-length messages cost their real size: sent in a loop with
    MSG_DONTWAIT to a peer that never answers, they fill SO_SNDBUF and the
    socket says EAGAIN (and not writable), instead of allocating without
    bound."""
    a = env.a
    gen = honest_gen(a)
    # The peer that never answers must not fail (and free the messages)
    # while the loop runs, however slow the guest.
    env.param_set(a.ns_a, max_retries=1000)
    rcv = MsgRecv(env, "victim", a.ns_b, 7111, gen, 60)
    snd = MsgSend(env, "honest", a.ns_a, ADDR_B, 7111, 6021, gen, gen.count)
    with netns(a.ns_a):
        s = m.mpdt_socket()
    env.cleanups.append(s.close)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 65536)
    sndbuf = s.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
    cap = sndbuf // 32
    a0 = stats(a.ns_a)
    n, err = 0, None
    while n <= cap:
        try:
            s.sendto(b"", socket.MSG_DONTWAIT, (ADDR_B, 9))
        except OSError as e:
            err = e.errno
            break
        n += 1
    log("zero-length messages to an unbound port of %s: %d accepted, then "
        "%s (SO_SNDBUF %d)" % (ADDR_B, n, err and m.errname(err), sndbuf))
    c.eq("sendto(MSG_DONTWAIT) once SO_SNDBUF is full", "EAGAIN",
         err and m.errname(err))
    c.le("zero-length messages accepted (each costs >= 32 bytes of "
         "SO_SNDBUF)", cap, n)
    p = select.poll()
    p.register(s, select.POLLOUT)
    ev = p.poll(0)
    c.ok("POLLOUT clear while full", not (ev and ev[0][1] & select.POLLOUT),
         repr(ev))
    a1 = stats(a.ns_a)
    c.ge("msg_tx counted them", n, delta(a1, a0, "msg_tx"))
    check_sender(c, "honest", snd, gen.count)
    check_msg_recv(c, "victim", rcv, gen.count)


def case_params(env, c):
    """7. Parameter sets that make a divisor zero or a rule meaningless are
    refused with an extack message naming the rule, and nothing changes:
    a configured BDP (link-mbps x base-rtt-us / 8) below one payload,
    rto-min-us above rto-max-us.  Then a smartt connection gets CE-marked SACKs (its DATA is
    CE-marked on the wire) and survives (dmesg is judged by the runner)."""
    a = env.a
    ns = a.ns_a
    before = env.params(ns)
    link, rtt = int(before["link-mbps"]), int(before["base-rtt-us"])
    payload = int(before["payload"])

    def refused(args, rule_res, what):
        r = env.cli(ns, "param", "set", *args)
        err = r.stderr.strip()
        c.eq("mpdt param set %s: exit status" % " ".join(args), 1,
             r.returncode)
        c.ok("mpdt param set %s: the message names the rule (%s)" % (
            " ".join(args), what), r.returncode and err.startswith("Error:")
            and all(re.search(x, err, re.I) for x in rule_res), err)
        after = env.params(ns)
        if not c.eq("parameters unchanged by mpdt param set %s" %
                     " ".join(args), before, after):
            env.cli(ns, "param", "set", "link-mbps", link, "base-rtt-us", rtt,
                    "rto-min-us", before["rto-min-us"], "rto-max-us",
                    before["rto-max-us"])

    bdp = (r"BDP|bandwidth.delay", r"payload")
    refused(["link-mbps", "1", "base-rtt-us", "1"], bdp, "BDP below a payload")
    # One at a round value, the other the largest that still makes the
    # BDP smaller than a payload.
    refused(["link-mbps", "10", "base-rtt-us", str((payload * 8 - 1) // 10)],
            bdp, "BDP below a payload")
    refused(["base-rtt-us", "100", "link-mbps", str((payload * 8 - 1) // 100)],
            bdp, "BDP below a payload")
    rmax = int(before["rto-max-us"])
    rto = (r"rto-min-us", r"rto-max-us")
    refused(["rto-min-us", str(rmax + 1)], rto, "rto-min-us above rto-max-us")
    refused(["rto-min-us", "2000", "rto-max-us", "1000"], rto,
            "rto-min-us above rto-max-us")
    # Above the rule, and a small value beside a measured one (the engine
    # never measures a BDP below a payload): accepted (then put back).
    for args in (["link-mbps", "10", "base-rtt-us",
                  str(-(-payload * 8 * 4 // 10))],
                 ["link-mbps", "1", "base-rtt-us", "0"]):
        r = env.cli(ns, "param", "set", *args)
        c.eq("mpdt param set %s: accepted" % " ".join(args), 0, r.returncode)
        env.cli(ns, "param", "set", "link-mbps", link, "base-rtt-us", rtt)

    # smartt with CE marks: every DATA from A leaves CE-marked.
    env.param_set(ns, cc="smartt")
    env.run(ns, ["tc", "qdisc", "replace", "dev", a.dev_a, "clsact"])
    env.cleanups.append(lambda: env.run(ns, ["tc", "qdisc", "del", "dev",
                                             a.dev_a, "clsact"], False))
    env.run(ns, ["tc", "filter", "add", "dev", a.dev_a, "egress", "protocol",
                 "ip", "prio", "1", "u32", "match", "ip", "protocol", "17",
                 "0xff", "match", "ip", "dport", str(PORT), "0xffff",
                 "action", "pedit", "ex", "munge", "ip", "tos", "set", "3",
                 "pipe", "action", "csum", "ip4h"])
    gen = honest_gen(a)
    rcv = MsgRecv(env, "victim", a.ns_b, 7112, gen, 60)
    b0 = stats(a.ns_b)
    out = os.path.join(a.workdir, "smartt.out")
    p = env.spawn(ns, [sys.executable, "-S", os.path.join(SELFTEST_DIR,
                                                    "mpdt_peer.py"),
                       "send-msgs", "--peer", ADDR_B, "--port", 7112,
                       "--lport", 6022, "--count", gen.count, "--seed",
                       gen.seed, "--min", gen.lo, "--max", gen.hi,
                       "--timeout", 60], out)
    try:
        rc = p.wait(90)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = "hung"
    res = last_json(out) or {}
    log("smartt sender (exit %s): %s" % (rc, open(out).read().strip()))
    c.eq("smartt sender exit status", 0, rc)
    c.eq("congestion control of the connection", "smartt", res.get("cc"))
    c.eq("messages acknowledged", gen.count, res.get("msgs_acked"))
    check_msg_recv(c, "victim", rcv, gen.count)
    b1 = stats(a.ns_b)
    c.ge("CE-marked DATA at the receiver (rx_ce): its SACKs carry CE", 1,
         delta(b1, b0, "rx_ce"))


def case_time_wait(env, c):
    """13. A receiver closed right after a message stays in time-wait for
    the quiet time (2 x rto-max-us): a duplicate of the DATA it received is
    answered with a SACK, so a sender whose last SACK was lost learns that
    the message arrived; new data is neither taken nor answered
    (drop_no_socket)."""
    a = env.a
    # A quiet time of 6 s: far longer than the few steps below take.
    for ns in (a.ns_a, a.ns_b):
        env.param_set(ns, rto_max_us=3000000)
    with netns(a.ns_b):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, m.IPPROTO_MPDT)
        s.bind(("0.0.0.0", 7113))
    sn = Sniffer(a.ns_a, a.dev_a)
    env.cleanups.append(sn.close)
    x = Attacker(a.ns_a, ADDR_X)
    peer = {"sport": 23000, "dport": 7113, "nonce": env.rnd.getrandbits(32)}
    first = data(0, 1, 0, 100, b"w" * 100, flags=m.F_AR, **peer)

    def sacks():
        return sn.match(lambda p: p.mdport == 23000 and p.type == m.T_SACK)

    x.send(first)
    s.settimeout(30)
    c.eq("the message arrived", 100, len(s.recv(1000)))
    sn.wait(lambda p: p.mdport == 23000 and p.type == m.T_SACK, 1, 10)
    b0 = stats(a.ns_b)
    s.close()
    b1 = stats(a.ns_b)
    c.eq("the closed socket entered time-wait", 1,
         delta(b1, b0, "time_wait"))
    n0 = len(sacks())
    x.send(first)
    got = sn.wait(lambda p: p.mdport == 23000 and p.type == m.T_SACK,
                  n0 + 1, 15)
    c.eq("a duplicate of what it received: answered with a SACK", n0 + 1,
         len(got))
    x.send(data(1, 2, 0, 100, b"n" * 100, flags=m.F_AR, **peer))
    wait_until(lambda: delta(stats(a.ns_b), b1, "drop_no_socket") >= 1, 10)
    time.sleep(0.5)
    c.ge("new data is not taken (drop_no_socket)", 1,
         delta(stats(a.ns_b), b1, "drop_no_socket"))
    c.eq("... nor answered", n0 + 1, len(sacks()))
    c.eq("... nor delivered (msg_rx)", 0, delta(stats(a.ns_b), b1, "msg_rx"))


def case_idle(env, c):
    """14. An idle connection is collected only once its peer can no longer
    continue its incarnation: with rto-max-us 31 s the quiet time is 62 s,
    and a connection idle for the collector's 30 s must wait for twice
    that.  The sender's socket first sends two messages to another
    socket, 10 s before, so that its collector runs out of step with the
    receiver's (every half quiet time, 31 s).  The sender idles 34 s, then
    sends a 100 KB message in the same incarnation (idle for less than the
    quiet time), on the PSNs after its first message's.  Forgotten at
    31 s, the receiver's connection started over expecting PSN 0, which
    the sender had long had acknowledged: the hole never fills, and with
    rx-window 64 the message's later packets fall outside the window for
    good, so it never completes.  conn_expired 0, both acknowledged and
    received once."""
    a = env.a
    gen, early = Gen(a.seed + 7, 2, 100, 100000), Gen(a.seed + 8, 2, 100, 1000)
    rcv = Victim("idle", a.ns_b, 7114, gen=gen, honest_ports=[6014])
    other = Victim("idle-early", a.ns_b, 7115, gen=early,
                   honest_ports=[6014])
    # Closed after the parameters are restored (the cleanups run last
    # first): a closed receiver stays in time-wait for the quiet time in
    # effect, which here would hold the module past the run's rmmod.
    for v in (rcv, other):
        env.cleanups.append(v.close)
    for ns in (a.ns_a, a.ns_b):
        env.param_set(ns, rto_max_us=31000000, rx_window=64)
    with netns(a.ns_a):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, m.IPPROTO_MPDT)
        s.bind(("0.0.0.0", 6014))
    env.cleanups.append(s.close)

    def acked(port, n):
        return wait_until(lambda: m.get_info(s, (ADDR_B, port))["msgs_acked"]
                          >= n, 20)

    for i in range(2):
        s.sendto(early.msg(i), (ADDR_B, 7115))
    c.ok("the early messages acknowledged", acked(7115, 2))
    time.sleep(10)
    s.sendto(gen.msg(0), (ADDR_B, 7114))
    c.ok("the first message acknowledged", acked(7114, 1))
    b0 = stats(a.ns_b)
    time.sleep(34)
    c.eq("the idle connections were kept (conn_expired)", 0,
         delta(stats(a.ns_b), b0, "conn_expired"))
    s.sendto(gen.msg(1), (ADDR_B, 7114))
    c.ok("the second message acknowledged, same connection",
         acked(7114, 2))
    for v in (rcv, other):
        v.wait_honest(10)
        v.check(c)


def msg_sums(msgs):
    """(length, sha256) of each (msg_id, length), sorted."""
    return sorted((ln, hashlib.sha256(msg_bytes(mid, ln)).hexdigest())
                  for mid, ln in msgs)


def case_gso(env, c):
    """14. A UDP GSO skb from a peer on this host (a plain UDP socket's
    UDP_SEGMENT burst over the veth) is taken whole (rx_gso) and each of
    its packets judged as if it came alone: the messages of one burst, its
    last packet short, arrive intact; a packet naming another MPDT port
    (drop_no_socket) or another version (drop_bad_version) costs only
    itself; a burst whose first packet is too short is dropped whole,
    every packet counted (drop_short).  A message smaller than the
    sender's pages is copied (rx_copied), a larger one held in them, each
    page charged, and no more held than the peer's share allows.  And a
    DATA with a wrong UDP checksum, which UDP now leaves to MPDT to check,
    is counted as UDP's (Udp InCsumErrors) and never reaches MPDT."""
    a = env.a
    v = Victim("victim", a.ns_b, 7114, bufsize=1 << 17)
    env.cleanups.append(v.close)
    x = Attacker(a.ns_a, ADDR_X)
    peer = {"sport": 24000, "dport": 7114, "nonce": env.rnd.getrandbits(32)}
    body = {mid: msg_bytes(mid, ln)
            for mid, ln in ((1, 2800), (2, 1400), (3, 100), (4, 1400))}

    def burst(pkts, size):
        x.s.setsockopt(socket.IPPROTO_UDP, UDP_SEGMENT, size)
        x.send(b"".join(pkts))

    def settle(b, name, n):
        wait_until(lambda: delta(stats(a.ns_b), b, name) >= n, 10)
        return stats(a.ns_b)

    b0 = stats(a.ns_b)
    burst([data(0, 1, 0, 2800, body[1][:PAYLOAD], **peer),
           data(1, 1, PAYLOAD, 2800, body[1][PAYLOAD:], **peer),
           data(2, 2, 0, 1400, body[2], **peer),
           data(3, 3, 0, 100, body[3], **peer)], m.DATA_HLEN + PAYLOAD)
    b1 = settle(b0, "rx_data", 4)
    c.eq("one burst of 4 DATA: taken whole", 1, delta(b1, b0, "rx_gso"))
    c.eq("one burst of 4 DATA: rx_packets", 4, delta(b1, b0, "rx_packets"))
    c.eq("one burst of 4 DATA: rx_data", 4, delta(b1, b0, "rx_data"))
    # A burst's payloads would pin the sender's pages, each charged whole
    # (a local sender's are 32 KiB): a message smaller than its page is
    # copied, so that one small message per page pins nothing.
    c.eq("one burst of 4 DATA: payloads of messages smaller than a page, "
         "copied", 4,
         delta(b1, b0, "rx_copied"))

    burst([data(4, 4, 0, 1400, body[4], **peer),
           data(5, 5, 0, 1400, body[4], **dict(peer, dport=7999)),
           data(6, 6, 0, 1400, body[4], version=2, **peer)],
          m.DATA_HLEN + PAYLOAD)
    b2 = settle(b1, "rx_packets", 3)
    c.eq("a burst with strays: taken whole", 1, delta(b2, b1, "rx_gso"))
    c.eq("a burst with strays: rx_data", 1, delta(b2, b1, "rx_data"))
    c.eq("a burst with strays: drop_no_socket", 1,
         delta(b2, b1, "drop_no_socket"))
    c.eq("a burst with strays: drop_bad_version", 1,
         delta(b2, b1, "drop_bad_version"))

    burst([b"\x01" * 8] * 100, 8)
    b3 = settle(b2, "rx_packets", 100)
    c.eq("100 packets of 8 bytes: rx_packets", 100,
         delta(b3, b2, "rx_packets"))
    c.eq("100 packets of 8 bytes: drop_short", 100,
         delta(b3, b2, "drop_short"))
    c.eq("100 packets of 8 bytes: not taken", 0, delta(b3, b2, "rx_gso"))

    # A wrong checksum, from a raw socket: the kernel leaves it as given.
    # A veth takes what it receives without a checksum for checked
    # (CHECKSUM_UNNECESSARY) unless its rx checksumming is off.
    env.run(a.ns_b, ["ethtool", "-K", a.dev_b, "rx", "off"])
    env.cleanups.append(lambda: env.run(a.ns_b, ["ethtool", "-K", a.dev_b,
                                                 "rx", "on"], False))
    pkt = data(7, 7, 0, 1400, msg_bytes(7, 1400), **peer)
    udp = struct.pack("!HHHH", 40000, PORT, 8 + len(pkt), 0xdead) + pkt
    with netns(a.ns_a):
        raw = socket.socket(socket.AF_INET, socket.SOCK_RAW,
                            socket.IPPROTO_UDP)
    env.cleanups.append(raw.close)
    raw.bind((ADDR_X, 0))
    u0 = snmp(a.ns_b, "Udp", "InCsumErrors")
    raw.sendto(udp, (ADDR_B, 0))
    wait_until(lambda: snmp(a.ns_b, "Udp", "InCsumErrors") > u0, 10)
    b4 = stats(a.ns_b)
    c.eq("a wrong UDP checksum: Udp InCsumErrors", 1,
         snmp(a.ns_b, "Udp", "InCsumErrors") - u0)
    c.eq("a wrong UDP checksum: MPDT's rx_packets", 0,
         delta(b4, b3, "rx_packets"))
    # The same DATA with its checksum, and a burst, checked in software.
    x.s.setsockopt(socket.IPPROTO_UDP, UDP_SEGMENT, 0)
    x.send(pkt)
    burst([data(8, 8, 0, 1400, msg_bytes(8, 1400), **peer),
           data(9, 9, 0, 1400, msg_bytes(9, 1400), **peer)],
          m.DATA_HLEN + PAYLOAD)
    b5 = settle(b4, "rx_data", 3)
    c.eq("checksums checked in software: rx_data", 3,
         delta(b5, b4, "rx_data"))
    c.eq("... Udp InCsumErrors", 1, snmp(a.ns_b, "Udp", "InCsumErrors") - u0)
    # A message larger than its pages is held in them, not copied.
    big, half = msg_bytes(10, 65536), 24
    pkts = [data(10 + i, 10, o, len(big), big[o:o + PAYLOAD], **peer)
            for i, o in enumerate(range(0, len(big), PAYLOAD))]
    burst(pkts[:half], m.DATA_HLEN + PAYLOAD)
    burst(pkts[half:], m.DATA_HLEN + PAYLOAD)
    b6 = settle(b5, "rx_data", len(pkts))
    c.eq("a 64 KiB message in 2 bursts: taken whole", 2,
         delta(b6, b5, "rx_gso"))
    c.eq("a 64 KiB message in 2 bursts: held, none copied", 0,
         delta(b6, b5, "rx_copied"))
    wait_until(lambda: len(v.others) >= 8, 10)
    c.eq("the messages, each intact and once",
         msg_sums([(1, 2800), (2, 1400), (3, 100), (4, 1400), (7, 1400),
                   (8, 1400), (9, 1400), (10, 65536)]),
         sorted((ln, h) for _, _, ln, h in v.others))

    # What a held payload pins is the sender's page behind it: with junk
    # through the same task in between, each DATA lands on a page of its
    # own, and each (alone or in a burst) adds at least a 4 KiB page to the
    # charge (32 KiB unless the sender fell back to order-0 pages).  The
    # payloads are far apart, so none completes a page of the message's
    # reservation and makes it spare.
    w = Victim("pinned", a.ns_b, 7115, reader=False)
    env.cleanups.append(w.close)
    junk = Attacker(a.ns_a, ADDR_X)
    junk.s.setsockopt(socket.IPPROTO_UDP, UDP_SEGMENT, PAYLOAD)
    pinned = dict(peer, dport=7115)
    big = msg_bytes(11, 1 << 17)
    offs = [i * 8 * PAYLOAD for i in range(8)]
    pkts = [data(100 + i, 11, o, len(big), big[o:o + PAYLOAD], **pinned)
            for i, o in enumerate(offs)]
    sends = [pkts[0:1], pkts[1:2], pkts[2:3], pkts[3:4], pkts[4:6], pkts[6:8]]

    p0 = stats(a.ns_b)
    charged = []
    for part in sends:
        b7 = stats(a.ns_b)
        # A lone packet's payload is paged too: gso_size is set.
        burst(part, m.DATA_HLEN + PAYLOAD)
        junk.s.sendto(b"\0" * (32768 - sum(map(len, part))), (ADDR_B, 9))
        settle(b7, "rx_data", len(part))
        prev = charged[-1] if charged else 0
        wait_until(lambda: rmem_alloc(w) >= prev + 4096, 5)
        charged.append(rmem_alloc(w))
    steps = [y - x for x, y in zip(charged, charged[1:])]
    log("pinned: SO_MEMINFO rmem_alloc %s" % charged)
    c.eq("payloads on pages of their own: held, none copied", 0,
         delta(stats(a.ns_b), p0, "rx_copied"))
    c.ge("... each lone packet and burst after the first charges >= 4 KiB",
         4096, min(steps))

    # The peer's share bounds what its held payloads pin: half the buffer
    # for what its messages reserve and an eighth of that half more for
    # holding (rx.c rxmsg_share()).  Sixteen DATA of one 256 KiB message,
    # each on a page of its own, into a buffer of 1 MiB (512 KiB asked,
    # doubled as SO_RCVBUF is): the holds stop at 9/16 of it.  With the
    # sender's 32 KiB pages (the second DATA's step shows them), nine are
    # held, past half the buffer, and the rest is copied.  Without the
    # share on holds all sixteen were held (770 KiB); with half the buffer
    # as the share for holds too, seven.
    q = Victim("share", a.ns_b, 7116, rcvbuf=512 << 10, reader=False)
    env.cleanups.append(q.close)
    quota = dict(peer, dport=7116)
    msg = msg_bytes(12, 1 << 18)
    p1 = stats(a.ns_b)
    first = []
    for i in range(16):
        b8 = stats(a.ns_b)
        o = i * 8 * PAYLOAD
        pkt = data(100 + i, 12, o, len(msg), msg[o:o + PAYLOAD], **quota)
        burst([pkt], m.DATA_HLEN + PAYLOAD)
        junk.s.sendto(b"\0" * (32768 - len(pkt)), (ADDR_B, 9))
        settle(b8, "rx_data", 1)
        if i < 2:
            prev = first[-1] if first else 0
            wait_until(lambda: rmem_alloc(q) >= prev + 4096, 5)
            first.append(rmem_alloc(q))
    held = rmem_alloc(q)
    log("share: SO_RCVBUF %d, SO_MEMINFO rmem_alloc %s, then %d"
        % (q.rcvbuf, first, held))
    c.le("sixteen payloads on pages of their own: charged at most 9/16 of "
         "SO_RCVBUF", q.rcvbuf // 2 + q.rcvbuf // 16, held)
    if first[1] - first[0] >= 32768:
        c.ok("... more than half of it: the eighth for holding",
             held > q.rcvbuf // 2, "%r, expected > %r" % (held, q.rcvbuf // 2))
        c.ge("... the rest copied", 1,
             delta(stats(a.ns_b), p1, "rx_copied"))


def case_room(env, c):
    """16. A SACK's Room is the peer's part of what the socket has left:
    split evenly among the peers with messages in progress, and the asking
    one if it has none (rx.c mpdt_rx_room()), so that what all are told
    adds up to what there is.  Peers start a three-packet message each in
    a socket nobody reads (SO_RCVBUF 2 MiB); each Room is checked against
    rmem_alloc (SO_MEMINFO) read once its SACK came: the third and fourth
    peer holding one are told a third and a quarter, a fifth whose
    one-packet message completed a fifth, and once the first peer's
    message completed, the second is told a third again."""
    a = env.a
    v = Victim("room", a.ns_b, 7117, rcvbuf=1 << 20, reader=False)
    env.cleanups.append(v.close)
    sn = Sniffer(a.ns_a, a.dev_a)
    env.cleanups.append(sn.close)
    x = Attacker(a.ns_a, ADDR_X)
    peers = [{"sport": 21300 + i, "dport": 7117,
              "nonce": env.rnd.getrandbits(32)} for i in range(5)]
    ln, pay = 3 * PAYLOAD, b"r" * PAYLOAD
    b0 = stats(a.ns_b)

    def told(i, psn, msg_len, n):
        """Peer i's packet psn (of a message of msg_len): the Room of its
        n-th SACK, checked against rmem_alloc and the peers sending."""
        x.send(data(psn, 1, psn * PAYLOAD, msg_len, pay, flags=m.F_AR,
                    **peers[i]))
        rep = replies_to(sn, peers[i]["sport"], n)
        if len(rep) < n or rep[n - 1].type != m.T_SACK:
            raise Fatal("peer %d: no SACK for its packet %d: %r" %
                        (i, psn, rep))
        return rep[n - 1].room(), rmem_alloc(v)

    def check(what, room, rmem, senders):
        # rx.c: the part, less 1/128, a page and the struct (< 2 KiB),
        # in whole KiB.
        q = (v.rcvbuf - rmem) // senders
        hi = q - q // 128 - 4096
        lo = hi - 2048 - 1024
        c.ok("%s: told (SO_RCVBUF %d - rmem_alloc %d) / %d, less overheads"
             % (what, v.rcvbuf, rmem, senders),
             room is not None and lo <= room <= hi,
             "Room %r, expected %d..%d" % (room, lo, hi))

    said = [told(i, 0, ln, 1) for i in range(4)]
    log("Rooms and rmem_alloc of four peers starting a message: %r" % said)
    # The first two are held to their own share (half the buffer) too.
    check("the third peer with a message in progress", *said[2], 3)
    check("the fourth", *said[3], 4)
    check("a fifth peer, whose one-packet message completed",
          *told(4, 0, PAYLOAD, 1), 5)
    x.send(data(1, 1, PAYLOAD, ln, pay, **peers[0]))
    x.send(data(2, 1, 2 * PAYLOAD, ln, pay, flags=m.F_AR, **peers[0]))
    done = sn.wait(lambda p: p.mdport == peers[0]["sport"] and
                   p.type == m.T_SACK and p.sack()[0] == 3, 1, 10)
    c.eq("the first peer's message completed (EPSN 3)", 1, len(done))
    check("the second, once the first's message completed",
          *told(1, 1, ln, 2), 3)
    b1 = stats(a.ns_b)
    c.eq("nothing refused", 0, delta(b1, b0, "drop_no_buffer") +
         delta(b1, b0, "drop_peer_quota"))
    got = []
    for _ in range(3):
        try:
            got.append(len(v.s.recv(1 << 16, socket.MSG_DONTWAIT)))
        except BlockingIOError:
            break
    c.eq("the messages to read: the fifth's and the first's", [PAYLOAD, ln],
         sorted(got))


def case_incarnation(env, c):
    """19. An off-path attacker who knows a peer's address and MPDT port
    keeps a made-up incarnation of that peer live at the victim with a
    spoofed PROBE every quarter of the quiet time (2 x rto-max-us, 1 s).
    The peer, idle for the quiet time, starts a new incarnation with its
    next message: the victim refuses it as new while the made-up one is
    live, and challenges it (tx_challenge: a NACK CHALLENGE to the peer,
    of the peer's new nonce); the peer returns the cookie and the victim
    takes its incarnation at once (rx_nonce_proven 1), so the message
    arrives while the spoofing goes on, and the spoofs are refused from
    then on (drop_stale_nonce).  Without the challenge every new
    incarnation of the peer was refused for as long as the spoofing went
    on, and each of its messages failed (ETIMEDOUT).  Over IPv4, and over
    IPv6 where the guest has it (the cookie hashes either address)."""
    a = env.a
    incarnation_attack(env, c, socket.AF_INET, ADDR_A, ADDR_B, 7119, 6019)
    if a.ipv6:
        incarnation_attack(env, c, socket.AF_INET6, ADDR6_A, ADDR6_B, 7120,
                           6020)


def incarnation_attack(env, c, family, addr_a, addr_b, port, lport):
    a = env.a
    v6 = "v6: " if family == socket.AF_INET6 else ""
    gen = Gen(a.seed + port, 3, 100, 100000)
    rcv = Victim("incarnation", a.ns_b, port, family=family, gen=gen,
                 honest_ports=[lport])
    env.cleanups.append(rcv.close)
    with netns(a.ns_a):
        s = socket.socket(family, socket.SOCK_DGRAM, m.IPPROTO_MPDT)
        s.bind(("0.0.0.0" if family == socket.AF_INET else "::", lport))
    env.cleanups.append(s.close)
    sn = Sniffer(a.ns_a, a.dev_a)
    env.cleanups.append(sn.close)
    x = Attacker(a.ns_a, addr_a, family=family)     # the peer's own address
    fake = env.rnd.getrandbits(32)
    stop = threading.Event()

    def spoof():
        while not stop.wait(0.25):
            x.send(m.probe_pkt(0, ts=1, sport=lport, dport=port, nonce=fake,
                               ev=env.rnd.randrange(256)), dst=addr_b)

    def send(i):
        """Message i, and whether the victim received it."""
        s.sendto(gen.msg(i), (addr_b, port))
        return wait_until(lambda: len(rcv.seen) > i, 10)

    def to_peer(ptype, nonce=None):
        return lambda p: (p.mdport == lport and p.type == ptype and
                          (nonce is None or p.nonce == nonce))

    c.ok(v6 + "the first message received", send(0))
    thread = threading.Thread(target=spoof, daemon=True)
    thread.start()
    env.cleanups.append(stop.set)
    # Adopted once the peer's own incarnation was quiet: answered by SACKs.
    c.ok(v6 + "the made-up incarnation adopted (SACKs of its nonce)",
         sn.wait(to_peer(m.T_SACK, fake), 1, 10))
    time.sleep(0.5)     # the peer too has been idle for the quiet time
    b0 = stats(a.ns_b)
    c.ok(v6 + "the next message received while the spoofing goes on",
         send(1))
    b1 = stats(a.ns_b)
    c.ge(v6 + "its new incarnation challenged (tx_challenge)", 1,
         delta(b1, b0, "tx_challenge"))
    c.eq(v6 + "... and proven (rx_nonce_proven)", 1,
         delta(b1, b0, "rx_nonce_proven"))
    chal = [p for p in sn.match(to_peer(m.T_NACK))
            if p.nack()[1] == m.NACK_CHALLENGE and p.nonce != fake]
    sacks = sn.match(lambda p: to_peer(m.T_SACK)(p) and p.nonce != fake)
    c.ok(v6 + "a challenge of the peer's new nonce, which its SACKs carry",
         chal and sacks and sacks[-1].nonce == chal[-1].nonce,
         "challenges %r, last SACK %r" % ([hex(p.nonce) for p in chal],
                                          sacks and hex(sacks[-1].nonce)))
    c.ok(v6 + "the spoofs refused from then on (drop_stale_nonce)",
         wait_until(lambda: delta(stats(a.ns_b), b1, "drop_stale_nonce")
                    >= 2, 5))
    c.ok(v6 + "a third message received", send(2))
    stop.set()
    thread.join(5)
    rcv.check(c, v6 + "incarnation")
    c.eq(v6 + "messages acknowledged (MPDT_INFO)", 3,
         m.get_info(s, (addr_b, port))["msgs_acked"])


def case_bound_dev(env, c):
    """20. A socket bound to a device (SO_BINDTODEVICE) takes only what
    came in by it, as a UDP socket's binding does: DATA and PROBE for its
    port that came in by another link are dropped (drop_no_socket), open
    no connection and draw no answer, over IPv4 and IPv6, while messages
    by its own link arrive.  Before, an MPDT socket took its port's
    packets whatever device they came in by.  Then the same with its
    link's device in a VRF and the socket bound to the VRF (sysctl
    net.ipv4.udp_l3mdev_accept on: the tunnel socket hears a VRF's
    devices only then).  In a namespace of its own, joined to A by two
    links: a VRF's routing rules stay in a namespace for good, and with
    them IP checks every source in full, which other cases rely on it
    not doing."""
    a = env.a
    victim = "mpdtbd%d" % os.getpid()
    subprocess.run(["ip", "netns", "add", victim], check=True)
    env.cleanups.append(lambda: subprocess.run(["ip", "netns", "del",
                                                victim]))
    for n, dev in ((8, BD_LINK1), (9, BD_LINK2)):
        env.run(a.ns_a, ["ip", "link", "add", dev + "a", "type", "veth",
                         "peer", "name", dev + "v", "netns", victim])
        for ns, end, host in ((a.ns_a, "a", 1), (victim, "v", 2)):
            env.run(ns, ["ip", "addr", "add", "10.%d.0.%d/24" % (n, host),
                         "dev", dev + end])
            env.run(ns, ["ip", "link", "set", dev + end, "up"])
    if a.ipv6:
        for ns, end, host in ((a.ns_a, "a", 1), (victim, "v", 2)):
            env.run(ns, ["ip", "addr", "add", "fd08::%d/64" % host, "dev",
                         BD_LINK1 + end, "nodad"])
    bound_attack(env, c, victim, BD_LINK2 + "v", 7125, 6025)
    r = env.run(victim, ["ip", "link", "add", BD_VRF, "type", "vrf",
                         "table", "109"], check=False)
    if not c.ok("a VRF device (vrf.ko)", r.returncode == 0, r.stderr):
        return
    env.run(victim, ["ip", "link", "set", BD_VRF, "up"])
    env.run(victim, ["ip", "link", "set", BD_LINK2 + "v", "master", BD_VRF])
    sysctl_set(victim, "/proc/sys/net/ipv4/udp_l3mdev_accept", "1")
    bound_attack(env, c, victim, BD_VRF, 7127, 6027)


# Case bound-dev's links (an "a" end in A, a "v" end in the victim's
# namespace: 10.8.0.0/24 and fd08::/64, 10.9.0.0/24) and VRF.
BD_LINK1, BD_LINK2, BD_VRF = "mpdt-1", "mpdt-2", "mpdt-vrf"


def bound_attack(env, c, victim, dev, port, lport):
    """A socket on @port in namespace @victim bound to @dev: messages by
    the second link arrive; DATA and PROBE by the first are dropped."""
    a = env.a
    gen = Gen(a.seed + port, 4, 100, 50000)
    # AF_INET6: it takes IPv4 and IPv6, and the attack comes by both.
    v = Victim("bound to " + dev, victim, port, family=socket.AF_INET6,
               gen=gen, honest_ports=[lport], dev=dev)
    env.cleanups.append(v.close)
    # An unbound socket answers the control probe by the first link.
    ctl = Victim("control", victim, port + 1, reader=False)
    env.cleanups.append(ctl.close)
    with netns(a.ns_a):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, m.IPPROTO_MPDT)
        s.bind(("0.0.0.0", lport))
    env.cleanups.append(s.close)
    sn = Sniffer(a.ns_a, BD_LINK1 + "a")
    env.cleanups.append(sn.close)
    x4 = Attacker(a.ns_a, "10.8.0.1", dev=BD_LINK1 + "a")
    attacks = [(x4, "10.8.0.2")]
    if a.ipv6:
        attacks.append((Attacker(a.ns_a, "fd08::1", family=socket.AF_INET6),
                        "fd08::2"))
    peer = {"sport": 21800 + port % 100, "dport": port,
            "nonce": env.rnd.getrandbits(32)}
    k = 4
    b0 = stats(victim)
    for x, dst in attacks:
        for i in range(k):
            x.send(data(i, 1, 0, 2 * PAYLOAD, b"B" * PAYLOAD, flags=m.F_AR,
                        **peer), dst)
            x.send(m.probe_pkt(0, ts=i + 1, **peer), dst)
    # Sent last, by the path the IPv4 attack took.
    x4.send(m.probe_pkt(0, ts=1, sport=21890, dport=port + 1, nonce=1),
            "10.8.0.2")
    c.eq("%s: the control probe's answer by the first link" % dev, 1,
         len(replies_to(sn, 21890, 1)))
    want = 2 * k * len(attacks)
    wait_until(lambda: delta(stats(victim), b0, "drop_no_socket") >= want, 5)
    c.eq("%s: drop_no_socket: %d DATA + %d PROBE by the first link, to %s" %
         (dev, k, k, " and ".join(d for _, d in attacks)), want,
         delta(stats(victim), b0, "drop_no_socket"))
    c.eq("%s: answers by the first link" % dev, [],
         sn.match(lambda p: p.mdport == peer["sport"]))
    c.eq("%s: connections the attack opened" % dev, [],
         conn_count(env, victim, port))
    for i in range(gen.count):
        s.sendto(gen.msg(i), ("10.9.0.2", port))
    c.ok("%s: honest messages by the second link" % dev,
         wait_until(lambda: len(v.seen) == gen.count, 20))
    v.check(c)


CASES = {
    "evict": case_evict, "pressure": case_pressure, "quota": case_quota,
    "conn-evict": case_conn_evict, "conn-full": case_conn_full,
    "nonce": case_nonce, "not-host": case_not_host,
    "overlap": case_overlap, "reply-port": case_reply_port,
    "ipv6-csum": case_ipv6_csum, "crash": case_crash,
    "zero-len": case_zero_len, "params": case_params,
    "time-wait": case_time_wait, "gso": case_gso, "idle": case_idle,
    "broadcast-source": case_broadcast_source, "room": case_room,
    "incarnation": case_incarnation, "bound-dev": case_bound_dev,
}


def run_case(a, name):
    """One case, with its own processes, sockets and parameter changes,
    all undone at its end; True if every check passed."""
    global T0
    T0 = time.monotonic()
    log("=== %s" % name)
    env, c = Env(a), Checks()
    try:
        CASES[name](env, c)
    except Fatal as e:
        c.ok(str(e), False)
    except Exception as e:  # noqa: BLE001  (a bug here fails the case only)
        import traceback
        traceback.print_exc(file=sys.stdout)
        c.ok("%s: %r" % (name, e), False)
    finally:
        env.finish()
        env.show_counters()
    if c.failed:
        log("--- %s: FAILED (%.1f s): %d check(s): %s" % (
            name, time.monotonic() - T0, len(c.failed), "; ".join(c.failed)))
        return False
    log("--- %s: passed (%.1f s)" % (name, time.monotonic() - T0))
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("cases", nargs="+",
                    help="cases to run in this order, or crash-client")
    ap.add_argument("--ns-a")
    ap.add_argument("--ns-b")
    ap.add_argument("--dev-a", default="veth-a")
    ap.add_argument("--dev-b", default="veth-b")
    ap.add_argument("--mpdt-msg")
    ap.add_argument("--cli")
    ap.add_argument("--workdir", default="/tmp")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ipv6", type=int, default=1)
    ap.add_argument("--peer")
    ap.add_argument("--port", type=int)
    ap.add_argument("--lport", type=int)
    ap.add_argument("--size", type=int)
    ap.add_argument("--ready")
    a = ap.parse_args()
    if a.cases == ["crash-client"]:
        return crash_client(a)
    bad = [x for x in a.cases if x not in CASES]
    if bad:
        ap.error("unknown case(s) %s; cases: %s" % (" ".join(bad),
                                                   " ".join(CASES)))
    t_sh = float(os.environ.get("HOSTILE_T0", "0").replace(",", ".") or 0)
    log("python up %.1f s after the shell started it (imports %.1f s)"
        % (time.time() - t_sh if t_sh else -1, time.time() - _T_EXEC))
    failed = [x for x in a.cases if not run_case(a, x)]
    # The last line: the cases that failed, for hostile.sh.
    print("HOSTILE-FAILED: %s" % " ".join(failed), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
