"""Tokens in, canonical Cypher text out: the lexing and printing half of ``query.cypher.scope``.

``ScopeLexer`` reads strings, backtick names and numbers as Neo4j does (the grammar's own
rules for them differ: no ``\\u`` escapes, ``0`` and ``1.0`` as names) and ``=~``, which the
grammar lacks, as a comparison sign. ``piece`` re-renders each token from its decoded value,
so the text Neo4j receives holds exactly the tokens that were parsed and checked. The rest
are small token-level helpers: call arguments, refusal hints, the output's node-like groups.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

from antlr4 import Token
from antlr4_cypher import CypherLexer

from apexmem_neo.errors import ToolError

_T = CypherLexer
OPEN: Final = frozenset({_T.LPAREN, _T.LBRACK, _T.LBRACE})
CLOSE: Final = frozenset({_T.RPAREN, _T.RBRACK, _T.RBRACE})
_STRINGS: Final = frozenset({_T.STRING_LITERAL, _T.CHAR_LITERAL})
_KEYWORDS: Final = range(_T.CALL, _T.DROP + 1)
_PUNCT: Final = frozenset(range(_T.ASSIGN, _T.DOLLAR + 1)) - {_T.ESC}
_NAME_KEYWORDS: Final = frozenset(
    {_T.COUNT, _T.FILTER, _T.EXTRACT, _T.ANY, _T.NONE, _T.SINGLE, _T.ALL, _T.EXISTS}
)
"""Keywords the grammar also takes as names (function names among them)."""
NEO4J_ONLY_KEYWORDS: Final = frozenset(
    {"shortest", "collect", "foreach", "load", "use", "finish", "insert", "walk", "trail"}
    | {"acyclic", "paths", "path", "group", "groups", "partitions", "keep", "next"}
)
"""Words Neo4j may read as keywords where this grammar reads a name: printed quoted."""

NUMBER: Final = re.compile(
    r"0x[0-9a-fA-F]+|0o[0-7]+|(?:[0-9]+\.[0-9]+|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
    r"|[0-9]+[eE][-+]?[0-9]+|0|[1-9][0-9]*"
)
_NUMBER_START: Final = re.compile(r"[0-9]|\.[0-9]")
_QUOTED: Final = {
    "'": re.compile(r"'(?:[^'\\]|\\.)*'", re.DOTALL),
    '"': re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL),
    "`": re.compile(r"`(?:[^`]|``)*`", re.DOTALL),
}
_ESCAPE: Final = re.compile(r"\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[\\'\"bfnrt]|.?)", re.DOTALL)
_SIMPLE_ESCAPES: Final = {"\\": "\\", "'": "'", '"': '"', "b": "\b", "f": "\f"} | {
    "n": "\n",
    "r": "\r",
    "t": "\t",
}
_ESCAPE_OUT: Final = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\r": "\\r", "\t": "\\t"} | {
    "\b": "\\b",
    "\f": "\\f",
}
_PLAIN_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class ScopeLexer(CypherLexer):  # type: ignore[misc]
    """The grammar's lexer with Neo4j's strings, names, numbers and ``=~``; no whitespace.

    Whitespace tokens are dropped, except the one the grammar requires after OPTIONAL and
    DETACH, which is supplied whatever the query had there.
    """

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self._space_due = False

    def nextToken(self) -> Any:  # ANTLR's method name
        if self._space_due:
            self._space_due = False
            return self._make(_T.SP, " ", 0)
        while True:
            tok = self._neo4j_token() or super().nextToken()
            if tok.type != _T.SP:
                self._space_due = tok.type in (_T.OPTIONAL, _T.DETACH)
                return tok

    def _neo4j_token(self) -> Any:
        """The token at the current position when Neo4j's rules decide it, else None."""
        data: str = self._input.strdata
        i: int = self._input.index
        if data.startswith("=~", i):
            return self._make(_T.ASSIGN, "=~", 2)
        if data.startswith("-", i) and _NUMBER_START.match(data, i + 1):
            return self._make(_T.SUB, "-", 1)
        quote = data[i : i + 1]
        if quote in _QUOTED:
            return self._quoted(data, i, quote)
        if _NUMBER_START.match(data, i):
            return self._number(data, i)
        return None

    def _quoted(self, data: str, i: int, quote: str) -> Any:
        match = _QUOTED[quote].match(data, i)
        if match is None:
            raise ToolError(
                "Unreadable query", f"a {quote} quote is never closed.", "Close the quote."
            )
        kind = _T.ESC_LITERAL if quote == "`" else _T.STRING_LITERAL
        if kind == _T.STRING_LITERAL:
            string_value(match.group())  # refuses unknown escapes early
        elif "\\" in match.group():
            raise ToolError(
                "Backslash refused",
                "a backslash may stand only inside a string; names (labels, properties, "
                "aliases) cannot hold one.",
                "Rename the alias or property without the backslash.",
            )
        return self._make(kind, match.group(), len(match.group()))

    def _number(self, data: str, i: int) -> Any:
        match = NUMBER.match(data, i)
        end = match.end() if match else i
        if match is None or re.match(r"\w|\.[0-9]", data[end : end + 2]):
            bad = re.match(r"[\w.]+", data[i:])
            raise ToolError("Unreadable query", f"malformed number {bad.group() if bad else ''}.")
        number = match.group()
        integer = number.startswith(("0x", "0o")) or not re.search(r"[.eE]", number)
        return self._make(_T.Integer if integer else _T.DIGIT, number, len(number))

    def _make(self, ttype: int, text: str, length: int) -> Any:
        start, line, column = self._input.index, self.line, self.column
        for _ in range(length):
            self._interp.consume(self._input)
        return self._factory.create(
            self._tokenFactorySourcePair,
            ttype,
            text,
            Token.DEFAULT_CHANNEL,
            start,
            start + length - 1,
            line,
            column,
        )


def string_value(literal: str) -> str:
    """The value of a quoted string literal; escapes Neo4j does not define are refused."""

    def decode(match: re.Match[str]) -> str:
        code = match.group(1)
        if code[:1] in ("u", "U") and len(code) > 1:
            value = int(code[1:], 16)
            if value > 0x10FFFF:
                raise ToolError("Unreadable query", f"\\{code} is not a character.")
            return chr(value)
        if code in _SIMPLE_ESCAPES:
            return _SIMPLE_ESCAPES[code]
        raise ToolError(
            "Unreadable query",
            f"unknown escape \\{code} in a string.",
            "Use \\\\, \\', \\\", \\n, \\t or \\uXXXX.",
        )

    return _ESCAPE.sub(decode, literal[1:-1])


def quote_string(value: str) -> str:
    """``value`` as a single-quoted Cypher string: quotes, backslashes and line breaks
    escaped, every other character as itself (a ``\\uXXXX`` in the output would be decoded
    by Neo4j before reading, so none is written)."""
    return "'" + "".join(_ESCAPE_OUT.get(ch, ch) for ch in value) + "'"


def name_value(tok: Any) -> str:
    """The name a name token stands for (backticks removed)."""
    if tok.type == _T.ESC_LITERAL:
        return str(tok.text[1:-1].replace("``", "`"))
    return str(tok.text)


def quote_name(name: str) -> str:
    """A name as Cypher text: plain when it is a plain ASCII identifier, else backticked."""
    if _PLAIN_NAME.fullmatch(name) and name.lower() not in NEO4J_ONLY_KEYWORDS:
        return name
    return "`" + name.replace("`", "``") + "`"


@dataclass(frozen=True)
class Piece:
    """One rendered token: its kind (name, keyword, num, str, punct, label) and text.

    ``glue`` joins it to both neighbours without a space (pattern arrows, ``*1..3``).
    """

    kind: str
    text: str
    glue: bool = False


def piece(tok: Any, glue: bool) -> Piece:
    """The canonical rendering of one token; a token of unknown type is refused."""
    ttype = tok.type
    if ttype in _STRINGS:
        return Piece("str", quote_string(string_value(tok.text)), glue)
    if ttype in (_T.ESC_LITERAL, _T.ID):
        return Piece("name", quote_name(name_value(tok)), glue)
    if ttype in (_T.Integer, _T.DIGIT) and NUMBER.fullmatch(tok.text):
        return Piece("num", tok.text, glue)
    if ttype in _KEYWORDS and tok.text.isascii() and tok.text.isalpha():
        return Piece("name" if ttype in _NAME_KEYWORDS else "keyword", tok.text, glue)
    if ttype in _PUNCT and (tok.text == _T.literalNames[ttype][1:-1] or tok.text == "=~"):
        return Piece("punct", tok.text, glue)
    raise ToolError("Unreadable query", f"unexpected {tok.text!r} in the query.")


def join(pieces: list[Piece]) -> str:
    """The pieces as one line, a space between two pieces unless they must touch."""
    out: list[str] = []
    for i, cur in enumerate(pieces):
        if i and not _touch(pieces[i - 1], cur):
            out.append(" ")
        out.append(cur.text)
    return "".join(out)


def _touch(prev: Piece, cur: Piece) -> bool:
    """Whether two pieces are printed without a space (never forming a comment or number)."""
    if prev.glue or cur.glue or cur.kind == "label" or ":" in (prev.text, cur.text):
        return True
    if prev.kind == "punct" and prev.text in ("(", "[", "{", "$"):
        return True
    if cur.kind == "punct" and cur.text in (")", "]", "}", ","):
        return True
    if prev.kind == "name" and cur.text == "(":
        return True  # a function call
    return "." in (prev.text, cur.text) and "num" not in (prev.kind, cur.kind)


def node_like_groups(pieces: list[Piece]) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of every ``( [name] [:label ...] [{map} | $param] )`` not a call."""
    for start, p in enumerate(pieces):
        if p.text != "(" or p.kind != "punct":
            continue
        if start and pieces[start - 1].kind == "name":
            continue  # a function call's parentheses
        end = _node_like_end(pieces, start + 1)
        if end is not None:
            yield start, end


def _node_like_end(pieces: list[Piece], j: int) -> int | None:
    """The index after the ``)`` closing a node-like group whose content starts at j."""
    words = ("name", "keyword", "label")
    if j < len(pieces) and pieces[j].kind in ("name", "keyword"):
        j += 1
    while j + 1 < len(pieces) and pieces[j].text == ":" and pieces[j + 1].kind in words:
        j += 2
    if j < len(pieces) and pieces[j].text == "$":
        j += 2
    elif j < len(pieces) and pieces[j].text == "{":
        depth = 0
        while j < len(pieces):
            depth += {"{": 1, "}": -1}.get(pieces[j].text, 0) if pieces[j].kind == "punct" else 0
            j += 1
            if depth == 0:
                break
    ok = j < len(pieces) and pieces[j].text == ")" and pieces[j].kind == "punct"
    return j + 1 if ok else None


def next_to_arrow(pieces: list[Piece], start: int, end: int) -> bool:
    """Whether the group ``pieces[start:end]`` touches a '-', '<' or '>' as a node would."""
    before = pieces[start - 1].text if start else ""
    after = pieces[end].text if end < len(pieces) else ""
    return before in ("-", ">") or after in ("-", "<")


def is_keyword_use(tokens: list[Any], i: int) -> bool:
    """Whether the keyword token i is used as a keyword, not as a key (``n.call``, ``{call:``)."""
    before = tokens[i - 1].type if i else None
    after = tokens[i + 1].type if i + 1 < len(tokens) else None
    return before not in (_T.DOT, _T.DOLLAR) and after != _T.COLON


def call_refusal(next_type: int | None) -> ToolError:
    """The refusal of CALL: a subquery when a brace or parenthesis follows, else a procedure."""
    if next_type in (_T.LBRACE, _T.LPAREN):
        return ToolError(
            "Not supported by the scope guard",
            "CALL { ... } subqueries are not supported by the scope guard.",
            "Rewrite with OPTIONAL MATCH ... WITH ..., collect(...) or a pattern comprehension.",
        )
    return ToolError(
        "Procedure refused",
        "procedure calls are refused in scoped GraphQuery (they read the whole database).",
        "Use MATCH for the graph, SchemaViewer for the schema and the Search tool for "
        "full-text and vector search.",
    )


def range_calls(tokens: list[Any]) -> Iterator[int]:
    """Indexes of the name tokens of ``range(`` calls (not ``x.range(``)."""
    for i, tok in enumerate(tokens[:-1]):
        after_dot = bool(i) and tokens[i - 1].type == _T.DOT
        called = tokens[i + 1].type == _T.LPAREN
        if tok.type == _T.ID and tok.text.lower() == "range" and called and not after_dot:
            yield i


def call_arguments(tokens: list[Any], i: int) -> list[list[Any]]:
    """The argument token lists of the call whose name is token i."""
    args: list[list[Any]] = [[]]
    depth = 0
    for tok in tokens[i + 1 :]:
        depth += (tok.type in OPEN) - (tok.type in CLOSE)
        if depth == 0:
            break
        if depth == 1 and tok.type == _T.COMMA:
            args.append([])
        elif depth > 1 or tok.type != _T.LPAREN:
            args[-1].append(tok)
    return args


def integer_value(arg: list[Any]) -> int | None:
    """The value of an argument that is an integer literal, possibly negative, else None."""
    types = [t.type for t in arg]
    if types == [_T.Integer]:
        return int(arg[0].text, 0)
    if types == [_T.SUB, _T.Integer]:
        return -int(arg[1].text, 0)
    return None


def string_literal_value(ctx: Any) -> str | None:
    """The value of an expression that is exactly one string literal, else None."""
    if ctx.start is ctx.stop and ctx.start.type in _STRINGS:
        return string_value(ctx.start.text)
    return None


def current_tokens(parser: Any) -> list[Any]:
    return list(parser.getTokenStream().tokens)


def lexer_hint(msg: str) -> str:
    """A rewrite hint for a character the lexer does not read."""
    if any(ch in msg for ch in "!&|%"):
        return "Label expressions (!, &, |, %) are not supported: write WHERE n:A OR n:B."
    return "Remove the character: the scope guard reads plain Cypher operators only."


_HINTS: Final[list[tuple[tuple[tuple[int | str, ...], ...], str]]] = [
    (
        ((_T.COUNT, "collect"), (_T.LBRACE,)),
        "COUNT { } and COLLECT { } are not supported by the scope guard: use "
        "size([(a)-->(b) | b]) or OPTIONAL MATCH ... WITH count(b) / collect(b).",
    ),
    (
        ((_T.EXISTS,), (_T.LBRACE,), (_T.MATCH, _T.OPTIONAL)),
        "Write EXISTS { (a)-->(b) WHERE ... } (a pattern without MATCH), or add a RETURN.",
    ),
    (
        ((_T.RPAREN, _T.SUB, _T.GT), (_T.LBRACE,), (_T.Integer,)),
        "Quantified path patterns are not supported by the scope guard: use a "
        "variable-length relationship such as -[:NEXT*1..3]->.",
    ),
    (
        ((_T.RPAREN,), (_T.PLUS, _T.MULT), (_T.SUB, _T.LT, _T.RPAREN, _T.LPAREN)),
        "Quantified path patterns are not supported by the scope guard: use a "
        "variable-length relationship such as -[:NEXT*1..3]->.",
    ),
    (
        ((_T.ID, _T.ESC_LITERAL), (_T.LBRACE,), (_T.DOT,)),
        "Map projections are not supported by the scope guard: return n.x AS x, ... or "
        "properties(n).",
    ),
    (
        (("reduce",), (_T.LPAREN,)),
        "reduce() is not supported by the scope guard: UNWIND the list and aggregate with "
        "sum() or collect().",
    ),
    (
        ((_T.COLON,), (_T.ID, _T.ESC_LITERAL), (_T.STICK,)),
        "Label disjunctions are not supported in node patterns: write WHERE n:A OR n:B.",
    ),
    (
        (("shortest",),),
        "Path selectors are not supported by the scope guard: use shortestPath((a)-[*]-(b)).",
    ),
    (
        ((_T.LPAREN,), (_T.ID,), (_T.WHERE, _T.IS)),
        "Write the label as (n:Label) and the condition in a WHERE after the pattern.",
    ),
]
"""Token shapes of forms the grammar lacks, each with the rewrite to suggest."""


def syntax_hint(tokens: list[Any]) -> str | None:
    """The rewrite hint of the first known unsupported form in the tokens, if any."""
    for shape, hint in _HINTS:
        for i in range(len(tokens) - len(shape) + 1):
            if all(_fits(tokens[i + k], alts) for k, alts in enumerate(shape)):
                return hint
    return None


def _fits(tok: Any, alts: tuple[int | str, ...]) -> bool:
    return any(tok.type == a if isinstance(a, int) else tok.text.lower() == a for a in alts)


__all__ = [
    "Piece",
    "ScopeLexer",
    "join",
    "name_value",
    "node_like_groups",
    "piece",
    "quote_name",
    "quote_string",
    "string_value",
]
