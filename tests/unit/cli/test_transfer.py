"""`apexmem export | import` on SQLite (no service, no LLM): a round trip into a new store,
a second import that adds nothing, and one error line for a wrong scope or a bad file."""

from __future__ import annotations

import json
from pathlib import Path

from tests.unit.agent.alice import TURN_1, TURN_2
from tests.unit.cli.test_commands import errors, one_error_line, run


def test_export_then_import_into_a_new_store(alice_db: Path, tmp_path: Path) -> None:
    out, copy = tmp_path / "alice.jsonl", tmp_path / "copy.sqlite"
    code, text = run("export", str(out), "--db", str(alice_db))
    assert code == 0, text
    assert "exported 13 rows of scope 'default'" in " ".join(text.split())
    code, text = run("import", str(out), "--db", str(copy), "--no-index", "--json")
    assert code == 0, text
    first = json.loads(text)
    assert first["scope"] == "default" and sum(first["added"].values()) == 13
    sql = "SELECT turn_id FROM turns ORDER BY turn_id"
    code, text = run("query", sql, "--db", str(copy), "--json")
    assert json.loads(text)["rows"] == [[TURN_1], [TURN_2]]
    code, text = run("import", str(out), "--db", str(copy), "--no-index")
    assert code == 0 and "13 rows of scope 'default' in 8 batches: 0 new" in text


def test_import_errors_are_one_line(alice_db: Path, tmp_path: Path) -> None:
    out, copy = tmp_path / "alice.jsonl", tmp_path / "copy.sqlite"
    assert run("export", str(out), "--db", str(alice_db))[0] == 0
    code, err = errors("import", str(out), "--db", str(copy), "--scope", "bob")
    assert code == 1 and "holds scope 'default'" in one_error_line(err)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"format": "csv"}\n' + out.read_text(encoding="utf-8"), encoding="utf-8")
    code, err = errors("import", str(bad), "--db", str(copy))
    assert code == 1 and "line 1: not an apexmem export" in one_error_line(err)
    code, err = errors("import", str(tmp_path / "missing.jsonl"), "--db", str(copy))
    assert code == 1 and "no such file" in one_error_line(err)
    code, err = errors("export", str(tmp_path / "no" / "dir.jsonl"), "--db", str(alice_db))
    assert code == 1 and "no such directory" in one_error_line(err)
