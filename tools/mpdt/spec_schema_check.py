#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""spec_schema_check.py: validate the "mpdt" netlink spec against the YNL
schema of Generic Netlink specs.

  Documentation/netlink/specs/mpdt.yaml  against
  Documentation/netlink/genetlink-legacy.yaml

The schema is the project's own (GPL-2.0 OR BSD-3-Clause), written from the
kernel's documentation of the YNL format; it is as strict as the kernel's
genetlink-legacy.yaml and, with if/else branches on "protocol", as strict as
its genetlink.yaml and genetlink-c.yaml for specs that declare those levels
(so "protocol: genetlink-c" with the uns-admin-perm flag fails).

Exit 0 if the spec is valid, 1 (printing every violation, with where it is
in the spec and the rule it breaks) if not, 2 on a usage error or a missing
dependency.

--self-test: the real spec must pass, and copies of it changed in memory in
ways the schema must catch must each fail, at the place changed: an unknown
top-level key, a bad attribute type, genetlink-c with uns-admin-perm, an
operation's do without attribute-set, an unknown check, a misspelled
byte-order, and more.  Exit 0 if all behave, 1 otherwise.

Needs python3-yaml and python3-jsonschema (Debian packages; `make deps`).
"""

import argparse
import copy
import os
import sys
import time

try:
    import yaml
    import jsonschema
    from jsonschema import validators
except ImportError as e:
    sys.stderr.write(
        "spec_schema_check: %s: install the Debian packages python3-yaml and "
        "python3-jsonschema (apt-get install python3-yaml python3-jsonschema, "
        "or `make deps`)\n" % e)
    sys.exit(2)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
SPEC = os.path.join(ROOT, "Documentation/netlink/specs/mpdt.yaml")
SCHEMA = os.path.join(ROOT, "Documentation/netlink/genetlink-legacy.yaml")
PROG = "spec_schema_check"
MAX_SHOWN = 20


def load_yaml(path):
    try:
        with open(path) as f:
            return yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        sys.stderr.write("%s: %s: %s\n" % (PROG, path, e))
        sys.exit(2)


def make_validator(schema, schema_path):
    cls = validators.validator_for(schema, default=jsonschema.Draft7Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.exceptions.SchemaError as e:
        sys.stderr.write("%s: %s is not a valid JSON Schema: %s\n"
                         % (PROG, schema_path, e.message))
        sys.exit(2)
    return cls(schema)


def where(spec, path):
    """operations.list[2](param-set).flags[0] for a path into the spec."""
    out = ""
    node = spec
    for key in path:
        if isinstance(key, int):
            out += "[%d]" % key
        else:
            out += ("." if out else "") + str(key)
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            node = None
        if isinstance(key, int) and isinstance(node, dict) \
                and isinstance(node.get("name"), str):
            out += "(%s)" % node["name"]
    return out or "(top level)"


def errors_of(validator, schema, spec):
    out = []
    errs = sorted(validator.iter_errors(spec),
                  key=lambda e: [str(p) for p in e.absolute_path])
    for e in errs:
        msg = "%s: %s" % (where(spec, e.absolute_path), e.message)
        titles = [t for t in ref_titles(schema, e.absolute_schema_path)
                  if t != schema.get("title")]
        if titles:
            msg += " [%s]" % "; ".join(titles)
        if e.context:
            best = jsonschema.exceptions.best_match(e.context)
            msg += " (%s: %s)" % (where(spec, list(e.absolute_path)
                                        + list(best.relative_path)),
                                  best.message)
        out.append((list(e.absolute_path), msg))
    return out


def ref_titles(schema, schema_path):
    """Titles of the schema objects along schema_path, following local
    $refs (jsonschema continues the path inside the referenced schema)."""
    titles = []
    node = schema
    for key in schema_path:
        if key == "$ref" and isinstance(node, dict):
            ref = node.get("$ref", "")
            if not ref.startswith("#/"):
                break
            node = schema
            for part in ref[2:].split("/"):
                node = node[part.replace("~1", "/").replace("~0", "~")]
            continue
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            break
        if isinstance(node, dict) and isinstance(node.get("title"), str):
            titles.append(node["title"])
    return titles


def validate(spec_path, schema_path):
    schema = load_yaml(schema_path)
    spec = load_yaml(spec_path)
    validator = make_validator(schema, schema_path)
    errs = errors_of(validator, schema, spec)
    name = os.path.relpath(spec_path, ROOT) if spec_path.startswith(ROOT) \
        else spec_path
    sname = os.path.relpath(schema_path, ROOT) \
        if schema_path.startswith(ROOT) else schema_path
    if not errs:
        print("%s: %s is valid under %s" % (PROG, name, sname))
        return 0
    for _, msg in errs[:MAX_SHOWN]:
        print("%s: %s: %s" % (PROG, name, msg))
    if len(errs) > MAX_SHOWN:
        print("%s: ... and %d more" % (PROG, len(errs) - MAX_SHOWN))
    print("%s: %s is NOT valid under %s (%d error%s)"
          % (PROG, name, sname, len(errs), "" if len(errs) == 1 else "s"))
    return 1


# ---- self-test -------------------------------------------------------------

class Skip(Exception):
    pass


def index_where(items, pred, what):
    for i, x in enumerate(items):
        if pred(x):
            return i
    raise Skip("the spec has no %s" % what)


def attr_where(spec, pred, what):
    """(set index, attribute index) of the first attribute matching pred."""
    for si, s in enumerate(spec.get("attribute-sets", [])):
        for ai, a in enumerate(s.get("attributes", [])):
            if pred(a):
                return si, ai
    raise Skip("the spec has no attribute with %s" % what)


def ops(spec):
    return spec["operations"]["list"]


def op_with_attrs(spec):
    """Index of the first operation with a do listing attributes."""
    def has(op):
        do = op.get("do") or {}
        return "attribute-set" in op and any(
            isinstance(do.get(d), dict) and "attributes" in do[d]
            for d in ("request", "reply"))
    return index_where(ops(spec), has, "operation whose do lists attributes")


# Each mutation changes the spec in place and returns the path (into the
# spec) at or under which the schema must report an error.

def m_unknown_top_key(spec):
    spec["colour"] = "blue"
    return []


def m_bad_attr_type(spec):
    si, ai = attr_where(spec, lambda a: a.get("type") == "u32", "type u32")
    spec["attribute-sets"][si]["attributes"][ai]["type"] = "u31"
    return ["attribute-sets", si, "attributes", ai, "type"]


def m_c_with_uns_admin_perm(spec):
    spec["protocol"] = "genetlink-c"
    try:
        i = index_where(ops(spec),
                        lambda o: "uns-admin-perm" in o.get("flags", []),
                        "operation with uns-admin-perm")
    except Skip:
        i = op_with_attrs(spec)
        ops(spec)[i]["flags"] = ["uns-admin-perm"]
    return ["operations", "list", i, "flags"]


def m_default_level_with_uns_admin_perm(spec):
    # No protocol means genetlink, which has neither uns-admin-perm nor the
    # C naming properties.
    path = m_c_with_uns_admin_perm(spec)
    del spec["protocol"]
    return path


def m_c_with_mcgrp_uns_admin_perm(spec):
    spec["protocol"] = "genetlink-c"
    _c_ok(spec)
    if not spec.get("mcast-groups", {}).get("list"):
        raise Skip("the spec has no multicast group")
    spec["mcast-groups"]["list"][0]["flags"] = ["uns-admin-perm"]
    return ["mcast-groups", "list", 0, "flags"]


def m_no_attribute_set(spec):
    i = op_with_attrs(spec)
    del ops(spec)[i]["attribute-set"]
    return ["operations", "list", i]


def m_unknown_check(spec):
    si, ai = attr_where(spec, lambda a: "checks" in a, "checks")
    spec["attribute-sets"][si]["attributes"][ai]["checks"]["maximum"] = 5
    return ["attribute-sets", si, "attributes", ai, "checks"]


def m_bad_byte_order(spec):
    try:
        si, ai = attr_where(spec, lambda a: "byte-order" in a, "byte-order")
    except Skip:
        si, ai = attr_where(spec, lambda a: a.get("type") == "u32",
                            "type u32")
    spec["attribute-sets"][si]["attributes"][ai]["byte-order"] = "big-endain"
    return ["attribute-sets", si, "attributes", ai, "byte-order"]


def m_bad_display_hint(spec):
    si, ai = attr_where(spec, lambda a: a.get("type") == "u32", "type u32")
    spec["attribute-sets"][si]["attributes"][ai]["display-hint"] = "ip4"
    return ["attribute-sets", si, "attributes", ai, "display-hint"]


def m_unknown_attr_key(spec):
    si, ai = attr_where(spec, lambda a: True, "attributes")
    spec["attribute-sets"][si]["attributes"][ai]["nested"] = "params"
    return ["attribute-sets", si, "attributes", ai]


def m_attr_without_type(spec):
    si, ai = attr_where(spec, lambda a: a.get("type") == "u32", "type u32")
    if "subset-of" in spec["attribute-sets"][si]:
        raise Skip("the first u32 attribute is in a subset")
    del spec["attribute-sets"][si]["attributes"][ai]["type"]
    return ["attribute-sets", si, "attributes", ai]


def m_bad_flag(spec):
    i = op_with_attrs(spec)
    ops(spec)[i]["flags"] = ["admin-perms"]
    return ["operations", "list", i, "flags"]


def m_unknown_do_key(spec):
    i = op_with_attrs(spec)
    ops(spec)[i]["do"]["replies"] = {"attributes": []}
    return ["operations", "list", i, "do"]


def m_op_without_doc(spec):
    i = op_with_attrs(spec)
    del ops(spec)[i]["doc"]
    return ["operations", "list", i]


def m_bad_protocol(spec):
    spec["protocol"] = "genetlink-legacyy"
    return ["protocol"]


def m_bad_enum_model(spec):
    spec["operations"]["enum-model"] = "directionnal"
    return ["operations", "enum-model"]


def m_c_with_directional(spec):
    spec["protocol"] = "genetlink-c"
    _c_ok(spec)
    spec["operations"]["enum-model"] = "directional"
    return ["operations", "enum-model"]


def m_c_with_struct(spec):
    spec["protocol"] = "genetlink-c"
    _c_ok(spec)
    spec.setdefault("definitions", []).append(
        {"type": "struct", "name": "hdr",
         "members": [{"name": "a", "type": "u32"}]})
    return ["definitions", len(spec["definitions"]) - 1]


def m_event_and_notify(spec):
    i = index_where(ops(spec), lambda o: "event" in o, "event")
    ops(spec)[i]["notify"] = ops(spec)[i]["name"]
    return ["operations", "list", i]


def m_subset_with_name_prefix(spec):
    spec["attribute-sets"].append(_subset(spec))
    spec["attribute-sets"][-1]["name-prefix"] = "x-"
    return ["attribute-sets", len(spec["attribute-sets"]) - 1]


def m_missing_attribute_sets(spec):
    del spec["attribute-sets"]
    return []


def _c_ok(spec):
    """Make the spec valid genetlink-c: uns-admin-perm becomes admin-perm."""
    for op in ops(spec):
        if "flags" in op:
            op["flags"] = ["admin-perm" if f == "uns-admin-perm" else f
                           for f in op["flags"]]
    for g in spec.get("mcast-groups", {}).get("list", []):
        if "flags" in g:
            g["flags"] = ["admin-perm" if f == "uns-admin-perm" else f
                          for f in g["flags"]]


def p_as_genetlink_c(spec):
    spec["protocol"] = "genetlink-c"
    _c_ok(spec)


def p_unchanged(spec):
    pass


def _subset(spec):
    """A subset of the first set, its first typed attribute without type."""
    full = spec["attribute-sets"][0]
    _, ai = attr_where({"attribute-sets": [full]}, lambda a: "type" in a,
                       "type")
    return {"name": full["name"] + "-subset", "subset-of": full["name"],
            "attributes": [{"name": full["attributes"][ai]["name"]}]}


def p_with_subset(spec):
    spec["attribute-sets"].append(_subset(spec))


MUST_FAIL = [
    ("unknown top-level key", m_unknown_top_key),
    ("bad attribute type", m_bad_attr_type),
    ("genetlink-c with uns-admin-perm", m_c_with_uns_admin_perm),
    ("no protocol (genetlink) with uns-admin-perm",
     m_default_level_with_uns_admin_perm),
    ("genetlink-c with uns-admin-perm on a multicast group",
     m_c_with_mcgrp_uns_admin_perm),
    ("operation's do without attribute-set", m_no_attribute_set),
    ("check key that does not exist", m_unknown_check),
    ("misspelled byte-order", m_bad_byte_order),
    ("unknown display-hint", m_bad_display_hint),
    ("unknown attribute property", m_unknown_attr_key),
    ("attribute of a full set without type", m_attr_without_type),
    ("unknown operation flag", m_bad_flag),
    ("unknown key in a do", m_unknown_do_key),
    ("operation without doc", m_op_without_doc),
    ("unknown protocol", m_bad_protocol),
    ("unknown enum-model", m_bad_enum_model),
    ("genetlink-c with directional enum-model", m_c_with_directional),
    ("genetlink-c with a struct definition", m_c_with_struct),
    ("event and notify together", m_event_and_notify),
    ("subset with its own name-prefix", m_subset_with_name_prefix),
    ("no attribute-sets", m_missing_attribute_sets),
]

MUST_PASS = [
    ("the spec as it is", p_unchanged),
    # The control of the genetlink-c cases: the same spec declared
    # genetlink-c is valid once it uses admin-perm instead.
    ("the spec as genetlink-c with admin-perm", p_as_genetlink_c),
    # Attributes of a subset may leave their type to the full set.
    ("the spec with a subset whose attribute has no type", p_with_subset),
]


def self_test(spec_path, schema_path):
    start = time.monotonic()
    schema = load_yaml(schema_path)
    spec = load_yaml(spec_path)
    validator = make_validator(schema, schema_path)
    failed = 0
    ran = 0

    for name, fn in MUST_PASS:
        s = copy.deepcopy(spec)
        fn(s)
        errs = errors_of(validator, schema, s)
        ran += 1
        if errs:
            failed += 1
            print("%s: FAIL: %s: must be valid, is not:" % (PROG, name))
            for _, msg in errs[:MAX_SHOWN]:
                print("    %s" % msg)
        else:
            print("%s: ok: %s: valid" % (PROG, name))

    for name, fn in MUST_FAIL:
        s = copy.deepcopy(spec)
        try:
            path = fn(s)
        except Skip as e:
            # The spec no longer has what the mutation changes: a test that
            # cannot run is a failure, so that it gets adapted.
            failed += 1
            print("%s: FAIL: %s: cannot run: %s" % (PROG, name, e))
            continue
        ran += 1
        errs = errors_of(validator, schema, s)
        hit = [msg for p, msg in errs if p[:len(path)] == path]
        if hit:
            print("%s: ok: %s: rejected: %s" % (PROG, name, hit[0]))
        elif errs:
            failed += 1
            print("%s: FAIL: %s: rejected, but not at %s:"
                  % (PROG, name, where(s, path)))
            for _, msg in errs[:MAX_SHOWN]:
                print("    %s" % msg)
        else:
            failed += 1
            print("%s: FAIL: %s: accepted" % (PROG, name))

    print("%s: self-test %s: %d cases, %d failed, %.2f s"
          % (PROG, "passed" if not failed else "FAILED",
             len(MUST_PASS) + len(MUST_FAIL), failed,
             time.monotonic() - start))
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(
        prog="spec_schema_check.py",
        description="Validate the mpdt netlink spec against the YNL schema.")
    ap.add_argument("--spec", default=SPEC,
                    help="spec to check (default: %(default)s)")
    ap.add_argument("--schema", default=SCHEMA,
                    help="JSON Schema, as YAML (default: %(default)s)")
    ap.add_argument("--self-test", action="store_true",
                    help="check that the schema rejects broken copies of "
                    "the spec and accepts the spec")
    args = ap.parse_args()
    if args.self_test:
        return self_test(args.spec, args.schema)
    return validate(args.spec, args.schema)


if __name__ == "__main__":
    sys.exit(main())
