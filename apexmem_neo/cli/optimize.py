"""`apexmem optimize QUESTIONS`: compile the agent's answer program for your model and data."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

import typer

from apexmem_neo.agent.programs import TrainingQuestion
from apexmem_neo.cli.common import (
    DEFAULT_SCOPE,
    MemoryChoice,
    ScopeOpt,
    console,
    fail,
)
from apexmem_neo.ontology.types import normalize_time


def read_questions(path: Path) -> list[TrainingQuestion]:
    """JSON Lines of {"question", "answer", "date"} (date: when it is asked, ISO); a bad line
    is one error naming its number."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        fail(f"cannot read {path}: {exc.strerror or exc}")
    out: list[TrainingQuestion] = []
    for no, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            out.append(
                TrainingQuestion(
                    question=str(row["question"]),
                    answer=str(row["answer"]),
                    date=normalize_time(row["date"]),
                )
            )
        except (ValueError, KeyError, TypeError) as exc:
            fail(f"{path}:{no}: a line needs question, answer and an ISO date ({exc})")
    if not out:
        fail(f"{path} holds no questions")
    return out


@MemoryChoice.options()
def optimize(
    questions: Annotated[
        Path, typer.Argument(help='JSON Lines of {"question", "answer", "date"} to learn from.')
    ],
    out: Annotated[Path, typer.Option("--out", help="Where to write the compiled program.")],
    scope: ScopeOpt = DEFAULT_SCOPE,
    choice: MemoryChoice = MemoryChoice.SETTINGS,
    optimizer: Annotated[
        Literal["labeled", "bootstrap"],
        typer.Option(
            help="labeled: known answers as demos; bootstrap: those the model gets right."
        ),
    ] = "labeled",
    demos: Annotated[int, typer.Option(min=1, max=8, help="Demonstrations to keep.")] = 3,
) -> None:
    """Compile the answer program from questions with known answers (use it with
    APEXMEM_ANSWER_PROGRAM or AgentConfig.answer_program)."""
    training = read_questions(questions)
    with choice.open(create=False) as memory:
        path = memory.optimize(training, scope=scope, out=out, optimizer=optimizer, demos=demos)
    console.print(
        f"compiled from {len(training)} questions ({optimizer}, {demos} demos): {path}",
        highlight=False,
        markup=False,
    )
