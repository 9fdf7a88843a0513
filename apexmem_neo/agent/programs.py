"""The agent's answer program, compiled programs on disk, and compiling one from questions.

The fast path answers with ``AnswerProgram`` (one ``dspy.Predict`` over ``AnswerFromContext``).
A compiled program is the same module with few-shot demonstrations chosen by a DSPy optimizer
from questions whose answers are known, saved with DSPy's own ``save`` as JSON:
``compile_answer_program`` makes one for any model and data (``apexmem optimize``,
``Memory.optimize``), and ``AgentConfig.answer_program`` names the one to use. None ships:
on the local default model compiled demonstrations did not beat none and made the prompt
several times longer (the CHANGELOG has the comparison).
``load_compiled`` (``apexmem_neo.llm.programs``) loads a compiled program of any kind (the
ReAct loop's, the query mode's and the extraction's too) into a fresh one, refusing a file
compiled for other instructions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import dspy

from apexmem_neo.agent.signatures import AnswerFromContext
from apexmem_neo.errors import ApexMemError
from apexmem_neo.llm.programs import load_compiled

Optimizer = Literal["labeled", "bootstrap"]
ANSWER_INPUTS = ("question", "question_date", "time_hints", "context")


class AnswerProgram(dspy.Module):  # type: ignore[misc]
    """(question, question date, time hints, context) -> answer, cited turns, enough context."""

    def __init__(self) -> None:
        super().__init__()
        self.predict = dspy.Predict(AnswerFromContext)

    def forward(self, **inputs: Any) -> dspy.Prediction:
        return self.predict(**inputs)


def load_answer_program(path: str | Path | None) -> AnswerProgram:
    """The answer program, with the compiled demonstrations saved at ``path`` when given
    (refused when compiled for other instructions, as ``load_compiled`` does)."""
    if path is None:
        return AnswerProgram()
    file = Path(path)
    if not file.is_file():
        raise ApexMemError(f"no compiled answer program at {file} (make one: apexmem optimize)")
    program = AnswerProgram()
    try:
        load_compiled(program, file)
    except ApexMemError as exc:
        raise ApexMemError(f"{file} is not a compiled answer program: {exc}") from exc
    return program


@dataclass(frozen=True)
class TrainingQuestion:
    """A question with its known answer, asked on ``date`` (ISO), for compiling."""

    question: str
    answer: str
    date: str


def answer_example(inputs: dict[str, Any], answer: str, cited: Sequence[str] = ()) -> dspy.Example:
    """A training example: the agent's inputs for a question and the answer it should give."""
    return dspy.Example(
        **{k: inputs[k] for k in ANSWER_INPUTS},
        answer=answer,
        evidence_turn_ids=list(cited),
        enough_context=True,
    ).with_inputs(*ANSWER_INPUTS)


_WORD = re.compile(r"[a-z0-9]+")


def answer_overlap(example: Any, prediction: Any, trace: Any = None) -> bool:
    """The metric bootstrapping keeps a demonstration by: the predicted answer shares at
    least half of the known answer's words (token recall, no judge call)."""
    gold = set(_WORD.findall(str(example.answer).lower()))
    said = set(_WORD.findall(str(getattr(prediction, "answer", "")).lower()))
    return bool(gold) and len(gold & said) / len(gold) >= 0.5


def compile_answer_program(
    examples: Iterable[dspy.Example],
    optimizer: Optimizer = "labeled",
    demos: int = 3,
    lm: Any = None,
    metric: Callable[..., bool] = answer_overlap,
) -> AnswerProgram:
    """An AnswerProgram with ``demos`` demonstrations from ``examples``: ``labeled`` takes
    known answers as they are (DSPy LabeledFewShot, no LLM call); ``bootstrap`` keeps those
    the model itself answers right under ``metric`` (DSPy BootstrapFewShot, runs ``lm``)."""
    trainset = list(examples)
    if not trainset:
        raise ApexMemError("no training questions to compile the answer program from")
    if optimizer == "labeled":
        teleprompter: Any = dspy.LabeledFewShot(k=demos)
        return teleprompter.compile(AnswerProgram(), trainset=trainset, sample=True)  # type: ignore[no-any-return]
    if lm is None:
        raise ApexMemError("bootstrap compiling runs the model: give it an LM")
    teleprompter = dspy.BootstrapFewShot(
        metric=metric, max_bootstrapped_demos=demos, max_labeled_demos=0, max_rounds=1
    )
    with dspy.context(lm=lm):
        return teleprompter.compile(AnswerProgram(), trainset=trainset)  # type: ignore[no-any-return]
