#!/usr/bin/env python3
"""Check the module dependency rule: a module includes only its own layer or below.

Layers (ARCHITECTURE.md): 0 util, io/fs; 1 schema; 2 expr; 3 protocol; 4 log;
5 evolution, constraints; 6 txn; 7 arrow (the bridge to Arrow C++); 8 io/parquet, exec;
9 write (the commit funnel); 10 dml, table; 11 sql. sql/parse (the statement parser)
sits with expr at layer 2.
Modules on one layer are siblings: an include between them is an error too when the
pair is listed in SIBLINGS (dml and table share only what is in write/).
Test code (*_test.cc, *_fuzz.cc, test-support headers named *test_util*) may use
higher layers to build fixtures and is not checked.
Exits 1 and lists every offending include.
"""
import os
import re
import sys

LAYERS = {
    "util": 0, "io/fs": 0, "schema": 1, "expr": 2, "protocol": 3, "log": 4,
    "evolution": 5, "constraints": 5, "txn": 6, "arrow": 7, "io/parquet": 8, "exec": 8,
    "write": 9, "dml": 10, "table": 10, "sql/parse": 2, "sql": 11,
}
SIBLINGS = {("dml", "table"), ("table", "dml")}
INCLUDE = re.compile(r'#include\s+"deltaguard/([a-z_/]+)/[^/"]+"')


def module_of(rel):
    for name in sorted(LAYERS, key=len, reverse=True):
        if rel == name or rel.startswith(name + "/"):
            return name
    return None


def main(root):
    bad = []
    checked = 0
    for dirpath, _, files in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        mod = module_of(rel_dir)
        if mod is None:
            continue
        for f in files:
            if not f.endswith((".h", ".cc")) or f.endswith(("_test.cc", "_fuzz.cc")):
                continue
            if "test_util" in f:
                continue
            checked += 1
            with open(os.path.join(dirpath, f), encoding="utf-8") as fh:
                for lineno, line in enumerate(fh, 1):
                    m = INCLUDE.search(line)
                    if not m:
                        continue
                    target = module_of(m.group(1))
                    if target is None:
                        bad.append(f"{rel_dir}/{f}:{lineno}: unknown module {m.group(1)}")
                    elif LAYERS[target] > LAYERS[mod]:
                        bad.append(f"{rel_dir}/{f}:{lineno}: {mod} (layer {LAYERS[mod]}) "
                                   f"includes {target} (layer {LAYERS[target]})")
                    elif (mod, target) in SIBLINGS:
                        bad.append(f"{rel_dir}/{f}:{lineno}: {mod} includes its sibling "
                                   f"{target} (share the piece through a lower layer)")
    for b in bad:
        print(b)
    print(f"layering: {checked} files checked, {len(bad)} violations")
    return 1 if bad or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
