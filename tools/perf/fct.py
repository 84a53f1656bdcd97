#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""fct.py - flow completion times from mpdt-perf's JSON.

usage: fct.py [--rate-mbit R] [--label TEXT] [--json-only] [--quiet]
              [--max-late-ms MS] PATH...

Each PATH is a file of mpdt-perf JSON lines (servers and clients, any
order) or a directory whose *.json files are read.  Flows are matched by
id.  For each flow:

    FCT   = server last_rx_ns - client t_start_ns
    ideal = client bytes * 8 / (R Mbit/s)

(all hosts share CLOCK_REALTIME: network namespaces of one machine).
Prints a table, a summary, and as its last line one JSON object (the
summary).  Exit status: 0 if every flow completed intact, 1 if not,
2 on bad input.  UDP flows need not be complete: their loss is reported.
"""

import argparse
import glob
import json
import math
import os
import sys


def load(paths):
    """All JSON objects of the given files and directories, with origin."""
    objs = []
    for p in paths:
        files = sorted(glob.glob(os.path.join(p, "*.json"))) \
            if os.path.isdir(p) else [p]
        for f in files:
            with open(f, encoding="utf-8") as fh:
                for n, line in enumerate(fh, 1):
                    line = line.strip()
                    if not line:
                        continue
                    try:
                        o = json.loads(line)
                    except ValueError as e:
                        raise SystemExit("%s:%d: %s" % (f, n, e)) from e
                    if isinstance(o, dict) and o.get("role") in \
                            ("server", "client"):
                        o["_file"] = os.path.basename(f)
                        objs.append(o)
    return objs


def pct(sorted_vals, p):
    """Nearest-rank percentile of an ascending list."""
    if not sorted_vals:
        return None
    k = max(0, math.ceil(p / 100.0 * len(sorted_vals)) - 1)
    return sorted_vals[k]


def host_of(obj):
    """The host an output came from: its file name, less role and .json."""
    name = obj["_file"]
    if name.endswith(".json"):
        name = name[:-5]
    for prefix in ("server-", "client-"):
        if name.startswith(prefix):
            name = name[len(prefix):]
    return name


def rnd(v, nd=3):
    return None if v is None else round(v, nd)


def analyse(objs, rate_mbit, max_late_ms):
    servers = [o for o in objs if o["role"] == "server"]
    clients = [o for o in objs if o["role"] == "client"]
    problems = []
    warnings = []
    sflows = {}
    for s in servers:
        for f in s["flows"]:
            if f["id"] in sflows:
                problems.append("flow id %d received by two servers"
                                % f["id"])
            sflows[f["id"]] = (s, f)
        if s.get("timed_out"):
            problems.append("server %s timed out (%d of %d flows)"
                            % (host_of(s), s["flows_done"], s["count"]))
        if s.get("bad_msgs"):
            problems.append("server %s: %d bad messages"
                            % (host_of(s), s["bad_msgs"]))

    rows = []
    seen = set()
    for c in clients:
        for f in c["flows"]:
            fid = f["id"]
            if fid in seen:
                problems.append("flow id %d sent by two clients" % fid)
            seen.add(fid)
            r = {
                "id": fid,
                "proto": f.get("proto", c.get("proto")),
                "client": host_of(c),
                "dst": c.get("dst"),
                "bytes": f["bytes"] or c["size"],
                "t_start_ns": f["t_start_ns"],
                "late_ms": f.get("late_ns", 0) / 1e6,
                "retransmits": f.get("retransmits"),
                "lb": f.get("lb"),
                "cc": f.get("cc"),
                "error": f.get("error"),
                "ok": bool(f.get("ok")),
                "fct_ms": None,
                "ratio": None,
            }
            sf = sflows.get(fid)
            if sf is None:
                r["ok"] = False
                r["error"] = r["error"] or "no server saw this flow"
            else:
                srv, sfl = sf
                r["server"] = host_of(srv)
                r["rx_bytes"] = sfl["bytes"]
                if r["proto"] == "udp":
                    r["loss"] = sfl.get("loss")
                    r["rx_mbps"] = sfl.get("rx_mbps")
                if not sfl["ok"]:
                    r["ok"] = False
                    why = "incomplete" if not sfl["complete"] else \
                        "corrupt %d dups %d" % (sfl["corrupt"], sfl["dups"])
                    r["error"] = r["error"] or sfl.get("error") or why
                if sfl["last_rx_ns"] and f["t_start_ns"]:
                    fct = (sfl["last_rx_ns"] - f["t_start_ns"]) / 1e6
                    r["fct_ms"] = fct
                    r["last_rx_ns"] = sfl["last_rx_ns"]
                    if rate_mbit:
                        ideal = r["bytes"] * 8 / (rate_mbit * 1e3)
                        r["ideal_ms"] = ideal
                        r["ratio"] = fct / ideal
            if max_late_ms is not None and r["late_ms"] > max_late_ms:
                warnings.append("flow %d started %.1f ms late"
                                % (fid, r["late_ms"]))
            rows.append(r)
    for fid in sflows:
        if fid not in seen:
            problems.append("flow id %d: no client output" % fid)
    rows.sort(key=lambda r: r["id"])

    fcts = sorted(r["fct_ms"] for r in rows if r["fct_ms"] is not None)
    ratios = sorted(r["ratio"] for r in rows if r["ratio"] is not None)
    summ = {
        "flows": len(rows),
        "ok": sum(r["ok"] for r in rows),
        "failed": sum(not r["ok"] for r in rows),
        "protos": sorted({r["proto"] for r in rows}),
        "rate_mbit": rate_mbit,
        "fct_max_ms": rnd(fcts[-1] if fcts else None),
        "fct_mean_ms": rnd(sum(fcts) / len(fcts) if fcts else None),
        "fct_p50_ms": rnd(pct(fcts, 50)),
        "fct_p99_ms": rnd(pct(fcts, 99)),
        "ratio_max": rnd(ratios[-1] if ratios else None),
        "ratio_mean": rnd(sum(ratios) / len(ratios) if ratios else None),
        "ratio_p99": rnd(pct(ratios, 99)),
        "late_max_ms": rnd(max((r["late_ms"] for r in rows), default=None)),
    }
    lbs = sorted({r["lb"] for r in rows if r["lb"]})
    ccs = sorted({r["cc"] for r in rows if r["cc"]})
    if lbs:
        summ["lb"] = lbs
        summ["cc"] = ccs
    retx = [r["retransmits"] for r in rows if r["retransmits"] is not None]
    summ["retransmits"] = sum(retx) if retx else None
    # The whole workload against the busiest host link.
    done = [r for r in rows if r.get("last_rx_ns")]
    if done and rate_mbit:
        t0 = min(r["t_start_ns"] for r in done)
        t1 = max(r["last_rx_ns"] for r in done)
        into, out = {}, {}
        for r in rows:
            dst = r.get("server", r["dst"])
            into[dst] = into.get(dst, 0) + r["bytes"]
            out[r["client"]] = out.get(r["client"], 0) + r["bytes"]
        busiest = max(list(into.values()) + list(out.values()))
        bound = busiest * 8 / (rate_mbit * 1e3)
        summ["makespan_ms"] = rnd((t1 - t0) / 1e6)
        summ["makespan_bound_ms"] = rnd(bound)
        summ["makespan_ratio"] = rnd((t1 - t0) / 1e6 / bound)
    losses = [r["loss"] for r in rows if r.get("loss") is not None]
    if losses:
        summ["loss_mean"] = rnd(sum(losses) / len(losses), 4)
        summ["loss_max"] = rnd(max(losses), 4)
        rx = [r["rx_mbps"] for r in rows if r.get("rx_mbps")]
        summ["rx_mbps_mean"] = rnd(sum(rx) / len(rx) if rx else None)
    summ["problems"] = problems
    summ["warnings"] = warnings
    return rows, summ


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def print_table(rows, summ, label):
    if label:
        print("== %s" % label)
    print("%6s %-6s %-16s %-22s %10s %10s %7s %6s  %s" %
          ("id", "proto", "client", "dst", "bytes", "fct_ms", "x_ideal",
           "retx", "status"))
    for r in rows:
        status = "ok" if r["ok"] else "FAIL: %s" % r["error"]
        if r.get("loss") is not None:
            status += " loss %.1f%% rx %.2f Mbit/s" % (
                100 * r["loss"], r["rx_mbps"] or 0)
        print("%6d %-6s %-16.16s %-22.22s %10d %10s %7s %6s  %s" %
              (r["id"], r["proto"], r["client"], r["dst"] or "-",
               r["bytes"], fmt(r["fct_ms"], ".1f"), fmt(r["ratio"], ".2f"),
               fmt(r["retransmits"], "d"), status))
    print("flows %d (%d failed); FCT max %s ms, mean %s ms, p99 %s ms; "
          "x ideal: max %s, mean %s, p99 %s" %
          (summ["flows"], summ["failed"], fmt(summ["fct_max_ms"], ".1f"),
           fmt(summ["fct_mean_ms"], ".1f"), fmt(summ["fct_p99_ms"], ".1f"),
           fmt(summ["ratio_max"], ".2f"), fmt(summ["ratio_mean"], ".2f"),
           fmt(summ["ratio_p99"], ".2f")))
    if "makespan_ms" in summ:
        print("makespan %.1f ms = %.2f x the busiest host link's bound "
              "(%.1f ms)" % (summ["makespan_ms"], summ["makespan_ratio"],
                             summ["makespan_bound_ms"]))
    for p in summ["problems"]:
        print("problem: %s" % p)
    for w in summ["warnings"]:
        print("warning: %s" % w)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rate-mbit", type=float, default=0,
                    help="host link rate, for the ideal FCT")
    ap.add_argument("--label", default="", help="a title for the output")
    ap.add_argument("--json-only", action="store_true",
                    help="print only the summary JSON line")
    ap.add_argument("--flows-json", action="store_true",
                    help="add the per-flow rows to the JSON line")
    ap.add_argument("--max-late-ms", type=float, default=None,
                    help="warn if a client started this late")
    ap.add_argument("paths", nargs="+", metavar="PATH")
    a = ap.parse_args()

    objs = load(a.paths)
    if not objs:
        print("fct.py: no mpdt-perf output in %s" % " ".join(a.paths),
              file=sys.stderr)
        return 2
    rows, summ = analyse(objs, a.rate_mbit, a.max_late_ms)
    if a.label:
        summ["label"] = a.label
    if a.flows_json:
        summ["per_flow"] = [{k: (rnd(v) if isinstance(v, float) else v)
                             for k, v in r.items()} for r in rows]
    if not a.json_only:
        print_table(rows, summ, a.label)
    print(json.dumps(summ, sort_keys=True))
    return 0 if summ["flows"] and not summ["failed"] and \
        not summ["problems"] else 1


if __name__ == "__main__":
    sys.exit(main())
