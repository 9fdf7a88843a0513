"""The answers a published run keeps in the repository, compact, so its report can be made
again without asking the model (``publish --report-only``, ``run --report-only --results``).

A kept answer is a ``QuestionRecord`` without the question and its gold, with its taxonomy
class stored (``failure``, which reads them) and, per call, only the tool, the query and its
parameters, the recorded rows, and whether it ran. Over a real memory (questions from a LOCOMO
conversation) no conversation text is kept: no answer, no rows and no error text either; what
stays is the ids, the arm, the queries, the verdict and the success flags, with the counts
and times every figure needs.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final

from benchmarks.query_languages.metrics import (
    QUERY_TOOLS,
    CallRecord,
    QuestionRecord,
    error_class,
    failure_class,
)

QUERY_ARGS: Final = ("query", "params")
AGENT_ERROR: Final = "agent error (text left out)"
"""A private record's error: that there was one, not what it said."""


def kept_call(call: CallRecord, private: bool) -> CallRecord:
    """The call's tool, query, rows head (not when ``private``) and verdict."""
    args: dict[str, Any] = {}
    if call.tool in QUERY_TOOLS:
        args = {k: call.args[k] for k in QUERY_ARGS if call.args.get(k) not in (None, "", {})}
    return CallRecord(tool=call.tool, args=args, output_head="" if private else call.output_head,
                      ok=call.ok, error_class=error_class(call))  # fmt: skip


def kept_record(rec: QuestionRecord, private: bool) -> QuestionRecord:
    """``rec`` as a kept answer: its taxonomy class stored, the question and gold left out,
    and with ``private`` the answer, the rows and the error text too."""
    error = rec.error if not private or rec.error is None else AGENT_ERROR
    return rec.model_copy(update={
        "question": "", "gold": "", "answer": "" if private else rec.answer, "error": error,
        "calls": [kept_call(c, private) for c in rec.calls], "step_errors": [],
        "failure": failure_class(rec),
    })  # fmt: skip


def write_kept(path: Path, records: Iterable[QuestionRecord]) -> None:
    """One compact JSON line per record (fields at their default left out)."""
    lines = [r.model_dump_json(exclude_defaults=True) + "\n" for r in records]
    path.write_text("".join(lines), encoding="utf-8")


def read_kept(path: Path) -> list[QuestionRecord]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [QuestionRecord.model_validate_json(line) for line in lines if line.strip()]
