"""A scope with every kind of row for the export/import tests, and the scope's tables as
rows read through ``Memory.query`` (the same SQL on SQLite and, through the shim, Neo4j)."""

from __future__ import annotations

from typing import Any

from apexmem_neo import Memory
from apexmem_neo.ontology import Entity, Fact, GraphBatch, Property
from apexmem_neo.store.columns import COLUMNS, PRIMARY_KEYS
from apexmem_neo.store.protocol import TABLES
from tests.unit.agent.alice import alice_batch
from tests.unit.store.test_contract import scoped_batch

MESSAGES = [
    {"role": "user", "name": "Alice", "timestamp": "2024-01-15T19:00:00",
     "content": "I live in Boston."},
    {"role": "assistant", "content": "Boston is lovely in autumn."},
]  # fmt: skip


def extras(scope: str) -> GraphBatch:
    """An enum property with a description, an entity with aliases, and facts of several
    dtypes, one with an interval, a confidence and its own recorded_at."""
    rex = Entity(name="Rex", entity_type="Animal", aliases=("the dog",),
                 description="Alice's dog", scope=scope, recorded_at="2024-02-01")  # fmt: skip
    mood = Property(name="mood", dtype="enum", enum_values=("calm", "wild"),
                    description="How the dog behaves", scope=scope)  # fmt: skip
    facts = [
        Fact(entity_id=rex.entity_id, property="mood", dtype="enum", enum_values=("calm", "wild"),
             value="wild", t_from="2024-02-01", t_to="2024-03-01", confidence=0.5),
        Fact(entity_id=rex.entity_id, property="weight_kg", dtype="float", value=12,
             t_from="2024-02-01", recorded_at="2024-02-02T08:30:00"),
        Fact(entity_id=rex.entity_id, property="tricks", dtype="list", value=["sit", "roll"],
             t_from="2024-02-01"),
    ]  # fmt: skip
    return GraphBatch(scope=scope, entities=[rex], properties=[mood], facts=facts)


def fill(memory: Memory, scope: str, city: str = "Lisbon") -> None:
    """Plain turns (``add``), the Alice case, "Mom lives in <city>" and ``extras``."""
    memory.add(MESSAGES, scope=scope, extract=False)
    memory.store.write(alice_batch(prefix=f"{scope}_", scope=scope))
    memory.store.write(scoped_batch(scope, city))
    memory.store.write(extras(scope))


def tables(memory: Memory, scope: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table of ``scope``, all columns, in primary-key order."""
    found = {}
    for table in TABLES:
        sql = (
            f"SELECT {', '.join(COLUMNS[table])} FROM {table} "
            f"ORDER BY {', '.join(PRIMARY_KEYS[table])}"
        )
        result = memory.query(sql, "sql", scope=scope, limit=10_000)
        assert not result.truncated
        found[table] = list(result.rows)
    return found
