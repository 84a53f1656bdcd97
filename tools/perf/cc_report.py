#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""cc_report.py - the tables of tools/perf/cc_fct.sh.

    cc_report.py --out DIR --rate MBIT --size SIZE [--json FILE] KIND NAME...

KIND is incast, oversub, partial or loss; each NAME is a workload whose
results cc_fct.sh left in DIR: NAME.json (fct.py's summary), NAME/ (every
process's JSON), NAME.queue ("seconds backlog_bytes drops" samples of the
bottleneck port) and NAME.ce (CE marks the receivers counted).

--json FILE also writes every run as JSON (after the table, which it does
not change): {"kind": "cc_fct", "experiment": KIND, "rate_mbit", "size",
"queue_fields": ["t_s", "backlog_bytes", "drops"], "runs": [{"name",
"fct" (fct.py's summary), "steady" (steady.py's), "ce", "cwnd_mean",
"queue": [[t_s, backlog_bytes, drops], ...]}]}, the queue samples from the
first byte handed to a socket on (t_s 0); tools/perf/figures.py plots them.
"""
import argparse
import glob
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def last_json(text):
    lines = [l for l in text.strip().splitlines() if l.startswith("{")]
    return json.loads(lines[-1]) if lines else {}


def load(out, name):
    r = {"name": name}
    try:
        with open(os.path.join(out, name + ".json")) as f:
            r["fct"] = last_json(f.read())
    except OSError:
        r["fct"] = {}
    p = subprocess.run(["python3", os.path.join(HERE, "steady.py"),
                        os.path.join(out, name)], capture_output=True)
    r["steady"] = last_json(p.stdout.decode())
    r["queue"] = []
    try:
        with open(os.path.join(out, name + ".queue")) as f:
            r["queue"] = [(float(t), tc_bytes(b), int(d)) for t, b, d in
                          (l.split() for l in f if len(l.split()) == 3)]
    except (OSError, ValueError):
        pass
    try:
        with open(os.path.join(out, name + ".ce")) as f:
            r["ce"] = int(f.read().strip() or 0)
    except (OSError, ValueError):
        r["ce"] = None
    cwnds, starts = [], []
    for c in glob.glob(os.path.join(out, name, "client-*.json")):
        with open(c) as f:
            for flow in last_json(f.read()).get("flows", []):
                starts.append(flow["t_start_ns"] / 1e9)
                if "cwnd" in flow:
                    cwnds.append(flow["cwnd"])
    r["cwnd_mean"] = sum(cwnds) / len(cwnds) if cwnds else None
    # Queue samples from the first byte handed to a socket on.
    t0 = min(starts) if starts else 0
    r["queue"] = [(t - t0, b, d) for t, b, d in r["queue"] if t >= t0]
    return r


def tc_bytes(s):
    """tc's backlog: 1234, 47K or 1.2M (bytes, powers of 1024)."""
    mult = {"K": 1 << 10, "M": 1 << 20}
    return float(s[:-1]) * mult[s[-1]] if s[-1] in mult else float(s)


def size_bytes(s):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(s[:-1]) * mult[s[-1]] if s[-1] in mult else int(s)


def fmt(v, f):
    return "-" if v is None else f % v


def status(r):
    fct = r["fct"]
    if not fct:
        return "no result"
    return "ok" if not fct.get("failed") else "%d failed" % fct["failed"]


def queue_cols(q):
    if not q:
        return ["-"] * 5
    backlog = [b for _, b, _ in q]
    drops = q[-1][2] - q[0][2]
    times = [t for (t, _, d), (_, _, d0) in zip(q[1:], q) if d > d0]
    return ["%.1f" % (sum(backlog) / len(backlog) / 1e3),
            "%.1f" % (max(backlog) / 1e3), "%d" % drops,
            fmt(times[0] if times else None, "%.1f"),
            fmt(times[-1] if times else None, "%.1f")]


def incast(rows, a):
    print("\nincast 7->1 (bottleneck: the receiver's %g Mbit/s link)" % a.rate)
    print("%-24s %8s %6s %6s %7s %7s %6s %6s %6s %6s  %s" % (
        "workload", "goodput", "%link", "jain", "q_avgKB", "q_maxKB",
        "drops", "1st_s", "last_s", "retx", "status"))
    for r in rows:
        st = r["steady"]
        g = st.get("goodput_mbit")
        print("%-24s %8s %6s %6s %7s %7s %6s %6s %6s %6s  %s" % tuple(
            [r["name"], fmt(g, "%.2f"), fmt(g and 100 * g / a.rate, "%.0f"),
             fmt(st.get("jain"), "%.3f")] + queue_cols(r["queue"]) +
            [fmt(r["fct"].get("retransmits"), "%d"), status(r)]))
    print("(goodput: all bytes over the makespan, Mbit/s; jain: of the "
          "flows' steady rates;\n q_*: backlog of the port to the receiver, "
          "sampled every 0.2 s; drops counted every second;\n 1st_s/last_s: "
          "the first and the last second with drops, from the first byte)")


def oversub(rows, a):
    ideal = 4 * size_bytes(a.size) * 8 / (a.rate * 1e3)
    print("\npermutation, 4:1 oversubscribed (4 flows per %g Mbit/s "
          "uplink: ideal %.2f s)" % (a.rate, ideal / 1e3))
    print("%-24s %10s %8s %6s %8s %6s  %s" % (
        "workload", "max_fct_s", "x_ideal", "jain", "min/mean", "retx",
        "status"))
    for r in rows:
        fct, st = r["fct"], r["steady"]
        m = fct.get("fct_max_ms")
        print("%-24s %10s %8s %6s %8s %6s  %s" % (
            r["name"], fmt(m and m / 1e3, "%.2f"), fmt(m and m / ideal, "%.2f"),
            fmt(st.get("jain"), "%.3f"), fmt(st.get("min_over_mean"), "%.2f"),
            fmt(fct.get("retransmits"), "%d"), status(r)))


def partial(rows, a):
    offered = 3 * a.rate
    print("\npartial congestion: 3 senders, one of 4 uplinks at half rate "
          "(%g Mbit/s offered)" % offered)
    print("%-24s %8s %8s %8s %10s %6s  %s" % (
        "workload", "goodput", "%offer", "CE", "cwnd_mean", "retx",
        "status"))
    for r in rows:
        g = r["steady"].get("goodput_mbit")
        print("%-24s %8s %8s %8s %10s %6s  %s" % (
            r["name"], fmt(g, "%.2f"), fmt(g and 100 * g / offered, "%.0f"),
            fmt(r["ce"], "%d"), fmt(r["cwnd_mean"], "%.0f"),
            fmt(r["fct"].get("retransmits"), "%d"), status(r)))
    print("(cwnd_mean: the senders' final windows, bytes; CE: marks the "
          "receivers counted)")


def loss(rows, a):
    by = {r["name"]: r for r in rows}
    print("\n1% random loss on every link and direction: goodput against "
          "the lossless run")
    print("%-16s %10s %10s %7s %8s  %s" % (
        "workload", "lossless", "1% loss", "ratio", "retx", "status"))
    for r in rows:
        if not r["name"].startswith("loss-clean-"):
            continue
        tag = r["name"][len("loss-clean-"):]
        lossy = by.get("loss-1pct-" + tag, {"steady": {}, "fct": {}})
        g0 = r["steady"].get("goodput_mbit")
        g1 = lossy["steady"].get("goodput_mbit")
        print("%-16s %10s %10s %7s %8s  %s" % (
            tag, fmt(g0, "%.2f"), fmt(g1, "%.2f"),
            fmt(g0 and g1 and g1 / g0, "%.2f"),
            fmt(lossy["fct"].get("retransmits"), "%d"),
            status(lossy) if lossy.get("name") else "no result"))


def write_json(path, rows, a):
    doc = {"kind": "cc_fct", "experiment": a.kind, "rate_mbit": a.rate,
           "size": a.size, "queue_fields": ["t_s", "backlog_bytes", "drops"],
           "runs": [{"name": r["name"], "fct": r["fct"], "steady": r["steady"],
                     "ce": r["ce"], "cwnd_mean": r["cwnd_mean"],
                     "queue": [[round(t, 3), b, d] for t, b, d in r["queue"]]}
                    for r in rows]}
    try:
        with open(path, "w") as f:
            json.dump(doc, f, sort_keys=True)
            f.write("\n")
    except OSError as e:
        print("cc_report.py: %s: %s" % (path, e), file=sys.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--rate", type=float, required=True)
    ap.add_argument("--size", required=True)
    ap.add_argument("--json", metavar="FILE",
                    help="also write the runs, queue samples included, here")
    ap.add_argument("kind", choices=["incast", "oversub", "partial", "loss"])
    ap.add_argument("names", nargs="+")
    a = ap.parse_args()
    rows = [load(a.out, n) for n in a.names]
    {"incast": incast, "oversub": oversub, "partial": partial,
     "loss": loss}[a.kind](rows, a)
    if a.json:
        write_json(a.json, rows, a)


if __name__ == "__main__":
    main()
