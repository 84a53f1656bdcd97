#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""test_mpdt_perf.py - host tests of mpdt-perf, over loopback.

usage: test_mpdt_perf.py [-v] [-k SUBSTRING] [--perf PATH]

Builds tools/perf/mpdt-perf (make -C tools/perf) unless --perf is given,
then checks, with TCP, MPTCP (if the kernel has it) and UDP servers and
clients on 127.0.0.1 and ::1, and with fake servers written here:

  - --help and the usage text (every option listed), usage errors (exit 2);
  - the JSON of both ends: one valid line, the keys fct.py and other
    scripts read and the new ones, fct.py accepting it;
  - message size distributions (`dist`): exact for fixed sizes, mean and
    quantiles of 20000 seeded draws within tolerance for uniform,
    lognormal and CDF files, reproducible by seed, and the very sizes a
    client sends;
  - percentiles: nearest rank of known values, and per-message latencies
    that a fake server controls by delaying its replies;
  - --acks, --rr, -t, -i, --inflight, --flows, CPU time, interval sums;
  - error paths: refused connection, stalled server, corrupt reply,
    server timeout.

It never opens an MPDT socket: the mpdt module must not be loaded into
the host's kernel (the VM's perf_selftest.sh covers MPDT).  Runs in
about 15 s; exit status 0 if every check passed, 1 if not.
"""

import argparse
import json
import math
import os
import re
import shutil
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PERF = os.path.join(HERE, "mpdt-perf")
SRC = os.path.join(HERE, "mpdt-perf.c")
TMP = tempfile.mkdtemp(prefix="test_mpdt_perf.")
VERBOSE = False

HDR = struct.Struct(">IIQQQIIII")   # magic flow seq offset flow_bytes
                                    # reply_len flow_msgs len flags
MAGIC = 0x4d505246
PERIOD = 65521
FLAG_FIN, FLAG_OPEN = 1, 2

CLIENT_KEYS = {
    # Read by fct.py, steady.py, perf_selftest.sh and the figures.
    "role", "proto", "dst", "size", "msg", "nflows", "start_at_ns",
    "flows", "ok",
    # New.
    "mode", "sizes", "seed", "msgs_per_flow", "duration_s", "interval_s",
    "reply", "acks", "inflight", "fct_method", "elapsed_s", "tx_bytes",
    "rx_bytes", "msgs", "msgs_done", "tx_mbps", "latency", "cpu_user_s",
    "cpu_sys_s", "cpu_s", "cpu_s_per_gb", "intervals",
}
CLIENT_FLOW_KEYS = {
    "id", "proto", "bytes", "msgs", "t_start_ns", "t_sent_ns",
    "t_end_local_ns", "late_ns", "error", "ok",
    "msgs_done", "rx_bytes", "fct_local_ns", "latency",
}
STREAM_FLOW_KEYS = {"sock_protocol", "connect_ns", "retransmits", "srtt_us",
                    "cwnd_pkts"}
SERVER_KEYS = {
    "role", "proto", "family", "port", "count", "flows_done", "timed_out",
    "stopped", "bad_msgs", "t_ready_ns", "t_exit_ns", "flows", "ok",
    "rx_bytes", "rx_msgs", "tx_bytes", "replies", "reply_errors",
    "elapsed_s", "rx_mbps", "cpu_user_s", "cpu_sys_s", "cpu_s",
    "cpu_s_per_gb", "interval_s", "intervals",
}
SERVER_FLOW_KEYS = {
    "id", "src", "bytes", "expect_bytes", "msgs", "expect_msgs",
    "first_rx_ns", "last_rx_ns", "rx_mbps", "corrupt", "dups",
    "complete", "error", "ok", "replies", "open",
}
LATENCY_KEYS = {"n", "mean_us", "min_us", "p50_us", "p99_us", "p999_us",
                "max_us"}
INTERVAL_KEYS = {"start_s", "end_s", "bytes", "mbps", "msgs"}


class Fail(Exception):
    pass


def check(cond, what, *ctx):
    if not cond:
        raise Fail(what + "".join("\n    %s" % str(c)[:600] for c in ctx))


def log(msg):
    if VERBOSE:
        print("    " + msg)


# ---------------------------------------------------------------------
# Running mpdt-perf

def run(*args, timeout=30):
    """mpdt-perf ARGS: (exit status, stdout, stderr)."""
    check("mpdt" not in _protos(args), "the tests never run MPDT")
    p = subprocess.run([PERF] + [str(a) for a in args], capture_output=True,
                       text=True, timeout=timeout)
    log("mpdt-perf %s -> %d" % (" ".join(map(str, args)), p.returncode))
    return p.returncode, p.stdout, p.stderr


def _protos(args):
    """The protocol a server or client command would use (mpdt if none)."""
    args = [str(a) for a in args]
    if not args or args[0] not in ("server", "client"):
        return []
    if "--proto" in args:
        return [args[args.index("--proto") + 1]]
    return ["mpdt"]


def one_json(out, role):
    lines = out.splitlines()
    check(len(lines) == 1, "one line of JSON on stdout", out)
    obj = json.loads(lines[0])
    check(obj.get("role") == role, "role %s" % role, obj)
    return obj


def free_port():
    """A port free on 127.0.0.1 and ::1, for TCP and UDP."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        try:
            for fam, typ in ((socket.AF_INET, socket.SOCK_DGRAM),
                             (socket.AF_INET6, socket.SOCK_STREAM),
                             (socket.AF_INET6, socket.SOCK_DGRAM)):
                with socket.socket(fam, typ) as s:
                    s.bind(("::1" if fam == socket.AF_INET6 else
                            "127.0.0.1", port))
            return port
        except OSError:
            continue
    raise Fail("no free port")


class Server:
    """mpdt-perf server in the background."""

    def __init__(self, proto, *args, count=1, timeout=30):
        self.port = free_port()
        ready = os.path.join(TMP, "ready.%d" % self.port)
        cmd = ["server", "--proto", proto, "-p", self.port, "--count", count,
               "--timeout", timeout, "--ready", ready] + list(args)
        check("mpdt" not in _protos(cmd), "the tests never run MPDT")
        self.p = subprocess.Popen([PERF] + [str(a) for a in cmd],
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 10
        while not os.path.exists(ready):
            if self.p.poll() is not None:
                raise Fail("server did not start: " + self.p.communicate()[1])
            check(time.time() < deadline, "server ready in 10 s")
            time.sleep(0.01)

    def finish(self):
        out, err = self.p.communicate(timeout=40)
        log("server -> %d" % self.p.returncode)
        return self.p.returncode, one_json(out, "server"), err


def pair(proto, *cargs, sargs=(), count=1, addr="127.0.0.1"):
    """A server and a client: (client rc, JSON, stderr, server rc, JSON,
    stderr)."""
    srv = Server(proto, *sargs, count=count)
    rc, out, err = run("client", "--proto", proto, "-a", addr, "-p",
                       srv.port, *cargs)
    srv_rc, sj, serr = srv.finish()
    return rc, one_json(out, "client"), err, srv_rc, sj, serr


def keys(obj, want, what):
    missing = want - set(obj)
    check(not missing, "%s has keys %s" % (what, sorted(missing)), obj)


def check_client(cj, proto):
    keys(cj, CLIENT_KEYS, "client JSON")
    for f in cj["flows"]:
        keys(f, CLIENT_FLOW_KEYS, "client flow")
        if proto in ("tcp", "mptcp"):
            keys(f, STREAM_FLOW_KEYS if f["ok"] else
                 {"sock_protocol", "connect_ns"}, "tcp flow")
        if proto == "udp":
            keys(f, {"send_errors"}, "udp flow")
    if proto == "udp":
        keys(cj, {"rate_mbit"}, "udp client")
    if cj["mode"] == "rr":
        keys(cj, {"transactions", "tps"}, "rr client")
    for i in cj["intervals"]:
        keys(i, INTERVAL_KEYS | {"msgs_done"}, "client interval")
    check_cpu(cj, cj["tx_bytes"] + cj["rx_bytes"])


def check_server(sj, proto):
    keys(sj, SERVER_KEYS, "server JSON")
    for f in sj["flows"]:
        keys(f, SERVER_FLOW_KEYS, "server flow")
        if proto == "udp":
            keys(f, {"loss", "fin", "idle_end"}, "udp server flow")
    for i in sj["intervals"]:
        keys(i, INTERVAL_KEYS | {"replies"}, "server interval")
    check_cpu(sj, sj["rx_bytes"] + sj["tx_bytes"])


def check_cpu(obj, moved):
    u, s, t = obj["cpu_user_s"], obj["cpu_sys_s"], obj["cpu_s"]
    check(u >= 0 and s >= 0 and abs(u + s - t) <= 1e-5 * max(1, t),
          "cpu_s = cpu_user_s + cpu_sys_s", obj)
    if moved:
        want = t / (moved / 1e9)
        check(abs(obj["cpu_s_per_gb"] - want) <= 1e-4 * max(want, 1e-9),
              "cpu_s_per_gb = cpu_s per 1e9 bytes moved",
              (obj["cpu_s_per_gb"], want))
    else:
        check(obj["cpu_s_per_gb"] is None, "cpu_s_per_gb null: no bytes")


def check_latency(lat, n, elapsed_s):
    """Percentiles in order, within the run."""
    check(lat is not None, "latency reported")
    keys(lat, LATENCY_KEYS, "latency")
    check(lat["n"] == n, "latency over every message (%d)" % n, lat)
    order = [lat[k] for k in ("min_us", "p50_us", "p99_us", "p999_us",
                              "max_us")]
    check(0 < order[0] and order == sorted(order),
          "0 < min <= p50 <= p99 <= p999 <= max", lat)
    check(lat["min_us"] <= lat["mean_us"] <= lat["max_us"], "mean in range",
          lat)
    check(lat["max_us"] <= elapsed_s * 1e6 + 1,
          "no message took longer than the run", lat, elapsed_s)


def check_intervals(ivs, total_bytes, total_msgs, step, done_key=None,
                    total_done=None):
    check(ivs, "interval reports")
    check(sum(i["bytes"] for i in ivs) == total_bytes,
          "interval bytes add up to %d" % total_bytes, ivs)
    check(sum(i["msgs"] for i in ivs) == total_msgs,
          "interval msgs add up to %d" % total_msgs, ivs)
    if done_key:
        check(sum(i[done_key] for i in ivs) == total_done,
              "interval %s add up to %d" % (done_key, total_done), ivs)
    for a, b in zip(ivs, ivs[1:]):
        check(abs(a["end_s"] - b["start_s"]) < 1e-5, "intervals contiguous",
              a, b)
        check(abs(a["end_s"] - a["start_s"] - step) < 1e-5,
              "every interval but the last lasts %g s" % step, a)
    last = ivs[-1]
    check(0 <= last["end_s"] - last["start_s"] <= step + 1e-5,
          "the last interval no longer than -i", last)


# ---------------------------------------------------------------------
# The pattern and the header, as Documentation/perf.rst describes them

def _pattern():
    m64 = (1 << 64) - 1
    s, r = 0x4d504454, 0
    out = bytearray(PERIOD)
    for i in range(PERIOD):
        if not i & 7:
            s = (s + 0x9e3779b97f4a7c15) & m64
            z = s
            z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & m64
            z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & m64
            r = z ^ (z >> 31)
        out[i] = (r >> ((i & 7) * 8)) & 0xff
    return bytes(out)


PAT = _pattern()


def pattern(flow, off, n):
    """n bytes of flow's pattern from flow offset off."""
    start = (off + flow * 7919) % PERIOD
    reps = (start + n) // PERIOD + 1
    return (PAT * reps)[start:start + n]


def recv_exact(conn, n):
    buf = bytearray()
    while len(buf) < n:
        b = conn.recv(n - len(buf))
        if not b:
            return None
        buf += b
    return bytes(buf)


class FakeServer(threading.Thread):
    """A TCP server speaking mpdt-perf's stream format: it checks every
    header and payload byte, and answers each message that asks for a
    reply through answer(index, header) -> bytes or None (no reply)."""

    def __init__(self, answer):
        super().__init__(daemon=True)
        self.answer = answer
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.port = self.sock.getsockname()[1]
        self.errors = []
        self.headers = []

    def run(self):
        conn, _ = self.sock.accept()
        with conn:
            while True:
                raw = recv_exact(conn, HDR.size)
                if raw is None:
                    break
                h = HDR.unpack(raw)
                magic, flow, seq, off, _, reply, _, length, flags = h
                if magic != MAGIC or seq != len(self.headers):
                    self.errors.append("bad header %s" % (h,))
                    break
                data = recv_exact(conn, length - HDR.size)
                if data != pattern(flow, off + HDR.size, length - HDR.size):
                    self.errors.append("bad payload in message %d" % seq)
                self.headers.append(h)
                if flags & FLAG_FIN or not reply:
                    continue
                ans = self.answer(seq, h)
                if ans is not None:
                    conn.sendall(ans)
        self.sock.close()


# ---------------------------------------------------------------------
# The tests

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


@test
def help_and_usage():
    for args in (["--help"], ["-h"], ["client", "--proto", "tcp", "--help"],
                 ["server", "--proto", "udp", "-h"]):
        rc, out, err = run(*args)
        check(rc == 0 and out.startswith("usage:") and not err,
              "%s: usage on stdout, exit 0" % " ".join(args), rc, err)
    with open(SRC, encoding="utf-8") as f:
        src = f.read()
    longs = re.findall(r'\{ "([a-z0-9-]+)", (?:required|no)_argument', src)
    check(len(longs) > 20, "long options found in mpdt-perf.c")
    shorts = re.search(r'getopt_long\(argc, argv, "([^"]+)"', src).group(1)
    for o in longs:
        check("--" + o in out, "--%s in the usage text" % o)
    for o in shorts.replace(":", ""):
        check("-%s" % o in out, "-%s in the usage text" % o)
    for word in ("fixed:N", "uniform:A:B", "lognormal:MU:SIGMA",
                 "file:PATH", "dist"):
        check(word in out, "%s in the usage text" % word)


@test
def usage_errors():
    cdf_bad = os.path.join(TMP, "bad.cdf")
    with open(cdf_bad, "w", encoding="utf-8") as f:
        f.write("100,0.5\n50,0.7\n")
    cdf_short = os.path.join(TMP, "short.cdf")
    with open(cdf_short, "w", encoding="utf-8") as f:
        f.write("100 0.5\n200 0.9\n")
    c = ["client", "-a", "127.0.0.1", "--proto", "tcp"]
    sv = ["server", "--proto", "tcp"]
    cases = [
        [], ["bogus"], ["server", "--proto", "sctp"],
        sv + ["extra"], sv + ["--nope"], sv + ["-p", "70000"],
        sv + ["-p", "0"], sv + ["--timeout", "0"], sv + ["-i", "-1"],
        ["client", "--proto", "tcp", "--size", "1M"],
        c, c + ["--size", "1M", "-t", "1"], c + ["--msgs", "10", "-t", "1"],
        c + ["--size", "10"], c + ["--size", "1X"], c + ["--size", "-5"],
        c + ["-t", "0"], c + ["-t", "abc"], c + ["--size", "1M", "-i", "0"],
        c + ["--size", "1M", "--flows", "0"],
        c + ["--size", "1M", "--msg", "1K", "--sizes", "fixed:1K"],
        c + ["--size", "1M", "--msg", "20"],
        c + ["--size", "1M", "--sizes", "fixed:20"],
        c + ["--size", "1M", "--sizes", "uniform:200:100"],
        c + ["--size", "1M", "--sizes", "uniform:100"],
        c + ["--size", "1M", "--sizes", "lognormal:8"],
        c + ["--size", "1M", "--sizes", "lognormal:8:-1"],
        c + ["--size", "1M", "--sizes", "pareto:1:2"],
        c + ["--size", "1M", "--sizes", "file:" + TMP + "/none"],
        c + ["--size", "1M", "--sizes", "file:" + cdf_bad],
        c + ["--size", "1M", "--sizes", "file:" + cdf_short],
        c + ["--size", "1M", "--reply", "10"],
        c + ["--size", "1M", "--rr", "--reply", "0"],
        c + ["--size", "1M", "--rr", "--acks"],
        c + ["--size", "1M", "--rr", "--inflight", "2"],
        c + ["--size", "1M", "--inflight", "2"],
        c + ["--size", "1M", "--lb", "ecmp"],
        c + ["--size", "1M", "--ack-poll", "0"],
        c + ["--size", "1M", "--one-thread", "--acks"],
        c + ["--size", "1M", "--one-thread", "--rr"],
        c + ["--size", "1M", "--one-thread", "--acks", "--inflight", "2"],
        ["client", "-a", "127.0.0.1", "--proto", "udp", "--size", "1M",
         "--one-thread"],
        c + ["--size", "1M", "--seed", "x"],
        ["client", "-a", "127.0.0.1", "--proto", "udp", "--size", "1M",
         "--rr"],
        ["client", "-a", "127.0.0.1", "--proto", "udp", "--size", "1M",
         "--msg", "70000"],
        ["client", "-a", "127.0.0.1", "--proto", "udp", "--size", "1M",
         "--acks"],
        ["dist"], ["dist", "--sizes", "fixed:100", "--msg", "100"],
        ["dist", "--sizes", "fixed:100", "--msgs", "-1"],
    ]
    for args in cases:
        rc, out, err = run(*args, timeout=10)
        check(rc == 2 and not out and "usage:" in err,
              "exit 2, the usage on stderr: %s" % " ".join(args), rc, out,
              err)
    rc, out, err = run("client", "-a", "no.such.address", "--proto", "tcp",
                       "--size", "1M")
    check(rc == 2 and "bad address" in err, "bad address: exit 2", rc, err)


def dist(spec, n, seed=1, fid=1, proto="tcp"):
    rc, out, err = run("dist", "--sizes", spec, "--msgs", n, "--seed", seed,
                       "--id", fid, "--proto", proto)
    check(rc == 0, "dist %s" % spec, err)
    d = one_json(out, "dist")
    check(len(d["values"]) == n, "%d values" % n)
    return d


def nearest_rank(sorted_vals, num, den):
    k = -(-len(sorted_vals) * num // den)
    return sorted_vals[max(k, 1) - 1]


def check_stats(d):
    """The summary of known values: nearest-rank percentiles, exactly."""
    v = sorted(d["values"])
    s = d["stats"]
    want = {"n": len(v), "min": v[0], "max": v[-1],
            "p50": nearest_rank(v, 50, 100), "p99": nearest_rank(v, 99, 100),
            "p999": nearest_rank(v, 999, 1000)}
    for k, w in want.items():
        check(s[k] == w, "%s of %s is %s" % (k, d["sizes"], w), s[k])
    mean = sum(v) / len(v)
    check(abs(s["mean"] - mean) <= 1e-9 * mean, "mean of %s" % d["sizes"],
          s["mean"], mean)


def near(x, want, rel, what):
    check(abs(x - want) <= rel * want, "%s: %g within %g%% of %g" %
          (what, x, rel * 100, want))


@test
def sizes_fixed_uniform():
    d = dist("fixed:1K", 100)
    check(set(d["values"]) == {1024} and d["max"] == 1024, "fixed:1K", d)
    check_stats(d)
    d = dist("uniform:100:1100", 20000)
    v = d["values"]
    check(min(v) >= 100 and max(v) <= 1100 and d["max"] == 1100,
          "uniform within bounds")
    near(statistics.fmean(v), 600, 0.01, "uniform mean")
    sv = sorted(v)
    for p in (0.1, 0.5, 0.9):
        near(sv[int(p * len(sv))], 100 + 1000 * p, 0.03, "uniform q%g" % p)
    check(len(set(v)) == 1001, "every size of 100..1100 drawn")
    check_stats(d)
    small = dist("uniform:48:49", 1000)
    check(set(small["values"]) == {48, 49}, "uniform:48:49 draws both ends")


@test
def sizes_lognormal():
    d = dist("lognormal:10:0", 5)
    check(set(d["values"]) == {round(math.exp(10))}, "e^10 rounded", d)
    mu, sigma = 8.0, 1.0
    d = dist("lognormal:%g:%g" % (mu, sigma), 20000)
    v = sorted(d["values"])
    near(v[len(v) // 2], math.exp(mu), 0.04, "lognormal median")
    near(statistics.fmean(v), math.exp(mu + sigma * sigma / 2), 0.05,
         "lognormal mean")
    nd = statistics.NormalDist()
    for p in (0.1, 0.9):
        near(v[int(p * len(v))], math.exp(mu + sigma * nd.inv_cdf(p)), 0.05,
             "lognormal q%g" % p)
    check_stats(d)
    # Clamped: to a header below, to the protocol's largest message above.
    d = dist("lognormal:2:0", 3)
    check(set(d["values"]) == {48}, "raised to the 48-byte header", d)
    d = dist("lognormal:12:0", 3, proto="udp")
    check(set(d["values"]) == {65507} and d["max"] == 65507,
          "lowered to UDP's largest datagram", d)


@test
def sizes_cdf_file():
    path = os.path.join(TMP, "w.cdf")
    with open(path, "w", encoding="utf-8") as f:
        f.write("# size,fraction (Homa's form)\n\n8,0.25\n1000, 0.5\n"
                "1000\t0.6\n5000 0.9\n  65536,1.0\n")
    d = dist("file:" + path, 20000)
    v = d["values"]
    check(set(v) == {48, 1000, 5000, 65536}, "only the listed sizes (8 -> 48)",
          sorted(set(v)))
    check(d["max"] == 65536, "max of the file")
    share = {s: v.count(s) / len(v) for s in set(v)}
    for s, p in ((48, 0.25), (1000, 0.35), (5000, 0.3), (65536, 0.1)):
        check(abs(share[s] - p) < 0.015, "share of %d near %g" % (s, p),
              share[s])
    check_stats(d)


@test
def sizes_seeded():
    a = dist("uniform:100:9000", 500, seed=7)["values"]
    check(a == dist("uniform:100:9000", 500, seed=7)["values"],
          "same seed, same sizes")
    check(a != dist("uniform:100:9000", 500, seed=8)["values"],
          "another seed, other sizes")
    check(a != dist("uniform:100:9000", 500, seed=7, fid=2)["values"],
          "another flow, other sizes")


@test
def tcp_size_compat():
    """The old mode: one flow of --size bytes; JSON that fct.py reads."""
    rc, cj, cerr, src, sj, _ = pair("tcp", "--size", "1M", "--msg", "100K")
    check(rc == 0 and src == 0 and cj["ok"] and sj["ok"], "tcp flow ok",
          cj, sj)
    check_client(cj, "tcp")
    check_server(sj, "tcp")
    f, sf = cj["flows"][0], sj["flows"][0]
    check(f["bytes"] == 1 << 20 and sf["bytes"] == 1 << 20 and
          f["msgs"] == 11 and sf["msgs"] == 11 and sf["complete"],
          "1 MiB in 11 messages (the last takes the rest)", f, sf)
    check(cj["fct_method"] == "none" and cj["latency"] is None,
          "no completion times without --acks", cj)
    check(cj["msg"] == 102400 and cj["sizes"] == "fixed:102400", "msg, sizes")
    check("cpu:" in cerr and "Mbit/s" in cerr, "a report on stderr", cerr)
    for name, obj in (("server", sj), ("client", cj)):
        with open(os.path.join(TMP, "%s-h.json" % name), "w",
                  encoding="utf-8") as fh:
            fh.write(json.dumps(obj) + "\n")
    p = subprocess.run([sys.executable, os.path.join(HERE, "fct.py"),
                        "--json-only", "--rate-mbit", "1000",
                        os.path.join(TMP, "server-h.json"),
                        os.path.join(TMP, "client-h.json")],
                       capture_output=True, text=True, timeout=30)
    check(p.returncode == 0, "fct.py accepts the JSON", p.stdout, p.stderr)
    summ = json.loads(p.stdout.splitlines()[-1])
    check(summ["flows"] == 1 and summ["ok"] == 1 and
          summ["fct_max_ms"] > 0, "fct.py: one flow, ok", summ)


@test
def tcp_acks():
    rc, cj, _, src, sj, _ = pair("tcp", "--size", "2M", "--msg", "16K",
                                 "--acks")
    check(rc == 0 and src == 0, "tcp --acks ok", cj, sj)
    check_client(cj, "tcp")
    check_server(sj, "tcp")
    n = 128
    check(cj["fct_method"] == "app_ack" and cj["reply"] == 1 and
          cj["acks"], "method app_ack, 1-byte replies", cj)
    check(cj["msgs_done"] == n and cj["rx_bytes"] == n and
          sj["replies"] == n and sj["tx_bytes"] == n,
          "one 1-byte ack per message", cj, sj)
    check_latency(cj["latency"], n, cj["elapsed_s"])
    f = cj["flows"][0]
    check_latency(f["latency"], n, cj["elapsed_s"])
    check(0 < f["fct_local_ns"] <= cj["elapsed_s"] * 1e9 + 1e3,
          "the sender's flow completion time", f)


@test
def tcp_acks_inflight_flows_seeded():
    """--inflight with --acks; three flows of seeded sizes, which are the
    sizes `dist` prints for each flow id."""
    path = os.path.join(TMP, "f.cdf")
    with open(path, "w", encoding="utf-8") as f:
        f.write("100,0.3\n2000,0.8\n30000,1\n")
    spec = "file:" + path
    rc, cj, _, src, sj, _ = pair("tcp", "--msgs", 300, "--sizes", spec,
                                 "--seed", 42, "--flows", 3, "--id", 5,
                                 "--acks", "--inflight", 2, count=3)
    check(rc == 0 and src == 0, "3 flows ok", cj, sj)
    check_client(cj, "tcp")
    check(cj["inflight"] == 2 and cj["sizes"] == spec and cj["seed"] == 42,
          "inflight, sizes, seed in the JSON", cj)
    byid = {f["id"]: f for f in sj["flows"]}
    for f in cj["flows"]:
        want = sum(dist(spec, 300, seed=42, fid=f["id"])["values"])
        check(f["msgs"] == 300 and f["msgs_done"] == 300, "300 messages", f)
        check(f["bytes"] == want and byid[f["id"]]["bytes"] == want and
              byid[f["id"]]["expect_bytes"] == want,
              "flow %d sent the sizes dist draws" % f["id"], f, want)
    check(sorted(byid) == [5, 6, 7], "flow ids 5..7", sorted(byid))
    check_latency(cj["latency"], 900, cj["elapsed_s"])


def threads_of(pid):
    """The threads process @pid has, or None once it is gone."""
    try:
        return len(os.listdir("/proc/%d/task" % pid))
    except FileNotFoundError:
        return None


def one_thread_client(secs, flows, *args):
    """A TCP client of @flows flows for @secs seconds, with @args: (the
    most threads it was seen with, client rc, JSON, server rc, JSON)."""
    srv = Server("tcp", count=flows)
    p = subprocess.Popen([PERF] + [str(a) for a in (
        "client", "--proto", "tcp", "-a", "127.0.0.1", "-p", srv.port, "-t",
        secs, "--flows", flows, "--msg", "64K") + args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = 0
    while p.poll() is None:
        seen = max(seen, threads_of(p.pid) or 0)
        time.sleep(0.05)
    out, _ = p.communicate()
    srv_rc, sj, _ = srv.finish()
    return seen, p.returncode, one_json(out, "client"), srv_rc, sj


@test
def tcp_one_thread():
    """--one-thread: every flow from one sender thread beside main(), each
    byte of each flow checked by the server; without it a thread per
    flow."""
    seen, rc, cj, src, sj = one_thread_client(1.5, 4, "--one-thread")
    check(rc == 0 and src == 0 and cj["ok"] and sj["ok"], "4 flows ok",
          cj, sj)
    check_client(cj, "tcp")
    check(cj["one_thread"] and seen == 2,
          "main() and one sender thread (seen %d)" % seen, cj)
    byid = {f["id"]: f for f in sj["flows"]}
    check(sorted(byid) == [1, 2, 3, 4], "flows 1..4 at the server", byid)
    for f in cj["flows"]:
        sf = byid[f["id"]]
        check(f["ok"] and f["msgs"] > 0 and sf["complete"] and
              sf["bytes"] == f["bytes"] and sf["msgs"] == f["msgs"],
              "flow %d: every message in, intact" % f["id"], f, sf)
    seen, rc, cj, src, sj = one_thread_client(1, 4)
    check(rc == 0 and src == 0 and not cj["one_thread"] and seen == 5,
          "without --one-thread: a thread per flow (seen %d)" % seen, cj)
    rc, cj, _, src, sj, _ = pair("tcp", "--size", "3M", "--sizes",
                                 "uniform:48:300K", "--flows", 3,
                                 "--one-thread", count=3)
    check(rc == 0 and src == 0, "--size, 3 flows, one thread", cj, sj)
    check(all(f["bytes"] == 3 << 20 and f["complete"] for f in sj["flows"]),
          "each flow exactly 3 MiB, verified", sj)


@test
def tcp_rr_msgs():
    rc, cj, cerr, src, sj, _ = pair("tcp", "--rr", "--msgs", 2000, "--sizes",
                                    "uniform:48:300", "--reply", 1000)
    check(rc == 0 and src == 0, "tcp --rr ok", cj, sj)
    check_client(cj, "tcp")
    check(cj["mode"] == "rr" and cj["fct_method"] == "rr" and
          cj["inflight"] == 1, "rr mode", cj)
    check(cj["transactions"] == 2000 and cj["rx_bytes"] == 2000 * 1000 and
          sj["replies"] == 2000, "2000 transactions of 1000-byte replies",
          cj, sj)
    near(cj["tps"], 2000 / cj["elapsed_s"], 0.001, "tps")
    check_latency(cj["latency"], 2000, cj["elapsed_s"])
    # One request at a time: the latencies fit in the run, end to end.
    check(cj["latency"]["mean_us"] * 2000 <= cj["elapsed_s"] * 1e6 * 1.001,
          "sum of transaction times <= elapsed (one at a time)", cj)
    check("rr: 2000 transactions" in cerr, "rr line in the report", cerr)


@test
def tcp_duration_intervals_rr():
    t, step = 1.0, 0.25
    rc, cj, cerr, src, sj, serr = pair(
        "tcp", "--rr", "-t", t, "-i", step, "--flows", 2, "--reply", 200,
        sargs=("-i", 0.5), count=2)
    check(rc == 0 and src == 0, "tcp -t --rr ok", cj, sj)
    check_client(cj, "tcp")
    check_server(sj, "tcp")
    check(t * 0.99 <= cj["elapsed_s"] <= t + 5, "ran about -t seconds", cj)
    check(cj["duration_s"] == t and cj["interval_s"] == step, "-t, -i", cj)
    ivs = cj["intervals"]
    check(int(t / step) <= len(ivs) <= int(cj["elapsed_s"] / step) + 2,
          "about t / i intervals", ivs)
    check_intervals(ivs, cj["tx_bytes"], cj["msgs"], step, "msgs_done",
                    cj["msgs_done"])
    check_intervals(sj["intervals"], sj["rx_bytes"], sj["rx_msgs"], 0.5,
                    "replies", sj["replies"])
    check(cerr.count(" sec ") == len(ivs), "an interval line each", cerr)
    check(serr.count(" sec ") == len(sj["intervals"]),
          "server: an interval line each", serr)
    for f in sj["flows"]:
        check(f["open"] and f["complete"] and f["ok"] and
              f["expect_bytes"] == f["bytes"] > 0,
              "open flow: its size from the FIN, complete", f)
    check(cj["transactions"] == cj["msgs"] > 0, "every request answered", cj)
    check_latency(cj["latency"], cj["msgs"], cj["elapsed_s"])


@test
def tcp_duration_plain():
    rc, cj, _, src, sj, _ = pair("tcp", "-t", 0.5, "--sizes",
                                 "lognormal:9:1.5")
    check(rc == 0 and src == 0, "tcp -t ok", cj, sj)
    f, sf = cj["flows"][0], sj["flows"][0]
    check(sf["bytes"] == f["bytes"] == sf["expect_bytes"] and
          sf["msgs"] == f["msgs"] == sf["expect_msgs"], "all arrived", f, sf)
    check(cj["latency"] is None and cj["intervals"] == [],
          "no latency without --acks, no intervals without -i", cj)


@test
def tcp_size_sizes_big_replies():
    """--size with drawn sizes: the flow is exactly SIZE; replies longer
    than the pattern's period."""
    rc, cj, _, src, sj, _ = pair("tcp", "--size", 100000, "--sizes",
                                 "uniform:48:5000", "--rr", "--reply", "200K")
    check(rc == 0 and src == 0, "ok", cj, sj)
    f, sf = cj["flows"][0], sj["flows"][0]
    check(f["bytes"] == sf["bytes"] == sf["expect_bytes"] == 100000 and
          sf["complete"], "exactly --size bytes", f, sf)
    check(cj["rx_bytes"] == f["msgs"] * 200 * 1024, "every reply whole", cj)


@test
def udp_size_compat():
    rc, cj, _, src, sj, _ = pair("udp", "--size", "300K")
    check(rc == 0 and src == 0, "udp ok", cj, sj)
    check_client(cj, "udp")
    check_server(sj, "udp")
    sf = sj["flows"][0]
    check(cj["msg"] == 1400 and cj["msgs"] == 220, "1400-byte datagrams", cj)
    check(sf["complete"] and not sf["open"] and
          sf["expect_bytes"] == 300 << 10, "the size from the headers", sf)
    check(0 <= sf["loss"] <= 1, "loss is a fraction", sf)


@test
def udp_duration_paced():
    rate, t = 20, 1.0
    rc, cj, _, src, sj, _ = pair("udp", "-t", t, "--rate", rate, "-i", 0.5,
                                 "--sizes", "uniform:200:1400",
                                 sargs=("-i", 0.5))
    check(rc == 0 and src == 0, "udp -t ok", cj, sj)
    check_client(cj, "udp")
    check_server(sj, "udp")
    check(cj["tx_mbps"] <= rate * 1.05, "paced at --rate, not faster", cj)
    check_intervals(cj["intervals"], cj["tx_bytes"], cj["msgs"], 0.5)
    check_intervals(sj["intervals"], sj["rx_bytes"], sj["rx_msgs"], 0.5)
    sf = sj["flows"][0]
    check(sf["open"] and sf["fin"] and sf["expect_bytes"] == cj["tx_bytes"],
          "the FIN gave the open flow's size", sf, cj["tx_bytes"])
    check(cj["fct_method"] == "none" and cj["latency"] is None,
          "udp: no completion times", cj)


@test
def mptcp_acks():
    try:
        socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262).close()
    except OSError:
        log("skip: no MPTCP in this kernel")
        return
    rc, cj, _, src, sj, _ = pair("mptcp", "--msgs", 50, "--acks")
    check(rc == 0 and src == 0, "mptcp --acks ok", cj, sj)
    check_client(cj, "mptcp")
    check(cj["flows"][0]["sock_protocol"] == 262, "an MPTCP socket", cj)
    check_latency(cj["latency"], 50, cj["elapsed_s"])


@test
def tcp_ipv6():
    rc, cj, _, src, sj, _ = pair("tcp", "--rr", "--msgs", 100, sargs=("-6",),
                                 addr="::1")
    check(rc == 0 and src == 0 and sj["family"] == "ipv6", "rr over ::1",
          cj, sj)
    check(cj["dst"].startswith("[::1]:"), "dst [::1]:PORT", cj)


@test
def latency_known_delays():
    """A fake server holds its replies for known times: the client's
    per-message latencies and their percentiles follow them."""
    delays_ms = [5 * (i + 1) for i in range(10)]
    srv = FakeServer(lambda seq, h: (time.sleep(delays_ms[seq] / 1e3),
                                     pattern(h[1], 0, h[5]))[1])
    srv.start()
    rc, out, err = run("client", "--proto", "tcp", "-a", "127.0.0.1", "-p",
                       srv.port, "--rr", "--msgs", 10, "--reply", 300)
    srv.join(10)
    check(not srv.errors, "the fake server read valid messages", srv.errors)
    check(rc == 0, "rr against the fake server", out, err)
    cj = one_json(out, "client")
    lat = cj["latency"]
    slack = 40
    for k, rank in (("min_us", 1), ("p50_us", 5), ("p99_us", 10),
                    ("max_us", 10)):
        d = delays_ms[rank - 1]
        check(d * 1e3 <= lat[k] <= (d + slack) * 1e3,
              "%s within %d ms above %d ms" % (k, slack, d), lat)
    check(sum(delays_ms) * 100 <= lat["mean_us"] <=
          (sum(delays_ms) / 10 + slack) * 1e3, "mean", lat)
    h = srv.headers
    check(len(h) == 10 and all(x[5] == 300 and x[6] == 10 for x in h),
          "headers: reply_len 300, flow_msgs 10", h[:2])


@test
def acks_known_delays():
    """--acks: the fake server acks message i after i * 10 ms; each
    message's time covers its delay, whatever the pipelining."""
    srv = FakeServer(lambda seq, h: (time.sleep(0.01),
                                     pattern(h[1], 0, 1))[1])
    srv.start()
    rc, out, err = run("client", "--proto", "tcp", "-a", "127.0.0.1", "-p",
                       srv.port, "--acks", "--msgs", 8, "--msg", 500)
    srv.join(10)
    check(rc == 0 and not srv.errors, "acks against the fake server", out,
          err, srv.errors)
    lat = one_json(out, "client")["latency"]
    check(lat["n"] == 8 and lat["min_us"] >= 10e3 and lat["max_us"] >= 80e3,
          "message i completes after (i + 1) x 10 ms", lat)


@test
def corrupt_reply():
    srv = FakeServer(lambda seq, h: pattern(h[1], 1, h[5]))
    srv.start()
    rc, out, err = run("client", "--proto", "tcp", "-a", "127.0.0.1", "-p",
                       srv.port, "--rr", "--msgs", 3, "--timeout", 5)
    srv.join(10)
    cj = one_json(out, "client")
    check(rc == 1 and not cj["ok"] and
          cj["flows"][0]["error"].startswith("reply: "),
          "a wrong reply fails the flow", cj)
    rc, out, _ = run("client", "--proto", "tcp", "-a", "127.0.0.1", "-p",
                     _fake_once(lambda seq, h: pattern(h[1], 1, h[5])),
                     "--rr", "--msgs", 3, "--no-verify")
    check(rc == 0, "--no-verify accepts it", out)


def _fake_once(answer):
    srv = FakeServer(answer)
    srv.start()
    return srv.port


@test
def stalled_server():
    srv = FakeServer(lambda seq, h: None)
    srv.start()
    t0 = time.time()
    rc, out, _ = run("client", "--proto", "tcp", "-a", "127.0.0.1", "-p",
                     srv.port, "--rr", "--msgs", 3, "--timeout", 0.5)
    cj = one_json(out, "client")
    check(rc == 1 and "timed out" in cj["flows"][0]["error"],
          "no reply for --timeout: ETIMEDOUT", cj)
    check(time.time() - t0 < 5, "gave up after about --timeout")


@test
def refused_and_server_timeout():
    port = free_port()
    rc, out, err = run("client", "--proto", "tcp", "-a", "127.0.0.1", "-p",
                       port, "--size", "1M")
    cj = one_json(out, "client")
    check(rc == 1 and cj["flows"][0]["error"] ==
          "connect: Connection refused" and "flow 1: connect" in err,
          "refused: exit 1, the error in JSON and report", cj, err)
    check_client(cj, "tcp")
    rc, out, _ = run("server", "--proto", "udp", "-p", port, "--count", 1,
                     "--timeout", 0.3)
    sj = one_json(out, "server")
    check(rc == 1 and sj["timed_out"] and not sj["ok"], "server timed out",
          sj)
    check_server(sj, "udp")


def build():
    p = subprocess.run(["make", "-s", "-C", HERE], capture_output=True,
                       text=True, timeout=120)
    if p.returncode:
        sys.exit("make -C %s failed:\n%s%s" % (HERE, p.stdout, p.stderr))


def main():
    global PERF, VERBOSE
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("-k", default="", help="only tests whose name has this")
    ap.add_argument("--perf", help="the mpdt-perf binary (default: build it)")
    a = ap.parse_args()
    VERBOSE = a.verbose
    if a.perf:
        PERF = os.path.abspath(a.perf)
    else:
        build()
    t0 = time.time()
    failed = 0
    for fn in TESTS:
        if a.k not in fn.__name__:
            continue
        t = time.time()
        try:
            fn()
            print("ok   %-32s %5.2f s" % (fn.__name__, time.time() - t))
        except (Fail, AssertionError, subprocess.TimeoutExpired,
                ValueError, KeyError, TypeError) as e:
            failed += 1
            print("FAIL %-32s %s: %s" % (fn.__name__, type(e).__name__, e))
    print("test_mpdt_perf: %d failed, %.1f s" % (failed, time.time() - t0))
    shutil.rmtree(TMP, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
