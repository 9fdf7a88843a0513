"""LOCOMO questions for the QA benchmark: selection, gold answers, dia_id <-> turn id.

Categories follow the LOCOMO release: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop
(the four the paper reports) and 5 adversarial, whose right answer is that the conversation
never said it (reported separately).
"""

from __future__ import annotations

import argparse
import json
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final

from pydantic import BaseModel

from apexmem_neo.construction.loaders import TurnInput, locomo_turns, parse_locomo_time
from benchmarks.memory import portable_args

CATEGORY_NAMES = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
PAPER_CATEGORIES = (1, 2, 3, 4)
NOT_MENTIONED = "Not mentioned in the conversation"


class LocomoQuestion(BaseModel):
    """One QA item with a stable id (``<sample_id>:q<index in the qa list>``) and ``said_on``,
    the date its first evidence turn was said (the judge resolves the gold's time words
    against it: "a year ago" in session 3 means a year before session 3's date)."""

    qid: str
    category: int
    question: str
    gold: str
    evidence: list[str] = []
    adversarial_answer: str | None = None
    said_on: str | None = None


LOCOMO_DATA_ENV: Final = "APEXMEM_LOCOMO_DATA"
LOCOMO_SOURCE: Final = "data/locomo10.json of github.com/snap-research/locomo"


def add_data_argument(parser: argparse.ArgumentParser) -> None:
    """``--data``: the LOCOMO file. The project ships no LOCOMO text, so there is no default
    path; ``locomo_data`` reads ``$APEXMEM_LOCOMO_DATA`` when the flag is not given."""
    parser.add_argument(
        "--data",
        type=Path,
        default=None,
        help=f"the LOCOMO JSON file, locomo10.json; default ${LOCOMO_DATA_ENV}",
    )


def portable_command(command: str) -> str:
    """A recorded command with its LOCOMO file named as LOCOMO ships it (``locomo10.json``;
    a run may read a copy holding some of its conversations, which are the same) and paths
    inside this repository relative to it, so it runs from any clone."""
    words = portable_args(command.split())
    for i, word in enumerate(words):
        if word == "--data" and i + 1 < len(words):
            words[i + 1] = "locomo10.json"
        elif word.startswith("--data="):
            words[i] = "--data=locomo10.json"
    return " ".join(words)


def locomo_data(path: Path | None) -> Path:
    """The LOCOMO file to read: ``path`` (``--data``), else ``$APEXMEM_LOCOMO_DATA``. Stops with
    one line naming the fix when neither is given or the file is missing."""
    if path is None:
        named = os.environ.get(LOCOMO_DATA_ENV, "").strip()
        if not named:
            raise SystemExit(
                f"error: no LOCOMO data: give --data PATH/locomo10.json or set "
                f"{LOCOMO_DATA_ENV} (the file is {LOCOMO_SOURCE})"
            )
        path = Path(named)
    if not path.is_file():
        raise SystemExit(
            f"error: LOCOMO data not found at {path}: give --data PATH/locomo10.json "
            f"({LOCOMO_SOURCE})"
        )
    return path


def load_samples(path: Path) -> list[dict[str, Any]]:
    """Every conversation of a LOCOMO file (a list, or one conversation)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return [dict(s) for s in (data if isinstance(data, list) else [data])]


def load_sample(path: Path, sample_id: str) -> dict[str, Any]:
    """The conversation ``sample_id`` of a LOCOMO file; ``KeyError`` naming the ids otherwise."""
    return _pick(load_samples(path), sample_id, path)


def _pick(samples: list[dict[str, Any]], sample_id: str, path: Path) -> dict[str, Any]:
    for sample in samples:
        if str(sample.get("sample_id")) == sample_id:
            return sample
    ids = [str(s.get("sample_id")) for s in samples]
    raise KeyError(f"conversation {sample_id!r} is not in {path} (it has {ids})")


_SESSION = re.compile(r"D(\d+):")


def evidence_date(sample: dict[str, Any], evidence: list[str]) -> str | None:
    """The ISO date_time of the session of the first evidence id ("D3:5" -> session 3) that
    names a dated session; None when none does."""
    conv = sample.get("conversation", {})
    for dia_id in evidence:
        match = _SESSION.match(dia_id.strip())
        when = conv.get(f"session_{match[1]}_date_time") if match else None
        if when:
            return parse_locomo_time(str(when))
    return None


def last_session_date(sample: dict[str, Any]) -> str:
    """The date_time of the conversation's last non-empty session, as ISO."""
    conv = sample["conversation"]
    numbers = [
        int(k.split("_")[1])
        for k, v in conv.items()
        if k.startswith("session_") and k.split("_")[1].isdigit() and len(k.split("_")) == 2 and v
    ]
    return parse_locomo_time(conv[f"session_{max(numbers)}_date_time"])


def dia_id_of(turn: TurnInput) -> str:
    """The LOCOMO dia_id (``D1:3``) of a loaded turn (its source key is ``conv:dia_id``)."""
    return turn.source_key.split(":", 1)[1]


def turn_dia_ids(turns: list[TurnInput]) -> dict[str, str]:
    """Graph turn id -> LOCOMO dia_id, for the evidence hit rate."""
    return {t.turn().turn_id: dia_id_of(t) for t in turns}


def gold_answer(item: dict[str, Any]) -> str:
    if int(item["category"]) == 5 or "answer" not in item:
        return NOT_MENTIONED
    return str(item["answer"])


def select_questions(
    sample: dict[str, Any],
    turns: list[TurnInput],
    categories: tuple[int, ...] = (1, 2, 3, 4, 5),
    limit: int | None = None,
) -> list[LocomoQuestion]:
    """Questions of ``categories`` whose gold evidence lies entirely in ``turns`` (so a
    subset of sessions is asked only what it was told), in file order, first ``limit``."""
    known = {dia_id_of(t) for t in turns}
    out: list[LocomoQuestion] = []
    for index, item in enumerate(sample["qa"]):
        evidence = [str(e) for e in item.get("evidence", [])]
        if int(item["category"]) not in categories or not evidence:
            continue
        if not set(evidence) <= known:
            continue
        out.append(question_at(sample, index))
    return out[:limit] if limit is not None else out


def question_at(sample: dict[str, Any], index: int) -> LocomoQuestion:
    """The question at ``index`` of the conversation's qa list."""
    item = sample["qa"][index]
    evidence = [str(e) for e in item.get("evidence", [])]
    return LocomoQuestion(
        qid=f"{sample['sample_id']}:q{index}",
        category=int(item["category"]),
        question=str(item["question"]),
        gold=gold_answer(item),
        evidence=evidence,
        adversarial_answer=item.get("adversarial_answer"),
        said_on=evidence_date(sample, evidence),
    )


def questions_by_qid(path: Path, qids: Iterable[str]) -> dict[str, LocomoQuestion]:
    """qid ("conv-30:q12": conversation and index in its qa list) -> its question, read from
    the LOCOMO file at ``path`` (read once)."""
    samples = load_samples(path)
    found: dict[str, LocomoQuestion] = {}
    for qid in qids:
        conversation, index = qid.rsplit(":q", 1)
        found[qid] = question_at(_pick(samples, conversation, path), int(index))
    return found


def sample_turns(sample: dict[str, Any], sessions: int | None) -> list[TurnInput]:
    return locomo_turns(sample, sessions)
