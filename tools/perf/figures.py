#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""figures.py - PNG figures of the tools/perf experiments (matplotlib, Agg).

usage: figures.py fct [-o PNG] [--x ratio|seconds] [--rate MBIT] [--title T]
                      DIR [NAME...]
       figures.py queue [-o PNG] [--title T] REPORT_JSON
       figures.py spines [-o PNG | -d DIR] [--test TEST] [--title T]
                         SPREAD_JSON
       figures.py cwnd [-o PNG] [--title T] TRACE
       figures.py auto [-d DIR] [--prefix TEXT] PATH...

fct     CDF of the flow completion times, one curve per workload.  DIR is a
        results directory of spray_fct.sh (any workload.sh -o DIR/NAME run
        whose fct.py summary is DIR/NAME.json); the NAMEs default to every
        NAME.json with a NAME/ beside it, sorted.  Per-flow FCTs come from
        the mpdt-perf JSON in DIR/NAME/ (fct.py's own join); x is FCT / ideal
        (ideal = the flow's bytes at the summary's rate_mbit, or --rate) or,
        with --x seconds, the FCT in seconds.  Default: DIR/fct_cdf.png.
queue   the bottleneck port's backlog over time, one line per run, from a
        cc_report.py --json file (cc_fct.sh's incast samples it every
        0.2 s): a panel per MPDT load-balancing policy and one for the
        other protocols.  Default: queue-EXPERIMENT.png beside it.
spines  the share of leaf 1's uplink packets each spine carried, a group of
        bars per case (load-balancing policy), the mean over the runs with
        a dot per run, from spread.py --json; one PNG per test (-o only
        with one test): spines-TEST.png beside it or in -d DIR.
cwnd    the congestion window over time, one line per connection (nonce),
        from the text of tracefs' "trace" file with mpdt:mpdt_cwnd enabled
        (other events ignored); RTO and NACK reductions marked.  Default:
        cwnd-NAME.png beside it, NAME its file name less .cwnd.trace.
auto    the figures of each PATH, by content: a spread.py or cc_report.py
        JSON, an mpdt_cwnd trace, fct.py summaries NAME.json with NAME/
        beside them (all of them: one FCT CDF) or a results directory (fct).
        PNGs go beside each input, or into -d DIR; --prefix starts the
        titles of traces (the experiment).  An input without the data for
        its figure (a trace without events, a report without queue
        samples) is skipped with a message.

Every PNG is 100 dpi at a fixed size (fct, spines, cwnd 1000x600 pixels,
queue 1000x800) with matplotlib's default style, whatever the local
matplotlibrc: the same input gives the same file.  Each is printed as
"figure: PATH", a skipped one as "figures: skipped: WHY".  Exit status: 0
ok, 1 nothing to plot (fct, queue, spines, cwnd) or an input that failed
(auto), 2 bad input or usage (fct: after drawing the workloads that were
good), 3 no matplotlib (apt-get install python3-matplotlib).
"""
import argparse
import json
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DPI = 100
SIZES = {"fct": (10, 6), "queue": (10, 8), "spines": (10, 6), "cwnd": (10, 6)}
COLORS = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple",
          "tab:brown", "tab:pink", "tab:gray", "tab:olive", "tab:cyan"]
STYLES = ["-", "--", ":", "-."]
LEGEND_MAX = 16


class InputError(Exception):
    """Input that is not what it should be: exit 2."""


class NoData(Exception):
    """Well-formed input without the data for a figure: skipped."""


def style(i):
    return {"color": COLORS[i % len(COLORS)],
            "linestyle": STYLES[(i // len(COLORS)) % len(STYLES)]}


# ---------------------------------------------------------------------------
# matplotlib

MPL = None


def _config_dir():
    """Let matplotlib keep its font cache somewhere writable: the test VM
    sees the host's home read-only (a temporary directory per run otherwise,
    with a warning and the font list rebuilt each time)."""
    if "MPLCONFIGDIR" in os.environ:
        return
    home = os.path.expanduser("~")
    for env, sub in (("XDG_CONFIG_HOME", ".config"),
                     ("XDG_CACHE_HOME", ".cache")):
        d = os.path.join(os.environ.get(env) or os.path.join(home, sub),
                         "matplotlib")
        probe = d if os.path.isdir(d) else os.path.dirname(d)
        if not (os.path.isdir(probe) and os.access(probe, os.W_OK)):
            d = os.path.join(tempfile.gettempdir(),
                             "mpdt-figures-%d" % os.getuid())
            os.makedirs(d, exist_ok=True)
            os.environ["MPLCONFIGDIR"] = d
            return


def need_matplotlib():
    """Before any output: re-run under Debian's /usr/bin/python3 when this
    interpreter (a pyenv, a venv) has no matplotlib but Debian's
    python3-matplotlib is installed; exit 3 if there is none at all.  The
    import itself (slow, in the test VM) waits for the first figure."""
    import importlib.util
    if importlib.util.find_spec("matplotlib") is not None:
        return
    syspy = "/usr/bin/python3"
    if os.environ.get("MPDT_FIGURES_REEXEC") != "1" and \
            os.path.exists(syspy) and \
            os.path.realpath(sys.executable) != os.path.realpath(syspy):
        os.environ["MPDT_FIGURES_REEXEC"] = "1"
        sys.stdout.flush()
        os.execv(syspy, [syspy, os.path.abspath(__file__)] + sys.argv[1:])
    print("figures.py: no matplotlib for %s (apt-get install "
          "python3-matplotlib)" % sys.executable, file=sys.stderr)
    sys.exit(3)


def load_matplotlib():
    """pyplot on Agg with matplotlib's default style."""
    global MPL
    if MPL is not None:
        return MPL
    _config_dir()
    import matplotlib
    matplotlib.rcdefaults()
    matplotlib.use("Agg")
    matplotlib.rcParams.update({"axes.grid": True, "grid.alpha": 0.3,
                                "legend.fontsize": "small",
                                "axes.titlesize": "medium"})
    import matplotlib.pyplot as plt
    MPL = plt
    return plt


def new_figure(kind, nrows=1, sharex=False):
    plt = load_matplotlib()
    fig, axes = plt.subplots(nrows, 1, figsize=SIZES[kind], dpi=DPI,
                             sharex=sharex, squeeze=False)
    return fig, [a[0] for a in axes]


def save(fig, out):
    plt = load_matplotlib()
    fig.tight_layout()
    d = os.path.dirname(out)
    try:
        if d:
            os.makedirs(d, exist_ok=True)
        # No "Software" text chunk: the file depends on the data, not on
        # which matplotlib drew it (as far as the drawing allows).
        fig.savefig(out, dpi=DPI, format="png", metadata={"Software": None})
    except OSError as e:
        raise InputError("%s: %s" % (out, e.strerror or e)) from e
    finally:
        plt.close(fig)
    print("figure: %s" % out)
    sys.stdout.flush()


# ---------------------------------------------------------------------------
# Inputs

def read_text(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError as e:
        raise InputError("%s: %s" % (path, e.strerror or e)) from e


def read_json_doc(path):
    text = read_text(path)
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise InputError("%s: not JSON: %s" % (path, e)) from e
    if not isinstance(doc, dict):
        raise InputError("%s: not a JSON object" % path)
    return doc


def last_json_line(path):
    """The last JSON line of a file (fct.py's summary), or {}."""
    lines = [l for l in read_text(path).splitlines() if l.startswith("{")]
    if not lines:
        return {}
    try:
        return json.loads(lines[-1])
    except ValueError as e:
        raise InputError("%s: not JSON: %s" % (path, e)) from e


# ---------------------------------------------------------------------------
# FCT CDF

def workload_names(d):
    try:
        entries = sorted(os.listdir(d))
    except OSError as e:
        raise InputError("%s: %s" % (d, e.strerror or e)) from e
    return [e[:-5] for e in entries if e.endswith(".json") and
            os.path.isdir(os.path.join(d, e[:-5]))]


def fct_workload(d, name, rate):
    """(label, values in s and as x ideal, failed flows, summary) of
    workload NAME in results directory D."""
    sys.path.insert(0, HERE)
    import fct  # tools/perf/fct.py: the join of servers and clients
    summ_path = os.path.join(d, name + ".json")
    summ = last_json_line(summ_path) if os.path.exists(summ_path) else {}
    rate = rate or summ.get("rate_mbit") or 0
    run_dir = os.path.join(d, name)
    if not os.path.isdir(run_dir):
        raise NoData("%s: no directory %s (the run did not start?)"
                     % (name, run_dir))
    try:
        objs = fct.load([run_dir])
        rows, _ = fct.analyse(objs, rate, None)
    except SystemExit as e:
        raise InputError("%s" % e) from e
    except (KeyError, TypeError) as e:
        raise InputError("%s: not mpdt-perf output (no %s)" % (run_dir, e)) \
            from e
    if not rows:
        raise NoData("%s: no client output in %s" % (name, run_dir))
    secs = sorted(r["fct_ms"] / 1e3 for r in rows if r["fct_ms"] is not None)
    ratio = sorted(r["ratio"] for r in rows if r["ratio"] is not None)
    return {"name": name, "label": summ.get("label") or name,
            "secs": secs, "ratio": ratio, "flows": len(rows),
            "failed": sum(not r["ok"] for r in rows), "rate": rate,
            "bytes": sorted({r["bytes"] for r in rows})}


def size_text(n):
    for unit, m in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= m and n % m == 0:
            return "%d %s" % (n // m, unit)
    return "%d B" % n


def plot_fct(d, names, out, xmode="ratio", rate=0, title=None, skipped=None):
    names = names or workload_names(d)
    if not names:
        raise NoData("%s: no NAME.json with a NAME/ beside it" % d)
    series, errors = [], []
    for name in names:
        # a run that failed early, or left broken output: the others still
        # make a figure (and the broken one an error after it)
        try:
            series.append(fct_workload(d, name, rate))
        except NoData as e:
            if skipped is None:
                print("figures: skipped: %s" % e)
            else:
                skipped.append(str(e))
        except InputError as e:
            errors.append(str(e))
    key = "ratio" if xmode == "ratio" else "secs"
    series = [s for s in series if s[key]]
    if not series:
        if errors:
            raise InputError("; ".join(errors))
        raise NoData("%s: no completed flow%s" % (
            d, " with a rate for the ideal (--rate)" if key == "ratio" else ""))
    fig, (ax,) = new_figure("fct")
    for i, s in enumerate(series):
        v = s[key]
        n = s["flows"]  # a flow without an FCT never completes: the
        # curve stays below 1
        xs = [v[0]] + v
        ys = [0.0] + [(k + 1) / n for k in range(len(v))]
        label = "%s (%d flow%s, max %s)" % (
            s["label"], s["flows"], "" if s["flows"] == 1 else "s",
            "%.2fx" % v[-1] if key == "ratio" else "%.2f s" % v[-1])
        if s["failed"]:
            label += ", %d failed" % s["failed"]
        ax.step(xs, ys, where="post", label=label, linewidth=1.6, **style(i))
    if key == "ratio":
        ax.axvline(1.0, color="black", linewidth=0.8, linestyle=":",
                   label="ideal")
        ax.set_xlabel("flow completion time / ideal (flow size x 8 / link "
                      "rate)")
    else:
        ax.set_xlabel("flow completion time (s)")
    ax.set_ylabel("fraction of flows")
    ax.set_ylim(0, 1.02)
    # From 0 s, or from just below the ideal (x 1) or the fastest flow.
    ax.set_xlim(left=0 if key == "secs" else
                0.9 * min([1.0] + [s[key][0] for s in series]))
    if not title:
        rates = sorted({s["rate"] for s in series if s["rate"]})
        sizes = sorted({b for s in series for b in s["bytes"]})
        title = "FCT CDF: %s (%s per flow%s)" % (
            os.path.basename(os.path.abspath(d)),
            ", ".join(size_text(b) for b in sizes),
            ", %s Mbit/s links" % "/".join("%g" % r for r in rates)
            if rates else "")
    ax.set_title(title)
    ax.legend(loc="lower right")
    save(fig, out)
    if errors:
        raise InputError("; ".join(errors))


# ---------------------------------------------------------------------------
# Bottleneck queue over time (cc_report.py --json)

def plot_queue(doc, out, title=None, src="report"):
    if doc.get("kind") != "cc_fct" or not isinstance(doc.get("runs"), list):
        raise InputError("%s: not a cc_report.py --json file" % src)
    runs = [r for r in doc["runs"] if r.get("queue")]
    if not runs:
        raise NoData("%s: no queue samples (cc_fct.sh samples the queue in "
                     "its incast only)" % src)
    groups, order = {}, []
    for r in runs:
        f = r.get("fct") or {}
        key = "MPDT, lb %s" % ", ".join(f["lb"]) if f.get("lb") else "other"
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(r)
    if "other" in groups:  # TCP, MPTCP: last, named by their protocols
        order.remove("other")
        protos = sorted({p for r in groups["other"]
                         for p in (r.get("fct") or {}).get("protos", [])})
        name = ", ".join(p.upper() for p in protos) or "other"
        groups[name] = groups.pop("other")
        order.append(name)
    fig, axes = new_figure("queue", len(order), sharex=True)
    steps = []
    for key, ax in zip(order, axes):
        for i, r in enumerate(groups[key]):
            try:
                t = [float(q[0]) for q in r["queue"]]
                kb = [float(q[1]) / 1e3 for q in r["queue"]]
                drops = int(r["queue"][-1][2]) - int(r["queue"][0][2])
            except (TypeError, ValueError, IndexError) as e:
                raise InputError("%s: run %s: bad queue sample (%s)"
                                 % (src, r.get("name"), e)) from e
            steps += [b - a for a, b in zip(t, t[1:])]
            ax.step(t, kb, where="post", linewidth=1.3,
                    label="%s (max %.1f KB, drops %d)" % (
                        r.get("name"), max(kb), drops), **style(i))
        ax.set_title(key, fontsize="small", loc="left")
        ax.set_ylabel("backlog (KB)")
        ax.set_ylim(bottom=0)
        ax.legend(loc="best")
    axes[-1].set_xlabel("time from the first byte sent (s)")
    axes[-1].set_xlim(left=0)
    if not title:
        exp = doc.get("experiment", "?")
        flows = (runs[0].get("fct") or {}).get("flows")
        what = "incast %d->1" % flows if exp == "incast" and flows else exp
        steps.sort()
        title = ("cc_fct.sh %s: bottleneck queue (the receiver's leaf port), "
                 "%g Mbit/s links, %s per flow%s" % (
                     what, doc.get("rate_mbit") or 0, doc.get("size", "?"),
                     ", sampled every %.2f s" % steps[len(steps) // 2]
                     if steps else ""))
    fig.suptitle(title, fontsize="medium")
    save(fig, out)


# ---------------------------------------------------------------------------
# Packets per spine (spread.py --json)

def spine_tests(doc, src):
    if doc.get("kind") != "spread" or not isinstance(doc.get("spines"), list):
        raise InputError("%s: not a spread.py --json file" % src)
    tests = []
    for c in doc["spines"]:
        if c.get("test") not in tests:
            tests.append(c.get("test"))
    return tests


def plot_spines(doc, test, out, title=None, src="spread"):
    cases = [c for c in doc["spines"] if c.get("test") == test]
    if not cases:
        raise NoData("%s: no packets per spine for %s" % (src, test))
    try:
        nsp = max(len(r) for c in cases for r in c["runs"])
        shares = []
        for c in cases:
            runs = []
            for r in c["runs"]:
                v = [float(x) for x in r] + [0.0] * (nsp - len(r))
                if c.get("unit") == "packets":
                    tot = sum(v)
                    v = [100.0 * x / tot if tot else 0.0 for x in v]
                runs.append(v)
            shares.append(runs)
    except (KeyError, TypeError, ValueError) as e:
        raise InputError("%s: bad spines record (%s)" % (src, e)) from e
    fig, (ax,) = new_figure("spines")
    width = 0.8 / nsp
    multi = any(len(r) > 1 for r in shares)
    for s in range(nsp):
        xs, means, dx, dy = [], [], [], []
        for k, runs in enumerate(shares):
            vals = [r[s] for r in runs]
            xs.append(k - 0.4 + width * (s + 0.5))
            means.append(sum(vals) / len(vals))
            dx += [xs[-1]] * len(vals)
            dy += vals
        ax.bar(xs, means, width * 0.95, color=COLORS[s % len(COLORS)],
               label="spine %d" % (s + 1))
        if multi:
            ax.plot(dx, dy, ".", color="black", markersize=4,
                    label="one run" if s == 0 else None)
    ax.axhline(100.0 / nsp, color="black", linestyle="--", linewidth=0.8,
               label="even share (%.0f%%)" % (100.0 / nsp))
    labels = []
    for c in cases:
        lab = "%s\n%d run%s" % (c["case"], len(c["runs"]),
                                "" if len(c["runs"]) == 1 else "s")
        if c.get("unit") == "packets":
            tot = [sum(r) for r in c["runs"]]
            lab += "\n%.0f pkts" % (sum(tot) / len(tot))
        labels.append(lab)
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels(labels, fontsize="small")
    ax.set_xlabel("case (load-balancing policy, or the traffic the test sends)")
    ax.set_ylabel("share of leaf 1's uplink packets (%)")
    ax.set_ylim(0, 105)
    if not title:
        runs = max(len(c["runs"]) for c in cases)
        title = ("fabric_spread.sh: %s, packets per spine (leaf 1's %d "
                 "uplinks), mean of %d run%s%s" % (
                     test, nsp, runs, "" if runs == 1 else "s",
                     " (dots: each run)" if runs > 1 else ""))
    ax.set_title(title)
    ax.legend(loc="upper right", ncol=nsp + 2)
    save(fig, out)


# ---------------------------------------------------------------------------
# Congestion window over time (mpdt:mpdt_cwnd in tracefs' trace format)

# "<task>-<pid> [cpu] <flags> <timestamp>: mpdt_cwnd: nonce=%08x cwnd=%u
# old=%u on=sack|nack|rto" (net/mpdt/trace.h); the flags column is absent
# in older kernels' format, and counter clocks print integers.
TRACE_EVENT = re.compile(r"^\s*(.*?)-(\d+)\s+(?:\(\s*[-\d]+\)\s+)?\[(\d+)\]\s+"
                         r"(?:\S+\s+)?(\d+(?:\.\d+)?):\s+([\w:]+):\s?(.*)$")
CWND = re.compile(r"nonce=([0-9a-fA-F]+)\s+cwnd=(\d+)\s+old=(\d+)\s+on=(\w+)")
LOST = re.compile(r"LOST (\d+) EVENTS")
MARKS = (("rto", "x"), ("nack", "o"))


def parse_cwnd_trace(path):
    """{nonce: [(t, cwnd, old, on)]} in order of appearance, events lost."""
    flows, lost = {}, 0
    for n, line in enumerate(read_text(path).splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        m = LOST.search(line)
        if m:
            lost += int(m.group(1))
            continue
        m = TRACE_EVENT.match(line)
        if not m:
            raise InputError("%s:%d: not a line of tracefs' trace format: %r"
                             % (path, n, line[:80]))
        if m.group(5) not in ("mpdt_cwnd", "mpdt:mpdt_cwnd"):
            continue
        c = CWND.search(m.group(6))
        if not c:
            raise InputError("%s:%d: mpdt_cwnd without nonce=, cwnd=, old=, "
                             "on=: %r" % (path, n, line[:80]))
        flows.setdefault(c.group(1).lower(), []).append(
            (float(m.group(4)), int(c.group(2)), int(c.group(3)), c.group(4)))
    return flows, lost


def plot_cwnd(path, out, title=None, prefix=None):
    flows, lost = parse_cwnd_trace(path)
    if not flows:
        raise NoData("%s: no mpdt_cwnd events (no window changed: the fixed "
                     "congestion control, or not a MPDT run)" % path)
    if lost:
        print("figures: warning: %s: %d events lost (trace buffer too "
              "small)" % (path, lost), file=sys.stderr)
    t0 = min(e[0] for ev in flows.values() for e in ev)
    fig, (ax,) = new_figure("cwnd")
    marked = set()
    for i, (nonce, ev) in enumerate(flows.items()):
        xs = [ev[0][0] - t0] + [e[0] - t0 for e in ev]
        ys = [ev[0][2] / 1e3] + [e[1] / 1e3 for e in ev]
        ax.step(xs, ys, where="post", linewidth=1.2,
                label="nonce %s (%d changes)" % (nonce, len(ev))
                if i < LEGEND_MAX else None, **style(i))
        for on, marker in MARKS:
            pts = [(e[0] - t0, e[1] / 1e3) for e in ev if e[3] == on]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker,
                        color=style(i)["color"], markersize=7,
                        markerfacecolor="none", linestyle="none")
                marked.add(on)
    for on, marker in MARKS:
        if on in marked:
            ax.plot([], [], marker, color="black", markerfacecolor="none",
                    linestyle="none", label="window set on %s" % on.upper())
    if len(flows) > LEGEND_MAX:
        ax.plot([], [], " ", label="(%d more connections)"
                % (len(flows) - LEGEND_MAX))
    ax.set_xlabel("time from the first window change (s, trace clock)")
    ax.set_ylabel("congestion window (KB)")
    ax.set_ylim(bottom=0)
    ax.set_xlim(left=0)
    if not title:
        name = os.path.basename(path)
        for suffix in (".cwnd.trace", ".trace"):
            if name.endswith(suffix):
                name = name[:-len(suffix)]
                break
        title = "%s%s: congestion window per connection (mpdt:mpdt_cwnd, " \
            "%d connection%s%s)" % (
                prefix + " " if prefix else "", name, len(flows),
                "" if len(flows) == 1 else "s",
                ", %d events lost" % lost if lost else "")
    ax.set_title(title)
    ax.legend(loc="best", ncol=2 if len(flows) > 8 else 1)
    save(fig, out)


# ---------------------------------------------------------------------------
# Command line

def trace_name(path):
    name = os.path.basename(path)
    for suffix in (".cwnd.trace", ".trace", ".txt"):
        if name.endswith(suffix):
            return name[:-len(suffix)]
    return name


def looks_like_trace(text):
    for line in text.splitlines():
        if not line.strip():
            continue
        return line.startswith("# tracer:") or \
            TRACE_EVENT.match(line) is not None
    return False


def auto(paths, outdir=None, prefix=None):
    """The figures of every path; returns the exit status."""
    rc = 0
    skipped = []
    summaries = []

    def where(p, name):
        return os.path.join(outdir or os.path.dirname(os.path.abspath(p)),
                            name)

    def attempt(fn, *args, **kw):
        nonlocal rc
        try:
            fn(*args, **kw)
        except NoData as e:
            skipped.append(str(e))
        except InputError as e:
            print("figures.py: %s" % e, file=sys.stderr)
            rc = 1
    for p in paths:
        if os.path.isdir(p):
            attempt(plot_fct, p, None, os.path.join(outdir or p, "fct_cdf.png"),
                    skipped=skipped)
            continue
        try:
            text = read_text(p)
        except InputError as e:
            print("figures.py: %s" % e, file=sys.stderr)
            rc = 1
            continue
        if not text.strip():
            skipped.append("%s: empty" % p)
            continue
        doc = None
        try:
            doc = json.loads(text)
        except ValueError:
            pass
        if isinstance(doc, dict) and doc.get("kind") == "spread":
            try:
                tests = spine_tests(doc, p)
            except InputError as e:
                print("figures.py: %s" % e, file=sys.stderr)
                rc = 1
                continue
            if not tests:
                skipped.append("%s: no packets per spine in the logs" % p)
            for t in tests:
                attempt(plot_spines, doc, t, where(p, "spines-%s.png" % t),
                        src=p)
        elif isinstance(doc, dict) and doc.get("kind") == "cc_fct":
            attempt(plot_queue, doc, where(p, "queue-%s.png" % doc.get(
                "experiment", "cc")), src=p)
        elif p.endswith(".json") and os.path.isdir(p[:-5]) and \
                text.lstrip().startswith("{"):
            summaries.append(p)
        elif p.endswith(".trace") or looks_like_trace(text):
            attempt(plot_cwnd, p, where(p, "cwnd-%s.png" % trace_name(p)),
                    prefix=prefix)
        else:
            print("figures.py: %s: not a spread.py or cc_report.py JSON, an "
                  "fct.py summary beside its run directory, an mpdt_cwnd "
                  "trace or a results directory" % p, file=sys.stderr)
            rc = 1
    if summaries:
        d = os.path.dirname(os.path.abspath(summaries[0]))
        if any(os.path.dirname(os.path.abspath(s)) != d for s in summaries):
            print("figures.py: fct summaries from several directories: "
                  "one figure per directory, please", file=sys.stderr)
            rc = 1
        else:
            attempt(plot_fct, d,
                    [os.path.basename(s)[:-5] for s in summaries],
                    os.path.join(outdir or d, "fct_cdf.png"), skipped=skipped)
    for s in skipped:
        print("figures: skipped: %s" % s)
    return rc


def main():
    ap = argparse.ArgumentParser(
        description="PNG figures of the tools/perf experiments",
        epilog="See the module's help text (head of figures.py) for more.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("fct", help="FCT CDF per workload")
    p.add_argument("-o", "--output")
    p.add_argument("--x", choices=["ratio", "seconds"], default="ratio")
    p.add_argument("--rate", type=float, default=0,
                   help="link Mbit/s for the ideal (default: the summary's)")
    p.add_argument("--title")
    p.add_argument("dir")
    p.add_argument("names", nargs="*")
    p = sub.add_parser("queue", help="bottleneck queue over time")
    p.add_argument("-o", "--output")
    p.add_argument("--title")
    p.add_argument("report")
    p = sub.add_parser("spines", help="packets per spine")
    p.add_argument("-o", "--output")
    p.add_argument("-d", "--dir")
    p.add_argument("--test")
    p.add_argument("--title")
    p.add_argument("spread")
    p = sub.add_parser("cwnd", help="congestion window over time")
    p.add_argument("-o", "--output")
    p.add_argument("--title")
    p.add_argument("--prefix")
    p.add_argument("trace")
    p = sub.add_parser("auto", help="figures of each input, by its content")
    p.add_argument("-d", "--dir")
    p.add_argument("--prefix")
    p.add_argument("paths", nargs="+")
    a = ap.parse_args()
    need_matplotlib()
    try:
        if a.cmd == "auto":
            return auto(a.paths, a.dir, a.prefix)
        if a.cmd == "fct":
            plot_fct(a.dir, a.names, a.output or
                     os.path.join(a.dir, "fct_cdf.png"), a.x, a.rate, a.title)
        elif a.cmd == "queue":
            doc = read_json_doc(a.report)
            plot_queue(doc, a.output or os.path.join(
                os.path.dirname(os.path.abspath(a.report)),
                "queue-%s.png" % doc.get("experiment", "cc")), a.title,
                src=a.report)
        elif a.cmd == "spines":
            doc = read_json_doc(a.spread)
            tests = [a.test] if a.test else spine_tests(doc, a.spread)
            if not tests:
                raise NoData("%s: no packets per spine in the logs" % a.spread)
            if a.output and len(tests) > 1:
                raise InputError("%s: %d tests (%s): -o needs --test" % (
                    a.spread, len(tests), ", ".join(tests)))
            for t in tests:
                plot_spines(doc, t, a.output or os.path.join(
                    a.dir or os.path.dirname(os.path.abspath(a.spread)),
                    "spines-%s.png" % t), a.title, src=a.spread)
        elif a.cmd == "cwnd":
            plot_cwnd(a.trace, a.output or os.path.join(
                os.path.dirname(os.path.abspath(a.trace)),
                "cwnd-%s.png" % trace_name(a.trace)), a.title, a.prefix)
    except InputError as e:
        print("figures.py: %s" % e, file=sys.stderr)
        return 2
    except NoData as e:
        print("figures.py: nothing to plot: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
