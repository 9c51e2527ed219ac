#!/usr/bin/env python3
"""Detector evaluation (docs/data_tests.md, issue 21): the detection rate of each of the
article's changes and the false-alarm rate per test and load on unchanged loads, at the
default thresholds, over N trials (default 500) of synthetic daily loads
(bench/detector_eval.cc: weekly seasonal volume, log-normal amounts, a daily rhythm,
categorical statuses and countries, a nullable email; each trial its own base levels).
Targets: >= 99% detection of every case; <= 1% false alarms per test per load.
Results: bench/results/detector_eval.{json,md}."""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from run_append_bench import write_results  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=500)
    parser.add_argument("--binary", default=os.path.join(REPO, "build", "bin",
                                                         "detector_eval"))
    args = parser.parse_args()
    out = subprocess.run([args.binary, str(args.trials)], check=True,
                         capture_output=True, text=True).stdout
    result = json.loads(out)
    lines = [f"{result['trials']} trials ({result['seconds']:.0f} s); each a fresh "
             f"28-day history, the change on a random day of the fourth week, "
             f"baseline trailing:14 (default thresholds).", "",
             "| change | detector | detected | rate | target |",
             "|---|---|---|---|---|"]
    for c in result["cases"]:
        ok = "met" if c["rate"] >= 0.99 else "NOT met"
        lines.append(f"| {c['case']} | {c['detector']} | {c['detected']}/"
                     f"{result['trials']} | {c['rate']:.1%} | >= 99%: {ok} |")
    lines += ["", f"False alarms on {result['controls']} unchanged loads (tests that ran):",
              "", "| test | runs | raised | rate | target |", "|---|---|---|---|---|"]
    for f in result["false_alarms"]:
        ok = "met" if f["rate"] <= 0.01 else "NOT met"
        lines.append(f"| {f['test']} | {f['runs']} | {f['raised']} | {f['rate']:.2%} | "
                     f"<= 1%: {ok} |")
    write_results("detector_eval", result, lines)


if __name__ == "__main__":
    main()
