"""`deltaguard sql` and `deltaguard shell`: output formats, scripts from -f and stdin,
exit codes and error text, and the shell's multi-line statements and dot commands with
piped input (no terminal, so no libedit)."""

import json
import os
import subprocess

import pytest

from cli_helpers import CLI_TIMEOUT_S, EXIT_OK, EXIT_REFUSED, EXIT_USAGE, cli_path, run_cli


@pytest.fixture
def wh(tmp_path):
    """A warehouse with default.orders holding two rows."""
    path = str(tmp_path / "wh")
    res = run_cli("sql", "--warehouse", path,
                  "CREATE TABLE orders (order_id BIGINT NOT NULL, status STRING); "
                  "INSERT INTO orders VALUES (1001, 'shipped'), (1002, 'placed');")
    assert res.returncode == EXIT_OK, res.describe()
    return path


def sql(wh, *args, stdin=None):
    return run_stdin(["sql", "--warehouse", wh, *args], stdin)


def run_stdin(args, stdin, env=None):
    proc = subprocess.run([cli_path(), *args], input=stdin, capture_output=True, text=True,
                          errors="replace", timeout=CLI_TIMEOUT_S,
                          env={**os.environ, **(env or {})})
    assert proc.returncode >= 0, f"killed by signal {-proc.returncode}: {proc.stderr}"
    for marker in ("AddressSanitizer", "runtime error:", "terminate called"):
        assert marker not in proc.stderr, proc.stderr
    return proc


# --- deltaguard sql ------------------------------------------------------------------------

def test_table_format_aligns_rows_and_messages_go_to_stdout(wh):
    res = sql(wh, "SELECT order_id, status FROM orders ORDER BY order_id")
    assert res.returncode == EXIT_OK, res.stderr
    lines = [l for l in res.stdout.splitlines() if l.strip()]
    assert any("order_id" in l and "status" in l for l in lines), res.stdout
    assert any("1001" in l and "shipped" in l for l in lines), res.stdout
    assert any("1002" in l and "placed" in l for l in lines), res.stdout
    # Statements without rows print their message on stdout in table format.
    res = sql(wh, "CREATE TABLE other (id INT)")
    assert res.returncode == EXIT_OK, res.stderr
    assert res.stdout.strip(), "the CREATE TABLE message is missing from stdout"


def test_csv_format(wh):
    res = sql(wh, "--format", "csv", "SELECT order_id, status FROM orders ORDER BY order_id")
    assert res.returncode == EXIT_OK, res.stderr
    assert res.stdout.splitlines() == ["order_id,status", "1001,shipped", "1002,placed"]


def test_jsonl_format_and_messages_on_stderr(wh):
    res = sql(wh, "--format", "jsonl",
              "CREATE TABLE t2 (id INT); SELECT order_id, status FROM orders ORDER BY 1")
    assert res.returncode == EXIT_OK, res.stderr
    rows = [json.loads(l) for l in res.stdout.splitlines() if l.strip()]
    assert rows == [{"order_id": 1001, "status": "shipped"},
                    {"order_id": 1002, "status": "placed"}]
    # the CREATE TABLE message went to stderr, keeping stdout pure JSON lines
    assert res.stderr.strip()


def test_script_from_file(wh, tmp_path):
    script = tmp_path / "s.sql"
    script.write_text("-- a comment\nINSERT INTO orders VALUES (1003, 'placed');\n"
                      "SELECT count(*) AS n FROM orders;\n")
    res = sql(wh, "--format", "csv", "-f", str(script))
    assert res.returncode == EXIT_OK, res.stderr
    assert res.stdout.splitlines()[-2:] == ["n", "3"]


def test_script_from_stdin_with_dash_and_without_statement(wh):
    for args in (["-"], []):
        res = sql(wh, "--format", "csv", *args,
                  stdin="SELECT status FROM orders WHERE order_id = 1001;")
        assert res.returncode == EXIT_OK, res.stderr
        assert res.stdout.splitlines() == ["status", "shipped"]


def test_warehouse_from_environment(wh):
    res = run_stdin(["sql", "--format", "csv", "SELECT count(*) AS n FROM orders"], None,
                    env={"DELTAGUARD_WAREHOUSE": wh})
    assert res.returncode == EXIT_OK, res.stderr
    assert res.stdout.splitlines() == ["n", "2"]


def test_stops_at_first_error_with_statement_and_line(wh):
    res = sql(wh, "--format", "csv",
              "INSERT INTO orders VALUES (1003, 'a');\nSELECT nope FROM orders;\n"
              "INSERT INTO orders VALUES (1004, 'b');")
    assert res.returncode == EXIT_REFUSED, res.stderr
    first = res.stderr.splitlines()[0]
    assert first.startswith("deltaguard:"), res.stderr
    assert "statement 2 (line 2)" in first and "nope" in res.stderr, res.stderr
    # the third statement never ran
    res = sql(wh, "--format", "csv", "SELECT count(*) AS n FROM orders")
    assert res.stdout.splitlines() == ["n", "3"]


def test_syntax_error_shows_caret(wh):
    res = sql(wh, "INSERT t VALUES (1)")
    assert res.returncode == EXIT_REFUSED, res.stderr
    assert "syntax error" in res.stderr
    lines = res.stderr.splitlines()
    caret = [l for l in lines if l.strip() == "^"]
    assert caret, res.stderr
    stmt = [l for l in lines if "INSERT t VALUES (1)" in l][-1]
    assert stmt[len(caret[0]) - 1] == "t", res.stderr


def test_conf_sets_session_setting(wh):
    stmt = "INSERT INTO orders BY NAME SELECT 1009 AS order_id, 'x' AS status, 'web' AS channel"
    res = sql(wh, stmt)
    assert res.returncode == EXIT_REFUSED and "channel" in res.stderr, res.stderr
    res = sql(wh, "--conf", "spark.databricks.delta.schema.autoMerge.enabled=true", stmt)
    assert res.returncode == EXIT_OK, res.stderr


def test_usage_errors(wh, tmp_path):
    res = run_cli("sql", "--format", "xml", "SELECT 1")
    assert res.returncode == EXIT_USAGE and "xml" in res.stderr
    res = run_cli("sql", "-f", str(tmp_path / "missing.sql"))
    assert res.returncode == EXIT_USAGE and "missing.sql" in res.stderr
    res = run_cli("sql", "SELECT 1", "SELECT 2")
    assert res.returncode == EXIT_USAGE
    res = run_cli("sql", "--conf", "novalue", "SELECT 1")
    assert res.returncode == EXIT_USAGE and "novalue" in res.stderr


# --- deltaguard shell ----------------------------------------------------------------------

def shell(wh, text, *args):
    return run_stdin(["shell", "--warehouse", wh, *args], text)


def test_shell_multiline_statement_and_timer(wh):
    res = shell(wh, "SELECT order_id\n  FROM orders\n  WHERE order_id = 1002\n;\n")
    assert res.returncode == EXIT_OK, res.stderr
    assert "1002" in res.stdout and "1001" not in res.stdout, res.stdout
    assert any(l.startswith("Time: ") and l.endswith("s") for l in res.stdout.splitlines())
    # piped input shows no prompt
    assert "deltaguard>" not in res.stdout


def test_shell_help(wh):
    res = shell(wh, ".help\n")
    assert res.returncode == EXIT_OK, res.stderr
    for word in (".quit", ".mode", ".timer", ".read"):
        assert word in res.stdout, res.stdout


def test_shell_mode_csv_and_timer_off(wh):
    res = shell(wh, ".mode csv\n.timer off\nSELECT status FROM orders ORDER BY order_id;\n")
    assert res.returncode == EXIT_OK, res.stderr
    assert res.stdout.splitlines() == ["status", "shipped", "placed"]


def test_shell_error_then_continue(wh):
    res = shell(wh, ".timer off\n.mode csv\nSELECT nope FROM orders;\n"
                    "SELECT count(*) AS n FROM orders;\n.bogus\nSELECT 1 AS one;\n")
    assert "nope" in res.stderr, res.stderr
    assert "bogus" in res.stderr, res.stderr
    assert res.stdout.splitlines() == ["n", "2", "one", "1"]
    # piped scripts with an error exit 1
    assert res.returncode == EXIT_REFUSED


def test_shell_quit_stops_reading(wh):
    res = shell(wh, ".timer off\n.mode csv\nSELECT 1 AS a;\n.quit\nSELECT 2 AS b;\n")
    assert res.returncode == EXIT_OK, res.stderr
    assert res.stdout.splitlines() == ["a", "1"]


def test_shell_read_file_and_statement_without_semicolon_at_eof(wh, tmp_path):
    script = tmp_path / "s.sql"
    script.write_text("INSERT INTO orders VALUES (1003, 'placed');")
    res = shell(wh, f".timer off\n.mode csv\n.read {script}\nSELECT count(*) AS n FROM orders")
    assert res.returncode == EXIT_OK, res.stderr
    assert res.stdout.splitlines()[-2:] == ["n", "3"]


def test_shell_two_statements_on_one_line(wh):
    res = shell(wh, ".mode csv\nSELECT 1 AS a; SELECT 2 AS b;\n")
    assert res.returncode == EXIT_OK, res.stderr
    lines = res.stdout.splitlines()
    assert lines[:2] == ["a", "1"] and "b" in lines and "2" in lines
    assert sum(l.startswith("Time: ") for l in lines) == 2
