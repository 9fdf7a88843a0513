"""Escapes cannot carry a query out of its scope on Neo4j (property-based, hypothesis).

Neo4j decodes ``\\uXXXX`` anywhere in a query before reading it, so an escaped backtick or
quote can end a name or a string early and let a payload after it run unguarded. Each example
builds a query whose names, aliases, strings or comments are made of escape forms (``\\uXXXX``
with odd and even backslash runs, doubled backticks, Unicode look-alikes, line breaks, escaped
keywords) wrapped around a UNION / CALL / LOAD CSV payload, and runs it through GraphQuery in
alice's scope of a memory that also holds bob's, as Cypher and as SQL through the shim. A query
may be refused; whatever it returns holds nothing of bob's, no server file, and no count but
alice's own.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from neo4j import Driver

from apexmem_neo import Memory
from apexmem_neo.ontology.ids import scope_label
from apexmem_neo.query.backend import QueryResult, ToolError
from tests.unit.store.test_contract import scoped_batch

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]

RUN = uuid.uuid4().hex[:8]
ALICE, BOB = f"esc-alice-{RUN}", f"esc-bob-{RUN}"
SECRET = {ALICE: "alicewhisper", BOB: "bobsecretword"}
CITY = {ALICE: "Lisbon", BOB: "Oslotown"}
FILE_MARKERS = ("root:x:", "/bin/", "nologin")

BACKTICKS = [
    "\\u0060", "\\\\\\u0060", "\\\\u0060", "``", "\uff40", "\u02cb", "\\U00000060", "\\uu0060",
    "\\u005cu0060", "`",
]  # fmt: skip
QUOTES = ["\\u0027", "\\u005c", "\\\\\\u0027", "\\'", "\\u0022", "\u2019", "'", '"', "\\\\'"]
BREAKS = ["", " ", "\n", "\r", "\u2028", "\u0085", "\\u000a", "\\u000d", "\r\n"]
COMMENTS = ["//", "/*", "*/", "\\u002f\\u002f", "\\u002f*", "*\\u002f"]
ESCAPES = BACKTICKS + QUOTES + COMMENTS
KEYWORD_FORMS = {
    "UNION": ["UNION", "\\u0055NION", "UNI\\u004fN", "\\u0055\\u004e\\u0049\\u004f\\u004e"],
    "LOAD": ["LOAD", "\\u004cOAD", "L\\u004fAD"],
    "MATCH": ["MATCH", "\\u004dATCH"],
}
PAYLOADS = [
    "{UNION} {MATCH} (t:Turn) RETURN t.text AS x",
    "{UNION} ALL {MATCH} (n) RETURN n.scope AS x",
    "{UNION} ALL {MATCH} (n) RETURN toString(count(n)) + 'nodes' AS x",
    "{UNION} ALL {LOAD} CSV FROM 'file:///etc/passwd' AS l RETURN l[0] AS x",
    "{UNION} ALL CALL db.labels() YIELD label RETURN label AS x",
    "{UNION} ALL CALL () {{ {MATCH} (n) RETURN n }} RETURN n.text AS x",
    "{UNION} ALL {MATCH} (n) WHERE n.text =~ '(a+)+$' RETURN n.text AS x",
]
CYPHER_TEMPLATES = [
    "MATCH (t:Turn) RETURN t.text AS `x{open}{sep}{payload}{sep}{close}x`",
    "MATCH (t:Turn) WHERE t.text <> '{open}{sep}{payload}{sep}{close}' RETURN t.text AS x",
    'MATCH (t:Turn) WHERE t.text <> "{open}{sep}{payload}{sep}{close}" RETURN t.text AS x',
    "MATCH (t:Turn) RETURN t.text AS x {open}{sep}{payload}",
    "MATCH (t:`Turn{open}{sep}{payload}{sep}{close}`) RETURN t.text AS x",
    "MATCH (t:Turn) RETURN t.`text{open}{sep}{payload}{sep}{close}` AS x",
]
SQL_TEMPLATES = [
    'SELECT text AS "x{open}{sep}{payload}{sep}{close}x" FROM turns',
    "SELECT text FROM turns WHERE text <> '{open}{sep}{payload}{sep}{close}'",
    "SELECT text AS `x{open}{sep}{payload}{sep}{close}x` FROM turns",
    "SELECT text FROM turns {open}{sep}{payload}",
]


@st.composite
def hostile(draw: st.DrawFn, templates: list[str]) -> str:
    """One query: a template with escape forms and line breaks around a keyword-escaped payload."""
    words = {k: draw(st.sampled_from(v)) for k, v in KEYWORD_FORMS.items()}
    payload = draw(st.sampled_from(PAYLOADS)).format(**words)
    return draw(st.sampled_from(templates)).format(
        open=draw(st.sampled_from(ESCAPES)),
        close=draw(st.sampled_from(ESCAPES)),
        sep=draw(st.sampled_from(BREAKS)),
        payload=payload,
    )


@pytest.fixture(scope="module")
def two_scopes(neo4j_driver: Driver) -> Iterator[tuple[Memory, int, list[str]]]:
    """A Neo4j memory with alice's and bob's data; alice's node count; bob's markers."""
    with Memory.neo4j(neo4j_driver, lm=None, search=None) as memory:
        for scope in (ALICE, BOB):
            memory.store.write(scoped_batch(scope, CITY[scope]))
            said = f"my {SECRET[scope]} is that Mom moved to {CITY[scope]}"
            memory.add([{"role": "user", "content": said}], scope=scope, extract=False)
        own = memory.query("MATCH (n) RETURN count(n) AS n", "cypher", scope=ALICE).rows[0][0]
        (mom,) = memory.store.find_entities("Mom", scope=BOB)
        markers = [SECRET[BOB], CITY[BOB], BOB, mom.entity_id, scope_label(BOB)]
        yield memory, int(own), markers
    with neo4j_driver.session() as session:
        session.run(
            "MATCH (n) WHERE n.scope IN $scopes DETACH DELETE n", scopes=[ALICE, BOB]
        ).consume()


def check_result(result: QueryResult, own_count: int, markers: list[str], query: str) -> None:
    cells = [str(value) for row in result.rows for value in row]
    text = " ".join(cells)
    leaked = [m for m in [*markers, *FILE_MARKERS] if m in text]
    assert leaked == [], f"{query!r} leaked {leaked}"
    counts = [int(m.group(1)) for c in cells if (m := re.fullmatch(r"(\d+)nodes", c))]
    assert all(n == own_count for n in counts), f"{query!r} counted {counts}, own {own_count}"


def run_hostile(memory: Memory, query: str, language: str) -> QueryResult | None:
    try:
        return memory.query(query, language, scope=ALICE, timeout_s=2.0)  # type: ignore[arg-type]
    except ToolError:
        return None


def probe(two_scopes: tuple[Memory, int, list[str]], query: str, language: str) -> None:
    memory, own, markers = two_scopes
    result = run_hostile(memory, query, language)
    if result is not None:
        check_result(result, own, markers, query)


GENERATED = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@settings(GENERATED, max_examples=200)
@given(query=hostile(CYPHER_TEMPLATES))
def test_escaped_cypher_stays_in_its_scope(
    two_scopes: tuple[Memory, int, list[str]], query: str
) -> None:
    probe(two_scopes, query, "cypher")


@settings(GENERATED, max_examples=100)
@given(query=hostile(SQL_TEMPLATES))
def test_escaped_sql_through_the_shim_stays_in_its_scope(
    two_scopes: tuple[Memory, int, list[str]], query: str
) -> None:
    probe(two_scopes, query, "sql")


REPORTED = [
    "MATCH (t:Turn) RETURN t.text AS `x\\u0060 UNION MATCH (t:Turn) RETURN t.text AS \\u0060x`",
    "MATCH (t:Turn) RETURN t.text AS `x\\u0060 UNION ALL LOAD CSV FROM 'file:///etc/passwd' "
    "AS l RETURN l[0] AS \\u0060x`",
    "MATCH (t:Turn) RETURN count(t) AS `x\\u0060 UNION MATCH (n) RETURN count(n) AS \\u0060x`",
]
"""The issue's own attacks, kept as fixed cases beside the generated ones."""


@pytest.mark.parametrize("query", REPORTED)
def test_the_reported_escapes_stay_in_scope(
    two_scopes: tuple[Memory, int, list[str]], query: str
) -> None:
    memory, own, markers = two_scopes
    result = run_hostile(memory, query, "cypher")
    if result is not None:
        check_result(result, own, markers, query)
        counts = [v for row in result.rows for v in row if isinstance(v, int)]
        assert all(n <= own for n in counts), f"{query!r} counted {counts}"


def test_the_reported_shim_escape_is_refused(two_scopes: tuple[Memory, int, list[str]]) -> None:
    memory, _, _ = two_scopes
    sql = 'SELECT text AS "x\\u0060 UNION MATCH (t:Turn) RETURN t.text AS \\u0060x" FROM turns'
    with pytest.raises(ToolError, match="backslash"):
        memory.query(sql, "sql", scope=ALICE)


def test_escaped_text_still_reads_alice(two_scopes: tuple[Memory, int, list[str]]) -> None:
    """Decoding is not refusing: an escaped letter in a string still finds alice's turn."""
    memory, _, _ = two_scopes
    query = "MATCH (t:Turn) WHERE t.text CONTAINS 'alicewhisp\\u0065r' RETURN t.text AS x"
    result = memory.query(query, "cypher", scope=ALICE)
    assert any(SECRET[ALICE] in str(row[0]) for row in result.rows)


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ("MATCH (n RETURN n", "Invalid input 'RETURN'"),
        ("MATCH (n:Turn) RETRUN n.text", "Invalid input 'RETRUN'"),
    ],
)
def test_a_syntax_error_is_named_by_the_server(
    two_scopes: tuple[Memory, int, list[str]], query: str, said: str
) -> None:
    """A query the scope guard cannot read because it is wrong says what is wrong, with its
    position in the query as written (not 'the scope guard cannot read this query')."""
    memory, _, _ = two_scopes
    with pytest.raises(ToolError) as err:
        memory.query(query, "cypher", scope=ALICE)
    assert err.value.title == "Cypher syntax error"
    assert said in err.value.detail
    column = query.index(said.split("'")[1]) + 1
    assert f"column {column} " in err.value.detail


def test_a_form_the_guard_lacks_keeps_its_rewrite_hint(
    two_scopes: tuple[Memory, int, list[str]],
) -> None:
    memory, _, _ = two_scopes
    with pytest.raises(ToolError) as err:
        memory.query("MATCH (e:Entity) RETURN e {.name} AS m", "cypher", scope=ALICE)
    assert err.value.title == "Not supported by the scope guard"


def test_the_server_itself_refuses_file_urls(neo4j_driver: Driver) -> None:
    """Defence in depth: the Neo4j the project starts refuses LOAD CSV from files even when a
    query reaches it without GraphQuery, and a memory opening on it has nothing to warn of."""
    from neo4j.exceptions import ClientError

    from apexmem_neo.store.neo4j.server_settings import settings_warnings

    assert settings_warnings(neo4j_driver) == []
    with neo4j_driver.session() as session, pytest.raises(ClientError, match="file_urls"):
        session.run("LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l").consume()
