"""Turn metadata on real SQLite files (no service, no LLM): checked before anything is
stored, kept with the turn, filtered on in listings and search, exported and imported, and
added to a store written before it existed."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path
from typing import Any

import pytest

from apexmem_neo import AsyncMemory, Memory
from apexmem_neo.errors import InvalidInputError
from apexmem_neo.ontology import GraphBatch, Session, Turn
from apexmem_neo.ontology.metadata import Metadata, matches, metadata_pairs
from apexmem_neo.store import columns
from apexmem_neo.store.pages import TURNS, Page, every_item
from apexmem_neo.store.sqlite import store as store_module
from apexmem_neo.testing import HashingEmbedder
from tests.unit.store.backends import FakeClock

CHAT: list[Any] = [
    {"role": "user", "content": "I ordered a flat white", "metadata": {"channel": "web", "n": 1}},
    {"role": "assistant", "content": "Noted, a flat white", "metadata": {"channel": "app"}},
    {"role": "user", "content": "And a croissant", "metadata": {"channel": "web", "n": True}},
    "No metadata here",
]


def open_memory(tmp_path: Path, name: str = "m.sqlite") -> Memory:
    return Memory.sqlite(
        tmp_path / name, home=tmp_path / f"{name}.home", embedder=HashingEmbedder(), lm=None
    )


def filled(tmp_path: Path) -> Memory:
    memory = open_memory(tmp_path)
    memory.add(CHAT, scope="ann", session="chat", at="2024-05-01", extract=False)
    return memory


def texts(turns: list[Turn]) -> list[str]:
    return [t.text for t in turns]


@pytest.mark.parametrize(
    ("metadata", "problem"),
    [
        (["web"], "metadata must be a dict of string keys"),
        ({1: "x"}, "metadata key 1 is not a non-empty string"),
        ({"": "x"}, "metadata key '' is not a non-empty string"),
        ({"tags": ["a", "b"]}, "metadata value of 'tags' is of type list, not a JSON scalar"),
        ({"deep": {"a": 1}}, "metadata value of 'deep' is of type dict, not a JSON scalar"),
        ({"x": math.nan}, "metadata value of 'x' is nan, not a finite number"),
        ({"x": object()}, "metadata value of 'x' is of type object, not a JSON scalar"),
        ({"x": "a\x00b"}, "metadata value of 'x' contains a NUL character"),
        ({"big": 2**64}, r"metadata value of 'big' is \d+, outside the 64-bit integers"),
    ],
)
def test_bad_metadata_fails_the_whole_add_and_stores_nothing(
    tmp_path: Path, metadata: Any, problem: str
) -> None:
    good = {"role": "user", "content": "fine", "metadata": {"ok": 1}}
    bad = {"role": "user", "content": "bad", "metadata": metadata}
    with open_memory(tmp_path) as memory:
        with pytest.raises(InvalidInputError, match=rf"^message 1: {problem}"):
            memory.add([good, bad], scope="ann", extract=False)
        assert memory.store.counts().turns == 0


def test_metadata_is_stored_with_the_turn_and_returned(tmp_path: Path) -> None:
    with filled(tmp_path) as memory:
        turns = memory.turns("ann").items
        assert [t.metadata for t in turns] == [
            {"channel": "web", "n": 1},
            {"channel": "app"},
            {"channel": "web", "n": True},
            {},
        ]
        stored = memory.store.connection.execute(  # type: ignore[attr-defined]
            "SELECT metadata_json FROM turns ORDER BY seq"
        ).fetchall()
        assert [row[0] for row in stored][:2] == ['{"channel":"web","n":1}', '{"channel":"app"}']


def test_turns_filter_on_every_key_by_json_equality(tmp_path: Path) -> None:
    with filled(tmp_path) as memory:
        web = memory.turns("ann", metadata={"channel": "web"}).items
        assert texts(web) == ["I ordered a flat white", "And a croissant"]
        assert texts(memory.turns("ann", metadata={"channel": "web", "n": 1}).items) == [
            "I ordered a flat white"
        ]
        assert texts(memory.turns("ann", metadata={"n": True}).items) == ["And a croissant"]
        for other in ({"n": 1.0}, {"n": "1"}, {"channel": "WEB"}, {"absent": None}):
            assert memory.turns("ann", metadata=other).items == []
        assert len(memory.turns("ann", metadata={}).items) == 4


def test_filtered_turns_page_by_cursor_and_combine_with_a_session(tmp_path: Path) -> None:
    with filled(tmp_path) as memory:
        memory.add(CHAT[:1], scope="ann", session="other", at="2024-06-01", extract=False)
        web = every_item(
            lambda after: memory.turns("ann", metadata={"channel": "web"}, after=after, limit=1)
        )
        assert len(web) == 3 and all(t.metadata["channel"] == "web" for t in web)
        chat = memory.turns("ann", session="chat", metadata={"channel": "web"})
        assert texts(chat.items) == ["I ordered a flat white", "And a croissant"]


def test_a_bad_filter_is_invalid_input(tmp_path: Path) -> None:
    with (
        filled(tmp_path) as memory,
        pytest.raises(InvalidInputError, match="metadata filter: metadata value of 'k'"),
    ):
        memory.turns("ann", metadata={"k": ["a"]})  # type: ignore[dict-item]


def test_the_store_filter_agrees_with_the_reference_rule(tmp_path: Path) -> None:
    with filled(tmp_path) as memory:
        every = memory.turns("ann").items
        filters: list[Metadata] = [{"channel": "web"}, {"n": 1}, {"n": True}, {"channel": "app"}]
        for wanted in filters:

            def read(after: str | None, w: Metadata = wanted) -> Page[Turn]:
                return memory.store.page(TURNS, scope="ann", after=after, limit=1, metadata=w)

            found = every_item(read)
            assert found == [t for t in every if matches(t.metadata, wanted)]


def test_pairs_tell_json_types_apart() -> None:
    assert len(set(metadata_pairs({"n": 1}) + metadata_pairs({"n": 1.0}))) == 2
    assert metadata_pairs({"n": True}) != metadata_pairs({"n": 1})


def test_search_keeps_only_matching_turns_and_overfetches_to_k(tmp_path: Path) -> None:
    with open_memory(tmp_path) as memory:
        plain = [f"coffee order number {n}" for n in range(40)]
        memory.add(plain, scope="ann", at="2024-05-01", extract=False)
        tagged: list[Any] = [
            {"role": "user", "content": f"coffee order {n} again", "metadata": {"vip": True}}
            for n in range(3)
        ]
        memory.add(tagged, scope="ann", at="2024-05-02", extract=False)
        unfiltered = memory.search("coffee order number", scope="ann", k=2, kinds=["turn"])
        assert not any("again" in hit.text for hit in unfiltered.turns)
        found = memory.search("coffee order number", scope="ann", k=2, metadata={"vip": True})
        assert len(found.turns) == 2 and all("again" in hit.text for hit in found.turns)
        assert not (found.entities or found.properties or found.events)
        assert memory.search("coffee", scope="ann", metadata={"vip": False}).turns == []
        with pytest.raises(InvalidInputError, match="include 'turn' in kinds"):
            memory.search("coffee", scope="ann", kinds=["entity"], metadata={"vip": True})


def test_async_memory_passes_metadata_through(tmp_path: Path) -> None:
    async def run() -> list[str]:
        async with AsyncMemory(filled(tmp_path)) as memory:
            found = await memory.turns("ann", metadata={"channel": "app"})
            return texts(found.items)

    assert asyncio.run(run()) == ["Noted, a flat white"]


def test_export_and_import_keep_metadata(tmp_path: Path) -> None:
    with filled(tmp_path) as memory:
        memory.export(tmp_path / "ann.jsonl", scope="ann")
        before = memory.turns("ann").items
    with open_memory(tmp_path, "copy.sqlite") as copy:
        copy.import_file(tmp_path / "ann.jsonl", index=False)
        assert copy.turns("ann").items == before
        assert texts(copy.turns("ann", metadata={"channel": "app"}).items) == [
            "Noted, a flat white"
        ]


def test_an_import_with_bad_metadata_is_refused(tmp_path: Path) -> None:
    with filled(tmp_path) as memory:
        memory.export(tmp_path / "ann.jsonl", scope="ann")
    lines = (tmp_path / "ann.jsonl").read_text(encoding="utf-8").splitlines()
    bad = [line.replace('"metadata":{"channel":"app"}', '"metadata":{"channel":["app"]}')
           for line in lines]  # fmt: skip
    assert bad != lines
    (tmp_path / "bad.jsonl").write_text("\n".join(bad) + "\n", encoding="utf-8")
    with open_memory(tmp_path, "copy.sqlite") as copy:
        with pytest.raises(Exception, match="not a JSON scalar"):
            copy.import_file(tmp_path / "bad.jsonl", index=False)
        assert copy.store.counts().turns == 0


OLD_TURNS = GraphBatch(
    scope="ann",
    sessions=[Session(conversation_id="ann", seq=1)],
    turns=[
        Turn(
            session_id=Session(conversation_id="ann", seq=1).session_id,
            seq=0,
            speaker="Ann",
            text="written before metadata",
            anchor_datetime="2023-01-01",
        )
    ],
)


def write_before_metadata(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A store file as the version before migration 0009 wrote it: no metadata column."""
    all_migrations = store_module.migrations
    monkeypatch.setattr(store_module, "migrations", lambda: list(all_migrations())[:8])
    cols = [c for c in columns.COLUMNS["turns"] if c != "metadata_json"]
    old_insert = (
        f"INSERT OR IGNORE INTO turns ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"
    )
    monkeypatch.setitem(store_module.INSERTS, "turns", old_insert)
    tuples = columns.batch_tuples
    at = columns.COLUMNS["turns"].index("metadata_json")

    def without_metadata(batch: GraphBatch, default: str) -> dict[str, list[tuple[Any, ...]]]:
        rows = tuples(batch, default)
        return rows | {"turns": [row[:at] + row[at + 1 :] for row in rows["turns"]]}

    monkeypatch.setattr(columns, "batch_tuples", without_metadata)
    old = store_module.SQLiteGraphStore(path, clock=FakeClock())
    old.init_schema()
    old.write(OLD_TURNS)
    assert "metadata_json" not in {
        row[1] for row in old.connection.execute("PRAGMA table_info(turns)")
    }
    old.close()


def test_a_store_written_before_metadata_is_upgraded(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite"
    with pytest.MonkeyPatch.context() as before:
        write_before_metadata(path, before)
    with open_memory(tmp_path) as memory:
        versions = memory.store.connection.execute(  # type: ignore[attr-defined]
            "SELECT version FROM schema_version"
        ).fetchall()
        assert 9 in {row[0] for row in versions}
        (old,) = memory.turns("ann").items
        assert old.text == "written before metadata" and old.metadata == {}
        memory.add(CHAT[:1], scope="ann", at="2024-05-01", extract=False)
        tagged = memory.turns("ann", metadata={"channel": "web"}).items
        assert texts(tagged) == ["I ordered a flat white"]
