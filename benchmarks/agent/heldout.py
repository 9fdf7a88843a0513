"""Held-out questions for the agent: generated conversations with gold facts, never tuned on.

The fast path's wording and computed lines were developed on the Alice questions
(``toy.py``); these come from ``benchmarks.temporal.generator`` (other people, attributes and
phrasings: "Where did Bruno work on 15 March 2024?", "How many times has Bruno changed
jobs?"), written straight into the store as gold facts, so only answering is measured.
"""

from __future__ import annotations

from apexmem_neo.ontology import GraphBatch
from benchmarks.agent.toy import Question, gold_batch
from benchmarks.temporal.generator import generate

KIND_NAMES = {"as_of": "as-of", "when_changed": "when-changed", "before": "before-X",
              "count_changes": "count", "current": "current"}  # fmt: skip


def heldout_memory(conversations: int, seed: int = 11) -> tuple[list[GraphBatch], list[Question]]:
    """One gold batch per generated conversation, and its five questions (one per kind)."""
    batches: list[GraphBatch] = []
    questions: list[Question] = []
    for conv in generate(conversations, seed=seed):
        gold = {
            turn.source_key: [(s.attribute, s.value)]
            for turn, s in zip(conv.turns(), conv.statements, strict=True)
        }
        batches.append(gold_batch(conv.turns(), conv.person, gold, conv.question_date))
        questions += [
            Question(
                kind=KIND_NAMES[q.kind],
                question=q.question,
                date=conv.question_date[:10],
                gold=tuple(q.gold_forms),
            )  # fmt: skip
            for q in conv.questions
        ]
    return batches, questions
