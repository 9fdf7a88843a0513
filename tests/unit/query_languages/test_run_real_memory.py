"""The runner on a real memory's questions (``--real-memory DIR``), without services or LLM
calls: its flags and their refusals, the graph and questions it loads, the demo check, and a
record that says where the questions and the demos came from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from apexmem_neo.ontology import Entity, GraphBatch
from apexmem_neo.settings import Settings
from benchmarks.query_languages.fewshot import LeakError, check_unseen, compiled_dir
from benchmarks.query_languages.generate import load_questions
from benchmarks.query_languages.real_memory import main as write_real_memory
from benchmarks.query_languages.run import (
    check_compiled,
    load_study,
    main,
    parse_args,
    sqlite_path,
)
from tests.unit.query_languages.messy_store import messy_store

DEMO_SUBJECT = "Greta Holm"
"""A person of the generated set whom a shipped demo (seed 7) asks about."""


@pytest.fixture(scope="module")
def real_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("real")
    out = tmp / "out"
    write_real_memory(["--store", str(messy_store(tmp / "store.sqlite")), "--out-dir", str(out)])
    return out


def test_real_memory_runs_whole_with_its_own_files(real_dir: Path) -> None:
    args = parse_args(["--real-memory", str(real_dir)])
    assert args.split == "all" and args.questions == real_dir / "questions.jsonl"
    assert args.out == real_dir / "query_languages.json"
    assert args.compiled == compiled_dir([7])
    assert sqlite_path(args, Settings()) == real_dir / "study.sqlite"
    gold, questions = load_study(args)
    assert {e.name for e in gold.entities} == {"Ann", "Bo", "Lisbon"}
    assert [q.qid for q in questions] == [q.qid for q in load_questions(args.questions)]
    assert parse_args([]).split == "test" and parse_args([]).out.name == "query_languages.json"


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--split", "test"], "no train split"),
        (["--gold-seeds", "7,8"], "--gold-seeds does not apply"),
    ],
)
def test_real_memory_refuses_what_does_not_apply(
    real_dir: Path, extra: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        parse_args(["--real-memory", str(real_dir), *extra])
    assert says in capsys.readouterr().err


def test_a_directory_without_the_files_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        parse_args(["--real-memory", str(tmp_path)])
    assert "python -m benchmarks.query_languages.real_memory" in capsys.readouterr().err


def test_the_demos_are_checked_against_the_real_graph(real_dir: Path) -> None:
    args = parse_args(["--real-memory", str(real_dir)])
    gold, questions = load_study(args)
    check_compiled(args, gold, questions)  # the shipped programs name nobody of it
    named = GraphBatch(entities=[Entity(name=DEMO_SUBJECT, entity_type="Person",
                                        entity_id="ql_ent_x")])  # fmt: skip
    with pytest.raises(SystemExit, match=DEMO_SUBJECT):
        check_compiled(args, named, questions)
    with pytest.raises(LeakError):
        check_unseen(compiled_dir([7]), [], ["What is Greta Holm's favourite food now?"])


def test_the_record_says_where_questions_and_demos_came_from(real_dir: Path) -> None:
    out = real_dir / "report" / "summary.json"
    main(["--real-memory", str(real_dir), "--report-only", "--out", str(out)])
    summary = json.loads(out.read_text())
    source = json.loads((real_dir / "real_memory.json").read_text())
    assert summary["real_memory"]["store_sha256"] == source["store_sha256"]
    assert summary["split"] == "all" and summary["questions"] == source["questions"]
    assert "gold_seeds" not in summary and "split_sizes" not in summary
    assert "generated train split" in summary["few_shot"]["demo_source"]
    page = out.with_suffix(".md").read_text()
    assert "Real-memory questions" in page and "generated train split" in page
