"""Markdown rendering: bounded, escaped cells and the error block."""

from __future__ import annotations

from apexmem_neo.query.backend import QueryResult
from apexmem_neo.tools import markdown


def test_cells() -> None:
    assert markdown.cell(None, 20) == "NULL"
    assert markdown.cell(True, 20) == "true"
    assert markdown.cell({"b": 1, "a": [1, "x"]}, 40) == '{"a": [1, "x"], "b": 1}'
    assert markdown.cell(b"\x01\xff", 20) == "0x01ff"
    assert markdown.cell("a|b\nc\\d", 20) == "a\\|b c\\\\d"
    assert markdown.cell("x" * 50, 10) == "x" * 9 + "…"


def test_result_with_translation_and_truncation() -> None:
    res = QueryResult(("n",), ((1,), (2,)), True, "MATCH (n) RETURN n", "cypher")
    text = markdown.result(res, 20, 2)
    assert text.startswith("Ran as cypher:\n```cypher\nMATCH (n) RETURN n\n```\n")
    assert "**2 rows shown; more exist (row limit 2).**" in text
    assert text.endswith("| n |\n|---|\n| 1 |\n| 2 |")
