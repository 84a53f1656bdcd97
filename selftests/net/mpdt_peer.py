#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mpdt_peer.py: an MPDT endpoint written with python's socket module only.

  recv-msgs  --port P --count N --seed S --min A --max B [--timeout T]
             [--ready FILE]
      Receive mpdt_msg-compatible messages and check each (length, content,
      exactly once, and the source with --expect-from ADDR:PORT), like
      'mpdt_msg recv'.  JSON result; exit 0 iff all OK.
  send-msgs  --peer ADDR --port P --count N --seed S --min A --max B
             [--timeout T] [--lport L]
      Send mpdt_msg-compatible messages, then wait until MPDT_INFO says the
      peer acknowledged all of them.  JSON result; exit 0 iff all acked.
  recv-stream --port P [--ready FILE] [--stop FILE]
      Receive pattern messages (mpdtlib.pattern) until SIGTERM or the stop
      file appears; JSON with every sequence number seen and the number of
      malformed (partial, mixed) messages.
  send-until-error --peer ADDR --port P --size N --mode block|poll
             [--ready FILE --ready-after K] [--deadline S]
             [--resume FILE --resume-count K]
      Stream pattern messages until the socket reports an error (the test
      makes the peer vanish once FILE exists).  A JSON line with the error,
      its time (time.time()), and MPDT_INFO after it; with --resume, then
      wait for the resume FILE, send K more messages, which must all be
      acknowledged, and print a second JSON line.
  echo --port P --count N [--ready FILE]
      Send each of N received messages back to its sender.
  echo-client --peer ADDR --port P --count N --seed S --min A --max B
             [--window W]
      Send N mpdt_msg-style messages to an echo server, W at a time, and
      check that each comes back exactly once and intact.
  hold --port P --ready FILE --release FILE
      Open an MPDT socket, check a loopback round trip, signal ready, and
      keep the socket open until the release file appears (then check the
      round trip again and close).
"""

import argparse
import errno
import json
import os
import select
import signal
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpdtlib as m  # noqa: E402


def out(obj):
    print(json.dumps(obj), flush=True)


def cmd_recv_msgs(a):
    s = m.mpdt_socket()
    s.bind(("0.0.0.0", a.port))
    s.settimeout(a.timeout)
    if a.ready:
        m.touch(a.ready)
    sizes = {}
    by_size = {}
    for i in range(a.count):
        n = m.msg_size(a.seed, i, a.min, a.max)
        sizes[i] = n
        by_size.setdefault(n, []).append(i)
    seen = set()
    got = dup = bad = wrong_src = 0
    nbytes = 0
    t0 = None
    err = None
    while got + dup + bad + wrong_src < a.count:
        try:
            buf, src = s.recvfrom(a.max + 1)
        except OSError as e:
            err = m.errname(e.errno) if e.errno else "timeout"
            break
        if t0 is None:
            t0 = time.time()
        if a.expect_from and "%s:%d" % src != a.expect_from:
            wrong_src += 1
            continue
        idx = None
        if len(buf) >= m.HDR_LEN:
            magic, i, ln, _ = struct.unpack("!IIII", buf[:16])
            if magic == m.MAGIC and ln == len(buf) and i < a.count:
                idx = i
        else:
            for i in by_size.get(len(buf), []):
                if i not in seen and m.msg_fill(a.seed, i, len(buf)) == buf:
                    idx = i
                    break
        if idx is not None and (sizes[idx] != len(buf) or
                                m.msg_fill(a.seed, idx, len(buf)) != buf):
            idx = None
        if idx is None:
            bad += 1
        elif idx in seen:
            dup += 1
        else:
            seen.add(idx)
            got += 1
            nbytes += len(buf)
    out({"received": got, "duplicates": dup, "corrupt": bad,
         "wrong_source": wrong_src, "bytes": nbytes, "error": err,
         "seconds": round(time.time() - t0, 3) if t0 else 0})
    return 0 if got == a.count and not dup and not bad and not wrong_src else 1


def cmd_send_msgs(a):
    s = m.mpdt_socket()
    if a.lport:
        s.bind(("0.0.0.0", a.lport))
    s.connect((a.peer, a.port))
    s.settimeout(a.timeout)
    t0 = time.time()
    nbytes = 0
    for i in range(a.count):
        buf = m.msg_fill(a.seed, i, m.msg_size(a.seed, i, a.min, a.max))
        try:
            n = s.send(buf)
        except OSError as e:
            out({"sent": i, "error": m.errname(e.errno)})
            return 1
        if n != len(buf):
            out({"sent": i, "error": "short send %d of %d" % (n, len(buf))})
            return 1
        nbytes += n
    while True:
        info = m.get_info(s)
        if info["msgs_acked"] >= a.count:
            break
        err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        if err or time.time() - t0 > a.timeout:
            out({"sent": a.count, "msgs_acked": info["msgs_acked"],
                 "error": m.errname(err) if err else "timeout"})
            return 1
        time.sleep(0.005)
    res = {"sent": a.count, "bytes": nbytes,
           "seconds": round(time.time() - t0, 3)}
    for k in ("msgs_acked", "msgs_sent", "msgs_inflight", "srtt_us", "cwnd",
              "retx_ooo", "retx_probe", "retx_rto", "retx_nack", "state",
              "bytes_acked", "lb", "cc"):
        res[k] = info[k]
    out(res)
    s.close()
    return 0


STOP = False


def _stop(signum, frame):
    global STOP
    STOP = True


def cmd_recv_stream(a):
    signal.signal(signal.SIGTERM, _stop)
    s = m.mpdt_socket()
    s.bind(("0.0.0.0", a.port))
    s.settimeout(0.2)
    if a.ready:
        m.touch(a.ready)
    seqs = []
    bad = 0
    errors = []
    while not STOP and not (a.stop and os.path.exists(a.stop)):
        try:
            buf = s.recv(a.max + 1)
        except socket.timeout:
            continue
        except InterruptedError:
            continue
        except OSError as e:
            errors.append(m.errname(e.errno))
            continue
        seq = m.check_pattern(buf)
        if seq is None:
            bad += 1
        else:
            seqs.append(seq)
    out({"received": len(seqs), "unique": len(set(seqs)),
         "malformed": bad, "seqs": seqs, "errors": errors})
    return 0


def _acked(s):
    """msgs_acked towards the connected peer (0 before the first send)."""
    try:
        return m.get_info(s)["msgs_acked"]
    except FileNotFoundError:
        return 0


def _info_brief(s):
    i = m.get_info(s)
    return {k: i[k] for k in ("state", "msgs_sent", "msgs_acked",
                              "msgs_inflight", "rtos", "retx_rto",
                              "inflight", "nonce")}


def cmd_send_until_error(a):
    s = m.mpdt_socket()
    s.connect((a.peer, a.port))
    if a.mode == "poll":
        s.setblocking(False)
    else:
        # A real blocking send(): python's settimeout() would poll instead.
        s.setblocking(True)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO,
                     struct.pack("ll", int(a.deadline), 0))
    res = {"mode": a.mode}
    seq = 0
    ready = False
    t_start = time.time()
    p = select.poll()
    p.register(s, select.POLLOUT | select.POLLERR)
    while True:
        now = time.time()
        if now - t_start > a.deadline:
            res["error"] = None
            break
        if not ready and _acked(s) >= a.ready_after:
            ready = True
            res["t_ready"] = time.time()
            try:
                res["nonce_before"] = m.get_info(s)["nonce"]
            except FileNotFoundError:
                res["nonce_before"] = None    # nothing sent yet
            if a.ready:
                m.touch(a.ready)
        if a.mode == "block":
            try:
                s.send(m.pattern(seq, a.size))
                seq += 1
            except OSError as e:
                res["error"] = m.errname(e.errno) if e.errno else "timeout"
                res["t_err"] = time.time()
                res["via"] = "send"
                break
        else:
            ev = p.poll(100)
            mask = ev[0][1] if ev else 0
            if mask & select.POLLERR:
                res["t_err"] = time.time()
                res["via"] = "POLLERR"
                res["error"] = m.errname(
                    s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR))
                break
            if mask & select.POLLOUT:
                try:
                    s.send(m.pattern(seq, a.size), socket.MSG_DONTWAIT)
                    seq += 1
                except BlockingIOError:
                    pass
                except OSError as e:
                    res["error"] = m.errname(e.errno)
                    res["t_err"] = time.time()
                    res["via"] = "send"
                    break
    res["sent_before_error"] = seq
    res["ready"] = ready
    if res.get("error") is None:
        res["info"] = _info_brief(s)
        out(res)
        return 1
    # The error is reported once: SO_ERROR is clear now, poll has no POLLERR.
    res["so_error_after"] = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
    ev = p.poll(0)
    res["pollerr_after"] = bool(ev and ev[0][1] & select.POLLERR)
    res["info"] = _info_brief(s)
    out(res)
    if a.resume:
        res = {}
        if not m.wait_file(a.resume, 60):
            res["resume_error"] = "no resume file"
            out(res)
            return 1
        s.setblocking(True)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO,
                     struct.pack("ll", int(a.deadline), 0))
        # A send that raced the failure started a new incarnation while the
        # peer was still gone: let it finish (delivered now that the peer is
        # back, or failed: that message was dropped and its failure is
        # reported once, as it should be), and collect that report.
        t0 = time.time()
        while (m.get_info(s)["msgs_inflight"] and
               time.time() - t0 < a.deadline):
            time.sleep(0.05)
        res["outage_error"] = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        before = m.get_info(s)["msgs_acked"]
        first = seq
        try:
            while seq - first < a.resume_count:
                try:
                    s.send(m.pattern(seq, a.size))
                    seq += 1
                except OSError as e:
                    # Late report of that raced message: once only.
                    if e.errno != errno.ETIMEDOUT or "late_error" in res:
                        raise
                    res["late_error"] = "ETIMEDOUT"
        except OSError as e:
            res["resume_error"] = m.errname(e.errno) if e.errno else "timeout"
            out(res)
            return 1
        res["resume_first_seq"] = first
        res["resume_last_seq"] = seq - 1
        t0 = time.time()
        while time.time() - t0 < a.deadline:
            i = m.get_info(s)
            if i["msgs_acked"] - before >= a.resume_count:
                break
            err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if err:
                res["resume_error"] = m.errname(err)
                break
            time.sleep(0.01)
        res["resume_acked"] = m.get_info(s)["msgs_acked"] - before
        res["resume_info"] = _info_brief(s)
        out(res)
    return 0


def cmd_echo(a):
    """Send every message back to where it came from, --count times."""
    s = m.mpdt_socket()
    s.bind(("0.0.0.0", a.port))
    s.settimeout(a.timeout)
    if a.ready:
        m.touch(a.ready)
    n = 0
    try:
        for n in range(1, a.count + 1):
            buf, src = s.recvfrom(a.max + 1)
            s.sendto(buf, src)
    except OSError as e:
        out({"echoed": n - 1, "error": m.errname(e.errno) if e.errno
             else "timeout"})
        return 1
    # Linger until the client has everything.
    t0 = time.time()
    while time.time() - t0 < a.timeout:
        if m.get_info(s, src)["msgs_inflight"] == 0:
            break
        time.sleep(0.01)
    out({"echoed": a.count, "info": _info_brief_peer(s, src)})
    return 0


def _info_brief_peer(s, peer):
    i = m.get_info(s, peer)
    return {k: i[k] for k in ("state", "msgs_sent", "msgs_acked",
                              "msgs_rcvd", "msgs_inflight", "srtt_us")}


def cmd_echo_client(a):
    """Send --count messages to an echo server, keeping --window of them
    outstanding, and check every echo (each exactly once, intact)."""
    s = m.mpdt_socket()
    if a.lport:
        s.bind(("0.0.0.0", a.lport))
    s.connect((a.peer, a.port))
    s.settimeout(a.timeout)
    pending = {}
    got = bad = 0
    nxt = 0
    t0 = time.time()
    try:
        while got + bad < a.count:
            while nxt < a.count and len(pending) < a.window:
                buf = m.msg_fill(a.seed, nxt,
                                 m.msg_size(a.seed, nxt, a.min, a.max))
                s.send(buf)
                pending[nxt] = buf
                nxt += 1
            buf = s.recv(a.max + 1)
            idx = None
            if len(buf) >= m.HDR_LEN:
                idx = struct.unpack("!I", buf[4:8])[0]
            else:
                idx = next((i for i, b in pending.items() if b == buf), None)
            if idx in pending and pending[idx] == buf:
                del pending[idx]
                got += 1
            else:
                bad += 1
    except OSError as e:
        out({"echoed_ok": got, "bad": bad, "error": m.errname(e.errno)
             if e.errno else "timeout"})
        return 1
    info = _info_brief_peer(s, (a.peer, a.port))
    out({"echoed_ok": got, "bad": bad, "seconds": round(time.time() - t0, 3),
         "info": info})
    return 0 if got == a.count and not bad else 1


def roundtrip(a, b, port_b, tag):
    msg = b"mpdt-hold-" + tag + b"-" + os.urandom(8)
    a.sendto(msg, ("127.0.0.1", port_b))
    got = b.recv(1000)
    if got != msg:
        raise SystemExit("round trip %s: got %r" % (tag, got))


def cmd_hold(a):
    s1 = m.mpdt_socket()
    s2 = m.mpdt_socket()
    s1.bind(("127.0.0.1", a.port))
    s2.bind(("127.0.0.1", a.port + 1))
    s2.settimeout(20)
    roundtrip(s1, s2, a.port + 1, b"before")
    m.touch(a.ready)
    if not m.wait_file(a.release, 120):
        raise SystemExit("no release file")
    roundtrip(s1, s2, a.port + 1, b"after")
    s1.close()
    s2.close()
    out({"held": True})
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("cmd")
    ap.add_argument("--peer", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--lport", type=int, default=0)
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--min", type=int, default=1)
    ap.add_argument("--max", type=int, default=1 << 20)
    ap.add_argument("--size", type=int, default=65536)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--deadline", type=float, default=60)
    ap.add_argument("--mode", choices=("block", "poll"), default="block")
    ap.add_argument("--ready")
    ap.add_argument("--ready-after", type=int, default=1)
    ap.add_argument("--stop")
    ap.add_argument("--release")
    ap.add_argument("--resume")
    ap.add_argument("--resume-count", type=int, default=10)
    ap.add_argument("--expect-from")
    ap.add_argument("--window", type=int, default=8)
    a = ap.parse_args()
    cmds = {"recv-msgs": cmd_recv_msgs, "send-msgs": cmd_send_msgs,
            "recv-stream": cmd_recv_stream,
            "send-until-error": cmd_send_until_error, "hold": cmd_hold,
            "echo": cmd_echo, "echo-client": cmd_echo_client}
    if a.cmd not in cmds:
        ap.error("unknown command " + a.cmd)
    return cmds[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
