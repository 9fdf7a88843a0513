"""The static Cypher guard: one statement, no write or admin clauses, allow-listed procedures.

``check_cypher`` reads the query as Neo4j does: Unicode escapes decoded first (``escapes``),
then tokenised (comments, strings and backtick names are understood, so a comment cannot
hide a clause and a string cannot fake one). It refuses writing clauses,
LOAD CSV, ``IN TRANSACTIONS``, commands (SHOW, TERMINATE, ...), query prefixes (EXPLAIN,
PROFILE, CYPHER, USE), several statements, any procedure outside ``ALLOWED_PROCEDURES`` and
any namespaced function outside ``ALLOWED_FUNCTION_NAMESPACES``, and returns the text it
checked with comments blanked out: that text, not the caller's, is what runs. It is the
first of three locks: the Neo4j backend then requires the EXPLAIN plan's query type to be
"r" and runs the query in a READ transaction with a timeout.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from apexmem_neo.errors import ToolError
from apexmem_neo.query.cypher.escapes import readable_text

ALLOWED_PROCEDURES: Final = frozenset(
    {
        "db.index.vector.queryNodes",
        "db.index.vector.queryRelationships",
        "db.index.fulltext.queryNodes",
        "db.index.fulltext.queryRelationships",
        "db.labels",
        "db.relationshipTypes",
        "db.propertyKeys",
        "db.schema.visualization",
        "db.schema.nodeTypeProperties",
        "db.schema.relTypeProperties",
    }
)
"""Read-only procedures GraphQuery may CALL (compared case-insensitively)."""

FORBIDDEN_WORDS: Final[dict[str, str]] = {
    "CREATE": "writes",
    "MERGE": "writes",
    "SET": "writes",
    "DELETE": "writes",
    "DETACH": "writes",
    "REMOVE": "writes",
    "DROP": "changes the schema",
    "FOREACH": "exists to write",
    "INSERT": "writes",
    "LOAD": "reads files or URLs (LOAD CSV)",
    "TRANSACTIONS": "commits batches (IN TRANSACTIONS)",
    "ALTER": "administers the database",
    "GRANT": "administers the database",
    "DENY": "administers the database",
    "REVOKE": "administers the database",
    "TERMINATE": "administers the database",
    "DEALLOCATE": "administers the database",
    "REALLOCATE": "administers the database",
    "SHOW": "is an admin command (use SchemaViewer for the schema)",
    "USE": "switches database",
    "EXPLAIN": "is added by GraphQuery itself",
    "PROFILE": "executes and profiles the query",
    "CYPHER": "sets planner options",
}
"""Bare words (case-insensitive) that a read-only query never needs, and why they are refused."""
NAMEABLE_WORDS: Final = frozenset({"SET", "LOAD", "USE"})
EXPRESSION_WORDS: Final = frozenset(
    {"AS", "IS", "IN", "AND", "OR", "XOR", "CONTAINS", "STARTS", "ENDS", "ASC", "DESC",
     "ASCENDING", "DESCENDING", "ORDER", "SKIP", "LIMIT", "RETURN", "WITH", "WHERE", "UNION"}
)  # fmt: skip
"""Clause words a query may also use as a variable name (``AS set``, ``(load:Entity)``);
as variables the query declared they are names, elsewhere they are refused."""

ALLOWED_FUNCTION_NAMESPACES: Final = (
    "date.", "datetime.", "localdatetime.", "localtime.", "time.", "duration.", "point.",
    "vector.similarity.",
)  # fmt: skip
"""Namespaced functions allowed: Neo4j's built-in temporal, spatial and vector ones. Other
namespaces (db., dbms., graph., apoc., gds.) can reach nodes by id, run other queries, touch
files or administer."""

_TOKEN: Final = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<comment>//[^\n\r]*|/\*.*?\*/)
  | (?P<open_comment>/\*)
  | (?P<string>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
  | (?P<name>`(?:[^`]|``)*`)
  | (?P<word>[^\W\d]\w*)
  | (?P<number>\d[\w.]*)
  | (?P<punct>.)
    """,
    re.VERBOSE | re.DOTALL,
)


@dataclass(frozen=True)
class Token:
    kind: str
    text: str

    @property
    def upper(self) -> str:
        return self.text.upper()


def tokens(query: str) -> list[Token]:
    """The tokens of an already decoded query without whitespace and comments; unterminated
    quotes and backslashes in names or between tokens are refused."""
    return [t for t in _lex(query) if t.kind not in ("space", "comment")]


def _lex(query: str) -> list[Token]:
    out: list[Token] = []
    for match in _TOKEN.finditer(query):
        kind = match.lastgroup or "punct"
        text = match.group()
        if kind == "open_comment":
            raise ToolError("Unterminated comment", "a /* comment is never closed.")
        if kind == "punct" and text in "'\"`":
            raise ToolError("Unterminated quote", f"a {text} quote is never closed.")
        if (kind == "name" or kind == "punct") and "\\" in text:
            raise ToolError(
                "Backslash refused",
                "a backslash may stand only inside a string; names (labels, properties, "
                "aliases) and the text between tokens cannot hold one.",
                "Rename the alias or property without the backslash.",
            )
        out.append(Token(kind, text))
    return out


def without_comments(query: str) -> str:
    """The decoded query with its comments blanked out (line breaks kept), so the text that
    runs holds nothing the guard skipped over."""
    parts = []
    for tok in _lex(query):
        if tok.kind == "comment":
            parts.append("".join(ch if ch == "\n" else " " for ch in tok.text))
        else:
            parts.append(tok.text)
    return "".join(parts)


def check_cypher(query: str) -> str:
    """Refuse writes, admin commands, unlisted procedures and functions; return the single
    statement as it will run (escapes decoded, comments blanked)."""
    query = without_comments(readable_text(query))
    toks = tokens(query)
    while toks and toks[-1].text == ";":
        toks.pop()
    if not toks:
        raise ToolError("Empty query", "the query text is empty.")
    if any(t.kind == "punct" and t.text == ";" for t in toks):
        raise ToolError(
            "Multiple statements", "send exactly one Cypher statement per call (no ';')."
        )
    declared = _declared_names(toks)
    for i, tok in enumerate(toks):
        if _starts_function_call(toks, i):
            _check_function(_dotted_name(toks, i)[0])
        if tok.kind != "word" or _is_name_position(toks, i):
            continue
        if tok.upper in NAMEABLE_WORDS and _is_variable(toks, i, declared):
            continue  # a variable the query named set / load / use, not the clause
        why = FORBIDDEN_WORDS.get(tok.upper)
        if why is not None:
            raise ToolError(
                "Write or admin clause refused",
                f"{tok.upper} {why}; GraphQuery only reads (MATCH, OPTIONAL MATCH, WITH, "
                "WHERE, RETURN, UNWIND, CALL { ... } subqueries, allow-listed procedures).",
            )
        if tok.upper == "CALL":
            _check_call(toks, i)
    return query.strip().rstrip(";").strip()


def _is_name_position(toks: list[Token], i: int) -> bool:
    """A property key (n.set), label (:Set), parameter ($set), map key ({set: 1}) or alias
    (AS set)."""
    before = toks[i - 1].text if i > 0 else ""
    after = toks[i + 1].text if i + 1 < len(toks) else ""
    return before in (".", ":", "$") or before.upper() == "AS" or after == ":"


def _is_variable(toks: list[Token], i: int, declared: set[str]) -> bool:
    """Token i is a declared variable: a clause word is followed by a name (SET n.x, LOAD
    CSV, USE db), a variable by punctuation or an operator word (set IS NULL, use AS u)."""
    nxt = toks[i + 1] if i + 1 < len(toks) else None
    followed_by_name = nxt is not None and nxt.kind in ("word", "name")
    operator = nxt is not None and nxt.upper in EXPRESSION_WORDS
    return toks[i].text.lower() in declared and (not followed_by_name or operator)


def _declared_names(toks: list[Token]) -> set[str]:
    """Variables the query declares: aliases (AS x) and node or relationship variables
    (``(x``, ``[x``)."""
    names = set()
    for i, tok in enumerate(toks[1:], start=1):
        before = toks[i - 1].text
        if tok.kind == "word" and (before.upper() == "AS" or before in ("(", "[")):
            names.add(tok.text.lower())
    return names


def _dotted_name(toks: list[Token], i: int) -> tuple[str, int]:
    """The name ``a.b.c`` starting at token i (backticks removed) and the index after it."""
    parts = [_unquote(toks[i])]
    j = i + 1
    while j + 1 < len(toks) and toks[j].text == "." and toks[j + 1].kind in ("word", "name"):
        parts.append(_unquote(toks[j + 1]))
        j += 2
    return ".".join(parts), j


def _unquote(tok: Token) -> str:
    return tok.text[1:-1].replace("``", "`") if tok.kind == "name" else tok.text


def _check_call(toks: list[Token], i: int) -> None:
    if i + 1 >= len(toks):
        raise ToolError("Incomplete CALL", "CALL needs a procedure name or a { subquery }.")
    nxt = toks[i + 1]
    if nxt.text in ("{", "("):
        return  # a CALL { ... } / CALL (x) { ... } subquery: its clauses are checked too
    if nxt.kind not in ("word", "name"):
        raise ToolError("Malformed CALL", f"unexpected {nxt.text!r} after CALL.")
    name, _ = _dotted_name(toks, i + 1)
    allowed = {p.lower(): p for p in ALLOWED_PROCEDURES}
    if name.lower() not in allowed:
        raise ToolError(
            "Procedure refused",
            f"CALL {name} is not on GraphQuery's allow-list; allowed: "
            f"{', '.join(sorted(ALLOWED_PROCEDURES))}.",
        )


def _starts_function_call(toks: list[Token], i: int) -> bool:
    """Token i begins a namespaced function call ``a.b(`` (plain or backticked parts), not a
    property access (``n.x``), nor the procedure name after CALL."""
    if toks[i].kind not in ("word", "name") or (i and toks[i - 1].text in (".", ":", "$")):
        return False
    if i and toks[i - 1].upper == "CALL":
        return False
    name, j = _dotted_name(toks, i)
    return "." in name and j < len(toks) and toks[j].text == "("


def _check_function(name: str) -> None:
    if not name.lower().startswith(ALLOWED_FUNCTION_NAMESPACES):
        raise ToolError(
            "Function refused",
            f"{name}() is not allowed in GraphQuery: namespaced functions are limited to "
            f"{', '.join(n + '*' for n in ALLOWED_FUNCTION_NAMESPACES)}.",
            "Use built-in functions (toLower, size, date.truncate, ...); the Search tool "
            "covers full-text and vector search.",
        )


__all__ = [
    "ALLOWED_FUNCTION_NAMESPACES",
    "ALLOWED_PROCEDURES",
    "FORBIDDEN_WORDS",
    "check_cypher",
    "tokens",
    "without_comments",
]
