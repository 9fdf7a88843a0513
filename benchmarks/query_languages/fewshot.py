"""Few-shot demos for every arm: the same train questions, each in the arm's own language.

The demo questions are, per question op (in ``OPS`` order), the first ``per_op`` train
questions in file order whose text and reference queries name no test subject (a test
entity's name, or the city of a test count question). Each arm gets them with its language's
reference query (``reference``), in the form its program takes, as DSPy LabeledFewShot
compiles it (no LLM call):

* agent arms: the query mode's ``QueryProgram``, its ``write`` step with one demo per
  question: the question, its date and time hints, the language and no earlier attempt (not
  the context: the real call carries the same schema) -> the query;
* text2sql: its ``write_sql`` step: the dated question -> the SQL;
* text2cypher: the retriever's ``examples``: ``USER INPUT: '<dated question>' QUERY: ...``.

Only the query-writing step gets demos, in every arm: the one-shot arms' answer steps (and
neo4j-graphrag's, which takes none) and the agent's answer step answer from rows
without examples. ``compile`` writes the programs and a manifest naming the questions to
``compiled/s<seeds>/``; ``run`` loads them unless ``--zero-shot``, after checking that every
demo is a train question of the run's own question set and names no test subject.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import dspy
from pydantic import BaseModel

from apexmem_neo.agent.query_loop import NO_ATTEMPTS, QueryProgram
from apexmem_neo.agent.timewords import hints_text, resolve_time_words
from apexmem_neo.ontology.types import normalize_time
from apexmem_neo.query.backend import Language
from benchmarks.query_languages.questions import OPS, Question, dated_text
from benchmarks.query_languages.reference import reference_query
from benchmarks.query_languages.split import held_out_subjects, select, subjects

COMPILED_DIR: Final = Path(__file__).parent / "compiled"
MANIFEST: Final = "manifest.json"
PER_OP: Final = 1
AGENT_STEP: Final = "write"
TEXT2SQL_STEP: Final = "write_sql"
AGENT_LANGUAGES: Final[dict[str, Language]] = {
    "sqlite-sql": "sql", "neo4j-sql": "sql", "neo4j-cypher": "cypher",
}  # fmt: skip
FILES: Final = {arm: f"{arm}.json" for arm in (*AGENT_LANGUAGES, "text2sql", "text2cypher")}


@dataclass(frozen=True)
class Demo:
    """One demo question with its verified reference queries."""

    question: Question
    sql: str
    cypher: str

    def query(self, language: Language) -> str:
        return self.sql if language == "sql" else self.cypher


class DemoEntry(BaseModel):
    """A demo question as the manifest names it."""

    qid: str
    op: str
    kind: str
    subjects: list[str]


class Manifest(BaseModel):
    """What a directory of compiled programs was made from."""

    gold_seeds: list[int]
    per_op: int
    demos: list[DemoEntry]
    files: dict[str, str]


# ---- choosing the demo questions ----


def subject_names(questions: Sequence[Question], names: Mapping[str, str]) -> dict[str, str]:
    """Subject key -> the words a question uses for it (an entity's name, a city's name)."""
    out: dict[str, str] = {}
    for q in questions:
        for key in subjects(q):
            out[key] = names.get(key) or q.spec.value or key
    return out


def held_out_words(questions: Sequence[Question], names: Mapping[str, str]) -> set[str]:
    """The names of the question set's test subjects: no demo may contain one."""
    by_key = subject_names(questions, names)
    return {by_key[key] for key in held_out_subjects(questions)}


def words_in(text: str, words: Iterable[str]) -> list[str]:
    """The ``words`` that occur in ``text`` as whole words (case-insensitive)."""
    return sorted(w for w in words if re.search(rf"\b{re.escape(w)}\b", text, re.IGNORECASE))


def make_demo(question: Question, names: Mapping[str, str]) -> Demo:
    sql = reference_query(question, "sql", names)
    return Demo(question, sql, reference_query(question, "cypher", names))


def select_demos(
    questions: Sequence[Question], names: Mapping[str, str], per_op: int = PER_OP
) -> list[Demo]:
    """Per op in ``OPS`` order, the first ``per_op`` train questions (file order) whose text
    and reference queries name no test subject."""
    banned = held_out_words(questions, names)
    train = select(questions, "train")
    demos: list[Demo] = []
    for op in OPS:
        found = [make_demo(q, names) for q in train if q.spec.op == op]
        clean = [d for d in found if not words_in(demo_text(d), banned)]
        demos += clean[:per_op]
    return demos


def demo_text(demo: Demo) -> str:
    return "\n".join((demo.question.text, demo.sql, demo.cypher))


# ---- the arms' programs ----


def labeled(program: dspy.Module, examples: list[dspy.Example], step: str) -> dspy.Module:
    """``program`` compiled by DSPy's LabeledFewShot with every example in order, the demos
    kept on the ``step`` predictor only (the step that writes the query)."""
    teleprompter = dspy.LabeledFewShot(k=len(examples))
    compiled: dspy.Module = teleprompter.compile(program, trainset=examples, sample=False)
    for name, predictor in compiled.named_predictors():
        if name != step:
            predictor.demos = []
    return compiled


def agent_inputs(question: Question) -> dict[str, str]:
    """The loop's inputs for ``question`` as ``MemoryAgent`` builds them, without the context."""
    qdate = normalize_time(question.question_date)
    hints = resolve_time_words(question.text, qdate)
    return {"question": question.text, "question_date": qdate[:10],
            "time_hints": hints_text(qdate, hints)}  # fmt: skip


def query_example(demo: Demo, language: Language) -> dspy.Example:
    """A first attempt of the query mode: the question -> the reference query."""
    return dspy.Example(**agent_inputs(demo.question), language=language,
                        attempts=NO_ATTEMPTS, query=demo.query(language))  # fmt: skip


def compile_agent(demos: Sequence[Demo], language: Language) -> dspy.Module:
    """The query mode's program with the demos on its query-writing step."""
    examples = [query_example(d, language) for d in demos]
    return labeled(QueryProgram(), examples, AGENT_STEP)


def text2sql_example(demo: Demo) -> dspy.Example:
    return dspy.Example(question=dated_text(demo.question), sql_query=demo.sql)


def compile_text2sql(program: dspy.Module, demos: Sequence[Demo]) -> dspy.Module:
    """A ``Text2SQL`` program with the demos on its SQL-writing step."""
    return labeled(program, [text2sql_example(d) for d in demos], TEXT2SQL_STEP)


def cypher_example(request: str, query: str) -> str:
    """One entry of neo4j-graphrag's Text2CypherRetriever ``examples``."""
    return f"USER INPUT: '{request}' QUERY: {query}"


def text2cypher_examples(demos: Sequence[Demo]) -> list[str]:
    return [cypher_example(dated_text(d.question), d.cypher) for d in demos]


# ---- the files ----


def seed_tag(seeds: Sequence[int]) -> str:
    return "s" + "-".join(str(s) for s in seeds)


def compiled_dir(seeds: Sequence[int]) -> Path:
    """Where the shipped programs of a gold seed set live."""
    return COMPILED_DIR / seed_tag(seeds)


def manifest_for(demos: Sequence[Demo], seeds: Sequence[int], per_op: int) -> Manifest:
    entries = [DemoEntry(qid=d.question.qid, op=d.question.spec.op, kind=d.question.kind,
                         subjects=subjects(d.question)) for d in demos]  # fmt: skip
    return Manifest(gold_seeds=list(seeds), per_op=per_op, demos=entries, files=dict(FILES))


def write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def read_manifest(directory: Path) -> Manifest:
    return Manifest.model_validate_json((directory / MANIFEST).read_text(encoding="utf-8"))


def read_examples(path: Path) -> list[str]:
    """The text2cypher arm's compiled examples."""
    examples: list[str] = json.loads(path.read_text(encoding="utf-8"))["examples"]
    return examples


def _predictor_demos(step: str) -> Callable[[Path], list[str]]:
    def demos(path: Path) -> list[str]:
        state = json.loads(path.read_text(encoding="utf-8"))
        return [json.dumps(d, ensure_ascii=False) for d in state[step]["demos"]]

    return demos


DEMO_READERS: Final[dict[str, Callable[[Path], list[str]]]] = {
    **{arm: _predictor_demos(AGENT_STEP) for arm in AGENT_LANGUAGES},
    "text2sql": _predictor_demos(TEXT2SQL_STEP),
    "text2cypher": read_examples,
}
"""Arm -> the demos of its compiled file, each as text (for the leak check)."""


def demo_strings(directory: Path, arm: str) -> list[str]:
    return DEMO_READERS[arm](directory / FILES[arm])


# ---- the run's check ----


class LeakError(ValueError):
    """Compiled demos that touch the test split of the questions being asked."""


def check_train_only(
    directory: Path, questions: Sequence[Question], names: Mapping[str, str]
) -> Manifest:
    """The manifest of ``directory``, after checking that every demo is a train question of
    ``questions`` and that no demo text names a test subject or holds a test question."""
    manifest = read_manifest(directory)
    train = {q.qid for q in select(questions, "train")}
    foreign = [d.qid for d in manifest.demos if d.qid not in train]
    if foreign:
        raise LeakError(f"{directory}: demos {foreign} are not train questions of this set "
                        f"(compiled for gold seeds {manifest.gold_seeds}?)")  # fmt: skip
    tests = [q.text for q in select(questions, "test")]
    check_unseen(directory, held_out_words(questions, names), tests, "test subjects")
    return manifest


def check_unseen(
    directory: Path, names: Iterable[str], texts: Iterable[str], what: str = "the asked"
) -> None:
    """Check that no demo of ``directory`` names one of ``names`` (whole words) or holds one
    of the question ``texts``; also the check for a question set the demos were not drawn
    from (a real memory's)."""
    banned, asked = set(names), set(texts)
    for arm in read_manifest(directory).files:
        for text in demo_strings(directory, arm):
            leaked = words_in(text, banned) + [t for t in asked if t in text]
            if leaked:
                raise LeakError(f"{directory}: a {arm} demo names {what} {leaked}")
