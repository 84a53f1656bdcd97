#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""experiments.py - the five papers' headline experiments in the ns-3 model.

usage: experiments.py --sim BIN [--quick] [--check] [--out DIR] [-j N]
                      [--only NAME...]

Runs tools/sim's mpdt-sim (the module's engine on ns-3 hosts and
switches) once per case of every experiment, in parallel (-j, default the
number of CPUs), and writes into --out (default build/sim):
  quick.json or full.json  every run's row (mpdt-sim's JSON object)
  tables.txt               the table printed for each experiment
  EXPERIMENT.png           one figure per experiment
Each run's row is also kept in --cache (default build/sim/runs/), keyed
by the binary and the run's arguments: an interrupted run resumes, and a
rebuilt binary runs everything again.
--quick runs the small versions (minutes on 2 cores), otherwise the
papers' scale as far as one machine goes (128 hosts, 17 minutes on 2
cores).
--check asserts what must hold (every message delivered; spraying beats
one path per flow on the permutation; REPS loses fewer packets than
oblivious spraying after a link failure) and exits 1 if it does not.
The simulation is deterministic: the same binary and seed give the same
rows.  The module's defaults throughout, except the policy each case
names.  Exit status: 0 ok, 1 a check failed or a run failed, 2 usage.
"""
import argparse
import concurrent.futures
import hashlib
import json
import math
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "perf"))
import figures  # noqa: E402  (matplotlib set-up shared with tools/perf)

GBPS = ["--host-gbps", "100", "--delay-us", "1"]
# STrack §4.1: drop above 5 BDP, mark from 25% to 75% of a BDP (the
# model's defaults); SMaRTT §4 and PRIME §IV: a port of one BDP, marked
# from 20% to 80% of it, trimming when full.
SMARTT_QUEUE = ["--queue-bdp", "1", "--kmin-pct", "20", "--kmax-pct", "80"]
MIB = 1 << 20


def leaf_spine(leaves, per_leaf, spines, fabric_gbps=100):
    return ["--topo", "leafspine", "--leaves", str(leaves), "--per-leaf",
            str(per_leaf), "--spines", str(spines), "--fabric-gbps",
            str(fabric_gbps)]


def fat_tree(k):
    return ["--topo", "fattree", "--k", str(k)]


def case(label, *args):
    return {"label": label, "args": [str(a) for a in args]}


def lb(name):
    return ["--set", "lb=" + name]


def cc(name):
    return ["--set", "cc=" + name]


# ---------------------------------------------------------------------------
# The experiments: name, the paper's claim, the cases (quick or full).

def told(base_rtt_us):
    """The papers' setting: every sender knows the link speed and the
    fabric's base RTT (STrack §2.2.2 starts at its largest window, one
    BDP) and sprays every packet, as their NICs do; MPDT's default bursts
    of up to 16 packets per entropy trade that granularity for the
    software stack's cost per packet (GSO, design.rst section 2)."""
    return ["--set", "link-mbps=100000", "--set",
            "base-rtt-us=%d" % base_rtt_us, "--set", "burst-pkts=1"]


def spray_cases(base_rtt_us):
    """@base_rtt_us: the fabric's longest base RTT, rounded up."""
    return [case("rocev2-like", *lb("ecmp")),
            case("strack", *lb("bitmap")),
            case("strack, told the fabric", *lb("bitmap"),
                 *told(base_rtt_us)),
            case("oblivious", *lb("oblivious")),
            case("oblivious, told the fabric", *lb("oblivious"),
                 *told(base_rtt_us)),
            case("reps", *lb("reps")),
            case("dctcp", "--transport", "dctcp")]


def strack_permutation(quick):
    # With their base RTTs (4 and 6 links each way at 1 us and 100 Gbit/s).
    if quick:
        fabrics = [(leaf_spine(4, 8, 8), 9)]
        size = MIB
    else:
        # STrack's gains show from 16 MB up (Fig. 9); 4 MiB keeps the
        # 128-host runs to minutes (ns-3's DCTCP is the slowest).
        fabrics = [(leaf_spine(8, 16, 16), 9), (fat_tree(8), 14)]
        size = 4 * MIB
    return [dict(c, args=f + GBPS + ["--pattern", "permutation",
                                     "--msg-bytes", str(size)] + c["args"])
            for f, rtt in fabrics for c in spray_cases(rtt)]


def strack_alltoall(quick):
    f = leaf_spine(2, 8, 4) if quick else leaf_spine(4, 16, 16)
    return [dict(c, args=f + GBPS + ["--pattern", "alltoall", "--msg-bytes",
                                     str(64 << 10)] + c["args"])
            for c in spray_cases(9)]


def reps_failure(quick):
    # SMaRTT-REPS §4.1.1: 100G hosts, 400G uplinks, every flow crosses the
    # spines, one uplink goes down abruptly mid-run.
    f = leaf_spine(2, 8, 4, 200) if quick else leaf_spine(2, 32, 8, 400)
    base = f + GBPS + ["--pattern", "cross", "--msg-bytes", str(4 * MIB),
                       "--fail", "1", "--fail-at-us", "20"] + cc("smartt")
    return [case(name, *base, *lb(name))
            for name in ("oblivious", "reps", "bitmap")]


def prime_degraded(quick):
    # PRIME §IV-A2: a share of the links degraded; trimming above one BDP.
    # §III-D: a leaf takes its uplink from the EV's part (--ev-parts), and
    # PRIME is told the uplinks per tier; on switches that hash the source
    # port a penalised EV leaves its uplink the other EVs hashed there.
    if quick:
        f, spines, n, size = leaf_spine(4, 8, 8), 8, 4, MIB
    else:
        f, spines, n, size = leaf_spine(8, 16, 16), 16, 16, 2 * MIB
    base = f + GBPS + SMARTT_QUEUE + ["--trim", "--pattern", "permutation",
                                      "--msg-bytes", str(size), "--degrade",
                                      str(n), "--degrade-frac", "0.25"]
    hashed = base + lb("prime") + cc("smartt")
    base = base + ["--ev-parts"] + cc("smartt")
    algos = [("oblivious", lb("oblivious")), ("reps", lb("reps")),
             ("prime", lb("prime") + ["--set", "prime-uplinks=%d" % spines])]
    return [case(name, *base, *algo) for name, algo in algos] + \
        [case(name + ", told the fabric", *base, *algo, *told(9))
         for name, algo in algos] + \
        [case("prime, hashing switches", *hashed)]


def paralet_m(quick):
    # ParaLet §4.1: every host sends one flow across the ToRs.  Eq. 1 is
    # the slowdown from collisions alone: each case's max FCT over that
    # of one flow alone on the idle fabric, which takes out what the
    # flows' start-up costs.
    f = leaf_spine(4, 8, 8) if quick else leaf_spine(8, 16, 16)
    ms = (1, 4, 16) if quick else (1, 2, 4, 8, 16, 32)
    base = f + GBPS + ["--pattern", "cross", "--msg-bytes", str(2 * MIB)]
    rows = [case("ecmp", *base, *lb("ecmp"))]
    for m in ms:
        algo = lb("paralet") + ["--set", "paralet-m=%d" % m]
        rows.append(case("m=%d" % m, *base, *algo))
        rows.append(case("m=%d alone" % m, *base, *algo, "--flows", "1"))
    return rows


def mcc_partial(quick):
    # MCC §2.2: one of four paths at half rate, every flow crosses it.
    f = leaf_spine(2, 4, 4) if quick else leaf_spine(2, 8, 4, 200)
    size = 2 * MIB if quick else 8 * MIB
    base = f + GBPS + ["--pattern", "cross", "--msg-bytes", str(size),
                       "--degrade", "1", "--degrade-frac", "0.5"] + \
        lb("oblivious")
    return [case(name, *base, *cc(name))
            for name in ("mcc", "strack", "smartt")]


def smartt_incast(quick):
    # SMaRTT §4.2 (Fig. 8): 16:1 incast of 512 KiB, with and without
    # trimming (md doubled without, as the parameters say).
    degrees = (16,) if quick else (16, 32, 64)
    rows = []
    for n in degrees:
        f = leaf_spine(2, max(16, n // 2 + 1), 4, 400)
        base = f + GBPS + SMARTT_QUEUE + ["--pattern", "incast", "--senders",
                                          str(n), "--msg-bytes",
                                          str(512 << 10)] + \
            lb("oblivious") + cc("smartt")
        rows.append(case("%d:1 trim" % n, *base, "--trim"))
        rows.append(case("%d:1 no trim" % n, *base))
    return rows


EXPERIMENTS = [
    ("strack-permutation", strack_permutation,
     "STrack §4.2 (Fig. 9): max FCT up to 6.3x better than RoCEv2; "
     "adaptive spraying up to 33% better than oblivious"),
    ("strack-alltoall", strack_alltoall,
     "STrack §4.3: all-to-all up to 79% better than RoCEv2 (collectives)"),
    ("reps-failure", reps_failure,
     "SMaRTT-REPS §4.1.1 (Fig. 7c): REPS drops an order of magnitude fewer "
     "packets than oblivious spraying after a link failure"),
    ("prime-degraded", prime_degraded,
     "PRIME §IV-A2 (Fig. 11): PRIME beats REPS and oblivious spraying on "
     "degraded links (the paper's numbers are lost in its text)"),
    ("paralet-m", paralet_m,
     "ParaLet §4.1 (Eq. 1): slowdown 1 + z/sqrt(m), z = Phi^-1(1 - 1/N)"),
    ("mcc-partial", mcc_partial,
     "MCC §5 (Fig. 6): up to 22% more throughput under partial congestion"),
    ("smartt-incast", smartt_incast,
     "SMaRTT §4.2 (Figs. 8-9): without trimming an incast ends about one "
     "base RTT later, always within two"),
]


# ---------------------------------------------------------------------------
# Running

def run_one(sim, name, c, seed, cache):
    """One run's row; a row already in @cache (a directory) for the same
    binary and arguments is reused, so an interrupted run resumes."""
    cmd = [sim, "--experiment", name, "--label", c["label"], "--seed",
           str(seed)] + c["args"]
    st = os.stat(sim)
    key = hashlib.sha256(json.dumps([st.st_size, st.st_mtime_ns] +
                                    cmd[1:]).encode()).hexdigest()[:20]
    path = os.path.join(cache, key + ".json")
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    p = subprocess.run(cmd, capture_output=True, text=True)
    lines = p.stdout.strip().splitlines()
    if not lines or not lines[-1].startswith("{"):
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), p.returncode,
                                                p.stderr.strip()[-500:]))
    with open(path + ".tmp", "w") as f:
        f.write(lines[-1])
    os.replace(path + ".tmp", path)
    return json.loads(lines[-1])


def run_all(sim, exps, quick, jobs, seed, cache):
    todo = [(name, c) for name, make, _ in exps for c in make(quick)]
    os.makedirs(cache, exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        futures = [pool.submit(run_one, sim, name, c, seed, cache)
                   for name, c in todo]
        return [f.result() for f in futures]


# ---------------------------------------------------------------------------
# Tables, checks and figures

def fmt(v):
    if v is None:
        return "-"
    return "%.2f" % v if isinstance(v, float) else str(v)


def table(rows, cols):
    head = [c for c, _ in cols]
    body = [[fmt(get(r)) for _, get in cols] for r in rows]
    widths = [max(len(x) for x in col) for col in zip(head, *body)]
    lines = ["  ".join(x.ljust(w) for x, w in zip(line, widths)).rstrip()
             for line in [head] + body]
    return "\n".join(lines)


def paralet_predicted(hosts, m):
    """ParaLet Eq. 1: 1 + Phi^-1(1 - 1/N) / sqrt(m)."""
    return 1 + statistics.NormalDist().inv_cdf(1 - 1 / hosts) / math.sqrt(m)


def m_of(row):
    label = row["label"].split()[0]
    return int(label[2:]) if label.startswith("m=") else 1


def annotate(rows):
    """ParaLet's rows get Eq. 1's prediction and the measured slowdown:
    the max FCT over that of the same m's flow alone."""
    for r in rows:
        if r["experiment"] != "paralet-m" or r["label"].endswith("alone"):
            continue
        alone = [a for a in rows if a["experiment"] == r["experiment"] and
                 a["topology"] == r["topology"] and
                 a["label"] == r["label"] + " alone"]
        if alone and alone[0]["max_fct_us"]:
            r["slowdown"] = r["max_fct_us"] / alone[0]["max_fct_us"]
            r["predicted"] = paralet_predicted(r["hosts"], m_of(r))


COMMON_COLS = [
    ("case", lambda r: r["label"]),
    ("done", lambda r: "%d/%d" % (r["completed"], r["expected"])),
    ("max FCT/ideal", lambda r: r["max_fct_over_ideal"]),
    ("mean", lambda r: r["mean_fct_over_ideal"]),
    ("drops", lambda r: r["queue_drops"]),
    ("retx", lambda r: r["retx"]),
    ("rtos", lambda r: r["rtos"]),
]
EXTRA_COLS = {
    "reps-failure": [("lost on failed link", lambda r: r["blackholed"]),
                     ("of them DATA", lambda r: r["blackholed_data"])],
    "prime-degraded": [("trimmed", lambda r: r["trimmed"])],
    "paralet-m": [("slowdown", lambda r: r.get("slowdown")),
                  ("Eq. 1", lambda r: r.get("predicted")),
                  ("reordered %", lambda r: 100.0 * r["rx_reordered"] /
                   max(1, r["rx_data"]))],
    "mcc-partial": [("Gbit/s per flow", lambda r: r["mean_flow_gbps"]),
                    ("jain", lambda r: r["jain"]),
                    ("window cuts", lambda r: r["cwnd_cuts"]),
                    ("CE marks", lambda r: r["rx_ce"])],
    "smartt-incast": [("max FCT us", lambda r: r["max_fct_us"]),
                      ("jain", lambda r: r["jain"]),
                      ("trimmed", lambda r: r["trimmed"])],
}


def topology_text(row):
    """The fabric and, unless its description says it, the host count."""
    t = row["topology"]
    return t if t.endswith("%d hosts" % row["hosts"]) else \
        "%s (%d hosts)" % (t, row["hosts"])


def tables(exps, rows):
    out = []
    for name, _, claim in exps:
        mine = [r for r in rows if r["experiment"] == name]
        for topo in sorted({r["topology"] for r in mine}):
            sel = [r for r in mine if r["topology"] == topo]
            out.append("== %s: %s, %s Gbit/s, %s ==\n%s\n%s\n" % (
                name, topology_text(sel[0]), fmt(sel[0]["link_gbps"]),
                sel[0]["pattern"], claim,
                table(sel, COMMON_COLS + EXTRA_COLS.get(name, []))))
    return "\n".join(out)


def checks(rows):
    """What must hold; deterministic, so any failure is a regression."""
    bad = []
    for r in rows:
        if r["completed"] != r["expected"]:
            bad.append("%s/%s: %d of %d messages delivered" % (
                r["experiment"], r["label"], r["completed"], r["expected"]))

    def pick(exp, label):
        return [r for r in rows if r["experiment"] == exp and
                r["label"] == label]

    for single, sprayed in zip(pick("strack-permutation", "rocev2-like"),
                               pick("strack-permutation", "strack")):
        if sprayed["max_fct_over_ideal"] >= single["max_fct_over_ideal"]:
            bad.append("strack-permutation (%s): sprayed max FCT %.2f not "
                       "below one path per flow %.2f" % (
                           sprayed["topology"],
                           sprayed["max_fct_over_ideal"],
                           single["max_fct_over_ideal"]))
    for obl, reps in zip(pick("reps-failure", "oblivious"),
                         pick("reps-failure", "reps")):
        if reps["blackholed"] >= obl["blackholed"]:
            bad.append("reps-failure: REPS lost %d packets on the failed "
                       "link, oblivious %d" % (reps["blackholed"],
                                               obl["blackholed"]))
    return bad


def bars(ax, rows, keys):
    width = 0.8 / len(keys)
    for i, (key, text) in enumerate(keys):
        ax.bar([x + i * width for x in range(len(rows))],
               [r[key] for r in rows], width, label=text,
               **{"color": figures.style(i)["color"]})
    ax.set_xticks([x + width * (len(keys) - 1) / 2 for x in range(len(rows))])
    ax.set_xticklabels([r["label"] for r in rows], rotation=20,
                       fontsize="small")
    ax.legend()


def paralet_plot(ax, rows):
    para = [r for r in rows if "slowdown" in r]
    ms = [m_of(r) for r in para]
    ax.plot(ms, [r["slowdown"] for r in para], "o-",
            label="measured: max FCT / one flow alone")
    ax.plot(ms, [r["predicted"] for r in para], "s--",
            label="Eq. 1: 1 + z / sqrt(m)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("flowlets per flow (paralet-m)")
    ax.set_ylabel("slowdown")
    ax.legend()


def figure(name, claim, rows, outdir):
    topos = sorted({r["topology"] for r in rows})
    fig, axes = figures.new_figure("fct", nrows=len(topos))
    for ax, topo in zip(axes, topos):
        sel = [r for r in rows if r["topology"] == topo]
        if name == "paralet-m":
            paralet_plot(ax, sel)
        else:
            bars(ax, sel, [("max_fct_over_ideal", "max FCT / ideal"),
                           ("mean_fct_over_ideal", "mean FCT / ideal")])
            ax.set_ylabel("FCT / ideal")
        ax.set_title("%s: %s" % (name, topology_text(sel[0])))
    fig.suptitle(claim, fontsize="small")
    figures.save(fig, os.path.join(outdir, name + ".png"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sim", required=True)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--out", default="build/sim")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", nargs="+", metavar="NAME")
    ap.add_argument("--cache", help="rows of finished runs (default "
                    "build/sim/runs)")
    a = ap.parse_args()
    names = [e[0] for e in EXPERIMENTS]
    for n in a.only or []:
        if n not in names:
            ap.error("no experiment %s (%s)" % (n, ", ".join(names)))
    exps = [e for e in EXPERIMENTS if not a.only or e[0] in a.only]
    try:
        rows = run_all(a.sim, exps, a.quick, a.jobs, a.seed,
                       a.cache or os.path.join("build", "sim", "runs"))
    except RuntimeError as e:
        print("experiments.py: %s" % e, file=sys.stderr)
        return 1
    annotate(rows)
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "quick.json" if a.quick else "full.json"),
              "w") as f:
        json.dump(rows, f, indent=1)
        f.write("\n")
    text = tables(exps, rows)
    print(text)
    with open(os.path.join(a.out, "tables.txt"), "w") as f:
        f.write(text)
    for name, _, claim in exps:
        figure(name, claim, [r for r in rows if r["experiment"] == name],
               a.out)
    bad = checks(rows) if a.check else []
    for b in bad:
        print("FAIL: %s" % b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
