#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""steady.py - goodput and fairness of one workload.sh result directory.

    steady.py DIR

Prints one line of JSON: "goodput_mbit", every byte received over the
makespan (the earliest client start to the latest arrival); "rates_mbit",
each flow's steady rate, what arrived between its first and its last
message (so the first message, the ramp-up and a late start are left
out: flows sharing a bottleneck fairly get equal steady rates whichever
started or ended first); "jain", Jain's fairness index of those rates;
"min_over_mean", the slowest rate over the mean.  A flow needs two
messages or more (mpdt-perf -m).
"""
import glob
import json
import sys


def objects(pattern):
    for name in sorted(glob.glob(pattern)):
        with open(name) as f:
            for line in f:
                if line.startswith("{"):
                    yield json.loads(line)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    starts, msg = {}, {}
    for c in objects(d + "/client-*.json"):
        for f in c["flows"]:
            starts[f["id"]] = f["t_start_ns"]
            msg[f["id"]] = c["msg"]
    rates, total, end = [], 0, 0
    for s in objects(d + "/server-*.json"):
        for f in s["flows"]:
            span = f["last_rx_ns"] - f["first_rx_ns"]
            if span > 0:
                rates.append((f["bytes"] - msg[f["id"]]) * 8 / (span / 1e3))
            total += f["bytes"]
            end = max(end, f["last_rx_ns"])
    if not rates or not starts:
        sys.exit("steady.py: no flow with two messages in " + d)
    mean = sum(rates) / len(rates)
    print(json.dumps({
        "flows": len(rates),
        "goodput_mbit": round(total * 8 / ((end - min(starts.values())) / 1e3), 3),
        "rates_mbit": [round(r, 3) for r in rates],
        "jain": round(sum(rates) ** 2 / (len(rates) * sum(r * r for r in rates)), 4),
        "min_over_mean": round(min(rates) / mean, 4),
    }))


if __name__ == "__main__":
    main()
