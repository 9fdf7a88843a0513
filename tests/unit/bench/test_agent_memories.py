"""The agent benchmark's memories: the Alice toy and the held-out generated conversations."""

from __future__ import annotations

from apexmem_neo.store.reference import InMemoryGraphStore
from benchmarks.agent.heldout import heldout_memory
from benchmarks.agent.toy import QUESTIONS, toy_batch


def test_toy_memory_holds_the_gold_timeline() -> None:
    store = InMemoryGraphStore()
    store.init_schema()
    batch = toy_batch()
    store.write(batch)
    alice = batch.entities[0].entity_id
    assert [c.new_value for c in store.changes(alice, "employer")] == ["Google"]
    assert len(QUESTIONS) == 11


def test_heldout_questions_are_answerable_from_their_gold_facts() -> None:
    batches, questions = heldout_memory(2)
    assert len(batches) == 2 and len(questions) == 10
    assert {q.kind for q in questions} == {"current", "as-of", "when-changed", "before-X", "count"}
    store = InMemoryGraphStore()
    store.init_schema()
    for batch in batches:
        store.write(batch)
    for batch, asked in zip(batches, (questions[:5], questions[5:]), strict=True):
        person = batch.entities[0]
        current = next(q for q in asked if q.kind == "current")
        assert person.name in current.question
        props = {f.property for f in batch.facts}
        latest = {store.current(person.entity_id, p).value for p in props}  # type: ignore[union-attr]
        assert any(current.correct(str(v)) for v in latest)
