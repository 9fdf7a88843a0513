"""The memory schema in a few lines, in one query language, with the notes and the worked
example a small model needs to write a first query right (SchemaViewer's full markdown is
several times longer). The query mode puts it before the agent's context; the SQL-vs-Cypher
study gives it to every arm."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from apexmem_neo.query.backend import Language, SchemaInfo
from apexmem_neo.query.cypher.tokens import quote_string

COMPACT_TABLES: Final = ("entities", "facts", "events", "turns")
"""The tables (labels) the compact schema lists: what questions about facts and turns need."""

HISTORY_NOTE: Final = (
    "Facts are never overwritten: a property's value now is its fact with the latest t_from; "
    "its value on a date is its fact with the latest t_from on or before that date (not one "
    "whose t_from equals it); the older facts are its history."
)
"""With rows oldest first and no such note, the local model answered the oldest value to a
question about now."""
SQL_NOTES: Final = (
    "Join facts.entity_id = entities.entity_id.",
    "Times are TEXT 'YYYY-MM-DDTHH:MM:SS' (UTC): compare them as strings; date(), julianday() "
    "and strftime() work on them.",
    "facts.value_json is the value as canonical JSON text (a string value keeps its quotes: "
    "'\"Paris\"').",
)


EXAMPLE_REQUEST: Final = "Every fact about Alice, oldest first"
EXAMPLE_QUERIES: Final[dict[Language, str]] = {
    "sql": "SELECT f.property, f.value_json, f.t_from, f.t_to FROM facts f JOIN entities e "
    "ON e.entity_id = f.entity_id WHERE e.name = 'Alice' ORDER BY f.t_from",
    "cypher": "MATCH (f:Fact)-[:ABOUT]->(e:Entity {name: 'Alice'}) "
    "RETURN f.property, f.value_json, f.t_from, f.t_to ORDER BY f.t_from",
}
"""One worked query per language, for the same request: without it the local model wrote
the same invented Cypher (``-[:HAS_PROPERTY]->``) whatever the language, SQL included, and
repeated it after every error."""


@dataclass(frozen=True)
class SchemaLink:
    """An entity the question names and the property it asks about, spelled as the store
    spells them (schema linking), and the day the question asks about, if it names one: the
    query mode's worked example is written for them."""

    entity: str
    property: str
    day: str | None = None


def sql_string(value: str) -> str:
    """``value`` as a single-quoted SQL string literal."""
    return "'" + value.replace("'", "''") + "'"


def linked_query(link: SchemaLink, language: Language) -> str:
    """``link``'s property in ``language``: its value on ``link.day`` (the fact with the latest
    t_from up to the end of that day), else every fact of it, oldest first."""
    end = f"{link.day[:10]}T23:59:59" if link.day else None
    if language == "sql":
        where = f"e.name = {sql_string(link.entity)} AND f.property = {sql_string(link.property)}"
        select = "SELECT f.value_json, f.t_from, f.t_to FROM facts f JOIN entities e "
        select += f"ON e.entity_id = f.entity_id WHERE {where}"
        if end is None:
            return f"{select} ORDER BY f.t_from"
        return f"{select} AND f.t_from <= '{end}' ORDER BY f.t_from DESC LIMIT 1"
    match = f"MATCH (f:Fact)-[:ABOUT]->(e:Entity {{name: {quote_string(link.entity)}}}) "
    match += f"WHERE f.property = {quote_string(link.property)}"
    returned = "RETURN f.value_json, f.t_from, f.t_to ORDER BY f.t_from"
    if end is None:
        return f"{match} {returned}"
    return f"{match} AND f.t_from <= '{end}' {returned} DESC LIMIT 1"


def example_line(language: Language, link: SchemaLink | None = None) -> str:
    """The worked example: for ``link`` when the question names one, else the generic one.
    With only the generic example, the local model copied it and read the latest fact of
    any property as the answer; shown only the history of the property, it compared t_from
    with a question's date by equality."""
    if link is None:
        return f"Example ({EXAMPLE_REQUEST}): {EXAMPLE_QUERIES[language]}"
    asked = f"on {link.day[:10]}" if link.day else "over time, oldest first"
    return f"Example ({link.entity}'s {link.property} {asked}): {linked_query(link, language)}"


def compact_schema(info: SchemaInfo, language: Language, link: SchemaLink | None = None) -> str:
    """The schema in a few lines, in the arm's language, from the same ``SchemaInfo`` that
    SchemaViewer renders: tables (SQL) or labels and relationships (Cypher), then notes and
    the worked example (for ``link``, the question's entity and property, when given)."""
    tables = [t for t in info.tables if t.sql_table in COMPACT_TABLES and t.kind != "relationship"]
    if language == "sql":  # the same text on SQLite and through the shim on Neo4j
        lines = ["Memory schema (SQL tables):"]
        lines += [f"{t.sql_table}({', '.join(c.name for c in t.columns)})" for t in tables]
        return "\n".join([*lines, *SQL_NOTES, HISTORY_NOTE, example_line(language, link)])
    lines = ["Memory schema (Cypher labels):"]
    lines += [f"(:{t.name} {{{', '.join(c.name for c in t.columns)}}})" for t in tables]
    lines += [r.pattern for r in info.relations if "Fact" in r.pattern]
    notes = [n for n in info.notes if "value_json" in n or n.startswith("Times")]
    return "\n".join([*lines, *notes, HISTORY_NOTE, example_line(language, link)])
