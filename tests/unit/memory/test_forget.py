"""Memory.forget on SQLite + the embedded index: after it, no file holds the erased words.

The scan reads the raw bytes of every file the memory wrote (the store and its WAL, the
search index, the embedding cache), so a copy left in a freed page, a WAL frame, an index
or a checkpoint row is found, not only a copy a query could still return.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from apexmem_neo import Memory
from apexmem_neo.memory import NothingToForgetError
from apexmem_neo.search.embedder import CachedEmbedder
from apexmem_neo.testing import HashingEmbedder
from tests.unit.store.test_contract import scoped_batch

SECRET_S1 = "zanzibarquokka"
SECRET_S2 = "patagoniaibis"
BOB_SECRET = "kamchatkalynx"
MOM_CITY = "Tasmaniaville"


def files_holding(folder: Path, word: str) -> list[str]:
    """Every file under ``folder`` whose bytes contain ``word`` (UTF-8), by name."""
    needle = word.encode("utf-8")
    return sorted(
        str(p.relative_to(folder))
        for p in folder.rglob("*")
        if p.is_file() and needle in p.read_bytes()
    )


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Memory]:
    cache = CachedEmbedder(HashingEmbedder(), tmp_path / "home" / "cache" / "embeddings.db")
    with Memory.sqlite(
        tmp_path / "m.sqlite", lm=None, embedder=cache, home=tmp_path / "home"
    ) as memory:
        say = [{"role": "user", "content": f"my {SECRET_S1} moved to Lisbon"}]
        memory.add(say, scope="alice", session="s1", extract=False)
        later = [{"role": "user", "content": f"the {SECRET_S2} stays"}]
        memory.add(later, scope="alice", session="s2", extract=False)
        memory.add([{"role": "user", "content": f"{BOB_SECRET} here"}], scope="bob", extract=False)
        memory.store.write(scoped_batch("alice", MOM_CITY, seq=7))
        turn = memory.query("SELECT turn_id FROM turns WHERE text LIKE :w", scope="alice",
                            params={"w": f"%{SECRET_S1}%"}).rows[0][0]  # fmt: skip
        memory.checkpoint.mark_failed(turn, "add:alice:s1", "bad", f"raw {SECRET_S1}", 1, 1)
        yield memory


def test_forgetting_a_session_leaves_no_byte_of_it_in_any_file(
    memory: Memory, tmp_path: Path
) -> None:
    assert files_holding(tmp_path, SECRET_S1)  # the words are there before
    result = memory.forget(scope="alice", session="s1")
    assert result.erasure.counts["turns"] == 1 and result.documents >= 1
    assert result.checkpoint_rows >= 1
    assert files_holding(tmp_path, SECRET_S1) == [], "an erased word is still on disk"
    assert memory.search(SECRET_S2, scope="alice").turns  # the other session stays
    assert memory.search(BOB_SECRET, scope="bob").turns  # and the other scope
    assert files_holding(tmp_path, BOB_SECRET)


def test_forgetting_an_entity_removes_it_and_its_facts(memory: Memory, tmp_path: Path) -> None:
    city = MOM_CITY
    assert [f.value for f in memory.history("Mom", "lives_in", scope="alice").facts] == [city]
    result = memory.forget(scope="alice", entity="Mom")
    assert result.erasure.counts["facts"] == 1 and result.erasure.counts["entities"] == 1
    assert memory.query("SELECT count(*) FROM facts", scope="alice").rows == ((0,),)
    assert memory.search(city, scope="alice").entities == []
    assert memory.query("SELECT count(*) FROM turns", scope="alice").rows[0][0] == 3


def test_forgetting_a_scope_leaves_other_scopes_and_an_audit_record(
    memory: Memory, tmp_path: Path
) -> None:
    result = memory.forget(scope="alice")
    assert result.erasure.kind == "scope"
    for word in (SECRET_S1, SECRET_S2, MOM_CITY):
        assert files_holding(tmp_path, word) == [], word
    assert memory.query("SELECT count(*) FROM turns", scope="alice").rows == ((0,),)
    assert memory.search(BOB_SECRET, scope="bob").turns
    rows = memory.store.connection.execute("SELECT scope, kind, counts_json FROM erasures")
    (scope, kind, counts), = rows.fetchall()  # fmt: skip
    assert (scope, kind) == ("alice", "scope") and json.loads(counts)["turns"] == 3


def test_forget_of_an_unknown_entity_is_one_clear_error(memory: Memory) -> None:
    with pytest.raises(Exception, match="Zebulon"):
        memory.forget(scope="alice", entity="Zebulon")


def test_forget_of_a_session_that_is_not_there_names_those_that_are(memory: Memory) -> None:
    with pytest.raises(NothingToForgetError) as info:
        memory.forget(scope="alice", session="s3")
    message = str(info.value)
    assert message.startswith("no session 's3' in scope 'alice'; its sessions: ")
    assert "one named at ingest (1 turns from " in message and "\n" not in message
    assert memory.store.connection.execute("SELECT count(*) FROM erasures").fetchone()[0] == 0
    assert memory.query("SELECT count(*) FROM turns", scope="alice").rows == ((3,),)


def test_forget_of_an_empty_scope_is_an_error(memory: Memory) -> None:
    with pytest.raises(NothingToForgetError, match="scope 'carol' holds nothing to forget"):
        memory.forget(scope="carol")


def test_forget_takes_a_jsonl_session_by_its_name(tmp_path: Path) -> None:
    path = tmp_path / "talk.jsonl"
    lines = [
        {"conversation": "c1", "session": "s1", "speaker": "Ann", "timestamp": "2024-01-15",
         "text": f"the {SECRET_S1} sings"},
        {"conversation": "c1", "session": "s2", "speaker": "Ann", "timestamp": "2024-02-15",
         "text": "the kettle whistles"},
    ]  # fmt: skip
    path.write_text("\n".join(json.dumps(line) for line in lines), encoding="utf-8")
    with Memory.sqlite(tmp_path / "m.sqlite", lm=None, search=None, home=tmp_path) as memory:
        memory.ingest_file(path, extract=False)
        result = memory.forget(scope="c1", session="s1")
        assert result.erasure.counts["turns"] == 1
        memory.add("the kettle is off", scope="c1", session="s2", extract=False)
        rows = memory.query("SELECT count(*) FROM turns", scope="c1").rows
        assert rows == ((2,),)  # add(session="s2") appended to the file's session s2
        assert memory.forget(scope="c1", session="s2").erasure.counts["turns"] == 2
