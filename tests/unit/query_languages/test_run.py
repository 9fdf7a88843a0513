"""The study's runner without services or LLM calls: its flags, the split and the models in
the summary, model-tagged results, the arms it builds over SQLite, and the tables."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from apexmem_neo.settings import Settings
from benchmarks.query_languages.arms import AgentArm, open_stores
from benchmarks.query_languages.fewshot import compiled_dir, read_manifest
from benchmarks.query_languages.generate import load_gold, load_questions
from benchmarks.query_languages.metrics import CallRecord, Program, QuestionRecord
from benchmarks.query_languages.questions import Question
from benchmarks.query_languages.run import (
    ask_all,
    build_arms,
    load_done,
    main,
    parse_args,
    require_local_lms,
    sqlite_path,
    study_questions,
)
from benchmarks.query_languages.split import select
from benchmarks.query_languages.tables import markdown
from benchmarks.query_languages.text2sql import Text2SQLArm

MODEL = "openai/test-model"


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("APEXMEM_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("APEXMEM_LM", MODEL)
    return Settings()


def record(
    q: Question, arm: str, correct: bool, model: str = "", program: Program = "compiled"
) -> QuestionRecord:
    call = CallRecord(tool="GraphQuery", args={"query": "SELECT t_from FROM facts"}, ok=True)
    return QuestionRecord(arm=arm, model=model, program=program, qid=q.qid, kind=q.kind,
                          question=q.text, gold=q.gold, answer_type=q.answer_type,
                          correct=correct, calls=[call], tool_calls=1, seconds=1.0)  # fmt: skip


def test_flags_and_their_defaults() -> None:
    args = parse_args([])
    assert args.split == "test" and args.gold_seeds is None and args.models is None
    assert "text2sql" in args.arms and args.program == "compiled"
    assert args.compiled == compiled_dir([7])
    assert parse_args(["--gold-seeds", "7,8"]).compiled == compiled_dir([7, 8])
    assert parse_args(["--zero-shot"]).program == "zero-shot"
    args = parse_args(["--split", "all", "--gold-seeds", "7, 8", "--models", "a/x,b/y",
                       "--arms", "sqlite-sql,text2sql", "--out", "r/q.json"])  # fmt: skip
    assert args.split == "all" and args.gold_seeds == [7, 8] and args.models == ["a/x", "b/y"]
    assert args.arms == ["sqlite-sql", "text2sql"] and args.results == Path("r/q.jsonl")
    bad_flags = (["--split", "dev"], ["--gold-seeds", "7,x"], ["--gold-seeds", "7,19"],
                 ["--gold-seeds", "8,8"], ["--arms", "nope"], ["--models", ","])  # fmt: skip
    for bad in bad_flags:
        with pytest.raises(SystemExit):
            parse_args(bad)


def test_the_sqlite_file_is_named_after_the_seed_set(settings: Settings) -> None:
    assert sqlite_path(parse_args([]), settings).name == "query_languages_gold.sqlite"
    seeded = parse_args(["--gold-seeds", "7,8"])
    assert sqlite_path(seeded, settings).name == "query_languages_gold_s7-8.sqlite"
    assert sqlite_path(parse_args(["--sqlite", "x.sqlite"]), settings) == Path("x.sqlite")


def test_records_without_a_model_count_as_the_default_model(tmp_path: Path) -> None:
    q = load_questions()[0]
    path = tmp_path / "r.jsonl"
    path.write_text(record(q, "sqlite-sql", True).model_dump_json() + "\n"
                    + record(q, "sqlite-sql", False, "b/y").model_dump_json() + "\n")  # fmt: skip
    assert [r.model for r in load_done(path, "a/x")] == ["a/x", "b/y"]


def test_report_per_model_with_split_intervals_and_tests(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    questions = study_questions(load_questions(), "test", 12)
    assert [q.qid for q in questions] == [q.qid for q in select(load_questions(), "test")][:12]
    skipped = study_questions(load_questions(), "test", 12, skip=4)
    assert [q.qid for q in skipped] == [q.qid for q in questions[4:]]
    results = tmp_path / "ql.jsonl"
    lines = [record(q, arm, (i + n) % 2 == 0, model)
             for model in (MODEL, "b/y") for n, arm in enumerate(("sqlite-sql", "text2sql"))
             for i, q in enumerate(questions)]  # fmt: skip
    lines.append(record(load_questions()[0], "sqlite-sql", True, "c/z"))  # not asked for
    lines += [record(q, "text2sql", True, MODEL, "zero-shot") for q in questions[:4]]
    results.write_text("".join(r.model_dump_json() + "\n" for r in lines), encoding="utf-8")
    out = tmp_path / "ql.json"
    main(["--report-only", "--limit", "12", "--arms", "sqlite-sql,text2sql",
          "--models", f"{MODEL},b/y", "--out", str(out)])  # fmt: skip
    summary = json.loads(out.read_text())
    assert summary["models"] == [MODEL, "b/y"] and summary["split"] == "test"
    assert summary["questions"] == 12 and summary["gold_seeds"] == [7]
    sizes = summary["split_sizes"]
    assert sizes["test"]["questions"] + sizes["train"]["questions"] == len(load_questions())
    part = summary["by_model"][MODEL]
    arm = part["arms"]["sqlite-sql"]
    assert arm["questions"] == 12 and arm["accuracy_pct"] == 50.0
    assert arm["accuracy_ci95"][0] < 50.0 < arm["accuracy_ci95"][1]
    assert sum(arm["failure_classes"].values()) == 6  # one class per wrong answer
    assert set(arm["by_kind"]) <= {q.kind for q in questions}
    assert list(part["arms"]) == ["sqlite-sql", "text2sql", "text2sql (zero-shot)"]
    assert part["arms"]["text2sql (zero-shot)"]["accuracy_pct"] == 100.0
    assert "sqlite-sql (zero-shot)" not in part["arms"]  # no record, no row
    pair = part["mcnemar"][0]
    assert (pair["arm_a"], pair["arm_b"]) == ("sqlite-sql", "text2sql")
    assert pair["questions"] == 12 and pair["only_a_correct"] == 6 == pair["only_b_correct"]
    assert summary["few_shot"]["program"] == "compiled"
    assert summary["few_shot"]["demos_per_arm"] == len(read_manifest(compiled_dir([7])).demos)
    page = out.with_suffix(".md").read_text()
    assert f"## Model {MODEL}" in page and "## Model b/y" in page
    assert "McNemar" in page and "Error taxonomy" in page and "split test" in page
    assert "| text2sql (zero-shot) | 4 | 100.0" in page and "Few-shot: an arm" in page


def test_ask_all_tags_each_record_with_its_model(tmp_path: Path) -> None:
    class Fixed:
        def __init__(self, arm: str) -> None:
            self.arm = arm

        def ask(self, q: Question) -> QuestionRecord:
            return record(q, self.arm, True)

    args = parse_args(["--out", str(tmp_path / "r.json"), "--zero-shot"])
    q = load_questions()[0]
    arms: dict[str, dict[str, Any]] = {m: {"text2sql": Fixed("text2sql")} for m in ("a", "b")}
    ask_all(args, [(q, "a", "text2sql"), (q, "b", "text2sql")], arms)
    assert [(r.model, r.arm, r.program) for r in load_done(args.results)] == [
        ("a", "text2sql", "zero-shot"), ("b", "text2sql", "zero-shot"),
    ]  # fmt: skip


def test_build_arms_over_sqlite_for_a_model(settings: Settings, tmp_path: Path) -> None:
    with open_stores(load_gold(), tmp_path / "gold.sqlite", None) as stores:
        arms = build_arms(["sqlite-sql", "text2sql"], "b/y", settings, stores, None)
        assert isinstance(arms["sqlite-sql"], AgentArm) and isinstance(
            arms["text2sql"], Text2SQLArm
        )
        assert arms["text2sql"].lm.model == "b/y" and arms["sqlite-sql"].agent.lm.model == "b/y"
        assert arms["sqlite-sql"].agent.config.query_program is None
        assert arms["text2sql"].program.write_sql.demos == []
        compiled = compiled_dir([7])
        arms = build_arms(["sqlite-sql", "text2sql"], "b/y", settings, stores, None, compiled)
        demos = len(read_manifest(compiled).demos)
        assert arms["sqlite-sql"].agent.config.query_program == str(compiled / "sqlite-sql.json")
        assert len(arms["text2sql"].program.write_sql.demos) == demos


def test_the_run_refuses_missing_programs_but_not_zero_shot(tmp_path: Path) -> None:
    out = ["--out", str(tmp_path / "r.json"), "--arms", "text2sql", "--limit", "0"]
    with pytest.raises(SystemExit, match="no compiled programs at"):
        main([*out, "--compiled", str(tmp_path / "none")])
    with pytest.raises(SystemExit, match="not train questions of this set"):
        main([*out, "--gold-seeds", "7,8", "--compiled", str(compiled_dir([7]))])
    main([*out, "--zero-shot", "--compiled", str(tmp_path / "none")])  # nothing to ask


def test_markdown_reads_a_summary_written_before_models_were_kept() -> None:
    old = {
        "command": "python -m benchmarks.query_languages.run", "model": "m", "model_note": "M",
        "load_average": [1.0], "questions": 2,
        "arms": {"sqlite-sql": {"questions": 2, "accuracy_pct": 50.0,
                                "error_classes": {"parse error": 1},
                                "accuracy_by_kind": {"join": 50.0}}},
    }  # fmt: skip
    page = markdown(old)
    assert "first 2 questions" in page and "## Model m (M)" in page
    assert "| sqlite-sql | 2 | 50.0 | - |" in page and "| sqlite-sql | 1 |" in page


def test_a_local_model_server_that_does_not_answer_stops_the_run_with_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("APEXMEM_LM_API_BASE", "http://127.0.0.1:9/v1")  # nothing listens
    with pytest.raises(
        SystemExit, match=r"error: language model .* nothing answers at http://127.0.0.1:9/v1"
    ):
        require_local_lms(Settings(), [MODEL])
