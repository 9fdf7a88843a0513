"""LIKE / GLOB as regular expressions: SQLite's answers, and no catastrophic backtracking.

Python's ``re`` (3.11+: atomic groups) with ``re.ASCII`` reads these expressions as Java does
(ASCII-only case folding, the same escapes), so SQLite itself is the oracle here; the
integration test ``test_sql_shim_neo4j`` asks Neo4j the same questions.
"""

from __future__ import annotations

import re
import sqlite3
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apexmem_neo.query.shim.patterns import NEVER, glob_regex, like_regex

LIKE_ALPHABET = "aAbB_%\\.é É*"
GLOB_ALPHABET = "ab?*[]^-\\.z"


def sqlite_answer(sql: str, *args: str) -> bool:
    with sqlite3.connect(":memory:") as connection:
        (value,) = connection.execute(sql, args).fetchone()
    return bool(value)


def like_matches(text: str, pattern: str, escape: str | None = None) -> bool:
    regex = re.compile("(?is)" + like_regex(pattern, escape), re.ASCII)
    return regex.fullmatch(text) is not None


def glob_matches(text: str, pattern: str) -> bool:
    return re.compile("(?s)" + glob_regex(pattern)).fullmatch(text) is not None


@settings(max_examples=400, deadline=None)
@given(text=st.text(LIKE_ALPHABET, max_size=8), pattern=st.text(LIKE_ALPHABET, max_size=6))
def test_like_agrees_with_sqlite(text: str, pattern: str) -> None:
    assert like_matches(text, pattern) == sqlite_answer("SELECT ? LIKE ?", text, pattern)


@settings(max_examples=300, deadline=None)
@given(text=st.text(LIKE_ALPHABET, max_size=8), pattern=st.text(LIKE_ALPHABET, max_size=6))
def test_like_with_escape_agrees_with_sqlite(text: str, pattern: str) -> None:
    expected = sqlite_answer("SELECT ? LIKE ? ESCAPE '\\'", text, pattern)
    assert like_matches(text, pattern, "\\") == expected


@settings(max_examples=400, deadline=None)
@given(text=st.text(GLOB_ALPHABET, max_size=8), pattern=st.text(GLOB_ALPHABET, max_size=7))
def test_glob_agrees_with_sqlite(text: str, pattern: str) -> None:
    assert glob_matches(text, pattern) == sqlite_answer("SELECT ? GLOB ?", text, pattern)


@pytest.mark.parametrize(
    ("pattern", "escape", "expected"),
    [
        ("a%b_c.", None, "a.*b.c\\."),
        ("%_%_%x", None, "(?>.*?.)(?>.*?.).*x"),
        ("ab%cd%ef", None, "ab(?>.*?cd).*ef"),
        ("50\\%%", "\\", "50%.*"),
        ("a\\", "\\", NEVER),
        ("%", None, ".*"),
    ],
)
def test_like_shapes(pattern: str, escape: str | None, expected: str) -> None:
    assert like_regex(pattern, escape) == expected


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("*[0-9]?x", ".*[0-9].x"),
        ("a[^b]", "a[^b]"),
        ("[]a]", "[\\]a]"),
        ("[^]-]", "[^\\]\\-]"),
        ("[z-a]", "[z]"),
        ("ab[", NEVER),
    ],
)
def test_glob_shapes(pattern: str, expected: str) -> None:
    assert glob_regex(pattern) == expected


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        ("%_" * 12 + "%x", "a" * 20_000),
        ("%a%a%a%a%a%b", "a" * 20_000),
        ("%" + "a%" * 30 + "b", "a" * 5_000),
    ],
)
def test_wildcard_runs_cost_linear_time(pattern: str, text: str) -> None:
    """Each of these takes hours with one ``.*`` per wildcard; the segmented form fails fast."""
    started = time.perf_counter()
    assert not like_matches(text, pattern)
    assert not glob_matches(text, pattern.replace("%", "*").replace("_", "?"))
    assert time.perf_counter() - started < 2.0
