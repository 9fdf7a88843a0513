"""Export and import of one scope as JSON Lines (SQLite, embedded index, no service, no LLM):
the round trip gives equal rows, a second import adds nothing, other scopes stay out, and a
bad file is one error naming the line, with nothing written."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from apexmem_neo import Memory
from apexmem_neo.memory import transfer
from apexmem_neo.memory.transfer import FORMAT, TransferError
from apexmem_neo.testing import HashingEmbedder
from tests.unit.memory.transfer_graph import fill, tables


def open_memory(path: Path) -> Memory:
    return Memory.sqlite(path, embedder=HashingEmbedder(), lm=None, home=path.parent / "home")


@pytest.fixture
def exported(tmp_path: Path) -> tuple[Path, dict[str, list[tuple[object, ...]]]]:
    """The file of scope alice (bob's rows beside it in the store) and alice's tables."""
    with open_memory(tmp_path / "source.sqlite") as memory:
        fill(memory, "alice")
        fill(memory, "bob", city="Oslo")
        out = tmp_path / "alice.jsonl"
        result = memory.export(out, scope="alice")
        rows = tables(memory, "alice")
    assert result.path == str(out) and result.scope == "alice"
    assert result.rows == {table: len(found) for table, found in rows.items()}
    return out, rows


def test_round_trip_gives_equal_rows_and_searchable_turns(
    exported: tuple[Path, dict[str, list[tuple[object, ...]]]], tmp_path: Path
) -> None:
    path, rows = exported
    with open_memory(tmp_path / "copy.sqlite") as memory:
        result = memory.import_file(path)
        assert result.scope == "alice" and result.indexed > 0
        assert result.added == {table: len(found) for table, found in rows.items()}
        assert tables(memory, "alice") == rows
        assert all(found == [] for found in tables(memory, "bob").values())
        turns = memory.search("Boston autumn", scope="alice", k=3).turns
        assert any("Boston is lovely" in hit.text for hit in turns)
        again = io.StringIO()
        memory.export(again, scope="alice")
    assert again.getvalue() == path.read_text(encoding="utf-8")  # the same file, byte for byte


def test_the_file_holds_one_scope_every_column_and_small_batches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(transfer, "CHUNK", 2)
    with open_memory(tmp_path / "source.sqlite") as memory:
        fill(memory, "alice")
        fill(memory, "bob", city="Oslo")
        out = io.StringIO()
        result = memory.export(out, scope="alice")
        rows = tables(memory, "alice")
    header, *lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert header == {"format": FORMAT, "version": 1, "scope": "alice"}
    assert len(lines) == result.batches > len(rows)  # tables of more than 2 rows are split
    assert {line["scope"] for line in lines} == {"alice"}
    assert "Oslo" not in out.getvalue() and '"bob"' not in out.getvalue()
    moods = [r for line in lines for r in line.get("properties", []) if r["name"] == "mood"]
    assert len(moods) == 2 and moods[0] == moods[1]  # its own line, and beside its fact
    assert moods[0]["description"] == "How the dog behaves" and moods[0]["recorded_at"]
    kinds = [set(line) - {"scope"} for line in lines]  # one table a line (facts: with properties)
    assert all(len(kind) == 1 or kind == {"properties", "facts"} for kind in kinds)
    assert result.rows == {table: len(found) for table, found in rows.items()}
    facts = [r for line in lines for r in line.get("facts", [])]
    assert len(facts) == len(rows["facts"]) and all(r["recorded_at"] for r in facts)
    with open_memory(tmp_path / "copy.sqlite") as memory:
        memory.import_file(io.StringIO(out.getvalue()), scope="alice", index=False)
        assert tables(memory, "alice") == rows


def test_importing_twice_adds_nothing(
    exported: tuple[Path, dict[str, list[tuple[object, ...]]]], tmp_path: Path
) -> None:
    path, rows = exported
    with open_memory(tmp_path / "copy.sqlite") as memory:
        memory.import_file(path)
        counts = memory.stats().counts
        again = memory.import_file(path)
        assert set(again.added.values()) == {0}
        assert again.rows == {table: len(found) for table, found in rows.items()}
        assert memory.stats().counts == counts and tables(memory, "alice") == rows


def test_a_file_imports_only_into_its_own_scope(
    exported: tuple[Path, dict[str, list[tuple[object, ...]]]], tmp_path: Path
) -> None:
    path, _ = exported
    with open_memory(tmp_path / "copy.sqlite") as memory:
        with pytest.raises(TransferError, match="holds scope 'alice' and imports only into it"):
            memory.import_file(path, scope="bob")
        assert sum(memory.stats().counts.model_dump().values()) == 0


def _replace_line(path: Path, number: int, text: str) -> Path:
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[number - 1] = text
    bad = path.with_name(f"bad{number}.jsonl")
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return bad


@pytest.mark.parametrize(
    ("number", "text", "error"),
    [
        (1, '{"hello": "world"}', "line 1: not an apexmem export"),
        (1, json.dumps({"format": FORMAT, "version": 9, "scope": "alice"}), "version 9"),
        (3, "{not json", "line 3: not JSON"),
        (4, json.dumps({"scope": "bob"}), "line 4: a batch of scope 'bob'"),
        (5, json.dumps({"scope": "alice", "turns": [{"seq": -1}]}), "line 5: not a valid"),
    ],
)
def test_a_bad_line_is_named_and_nothing_is_written(
    exported: tuple[Path, dict[str, list[tuple[object, ...]]]],
    tmp_path: Path,
    number: int,
    text: str,
    error: str,
) -> None:
    path, _ = exported
    bad = _replace_line(path, number, text)
    with open_memory(tmp_path / "copy.sqlite") as memory:
        fill(memory, "alice", city="Paris")  # what is already stored must survive
        before = tables(memory, "alice")
        with pytest.raises(TransferError, match=error) as caught:
            memory.import_file(bad)
        assert "\n" not in str(caught.value)
        assert tables(memory, "alice") == before


def test_a_line_pointing_at_missing_rows_stops_there_keeping_the_rest(
    exported: tuple[Path, dict[str, list[tuple[object, ...]]]], tmp_path: Path
) -> None:
    path, rows = exported
    lines = path.read_text(encoding="utf-8").splitlines()
    no_sessions = path.with_name("no_sessions.jsonl")
    no_sessions.write_text("\n".join([lines[0], *lines[2:]]) + "\n", encoding="utf-8")
    with open_memory(tmp_path / "copy.sqlite") as memory:
        with pytest.raises(TransferError, match="line 2: session_id .* does not exist"):
            memory.import_file(no_sessions)
        memory.import_file(path)  # the whole file afterwards completes the scope
        assert tables(memory, "alice") == rows


def test_an_empty_file_and_an_empty_scope(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    with open_memory(tmp_path / "m.sqlite") as memory:
        with pytest.raises(TransferError, match="empty"):
            memory.import_file(empty)
        result = memory.export(empty, scope="nobody")
        assert result.batches == 0 and set(result.rows.values()) == {0}
        assert memory.import_file(empty).scope == "nobody"
