#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""spread.py - run-to-run spread of the kselftests' measurements.

    spread.py [--markdown] [--json FILE] LOG...

Reads the "measure: TEST QUANTITY VALUE [(asserted OP THRESHOLD[, OP
THRESHOLD])]" lines
that selftests/net/lib.sh's measure() prints (in kselftest output, a
console.log, a check-vm.log: any prefix before "measure:" is ignored);
each line is one run's value.  Prints, per test and quantity: the runs,
the values, their spread (max - min), and

  asserted   the threshold the kselftest asserts, its margin (the distance
             from the worst value measured to the threshold) and margin /
             spread: Documentation/testing.rst requires >= 2 ("ok"),
             otherwise "TOO CLOSE"; "> 0" or ">= 0.01" (something happened
             at all, by the test's construction) is only checked in every
             run;
  target     the threshold a kselftest used to assert (a paper's claim)
             and now only reports, or reports beside a weaker assertion,
             judged here: in how many runs it was met.  A benchmark
             verdict, never a failure.

--json FILE also writes the values and verdicts as JSON, with the packets
per spine the logs show (fabric_spray's "LB: uplink shares (%): ...",
fabric_adapt's "LB: uplinks N...; slow link share", fabric_selftest's
"IPv4, ...: leaf 1 -> spines: N..."): tools/perf/figures.py plots them.

Exit status 1 if an asserted threshold was missed in some run or has a
margin below twice the spread, else 0.
"""
import json
import os
import re
import sys

# Thresholds moved out of the kselftests (TEST, QUANTITY): (OP, VALUE).
TARGETS = {
    ("fabric_cc", "incast_strack_goodput_pct"): (">=", 85),
    ("fabric_cc", "incast_smartt_goodput_pct"): (">=", 85),
    ("fabric_cc", "incast_strack_jain"): (">=", 0.8),
    ("fabric_cc", "incast_smartt_jain"): (">=", 0.9),
    ("fabric_cc", "oversub_strack_min_over_mean"): (">=", 0.5),
    ("fabric_cc", "oversub_smartt_min_over_mean"): (">=", 0.5),
    ("fabric_cc", "partial_mcc_goodput_pct"): (">=", 85),
    # MCC's start window (4 chunks of 8 KB): not cut for good
    ("fabric_cc", "partial_mcc_mean_cwnd"): (">=", 32768),
    ("fabric_adapt", "avoid_reps_share_over_oblivious"): ("<", 0.8),
    ("fabric_adapt", "avoid_prime_share_over_oblivious"): ("<", 0.8),
    ("fabric_adapt", "failure_reps_lost_over_oblivious"): ("<", 0.5),
    ("fabric_adapt", "failure_prime_lost_over_oblivious"): ("<", 0.5),
    ("fabric_adapt", "avoid_reps_secs_over_oblivious"): ("<", 1),
    ("fabric_adapt", "avoid_prime_secs_over_oblivious"): ("<", 1),
    ("fabric_selftest", "ecmp_ipv4_min_share_pct"): (">=", 15),
    ("fabric_selftest", "ecmp_ipv4_max_share_pct"): ("<=", 35),
    ("fabric_selftest", "ecmp_ipv6_min_share_pct"): (">=", 15),
    ("fabric_selftest", "ecmp_ipv6_max_share_pct"): ("<=", 35),
    ("fabric_selftest", "tcp_goodput_mbit"): (">=", 6),
    ("fabric_selftest", "ecn_tcp_sum_mbit"): (">=", 6),
    ("fabric_selftest", "tcp_degraded_mbit"): (">=", 1.5),
    ("fabric_selftest", "udp_2x_rate_mbit"): (">=", 8.5),
    ("fabric_selftest", "udp_degraded_mbit"): (">=", 2.55),
}

LINE = re.compile(r"measure: (\S+) (\S+) (-?[0-9.]+)(?: \(asserted ([^)]*)\))?")
COND = re.compile(r"(>=|>|<=|<) (-?[0-9.]+)")
# Packets per spine (leaf 1's uplinks) that a test logs: (test, regex with
# the case and the numbers, unit of the numbers, case label format).
SPINES = [
    ("fabric_spray", re.compile(r"(\S+): uplink shares \(%\): ([0-9. ]+)"),
     "percent", "%s"),
    ("fabric_adapt", re.compile(r"(\S+): uplinks ([0-9 ]+); slow link share"),
     "packets", "%s"),
    ("fabric_selftest", re.compile(
        r"IPv([46]), \d+ source ports .*: leaf 1 -> spines: ([0-9 ]+)"),
     "packets", "ecmp IPv%s"),
]
OPS = {
    ">=": lambda a, b: a >= b, ">": lambda a, b: a > b,
    "<=": lambda a, b: a <= b, "<": lambda a, b: a < b,
}


def fmt(x):
    return ("%.3f" % x).rstrip("0").rstrip(".")


def spine_line(line, seen, spines):
    """A per-spine line of one log: its values into spines[(test, case)],
    a case seen again in the same log (fabric_spray's second oblivious
    transfer, on paths of unequal length) as "CASE #2"."""
    for test, rx, unit, label in SPINES:
        m = rx.search(line)
        if not m:
            continue
        case = label % m.group(1)
        seen[(test, case)] = seen.get((test, case), 0) + 1
        if seen[(test, case)] > 1:
            case += " #%d" % seen[(test, case)]
        rec = spines.setdefault((test, case), {
            "test": test, "case": case, "unit": unit, "runs": []})
        rec["runs"].append([float(x) for x in m.group(2).split()])
        return


def write_json(path, files, rows, vals, spines):
    doc = {"kind": "spread", "logs": [os.path.basename(f) for f in files],
           "measures": [{"test": r[0], "quantity": r[1], "runs": r[2],
                         "values": vals[(r[0], r[1])],
                         "spread": float(r[4]), "verdict": r[5]}
                        for r in rows],
           "spines": list(spines.values())}
    try:
        with open(path, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    except OSError as e:
        print("spread.py: %s: %s" % (path, e), file=sys.stderr)


def main():
    args = sys.argv[1:]
    md = "--markdown" in args
    json_out = None
    if "--json" in args:
        i = args.index("--json")
        if i + 1 >= len(args):
            sys.exit(__doc__)
        json_out = args[i + 1]
        del args[i:i + 2]
    files = [a for a in args if a != "--markdown"]
    if not files:
        sys.exit(__doc__)
    vals, asserted, spines = {}, {}, {}
    for name in files:
        seen = {}
        with open(name, errors="replace") as f:
            for line in f:
                if json_out:
                    spine_line(line, seen, spines)
                m = LINE.search(line)
                if not m:
                    continue
                key = (m.group(1), m.group(2))
                vals.setdefault(key, []).append(float(m.group(3)))
                # the last run's assertions (an older log may differ)
                asserted[key] = [(op, float(thr)) for op, thr in
                                 COND.findall(m.group(4) or "")]
    bad = False
    rows = []
    for key in sorted(vals):
        v = vals[key]
        lo, hi = min(v), max(v)
        spread = hi - lo
        verdict = ""
        for op, thr in asserted.get(key, []):
            if op in (">", ">=") and 0 <= thr <= 0.01:
                # "> 0": it happened at all (a count, a flow that got
                # through), which the test's construction guarantees;
                # not a threshold on a performance figure.
                missed = sum(not OPS[op](x, thr) for x in v)
                bad = bad or missed > 0
                verdict += "%sasserted %s %s (by construction)%s" % (
                    "; " if verdict else "", op, fmt(thr),
                    ": MISSED in %d runs" % missed if missed else ": ok")
                continue
            margin = lo - thr if op in (">=", ">") else thr - hi
            missed = sum(not OPS[op](x, thr) for x in v)
            ok = missed == 0 and margin >= 2 * spread
            bad = bad or not ok
            verdict += "%sasserted %s %s: margin %s = %s x spread%s, %s" % (
                "; " if verdict else "", op, fmt(thr), fmt(margin),
                "inf" if spread == 0 else fmt(margin / spread),
                ", missed in %d runs" % missed if missed else "",
                "ok" if ok else "TOO CLOSE")
        if key in TARGETS:
            op, thr = TARGETS[key]
            met = sum(OPS[op](x, thr) for x in v)
            verdict += "%starget %s %s: met in %d of %d runs" % (
                "; " if verdict else "", op, fmt(thr), met, len(v))
        rows.append((key[0], key[1], len(v), " ".join(fmt(x) for x in v),
                     fmt(spread), verdict))
    if md:
        print("| test | quantity | runs | values | spread | verdict |")
        print("|---|---|---:|---|---:|---|")
        for r in rows:
            print("| %s | %s | %d | %s | %s | %s |" % r)
    else:
        for r in rows:
            print("%-16s %-36s %2d  %-40s spread %-8s %s" % r)
    if json_out:
        write_json(json_out, files, rows, vals, spines)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
