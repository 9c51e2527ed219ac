"""The ``deltaguard`` console script: runs the CLI binary shipped inside the package."""

from __future__ import annotations

import os
import sys


def binary_path() -> str:
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "deltaguard")


def main() -> None:
    path = binary_path()
    if not os.path.exists(path):
        sys.stderr.write(f"deltaguard: the CLI binary is missing at {path}\n")
        raise SystemExit(3)
    os.execv(path, [path, *sys.argv[1:]])


if __name__ == "__main__":  # pragma: no cover
    main()
