#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""test_figures.py - host test of tools/perf/figures.py (and of the JSON
that spread.py --json and cc_report.py --json write for it).

    python3 tools/perf/test_figures.py [-v]

Runs on tools/perf/testdata/: spray_fct/ (a spray_fct.sh results
directory: fct.py summaries and the mpdt-perf JSON of three workloads),
cc_fct/ (three incast runs as cc_fct.sh leaves them: NAME.json, NAME/,
NAME.queue, NAME.ce, and an mpdt_cwnd capture in tracefs' format) and
spread/ (kselftest logs as fabric_spread.sh keeps them).  Checks that
--json leaves spread.py's and cc_report.py's tables and exit status as
they were, that every figure is a valid PNG (signature, chunk CRCs, IEND)
of the expected pixel size, that the same input gives the same bytes, and
that bad input fails with a clear message.  Needs python3-matplotlib
(figures.py finds Debian's under /usr/bin/python3 if this interpreter has
none); writes only to a temporary directory.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
TD = os.path.join(HERE, "testdata")
FIG = os.path.join(HERE, "figures.py")
SIZE = {"fct": (1000, 600), "spines": (1000, 600), "cwnd": (1000, 600),
        "queue": (1000, 800)}
INCAST = ["incast-fixed-oblivious", "incast-smartt-oblivious", "incast-tcp"]
TRACE = os.path.join(TD, "cc_fct", "incast-smartt-oblivious.cwnd.trace")


def run(*args, env=None):
    return subprocess.run([sys.executable] + list(args), capture_output=True,
                          text=True, timeout=60, env=env)


def png_size(path):
    """(width, height) of a PNG whose every chunk is checked, or an
    AssertionError saying what is wrong."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "%s: no PNG signature" % path
    pos, chunks, idat = 8, [], b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        crc, = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        assert zlib.crc32(kind + body) & 0xffffffff == crc, \
            "%s: bad CRC in %r" % (path, kind)
        chunks.append(kind)
        if kind == b"IDAT":
            idat += body
        pos += 12 + n
    assert chunks[0] == b"IHDR" and chunks[-1] == b"IEND", \
        "%s: chunks %r" % (path, chunks)
    w, h = struct.unpack(">II", data[16:24])
    assert zlib.decompress(idat), "%s: empty image data" % path
    return w, h


class Figures(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="test_figures.")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def path(self, *p):
        return os.path.join(self.tmp, *p)

    def check_png(self, path, kind):
        self.assertTrue(os.path.isfile(path), "%s not written" % path)
        self.assertGreater(os.path.getsize(path), 1000, path)
        self.assertEqual(png_size(path), SIZE[kind], path)

    def figures(self, *args, rc=0):
        p = run(FIG, *args)
        if p.returncode == 3:
            self.fail("no matplotlib: apt-get install python3-matplotlib\n"
                      + p.stderr)
        self.assertEqual(p.returncode, rc, "figures.py %s: exit %d\n%s%s" % (
            " ".join(args), p.returncode, p.stdout, p.stderr))
        return p

    # The writers of the JSON: the tables stay as they were.

    def spread_json(self):
        out = self.path("spread.json")
        if not os.path.exists(out):
            logs = sorted(os.path.join(TD, "spread", f)
                          for f in os.listdir(os.path.join(TD, "spread")))
            a = run(os.path.join(HERE, "spread.py"), *logs)
            b = run(os.path.join(HERE, "spread.py"), "--json", out, *logs)
            self.assertEqual((a.returncode, a.stdout), (b.returncode, b.stdout))
            self.assertIn("fabric_spray", a.stdout)
        return out

    def report_json(self):
        out = self.path("report-incast.json")
        if not os.path.exists(out):
            args = [os.path.join(HERE, "cc_report.py"), "--out",
                    os.path.join(TD, "cc_fct"), "--rate", "10", "--size", "1M"]
            a = run(*args, "incast", *INCAST)
            b = run(*args, "--json", out, "incast", *INCAST)
            self.assertEqual((a.returncode, a.stdout), (b.returncode, b.stdout))
            self.assertIn("incast-smartt-oblivious", a.stdout)
        return out

    def test_json_writers(self):
        with open(self.spread_json()) as f:
            doc = json.load(f)
        self.assertEqual(doc["kind"], "spread")
        cases = {(c["test"], c["case"]): c for c in doc["spines"]}
        self.assertEqual(len(cases[("fabric_spray", "oblivious")]["runs"]), 2)
        self.assertIn(("fabric_spray", "oblivious #2"), cases)
        self.assertEqual(cases[("fabric_adapt", "reps")]["runs"],
                         [[803, 291, 788, 776]])
        self.assertEqual(cases[("fabric_selftest", "ecmp IPv6")]["unit"],
                         "packets")
        with open(self.report_json()) as f:
            doc = json.load(f)
        self.assertEqual((doc["kind"], doc["experiment"]), ("cc_fct", "incast"))
        self.assertEqual([r["name"] for r in doc["runs"]], INCAST)
        q = doc["runs"][0]["queue"]
        self.assertGreater(len(q), 20)
        self.assertTrue(all(len(s) == 3 and s[0] >= 0 for s in q))
        self.assertTrue(any(s[1] > 0 for s in q))

    # The figures.

    def auto(self):
        """figures.py auto on every fixture, once: (its directory, stdout)."""
        out = self.path("auto")
        if not hasattr(Figures, "auto_stdout"):
            p = self.figures("auto", "-d", out, "--prefix",
                             "cc_fct.sh (test)", self.spread_json(),
                             self.report_json(), TRACE,
                             os.path.join(TD, "spray_fct"))
            Figures.auto_stdout = p.stdout
        return out, Figures.auto_stdout

    def test_auto(self):
        out, stdout = self.auto()
        want = {"spines-fabric_spray.png": "spines",
                "spines-fabric_adapt.png": "spines",
                "spines-fabric_selftest.png": "spines",
                "queue-incast.png": "queue",
                "cwnd-incast-smartt-oblivious.png": "cwnd",
                "fct_cdf.png": "fct"}
        for name, kind in want.items():
            self.check_png(os.path.join(out, name), kind)
            self.assertIn("figure: %s\n" % os.path.join(out, name), stdout)
        self.assertEqual(sorted(os.listdir(out)), sorted(want))

    def test_fct_seconds_and_names(self):
        # a run that left nothing (it failed to start) is only skipped
        out = self.path("fct_s.png")
        p = self.figures("fct", "--x", "seconds", "-o", out, "--title", "t",
                         os.path.join(TD, "spray_fct"), "mpdt-alone", "tcp",
                         "no-such-run")
        self.check_png(out, "fct")
        self.assertIn("figures: skipped: no-such-run: no directory", p.stdout)

    # Bad and empty input; the same figure from two processes.

    def test_bad_input(self):
        bad = self.path("bad")
        os.makedirs(bad, exist_ok=True)
        trunc = os.path.join(bad, "report-incast.json")
        with open(self.report_json()) as f, open(trunc, "w") as g:
            g.write(f.read()[:300])
        junk = os.path.join(bad, "x.cwnd.trace")
        with open(junk, "w") as f:
            f.write("# tracer: nop\nthis is not a trace line\n")
        empty = os.path.join(bad, "fixed.cwnd.trace")
        with open(TRACE) as f, open(empty, "w") as g:
            g.write("".join(l for l in f if l.startswith("#")))
        other = os.path.join(bad, "notes.txt")
        with open(other, "w") as f:
            f.write("hello\n")
        # a workload with a broken line (the others are still drawn)
        spray = os.path.join(bad, "spray")
        shutil.copytree(os.path.join(TD, "spray_fct"), spray)
        client = os.path.join(spray, "tcp", "client-fab-3c1d-h1-1-0.json")
        with open(client) as f:
            line = f.read()
        with open(client, "w") as f:
            f.write(line[:100] + "\n")

        p = self.figures("queue", trunc, rc=2)
        self.assertIn("report-incast.json: not JSON", p.stderr)
        p = self.figures("queue", self.spread_json(), rc=2)
        self.assertIn("not a cc_report.py --json file", p.stderr)
        p = self.figures("cwnd", junk, rc=2)
        self.assertIn("x.cwnd.trace:2: not a line of tracefs' trace format",
                      p.stderr)
        p = self.figures("fct", os.path.join(bad, "no-such-dir"), rc=2)
        self.assertIn("no-such-dir: No such file or directory", p.stderr)
        # no event (the fixed CC): nothing to plot
        p = self.figures("cwnd", empty, rc=1)
        self.assertIn("no mpdt_cwnd events", p.stderr)
        # auto skips that, draws what it can and fails for the rest
        p = self.figures("auto", "-d", bad, "--prefix", "cc_fct.sh (test)",
                         empty, other, TRACE, spray, rc=1)
        self.assertIn("figures: skipped: %s: no mpdt_cwnd events" % empty,
                      p.stdout)
        self.assertIn("notes.txt: not a spread.py or cc_report.py JSON",
                      p.stderr)
        self.assertIn("client-fab-3c1d-h1-1-0.json:1: ", p.stderr)
        self.check_png(os.path.join(bad, "fct_cdf.png"), "fct")
        self.assertFalse(os.path.exists(os.path.join(bad, "cwnd-fixed.png")))
        # deterministic: as the other process drew it
        a = os.path.join(bad, "cwnd-incast-smartt-oblivious.png")
        b = os.path.join(self.auto()[0], "cwnd-incast-smartt-oblivious.png")
        self.check_png(a, "cwnd")
        with open(a, "rb") as fa, open(b, "rb") as fb:
            self.assertEqual(fa.read(), fb.read(), "%s != %s" % (a, b))

    def test_no_matplotlib(self):
        # What the experiments' hooks see without python3-matplotlib.
        env = dict(os.environ, MPDT_FIGURES_REEXEC="1")
        p = subprocess.run([sys.executable, "-S", FIG, "cwnd", "-o",
                            self.path("none.png"), TRACE], capture_output=True,
                           text=True, timeout=60, env=env)
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertIn("python3-matplotlib", p.stderr)
        self.assertFalse(os.path.exists(self.path("none.png")))


if __name__ == "__main__":
    unittest.main()
