"""Publishing a finished run, end to end without services or LLM calls: hand-made records go
through ``run --report-only`` into a summary and through ``publish`` into the published file,
its kept answers and its page, for the generated set with zero-shot rows, for the small model
and for a real memory (whose kept answers hold no conversation text); ``--report-only`` makes
the same files again from the kept answers alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from apexmem_neo.settings import LOCAL_LM, SMALL_LM, SMALL_LM_API_BASE, Settings
from benchmarks import report
from benchmarks.published_results import answers_path, results_table, with_table
from benchmarks.query_languages.generate import load_questions
from benchmarks.query_languages.kept import AGENT_ERROR, read_kept
from benchmarks.query_languages.metrics import PROGRAMS, CallRecord, QuestionRecord
from benchmarks.query_languages.publish import (
    ARM_LABELS,
    commands,
    default_out,
    timing,
)
from benchmarks.query_languages.publish import main as publish
from benchmarks.query_languages.questions import Question
from benchmarks.query_languages.real_memory import main as write_real_memory
from benchmarks.query_languages.run import (
    endpoint,
    parse_args,
    require_local_lms,
    run_history,
    shown_path,
    study_questions,
)
from benchmarks.query_languages.run import main as run
from tests.unit.query_languages.messy_store import messy_store

ARMS = tuple(ARM_LABELS)
KEPT_FIELDS = {
    "arm", "model", "program", "qid", "kind", "question", "gold", "answer_type", "answer",
    "correct", "error", "calls", "tool_calls", "llm_calls", "tokens", "seconds",
    "started_at", "load_at_start", "failure",
}  # fmt: skip


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APEXMEM_HOME", str(tmp_path / "home"))
    for name in ("APEXMEM_LM", "APEXMEM_LM_API_BASE", "APEXMEM_LM_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def rows_of(value: str) -> str:
    return f"**1 rows.**\n| value |\n|---|\n| {value} |"


def fake_record(q: Question, arm: str, program: str, n: int, started: float) -> QuestionRecord:
    """Right, or wrong in one of three ways: the rows held the gold, the query did not parse,
    or the agent failed with an error that quotes the question."""
    style = (n + ARMS.index(arm) + (program == "zero-shot")) % 5
    query = f"SELECT value, t_from FROM facts WHERE entity_id = 'x{n}'"
    ok = CallRecord(tool="GraphQuery", args={"query": query, "params": {"d": "2023-01-01"}},
                    output_head=rows_of(q.gold), ok=True)  # fmt: skip
    failed = CallRecord(tool="GraphQuery", args={"query": query + " WHERE"},
                        output_head="## Error: syntax error\n\nnear WHERE", ok=False,
                        error_class="parse error")  # fmt: skip
    calls, answer, error = [ok], q.gold, None
    if style == 2:
        answer = "I do not know"
    if style == 3:
        calls, answer = [failed], ""
    if style == 4:
        calls, answer, error = [], "", f"LLM stopped while reading {q.text!r}"
    return QuestionRecord(
        arm=arm, model="", program=program, qid=q.qid, kind=q.kind, question=q.text,
        gold=q.gold, answer_type=q.answer_type, answer=answer, correct=style < 2, error=error,
        calls=calls, tool_calls=len(calls), llm_calls=2, tokens=1000 + 10 * n,
        seconds=2.0 + n % 3, started_at=started, load_at_start=1.5,
    )  # fmt: skip


def write_results(path: Path, questions: list[Question], model: str) -> Path:
    """Every arm and program asked, one row after the other (as the runner asks them)."""
    records, clock = [], 1_700_000_000.0
    for program in PROGRAMS:
        for arm in ARMS:
            for n, q in enumerate(questions):
                clock += 10.0
                records.append(fake_record(q, arm, program, n, clock))
    lines = [r.model_copy(update={"model": model}).model_dump_json() + "\n" for r in records]
    path.write_text("".join(lines), encoding="utf-8")
    return path


def files(out: Path) -> list[str]:
    paths = (out, answers_path(out), out.with_suffix(".md"))
    return [p.read_text(encoding="utf-8") for p in paths]


def summarize(tmp_path: Path, results: Path, extra: list[str], model: str) -> dict[str, Any]:
    out = tmp_path / "summary.json"
    run(["--report-only", "--models", model, "--results", str(results), "--out", str(out),
         *extra])  # fmt: skip
    summary: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return summary


def publish_run(tmp_path: Path, results: Path, name: str) -> tuple[Path, dict[str, Any]]:
    out = tmp_path / "published" / name
    publish(["--summary", str(tmp_path / "summary.json"), "--results", str(results),
             "--out", str(out)])  # fmt: skip
    data: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return out, data


def test_a_generated_run_publishes_both_rows_and_remakes_from_its_kept_answers(
    tmp_path: Path,
) -> None:
    questions = study_questions(load_questions(), "test", 12, skip=2)
    results = write_results(tmp_path / "r.jsonl", questions, LOCAL_LM)
    flags = ["--skip", "2", "--limit", "12"]
    summary = summarize(tmp_path, results, flags, LOCAL_LM)
    assert default_out(summary).name == "query_languages.json"
    out, data = publish_run(tmp_path, results, "query_languages.json")

    assert data["model_id"] == LOCAL_LM and data["title"] == "SQL vs Cypher"
    assert "10 of its" in data["evaluated_on"] and "the first 2, which" in data["evaluated_on"]
    assert "once without" in data["evaluated_on"]
    assert list(data["figures"])[:2] == ["sqlite_sql", "sqlite_sql_zero_shot"]
    row = data["figures"]["neo4j_cypher_zero_shot"]
    assert row["label"] == "agent, Cypher on Neo4j, zero-shot" and row["n"] == 10
    assert row["failure_classes"] == {"no query": 2, "syntax": 2, "rows held the answer": 2}
    assert row["tokens_mean"] == 1045.0 and row["latency_p50_s"] == 3.0
    assert row["query_success_pct"] < 100.0 and row["accuracy_by_kind"]
    assert "one-shot, zero-shot" in data["comparisons"] and "agent on Neo4j" in data["comparisons"]
    assert data["timing"]["one_arm_at_a_time"] is True
    assert "median 1.50" in data["timing"]["note"]
    assert data["few_shot"]["program"] == "compiled, zero-shot"

    cypher = data["figures"]["neo4j_cypher"]
    table = results_table(out.parent)
    assert (f"| SQL vs Cypher, agent, Cypher on Neo4j: answer accuracy (n=10) | "
            f"{cypher['rate']:.1%}; zero-shot {row['rate']:.1%} |") in table  # fmt: skip
    assert "| SQL vs Cypher verdict: agent on Neo4j: " in table

    kept = read_kept(answers_path(out))
    assert len(kept) == 10 * len(ARMS) * 2
    assert all(r.question == "" and r.gold == "" for r in kept)
    assert any(c.output_head.startswith("**1 rows.**") for r in kept for c in r.calls)
    page = out.with_suffix(".md").read_text(encoding="utf-8")
    assert "Error taxonomy" in page and "| p50 s |" in page and "one arm at a time" in page
    assert "| agent, Cypher on Neo4j, zero-shot | 10 |" in page

    before = files(out)
    publish(["--report-only", "--out", str(out)])
    assert files(out) == before

    again = summarize(tmp_path, answers_path(out), flags, LOCAL_LM)["by_model"][LOCAL_LM]["arms"]
    assert again["neo4j-cypher (zero-shot)"]["failure_classes"] == row["failure_classes"]
    assert again["neo4j-cypher"]["accuracy_pct"] == round(100 * cypher["rate"], 1)


def test_the_small_model_gets_its_own_server_and_published_file(tmp_path: Path) -> None:
    assert endpoint(Settings(), SMALL_LM)[0] == SMALL_LM_API_BASE
    assert endpoint(Settings(), LOCAL_LM)[0] != SMALL_LM_API_BASE
    questions = study_questions(load_questions(), "test", 6)
    results = write_results(tmp_path / "r.jsonl", questions, SMALL_LM)
    summary = summarize(tmp_path, results, ["--limit", "6"], SMALL_LM)
    assert default_out(summary).name == "query_languages_qwen0.5b.json"
    out, data = publish_run(tmp_path, results, "query_languages_qwen0.5b.json")
    assert data["model_id"] == SMALL_LM and "0.5B parameters" in data["model"]
    assert data["lm_api_base"] == SMALL_LM_API_BASE
    assert data["title"] == "SQL vs Cypher (Qwen2.5-Coder-0.5B-Instruct)"
    table = results_table(out.parent)
    assert "| SQL vs Cypher (Qwen2.5-Coder-0.5B-Instruct), agent, SQL on SQLite: answer" in table
    before = files(out)
    publish(["--report-only", "--out", str(out)])
    assert files(out) == before


@pytest.fixture
def real_dir(tmp_path: Path) -> Path:
    out = tmp_path / "real"
    write_real_memory(["--store", str(messy_store(tmp_path / "store.sqlite")), "--out-dir",
                       str(out)])  # fmt: skip
    return out


def test_a_real_memory_run_keeps_no_conversation_text(tmp_path: Path, real_dir: Path) -> None:
    questions = load_questions(real_dir / "questions.jsonl")
    results = write_results(tmp_path / "r.jsonl", questions, LOCAL_LM)
    flags = ["--real-memory", str(real_dir)]
    summary = summarize(tmp_path, results, flags, LOCAL_LM)
    assert default_out(summary).name == "query_languages_real_convx.json"
    out, data = publish_run(tmp_path, results, "query_languages_real_convx.json")
    assert data["title"] == "SQL vs Cypher (real memory conv-x)"
    assert "scope 'conv-x'" in data["evaluated_on"] and "sha256" in data["evaluated_on"]
    assert data["tuned_on"].startswith("nothing of this memory")

    text = answers_path(out).read_text(encoding="utf-8")
    for q in questions:
        assert q.text not in text and f"| {q.gold} |" not in text
    kept = read_kept(answers_path(out))
    assert {k for line in text.splitlines() for k in json.loads(line)} <= KEPT_FIELDS
    assert all(r.question == r.gold == r.answer == "" for r in kept)
    assert all(c.output_head == "" for r in kept for c in r.calls)
    assert {r.error for r in kept} == {None, AGENT_ERROR}
    assert all(c.args.get("query") for r in kept for c in r.calls)

    row = data["figures"]["text2cypher"]
    assert row["failure_classes"]["rows held the answer"] > 0
    before = files(out)
    publish(["--report-only", "--out", str(out)])
    assert files(out) == before
    again = summarize(tmp_path, answers_path(out), flags, LOCAL_LM)["by_model"][LOCAL_LM]["arms"]
    assert again["text2cypher"]["failure_classes"] == row["failure_classes"]
    assert again["text2cypher"]["error_classes"] == row["error_classes"]


def record_at(started: float, seconds: float = 5.0) -> QuestionRecord:
    return QuestionRecord(arm="text2sql", qid="q", kind="join", question="?", gold="x",
                          answer_type="name", started_at=started, seconds=seconds)  # fmt: skip


def test_the_timing_note_says_whether_the_arms_ran_one_at_a_time() -> None:
    apart = timing({"a": [record_at(100.0)], "b": [record_at(110.0)]})
    assert apart["one_arm_at_a_time"] is True and apart["overlapping_rows"] == []
    together = timing({"a": [record_at(100.0)], "b": [record_at(102.0)]})
    assert together["one_arm_at_a_time"] is False and "a and b" in together["note"]
    assert timing({"a": [record_at(0.0)]})["one_arm_at_a_time"] is None


def test_the_summary_lists_the_commands_that_asked_its_questions(tmp_path: Path) -> None:
    args = parse_args(["--out", str(tmp_path / "s.json")])
    args.commit = "abc"
    assert run_history(args, "run A") == [{"command": "run A", "commit": "abc"}]
    summary = {"results": "x", "runs": run_history(args, "run A")}
    (tmp_path / "s.json").write_text(json.dumps(summary), encoding="utf-8")
    assert [r["command"] for r in run_history(args, "run B")] == ["run B"]  # other results
    summary["results"] = str(shown_path(args.results))
    (tmp_path / "s.json").write_text(json.dumps(summary), encoding="utf-8")
    args.commit = "def"
    runs = run_history(args, "run B")
    assert runs == [{"command": "run A", "commit": "abc"}, {"command": "run B", "commit": "def"}]
    assert run_history(args, "run A") == summary["runs"]  # resumed: listed once
    args.report_only = True
    assert run_history(args, "run C") == summary["runs"]
    said = commands({"runs": runs, "command": "run C"}, ["--summary", "s.json"])
    assert said == ("run A; then run B; then python -m benchmarks.query_languages.publish "
                    "--summary s.json")  # fmt: skip


def test_readme_and_report_show_every_published_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    questions = study_questions(load_questions(), "test", 6)
    results = write_results(tmp_path / "r.jsonl", questions, LOCAL_LM)
    summarize(tmp_path, results, ["--limit", "6"], LOCAL_LM)
    out, _ = publish_run(tmp_path, results, "query_languages.json")
    copy = out.with_name("query_languages_qwen0.5b.json")
    copy.write_text(out.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(report, "PUBLISHED", out.parent)
    lines = report.published_study_section(tmp_path, tmp_path / "REPORT.md")
    assert sum(line.startswith("## SQL vs Cypher") for line in lines) == 2
    assert (tmp_path / "query_languages_qwen0.5b_published_by_kind.png").is_file()
    readme = "a\n<!-- results table: python -m benchmarks.published_results -->\nold\n"
    readme += "<!-- end results table -->\nb\n"
    assert with_table(readme, "new") == readme.replace("old", "new")


def test_a_server_that_serves_another_model_stops_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    class Listed:
        def raise_for_status(self) -> None:
            return None

        def json(self) -> dict[str, Any]:
            return {"data": [{"id": "qwen2.5-coder-1.5b-instruct"}]}

    monkeypatch.setattr(httpx, "get", lambda *a, **k: Listed())
    require_local_lms(Settings(), [LOCAL_LM])
    with pytest.raises(SystemExit, match="serves \\['qwen2.5-coder-1.5b-instruct'\\], not"):
        require_local_lms(Settings(), [SMALL_LM])


def test_an_unfinished_run_or_two_models_are_not_published(tmp_path: Path) -> None:
    questions = study_questions(load_questions(), "test", 6)
    results = write_results(tmp_path / "r.jsonl", questions, LOCAL_LM)
    summarize(tmp_path, results, ["--limit", "6"], LOCAL_LM)
    lines = results.read_text(encoding="utf-8").splitlines(keepends=True)
    results.write_text("".join(lines[:-2]), encoding="utf-8")
    with pytest.raises(SystemExit, match=r"unfinished rows: text2cypher \(zero-shot\) \(4 of 6\)"):
        publish_run(tmp_path, results, "q.json")
    out = tmp_path / "q.json"
    publish(["--summary", str(tmp_path / "summary.json"), "--results", str(results),
             "--out", str(out), "--partial"])  # fmt: skip
    assert json.loads(out.read_text(encoding="utf-8"))["figures"]["text2cypher_zero_shot"]["n"] == 4
    summarize(tmp_path, results, ["--limit", "6"], f"{LOCAL_LM},{SMALL_LM}")
    with pytest.raises(SystemExit, match="publish one at a time"):
        publish_run(tmp_path, results, "q.json")
