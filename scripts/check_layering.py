#!/usr/bin/env python3
"""Check the module dependency rule: a module includes only its own layer or below.

Layers (ARCHITECTURE.md): 0 util, io/fs; 1 schema; 2 expr; 3 protocol; 4 log;
5 evolution, constraints; 6 txn; 7 io/parquet, exec; 8 dml, table; 9 sql.
sql/parse (the statement parser) sits with expr at layer 2.
Exits 1 and lists every offending include.
"""
import os
import re
import sys

LAYERS = {
    "util": 0, "io/fs": 0, "schema": 1, "expr": 2, "protocol": 3, "log": 4,
    "evolution": 5, "constraints": 5, "txn": 6, "io/parquet": 7, "exec": 7,
    "dml": 8, "table": 8, "sql/parse": 2, "sql": 9,
}
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
    for b in bad:
        print(b)
    print(f"layering: {checked} files checked, {len(bad)} violations")
    return 1 if bad or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
