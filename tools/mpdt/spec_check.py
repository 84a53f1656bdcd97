#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""spec_check.py: check that the "mpdt" netlink spec, the uAPI header, the
kernel's name tables and mpdt(8)'s name tables agree.

  Documentation/netlink/specs/mpdt.yaml  <->  include/uapi/linux/mpdt.h
      every enum, attribute set and operation list of the spec, rendered as
      the kernel's netlink C code generator would (genetlink-c naming), must
      be in the header with the same names in the same order with the same
      values, followed by its __*_MAX count and *_MAX define; so must the
      family name, version, multicast group and constants.
  spec parameter checks  <->  net/mpdt/params.c
      each u32 parameter's name (the CLI name) and min/max.
  spec counter docs, tools/mpdt/names.c  <->  net/mpdt/stats.c, params.c
      counter and parameter names.

Exit 0 if all agree, 1 (listing every difference) if not, 2 on a usage error.
With --names, also print the parameter and counter names of the spec, in
order, as "param NAME" and "stat NAME" lines (for tests of the CLI's output).
Needs python3-yaml.
"""

import argparse
import os
import re
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
SPEC = "Documentation/netlink/specs/mpdt.yaml"
UAPI = "include/uapi/linux/mpdt.h"
PARAMS_C = "net/mpdt/params.c"
STATS_C = "net/mpdt/stats.c"
NAMES_C = "tools/mpdt/names.c"

problems = []


def problem(msg):
    problems.append(msg)


def c_name(*parts):
    return "".join(parts).upper().replace("-", "_")


def read(root, path):
    with open(os.path.join(root, path)) as f:
        return f.read()


def strip_comments(text):
    return re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)


def c_int(expr):
    """Value of a C integer expression of literals, <<, +, -, ( )."""
    expr = re.sub(r"(?<=\d)[uUlL]+\b", "", expr.strip())
    if not re.fullmatch(r"[0-9xXa-fA-F\s()<>+\-]+", expr):
        raise ValueError("not a literal expression: %r" % expr)
    return eval(expr, {"__builtins__": {}})  # only digits and operators


def header_enums(text):
    """{enum name: [(entry, value), ...]} of the header's named enums."""
    enums = {}
    for name, body in re.findall(r"enum\s+(\w+)\s*{(.*?)}", text, re.S):
        entries, value = [], -1
        for item in body.split(","):
            item = item.strip()
            if not item:
                continue
            entry, _, init = item.partition("=")
            value = c_int(init) if init else value + 1
            entries.append((entry.strip(), value))
        enums[name] = entries
    return enums


def header_defines(text):
    return {m.group(1): m.group(2).strip()
            for m in re.finditer(r"^#define\s+(\w+)\s+(.+?)\s*$", text, re.M)}


def numbered(items, prefix, first):
    """[(C name, value)] of spec items with optional explicit values."""
    out, value = [], first - 1
    for item in items:
        name = item if isinstance(item, str) else item["name"]
        if isinstance(item, dict) and "value" in item:
            value = item["value"]
        else:
            value += 1
        out.append((c_name(prefix, name), value))
    return out


def expect_enum(enums, defines, what, enum_name, entries, cnt=None, max_=None):
    """The header must have enum @enum_name == @entries (+ count, max)."""
    want = list(entries)
    if cnt:
        want.append((cnt, want[-1][1] + 1 if want else 0))
    have = enums.get(enum_name)
    if have is None:
        problem("%s: enum %s is not in %s" % (what, enum_name, UAPI))
        return
    if have != want:
        for i in range(max(len(have), len(want))):
            h = have[i] if i < len(have) else None
            w = want[i] if i < len(want) else None
            if h != w:
                problem("%s: enum %s entry %d: header has %s, spec says %s"
                        % (what, enum_name, i, h, w))
                break
    if max_:
        got = defines.get(max_, "").replace(" ", "")
        if got != "(%s-1)" % cnt:
            problem("%s: want '#define %s (%s - 1)' in the header"
                    % (what, max_, cnt))


def check_header(spec, text):
    enums, defines = header_enums(strip_comments(text)), header_defines(text)
    family = spec["name"]
    by_define = spec.get("max-by-define", False)

    def define_is(name, value, what):
        if defines.get(name) != value:
            problem("%s: want '#define %s %s', header has %s"
                    % (what, name, value, defines.get(name)))

    define_is(c_name(spec["c-family-name"]), '"%s"' % family, "family name")
    define_is(c_name(spec["c-version-name"]), str(spec.get("version", 1)),
              "family version")
    for grp in spec["mcast-groups"]["list"]:
        define_is(c_name(grp["c-define-name"]), '"%s"' % grp["name"],
                  "multicast group")

    for d in spec.get("definitions", []):
        what = "definition %s" % d["name"]
        if d["type"] == "const":
            define_is(c_name(family, "-", d["name"]), str(d["value"]), what)
            continue
        prefix = d.get("name-prefix", "%s-%s-" % (family, d["name"]))
        entries = numbered(d["entries"], prefix, d.get("value-start", 0))
        render_max = d.get("render-max", False)
        cnt = c_name("__", prefix, "max") if render_max else None
        expect_enum(enums, defines, what, d["enum-name"], entries, cnt)

    for s in spec["attribute-sets"]:
        prefix = s["name-prefix"]
        entries = numbered(s["attributes"], prefix, 1)
        expect_enum(enums, defines, "attribute-set %s" % s["name"],
                    s["enum-name"], entries, c_name("__", prefix, "max"),
                    c_name(prefix, "max") if by_define else None)

    ops = spec["operations"]
    entries = numbered(ops["list"], ops["name-prefix"], 1)
    expect_enum(enums, defines, "operations", ops["enum-name"], entries,
                c_name("__", ops["name-prefix"], "max"),
                c_name(ops["name-prefix"], "max") if by_define else None)
    return sum(len(e) for e in enums.values())


def attr_set(spec, name):
    for s in spec["attribute-sets"]:
        if s["name"] == name:
            return s
    raise SystemExit("spec has no attribute-set %s" % name)


def kernel_params(text):
    """{MPDT_PARAM_X: (cli name, min, max)} from the table in params.c."""
    out = {}
    for m in re.finditer(r"{\s*(MPDT_PARAM_\w+)\s*,\s*FIELD\(\w+\)\s*,\s*"
                         r"\"([^\"]+)\"\s*,\s*([^,}]+),\s*([^,}]+?)\s*}",
                         strip_comments(text)):
        out[m.group(1)] = (m.group(2), c_int(m.group(3)), c_int(m.group(4)))
    return out


def check_params(spec, text):
    s = attr_set(spec, "params")
    kernel = kernel_params(text)
    if not kernel:
        problem("%s: no parameter table found" % PARAMS_C)
    seen = set()
    for a in s["attributes"]:
        if a.get("type") != "u32":
            continue
        attr = c_name(s["name-prefix"], a["name"])
        seen.add(attr)
        if attr not in kernel:
            problem("param %s: not in the table of %s" % (a["name"], PARAMS_C))
            continue
        name, lo, hi = kernel[attr]
        checks = a.get("checks", {})
        if name != a["name"]:
            problem("param %s: %s calls it %s" % (a["name"], PARAMS_C, name))
        if (checks.get("min"), checks.get("max")) != (lo, hi):
            problem("param %s: spec range %s..%s, %s has %d..%d"
                    % (a["name"], checks.get("min"), checks.get("max"),
                       PARAMS_C, lo, hi))
    for attr in sorted(set(kernel) - seen):
        problem("param %s (%s): in %s, not a u32 in the spec"
                % (kernel[attr][0], attr, PARAMS_C))
    return kernel


def name_table(text, array):
    """{ENUM: "name"} of a designated-initializer table of strings."""
    m = re.search(r"\b%s\s*\[[^\]]*\]\s*=\s*{(.*?)};" % array,
                  strip_comments(text), re.S)
    if not m:
        return None
    return dict(re.findall(r"\[\s*(\w+)\s*\]\s*=\s*\"([^\"]*)\"", m.group(1)))


def compare_tables(what, ours, theirs, our_file, their_file):
    if ours is None or theirs is None:
        problem("%s: table not found in %s or %s"
                % (what, our_file, their_file))
        return
    for key in sorted(set(ours) | set(theirs)):
        if ours.get(key) != theirs.get(key):
            problem("%s %s: %s says %s, %s says %s"
                    % (what, key, our_file, ours.get(key), their_file,
                       theirs.get(key)))


def check_names(spec, root, kernel_param_table):
    stats = name_table(read(root, STATS_C), "mpdt_stat_names")
    names_c = read(root, NAMES_C)
    compare_tables("counter", name_table(names_c, "stat_names"), stats,
                   NAMES_C, STATS_C)
    kparams = {attr: v[0] for attr, v in kernel_param_table.items()}
    kparams.update(MPDT_PARAM_LB="lb", MPDT_PARAM_CC="cc")
    compare_tables("parameter", name_table(names_c, "param_names"), kparams,
                   NAMES_C, PARAMS_C)
    s = attr_set(spec, "stats")
    for a in s["attributes"]:
        if a["type"] != "u64":
            continue
        attr = c_name(s["name-prefix"], a["name"])
        doc_name = a.get("doc", "").split(":")[0]
        if stats and doc_name != stats.get(attr):
            problem("stat %s: spec doc names it %r, %s %r"
                    % (a["name"], doc_name, STATS_C, stats.get(attr)))


def print_names(spec):
    for a in attr_set(spec, "params")["attributes"]:
        if a["type"] != "unused":
            print("param %s" % a["name"])
    for a in attr_set(spec, "stats")["attributes"]:
        if a["type"] == "u64":
            print("stat %s" % a["doc"].split(":")[0])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=ROOT, help="repository root")
    ap.add_argument("--names", action="store_true",
                    help="print the spec's parameter and counter names")
    args = ap.parse_args()
    # libyaml's loader when there is one: much faster in an emulated VM.
    spec = yaml.load(read(args.root, SPEC),
                     Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    if args.names:
        print_names(spec)
    n = check_header(spec, read(args.root, UAPI))
    kernel_param_table = check_params(spec, read(args.root, PARAMS_C))
    check_names(spec, args.root, kernel_param_table)
    for p in problems:
        print("spec_check: %s" % p)
    if problems:
        print("spec_check: %d difference(s)" % len(problems))
        return 1
    print("spec_check: ok: %s, %s, %s, %s and %s agree (%d enum entries)"
          % (SPEC, UAPI, PARAMS_C, STATS_C, NAMES_C, n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
