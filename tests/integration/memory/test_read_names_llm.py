"""Reads resolve names as writes do, end to end through the local LLM (issue 48): turns are
extracted by the model, then read with a property named in other words or misspelled, and
with a name of no entity, which is a typed error listing the nearest known names.

The turns are written for this test (not taken from any benchmark set).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from apexmem_neo import Memory
from apexmem_neo.memory import UnknownEntityError

pytestmark = [pytest.mark.integration, pytest.mark.llm]

SCOPE = "alice"


@pytest.mark.timeout(1800)
def test_reads_in_other_words_after_extraction(lm_api_base: str, tmp_path: Path) -> None:
    options = {"lm_api_base": lm_api_base, "lm_api_key": "local", "search": None}
    with Memory.sqlite(tmp_path / "m.sqlite", home=tmp_path / "home", **options) as memory:
        added = memory.add(
            [
                {"role": "user", "name": "Alice", "timestamp": "2024-01-15",
                 "content": "I love Sakura Sushi, it's my favourite restaurant."},
                {"role": "user", "name": "Alice", "timestamp": "2024-02-03",
                 "content": "I work at Brightwater Bank as a teller."},
            ],
            scope=SCOPE,
        )  # fmt: skip
        assert {t.status for t in added.turns} == {"done"}, [t.error for t in added.turns]
        stored = [(f.entity, f.property, f.value) for t in added.turns for f in t.facts]
        for asked in ("favorite restaurant", "favourite_resturant", "Favourite Restaurant"):
            fact = memory.current("alice", asked, scope=SCOPE)
            assert fact is not None and fact.value == "Sakura Sushi", (asked, stored)
            assert fact.property == "favourite_restaurant"
        employer = memory.current("ALICE", "works_at", scope=SCOPE)
        assert employer is not None and employer.value == "Brightwater Bank", stored
        history = memory.history("Alice's", "favorite_restaurant", scope=SCOPE)
        assert [f.value for f in history.facts] == ["Sakura Sushi"]
        with pytest.raises(UnknownEntityError) as caught:
            memory.current("Zorro the Magnificent", "favorite restaurant", scope=SCOPE)
        assert "Alice" in caught.value.nearest
        assert "nearest known names:" in str(caught.value)
