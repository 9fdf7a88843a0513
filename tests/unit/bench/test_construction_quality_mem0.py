"""The construction-quality benchmark's Mem0 arm without mem0 or an LLM: how turns, memories
and answers are mapped, what is reported as unsupported, the benchmark-only server's
command line, and the one line printed when the extra is missing."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from apexmem_neo.services.llama_server import CONTEXT_SIZE, LlamaServerService
from apexmem_neo.settings import Settings
from benchmarks.construction_quality import mem0_server
from benchmarks.construction_quality.generator import generate
from benchmarks.construction_quality.mem0_arm import (
    MISSING,
    UNSUPPORTED,
    Mem0ArmError,
    _open,
    answer_messages,
    embedding_dims,
    fact_rows,
    ingest_cost,
    mem0_config,
    memory_line,
    openai_model,
    turn_message,
    unread,
)
from benchmarks.construction_quality.questions import reads
from benchmarks.construction_quality.run import evaluate, merge_results, published, summary
from benchmarks.construction_quality.scoring import FactRow, ReadResult, concept_names, judge_fact
from benchmarks.construction_quality.truth import Conversation, DataSet, Question
from benchmarks.memory import AnswerLog

TINY = generate("tiny")
CONV = TINY.conversations[0]
TURN = {t.id: t for t in CONV.turns}


def _memory(mid: str, text: str, turn: str | None = "t01") -> dict[str, Any]:
    stamp = TURN[turn].timestamp if turn in TURN else "2024-01-01T00:00:00"
    meta = {"timestamp": stamp, "turn": turn} if turn else {}
    return {"id": mid, "memory": text, "metadata": meta}


def test_a_turn_is_one_user_message_with_its_speaker_and_metadata() -> None:
    messages, meta = turn_message(CONV.conversation_id, TURN["t03"])
    assert messages == [{"role": "user", "content": f"Alice: {TURN['t03'].text}"}]
    t03 = TURN["t03"]
    assert meta == {"speaker": "Alice", "timestamp": t03.timestamp, "turn": "t03",
                    "session": t03.session, "conversation": CONV.conversation_id}  # fmt: skip


def test_the_answerer_sees_each_memory_with_its_day_and_the_question_date() -> None:
    found = [_memory("m1", "Alice lives in Boise"), _memory("m2", "Likes tea", turn=None)]
    assert memory_line(found[0]) == f"- {TURN['t01'].timestamp[:10]}: Alice lives in Boise"
    assert memory_line(found[1]) == "- Likes tea"
    system, user = answer_messages("Where does Alice live now?", "2025-01-03", found)
    assert system["role"] == "system"
    assert user == {"role": "user", "content": "Where does Alice live now?"}
    assert "03 January 2025" in system["content"] and "Alice lives in Boise" in system["content"]
    assert "(none)" in answer_messages("Q?", "2025-01-03", [])[0]["content"]


def test_memories_become_facts_on_the_person_their_text_names() -> None:
    rows = fact_rows(
        [
            _memory("a", "Alice rents a place downtown in Boise"),
            _memory("b", "Alice's sister Maya just moved to Tulsa", turn="t04"),
            _memory("c", "User has lived in Omaha their whole life", turn="t02"),
            _memory("d", "Alice moved to Raleigh", turn="t99"),
        ],
        CONV,
    )
    assert [r.entity for r in rows[:2]] == ["Alice", "Maya"]
    assert rows[2].entity == "User has lived in Omaha their whole life"  # names nobody
    assert rows[0].turn_text == TURN["t01"].text and rows[3].turn_text is None
    assert rows[0].value == "Alice rents a place downtown in Boise"
    assert len({r.property for r in rows}) == len(rows)  # no shared property names


def _judge(rows: list[FactRow]) -> list[tuple[bool, bool, str]]:
    names = concept_names(CONV, rows)
    return [(j.judged, j.correct, j.reason) for j in (judge_fact(r, CONV, names) for r in rows)]


def test_a_memory_is_judged_only_when_it_carries_a_known_value() -> None:
    rows = fact_rows(
        [
            _memory("a", "Alice's home is Boise and she rents a place downtown"),
            _memory("b", "Alice rents a place downtown"),  # true, but no known value
            _memory("c", "User has lived in Omaha their whole life", turn="t02"),
            _memory("d", "Priya lives in Tulsa", turn="t04"),
        ],
        CONV,
    )
    assert _judge(rows) == [
        (True, True, "asserted"),
        (False, False, "other"),
        (True, False, "wrong_entity"),
        (True, False, "wrong_entity"),
    ]


def test_a_memory_of_a_change_is_right_with_both_values() -> None:
    rows = fact_rows([_memory("a", "Alice relocated from Boise to Raleigh", turn="t03")], CONV)
    assert _judge(rows) == [(True, True, "asserted")]


def test_reads_and_property_names_are_unsupported_with_a_reason() -> None:
    read = reads(CONV)[0]
    result = unread(CONV, read, read.property, "canonical")
    assert result.entity is None and result.value is None and result.error
    assert {"current", "as_of_read", "one_name_per_concept"} <= UNSUPPORTED.keys()
    assert all(UNSUPPORTED.values())


class _FakeMem0:
    """The arm's shape over canned memories and answers (no mem0, no LLM)."""

    name = "mem0"
    unsupported = UNSUPPORTED

    def ingest(self, data: DataSet, jsonl: Path) -> dict[str, Any]:
        return ingest_cost([
            {"seconds": 30.0, "memories": 1, "llm_calls": 1, "prompt_tokens": 8000,
             "completion_tokens": 50, "truncated": 0, "unparsed": 0},
            {"seconds": 10.0, "memories": 0, "llm_calls": 1, "prompt_tokens": 8100,
             "completion_tokens": 9, "truncated": 0, "unparsed": 1},
        ])  # fmt: skip

    def ask(self, conv: Conversation, question: Question) -> dict[str, Any]:
        return {"answer": "Raleigh", "seconds": 2.0, "llm_calls": 1, "tokens": 300,
                "mode": "mem0 search + answer", "error": None}  # fmt: skip

    def facts(self, conv: Conversation) -> list[FactRow]:
        return fact_rows([_memory("a", "Alice relocated from Boise to Raleigh", "t03")], conv)

    def read(self, conv: Conversation, read: Any, prop: str | None, style: str) -> ReadResult:
        raise AssertionError("a system without reads is not asked to read")

    def close(self) -> None:
        pass


def test_unsupported_figures_are_none_and_the_rest_is_scored(tmp_path: Path) -> None:
    log = AnswerLog(tmp_path / "r.jsonl", "system", lambda _: "store")
    out = evaluate(_FakeMem0(), TINY, tmp_path / "tiny.jsonl", log)
    figures = out["figures"]
    for key in UNSUPPORTED:
        assert figures[key] is None and out["unsupported"][key]
    assert out["reads"] == [] and out["property_names"]  # names are recorded, not scored
    assert figures["now"]["n"] == 3 and figures["now"]["successes"] == 1
    assert figures["fact_precision"] == {"successes": 1, "n": 1, "rate": 1.0}
    assert figures["llm_calls_per_turn"] == 1.0 and figures["seconds_per_turn"] == 20.0
    assert out["construction"]["unparsed_outputs"] == 1
    assert out["construction"]["turns_without_memory"] == 1
    assert "current" not in out["goals"] and "now" in out["goals"]
    record = {"set": "tiny", "data": {"turns": 4, "questions": 6}, "store": "sqlite",
              "systems": {"mem0": out}}  # fmt: skip
    assert "current                  n/a (Mem0 has no read" in summary(record)


def test_a_peer_is_published_beside_apexmem(tmp_path: Path) -> None:
    log = AnswerLog(tmp_path / "r.jsonl", "system", lambda _: "store")
    peer = evaluate(_FakeMem0(), TINY, tmp_path / "tiny.jsonl", log) | {"config": {"x": 1}}
    apex = {"figures": {k: v if v is not None else {"successes": 1, "n": 2, "rate": 0.5}
                        for k, v in peer["figures"].items()}}  # fmt: skip
    apex["figures"] |= {"names_per_concept_mean": 1.0}
    record = {
        "set": "test", "seed": 2, "store": "sqlite", "model": "openai/local",
        "command": ".venv/bin/python -m benchmarks.construction_quality.run --set test",
        "commit": "0123456789abcdef0123456789abcdef01234567", "started_at": "2026-12-06T01:00",
        "data": {"conversations": 1, "turns": 4, "questions": 6},
        "systems": {"apexmem": apex, "mem0": peer},
    }  # fmt: skip
    out = published(record)
    assert out["peers"]["mem0"]["config"] == {"x": 1}
    assert out["peers"]["mem0"]["unsupported"] == UNSUPPORTED
    assert out["figures"]["mem0_now"] == peer["figures"]["now"]
    rows = [r for r in out["table"] if "Mem0" in r["result"]]
    assert len(rows) == 2
    for row in out["table"]:
        row["result"].format_map(out["figures"])
        row["figure"].format_map(out["figures"])
        assert row["ci95"] in out["ci95"]


def test_arms_run_apart_are_merged_with_each_runs_provenance() -> None:
    def run(system: str, commit: str, seed: int = 2) -> dict[str, Any]:
        return {"set": "test", "seed": seed, "command": f"run --systems {system}",
                "commit": commit, "started_at": "2026-12-06T01:00",
                "systems": {system: {"figures": {}}}}  # fmt: skip

    merged = merge_results([run("apexmem", "a" * 40), run("mem0", "b" * 40)])
    assert sorted(merged["systems"]) == ["apexmem", "mem0"]
    assert merged["commit"] == "a" * 40
    assert [(r["commit"], r["systems"]) for r in merged["runs"]] == [
        ("a" * 40, ["apexmem"]), ("b" * 40, ["mem0"])]  # fmt: skip
    with pytest.raises(SystemExit, match="different sets"):
        merge_results([run("apexmem", "a" * 40), run("mem0", "b" * 40, seed=1)])


def test_the_config_is_local_only(tmp_path: Path) -> None:
    config = mem0_config(tmp_path, "qwen", "http://127.0.0.1:8081/v1", "local",
                         tmp_path / "model", 768)  # fmt: skip
    assert config["llm"]["config"]["openai_base_url"] == "http://127.0.0.1:8081/v1"
    assert config["embedder"] == {"provider": "huggingface",
                                  "config": {"model": str(tmp_path / "model"),
                                             "embedding_dims": 768}}  # fmt: skip
    store = config["vector_store"]["config"]
    assert store["path"] == str(tmp_path / "qdrant") and store["on_disk"]
    assert "host" not in store and "url" not in store
    assert config["history_db_path"].startswith(str(tmp_path))


def test_the_model_is_apexmems_own_through_the_openai_provider() -> None:
    assert openai_model(Settings(APEXMEM_LM="openai/qwen2.5-coder-1.5b-instruct")) == (
        "qwen2.5-coder-1.5b-instruct"
    )
    with pytest.raises(Mem0ArmError, match="OpenAI-compatible"):
        openai_model(Settings(APEXMEM_LM="anthropic/claude-x"))


def test_embedding_dims_come_from_the_saved_modules(tmp_path: Path) -> None:
    (tmp_path / "1_Pooling").mkdir()
    modules = [{"idx": 0, "name": "0", "path": "", "type": "Transformer"},
               {"idx": 1, "name": "1", "path": "1_Pooling", "type": "Pooling"}]  # fmt: skip
    (tmp_path / "modules.json").write_text(json.dumps(modules))
    (tmp_path / "1_Pooling" / "config.json").write_text('{"word_embedding_dimension": 768}')
    assert embedding_dims(tmp_path) == 768


def test_a_missing_extra_is_one_line_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEM0_TELEMETRY", "True")
    monkeypatch.setenv("MEM0_DIR", str(tmp_path))
    monkeypatch.setitem(sys.modules, "mem0", None)
    with pytest.raises(Mem0ArmError) as err:
        _open({}, tmp_path)
    assert str(err.value) == MISSING and "[bench-mem0]" in MISSING and "\n" not in MISSING


def test_the_benchmark_server_is_apart_from_the_librarys(tmp_path: Path) -> None:
    srv = mem0_server.Mem0LlamaServer(tmp_path, mem0_server.HOST, mem0_server.PORT)
    lib = LlamaServerService(tmp_path, "127.0.0.1", 8080)
    argv = list(srv.launch_spec().argv)
    assert argv[argv.index("-c") + 1] == str(mem0_server.CONTEXT)
    assert argv[argv.index("--port") + 1] == str(mem0_server.PORT)
    assert mem0_server.CONTEXT // mem0_server.SLOTS >= mem0_server.MIN_SLOT_CONTEXT
    assert srv.binary_path == lib.binary_path and srv.model_path == lib.model_path
    assert srv.pid_file.path != lib.pid_file.path and srv.log_path != lib.log_path
    lib_argv = list(lib.launch_spec().argv)
    assert lib_argv[lib_argv.index("-c") + 1] == str(CONTEXT_SIZE)  # the library's is untouched


def test_a_server_with_small_slots_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mem0_server, "slot_context", lambda _: 8192)
    with pytest.raises(Exception, match="8192 tokens"):
        mem0_server.check_context("http://127.0.0.1:8080/v1")
    monkeypatch.setattr(mem0_server, "slot_context", lambda _: 16384)
    assert mem0_server.check_context("http://127.0.0.1:8081/v1") == 16384
