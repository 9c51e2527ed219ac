"""Hostile nesting and long flat chains through the CLI (docs/behaviour.md, "Limits on
nesting"): 100k-term chains and 100k-value IN lists run and give the right answer;
nesting beyond the limits is a clear error naming where, never a crash. Each of these
killed the process with SIGSEGV before the limits existed."""

import json

from cli_helpers import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, EXIT_IO, assert_error, run_cli

N = 100_000


def sql(tmp_path, script, *flags):
    path = tmp_path / "script.sql"
    path.write_text(script)
    return run_cli("sql", "--warehouse", tmp_path / "wh", "--format", "csv", *flags,
                   "-f", path, timeout=300)


def test_flat_chains_of_100k_terms_run(tmp_path):
    chains = {
        " + ".join(["1"] * N): str(N),
        " - ".join(["2"] * N): str(2 - 2 * (N - 1)),
        " * ".join(["1"] * N): "1",
        "length(" + " || ".join(["'ab'"] * N) + ")": str(2 * N),
        " AND ".join(["1 = 1"] * N): "true",
        " OR ".join(["1 = 0"] * N) + " OR 2 = 2": "true",
    }
    for expr, want in chains.items():
        res = sql(tmp_path, f"SELECT {expr} AS v")
        assert res.returncode == EXIT_OK, res.describe()
        assert res.stdout.splitlines() == ["v", want], expr[:40]


def test_in_list_of_100k_values_is_a_set_lookup(tmp_path):
    values = ", ".join(str(i * 2) for i in range(N))
    res = sql(tmp_path, f"SELECT 199998 IN ({values}) AS hit, 3 IN ({values}) AS miss, "
                        f"3 IN ({values}, NULL) AS unknown")
    assert res.returncode == EXIT_OK, res.describe()
    assert res.stdout.splitlines() == ["hit,miss,unknown", "true,false,"]


def test_long_check_constraint_and_replace_where_run(tmp_path):
    table = tmp_path / "t"
    data = tmp_path / "rows.json"
    data.write_text("".join(json.dumps({"x": i}) + "\n" for i in range(1, 6)))
    assert run_cli("write", table, data).returncode == EXIT_OK
    chain = " + ".join(["x"] * N)
    res = sql(tmp_path, f"ALTER TABLE delta.`{table}` ADD CONSTRAINT big CHECK ({chain} > 0)")
    assert res.returncode == EXIT_OK, res.describe()
    pred = " OR ".join(f"x = {i}" for i in range(10, 9000)) + " OR x = 1"
    res = run_cli("write", table, data, "--mode", "overwrite", "--replace-where", pred,
                  timeout=300)
    assert res.returncode == EXIT_REFUSED, res.describe()  # rows 2..5 do not match
    res = sql(tmp_path, f"SELECT count(*) AS n FROM delta.`{table}` WHERE x IN "
                        f"({', '.join(str(i) for i in range(3, N))})")
    assert res.stdout.splitlines() == ["n", "3"], res.describe()


def test_nesting_beyond_the_limit_is_a_parse_error_with_a_caret(tmp_path):
    for expr in ["(" * 5000 + "1" + ")" * 5000,
                 "abs(" * 5000 + "1" + ")" * 5000,
                 "CASE WHEN true THEN " * 5000 + "1" + " END" * 5000,
                 "NOT " * 100_000 + "true",
                 " + 1 - ".join(["1"] * 5000)]:
        res = sql(tmp_path, f"SELECT {expr}")
        assert_error(res, EXIT_REFUSED, contains=("nested too deeply", "256"),
                     multiline=True)
        assert "^" in res.stderr


def test_deep_types_in_ddl_are_refused(tmp_path):
    for t in ["ARRAY<" * 5000 + "INT" + ">" * 5000,
              "STRUCT<a: " * 5000 + "INT" + ">" * 5000]:
        res = sql(tmp_path, f"CREATE TABLE delta.`{tmp_path / 'deep'}` (c {t})")
        assert_error(res, EXIT_REFUSED, contains=("64 levels of nested types",),
                     multiline=True)


def test_deep_ndjson_input_is_refused_naming_file_and_line(tmp_path):
    for name, value in [("objects", '{"a": ' * 5000 + "1" + "}" * 5000),
                        ("arrays", "[" * 5000 + "1" + "]" * 5000)]:
        path = tmp_path / f"{name}.json"
        path.write_text('{"a": null}\n{"a": ' + value + "}\n")
        res = run_cli("write", tmp_path / f"t_{name}", path)
        assert_error(res, EXIT_USAGE, names=(f"{name}.json', line 2, column",),
                     contains=("deeper than 65 levels",))


def test_ndjson_line_that_is_not_one_object_is_refused_naming_line_and_column(tmp_path):
    # A `null` record at the start crashed Arrow's JSON reader (found by fuzzing); other
    # lines that are not one object failed without a line, or read two records as one.
    cases = [("null\n{\"a\": 1}\n", "line 1, column 1", "found null"),
             ('{"a": 1}\n{"a": 2} {"a": 3}\n', "line 2, column 10",
              "a second JSON value follows"),
             ('{"a": 1}\n\n{"a": 2,,}\n', "line 3, column 9", "invalid JSON")]
    for i, (text, where, says) in enumerate(cases):
        path = tmp_path / f"in{i}.json"
        path.write_text(text)
        res = run_cli("write", tmp_path / f"t{i}", path)
        assert_error(res, EXIT_USAGE, names=(f"in{i}.json', {where}",), contains=(says,))
        assert not (tmp_path / f"t{i}").exists()


def test_deep_json_in_a_commit_line_is_corrupt_log(tmp_path):
    table = tmp_path / "t"
    data = tmp_path / "rows.json"
    data.write_text('{"x": 1}\n')
    assert run_cli("write", table, data).returncode == EXIT_OK
    log = table / "_delta_log" / "00000000000000000001.json"
    deep = "[" * 2_000_000 + "]" * 2_000_000
    log.write_text('{"commitInfo":{"operation":"WRITE","x":' + deep + '}}\n')
    for cmd in ("describe", "history"):
        res = run_cli(cmd, table)
        assert_error(res, EXIT_IO, names=("00000000000000000001.json' line 1",),
                     contains=("deeper than 1000 levels",))
