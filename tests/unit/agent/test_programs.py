"""Compiled answer programs: compiling from known answers, saving, loading, and the agent
answering through one; `apexmem optimize` over the Alice store (labeled demos, no LLM)."""

from __future__ import annotations

import json
from pathlib import Path

import dspy
import pytest
from dspy.utils import DummyLM
from typer.testing import CliRunner

from apexmem_neo.agent import AgentConfig, MemoryAgent, build_tools
from apexmem_neo.agent.programs import (
    AnswerProgram,
    answer_example,
    answer_overlap,
    compile_answer_program,
    load_answer_program,
)
from apexmem_neo.agent.react_loop import ReactLoop
from apexmem_neo.agent.signatures import AnswerWithTools
from apexmem_neo.agent.toolset import Tool
from apexmem_neo.cli.app import app
from apexmem_neo.errors import ApexMemError
from apexmem_neo.memory import Memory
from apexmem_neo.search import HybridSearch
from apexmem_neo.settings import Settings
from apexmem_neo.store.sqlite import SQLiteGraphStore
from apexmem_neo.tools import SQLiteQueryBackend
from tests.unit.agent.alice import alice_store

INPUTS = {"question": "q", "question_date": "2024-07-01", "time_hints": "", "context": "c"}
REPLY = {"answer": "Sakura Sushi", "evidence_turn_ids": [], "enough_context": True}


def _examples(n: int) -> list[dspy.Example]:
    return [
        answer_example({**INPUTS, "question": f"question {i}"}, f"answer {i}") for i in range(n)
    ]


def test_labeled_compiling_keeps_known_answers_and_round_trips(tmp_path: Path) -> None:
    program = compile_answer_program(_examples(5), "labeled", demos=2)
    assert len(program.predict.demos) == 2
    assert all(d.answer.startswith("answer ") for d in program.predict.demos)
    path = tmp_path / "program.json"
    program.save(str(path))
    loaded = load_answer_program(path)
    assert [d["question"] for d in loaded.predict.demos] == [
        d.question for d in program.predict.demos
    ]


def test_bootstrap_keeps_only_demos_the_model_gets_right() -> None:
    right = {**REPLY, "answer": "answer 0"}
    wrong = {**REPLY, "answer": "something else"}
    lm = DummyLM([right, wrong, wrong], adapter=dspy.JSONAdapter())
    with dspy.context(adapter=dspy.JSONAdapter()):
        program = compile_answer_program(_examples(3), "bootstrap", demos=3, lm=lm)
    assert [d.answer for d in program.predict.demos] == ["answer 0"]


def test_compiling_needs_questions_and_a_model_to_bootstrap() -> None:
    with pytest.raises(ApexMemError, match="no training questions"):
        compile_answer_program([], "labeled")
    with pytest.raises(ApexMemError, match="give it an LM"):
        compile_answer_program(_examples(2), "bootstrap")


def test_a_missing_or_foreign_program_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ApexMemError, match="no compiled answer program at"):
        load_answer_program(tmp_path / "none.json")
    foreign = tmp_path / "foreign.json"
    foreign.write_text(json.dumps({"other.predict": {"demos": []}}))
    with pytest.raises(ApexMemError, match="is not a compiled answer program"):
        load_answer_program(foreign)


def test_the_overlap_metric_reads_words() -> None:
    gold = dspy.Example(answer="7 May 2023")
    assert answer_overlap(gold, dspy.Prediction(answer="on 7 May, 2023"))
    assert not answer_overlap(gold, dspy.Prediction(answer="June 2023"))


def test_the_agent_answers_through_a_compiled_program(
    store: SQLiteGraphStore,
    backend: SQLiteQueryBackend,
    searcher: HybridSearch,
    tmp_path: Path,
) -> None:
    path = tmp_path / "program.json"
    compile_answer_program(_examples(2), "labeled", demos=2).save(str(path))
    dummy = DummyLM([REPLY], adapter=dspy.JSONAdapter())
    config = AgentConfig(mode="fast", answer_program=str(path))
    tools = build_tools(store, backend, searcher)
    agent = MemoryAgent(dummy, store, tools, backend, searcher, config)
    assert agent.ask("Alice favourite restaurant?").answer == "Sakura Sushi"
    prompt = str(dummy.history[-1]["messages"])
    assert "question 0" in prompt and "question 1" in prompt  # the demos reach the model
    assert isinstance(agent.program, AnswerProgram)


QUERY_ONLY = ("GraphQuery",)
STEP = {"next_thought": "done", "next_tool_name": "finish", "next_tool_args": {}}
EXTRACT = {"reasoning": "r", "answer": "Sakura Sushi", "evidence_turn_ids": []}


def save_react_program(tools: dict[str, Tool], path: Path) -> None:
    """A ReAct program over ``tools`` with one demo on its react step, saved at ``path``."""
    react = ReactLoop(tools, AgentConfig(tools=tuple(tools))).program
    react.react.demos = [dspy.Example(
        question="demo question", trajectory="", next_thought="one query",
        next_tool_name="GraphQuery", next_tool_args={"query": "SELECT 'demo' AS answer"},
    )]  # fmt: skip
    react.save(str(path))


def test_the_loop_carries_a_compiled_react_program(
    store: SQLiteGraphStore, backend: SQLiteQueryBackend, tmp_path: Path
) -> None:
    tools = build_tools(store, backend, None, QUERY_ONLY)
    save_react_program(tools, tmp_path / "react.json")
    dummy = DummyLM([STEP, EXTRACT], adapter=dspy.JSONAdapter())
    config = AgentConfig(mode="react", tools=QUERY_ONLY, react_program=str(tmp_path / "react.json"))
    agent = MemoryAgent(dummy, store, tools, backend, None, config)
    assert agent.ask("Alice favourite restaurant?").answer == "Sakura Sushi"
    step, extract = ("\n".join(m["content"] for m in h["messages"]) for h in dummy.history)
    assert "demo question" in step and "SELECT 'demo' AS answer" in step
    assert "demo question" not in extract  # the demo sits on the react step only


def test_a_react_program_for_other_tools_or_none_is_refused(
    store: SQLiteGraphStore, backend: SQLiteQueryBackend, searcher: HybridSearch, tmp_path: Path
) -> None:
    save_react_program(build_tools(store, backend, None, QUERY_ONLY), tmp_path / "react.json")
    four = build_tools(store, backend, searcher)  # other tools: other instructions
    config = AgentConfig(mode="react", react_program=str(tmp_path / "react.json"))
    with pytest.raises(ApexMemError, match="compiled for another prompt"):
        MemoryAgent(DummyLM([]), store, four, backend, searcher, config)
    missing = config.model_copy(update={"react_program": str(tmp_path / "none.json")})
    with pytest.raises(ApexMemError, match="no compiled program at"):
        MemoryAgent(DummyLM([]), store, four, backend, searcher, missing)


runner = CliRunner()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("APEXMEM_HOME", str(tmp_path))
    monkeypatch.setenv("APEXMEM_EMBED_MODEL", "all-MiniLM-L6-v2")  # packaged, loads offline
    for name in ("APEXMEM_STORE", "APEXMEM_DB", "APEXMEM_SEARCH", "APEXMEM_ANSWER_PROGRAM"):
        monkeypatch.delenv(name, raising=False)
    path = tmp_path / "data" / "apexmem.sqlite"
    path.parent.mkdir(parents=True)
    alice_store(path).close()
    return tmp_path


def test_optimize_compiles_from_a_questions_file(home: Path) -> None:
    questions = home / "qa.jsonl"
    rows = [
        {"question": "What is Alice's favourite restaurant now?", "answer": "Sakura Sushi",
         "date": "2024-07-01"},
        {"question": "Which restaurant did Alice like in February 2024?",
         "answer": "Italian Garden", "date": "2024-07-01"},
    ]  # fmt: skip
    questions.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    out = home / "program.json"
    res = runner.invoke(app, ["optimize", str(questions), "--out", str(out), "--demos", "2"])
    assert res.exit_code == 0, res.output
    demos = load_answer_program(out).predict.demos
    assert {d["answer"] for d in demos} == {"Sakura Sushi", "Italian Garden"}
    assert all("favourite_restaurant" in d["context"] for d in demos)  # the agent's context


def test_optimize_names_a_bad_line(home: Path) -> None:
    questions = home / "qa.jsonl"
    questions.write_text(
        '{"question": "q", "answer": "a", "date": "2024-07-01"}\n{"question": 1}\n'
    )
    res = runner.invoke(app, ["optimize", str(questions), "--out", str(home / "p.json")])
    assert res.exit_code == 1 and "qa.jsonl:2:" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_apexmem_answer_program_reaches_the_agent(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = home / "program.json"
    compile_answer_program(_examples(2), "labeled", demos=2).save(str(path))
    monkeypatch.setenv("APEXMEM_ANSWER_PROGRAM", str(path))
    with Memory.from_settings(Settings(), create=False) as memory:
        assert memory.agent_config.answer_program == str(path)
        agent = memory.agent(scope="default", lm=DummyLM([REPLY]))
        assert len(agent.program.predict.demos) == 2


def test_the_loops_prompts_are_dspy_reacts(
    store: SQLiteGraphStore, backend: SQLiteQueryBackend, searcher: HybridSearch
) -> None:
    """The loop builds its predictors itself; their words and fields stay those of
    ``dspy.ReAct`` over the same tools, so answers do not change."""
    tools = build_tools(store, backend, searcher)
    ours = ReactLoop(tools, AgentConfig()).program
    theirs = dspy.ReAct(AnswerWithTools, tools=list(tools.values()))
    assert ours.react.signature.instructions == theirs.react.signature.instructions
    assert list(ours.react.signature.fields) == list(theirs.react.signature.fields)
    assert str(ours.react.signature.fields["next_tool_name"].annotation) == str(
        theirs.react.signature.fields["next_tool_name"].annotation
    )
    assert list(ours.tools) == list(theirs.tools)
    assert [name for name, _ in ours.named_predictors()] == [
        name for name, _ in theirs.named_predictors()
    ]
