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
  spec parameter checks  <->  net/mpdt/params_table.h
      each u32 parameter's name (the CLI name) and min/max: the table of
      MPDT_PARAM(field, ATTR, name, def, min, max, desc) entries, one per
      u32 tunable, and the uapi enum entry MPDT_PARAM_<ATTR> it names.
  net/mpdt/params.c, main.c, tools/mpdt/names.c  <->  params_table.h
      each file that expands the table ('#define MPDT_PARAM(...)',
      '#include "params_table.h"') is read expanded: params.c's descriptors
      must be the table's (attribute, field, name, range), main.c's
      mpdt_default_params its default column.
  spec counter docs, tools/mpdt/names.c  <->  net/mpdt/stats.c, the table
      counter and parameter names.
  Documentation/mpdt.8, mpdt.7  <->  the table, main.c
      mpdt(8) documents every parameter of the table, and lb and cc, and no
      other: an entry '.BR name " (default)"' of the param section, whose
      default is the one of main.c (mpdt_default_params, lb_name,
      cc_name) and whose text gives the table's range as "min\\-max",
      "min or max" or "min (...) to max".  mpdt(7) documents every module
      parameter of main.c (module_param_named, module_param_string) and no
      other, the same way ('.IR name " (default)"' under MODULE
      PARAMETERS); the name of a u32 one is its field, the CLI name with
      '_' for '-'.
  mpdt(7) NOTES, tools/mpdt/mpdt.bash  <->  net/mpdt/algo.c
      the load balancing and congestion control algorithms of the
      registry: each one a ".B name" entry of NOTES; the completion's
      fallback lists.

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
PARAMS_TABLE = "net/mpdt/params_table.h"
PARAMS_C = "net/mpdt/params.c"
STATS_C = "net/mpdt/stats.c"
NAMES_C = "tools/mpdt/names.c"
MAIN_C = "net/mpdt/main.c"
ALGO_C = "net/mpdt/algo.c"
MAN8 = "Documentation/mpdt.8"
MAN7 = "Documentation/mpdt.7"
COMPLETION = "tools/mpdt/mpdt.bash"

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


# The columns of a table entry, MPDT_PARAM(field, ATTR, name, def, min, max,
# desc), as the comment of params_table.h names them.
TABLE_COLUMNS = ("field", "attr", "name", "def", "min", "max", "desc")
TABLE_ENTRY = re.compile(
    r'^MPDT_PARAM\(\s*(\w+)\s*,\s*(\w+)\s*,\s*("[^"\n]*")\s*,'
    r'\s*([^,]+?)\s*,\s*([^,]+?)\s*,\s*([^,]+?)\s*,'
    r'\s*("(?:[^"\\\n]|\\.)*")\s*\)', re.M)


def param_table(text):
    """[{column: text as written}] of the entries of params_table.h, in
    its order; strings keep their quotes."""
    text = strip_comments(text)
    rows = [dict(zip(TABLE_COLUMNS, m.groups()))
            for m in TABLE_ENTRY.finditer(text)]
    written = len(re.findall(r"^MPDT_PARAM\(", text, re.M))
    if written != len(rows):
        problem("%s: %d of its %d MPDT_PARAM() entries are not "
                "MPDT_PARAM(field, ATTR, \"name\", def, min, max, \"desc\")"
                % (PARAMS_TABLE, written - len(rows), written))
    for col in ("field", "attr", "name"):
        seen = set()
        for row in rows:
            if row[col] in seen:
                problem("%s: %s %s twice" % (PARAMS_TABLE, col, row[col]))
            seen.add(row[col])
    return rows


def expand_table(text, rows, path):
    """@text (comments stripped) with every expansion of the table,
    '#define MPDT_PARAM(args) body', '#include "...params_table.h"',
    '#undef MPDT_PARAM', replaced by the body for each entry, as the
    preprocessor would: arguments substituted, '##' pasted."""
    block = re.compile(
        r'^[ \t]*#[ \t]*define[ \t]+MPDT_PARAM\(([^)]*)\)'
        r'((?:[^\n]*\\\n)*[^\n]*)\n\s*'
        r'#[ \t]*include[ \t]+"[^"]*params_table\.h"[^\n]*\n\s*'
        r'#[ \t]*undef[ \t]+MPDT_PARAM\b[^\n]*\n', re.M)

    def expand(m):
        args = [a.strip() for a in m.group(1).split(",")]
        if len(args) != len(TABLE_COLUMNS):
            problem("%s: MPDT_PARAM() takes %d arguments, the table has "
                    "%d columns" % (path, len(args), len(TABLE_COLUMNS)))
            return ""
        body = m.group(2).replace("\\\n", " ")
        out = []
        for row in rows:
            values = dict(zip(args, (row[c] for c in TABLE_COLUMNS)))
            e = re.sub(r"\b\w+\b", lambda t: values.get(t.group(0),
                                                        t.group(0)), body)
            out.append(re.sub(r"\s*##\s*", "", e))
        return "\n".join(out) + "\n"

    expanded, n = block.subn(expand, strip_comments(text))
    return expanded, n


def kernel_params(rows):
    """{MPDT_PARAM_X: (cli name, min, max)} of the table."""
    out = {}
    for row in rows:
        try:
            out["MPDT_PARAM_" + row["attr"]] = (
                row["name"].strip('"'), c_int(row["min"]), c_int(row["max"]))
        except (ValueError, SyntaxError) as e:
            problem("%s: range of %s: %s" % (PARAMS_TABLE, row["field"], e))
    return out


def check_params(spec, rows):
    s = attr_set(spec, "params")
    kernel = kernel_params(rows)
    if not kernel:
        problem("%s: no parameter table found" % PARAMS_TABLE)
    seen = set()
    for a in s["attributes"]:
        if a.get("type") != "u32":
            continue
        attr = c_name(s["name-prefix"], a["name"])
        seen.add(attr)
        if attr not in kernel:
            problem("param %s: not in the table of %s"
                    % (a["name"], PARAMS_TABLE))
            continue
        name, lo, hi = kernel[attr]
        checks = a.get("checks", {})
        if name != a["name"]:
            problem("param %s: %s calls it %s" % (a["name"], PARAMS_TABLE,
                                                  name))
        if (checks.get("min"), checks.get("max")) != (lo, hi):
            problem("param %s: spec range %s..%s, %s has %d..%d"
                    % (a["name"], checks.get("min"), checks.get("max"),
                       PARAMS_TABLE, lo, hi))
    for attr in sorted(set(kernel) - seen):
        problem("param %s (%s): in %s, not a u32 in the spec"
                % (kernel[attr][0], attr, PARAMS_TABLE))
    return kernel


def check_descriptors(root, rows):
    """params.c's mpdt_param_descs[] must be the table's entries."""
    text, n = expand_table(read(root, PARAMS_C), rows, PARAMS_C)
    m = re.search(r"\bmpdt_param_descs\s*\[\s*\]\s*=\s*{(.*?)};", text, re.S)
    have = re.findall(r"{\s*(MPDT_PARAM_\w+)\s*,\s*(?:offsetof\(\s*struct\s+"
                      r"mpdt_params\s*,\s*|FIELD\()(\w+)\s*\)\s*,\s*"
                      r"\"([^\"]+)\"\s*,\s*([^,}]+?)\s*,\s*([^,}]+?)\s*}",
                      m.group(1) if m else "")
    want = [("MPDT_PARAM_" + r["attr"], r["field"], r["name"].strip('"'),
             r["min"], r["max"]) for r in rows]
    if not n or have != want:
        problem("%s: mpdt_param_descs[] is not one descriptor per entry of "
                "%s ({ MPDT_PARAM_##ATTR, offsetof(struct mpdt_params, "
                "field), name, min, max })" % (PARAMS_C, PARAMS_TABLE))


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


def check_names(spec, root, kernel_param_table, rows):
    stats = name_table(read(root, STATS_C), "mpdt_stat_names")
    names_c = expand_table(read(root, NAMES_C), rows, NAMES_C)[0]
    compare_tables("counter", name_table(names_c, "stat_names"), stats,
                   NAMES_C, STATS_C)
    kparams = {attr: v[0] for attr, v in kernel_param_table.items()}
    kparams.update(MPDT_PARAM_LB="lb", MPDT_PARAM_CC="cc")
    compare_tables("parameter", name_table(names_c, "param_names"), kparams,
                   NAMES_C, PARAMS_TABLE)
    s = attr_set(spec, "stats")
    for a in s["attributes"]:
        if a["type"] != "u64":
            continue
        attr = c_name(s["name-prefix"], a["name"])
        doc_name = a.get("doc", "").split(":")[0]
        if stats and doc_name != stats.get(attr):
            problem("stat %s: spec doc names it %r, %s %r"
                    % (a["name"], doc_name, STATS_C, stats.get(attr)))


def c_expr(expr, defines):
    """Value of a default's initializer: literals, the header's defines,
    + - * / << and parentheses (/ divides integers, as in C)."""
    for _ in range(8):
        expanded = re.sub(r"\b[A-Z_][A-Z0-9_]*\b",
                          lambda m: "(%s)" % defines.get(m.group(0),
                                                         m.group(0)), expr)
        if expanded == expr:
            break
        expr = expanded
    expr = re.sub(r"(?<=\d)[uUlL]+\b", "", expr.strip())
    if not re.fullmatch(r"[0-9xXa-fA-F\s()<>+\-*/]+", expr):
        raise ValueError("not a constant expression: %r" % expr)
    # only digits and operators; no operand here is negative
    return eval(expr.replace("/", "//"), {"__builtins__": {}})


def param_fields(rows):
    """{MPDT_PARAM_X: struct field} of the table."""
    return {"MPDT_PARAM_" + r["attr"]: r["field"] for r in rows}


def main_defaults(text, defines):
    """{field: value} of mpdt_default_params, {variable: string} of the
    char arrays initialised with a string, and the module parameters
    [(name, ("field", f) or ("string", variable))] of main.c (@text, the
    table expanded)."""
    fields = {}
    m = re.search(r"struct\s+mpdt_params\s+mpdt_default_params\s*=\s*{(.*?)};",
                  text, re.S)
    if not m:
        problem("%s: no mpdt_default_params initializer found" % MAIN_C)
    else:
        for field, expr in re.findall(r"\.(\w+)\s*=\s*([^,]+)",
                                      m.group(1)):
            try:
                fields[field] = c_expr(expr, defines)
            except (ValueError, SyntaxError) as e:
                problem("%s: default of %s: %s" % (MAIN_C, field, e))
    strings = dict(re.findall(r"\bchar\s+(\w+)\s*\[[^\]]*\]\s*=\s*\"([^\"]*)\"",
                              text))
    modparams = []
    for name, field in re.findall(
            r"module_param_named\(\s*(\w+)\s*,\s*mpdt_default_params\.(\w+)",
            text):
        modparams.append((name, ("field", field)))
    for name, var in re.findall(r"module_param_string\(\s*(\w+)\s*,\s*(\w+)",
                                text):
        modparams.append((name, ("string", var)))
    for name in re.findall(r"\bmodule_param\(\s*(\w+)", text):
        modparams.append((name, ("field", name)))
    if not modparams:
        problem("%s: no module parameters found" % MAIN_C)
    return fields, strings, modparams


def roff_text(line):
    """A roff line as read: font macros and escapes dropped."""
    line = re.sub(r"^\.(?:B|I|R|BR|RB|IR|RI|BI|IB)\s+", "", line)
    line = line.replace("\\-", "-").replace("\\(mu", "x")
    line = re.sub(r"\\f[BIRP]", "", line)
    return line.replace('"', "")


def man_section(text, start, what, path):
    """The lines from the one matching @start to the next heading of the
    same level (.SH, or .SS/.SH for a .SS start)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.match(start, line):
            end = r"^\.S[HS]\b" if line.startswith(".SS") else r"^\.SH\b"
            for j in range(i + 1, len(lines)):
                if re.match(end, lines[j]):
                    return lines[i + 1:j]
            return lines[i + 1:]
    problem("%s: no %s section" % (path, what))
    return []


def man_entries(lines, name_re):
    """[(name, default or None, text)] of the .TP entries whose tag line is
    '.B NAME', '.I NAME', or '.BR/.IR NAME " (DEFAULT)"'."""
    out = []
    for i, line in enumerate(lines):
        if not re.match(r"^\.TP\b", line) or i + 1 >= len(lines):
            continue
        m = re.match(r'^\.(?:B|I|BR|IR)\s+(%s)(?:\s+"\s*\(([^)"]*)\)\s*")?\s*$'
                     % name_re, lines[i + 1])
        if not m:
            continue
        body = []
        for line in lines[i + 2:]:
            if re.match(r"^\.(?:TP|PP|SS|SH|RE)\b", line):
                break
            body.append(roff_text(line))
        out.append((m.group(1).replace("\\-", "-"), m.group(2),
                    " ".join(body)))
    return out


def range_written(text, lo, hi):
    """Whether @text gives the range lo..hi as the pages write ranges."""
    pats = [r"(?<![\d.])%d-%d(?!\d)" % (lo, hi),
            r"(?<![\d.])%d \([^)]*\) to %d(?!\d)" % (lo, hi)]
    if hi == lo + 1:
        pats.append(r"(?<![\d.])%d or %d(?!\d)" % (lo, hi))
    return any(re.search(p, text) for p in pats)


def check_man_entries(path, what, entries, table):
    """@table: {name: (default as text, (lo, hi) or None)}."""
    seen = {}
    for name, default, text in entries:
        if name in seen:
            problem("%s: %s %s documented twice" % (path, what, name))
        seen[name] = True
        if name not in table:
            problem("%s: documents %s %s, which does not exist"
                    % (path, what, name))
            continue
        want, rng = table[name]
        if default is None:
            problem("%s: %s %s: no default; want '%s \" (%s)\"' on its tag line"
                    % (path, what, name, name.replace("-", "\\-"), want))
        elif default != want:
            problem("%s: %s %s: default %s, the code's is %s"
                    % (path, what, name, default, want))
        if rng and not range_written(text, *rng):
            problem("%s: %s %s: the text does not give its range %d\\-%d"
                    % (path, what, name, rng[0], rng[1]))
    for name in table:
        if name not in seen:
            problem("%s: %s %s is not documented" % (path, what, name))


def check_man_pages(root, kernel_param_table, rows):
    defines = {k: v for k, v in header_defines(read(root, UAPI)).items()
               if re.fullmatch(r"[0-9xXa-fA-FuUlL\s()<>+\-*]+", v)}
    main_c, n = expand_table(read(root, MAIN_C), rows, MAIN_C)
    if n != 2:
        problem("%s: expands %s %d times, want 2 (mpdt_default_params and "
                "the module parameters)" % (MAIN_C, PARAMS_TABLE, n))
    fields, strings, modparams = main_defaults(main_c, defines)
    for row in rows:
        try:
            want = c_expr(row["def"], defines)
        except (ValueError, SyntaxError) as e:
            problem("%s: default of %s: %s" % (PARAMS_TABLE, row["field"], e))
            continue
        if fields.get(row["field"], want) != want:
            problem("%s: default of %s is %s, %s says %s"
                    % (MAIN_C, row["field"], fields[row["field"]],
                       PARAMS_TABLE, want))
    fieldof = param_fields(rows)
    desc_by_field = {fieldof[a]: v for a, v in kernel_param_table.items()
                     if a in fieldof}

    def field_default(field, who):
        if field not in fields:
            problem("%s: %s: field %s has no default in mpdt_default_params"
                    % (MAIN_C, who, field))
            return "?"
        return str(fields[field])

    # mpdt(8): the CLI's names.
    table8 = {}
    for attr, (name, lo, hi) in kernel_param_table.items():
        table8[name] = (field_default(fieldof.get(attr), name), (lo, hi))
    string_params = {n: v for n, v in modparams if v[0] == "string"}
    for name in ("lb", "cc"):
        var = string_params.get(name, ("string", None))[1]
        if var not in strings:
            problem("%s: no default for parameter %s" % (MAIN_C, name))
        table8[name] = (strings.get(var, "?"), None)
    lines = man_section(read(root, MAN8), r"^\.SS param\b", ".SS param", MAN8)
    check_man_entries(MAN8, "parameter", man_entries(lines, r"[a-z][a-z0-9\\-]*"),
                      table8)

    # mpdt(7): the module parameters.
    table7 = {}
    for name, (kind, ref) in modparams:
        if kind == "string":
            table7[name] = (strings.get(ref, "?"), None)
            continue
        desc = desc_by_field.get(ref)
        table7[name] = (field_default(ref, name), desc[1:] if desc else None)
        if desc and desc[0].replace("-", "_") != name:
            problem("%s: module parameter %s is %s's field, which mpdt(8) "
                    "calls %s" % (MAIN_C, name, PARAMS_TABLE, desc[0]))
    lines = man_section(read(root, MAN7), r"^\.SH MODULE PARAMETERS\b",
                        ".SH MODULE PARAMETERS", MAN7)
    check_man_entries(MAN7, "module parameter",
                      man_entries(lines, r"[a-z][a-z0-9_]*"), table7)
    return len(table8), len(table7)


def algorithms(root):
    """{"lb": [names], "cc": [names]} of the registry, in its order."""
    text = strip_comments(read(root, ALGO_C))
    ops = {}
    for path in sorted(os.listdir(os.path.join(root, "net/mpdt"))):
        if path.endswith(".c"):
            src = strip_comments(read(root, "net/mpdt/" + path))
            for sym, body in re.findall(
                    r"struct\s+mpdt_(?:lb|cc)_ops\s+(\w+)\s*=\s*{(.*?)};",
                    src, re.S):
                m = re.search(r"\.name\s*=\s*\"([^\"]+)\"", body)
                if m:
                    ops[sym] = m.group(1)
    out = {}
    for kind in ("lb", "cc"):
        m = re.search(r"\b%s_algos\[\]\s*=\s*{(.*?)}" % kind, text, re.S)
        syms = re.findall(r"&(\w+)", m.group(1)) if m else []
        if not syms:
            problem("%s: no %s registry found" % (ALGO_C, kind))
        out[kind] = [ops.get(s, "?" + s) for s in syms]
    return out


def check_algorithms(root):
    algos = algorithms(root)
    every = algos["lb"] + algos["cc"]
    lines = man_section(read(root, MAN7), r"^\.SH NOTES\b", ".SH NOTES", MAN7)
    documented = [name for name, _, _ in man_entries(lines, r"[a-z][a-z0-9_]*")]
    for name in every:
        if name not in documented:
            problem("%s: NOTES: algorithm %s is not documented" % (MAN7, name))
    for name in documented:
        if name not in every:
            problem("%s: NOTES: documents algorithm %s, which %s does not have"
                    % (MAN7, name, ALGO_C))
    text = read(root, COMPLETION)
    for kind in ("lb", "cc"):
        m = re.search(r"^_mpdt_%s_algos=\(([^)]*)\)" % kind, text, re.M)
        if not m or m.group(1).split() != algos[kind]:
            problem("%s: _mpdt_%s_algos=(%s), want (%s) as %s"
                    % (COMPLETION, kind, m.group(1) if m else "?",
                       " ".join(algos[kind]), ALGO_C))
    return len(every)


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
    rows = param_table(read(args.root, PARAMS_TABLE))
    kernel_param_table = check_params(spec, rows)
    check_descriptors(args.root, rows)
    check_names(spec, args.root, kernel_param_table, rows)
    n8, n7 = check_man_pages(args.root, kernel_param_table, rows)
    n_algos = check_algorithms(args.root)
    for p in problems:
        print("spec_check: %s" % p)
    if problems:
        print("spec_check: %d difference(s)" % len(problems))
        return 1
    print("spec_check: ok: %s, %s, %s, %s and %s agree (%d enum entries)"
          % (SPEC, UAPI, PARAMS_TABLE, STATS_C, NAMES_C, n))
    print("spec_check: ok: %s documents the %d parameters, %s the %d module "
          "parameters and the %d algorithms, as %s, %s and %s have them"
          % (MAN8, n8, MAN7, n7, n_algos, PARAMS_TABLE, MAIN_C, ALGO_C))
    return 0


if __name__ == "__main__":
    sys.exit(main())
