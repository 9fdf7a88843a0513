"""Failures exit non-zero through one path: a one-line ``error:`` on stderr, or with ``--json``
one JSON error object on stdout. The model is the OpenAI-compatible stub (a real HTTP server)
answering an error or text no adapter parses; Neo4j is a port nobody listens on."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from apexmem_neo.cli.app import app
from tests.openai_stub_server import OpenAIStubServer
from tests.unit.test_lm_failures import free_port

runner = CliRunner()
QUESTION = "Which restaurant does Alice like?"
JSONL = (
    '{"conversation": "c1", "session": "s1", "speaker": "Alice", "timestamp": "2024-01-15", '
    '"text": "My favourite restaurant is Italian Garden."}\n'
    '{"conversation": "c1", "session": "s1", "speaker": "Bob", "timestamp": "2024-01-15", '
    '"text": "Nice."}\n'
)


def invoke(*args: str) -> tuple[int, str, str]:
    """Exit code, stdout and stderr."""
    res = runner.invoke(app, list(args))
    assert "Traceback" not in res.output, res.output
    return res.exit_code, res.stdout, res.stderr


def error_line(err: str) -> str:
    """The one error line of stderr (the model loader's progress and warnings aside)."""
    lines = [x for x in err.splitlines() if x.startswith("error:")]
    assert len(lines) == 1, err
    return lines[0]


def json_error(out: str) -> dict[str, str]:
    """The JSON error object that is the whole of stdout."""
    error: dict[str, str] = json.loads(out)["error"]
    assert set(error) == {"type", "message"} and "\n" not in error["message"]
    return error


def use_model(monkeypatch: pytest.MonkeyPatch, stub: OpenAIStubServer) -> None:
    monkeypatch.setenv("APEXMEM_LM", "openai/stub-model")
    monkeypatch.setenv("APEXMEM_LM_API_BASE", stub.url)
    monkeypatch.setenv("APEXMEM_LM_API_KEY", "a-key")


@pytest.fixture
def refusing(monkeypatch: pytest.MonkeyPatch, home: Path) -> Iterator[OpenAIStubServer]:
    """The memory's model: a server that refuses the key."""
    with OpenAIStubServer(chat_error=(401, "Incorrect API key provided")) as stub:
        use_model(monkeypatch, stub)
        yield stub


@pytest.fixture
def babbling(monkeypatch: pytest.MonkeyPatch, home: Path) -> Iterator[OpenAIStubServer]:
    """The memory's model: a server whose every reply is text no adapter parses."""
    with OpenAIStubServer(chat_reply="I am not JSON, sorry.") as stub:
        use_model(monkeypatch, stub)
        yield stub


@pytest.fixture
def jsonl(tmp_path: Path) -> Path:
    path = tmp_path / "talk.jsonl"
    path.write_text(JSONL, encoding="utf-8")
    return path


def test_ask_with_a_refused_key_exits_1_with_one_line(
    refusing: OpenAIStubServer, alice_db: Path
) -> None:
    code, _, err = invoke("ask", QUESTION, "--db", str(alice_db), "--mode", "fast")
    line = error_line(err)
    assert code == 1 and "language model openai/stub-model: Incorrect API key" in line


def test_ask_with_a_refused_key_under_json_prints_a_json_error(
    refusing: OpenAIStubServer, alice_db: Path
) -> None:
    code, out, _ = invoke("ask", QUESTION, "--db", str(alice_db), "--mode", "fast", "--json")
    error = json_error(out)
    assert code == 1 and error["type"] == "LanguageModelError"
    assert "Fix: set" in error["message"]


def test_ask_without_an_answer_exits_1(babbling: OpenAIStubServer, alice_db: Path) -> None:
    code, out, _ = invoke("ask", QUESTION, "--db", str(alice_db), "--mode", "fast", "--json")
    error = json_error(out)
    assert code == 1 and error["type"] == "AnswerError"
    assert error["message"].startswith("no answer: fast path failed")


def test_ingest_with_failed_turns_exits_1_naming_the_fix(
    babbling: OpenAIStubServer, jsonl: Path, tmp_path: Path
) -> None:
    db = str(tmp_path / "m.sqlite")
    code, out, err = invoke("ingest", str(jsonl), "--db", db, "--no-index", "--max-attempts", "1")
    line = error_line(err)
    assert code == 1 and "2 of 2 turns failed extraction" in line and "--retry-failed" in line
    assert "turns: 0 done, 2 failed" in out  # the summary still comes first


def test_ingest_with_a_refused_key_stops_at_the_first_turn(
    refusing: OpenAIStubServer, tmp_path: Path
) -> None:
    turn = {"conversation": "c1", "speaker": "Alice", "timestamp": "2024-01-15"}
    lines = [json.dumps({**turn, "text": f"Fact number {n}."}) for n in range(6)]
    path = tmp_path / "six.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    db = str(tmp_path / "m.sqlite")
    code, _, err = invoke("ingest", str(path), "--db", db, "--no-index")
    assert code == 1 and "Incorrect API key provided" in error_line(err)
    assert len(refusing.requests) <= 2  # the first turn, and the next one already in flight


def test_forget_by_the_jsonl_session_name(home: Path, jsonl: Path, tmp_path: Path) -> None:
    db = str(tmp_path / "m.sqlite")
    code, _, _ = invoke("ingest", str(jsonl), "--db", db, "--no-extract", "--no-index")
    assert code == 0
    code, out, _ = invoke("forget", "--scope", "c1", "--session", "s1", "--yes", "--db", db)
    assert code == 0 and "2 turns" in out
    code, _, err = invoke("forget", "--scope", "c1", "--session", "s1", "--yes", "--db", db)
    assert code == 1 and "no session 's1' in scope 'c1'; it holds no session" in error_line(err)


def test_forget_that_matches_nothing_exits_1(home: Path, jsonl: Path, tmp_path: Path) -> None:
    db = str(tmp_path / "m.sqlite")
    invoke("ingest", str(jsonl), "--db", db, "--no-extract", "--no-index")
    code, out, _ = invoke("forget", "--scope", "c1", "--session", "s2", "--yes", "--db", db,
                          "--json")  # fmt: skip
    error = json_error(out)
    assert code == 1 and error["type"] == "NothingToForgetError"
    assert "its sessions:" in error["message"] and "2 turns from 2024-01-15" in error["message"]
    code, _, err = invoke("forget", "--scope", "c1", "--entity", "Zed", "--yes", "--db", db)
    assert code == 1 and "no entity named 'Zed'" in error_line(err)
    code, _, err = invoke("forget", "--scope", "nobody", "--yes", "--db", db)
    assert code == 1 and "holds nothing to forget" in error_line(err)


def test_a_neo4j_that_does_not_answer_is_one_line_and_exit_1(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    uri = f"bolt://127.0.0.1:{free_port()}"
    monkeypatch.setenv("NEO4J_URI", uri)
    code, _, err = invoke("stats", "--store", "neo4j")
    line = error_line(err)
    assert code == 1 and f"neo4j is not reachable at {uri}: [Errno 111] Connection refused" in line
    assert "retried" not in err
    code, out, _ = invoke("stats", "--store", "neo4j", "--json")
    assert code == 1 and json_error(out)["type"] == "ServiceUnavailableError"
