"""`pip wheel .` makes a wheel that installs into a fresh virtualenv with only its declared
dependencies, and works there: the module imports, reads and writes a table, and the
`deltaguard` command runs. The wheel is packed from the build tree the suite already
built (no second compile); pyarrow comes from the package index (cached by pip)."""

import json
import os
import subprocess
import sys
import zipfile

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD_DIR = os.environ.get("DELTAGUARD_BUILD_DIR", "build")


def run(cmd, **kw):
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    assert proc.returncode == 0, f"{cmd} -> {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def test_wheel_installs_and_runs_in_a_fresh_venv(tmp_path):
    wheels = tmp_path / "wheels"
    run([sys.executable, "-m", "pip", "wheel", "--disable-pip-version-check", "-q",
         "--no-build-isolation", "--no-deps", "-C",
         f"build-dir={os.path.join(REPO_ROOT, BUILD_DIR)}", "-w", wheels, REPO_ROOT])
    (wheel,) = list(wheels.glob("deltaguard-0.1.0-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for expected in ("deltaguard/__init__.py", "deltaguard/py.typed",
                     "deltaguard/_native.pyi", "deltaguard/bin/deltaguard"):
        assert expected in names, expected
    assert any(n.startswith("deltaguard/_native.") and n.endswith(".so") for n in names)
    # Nothing but the package: no test binaries, no second copy of Arrow.
    assert not [n for n in names if "libarrow" in n or n.endswith("_test")], names

    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", venv])
    py = venv / "bin" / "python"
    run([py, "-m", "pip", "install", "--disable-pip-version-check", "-q", wheel])
    listed = json.loads(run([py, "-m", "pip", "list", "--format=json",
                             "--disable-pip-version-check"]))
    installed = {p["name"].lower() for p in listed} - {"pip", "setuptools", "wheel"}
    assert installed == {"deltaguard", "pyarrow"}, installed

    script = (
        "import deltaguard as dg, pyarrow as pa, sys\n"
        "p = sys.argv[1]\n"
        "dg.write_table(p, pa.table({'x': [1, 2]}))\n"
        "try:\n"
        "    dg.write_table(p, pa.table({'x': [1], 'y': ['new']}))\n"
        "    raise SystemExit('schema change was accepted')\n"
        "except dg.SchemaMismatchError:\n"
        "    pass\n"
        "print(dg.Table(p).to_arrow().num_rows)\n")
    table = tmp_path / "t"
    assert run([py, "-c", script, table], cwd=tmp_path).strip() == "2"
    out = run([venv / "bin" / "deltaguard", "describe", table, "--format", "json"])
    assert '"version":0' in out
