"""The bulk write path through the launcher's procedures (services/neo4j WriteProcedures).

``apexmem.createNodes`` and ``apexmem.createRelationships`` build the same graph as the
``write_*`` Cypher files through Neo4j's core API, without Cypher's per-row interpretation.
They are generic; this module holds the mapping they are called with: per table, the label,
the key and the relationships a new node gets. A stock Neo4j server lacks them, so the store
asks the server at ``init_schema()`` and otherwise writes through the Cypher files.
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple

from apexmem_neo.store.neo4j.cypher_files import LABELS, RELATIONSHIP_TYPES

PROCEDURE_NAMES: Final = ("apexmem.createNodes", "apexmem.createRelationships")
NODE_QUERY: Final = "write_nodes_procedure"
RELATIONSHIP_QUERY: Final = "write_relationships_procedure"
PRESENT_QUERY: Final = "write_procedures_present"


class Link(NamedTuple):
    """A relationship between a new node and the node its row's ``column`` names."""

    type: str
    column: str
    label: str
    key: str
    outgoing: bool
    """True: (new)-[:type]->(other); False: (other)-[:type]->(new)."""
    required: bool = False
    """True: a row naming no stored node is an error (Cypher's MATCH); else no relationship."""


class NodeTable(NamedTuple):
    label: str
    key: str
    links: tuple[Link, ...] = ()


class RelationshipTable(NamedTuple):
    type: str
    start: tuple[str, str, str]
    """(column, label, key) naming the start node; an event, whose relationships are few."""
    end: tuple[str, str, str]
    key_columns: tuple[str, ...]


def _to(rel: str, column: str, label: str, key: str, *, required: bool = False) -> Link:
    return Link(rel, column, label, key, True, required)


NODE_TABLES: Final[dict[str, NodeTable]] = {
    "sessions": NodeTable("Session", "session_id"),
    "turns": NodeTable(
        "Turn", "turn_id", (_to("IN_SESSION", "session_id", "Session", "session_id"),)
    ),
    "entities": NodeTable("Entity", "entity_id"),
    "properties": NodeTable("Property", "property_id"),
    "evidence": NodeTable(
        "Evidence", "evidence_id", (_to("FROM_TURN", "turn_id", "Turn", "turn_id"),)
    ),
    "events": NodeTable(
        "Event",
        "event_id",
        (
            _to("FROM_TURN", "turn_id", "Turn", "turn_id"),
            _to("SUPPORTED_BY", "evidence_id", "Evidence", "evidence_id"),
        ),
    ),
    "facts": NodeTable(
        "Fact",
        "fact_id",
        (
            _to("ABOUT", "entity_id", "Entity", "entity_id", required=True),
            _to("OF_PROPERTY", "property_id", "Property", "property_id", required=True),
            Link("ASSERTS", "event_id", "Event", "event_id", False),
            _to("SUPPORTED_BY", "evidence_id", "Evidence", "evidence_id"),
        ),
    ),
}
"""Per node table: what the Cypher file ``write_<table>`` creates, as procedure arguments."""

RELATIONSHIP_TABLES: Final[dict[str, RelationshipTable]] = {
    "event_participants": RelationshipTable(
        "PARTICIPANT",
        ("event_id", "Event", "event_id"),
        ("entity_id", "Entity", "entity_id"),
        ("event_id", "entity_id", "role"),
    ),
}


def node_parameters(table: str, rows: Any) -> dict[str, Any]:
    spec = NODE_TABLES[table]
    links = [link._asdict() for link in spec.links]
    return {"label": spec.label, "key": spec.key, "rows": rows, "links": links}


def relationship_parameters(table: str, rows: Any) -> dict[str, Any]:
    spec = RELATIONSHIP_TABLES[table]
    return {
        "type": spec.type,
        "start": _endpoint(spec.start),
        "end": _endpoint(spec.end),
        "rows": rows,
        "key_columns": list(spec.key_columns),
    }


def _endpoint(spec: tuple[str, str, str]) -> dict[str, str]:
    column, label, key = spec
    return {"column": column, "label": label, "key": key}


def _check_names() -> None:
    """The mapping names only the allow-listed labels and types of ``cypher_files``."""
    labels = {t.label for t in NODE_TABLES.values()}
    labels |= {link.label for t in NODE_TABLES.values() for link in t.links}
    labels |= {e[1] for t in RELATIONSHIP_TABLES.values() for e in (t.start, t.end)}
    types = {link.type for t in NODE_TABLES.values() for link in t.links}
    types |= {t.type for t in RELATIONSHIP_TABLES.values()}
    unknown = (labels - LABELS) | (types - RELATIONSHIP_TYPES)
    if unknown:
        raise AssertionError(f"procedure mapping names unknown labels/types: {sorted(unknown)}")


_check_names()
