"""Reference queries: for every question ``op``, one query in SQL and one in Cypher that answer it.

They are what the few-shot demos show, so they are written over the schema the arms see (the
SQL tables on SQLite, run as they are through the shim on Neo4j; the Cypher labels and
properties on Neo4j), by entity name as a question gives it, with literal values in place of
the templates' fields (the local model writes literals, not parameters). Each returns one row
with one column ``answer``; ``judged_correct`` reads it with the study's own judge, and the
integration tests check every reference query of every train question against its gold.

The facts' times are midnight ``YYYY-MM-DDT00:00:00``, and a person's consecutive values always
differ, so "a change" is any fact after the first, and "on a date" is any time up to the end
of that day. The ops of a real memory's questions (``real_questions``), whose facts sit at
turn times, count calendar days (``days_until_change``) and join on any property
(``named_current``); the questions chosen there are those on which these queries and the
store's temporal rules cannot disagree.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from apexmem_neo.ontology.ids import canonical_json
from apexmem_neo.query.backend import Language, QueryBackend, QueryLimits, QueryResult
from apexmem_neo.query.cypher.quoting import string as cypher_string
from benchmarks.query_languages.judge import is_correct
from benchmarks.query_languages.questions import Question

LIMITS: Final = QueryLimits()
"""GraphQuery's default limits, which every arm's query runs with."""
INT_PROPERTIES: Final = ("salary",)
"""The properties whose values are integers (canonical JSON without quotes)."""
END_OF_DAY: Final = "T23:59:59"

_ENTITY_FACTS: Final = "FROM facts f JOIN entities e ON e.entity_id = f.entity_id"
_WHO_WHAT: Final = "e.name = {name} AND f.property = {property}"
_NOT_FIRST: Final = (
    "f.t_from > (SELECT MIN(g.t_from) FROM facts g "
    "WHERE g.entity_id = f.entity_id AND g.property = f.property)"
)
_LATEST_UNTIL: Final = (
    "(SELECT MAX(g.t_from) FROM facts g WHERE g.entity_id = e.entity_id "
    "AND g.property = {property} AND g.t_from <= {until})"
)

SQL: Final[dict[str, str]] = {
    "current": f"SELECT f.value_json AS answer {_ENTITY_FACTS} WHERE {_WHO_WHAT} "
    "ORDER BY f.t_from DESC LIMIT 1",
    "as_of": f"SELECT f.value_json AS answer {_ENTITY_FACTS} WHERE {_WHO_WHAT} "
    "AND f.t_from <= {at} ORDER BY f.t_from DESC LIMIT 1",
    "since": f"SELECT substr(f.t_from, 1, 10) AS answer {_ENTITY_FACTS} WHERE {_WHO_WHAT} "
    "ORDER BY f.t_from DESC LIMIT 1",
    "changed_to": f"SELECT substr(f.t_from, 1, 10) AS answer {_ENTITY_FACTS} WHERE {_WHO_WHAT} "
    f"AND f.value_json = {{value}} AND {_NOT_FIRST} ORDER BY f.t_from LIMIT 1",
    "duration_days": "SELECT julianday(n.t_from) - julianday(f.t_from) AS answer "
    f"{_ENTITY_FACTS} JOIN facts n ON n.entity_id = f.entity_id AND n.property = f.property "
    f"AND n.t_from > f.t_from WHERE {_WHO_WHAT} AND f.value_json = {{value}} AND {_NOT_FIRST} "
    "ORDER BY f.t_from, n.t_from LIMIT 1",
    "salary_diff": "SELECT CAST(b.value_json AS INTEGER) - CAST(f.value_json AS INTEGER) "
    f"AS answer {_ENTITY_FACTS} JOIN facts b ON b.entity_id = f.entity_id "
    f"AND b.property = f.property WHERE {_WHO_WHAT} "
    f"AND f.t_from = {_LATEST_UNTIL.replace('{until}', '{at}')} "
    f"AND b.t_from = {_LATEST_UNTIL.replace('{until}', '{at2}')}",
    "count_distinct": f"SELECT COUNT(DISTINCT f.value_json) AS answer {_ENTITY_FACTS} "
    f"WHERE {_WHO_WHAT}",
    "count_changes": f"SELECT COUNT(*) - 1 AS answer {_ENTITY_FACTS} WHERE {_WHO_WHAT}",
    "employer_city": f"SELECT h.value_json AS answer {_ENTITY_FACTS} "
    "JOIN entities c ON f.value_json = '\"' || c.name || '\"' "
    "JOIN facts h ON h.entity_id = c.entity_id AND h.property = 'headquarters_city' "
    f"WHERE {_WHO_WHAT} AND f.t_from <= {{at}} ORDER BY f.t_from DESC, h.t_from DESC LIMIT 1",
    "count_current": "SELECT COUNT(*) AS answer FROM facts f WHERE f.property = {property} "
    "AND f.value_json = {value} AND f.t_from = (SELECT MAX(g.t_from) FROM facts g "
    "WHERE g.entity_id = f.entity_id AND g.property = f.property)",
    "days_until_change": "SELECT julianday(substr(n.t_from, 1, 10)) - "
    f"julianday(substr(f.t_from, 1, 10)) AS answer {_ENTITY_FACTS} JOIN facts n "
    "ON n.entity_id = f.entity_id AND n.property = f.property "
    "AND substr(n.t_from, 1, 10) > substr(f.t_from, 1, 10) AND n.value_json <> f.value_json "
    f"WHERE {_WHO_WHAT} AND f.value_json = {{value}} AND {_NOT_FIRST} "
    "ORDER BY f.t_from, n.t_from LIMIT 1",
    "named_current": f"SELECT h.value_json AS answer {_ENTITY_FACTS} "
    "JOIN entities c ON f.value_json = '\"' || c.name || '\"' "
    "JOIN facts h ON h.entity_id = c.entity_id AND h.property = {then_property} "
    f"WHERE {_WHO_WHAT} AND f.t_from <= {{at}} ORDER BY f.t_from DESC, h.t_from DESC LIMIT 1",
}
"""SQLite SQL per op; the same text runs through the shim on Neo4j."""

_FACTS_OF: Final = "MATCH (f:Fact {{property: {property}}})-[:ABOUT]->(e:Entity {{name: {name}}})"
_HAD_BEFORE: Final = (
    "EXISTS {{ MATCH (g:Fact {{property: {property}}})-[:ABOUT]->(e) WHERE g.t_from < f.t_from }}"
)

CYPHER: Final[dict[str, str]] = {
    "current": f"{_FACTS_OF} RETURN f.value_json AS answer ORDER BY f.t_from DESC LIMIT 1",
    "as_of": f"{_FACTS_OF} WHERE f.t_from <= {{at}} "
    "RETURN f.value_json AS answer ORDER BY f.t_from DESC LIMIT 1",
    "since": f"{_FACTS_OF} RETURN substring(f.t_from, 0, 10) AS answer "
    "ORDER BY f.t_from DESC LIMIT 1",
    "changed_to": f"{_FACTS_OF} WHERE f.value_json = {{value}} AND {_HAD_BEFORE} "
    "RETURN substring(f.t_from, 0, 10) AS answer ORDER BY f.t_from LIMIT 1",
    "duration_days": f"{_FACTS_OF} WHERE f.value_json = {{value}} AND {_HAD_BEFORE} "
    "MATCH (n:Fact {{property: {property}}})-[:ABOUT]->(e) WHERE n.t_from > f.t_from "
    "RETURN duration.inDays(localdatetime(f.t_from), localdatetime(n.t_from)).days AS answer "
    "ORDER BY f.t_from, n.t_from LIMIT 1",
    "salary_diff": f"{_FACTS_OF} WHERE f.t_from <= {{at}} WITH e, f ORDER BY f.t_from DESC "
    "LIMIT 1 MATCH (b:Fact {{property: {property}}})-[:ABOUT]->(e) WHERE b.t_from <= {at2} "
    "WITH f, b ORDER BY b.t_from DESC LIMIT 1 "
    "RETURN toInteger(b.value_json) - toInteger(f.value_json) AS answer",
    "count_distinct": f"{_FACTS_OF} RETURN count(DISTINCT f.value_json) AS answer",
    "count_changes": f"{_FACTS_OF} RETURN count(f) - 1 AS answer",
    "employer_city": f"{_FACTS_OF} WHERE f.t_from <= {{at}} WITH f ORDER BY f.t_from DESC "
    "LIMIT 1 MATCH (h:Fact {{property: 'headquarters_city'}})-[:ABOUT]->(c:Entity) "
    "WHERE f.value_json = '\"' + c.name + '\"' "
    "RETURN h.value_json AS answer ORDER BY h.t_from DESC LIMIT 1",
    "count_current": "MATCH (f:Fact {{property: {property}}})-[:ABOUT]->(e:Entity) "
    "WITH e, f ORDER BY f.t_from DESC WITH e, collect(f)[0] AS latest "
    "WHERE latest.value_json = {value} RETURN count(e) AS answer",
    "days_until_change": f"{_FACTS_OF} WHERE f.value_json = {{value}} AND {_HAD_BEFORE} "
    "MATCH (n:Fact {{property: {property}}})-[:ABOUT]->(e) "
    "WHERE substring(n.t_from, 0, 10) > substring(f.t_from, 0, 10) "
    "AND n.value_json <> f.value_json RETURN duration.inDays(date(substring(f.t_from, 0, 10)), "
    "date(substring(n.t_from, 0, 10))).days AS answer ORDER BY f.t_from, n.t_from LIMIT 1",
    "named_current": f"{_FACTS_OF} WHERE f.t_from <= {{at}} WITH f ORDER BY f.t_from DESC "
    "LIMIT 1 MATCH (h:Fact {{property: {then_property}}})-[:ABOUT]->(c:Entity) "
    "WHERE f.value_json = '\"' + c.name + '\"' "
    "RETURN h.value_json AS answer ORDER BY h.t_from DESC LIMIT 1",
}
"""Cypher per op over the labels the Cypher arms see."""

TEMPLATES: Final[dict[Language, dict[str, str]]] = {"sql": SQL, "cypher": CYPHER}


def sql_string(value: str) -> str:
    """A SQL string literal."""
    return "'" + value.replace("'", "''") + "'"


def value_json(prop: str, value: str) -> str:
    """``value`` as the canonical JSON text the facts' ``value_json`` holds."""
    return canonical_json(int(value) if prop in INT_PROPERTIES else value)


def _fields(question: Question, names: Mapping[str, str]) -> dict[str, str]:
    """The template fields of ``question`` as plain (unquoted) text."""
    spec = question.spec
    out = {"property": spec.property, "name": names.get(spec.entity_id, "")}
    if spec.then_property:
        out["then_property"] = spec.then_property
    if spec.at:
        out["at"] = spec.at[:10] + END_OF_DAY
    if spec.at2:
        out["at2"] = spec.at2[:10] + END_OF_DAY
    if spec.value is not None:
        out["value"] = value_json(spec.property, spec.value)
    return out


def reference_query(question: Question, language: Language, names: Mapping[str, str]) -> str:
    """The reference query of ``question`` in ``language``; ``names`` maps entity ids to the
    names the question uses."""
    quote = sql_string if language == "sql" else cypher_string
    fields = {k: quote(v) for k, v in _fields(question, names).items()}
    return TEMPLATES[language][question.spec.op].format(**fields)


def answer_of(result: QueryResult) -> str:
    """The answer a reference query returns: its one cell (empty when the shape is not one
    row of one column, which no reference query may return)."""
    if len(result.columns) != 1 or len(result.rows) != 1:
        return ""
    return str(result.rows[0][0])


def judged_correct(
    backend: QueryBackend, query: str, language: Language, question: Question
) -> tuple[bool, str]:
    """(the judge accepts the query's answer, that answer), the query run as the arms run
    theirs: GraphQuery's default limits, no scope."""
    answer = answer_of(backend.run(query, language, {}, LIMITS))
    return is_correct(answer, question.gold, question.answer_type), answer
