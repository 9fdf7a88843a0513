"""The scope guard: every node pattern of the rewritten query carries the scope label.

Each rewritten query is parsed again and every node pattern in its tree is checked for the
label (``assert_scoped``); refusals are checked by their title.
"""

from __future__ import annotations

from typing import Any

import pytest
from antlr4 import ParserRuleContext
from antlr4_cypher import CypherParser

from apexmem_neo.query.backend import ToolError
from apexmem_neo.query.cypher.regex_safety import regex_refusal
from apexmem_neo.query.cypher.scope import lex, parse, scope_cypher
from apexmem_neo.query.cypher.tokens import name_value

LABEL = "Scope_3f9a"
A200 = "a" * 200


def node_patterns(query: str) -> list[Any]:
    """Every node pattern of ``query``'s parse tree, walked without recursion."""
    found, stack = [], [parse(lex(query))]
    while stack:
        node = stack.pop()
        if isinstance(node, ParserRuleContext):
            if isinstance(node, CypherParser.NodePatternContext):
                found.append(node)
            stack.extend(node.getChildren())
    return found


def assert_scoped(query: str, label: str = LABEL) -> str:
    """Rewrite ``query`` and check that each node pattern of the result has ``label``."""
    out = scope_cypher(query, label)
    patterns = node_patterns(out)
    for pattern in patterns:
        labels = pattern.nodeLabels()
        names = [name_value(n.start) for n in labels.name()] if labels else []
        assert label in names, f"unscoped node {pattern.getText()} in {out}"
    assert out.count(f":{label}") == len(patterns)
    return out


# (query, how many node patterns it has)
SCOPED: list[tuple[str, int]] = [
    ("MATCH (n) RETURN n", 1),
    ("MATCH (n:Entity) RETURN n.name", 1),
    ("MATCH (n {name: 'alice'}) RETURN n", 1),
    ("MATCH (n:Entity {name: $name}) RETURN n", 1),
    ("MATCH (n:Entity $props) RETURN n", 1),
    ("OPTIONAL MATCH (n:Fact) RETURN count(n)", 1),
    ("MATCH (n) RETURN n UNION MATCH (m:Fact) RETURN m AS n", 2),
    ("MATCH (n) RETURN n.x AS x UNION ALL MATCH (m) RETURN m.x AS x", 2),
    ("MATCH (n) WHERE EXISTS { (n)-->(m) } RETURN n", 3),
    ("MATCH (n) WHERE EXISTS { MATCH (n)-->(m) RETURN m } RETURN n", 3),
    ("MATCH (n) RETURN [(n)-[:R]->(m) | m.name] AS names", 3),
    ("MATCH (n) RETURN [(n)-->(m) WHERE m.x > 0 | m] AS ms", 3),
    ("MATCH (n), (m) WHERE (n)--(m) RETURN n", 4),
    ("MATCH (n), (m) WHERE NOT (n)<--(m) AND (n)-[:R]->(:Fact) RETURN n", 6),
    ("MATCH (n) WHERE (n)--({x: 1}) RETURN n", 3),
    ("MATCH (a)-[*]-(b) RETURN b", 2),
    ("MATCH (a)-[:NEXT*1..3]->(b) RETURN b", 2),
    ("MATCH (a)<-[r:R|S*..5]-(b) RETURN r", 2),
    ("MATCH p = shortestPath((a:Turn)-[*]-(b:Turn)) RETURN p", 2),
    ("MATCH p = allShortestPaths((a)-[:NEXT*]->(b)) RETURN nodes(p)", 2),
    ("MATCH (n) WITH n MATCH (n)-->(m) RETURN m", 3),
    ("MATCH (n) WITH n, count(*) AS c WHERE c > 1 MATCH (m) RETURN n, m", 2),
    ("MATCH (n) RETURN count(*)", 1),
    ("MATCH (a), (b), (c) RETURN count(*)", 3),
    ("MATCH ()-[r]->() RETURN type(r), count(*)", 2),
    ("MATCH ()-->() RETURN count(*)", 2),
    ("MATCH ((a)-->(b)) RETURN a", 2),
    ("MATCH (`my node`:`Odd Label`) RETURN `my node`", 1),
    ("MATCH (n:`Entity`) RETURN n", 1),
    ("MATCH (n) WHERE n.name = $name AND n.age > $1 RETURN n", 1),
    ("MATCH (n) // ) RETURN 1\n RETURN n", 1),
    ("MATCH (n) /* MATCH (m) */ RETURN n", 1),
    ("MATCH (n) WHERE n.x = '/* (m) */' RETURN n", 1),
    ("MATCH (n) WHERE n.x = 'it\\'s (m)' RETURN n", 1),
    ("MATCH (n) WHERE n.x = '\\\\' RETURN n", 1),
    ('MATCH (n) WHERE n.x = "say \\"(m)\\"" RETURN n', 1),
    ("MATCH (n) WHERE n.name =~ '(?i).*alice.*' RETURN n", 1),
    ("UNWIND range(1, 10) AS i MATCH (n {i: i}) RETURN n", 1),
    ("MATCH (n) RETURN CASE WHEN (n)-->() THEN 1 ELSE 0 END", 3),
    ("MATCH (n) RETURN any(x IN [(n)-->(m) | m] WHERE x.a = 1)", 3),
    ("MATCH (n:Entity)\nWHERE n.name STARTS WITH 'a'\nRETURN n ORDER BY n.name DESC LIMIT 5;", 1),
]


@pytest.mark.parametrize(("query", "nodes"), SCOPED)
def test_every_node_pattern_gets_the_label(query: str, nodes: int) -> None:
    out = assert_scoped(query)
    assert len(node_patterns(out)) == nodes


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("MATCH (n) RETURN n", "MATCH (n:Scope_3f9a) RETURN n"),
        ("match (n:Entity {a:1}) return n", "match (n:Entity:Scope_3f9a {a:1}) return n"),
        ("MATCH ()-[r]->() RETURN r", "MATCH (:Scope_3f9a)-[r]->(:Scope_3f9a) RETURN r"),
        ("MATCH (n) // ) RETURN 1\n RETURN n", "MATCH (n:Scope_3f9a) RETURN n"),
        ("MATCH (n) /* MATCH (m) */ RETURN n", "MATCH (n:Scope_3f9a) RETURN n"),
        ("RETURN 'it\\'s', \"a\\\"b\", '\\u00e9\\n'", "RETURN 'it\\'s', 'a\"b', 'é\\n'"),
        ("RETURN `odd``name`, `plain`", "RETURN `odd``name`, plain"),
        ("RETURN 1.0, 0, 5-3, -2, 0x1F, .5e3", "RETURN 1.0, 0, 5 - 3, - 2, 0x1F, .5e3"),
        (
            "MATCH (a)-[:R*1..3]->(b) RETURN b",
            "MATCH (a:Scope_3f9a)-[:R *1..3]->(b:Scope_3f9a) RETURN b",
        ),
        ("RETURN 1 AS collect", "RETURN 1 AS `collect`"),
    ],
)
def test_canonical_text(query: str, expected: str) -> None:
    assert scope_cypher(query, LABEL) == expected


def test_comment_cannot_hide_a_pattern() -> None:
    out = assert_scoped("MATCH (n) /* ) RETURN n UNION MATCH (m */ RETURN n")
    assert "/*" not in out and "UNION" not in out


def test_string_cannot_hide_a_pattern() -> None:
    out = assert_scoped("MATCH (n) WHERE n.a = '\\\\' OR (n)--(m {b: '\\''}) RETURN n")
    assert len(node_patterns(out)) == 3


def test_unicode_name_is_backticked() -> None:
    out = assert_scoped("MATCH (n) RETURN n.café, ñ")
    assert "`café`" in out and "`ñ`" in out


def test_every_label_is_added_once_to_each_union_branch() -> None:
    out = assert_scoped("MATCH (a) RETURN a UNION MATCH (b) RETURN b UNION MATCH (c) RETURN c")
    assert out.count("Scope_3f9a") == 3


REFUSED: list[tuple[str, str]] = [
    ("CALL db.labels()", "Procedure refused"),
    ("CALL db.labels() YIELD label RETURN label", "Procedure refused"),
    (
        "MATCH (n) CALL db.index.fulltext.queryNodes('x', 'a') YIELD node RETURN node",
        "Procedure refused",
    ),
    ("CALL { MATCH (n) RETURN n } RETURN n", "Not supported by the scope guard"),
    (
        "MATCH (n) CALL (n) { MATCH (n)-->(m) RETURN m } RETURN m",
        "Not supported by the scope guard",
    ),
    ("RETURN COUNT { MATCH (n) }", "Not supported by the scope guard"),
    ("RETURN COLLECT { MATCH (n) RETURN n }", "Not supported by the scope guard"),
    ("MATCH (n:A|B) RETURN n", "Not supported by the scope guard"),
    ("MATCH (n:!A) RETURN n", "Unreadable query"),
    ("MATCH (n:A&B) RETURN n", "Unreadable query"),
    ("MATCH (n:%) RETURN n", "Not supported by the scope guard"),
    ("MATCH (a)-->{1,3}(b) RETURN b", "Not supported by the scope guard"),
    ("MATCH ((a)-->(b))+ RETURN b", "Not supported by the scope guard"),
    ("MATCH (n WHERE n.x = 1) RETURN n", "Not supported by the scope guard"),
    ("MATCH (n) RETURN n {.name}", "Not supported by the scope guard"),
    ("MATCH (n:Scope_other) RETURN n", "Scope label refused"),
    ("MATCH (n) WHERE n:Scope_other RETURN n", "Scope label refused"),
    ("MATCH (n:`Scope_other`) RETURN n", "Scope label refused"),
    ("MATCH (n:scope_other) RETURN n", "Scope label refused"),
    (f"RETURN '{A200}' =~ '(.*a){{5}}b'", "Regular expression refused"),
    ("MATCH (n) WHERE n.x =~ '(a+)+b' RETURN n", "Regular expression refused"),
    ("MATCH (n) WHERE n.x =~ '(\\\\w)\\\\1' RETURN n", "Regular expression refused"),
    ("MATCH (n) WHERE n.x =~ $pattern RETURN n", "Regular expression refused"),
    ("MATCH (n) WHERE n.x =~ '.*' + n.y RETURN n", "Regular expression refused"),
    (f"MATCH (n) WHERE n.x =~ '{'a' * 300}' RETURN n", "Regular expression refused"),
    ("RETURN reduce(s = 0, x IN range(1, 1000000000) | s + x)", "range() too large"),
    ("RETURN range(1,30000000)", "range() too large"),
    ("RETURN [x IN range(1, 1000) | [y IN range(1, 1000) | y]]", "range() too large"),
    ("RETURN range(1, $n)", "range() refused"),
    ("RETURN range(1, 10, 0)", "range() refused"),
    ("RETURN apoc.text.join(['a'], ',')", "Function refused"),
    ("RETURN graph.byElementId('x')", "Function refused"),
    ("MATCH (n) SET n.x = 1", "Write clause refused"),
    ("CREATE (n)", "Write clause refused"),
    ("MATCH (n) RETURN n; MATCH (m) RETURN m", "Not supported by the scope guard"),
    ("MATCH (n) RETURN 'open", "Unreadable query"),
    ("MATCH (n) WHERE n.x = '\\\\'' RETURN n", "Unreadable query"),
    ("MATCH (n) RETURN `open", "Unreadable query"),
    ("RETURN '\\x41'", "Unreadable query"),
    ("RETURN 017", "Unreadable query"),
    ("MATCH (n) RETURN (n) - 1", "Not supported by the scope guard"),
    ("MATCH (n) RETURN", "Not supported by the scope guard"),
]


@pytest.mark.parametrize(("query", "title"), REFUSED)
def test_refusals(query: str, title: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ToolError) as info:
        scope_cypher(query, LABEL)
    assert info.value.title == title
    assert "\n" not in info.value.detail
    assert capsys.readouterr() == ("", "")  # ANTLR prints nothing


def test_plain_regex_and_small_range_pass() -> None:
    assert_scoped("MATCH (n) WHERE n.name =~ '(?i).*alice.*' RETURN range(1, 10)")


def test_too_long_is_refused_before_parsing() -> None:
    with pytest.raises(ToolError, match="Query too long"):
        scope_cypher("MATCH (n) RETURN n" + " " * 10, LABEL, max_chars=20)
    assert_scoped("MATCH (n) RETURN n")


@pytest.mark.parametrize(
    "query",
    [
        "RETURN " + "(" * 200 + "1" + ")" * 200,
        "RETURN " + "CASE WHEN true THEN " * 150 + "1" + " END" * 150,
        "RETURN " + "[" * 100 + "]" * 100,
    ],
)
def test_deep_nesting_is_refused(query: str) -> None:
    with pytest.raises(ToolError, match="deeply nested"):
        scope_cypher(query, LABEL)


def test_hints_name_the_rewrite() -> None:
    with pytest.raises(ToolError) as info:
        scope_cypher("MATCH (n:Entity|Fact) RETURN n", LABEL)
    assert "n:A OR n:B" in (info.value.suggestion or "")
    with pytest.raises(ToolError) as info:
        scope_cypher("CALL { MATCH (n) RETURN n } RETURN n", LABEL)
    assert "OPTIONAL MATCH" in (info.value.suggestion or "")


def test_bad_label_is_a_programming_error() -> None:
    with pytest.raises(ValueError):
        scope_cypher("MATCH (n) RETURN n", "Scope x`) MATCH (m")


@pytest.mark.parametrize(
    ("pattern", "safe"),
    [
        ("(?i).*alice.*", True),
        ("\\d+-\\d+", True),
        ("(?:abc){3}", True),
        ("(ab)?c", True),
        ("(.*a){5}b", False),
        ("(a+)+", False),
        ("([a-z]+)*", False),
        ("(a|aa)*b", False),
        ("(\\w+)\\1", False),
        (".*.*.*b", False),
        ("a{2000}", False),
        ("(?x)(.*a) {5}", False),
    ],
)
def test_regex_safety(pattern: str, safe: bool) -> None:
    assert (regex_refusal(pattern) is None) == safe


def test_ambiguity_outside_the_tolerated_rules_is_refused() -> None:
    """No ordinary query reaches this path, so the listener is called as ANTLR would."""
    from types import SimpleNamespace

    from apexmem_neo.query.cypher.scope import _Raise

    rules = ["expression", "atom"]
    recognizer = SimpleNamespace(ruleNames=rules)
    dfa = SimpleNamespace(atnStartState=SimpleNamespace(ruleIndex=0))
    with pytest.raises(ToolError, match="Ambiguous query"):
        _Raise().reportAmbiguity(recognizer, dfa, 0, 1, True, None, None)
    dfa.atnStartState.ruleIndex = 1
    _Raise().reportAmbiguity(recognizer, dfa, 0, 1, True, None, None)  # tolerated
