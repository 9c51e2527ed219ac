#!/usr/bin/env python3
"""Check the module dependency rules of src/deltaguard (ARCHITECTURE.md "Layers").

Usage: check_layering.py SRC_ROOT [OTHER_ROOT ...]

1. A module includes only its own layer or below. Layers: 0 util, io/fs; 1 schema;
   2 expr; 3 protocol; 4 log; 5 evolution, constraints, drift (the drift classifier);
   6 txn, contract (data contracts: model, YAML, lint, diff, checks); 7 arrow (the
   bridge to Arrow C++); 8 io/parquet, exec; 9 write (the commit funnel); 10 quality
   (profiles, sketches, contract tests and data tests: computes over batches and
   snapshots, attaches to writes as hooks, never writes a table itself); 11 dml, table
   (the facades: they attach quality's hooks and store profiles); 12 ingest
   (incremental ingestion: writes through table); 13 sql. sql/parse
   (the statement parser) sits with expr at layer 2.
   Modules on one layer are siblings: an include between them is an error too when the
   pair is listed in SIBLINGS (dml and table share only what is in write/ and below; drift may
   use evolution, but neither evolution nor constraints may use drift, and drift does
   not use constraints).
   Test code (*_test.cc, *_fuzz.cc, test-support headers named *test_util*) may use
   higher layers to build fixtures and is not held to this rule.
2. A header named <name>_internal.h is private to its folder: an
   `#include "deltaguard/<folder>/<name>_internal.h"` from a file in any other folder is
   an error naming both files. Test code is held to this rule too, and so are the files
   under OTHER_ROOTs (default: the test/, tools/, bench/ and python/ folders beside
   SRC_ROOT's src/, when they exist), where every deltaguard folder is another
   folder. What two folders share gets a public header.

Exits 1 and lists every offending include.
"""
import os
import re
import sys

LAYERS = {
    "util": 0, "io/fs": 0, "schema": 1, "expr": 2, "protocol": 3, "log": 4,
    "evolution": 5, "constraints": 5, "drift": 5, "txn": 6, "contract": 6, "arrow": 7,
    "io/parquet": 8, "exec": 8, "write": 9, "quality": 10, "dml": 11, "table": 11,
    "ingest": 12, "sql/parse": 2, "sql": 13,
}
SIBLINGS = {("dml", "table"), ("table", "dml"),
            # contracts are pure (no transaction)
            ("contract", "txn"), ("txn", "contract"),
            # drift classifies what evolution and constraints enforce; they never call it
            ("evolution", "drift"), ("constraints", "drift"), ("drift", "constraints")}
INCLUDE = re.compile(r'#include\s+"deltaguard/(([a-z_/]+)/([^/"]+))"')
SOURCE_SUFFIXES = (".h", ".cc")


def module_of(rel):
    for name in sorted(LAYERS, key=len, reverse=True):
        if rel == name or rel.startswith(name + "/"):
            return name
    return None


def is_test_code(name):
    return name.endswith(("_test.cc", "_fuzz.cc")) or "test_util" in name


def includes(path):
    """(line number, included path under deltaguard/, its folder, its file name)."""
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            m = INCLUDE.search(line)
            if m:
                yield lineno, m.group(1), m.group(2), m.group(3)


def private_include(folder, target_folder, target_name):
    """True when a file in `folder` (None: outside src/deltaguard) includes another
    folder's _internal.h."""
    return target_name.endswith("_internal.h") and target_folder != folder


def check_library(root, bad):
    checked = 0
    for dirpath, _, files in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        mod = module_of(rel_dir)
        if mod is None:
            continue
        for f in sorted(files):
            if not f.endswith(SOURCE_SUFFIXES):
                continue
            checked += 1
            here = f"{rel_dir}/{f}"
            test_code = is_test_code(f)
            for lineno, inc, inc_dir, inc_name in includes(os.path.join(dirpath, f)):
                if private_include(rel_dir, inc_dir, inc_name):
                    bad.append(f"{here}:{lineno}: includes {inc}, private to {inc_dir}/ "
                               f"(give what is shared a public header)")
                if test_code:
                    continue
                target = module_of(inc_dir)
                if target is None:
                    bad.append(f"{here}:{lineno}: unknown module {inc_dir}")
                elif LAYERS[target] > LAYERS[mod]:
                    bad.append(f"{here}:{lineno}: {mod} (layer {LAYERS[mod]}) "
                               f"includes {target} (layer {LAYERS[target]})")
                elif (mod, target) in SIBLINGS:
                    bad.append(f"{here}:{lineno}: {mod} includes its sibling "
                               f"{target} (share the piece through a lower layer)")
    return checked


def check_other(root, bad):
    """Files outside the library: only the private-header rule applies."""
    checked = 0
    base = os.path.dirname(os.path.abspath(root))
    for dirpath, _, files in os.walk(root):
        for f in sorted(files):
            if not f.endswith(SOURCE_SUFFIXES):
                continue
            checked += 1
            path = os.path.join(dirpath, f)
            here = os.path.relpath(path, base)
            for lineno, inc, inc_dir, inc_name in includes(path):
                if private_include(None, inc_dir, inc_name):
                    bad.append(f"{here}:{lineno}: includes {inc}, private to {inc_dir}/ "
                               f"(give what is shared a public header)")
    return checked


def default_other_roots(root):
    repo = os.path.dirname(os.path.dirname(os.path.abspath(root)))
    found = [os.path.join(repo, d) for d in ("test", "tools", "bench", "python")]
    return [d for d in found if os.path.isdir(d)]


def main(argv):
    if len(argv) < 1:
        print(__doc__)
        return 2
    root, others = argv[0], argv[1:] or default_other_roots(argv[0])
    bad = []
    checked = check_library(root, bad)
    for other in others:
        checked += check_other(other, bad)
    for b in bad:
        print(b)
    print(f"layering: {checked} files checked, {len(bad)} violations")
    return 1 if bad or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
