"""Property-based tests of the Cypher and SQL guards (hypothesis).

* Any text: the guards answer with a query or a ``ToolError``, never another exception.
* Write clauses spliced into reads, with random case, comments and whitespace: refused.
* Keywords inside strings, comments and property keys: never refused for that reason.
* SQL the guard accepts runs on the read-only connection without changing the database.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlglot import exp

from apexmem_neo.query.backend import ToolError
from apexmem_neo.query.cypher.guard import check_cypher
from apexmem_neo.query.graph_mapping import QUERYABLE_TABLES
from apexmem_neo.query.sql.guard import check_sql
from apexmem_neo.tools import QueryLimits, SQLiteQueryBackend, run_graph_query
from tests.unit.tools.test_security_sqlite import checksum

READ_PREFIXES = [
    "MATCH (n:Entity {entity_id: 'tqx_ent_alice'})",
    "MATCH (n:TqxHostile)",
    "OPTIONAL MATCH (n:Fact {fact_id: 'tqx_fact_00'})",
    "MATCH (n:Entity) WHERE n.entity_id = 'tqx_ent_bob' WITH n",
    "UNWIND [1] AS i MATCH (n:TqxHostile {i: i})",
    "MATCH (n:TqxGuard {guard_id: 'g1'})",
    "MATCH (n:TqxGuard)-[r:TQX_LINK]->(m)",
]
WRITES = [
    "CREATE (:TqxHostile {x: 1})",
    "MERGE (:TqxHostile {x: 1})",
    "SET n.tqx = 1",
    "SET n:TqxHostile",
    "REMOVE n.tqx",
    "DELETE n",
    "DETACH DELETE n",
    "FOREACH (x IN [1] | CREATE (:TqxHostile))",
    "CALL db.createLabel('TqxHostile')",
    "LOAD CSV FROM 'file:///etc/hosts' AS l CREATE (:TqxHostile)",
    "CALL (n) { SET n.tqx = 1 }",
]
FILLERS = st.sampled_from([" ", "\n", "\t", " /* x */ ", " // c\n", "  "])
SAFE_TEXT = st.text(
    alphabet=st.characters(exclude_characters="'\"\\`\r\n*/", codec="utf-8"),
    max_size=30,
)


def _random_case(word: str, flips: list[bool]) -> str:
    return "".join(c.upper() if f else c.lower() for c, f in zip(word, flips * 10, strict=False))


@st.composite
def write_injections(draw: st.DrawFn) -> str:
    """A read prefix, a write clause in random case, joined by random whitespace / comments."""
    prefix = draw(st.sampled_from(READ_PREFIXES))
    write = draw(st.sampled_from(WRITES))
    flips = draw(st.lists(st.booleans(), min_size=1, max_size=8))
    head, _, rest = write.partition(" ")
    write = _random_case(head, flips) + " " + rest
    sep = draw(FILLERS)
    tail = draw(st.sampled_from(["", " RETURN 1", ";", "; MATCH (m) RETURN m"]))
    return prefix + sep + write + tail


@settings(max_examples=300, deadline=None)
@given(query=write_injections())
def test_cypher_write_injections_are_refused(query: str) -> None:
    try:
        check_cypher(query)
    except ToolError:
        return
    raise AssertionError(f"not refused: {query!r}")


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=200))
def test_cypher_guard_never_crashes(text: str) -> None:
    with contextlib.suppress(ToolError):
        check_cypher(text)


@settings(max_examples=200, deadline=None)
@given(
    literal=SAFE_TEXT,
    word=st.sampled_from(["CREATE", "delete", "Set", "MERGE", "DROP", "LOAD CSV"]),
    where=st.sampled_from(["string", "comment", "block", "key", "property"]),
)
def test_keywords_in_strings_comments_and_keys_are_not_clauses(
    literal: str, word: str, where: str
) -> None:
    key = word.split()[0].lower()
    forms = {
        "string": f"MATCH (n:Entity) WHERE n.name = '{literal} {word}' RETURN n",
        "comment": f"MATCH (n:Entity) // {literal} {word}\nRETURN n",
        "block": f"MATCH (n:Entity) /* {literal} {word} */ RETURN n",
        "key": f"RETURN {{{key}: 1}} AS m",
        "property": f"MATCH (n:Entity) RETURN n.{key}",
    }
    check_cypher(forms[where])


SQL_WRITES = [
    "DELETE FROM facts",
    "UPDATE entities SET name = 'x'",
    "INSERT INTO entities (entity_id) VALUES ('x')",
    "DROP TABLE facts",
    "PRAGMA query_only = OFF",
    "ATTACH DATABASE '/tmp/tqx_fuzz.db' AS x",
    "CREATE TABLE tqx_fuzz (x)",
]
SQL_READS = [
    "SELECT * FROM facts",
    "SELECT count(*) FROM entities",
    "WITH x AS (SELECT 1) SELECT * FROM x",
    "SELECT name FROM entities WHERE name LIKE 'a%'",
]


@st.composite
def sql_injections(draw: st.DrawFn) -> str:
    read = draw(st.sampled_from(SQL_READS))
    write = draw(st.sampled_from(SQL_WRITES))
    flips = draw(st.lists(st.booleans(), min_size=1, max_size=8))
    sep = draw(st.sampled_from(["; ", ";\n", "; -- x\n", " /* c */ ; ", ";"]))
    order = draw(st.booleans())
    write = _random_case(write.split()[0], flips) + " " + write.split(" ", 1)[1]
    return read + sep + write if order else write + sep + read


@settings(max_examples=300, deadline=None)
@given(query=sql_injections())
def test_sql_write_injections_are_refused(query: str) -> None:
    try:
        check_sql(query, QUERYABLE_TABLES)
    except ToolError:
        return
    raise AssertionError(f"not refused: {query!r}")


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=200))
def test_sql_guard_never_crashes(text: str) -> None:
    try:
        tree = check_sql(text, QUERYABLE_TABLES)
    except ToolError:
        return
    assert isinstance(tree, exp.Select | exp.Union)


TOKENS = st.sampled_from(
    ["SELECT", "*", "FROM", "facts", "entities", "sqlite_master", "WHERE", "1", "=", ";",
     "DELETE", "UPDATE", "SET", "name", "'x'", "(", ")", ",", "UNION", "--", "/*", "*/",
     "PRAGMA", "ATTACH", "WITH", "AS", "x", "INSERT", "INTO", "VALUES", "\n"]
)  # fmt: skip


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(words=st.lists(TOKENS, min_size=1, max_size=14))
def test_whatever_the_sql_guard_accepts_cannot_write(sqlite_path: Path, words: list[str]) -> None:
    before = checksum(sqlite_path)
    backend = SQLiteQueryBackend(sqlite_path)
    run_graph_query(backend, " ".join(words), "sql", None, QueryLimits(max_rows=5, timeout_s=1))
    assert checksum(sqlite_path) == before
