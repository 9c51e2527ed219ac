"""docs/python.md runs: every ```python block of the section "From PySpark: the articles'
snippets" is executed in order, in one namespace, in a fresh scratch directory; a block
that raises fails the test with its line in docs/python.md. The API-reference blocks
above it list calls on placeholder names (`t`, `data`, `source`, ...), so each carries a
`<!-- doc-test: skip: reason -->` marker; the same calls run in the articles' section.

Blocks in other fences (```pyspark, ```sql: the articles' originals, ```sh) are text."""

import os
import re
import traceback
import warnings
from dataclasses import dataclass

import pytest

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DOC = os.path.join(REPO_ROOT, "docs", "python.md")
ARTICLES = "From PySpark: the articles' snippets"

# The number of runnable blocks written in the articles' section, and of reference
# blocks marked not runnable. Raise MIN_RUN_BLOCKS when adding translations.
MIN_RUN_BLOCKS = 52
MAX_SKIPPED_BLOCKS = 8
MIN_ORIGINALS = 38  # the articles' snippets quoted (```pyspark and ```sql blocks)

SKIP_MARKER = re.compile(r"^<!--\s*doc-test:\s*skip:\s*(\S.*?)\s*-->$")


@dataclass
class Block:
    lang: str
    line: int  # 1-based line of the first code line in docs/python.md
    code: str
    section: str  # the enclosing "## " heading
    skip: str | None  # the reason of a skip marker right above the fence


def parse_blocks(path=DOC):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks, section, i = [], "", 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("## "):
            section = line[3:].strip()
        fence = re.match(r"^```(\S*)\s*$", line)
        if fence:
            start = i + 1
            j = start
            while j < len(lines) and lines[j].rstrip() != "```":
                j += 1
            assert j < len(lines), f"docs/python.md:{i + 1}: code fence never closed"
            above = [lines[k].strip() for k in range(i - 1, -1, -1) if lines[k].strip()]
            prev = above[0] if above else ""
            marker = SKIP_MARKER.match(prev)
            blocks.append(Block(fence.group(1), start + 1, "\n".join(lines[start:j]),
                                section, marker.group(1) if marker else None))
            i = j + 1
            continue
        i += 1
    return blocks


def run_blocks(blocks, namespace):
    """Exec each block; the code is padded so tracebacks carry docs/python.md lines."""
    for b in blocks:
        code = compile("\n" * (b.line - 1) + b.code, "docs/python.md", "exec")
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            try:
                exec(code, namespace)
            except BaseException as e:  # noqa: BLE001 - any failure names the block
                pytest.fail(
                    f"docs/python.md:{b.line}: block in '{b.section}' raised "
                    f"{type(e).__name__}: {e}\n{traceback.format_exc()}",
                    pytrace=False)


def python_blocks(section=None):
    return [b for b in parse_blocks() if b.lang == "python" and
            (section is None or b.section == section)]


def test_articles_section_runs(tmp_path, monkeypatch):
    blocks = [b for b in python_blocks(ARTICLES) if b.skip is None]
    assert len(blocks) >= MIN_RUN_BLOCKS, (
        f"found {len(blocks)} runnable blocks in '{ARTICLES}', expected at least "
        f"{MIN_RUN_BLOCKS}")
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "docs_python_md"}
    run_blocks(blocks, namespace)
    # the last block ran to its end: the namespace holds what it defined
    assert "missing" in namespace and namespace["missing"].num_rows == 2


def test_every_python_block_is_run_or_marked():
    blocks = python_blocks()
    skipped = [b for b in blocks if b.skip is not None]
    assert len(skipped) <= MAX_SKIPPED_BLOCKS, [(b.line, b.skip) for b in skipped]
    for b in skipped:
        assert b.section != ARTICLES, f"docs/python.md:{b.line}: translation skipped"
    unmarked_elsewhere = [b.line for b in blocks
                          if b.skip is None and b.section != ARTICLES]
    assert unmarked_elsewhere == [], (
        "python blocks outside the articles' section must carry a skip marker (or be "
        f"made runnable here): lines {unmarked_elsewhere}")


def test_refusals_are_asserted():
    """A block that catches a deltaguard error must assert something, and the call that
    should be refused is followed by `assert False` so that it cannot pass silently."""
    for b in python_blocks(ARTICLES):
        for m in re.finditer(r"^(\s*)try:\n(.*?)^\1except ", b.code, re.M | re.S):
            body = m.group(2)
            assert re.search(r"^\s*assert False", body, re.M), (
                f"docs/python.md:{b.line}: a try block without `assert False` after the "
                "call that must be refused")
        if "except " in b.code:
            assert "assert" in b.code.split("except ", 1)[1], (
                f"docs/python.md:{b.line}: the refusal is not asserted")


def test_every_original_has_a_translation():
    """Each article snippet (a ```pyspark or ```sql block of the section) is followed
    by a translation before the next original."""
    blocks = [b for b in parse_blocks() if b.section == ARTICLES]
    originals = [i for i, b in enumerate(blocks) if b.lang in ("pyspark", "sql")]
    assert len(originals) >= MIN_ORIGINALS, len(originals)
    for i in originals:
        after = next((b for b in blocks[i + 1:] if b.lang not in ("pyspark", "sql")),
                     None)
        assert after is not None and after.lang == "python", (
            f"docs/python.md:{blocks[i].line}: no translation follows the original")


def test_a_failing_block_names_its_line(tmp_path, monkeypatch):
    """The runner reports the docs line of the failing statement."""
    doc = tmp_path / "doc.md"
    doc.write_text("## S\n\ntext\n\n```python\nx = 1\n```\n\n```python\n"
                   "y = x\nraise RuntimeError('boom')\n```\n", encoding="utf-8")
    blocks = parse_blocks(str(doc))
    assert [b.line for b in blocks] == [6, 10]
    monkeypatch.chdir(tmp_path)
    with pytest.raises(pytest.fail.Exception) as info:
        run_blocks(blocks, {})
    assert "docs/python.md:10:" in str(info.value)
    assert 'File "docs/python.md", line 11' in str(info.value)
