#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench_veth.py: MPDT beside iperf3 TCP and UDP over one veth pair between
two network namespaces, measured the way users compare transports.

Every tool runs in each of ROUNDS interleaved rounds (so host load drifts
over all of them alike) and the table shows medians.  Nobody generates or
hashes payload bytes unless the row says so: iperf3 does not, and neither
does mpdt-perf with --no-verify.  For each run the script also records what
the run cost: the busy time of every vCPU (/proc/stat), MPDT's counters of
both namespaces (/proc/net/mpdt_stats) and the skbs both veth ends sent.
With -p, one more MPDT run is profiled guest-wide with perf record.

Run inside the test VM as root with the module built (`make bench` boots
one without slub_debug).  Prints the table, then one line of JSON.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
PERF = os.path.join(REPO, "tools", "perf", "mpdt-perf")
CLI = os.path.join(REPO, "tools", "mpdt", "mpdt")
NS_A, NS_B = "mpdtbench_a", "mpdtbench_b"
ADDR_A, ADDR_B = "10.77.0.1", "10.77.0.2"
MSG = 1 << 20
PORT = 7471
# How often (us) mpdt-perf reads each flow's MPDT_INFO while its send
# buffer is full.  These rows measure goodput, not completion times:
# polled every 500 us (mpdt-perf's default, for FCTs) sixteen threads
# spent 7% of the guest in the poll's sleeps, getsockopt() and clock reads,
# where iperf3 sleeps in select() until its socket is writable.
ACK_POLL_US = 10000
# What the first MPDT connection ended with (MPDT_INFO, via mpdt-perf).
PATH = ("srtt_us", "base_rtt_us", "bdp", "cwnd", "delivery_rate")
# /proc/net/mpdt_stats counters reported per MiB received.
PER_MIB = ("tx_packets", "tx_data", "tx_sack", "tx_gso", "retx_ooo",
           "retx_probe", "retx_rto", "retx_nack", "rx_dup_data",
           "drop_no_buffer", "rto", "rto_undone", "tx_pages_reused",
           "rx_copied", "tx_deferred", "tx_err")


def sh(*cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, **kw)


def ns(name, *cmd):
    return ["ip", "netns", "exec", name, *cmd]


def setup(modparams, params, qdisc):
    sh("modprobe", "-a", "veth", "udp_tunnel", "ip6_udp_tunnel")
    with open("/proc/modules") as f:
        if not any(line.startswith("mpdt ") for line in f):
            sh("insmod", os.path.join(REPO, "net", "mpdt", "mpdt.ko"),
               *modparams)
    teardown()
    sh("ip", "netns", "add", NS_A)
    sh("ip", "netns", "add", NS_B)
    sh("ip", "link", "add", "va", "netns", NS_A, "type", "veth", "peer",
       "name", "vb", "netns", NS_B)
    for n, dev, addr in ((NS_A, "va", ADDR_A), (NS_B, "vb", ADDR_B)):
        sh("ip", "-n", n, "addr", "add", addr + "/24", "dev", dev)
        sh("ip", "-n", n, "link", "set", dev, "up")
        if qdisc:
            sh("tc", "-n", n, "qdisc", "replace", "dev", dev, "root",
               *qdisc.split())
        if params:
            sh(CLI, "-n", n, "param", "set", *params,
               stdout=subprocess.DEVNULL)


def teardown():
    for n in (NS_A, NS_B):
        subprocess.run(["ip", "netns", "del", n], stderr=subprocess.DEVNULL)


def cpu_ticks():
    """Busy and total USER_HZ ticks of every CPU, by name."""
    out = {}
    with open("/proc/stat") as f:
        for line in f:
            w = line.split()
            if not w[0].startswith("cpu") or w[0] == "cpu":
                continue
            t = [int(x) for x in w[1:9]]
            idle = t[3] + t[4]
            out[w[0]] = (sum(t) - idle, sum(t))
    return out


def mpdt_counters(name):
    try:
        text = subprocess.run(ns(name, "cat", "/proc/net/mpdt_stats"),
                              check=True, text=True,
                              capture_output=True).stdout
    except subprocess.CalledProcessError:
        return {}
    return {k: int(v) for k, v in (line.split() for line in
                                   text.splitlines())}


def dev_tx_skbs(name, dev):
    with open(os.devnull, "w") as null:
        out = subprocess.run(["ip", "-n", name, "-s", "-j", "link", "show",
                              dev], check=True, text=True,
                             capture_output=True, stdin=null).stdout
    return json.loads(out)[0]["stats64"]["tx"]["packets"]


def snapshot():
    c = {}
    for n in (NS_A, NS_B):
        for k, v in mpdt_counters(n).items():
            c[k] = c.get(k, 0) + v
    return {"cpu": cpu_ticks(), "mpdt": c,
            "skbs": dev_tx_skbs(NS_A, "va") + dev_tx_skbs(NS_B, "vb"),
            "t": time.monotonic()}


def cost(before, after, rx_bytes):
    """What a run cost, from two snapshots and the bytes received."""
    hz = os.sysconf("SC_CLK_TCK")
    mib = rx_bytes / (1 << 20) if rx_bytes else float("nan")
    busy = {c: (after["cpu"][c][0] - before["cpu"][c][0]) / hz
            for c in sorted(after["cpu"])}
    span = after["t"] - before["t"]
    d = {k: after["mpdt"].get(k, 0) - before["mpdt"].get(k, 0)
         for k in PER_MIB}
    return {
        "vcpu_busy": {c: round(s / span, 3) for c, s in busy.items()},
        "busy_s_per_gib": round(sum(busy.values()) / (mib / 1024), 3),
        "per_mib": {**{k: round(v / mib, 2) for k, v in d.items()},
                    "skbs": round((after["skbs"] - before["skbs"]) / mib,
                                  2)},
    }


def client_run(cmd, **kw):
    """A client, and snapshots just before and after it: a row's cost is
    what moved while its client ran, not its server's start or the three
    seconds an MPDT server waits after its last flow."""
    before = snapshot()
    p = subprocess.run(cmd, text=True, capture_output=True, **kw)
    return p, (before, snapshot())


def iperf(secs, *args):
    srv = subprocess.Popen(ns(NS_B, "iperf3", "-s", "-1"),
                           stdout=subprocess.DEVNULL)
    time.sleep(0.5)
    cl, snaps = client_run(ns(NS_A, "iperf3", "-c", ADDR_B, "-t", str(secs),
                              "-J", *args), check=True)
    srv.wait(timeout=30)
    s = json.loads(cl.stdout)["end"]["sum_received"]
    return s["bits_per_second"] / 1e6, s["bytes"], {}, snaps


def perf_run(secs, flows=1, proto="mpdt", lb=None, verify=False, wrap=(),
             one_thread=False):
    """One mpdt-perf run into one server thread: a client thread per flow,
    or (one_thread) one for all flows."""
    ready = "/tmp/mpdt_bench.ready"
    if os.path.exists(ready):
        os.unlink(ready)
    nv = [] if verify else ["--no-verify"]
    srv = subprocess.Popen(ns(NS_B, PERF, "server", "-p", str(PORT),
                              "--proto", proto, "--count", str(flows),
                              "--ready", ready,
                              "--timeout", str(secs + 120), *nv),
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           text=True)
    deadline = time.monotonic() + 30
    while not os.path.exists(ready):
        if srv.poll() is not None or time.monotonic() > deadline:
            srv.kill()
            sys.exit("mpdt-perf server did not come up: %s" %
                     srv.communicate()[0])
        time.sleep(0.05)
    opts = (["--lb", lb] if lb else []) + (["--one-thread"] if one_thread
                                            else [])
    cl, snaps = client_run([*wrap, *ns(NS_A, PERF, "client", "-a", ADDR_B,
                                       "-p", str(PORT), "--proto", proto,
                                       "-t", str(secs), "--msg", str(MSG),
                                       "--flows", str(flows), "--ack-poll",
                                       str(ACK_POLL_US), *opts, *nv)])
    s = json.loads(srv.communicate(timeout=secs + 150)[0])
    c = json.loads(cl.stdout)
    if not (s["ok"] and c["ok"]):
        sys.exit("mpdt-perf failed: server %s, client %s" % (s, c))
    return s, c, snaps


def mpdt(secs, flows=1, lb=None, verify=False, wrap=(), one_thread=False):
    s, c, snaps = perf_run(secs, flows, "mpdt", lb, verify, wrap, one_thread)
    bad = sum(f["corrupt"] + f["dups"] for f in s["flows"])
    path = {k: c["flows"][0].get(k, 0) for k in PATH}
    return s["rx_mbps"], s["rx_bytes"], {"corrupt_or_dup": bad, **path}, snaps


def tcp_perf(secs, flows, one_thread=False):
    s, _, snaps = perf_run(secs, flows, "tcp", one_thread=one_thread)
    return s["rx_mbps"], s["rx_bytes"], {}, snaps


def tools(secs, only):
    t = {
        "tcp": ("iperf3 TCP", lambda: iperf(secs)),
        "udp": ("iperf3 UDP, 1400 B (receiver)",
                lambda: iperf(secs, "-u", "-b", "0", "-l", "1400")),
        "mpdt": ("MPDT, 1 MiB msgs, ecmp", lambda: mpdt(secs)),
        "mpdt-obl": ("MPDT, 1 MiB msgs, oblivious",
                     lambda: mpdt(secs, lb="oblivious")),
        "mpdt-verify": ("MPDT, payload verified",
                        lambda: mpdt(secs, verify=True)),
        # iperf3 (3.12, Debian 12's) sends all its streams from one
        # thread, and so does mpdt-perf --one-thread.
        "tcp16": ("iperf3 TCP, 16 streams", lambda: iperf(secs, "-P", "16")),
        "mpdt16": ("MPDT, 16 connections",
                   lambda: mpdt(secs, flows=16, one_thread=True)),
        # A thread per flow: sixteen senders share the vCPUs with the one
        # thread that reads all flows, for TCP and MPDT alike.
        "tcp16-thr": ("TCP, 16 streams, thread each",
                      lambda: tcp_perf(secs, 16)),
        "mpdt16-thr": ("MPDT, 16 connections, thread each",
                       lambda: mpdt(secs, flows=16)),
    }
    return {k: v for k, v in t.items() if not only or k in only}


def measure(fn):
    mbps, rx_bytes, extra, (before, after) = fn()
    return {"mbps": round(mbps, 1), **extra,
            **cost(before, after, rx_bytes)}


def profile(secs, top, flows):
    """perf record guest-wide while one MPDT client runs; the hottest
    symbols."""
    data = "/tmp/mpdt_bench.perf"
    mpdt(secs, flows=flows, one_thread=flows > 1,
         wrap=("perf", "record", "-a", "-N", "-q", "-e", "cpu-clock", "-F",
               "999", "-o", data, "--"))
    rep = subprocess.run(["perf", "report", "-i", data, "--stdio", "-q",
                          "--no-children", "--sort", "dso,sym"],
                         check=True, text=True, capture_output=True).stdout
    lines = [ln.strip() for ln in rep.splitlines() if ln.strip()]
    return lines[:top]


def median_row(runs):
    out = {"mbps": statistics.median(r["mbps"] for r in runs),
           "mbps_runs": [r["mbps"] for r in runs],
           "busy_s_per_gib": statistics.median(r["busy_s_per_gib"]
                                               for r in runs)}
    out["per_mib"] = {k: statistics.median(r["per_mib"][k] for r in runs)
                      for k in runs[0]["per_mib"]}
    out["vcpu_busy"] = {c: statistics.median(r["vcpu_busy"][c]
                                             for r in runs)
                        for c in runs[0]["vcpu_busy"]}
    if "corrupt_or_dup" in runs[0]:
        out["corrupt_or_dup"] = sum(r["corrupt_or_dup"] for r in runs)
        out["path"] = {k: statistics.median(r[k] for r in runs)
                       for k in PATH}
    return out


def print_round_ratios(name, base, mine, theirs):
    """Each round's ratio to the row it ran beside: the host's speed
    drifts by seconds under TCG (2x between two rounds of one boot), and
    the spread of these says how far to trust the medians' ratio."""
    for what, key in (("Mbit/s", "mbps"), ("busy s/GiB", "busy_s_per_gib")):
        ratios = [a[key] / b[key] for a, b in zip(mine, theirs) if b[key]]
        if ratios:
            print("  %s / %s, %s, round by round: %s (median %.2f)" % (
                name, base, what, " ".join("%.2f" % r for r in ratios),
                statistics.median(ratios)))


def report(names, rows, runs, prof, flows):
    tcp = rows.get("tcp", {}).get("mbps")
    udp = rows.get("udp", {}).get("mbps")
    print("one veth pair, goodput at the receiver: medians of %d rounds"
          % len(next(iter(rows.values()))["mbps_runs"]))
    print("  %-34s %8s %6s %6s %8s %9s %7s %7s %6s %6s" %
          ("", "Mbit/s", "xTCP", "xUDP", "busy%", "busy s/GiB", "pkt/MiB",
           "sack/MiB", "skb/MiB", "gso/MiB"))
    for k, r in rows.items():
        busy = " ".join("%3.0f" % (100 * v) for v in r["vcpu_busy"].values())
        pm = r["per_mib"]
        print("  %-34s %8.1f %6s %6s %8s %9.2f %7.0f %7.0f %6.0f %6.0f" % (
            names[k], r["mbps"],
            "%.2f" % (r["mbps"] / tcp) if tcp else "-",
            "%.2f" % (r["mbps"] / udp) if udp else "-",
            busy, r["busy_s_per_gib"],
            pm["tx_packets"], pm["tx_sack"], pm["skbs"], pm["tx_gso"]))
    print("  (busy%: each vCPU's busy share during the run; pkt and sack: "
          "MPDT packets sent by both sides; skb: skbs both veth ends sent; "
          "gso: bursts sent as one skb)")
    for k, r in rows.items():
        if "path" in r:
            print("  %-34s srtt %d us, base RTT %d us, BDP %d B, cwnd %d B, "
                  "rate %.0f Mbit/s" % ((names[k],) +
                                        tuple(r["path"][p] for p in PATH[:4])
                                        + (r["path"]["delivery_rate"] * 8 /
                                           1e6,)))
    for m, k in (("mpdt16", "tcp16"), ("mpdt16-thr", "tcp16-thr")):
        if m in rows and k in rows:
            print("  %s: %.2fx %s" % (names[m], rows[m]["mbps"] /
                                      rows[k]["mbps"], names[k]))
    for m, k in (("mpdt", "tcp"), ("mpdt16", "tcp16"),
                 ("mpdt16-thr", "tcp16-thr")):
        if m in runs and k in runs and len(runs[m]) > 1:
            print_round_ratios(names[m], names[k], runs[m], runs[k])
    if prof:
        print("perf record -a during one MPDT run of %d connection(s) "
              "(cpu-clock, dso and symbol, hottest first):" % flows)
        for line in prof:
            print("  " + line)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-r", "--rounds", type=int, default=3)
    ap.add_argument("-t", "--seconds", type=int, default=10)
    ap.add_argument("-p", "--profile", action="store_true")
    ap.add_argument("--profile-flows", type=int, default=1,
                    help="connections of the profiled run (default 1)")
    ap.add_argument("--top", type=int, default=30,
                    help="profile lines shown (default 30)")
    ap.add_argument("--only", nargs="*", default=None,
                    help="run only these rows (tcp udp mpdt mpdt-obl "
                    "mpdt-verify tcp16 mpdt16 tcp16-thr mpdt16-thr)")
    ap.add_argument("--set", nargs="+", default=[], metavar="NAME VALUE",
                    help="MPDT parameters of both namespaces "
                    "(mpdt param set)")
    ap.add_argument("--qdisc", metavar="QDISC",
                    help="root qdisc of both veth ends, as a NIC has "
                    "(e.g. fq, which paces); default: none, as a veth")
    ap.add_argument("modparams", nargs="*",
                    help="module parameters if the module is not loaded")
    a = ap.parse_args()
    setup(a.modparams, a.set, a.qdisc)
    try:
        t = tools(a.seconds, a.only)
        runs = {k: [] for k in t}
        for i in range(a.rounds):
            for k, (_, fn) in t.items():
                runs[k].append(measure(fn))
                print("round %d %s: %.1f Mbit/s" % (i + 1, k,
                                                    runs[k][-1]["mbps"]),
                      file=sys.stderr, flush=True)
        rows = {k: median_row(v) for k, v in runs.items()}
        prof = (profile(a.seconds, a.top, a.profile_flows)
                if a.profile else None)
    finally:
        teardown()
    report({k: v[0] for k, v in t.items()}, rows, runs, prof,
           a.profile_flows)
    print(json.dumps({"rounds": a.rounds, "seconds": a.seconds,
                      "rows": rows, "runs": runs, "profile": prof}))


if __name__ == "__main__":
    main()
