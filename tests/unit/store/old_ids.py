"""Build stores as code before the short id prefixes wrote them, to test the id migrations."""

from __future__ import annotations

import pytest

from apexmem_neo.ontology import GraphBatch, ids
from tests.unit.store.test_contract import conversation_batch, fact

OLD_ID_LENGTH = 37  # "fact_" / "prop_" + 32 hex


def use_old_prefixes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Until ``monkeypatch.undo()``, new models get ``fact_`` / ``prop_`` ids."""
    for kind, prefix in ids.OLD_PREFIXES.items():
        monkeypatch.setitem(ids.PREFIXES, kind, prefix)
    ids.property_id.cache_clear()


def restore_prefixes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.undo()
    ids.property_id.cache_clear()


def timeline_batch() -> GraphBatch:
    """A turn with its event and evidence, plus three properties whose values change."""
    batch = conversation_batch()
    facts = [
        fact(f"value {i}", f"2020-0{1 + i % 9}-01", prop=f"attr_{i % 3}", recorded_at="2024-01-02")
        for i in range(9)
    ]
    fields = batch.model_dump(exclude={"facts", "properties"})
    return GraphBatch.model_validate({**fields, "facts": [*batch.facts, *facts]})


def new_form(old_id: str) -> str:
    """The id today's code computes for an old one: new prefix, same hex."""
    kind = "fact" if old_id.startswith("fact_") else "property"
    return f"{ids.PREFIXES[kind]}_{old_id[-32:]}"
