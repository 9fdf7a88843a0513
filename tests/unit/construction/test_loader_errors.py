"""Every bad input file is a LoaderError with one line naming the file and the problem."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from apexmem_neo.cli.app import app
from apexmem_neo.construction.loaders import (
    InputFormat,
    LoaderError,
    detect_format,
    load_jsonl,
    load_locomo,
    load_turns,
    locomo_turns,
)

TIME = "1:56 pm on 8 May, 2023"
TURN = {"speaker": "Ann", "dia_id": "D1:1", "text": "Hi Ben!"}
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
LINE = {"speaker": "Alice", "text": "hi", "timestamp": "2024-01-15"}
FORMATS: list[InputFormat] = ["auto", "locomo", "jsonl"]


def expect_error(call: Callable[[], object], *parts: str) -> str:
    """The LoaderError message of ``call``: one line holding every one of ``parts``."""
    with pytest.raises(LoaderError) as info:
        call()
    message = str(info.value)
    assert "\n" not in message and "\r" not in message, message
    for part in parts:
        assert part in message, message
    return message


def conversation(**fields: Any) -> dict[str, Any]:
    """One LOCOMO sample ``conv-x`` whose conversation holds the speakers and ``fields``."""
    return {
        "sample_id": "conv-x",
        "conversation": {"speaker_a": "Ann", "speaker_b": "Ben", **fields},
    }


def locomo_text(data: object) -> str:
    # Indented, so that auto-detection does not take a one-line object for JSONL.
    return json.dumps(data, indent=1)


def write(path: Path, content: str | bytes) -> Path:
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", ["missing.json", "missing.jsonl"])
def test_missing_file(tmp_path: Path, name: str, fmt: InputFormat) -> None:
    path = tmp_path / name
    expect_error(lambda: load_turns(path, fmt), str(path), "no such file")


@pytest.mark.parametrize("fmt", FORMATS)
def test_directory(tmp_path: Path, fmt: InputFormat) -> None:
    path = tmp_path / "dir.json"
    path.mkdir()
    expect_error(lambda: load_turns(path, fmt), str(path), "is a directory")
    expect_error(lambda: detect_format(path), str(path), "is a directory")


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", ["empty.json", "empty.jsonl", "empty.txt"])
@pytest.mark.parametrize("content", ["", "  \n\t\n\n"], ids=["zero-bytes", "whitespace"])
def test_empty_file(tmp_path: Path, name: str, content: str, fmt: InputFormat) -> None:
    path = write(tmp_path / name, content)
    expect_error(lambda: load_turns(path, fmt), str(path), "empty", "no turns")


@pytest.mark.parametrize("load", [load_locomo, load_jsonl, detect_format])
def test_empty_file_through_each_loader(tmp_path: Path, load: Callable[[Path], object]) -> None:
    path = write(tmp_path / "empty.json", "")
    expect_error(lambda: load(path), str(path), "empty")


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ('[{"sample_id": "a",\n  "conversation": }]', "line 2, column 19"),
        ('[{"sample_id": "a"}\n{"b": 1}]', "Expecting ',' delimiter at line 2, column 1"),
        ("[1\n 2]", "Expecting ',' delimiter at line 2, column 2"),
        ("[{'single': 'quotes'}]", "line 1, column 3"),
        ("[" * 100_000, "recursion"),
        ("[" + "1" * 5000 + "]", "digits"),
    ],
    ids=["missing-value", "missing-comma", "no-comma", "quotes", "deep", "huge-int"],
)
@pytest.mark.parametrize("fmt", ["auto", "locomo"])
def test_malformed_locomo_json(tmp_path: Path, content: str, problem: str, fmt: str) -> None:
    path = write(tmp_path / "bad.json", content)
    chosen: InputFormat = "auto" if fmt == "auto" else "locomo"
    expect_error(lambda: load_turns(path, chosen), str(path), "not JSON", problem)


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("{not json", "not JSON (Expecting property name"),
        ('{"speaker": "A",', "not JSON"),
        ('{"text": ' + "[" * 100_000, "not JSON"),
        ("[1, 2]", "a turn must be a JSON object, not a list"),
        ('"text"', "a turn must be a JSON object, not a string"),
        ('{"speaker": "A", "text": "t"}', "missing required key 'timestamp'"),
        ('{"text": "t", "timestamp": "2024-01-15"}', "missing required key 'speaker'"),
        ('{"speaker": "", "text": "t", "timestamp": "2024-01-15"}', "'speaker' is empty"),
        ('{"speaker": "  ", "text": "t", "timestamp": "2024-01-15"}', "'speaker' is empty"),
        ('{"speaker": 7, "text": "t", "timestamp": "2024-01-15"}', "'speaker' must be a string"),
        ('{"speaker": "A", "text": 3, "timestamp": "2024-01-15"}', "'text' must be a string"),
        ('{"speaker": "A", "text": null, "timestamp": "2024-01-15"}', "not null"),
        ('{"speaker": "A", "text": ["t"], "timestamp": "2024-01-15"}', "not a list"),
        ('{"speaker": "A", "text": "t", "timestamp": "soon"}', "not an ISO 8601"),
        ('{"speaker": "A", "text": "t", "timestamp": 5}', "is not a time"),
    ],
)
@pytest.mark.parametrize("fmt", ["auto", "jsonl", "load_jsonl"])
def test_bad_jsonl_line_names_file_and_line(
    tmp_path: Path, line: str, problem: str, fmt: str
) -> None:
    path = write(tmp_path / "bad.jsonl", json.dumps(LINE) + "\n\n" + line + "\n")
    if fmt == "load_jsonl":
        expect_error(lambda: load_jsonl(path), f"{path}:3:", problem)
    else:
        chosen: InputFormat = "auto" if fmt == "auto" else "jsonl"
        expect_error(lambda: load_turns(path, chosen), f"{path}:3:", problem)


@pytest.mark.parametrize(
    ("name", "content", "problem"),
    [
        ("all-bytes.json", bytes(range(256)), "byte 0x80 at offset 128"),
        ("all-bytes.jsonl", bytes(range(256)), "byte 0x80 at offset 128"),
        ("image.png", PNG, "byte 0x89 at offset 0"),
        ("latin1.json", '[{"text": "café"}]'.encode("latin-1"), "byte 0xe9"),
        ("nul.json", b'[{"a": 1}]\x00\x00', "NUL bytes"),
    ],
)
@pytest.mark.parametrize("fmt", FORMATS)
def test_binary_file_is_not_utf8_text(
    tmp_path: Path, name: str, content: bytes, problem: str, fmt: InputFormat
) -> None:
    path = write(tmp_path / name, content)
    expect_error(lambda: load_turns(path, fmt), str(path), "not UTF-8 text", problem)


@pytest.mark.parametrize("name", ["image.png", "data.json", "data"])
def test_detect_format_of_binary_file(tmp_path: Path, name: str) -> None:
    path = write(tmp_path / name, PNG)
    expect_error(lambda: detect_format(path), str(path), "not UTF-8 text")


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (42, "the top level is a number"),
        ("a string", "the top level is a string"),
        (None, "the top level is null"),
        (True, "the top level is a boolean"),
        ([1, 2], "item 1 is a number, not a conversation object"),
        ([conversation(), "x"], "item 2 is a string, not a conversation object"),
        ([[TURN]], "item 1 is a list"),
        ([{"sample_id": "conv-y"}], "item 1 'conv-y' has no 'conversation'"),
        ([{"qa": []}], "item 1 has no 'conversation'"),
    ],
)
@pytest.mark.parametrize("fmt", ["auto", "locomo"])
def test_locomo_wrong_top_level_shape(tmp_path: Path, data: object, problem: str, fmt: str) -> None:
    path = write(tmp_path / "shape.json", locomo_text(data))
    chosen: InputFormat = "auto" if fmt == "auto" else "locomo"
    expect_error(lambda: load_turns(path, chosen), str(path), "not LOCOMO", problem)


BAD_SAMPLES: list[tuple[dict[str, Any], str]] = [
    (
        {"sample_id": "conv-x", "conversation": [TURN]},
        "'conversation' must be an object, not a list",
    ),
    ({"sample_id": "conv-x", "conversation": None}, "'conversation' must be an object, not null"),
    (conversation(session_1="hello"), "'session_1' must be a list of turns, not a string"),
    (conversation(session_1={"a": TURN}), "'session_1' must be a list of turns, not an object"),
    (
        conversation(session_1_date_time=TIME, session_1=["hello"]),
        "session 1 turn 1: a turn must be a JSON object, not a string",
    ),
    (
        conversation(session_1_date_time=TIME, session_1=[TURN, {"text": "x"}]),
        "session 1 turn 2: missing required key 'speaker'",
    ),
    (
        conversation(session_1_date_time=TIME, session_1=[{"speaker": "Ann"}]),
        "session 1 turn 1: missing required key 'text'",
    ),
    (
        conversation(session_1_date_time=TIME, session_1=[{"speaker": "", "text": "x"}]),
        "session 1 turn 1: 'speaker' is empty",
    ),
    (
        conversation(session_1_date_time=TIME, session_1=[{"speaker": "Ann", "text": 5}]),
        "session 1 turn 1: 'text' must be a string, not a number",
    ),
    (
        conversation(session_1_date_time=TIME, session_1=[TURN], session_2=[TURN]),
        "session 2: has turns but no (or an empty) 'session_2_date_time'",
    ),
    (
        conversation(session_2_date_time="  ", session_2=[TURN]),
        "session 2: has turns but no (or an empty) 'session_2_date_time'",
    ),
    (
        conversation(session_2_date_time="yesterday", session_2=[TURN]),
        "session 2: LOCOMO date_time 'yesterday' is not like",
    ),
    (
        conversation(session_2_date_time=20230508, session_2=[TURN]),
        "session 2: LOCOMO date_time 20230508 is not like",
    ),
]


@pytest.mark.parametrize(("sample", "problem"), BAD_SAMPLES)
@pytest.mark.parametrize("fmt", ["auto", "locomo"])
def test_locomo_wrong_conversation_shape(
    tmp_path: Path, sample: dict[str, Any], problem: str, fmt: str
) -> None:
    path = write(tmp_path / "shape.json", locomo_text([sample]))
    chosen: InputFormat = "auto" if fmt == "auto" else "locomo"
    expect_error(lambda: load_turns(path, chosen), str(path), "conversation 'conv-x'", problem)


@pytest.mark.parametrize(("sample", "problem"), BAD_SAMPLES)
def test_locomo_turns_of_a_bad_sample_names_the_sample(
    sample: dict[str, Any], problem: str
) -> None:
    expect_error(lambda: locomo_turns(sample), "conversation 'conv-x'", problem)


def test_locomo_turns_of_a_non_object_or_a_sample_without_conversation() -> None:
    not_a_sample: Any = [TURN]
    expect_error(lambda: locomo_turns(not_a_sample), "must be a JSON object, not a list")
    expect_error(lambda: locomo_turns({"sample_id": "s"}), "conversation 's': no 'conversation'")


def test_a_bad_conversation_fails_the_file_even_when_not_selected(tmp_path: Path) -> None:
    good = conversation(session_1_date_time=TIME, session_1=[TURN])
    bad = {**conversation(session_1=[TURN]), "sample_id": "conv-bad"}
    path = write(tmp_path / "mixed.json", locomo_text([good, bad]))
    expect_error(
        lambda: load_turns(path, conversations=["conv-x"]), str(path), "conv-bad", "session 1"
    )


@pytest.mark.parametrize(
    "data",
    [
        [],
        {"sample_id": "conv-x", "conversation": {}},
        [conversation()],
        [conversation(session_1_date_time=TIME)],
        [conversation(session_1_date_time=TIME, session_1=[], session_2=None)],
    ],
    ids=["empty-list", "empty-conversation", "no-sessions", "date-only", "empty-sessions"],
)
@pytest.mark.parametrize("fmt", ["auto", "locomo"])
def test_locomo_without_turns(tmp_path: Path, data: object, fmt: str) -> None:
    path = write(tmp_path / "none.json", locomo_text(data))
    chosen: InputFormat = "auto" if fmt == "auto" else "locomo"
    expect_error(lambda: load_turns(path, chosen), str(path), "no turns")
    expect_error(lambda: load_turns(path, chosen, max_sessions=1), str(path), "no turns")


@pytest.mark.parametrize("content", ["\n\n", "\r\n  \r\n", "\n" * 50])
def test_jsonl_of_blank_lines_has_no_turns(tmp_path: Path, content: str) -> None:
    path = write(tmp_path / "blank.jsonl", content)
    expect_error(lambda: load_turns(path), str(path), "no turns")
    expect_error(lambda: load_turns(path, "jsonl"), str(path), "no turns")


def test_good_input_with_a_byte_order_mark_or_a_line_separator_in_text(tmp_path: Path) -> None:
    sample = conversation(session_1_date_time=TIME, session_1=[TURN])
    locomo = write(tmp_path / "bom.json", b"\xef\xbb\xbf" + locomo_text([sample]).encode())
    assert [t.text for t in load_turns(locomo)] == ["Hi Ben!"]
    record = {**LINE, "text": "one\u2028two"}
    stream = write(tmp_path / "sep.jsonl", json.dumps(record, ensure_ascii=False) + "\n")
    assert [t.text for t in load_turns(stream)] == ["one\u2028two"]


@pytest.mark.parametrize(
    ("name", "content", "problem"),
    [
        ("missing.json", None, "no such file"),
        ("image.json", PNG, "not UTF-8 text"),
        ("empty.json", b"", "empty"),
        ("broken.json", b'[{"sample_id": "a",\n}]', "not JSON"),
        ("shape.json", locomo_text([conversation(session_1=[TURN])]).encode(), "no (or an"),
        ("broken.jsonl", b'{"speaker": ""}\n', "missing required key"),
    ],
)
def test_cli_ingest_of_a_bad_file_prints_one_error_line_and_creates_no_store(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    content: bytes | None,
    problem: str,
) -> None:
    monkeypatch.setenv("APEXMEM_HOME", str(tmp_path / "home"))
    path = tmp_path / name if content is None else write(tmp_path / name, content)
    db = tmp_path / "x.sqlite"
    result = CliRunner().invoke(app, ["ingest", str(path), "--db", str(db), "--no-index"])
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith("error:") and str(path) in lines[0] and problem in lines[0]
    assert not db.exists()
    assert not (tmp_path / "home" / "data").exists()
