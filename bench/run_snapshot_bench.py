#!/usr/bin/env python3
"""Snapshot-load benchmark: deltaguard vs deltalake (delta-rs) on the synthetic tables of
bench/make_tables.py.

    .venv/bin/python bench/run_snapshot_bench.py [--runs 5] [--build-dir build]
        [--bin BUILD/bin/snapshot_load_bench]

For each table, runs both loaders in fresh processes `--runs` times each, alternating
deltaguard and deltalake run by run (after one untimed warm-up run of each that fills the
page cache), so that both see the same machine load. It records
  * seconds: wall time of the load measured inside the process (open the table at its
    latest version and list its live files as paths; process start-up, imports and exit
    are excluded); the same work on both sides,
  * process_seconds: wall time of the whole process (GNU time's %e: start-up, dynamic
    loading or interpreter + imports, the load, teardown), for transparency, and
  * peak RSS of the whole process (GNU time's %M, so it includes the interpreter or the
    binary's libraries).
Reports medians in bench/results/snapshot_load.json and bench/results/snapshot_load.md.
Both loaders must agree on the version and the number of files.
"""

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile

TIME = "/usr/bin/time"  # GNU time (Debian package `time`, installed by scripts/setup.sh)
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

DELTALAKE_LOADER = r"""
import json, sys, time
import deltalake
path = sys.argv[1]
t0 = time.perf_counter()
table = deltalake.DeltaTable(path)
uris = table.file_uris()
seconds = time.perf_counter() - t0
print(json.dumps({"files": len(uris), "version": table.version(), "seconds": seconds}))
"""


def run_once(cmd):
    """Runs cmd; returns (parsed JSON stdout, peak RSS in MiB, process wall seconds).

    Peak RSS comes from GNU time (%M): rusage of a child forked from this Python process
    would include this process's own RSS (Linux keeps the high-water mark across fork and
    exec), while /usr/bin/time is a small process.
    """
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss_file:
        proc = subprocess.run([TIME, "-f", "%M %e", "-o", rss_file.name, *cmd],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"{cmd} failed with {proc.returncode}: {proc.stderr[-2000:]}")
        rss_kib, wall = rss_file.read().strip().splitlines()[-1].split()
    return (json.loads(proc.stdout.strip().splitlines()[-1]), int(rss_kib) / 1024.0,
            float(wall))


def summarize(samples):
    results = [s[0] for s in samples]
    files = {r["files"] for r in results}
    versions = {r["version"] for r in results}
    assert len(files) == 1 and len(versions) == 1, results
    secs = [r["seconds"] for r in results]
    rss = [s[1] for s in samples]
    wall = [s[2] for s in samples]
    return {
        "files": files.pop(), "version": versions.pop(),
        "seconds_median": statistics.median(secs), "seconds_min": min(secs),
        "seconds_all": [round(s, 6) for s in secs],
        "process_seconds_median": statistics.median(wall), "process_seconds_all": wall,
        "peak_rss_mib_median": statistics.median(rss), "peak_rss_mib_all": rss,
    }


def measure_pair(cmds, runs):
    """Runs each command of `cmds` once untimed, then `runs` rounds of all of them in
    turn; returns one summary per command."""
    for cmd in cmds:
        run_once(cmd)  # warm-up: page cache, lazy library loading
    samples = [[] for _ in cmds]
    for _ in range(runs):
        for i, cmd in enumerate(cmds):
            samples[i].append(run_once(cmd))
    return [summarize(s) for s in samples]


def git_rev():
    try:
        return subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def markdown(report):
    lines = [
        "# Snapshot load: deltaguard vs deltalake",
        "",
        f"Generated {report['date']} by `bench/run_snapshot_bench.py` on {report['machine']}; "
        f"median of {report['runs']} runs, each in a fresh process after a warm-up run. "
        f"deltalake {report['deltalake_version']}, pyarrow {report['pyarrow_version']}, "
        f"deltaguard {report['deltaguard_commit'] or '(uncommitted)'}; 1-minute load "
        f"average {report['load_average_before']:.1f} before the run (other processes on the "
        "machine inflate wall times).",
        "",
        "Load = open the latest snapshot and list the live files as paths (in-process wall "
        "time, the same work on both sides; start-up, imports and exit excluded). Runs "
        "alternate between the two loaders. Process = wall time of the whole process "
        "(GNU time %e), for transparency: it adds dynamic loading (deltaguard) or the "
        "interpreter and imports (deltalake), and teardown. Peak RSS is the whole process "
        "(GNU time %M), including the Python interpreter and its imports for deltalake.",
        "",
        "| table | version | live files | deltaguard load | deltalake load | speedup | "
        "deltaguard process | deltalake process | deltaguard peak RSS | "
        "deltalake peak RSS |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, t in report["tables"].items():
        g, d = t["deltaguard"], t["deltalake"]
        lines.append(
            f"| {name} | {g['version']} | {g['files']:,} | {g['seconds_median'] * 1000:.1f} ms"
            f" | {d['seconds_median'] * 1000:.1f} ms | {t['speedup']:.2f}x | "
            f"{g['process_seconds_median'] * 1000:.0f} ms | "
            f"{d['process_seconds_median'] * 1000:.0f} ms | "
            f"{g['peak_rss_mib_median']:.0f} MiB | {d['peak_rss_mib_median']:.0f} MiB |")
    lines += ["", "Tables (bench/make_tables.py): " + "; ".join(
        f"`{n}`: {t['description']}" for n, t in report["tables"].items()), ""]
    return "\n".join(lines)


DESCRIPTIONS = {
    "many_commits": "10,000 one-file commits, checkpoint at 9,990 + 9 JSON commits",
    "many_files": "200,000 files added in one commit, checkpointed, + 3 JSON commits",
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--build-dir", default=os.path.join(REPO, "build"),
                        help="CMake build directory holding bin/snapshot_load_bench")
    parser.add_argument("--bin", default=os.environ.get("SNAPSHOT_LOAD_BENCH"),
                        help="loader binary (default: BUILD_DIR/bin/snapshot_load_bench)")
    parser.add_argument("--data", default=os.path.join(HERE, "data"))
    parser.add_argument("--out", default=os.path.join(HERE, "results"))
    parser.add_argument("tables", nargs="*", default=sorted(DESCRIPTIONS))
    opts = parser.parse_args()
    if opts.bin is None:
        opts.bin = os.path.join(opts.build_dir, "bin", "snapshot_load_bench")

    subprocess.run([sys.executable, os.path.join(HERE, "make_tables.py"), "--out", opts.data,
                    *opts.tables], check=True)
    import deltalake
    import pyarrow

    env_note = os.environ.get("ARROW_DEFAULT_MEMORY_POOL")
    report = {
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.system()} "
                   f"{platform.release()}",
        "runs": opts.runs, "deltalake_version": deltalake.__version__,
        "pyarrow_version": pyarrow.__version__, "deltaguard_commit": git_rev(),
        "arrow_default_memory_pool": env_note,
        "load_average_before": os.getloadavg()[0], "tables": {},
    }
    report["load_average_after"] = None
    for name in opts.tables:
        path = os.path.join(opts.data, name)
        print(f"== {name}", flush=True)
        guard, lake = measure_pair(
            [[opts.bin, path], [sys.executable, "-c", DELTALAKE_LOADER, path]], opts.runs)
        print(f"   deltaguard: {guard['seconds_median'] * 1000:.1f} ms, "
              f"{guard['peak_rss_mib_median']:.0f} MiB", flush=True)
        print(f"   deltalake:  {lake['seconds_median'] * 1000:.1f} ms, "
              f"{lake['peak_rss_mib_median']:.0f} MiB", flush=True)
        if (guard["files"], guard["version"]) != (lake["files"], lake["version"]):
            raise SystemExit(f"{name}: loaders disagree: deltaguard {guard['files']} files @ "
                             f"v{guard['version']}, deltalake {lake['files']} @ "
                             f"v{lake['version']}")
        report["tables"][name] = {
            "description": DESCRIPTIONS.get(name, ""), "deltaguard": guard, "deltalake": lake,
            "speedup": lake["seconds_median"] / guard["seconds_median"],
            "memory_ratio": guard["peak_rss_mib_median"] / lake["peak_rss_mib_median"],
        }
    report["load_average_after"] = os.getloadavg()[0]
    os.makedirs(opts.out, exist_ok=True)
    with open(os.path.join(opts.out, "snapshot_load.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
        f.write("\n")
    md = markdown(report)
    with open(os.path.join(opts.out, "snapshot_load.md"), "w", encoding="utf-8") as f:
        f.write(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
