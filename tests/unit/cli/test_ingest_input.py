"""`apexmem ingest` refuses bad input in one line, exits non-zero and creates no store file:
an empty conversation name, NUL characters, lone surrogates, a turn over the length limit, a
name that cannot be a scope; an awkward file name becomes a valid scope, with a warning."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from apexmem_neo.cli.app import app

runner = CliRunner()


def turn(text: str = "Hello there.", **extra: Any) -> str:
    return json.dumps({"speaker": "Alice", "text": text, "timestamp": "2024-01-15", **extra})


def ingest(path: Path, db: Path, *more: str) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of a plain (no LLM, no index) ingest."""
    res = runner.invoke(app, ["ingest", str(path), "--db", str(db), "--no-extract",
                              "--no-index", *more])  # fmt: skip
    assert "Traceback" not in res.output, res.output
    return res.exit_code, res.stdout, res.stderr


def error_line(err: str) -> str:
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("error"), err
    return lines[0]


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (turn(conversation=""), ":2: 'conversation' is empty"),
        (turn("a \\u0000 b"), ":2: 'text' contains a NUL character"),
        (turn("a \\ud800 b"), ":2: 'text' contains a lone surrogate (\\ud800)"),
        (turn(session="s\\u0000"), ":2: 'session' contains a NUL character"),
        (turn(conversation="x" * 300), "is 300 characters, too long for a scope"),
        (turn(conversation="!!!"), "conversation '!!!' has no letter or digit"),
    ],
)
def test_bad_input_is_one_line_and_no_store(
    home: Path, tmp_path: Path, line: str, problem: str
) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_text(f"{turn()}\n{line.replace(chr(92) * 2, chr(92))}\n", encoding="utf-8")
    db = tmp_path / "m.sqlite"
    code, _, err = ingest(path, db)
    assert code != 0 and problem in error_line(err)
    assert not db.exists()


def test_an_over_long_turn_names_the_limit_and_how_to_raise_it(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("APEXMEM_MAX_TURN_CHARS", "20")
    path = tmp_path / "chat.jsonl"
    path.write_text(f"{turn()}\n{turn('x' * 21)}\n", encoding="utf-8")
    db = tmp_path / "m.sqlite"
    code, _, err = ingest(path, db)
    message = error_line(err)
    assert code != 0 and "turn 1 ('chat:chat.jsonl:2'): text is 21 characters" in message
    assert "more than the 20" in message and "APEXMEM_MAX_TURN_CHARS" in message
    assert not db.exists()


def test_a_bad_scope_option_is_refused_before_the_store(home: Path, tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_text(f"{turn()}\n", encoding="utf-8")
    db = tmp_path / "m.sqlite"
    code, _, err = ingest(path, db, "--scope", "bad scope; DROP")
    assert code != 0 and "not a valid scope name" in error_line(err)
    assert not db.exists()


def test_an_awkward_file_name_becomes_a_scope_with_a_warning(home: Path, tmp_path: Path) -> None:
    path = tmp_path / "my file (1).jsonl"
    path.write_text(f"{turn()}\n{turn('Second.')}\n", encoding="utf-8")
    db = tmp_path / "m.sqlite"
    code, out, err = ingest(path, db)
    assert code == 0, err
    assert "conversation 'my file (1)' is stored as scope 'my-file-1'" in err
    res = runner.invoke(app, ["query", "SELECT COUNT(*) FROM turns", "--db", str(db),
                              "--scope", "my-file-1", "--json"])  # fmt: skip
    assert res.exit_code == 0 and json.loads(res.stdout)["rows"] == [[2]], res.output
