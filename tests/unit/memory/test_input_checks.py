"""Bad input is refused at the door, in one line, before anything is stored: over-long turns,
scope names that could never be read back, NUL characters and lone surrogates; and turn
numbers stay distinct when several writers add to one session (SQLite, no service)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from apexmem_neo import Memory
from apexmem_neo.construction.loaders import LoaderError, TurnInput, load_turns
from apexmem_neo.errors import ApexMemError
from apexmem_neo.mcp_server import IngestJobs, build_server
from apexmem_neo.memory import InvalidInputError
from apexmem_neo.memory.messages import check_scope, derive_scope
from apexmem_neo.memory.transfer import TransferError
from apexmem_neo.ontology import ids
from apexmem_neo.query.sqlite_backend import MAX_VALUE_BYTES
from apexmem_neo.settings import MAX_TURN_CHARS, MAX_TURN_CHARS_LIMIT, Settings
from apexmem_neo.testing import HashingEmbedder

SCOPE = "alice"


def open_memory(tmp_path: Path, name: str = "m.sqlite", **options: Any) -> Memory:
    options.setdefault("embedder", HashingEmbedder())
    options.setdefault("lm", None)
    return Memory.sqlite(tmp_path / name, home=tmp_path / "home", **options)


def turn_count(memory: Memory, scope: str = SCOPE) -> int:
    rows = memory.query("SELECT COUNT(*) FROM turns", scope=scope).rows
    return int(rows[0][0])


def one_line(exc: pytest.ExceptionInfo[BaseException]) -> str:
    message = str(exc.value)
    assert "\n" not in message, message
    return message


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def jsonl_turn(text: str = "Hello.", **extra: Any) -> dict[str, Any]:
    return {"speaker": "Alice", "text": text, "timestamp": "2024-01-15", **extra}


# ---- the turn length limit ----


def test_the_limit_fits_what_every_later_step_reads_back() -> None:
    assert Settings().max_turn_chars == MAX_TURN_CHARS == 100_000
    assert MAX_TURN_CHARS_LIMIT * 4 <= MAX_VALUE_BYTES  # 4 bytes: the widest UTF-8 character


def test_an_over_long_turn_is_refused_and_nothing_of_its_batch_is_stored(tmp_path: Path) -> None:
    with open_memory(tmp_path, max_turn_chars=50) as memory:
        memory.add("first", scope=SCOPE, extract=False)
        with pytest.raises(InvalidInputError) as refused:
            memory.add(["fine", "x" * 51], scope=SCOPE, extract=False)
        message = one_line(refused)
        assert message.startswith("message 1: content is 51 characters, more than the 50")
        assert "max_turn_chars=" in message and "APEXMEM_MAX_TURN_CHARS" in message
        assert turn_count(memory) == 1
        assert memory.add("y" * 50, scope=SCOPE, extract=False).turns[0].status == "stored"


def test_the_limit_comes_from_the_settings_and_has_bounds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("APEXMEM_MAX_TURN_CHARS", "20")
    settings = Settings(APEXMEM_HOME=tmp_path / "home", APEXMEM_DB=tmp_path / "s.sqlite")
    with Memory.from_settings(settings) as memory:
        assert memory.max_turn_chars == 20
    monkeypatch.setenv("APEXMEM_MAX_TURN_CHARS", str(MAX_TURN_CHARS_LIMIT + 1))
    with pytest.raises(ValueError, match="APEXMEM_MAX_TURN_CHARS"):
        Settings()
    with pytest.raises(InvalidInputError, match="out of range: use 1 to 250,000"):
        open_memory(tmp_path, "bad.sqlite", max_turn_chars=0)


def test_ingest_refuses_an_over_long_turn_before_storing_any(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "chat.jsonl", [jsonl_turn(), jsonl_turn("x" * 31)])
    with open_memory(tmp_path, max_turn_chars=30) as memory:
        with pytest.raises(InvalidInputError) as refused:
            memory.ingest_file(path, extract=False)
        assert one_line(refused).startswith("turn 1 ('chat:chat.jsonl:2'): text is 31 characters")
        assert memory.stats().counts.turns == 0


def test_ingest_turns_and_import_check_the_length_too(tmp_path: Path) -> None:
    long = TurnInput(source_key="k", conversation_id="c1", session_seq=0, seq=0,
                     speaker="A", text="x" * 31, anchor="2024-01-01")  # fmt: skip
    with open_memory(tmp_path, max_turn_chars=100) as memory:
        memory.ingest_turns([long], extract=False)
        memory.export(tmp_path / "c1.jsonl", scope="c1")
    with open_memory(tmp_path, "small.sqlite", max_turn_chars=30) as small:
        with pytest.raises(InvalidInputError, match="turn 0 .* 31 characters"):
            small.ingest_turns([long], extract=False)
        with pytest.raises(TransferError) as refused:
            small.import_file(tmp_path / "c1.jsonl")
        message = one_line(refused)
        assert "line 3: turn turn_" in message and "more than the 30" in message
        assert small.stats().counts.turns == 0


# ---- NUL characters and lone surrogates ----


SURROGATE = "contains a lone surrogate"


@pytest.mark.parametrize(
    ("message", "session", "problem"),
    [
        ({"content": "a \ud800 b"}, None, f"message 1: content {SURROGATE} (\\ud800)"),
        ({"content": "a\x00b"}, None, "message 1: content contains a NUL character"),
        ({"name": "Al\x00ice", "content": "hi"}, None, "message 1: name contains a NUL"),
        ({"name": "\udc80", "content": "hi"}, None, f"message 1: name {SURROGATE} (\\udc80)"),
        ({"content": "hi"}, "s\x00", "session name contains a NUL"),
        ({"content": "hi"}, "s\udfff", f"session name {SURROGATE}"),
    ],
)
def test_unstorable_text_is_refused_in_one_line(
    tmp_path: Path, message: dict[str, str], session: str | None, problem: str
) -> None:
    with open_memory(tmp_path) as memory:
        with pytest.raises(InvalidInputError) as refused:
            memory.add([{"role": "user", "content": "ok"}, {"role": "user", **message}],
                       scope=SCOPE, session=session, extract=False)  # fmt: skip
        assert one_line(refused).startswith(problem)
        assert memory.stats().counts.turns == 0


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ('"text": "a \\u0000 b"', "'text' contains a NUL character"),
        ('"text": "a \\ud800 b"', "'text' contains a lone surrogate (\\ud800)"),
        ('"text": "hi", "listener": "B\\u0000"', "'listener' contains a NUL"),
        ('"text": "hi", "session": "\\udbff"', "'session' contains a lone surrogate"),
        ('"text": "hi", "conversation": "c\\u0000"', "'conversation' contains a NUL"),
        ('"text": "hi", "conversation": ""', "'conversation' is empty"),
    ],
)
def test_a_jsonl_file_with_unstorable_text_is_refused(
    tmp_path: Path, line: str, problem: str
) -> None:
    path = tmp_path / "bad.jsonl"
    head = '{"speaker": "Alice", "timestamp": "2024-01-15", '
    path.write_text(f'{head}"text": "fine"}}\n{head}{line}}}\n', encoding="utf-8")
    with pytest.raises(LoaderError) as refused:
        load_turns(path)
    assert one_line(refused).startswith(f"{path}:2: {problem}")


def test_a_jsonl_speaker_with_a_nul_and_a_locomo_sample_id_are_checked(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"speaker": "A\\u0000", "text": "hi", "timestamp": "2024-01-15"}\n')
    with pytest.raises(LoaderError, match="'speaker' contains a NUL"):
        load_turns(path)
    locomo = tmp_path / "locomo.json"
    sample = {"sample_id": "conv\ud800", "conversation": {"speaker_a": "A", "speaker_b": "B"}}
    locomo.write_text(json.dumps([sample]), encoding="utf-8")
    with pytest.raises(LoaderError, match="'sample_id' contains a lone surrogate"):
        load_turns(locomo)


def test_loader_errors_are_apexmem_errors_and_value_errors() -> None:
    assert issubclass(LoaderError, ApexMemError) and issubclass(LoaderError, ValueError)


# ---- scope names: one check at every entry ----


@pytest.mark.parametrize("bad", ["alice\n", "", " alice", "bad scope; DROP", "a" * 129, "-x"])
def test_a_bad_scope_is_refused_by_every_entry_that_stores(tmp_path: Path, bad: str) -> None:
    path = write_jsonl(tmp_path / "one.jsonl", [jsonl_turn()])
    with open_memory(tmp_path) as memory:
        for call in (
            lambda: memory.add("hi", scope=bad, extract=False),
            lambda: memory.ingest_file(path, scope=bad, extract=False),
            lambda: memory.import_file(tmp_path / "none.jsonl", scope=bad),
            lambda: memory.forget(scope=bad),
        ):
            with pytest.raises(InvalidInputError, match="not a valid scope name"):
                call()
        assert memory.stats().counts.turns == 0
    assert check_scope("a" * 128) == "a" * 128


@pytest.mark.parametrize(
    ("name", "scope"),
    [
        ("my file (1)", "my-file-1"),
        ("bad scope; DROP", "bad-scope-DROP"),
        ("José's chat", "Jose-s-chat"),
        ("  -- x --  ", "x"),
        ("conv-26", "conv-26"),
    ],
)
def test_an_awkward_conversation_name_becomes_a_valid_scope(name: str, scope: str) -> None:
    assert derive_scope(name) == scope
    assert check_scope(scope) == scope


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("x" * 300, "is 300 characters, too long for a scope"),
        ("日本語", "has no letter or digit to name a scope"),
        ("!!!", "has no letter or digit"),
    ],
)
def test_a_conversation_name_that_cannot_be_a_scope_is_refused(name: str, problem: str) -> None:
    with pytest.raises(InvalidInputError) as refused:
        derive_scope(name)
    assert problem in one_line(refused) and "scope=" in str(refused.value)


def test_ingest_derives_scopes_and_says_so(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "my file (1).jsonl",
        [jsonl_turn("From the file."), jsonl_turn("Named.", conversation="bad scope; DROP")],
    )
    with open_memory(tmp_path) as memory:
        result = memory.ingest_file(path, extract=False)
        assert result.renamed == {"my file (1)": "my-file-1", "bad scope; DROP": "bad-scope-DROP"}
        assert turn_count(memory, "my-file-1") == 1 and turn_count(memory, "bad-scope-DROP") == 1
        again = memory.ingest_file(path, extract=False)  # the same scopes: nothing new
        assert memory.stats().counts.turns == 2 and again.renamed == result.renamed
        assert memory.forget(scope="my-file-1").erasure.counts["turns"] == 1


def test_ingest_refuses_a_name_that_cannot_be_a_scope_and_stores_nothing(tmp_path: Path) -> None:
    long = write_jsonl(tmp_path / "a.jsonl", [jsonl_turn(), jsonl_turn(conversation="y" * 300)])
    clash = write_jsonl(
        tmp_path / "b.jsonl", [jsonl_turn(conversation="a b"), jsonl_turn(conversation="a-b")]
    )
    with open_memory(tmp_path) as memory:
        with pytest.raises(InvalidInputError, match="300 characters, too long for a scope"):
            memory.ingest_file(long, extract=False)
        with pytest.raises(InvalidInputError) as refused:
            memory.ingest_file(clash, extract=False)
        assert "'a-b' and 'a-b'" not in str(refused.value)
        assert "conversations 'a b' and 'a-b' would both be stored as scope 'a-b'" in one_line(
            refused
        )
        assert memory.stats().counts.turns == 0


def test_ingest_turns_derives_or_refuses_too(tmp_path: Path) -> None:
    def turn(name: str) -> TurnInput:
        return TurnInput(source_key=f"{name}:0", conversation_id=name, session_seq=0, seq=0,
                         speaker="A", text="hi", anchor="2024-01-01")  # fmt: skip

    with open_memory(tmp_path) as memory:
        assert memory.ingest_turns([turn("my chat")], extract=False).renamed == {
            "my chat": "my-chat"
        }
        with pytest.raises(InvalidInputError, match="has no letter or digit"):
            memory.ingest_turns([turn("")], extract=False)
        with pytest.raises(InvalidInputError, match="message 0: scope 'x y' is not a valid"):
            memory.add([turn("x y")], scope=SCOPE, extract=False)
        assert memory.stats().counts.turns == 1


def test_mcp_ingest_refuses_bad_input_in_the_call(tmp_path: Path) -> None:
    memory = open_memory(tmp_path, max_turn_chars=10)
    jobs = IngestJobs(memory)
    server = build_server(memory, SCOPE, extract=False, jobs=jobs)
    calls: dict[str, dict[str, Any]] = {
        "long": {"turns": [{"speaker": "A", "text": "x" * 11}]},
        "nul": {"turns": [{"speaker": "A", "text": "a\x00"}]},
        "session": {"turns": [{"speaker": "A", "text": "hi"}], "session": "s\ud800"},
        "scope": {"turns": [{"speaker": "A", "text": "hi"}], "scope": "bad scope"},
    }

    async def main() -> dict[str, Any]:
        async with Client(server) as client:
            return {k: await client.call_tool("Ingest", args) for k, args in calls.items()}

    try:
        out = anyio.run(main)
    finally:
        jobs.close()
        memory.close()
    texts = {k: "\n".join(getattr(c, "text", "") for c in r.content) for k, r in out.items()}
    assert all(r.is_error for r in out.values()), texts
    assert "11 characters, more than the 10" in texts["long"]
    assert "NUL character" in texts["nul"] and "lone surrogate" in texts["session"]
    assert "not a valid scope name" in texts["scope"]


# ---- turn numbers with several writers ----


def seqs(memory: Memory, scope: str = SCOPE) -> list[int]:
    rows = memory.query("SELECT seq FROM turns ORDER BY seq", scope=scope, limit=10_000).rows
    return [int(r[0]) for r in rows]


def add_many(memory: Memory, writer: str, count: int, errors: list[BaseException]) -> None:
    try:
        for i in range(count):
            memory.add(f"{writer} says {i}", scope=SCOPE, session="s1", extract=False)
    except BaseException as exc:  # reported by the test, not lost in the thread
        errors.append(exc)


def run_writers(memories: list[Memory], count: int) -> None:
    errors: list[BaseException] = []
    threads = [
        threading.Thread(target=add_many, args=(m, f"w{i}", count, errors))
        for i, m in enumerate(memories)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors


def test_two_memories_on_one_file_never_share_a_turn_number(tmp_path: Path) -> None:
    first, second = open_memory(tmp_path, search=None), open_memory(tmp_path, search=None)
    with first, second:
        run_writers([first, second], 40)
        assert seqs(first) == list(range(80))


def test_threads_sharing_one_memory_never_share_a_turn_number(tmp_path: Path) -> None:
    with open_memory(tmp_path, search=None) as memory:
        run_writers([memory, memory, memory], 15)
        assert seqs(memory) == list(range(45))


def test_numbering_follows_turns_stored_without_a_reservation(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "chat.jsonl", [jsonl_turn(conversation=SCOPE, session="s")])
    with open_memory(tmp_path, search=None) as memory:
        memory.ingest_file(path, extract=False)  # numbered by the loader: seq 0
        session_seq = load_turns(path)[0].session_seq
        assert memory.store.reserve_turn_seqs(ids.session_id(SCOPE, session_seq), 2) == 1


def test_a_forgotten_session_starts_numbering_again(tmp_path: Path) -> None:
    with open_memory(tmp_path, search=None) as memory:
        memory.add(["one", "two"], scope=SCOPE, session="s1", extract=False)
        memory.forget(scope=SCOPE, session="s1")
        memory.add("three", scope=SCOPE, session="s1", extract=False)
        assert seqs(memory) == [0]
