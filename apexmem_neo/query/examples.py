"""Canonical temporal queries (SQL and Cypher) and the guide to the four agent tools.

Parameters: ``:entity_id`` / ``$entity_id`` (an entities.entity_id from EntityLookup),
``:property`` (snake_case property name), ``:t`` / ``:t1`` / ``:t2`` / ``:now`` (times
``YYYY-MM-DDTHH:MM:SS``), ``:event_id``. Tests run every example on both backends.
"""

from __future__ import annotations

from typing import Final

from apexmem_neo.query.backend import Example, Language

_PAIR: Final = {"entity_id": "an entity_id", "property": "a property name"}
K_DESC_SQL: Final = "ORDER BY t_from DESC, recorded_at DESC, fact_id DESC LIMIT 1"
K_DESC_CYPHER: Final = "ORDER BY f.t_from DESC, f.recorded_at DESC, f.fact_id DESC LIMIT 1"

SQL_EXAMPLES: Final[tuple[Example, ...]] = (
    Example(
        "Current value (the latest fact of an entity's property)",
        "SELECT value_json, t_from, t_to FROM facts\n"
        "WHERE entity_id = :entity_id AND property = :property\n" + K_DESC_SQL,
        _PAIR,
    ),
    Example(
        "Value as of a time t (the latest fact whose [t_from, t_to] holds t)",
        "SELECT value_json, t_from, t_to FROM facts\n"
        "WHERE entity_id = :entity_id AND property = :property\n"
        "  AND t_from <= :t AND (t_to IS NULL OR t_to >= :t)\n" + K_DESC_SQL,
        {**_PAIR, "t": "a time"},
    ),
    Example(
        "When did it change (each fact with the value before it)",
        "SELECT f.t_from AS changed_at, f.value_json AS new_value,\n"
        "  (SELECT p.value_json FROM facts p WHERE p.entity_id = f.entity_id\n"
        "     AND p.property = f.property AND p.t_from < f.t_from\n"
        "     ORDER BY p.t_from DESC LIMIT 1) AS old_value\n"
        "FROM facts f WHERE f.entity_id = :entity_id AND f.property = :property\n"
        "ORDER BY f.t_from",
        _PAIR,
    ),
    Example(
        "Value before an event X (facts that began before the event's time)",
        "SELECT f.value_json, f.t_from FROM facts f, events ev\n"
        "WHERE ev.event_id = :event_id AND f.entity_id = :entity_id\n"
        "  AND f.property = :property AND f.t_from < ev.anchor_datetime\n"
        "ORDER BY f.t_from DESC, f.recorded_at DESC, f.fact_id DESC LIMIT 1",
        {**_PAIR, "event_id": "an event_id"},
    ),
    Example(
        "Facts of an entity that began between two times",
        "SELECT property, value_json, t_from, t_to FROM facts\n"
        "WHERE entity_id = :entity_id AND t_from BETWEEN :t1 AND :t2\n"
        "ORDER BY t_from, property",
        {"entity_id": "an entity_id", "t1": "window start", "t2": "window end"},
    ),
    Example(
        "How long each value held, in days (open facts run until :now)",
        "SELECT property, value_json, t_from, t_to,\n"
        "  julianday(coalesce(t_to, :now)) - julianday(t_from) AS days\n"
        "FROM facts WHERE entity_id = :entity_id ORDER BY t_from",
        {"entity_id": "an entity_id", "now": "the question's time"},
    ),
    Example(
        "Events of an entity with their participants and dates",
        "SELECT ev.event_type, date(ev.anchor_datetime) AS day, en.name, ep.role\n"
        "FROM events ev JOIN event_participants ep ON ep.event_id = ev.event_id\n"
        "JOIN entities en ON en.entity_id = ep.entity_id\n"
        "WHERE ev.event_id IN (SELECT event_id FROM event_participants "
        "WHERE entity_id = :entity_id)\n"
        "ORDER BY ev.anchor_datetime, en.name",
        {"entity_id": "an entity_id"},
    ),
    Example(
        "Count of changes per property of an entity",
        "SELECT property, count(*) - 1 AS changes, min(t_from) AS first, max(t_from) AS last\n"
        "FROM facts WHERE entity_id = :entity_id GROUP BY property\n"
        "ORDER BY changes DESC, property",
        {"entity_id": "an entity_id"},
    ),
)

CYPHER_EXAMPLES: Final[tuple[Example, ...]] = (
    Example(
        "Current value (the latest fact of an entity's property)",
        "MATCH (f:Fact {entity_id: $entity_id, property: $property})\n"
        "RETURN f.value_json AS value_json, f.t_from AS t_from, f.t_to AS t_to\n" + K_DESC_CYPHER,
        _PAIR,
    ),
    Example(
        "Value as of a time t (the latest fact whose [t_from, t_to] holds t)",
        "MATCH (f:Fact {entity_id: $entity_id, property: $property})\n"
        "WHERE f.t_from <= $t AND (f.t_to IS NULL OR f.t_to >= $t)\n"
        "RETURN f.value_json AS value_json, f.t_from AS t_from, f.t_to AS t_to\n" + K_DESC_CYPHER,
        {**_PAIR, "t": "a time"},
    ),
    Example(
        "When did it change (consecutive facts whose values differ)",
        "MATCH (f:Fact {entity_id: $entity_id, property: $property})\n"
        "WITH f ORDER BY f.t_from, f.recorded_at, f.fact_id\n"
        "WITH collect(f) AS h UNWIND range(1, size(h) - 1) AS i\n"
        "WITH h[i - 1] AS old, h[i] AS new WHERE old.value_json <> new.value_json\n"
        "RETURN new.t_from AS changed_at, old.value_json AS old_value, "
        "new.value_json AS new_value",
        _PAIR,
    ),
    Example(
        "Value before an event X (facts that began before the event's time)",
        "MATCH (ev:Event {event_id: $event_id})\n"
        "MATCH (f:Fact {entity_id: $entity_id, property: $property})\n"
        "WHERE f.t_from < ev.anchor_datetime\n"
        "RETURN f.value_json AS value_json, f.t_from AS t_from\n" + K_DESC_CYPHER,
        {**_PAIR, "event_id": "an event_id"},
    ),
    Example(
        "Facts of an entity that began between two times",
        "MATCH (f:Fact {entity_id: $entity_id}) WHERE $t1 <= f.t_from <= $t2\n"
        "RETURN f.property AS property, f.value_json AS value_json, f.t_from AS t_from, "
        "f.t_to AS t_to\nORDER BY t_from, property",
        {"entity_id": "an entity_id", "t1": "window start", "t2": "window end"},
    ),
    Example(
        "How long each value held, in days (open facts run until $now)",
        "MATCH (f:Fact {entity_id: $entity_id})\n"
        "RETURN f.property AS property, f.value_json AS value_json, f.t_from AS t_from,\n"
        "  duration.inDays(localdatetime(f.t_from), "
        "localdatetime(coalesce(f.t_to, $now))).days AS days\n"
        "ORDER BY t_from",
        {"entity_id": "an entity_id", "now": "the question's time"},
    ),
    Example(
        "Events of an entity with their participants and dates",
        "MATCH (:Entity {entity_id: $entity_id})<-[:PARTICIPANT]-(ev:Event)"
        "-[p:PARTICIPANT]->(en:Entity)\n"
        "RETURN ev.event_type AS event_type, date(localdatetime(ev.anchor_datetime)) AS day,\n"
        "  en.name AS name, p.role AS role ORDER BY ev.anchor_datetime, name",
        {"entity_id": "an entity_id"},
    ),
    Example(
        "The words behind a fact (evidence and the turn it came from)",
        "MATCH (f:Fact {entity_id: $entity_id, property: $property})"
        "-[:SUPPORTED_BY]->(v:Evidence)\n"
        "OPTIONAL MATCH (v)-[:FROM_TURN]->(t:Turn)\n"
        "RETURN f.value_json AS value_json, f.t_from AS t_from, v.text AS evidence,\n"
        "  t.speaker AS speaker, t.anchor_datetime AS said_at ORDER BY t_from",
        _PAIR,
    ),
)


def guide(language: Language, backend: str) -> str:
    """When to use which tool, for an agent on ``backend`` whose native language is given."""
    query_line = (
        "Cypher over the labels and relationships above; SQL over the paper's tables is "
        "also accepted (language='sql') and translated to Cypher."
        if language == "cypher"
        else "SQL (language='sql') over the tables above; Cypher is not available here."
    )
    return "\n".join(
        [
            f"This memory runs on {backend}. Facts are never overwritten: every value is kept "
            "with its validity interval [t_from, t_to] (t_to NULL = still open; value_json "
            "'null' = the earlier value ended then), so 'current', 'as of', 'before' and "
            "'when changed' are queries, not states.",
            "",
            "- **SchemaViewer**: first, or when a query fails on a name. Shows tables / "
            "labels, columns and types, relationships, indexes, row counts; with examples, "
            "the canonical temporal queries.",
            "- **EntityLookup(query, k)**: turn a name from the question ('Caroline', 'her "
            "dog') into entity_id values. Do this before filtering facts by entity.",
            "- **Search(query)**: free-text recall when you do not know the entity or the "
            "property: returns matching entities, properties, events / evidence and turns.",
            f"- **GraphQuery(query, language, params)**: exact answers. {query_line} "
            "Read-only and bounded (row limit, time limit); pass values as params "
            "(:name in SQL, $name in Cypher) rather than pasting them into the text.",
            "",
            "Typical path: EntityLookup -> GraphQuery with the temporal example that matches "
            "the question (current / as of / before / changes / durations) -> cite "
            "evidence. Compare times as 'YYYY-MM-DDTHH:MM:SS' strings.",
        ]
    )
