"""The static Cypher guard: what it refuses, and reads it must let through."""

from __future__ import annotations

import pytest

from apexmem_neo.query.backend import ToolError
from apexmem_neo.query.cypher.guard import (
    ALLOWED_PROCEDURES,
    check_cypher,
    tokens,
    without_comments,
)
from tests.unit.tools.hostile import REFUSED_CYPHER

READS = [
    "MATCH (f:Fact {entity_id: $e}) RETURN f.value_json ORDER BY f.t_from DESC LIMIT 1",
    "MATCH (n:Entity) WHERE n.name = 'CREATE (x) SET y DELETE z' RETURN n",
    'MATCH (n:Entity) WHERE n.description CONTAINS "merge; drop" RETURN n',
    "MATCH (n:Entity) // CREATE (:X) in a comment\nRETURN n",
    "MATCH (n:Entity) /* DETACH DELETE n; */ RETURN n.name",
    "MATCH (n) RETURN n.set, n.delete, n.create, {remove: 1, merge: 2} AS m",
    "MATCH (n:`Create`) RETURN n",
    "WITH $set AS x RETURN x",
    "CALL () { MATCH (f:Fact) RETURN count(f) AS c } RETURN c",
    "MATCH (e:Entity) CALL (e) { MATCH (f:Fact {entity_id: e.entity_id}) RETURN f } RETURN e, f",
    "CALL db.labels() YIELD label RETURN label",
    "CALL db.index.fulltext.queryNodes('x', 'alice') YIELD node, score RETURN node, score",
    "CALL DB.LABELS()",
    "RETURN duration.between(date('2020-01-01'), date('2021-01-01')).days AS d",
    "MATCH (n:Entity) RETURN count(n);",
    "MATCH p = (a:Turn)-[:NEXT*1..3]->(b:Turn) RETURN length(p)",
    "RETURN 'it\\'s' AS s, \"a \\\" b\" AS t, `odd name` AS u",
    "UNWIND [1, 2] AS start RETURN start",
]


@pytest.mark.parametrize("query", REFUSED_CYPHER)
def test_hostile_cypher_is_refused_statically(query: str) -> None:
    with pytest.raises(ToolError):
        check_cypher(query)


@pytest.mark.parametrize("query", READS)
def test_reads_pass(query: str) -> None:
    assert check_cypher(query) == without_comments(query).strip().rstrip(";").strip()


def test_comments_are_blanked_in_the_text_that_runs() -> None:
    checked = check_cypher("MATCH (n:Entity) // note\nRETURN n /* other */")
    assert checked == "MATCH (n:Entity)        \nRETURN n"


ESCAPED_ATTACKS = [
    # Neo4j decodes \uXXXX before it reads the query: \u0060 ends a backtick name early
    "MATCH (t:Turn) RETURN t.text AS `x\\u0060 LOAD CSV FROM 'file:///etc/hostname' AS l "
    "RETURN l AS \\u0060x`",
    "RETURN 1 AS a \\u004cOAD CSV FROM 'file:///etc/hostname' AS l RETURN l",
    "RETURN 1 AS `a\\\\\\u0060 UNION MATCH (n) DETACH DELETE n RETURN 1 AS \\u0060a`",
    "RETURN '\\u0027 UNION MATCH (n) SET n.x = 1 RETURN 1 AS \\u0027' AS s",
    "RETURN 'a\\u005c' CREATE (:X) RETURN 'b' AS s",
    # \r ends a // comment for Neo4j
    "RETURN 1 AS a // note\rUNION LOAD CSV FROM 'file:///etc/hostname' AS l RETURN l AS a",
]


@pytest.mark.parametrize("query", ESCAPED_ATTACKS)
def test_escaped_clauses_are_read_as_neo4j_reads_them(query: str) -> None:
    try:
        checked = check_cypher(query)
    except ToolError:
        return
    upper = checked.upper()
    assert "LOAD" not in upper and "CREATE" not in upper and "DELETE" not in upper, checked


@pytest.mark.parametrize(
    ("query", "title"),
    [
        ("RETURN 1 AS `a\\b`", "Backslash refused"),
        ("RETURN 1 AS a \\ 2", "Backslash refused"),
        ("RETURN 1 AS `a\\uu0060`", "Unreadable query"),
        ("RETURN '\\u005cu0060' AS s", "Unreadable query"),
        ("RETURN apoc.text.join(['a'], ',') AS s", "Function refused"),
        ("RETURN db.nameFromElementId('x') AS s", "Function refused"),
        ("RETURN `apoc`.text.join(['a'], ',') AS s", "Function refused"),
        ("RETURN apoc.`cypher`.runFirstColumn('MATCH (n) RETURN n', {}) AS s", "Function refused"),
    ],
)
def test_escape_and_function_refusals(query: str, title: str) -> None:
    with pytest.raises(ToolError) as err:
        check_cypher(query)
    assert err.value.title == title


def test_decoded_text_runs() -> None:
    assert check_cypher("RETURN 'caf\\u00e9' AS s") == "RETURN 'café' AS s"
    assert check_cypher("RETURN 'a\\\\u0027' AS s") == "RETURN 'a\\\\u0027' AS s"


def test_every_allowed_procedure_passes() -> None:
    for name in ALLOWED_PROCEDURES:
        check_cypher(f"CALL {name}()")


@pytest.mark.parametrize(
    ("query", "title"),
    [
        ("MATCH (n) RETURN n; MATCH (m) RETURN m", "Multiple statements"),
        ("MATCH (n) RETURN n /* open", "Unterminated comment"),
        ("MATCH (n) WHERE n.x = 'open RETURN n", "Unterminated quote"),
        ("CALL dbms.components()", "Procedure refused"),
        ("RETURN dbms.x()", "Function refused"),
        ("CALL", "Incomplete CALL"),
        ("MATCH (n) SET n.x = 1", "Write or admin clause refused"),
    ],
)
def test_error_titles(query: str, title: str) -> None:
    with pytest.raises(ToolError) as info:
        check_cypher(query)
    assert info.value.title == title


def test_tokens_hide_strings_and_comments() -> None:
    toks = tokens("MATCH (n) // CREATE\nWHERE n.a = 'DELETE' /* SET */ RETURN `MERGE`")
    words = [t.text for t in toks if t.kind == "word"]
    assert words == ["MATCH", "n", "WHERE", "n", "a", "RETURN"]


@pytest.mark.parametrize(
    "query",
    [
        "MATCH (n)\u00a0DETACH\u00a0DELETE\u00a0n",
        "MATCH (n:Entity)\u3000SET n.x = 1",
        "MATCH (n:Entity)\u2028CREATE (:X)",
        "RETURN 1 AS x\u2014CREATE (:X)",
    ],
)
def test_unicode_spaces_and_dashes_split_tokens_as_neo4j_does(query: str) -> None:
    """Neo4j reads these as a write (its EXPLAIN says query type "w"): a lexer that took a
    Unicode space or dash for a letter of a name would let the clause through."""
    with pytest.raises(ToolError):
        check_cypher(query)


def test_a_line_comment_ends_at_a_carriage_return() -> None:
    assert check_cypher("MATCH (n) // CREATE\rRETURN n").endswith("RETURN n")
