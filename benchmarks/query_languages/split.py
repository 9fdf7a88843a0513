"""A train / test split of the gold questions over different entities.

A question belongs to the split of what it asks about (its *subjects*): the entity of its
timeline, the company of "how many people work for X", or the city of "how many people live
in X" (cities are values, not entities, so they get a key of their own). The subjects of a
question set are ranked by a stable hash (SHA-256 of the key) and the first half goes to
test, the rest to train: deterministic, independent of question order, and never splitting
one entity's questions. A question with several subjects is test only if all of them are, so
no test entity ever appears in a train question (which may later give few-shot demos).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from typing import Any, Final, Literal

from benchmarks.query_languages.gold import PREFIX, entity_id, slug
from benchmarks.query_languages.questions import Question

Split = Literal["test", "train", "all"]
SPLITS: Final[tuple[Split, ...]] = ("test", "train", "all")


def subjects(question: Question) -> list[str]:
    """The keys of what ``question`` asks about (see the module docstring)."""
    spec = question.spec
    if spec.entity_id:
        return [spec.entity_id]
    if spec.op == "count_current" and spec.value:
        if spec.property == "employer":
            return [entity_id(spec.value)]
        return [f"{PREFIX}{spec.property}_{slug(spec.value)}"]
    raise ValueError(f"question {question.qid} names no subject: {spec}")


def _stable_hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def held_out_subjects(questions: Sequence[Question]) -> set[str]:
    """The half of the question set's subjects (rounded down) with the lowest hashes."""
    keys = sorted({k for q in questions for k in subjects(q)}, key=_stable_hash)
    return set(keys[: len(keys) // 2])


def side(keys: Sequence[str], test: set[str]) -> Literal["test", "train"]:
    """The split of a question about ``keys``: test only if every one of them is."""
    return "test" if all(k in test for k in keys) else "train"


def split_of(question: Question, test: set[str]) -> Literal["test", "train"]:
    return side(subjects(question), test)


def select(questions: Sequence[Question], split: Split) -> list[Question]:
    """The questions of ``split``, in their original order."""
    if split == "all":
        return list(questions)
    test = held_out_subjects(questions)
    return [q for q in questions if split_of(q, test) == split]


def split_sizes(questions: Sequence[Question]) -> dict[str, Any]:
    """Per split: the number of questions, of subjects, and of questions by kind."""
    test = held_out_subjects(questions)
    out: dict[str, Any] = {}
    for split in ("test", "train"):
        chosen = [q for q in questions if split_of(q, test) == split]
        keys = {k for q in chosen for k in subjects(q)}
        kinds = Counter(q.kind for q in chosen)
        out[split] = {
            "questions": len(chosen),
            "subjects": len(keys),
            "by_kind": dict(sorted(kinds.items())),
        }
    return out
