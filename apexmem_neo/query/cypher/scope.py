"""Confine an agent's read-only Cypher query to one scope's subgraph on a real parse tree.

Every node of scope S carries S's label and no relationship joins two scopes, so a query in
which every node pattern carries that label can reach nothing of another scope, through
variable-length paths neither (their end nodes are labelled). ``scope_cypher`` parses the
query with the openCypher ANTLR grammar (PyPI ``antlr4-cypher``), adds the label to every
node pattern anywhere in the tree (MATCH, pattern predicates and comprehensions, EXISTS { },
shortestPath, UNION branches) and prints the query again from its tokens: Unicode escapes
are decoded first as Neo4j decodes them, comments are dropped, strings, names and numbers
re-rendered in one canonical form, so nothing Neo4j's lexer reads differently from this one
can hide a pattern. The printed text is then read back (parsed again, every node pattern
checked for the label) before it is returned. A syntax error, an ambiguity the
grammar cannot settle, procedure calls, label expressions it cannot compose and expressions
that keep a core busy beyond the timeout's reach are refused with a ``ToolError``. It adds to
``query.cypher.guard.check_cypher``; it does not replace it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from math import prod
from typing import Any, Final

from antlr4 import CommonTokenStream, InputStream, ParserRuleContext, Token
from antlr4.atn.PredictionMode import PredictionMode
from antlr4.error.ErrorListener import ErrorListener
from antlr4.error.Errors import ParseCancellationException
from antlr4.error.ErrorStrategy import BailErrorStrategy
from antlr4.ListTokenSource import ListTokenSource
from antlr4_cypher import CypherLexer, CypherParser

from apexmem_neo.errors import ToolError
from apexmem_neo.query.cypher import tokens as text
from apexmem_neo.query.cypher.escapes import readable_text, require_plain_text
from apexmem_neo.query.cypher.guard import ALLOWED_FUNCTION_NAMESPACES
from apexmem_neo.query.cypher.regex_safety import regex_refusal

MAX_QUERY_CHARS: Final = 8000
MAX_NESTING: Final = 24
"""Brackets deeper than this are refused before parsing (the parser recurses per level)."""
MAX_RANGE_ELEMENTS: Final = 100_000
"""Bound on the product of all ``range()`` lengths of a query (nested ranges multiply)."""
SCOPE_PREFIX: Final = "scope_"
TOLERATED_AMBIGUITY: Final = frozenset({"atom", "functionInvocation"})
"""Rules whose ambiguities are tolerated: a pattern versus arithmetic (``(a)--(b)``), a list
literal versus a comprehension (``[x IN l]``). Whichever reading ANTLR takes, a node pattern
Neo4j could read there touches an arrow, and ``_check_output`` refuses it unlabelled."""
_SUPPORTED: Final = (
    "The scope guard reads MATCH, OPTIONAL MATCH, WHERE, WITH, UNWIND, RETURN, UNION, "
    "pattern predicates and comprehensions, EXISTS { pattern WHERE ... }, list "
    "comprehensions, CASE and function calls."
)
_LABEL_RE: Final = re.compile(r"[A-Za-z][A-Za-z0-9_]*")

_T = CypherLexer
_WRITE_CONTEXTS: Final = (
    CypherParser.CreateStContext,
    CypherParser.MergeStContext,
    CypherParser.DeleteStContext,
    CypherParser.SetStContext,
    CypherParser.RemoveStContext,
)


def scope_cypher(query: str, label: str, *, max_chars: int = MAX_QUERY_CHARS) -> str:
    """Return ``query`` with ``label`` on every node pattern, or raise ``ToolError``."""
    if not _LABEL_RE.fullmatch(label):
        raise ValueError(f"not a plain label: {label!r}")
    if len(query) > max_chars:
        raise ToolError(
            "Query too long",
            f"the query has {len(query)} characters; the limit is {max_chars}.",
            "Split the question into smaller queries.",
        )
    tokens = lex(readable_text(query))
    _check_tokens(tokens)
    tree = parse(tokens)
    marks = _check_tree(tree)
    pieces = _render(tokens, marks, label)
    _check_output(pieces, label)
    printed = text.join(pieces)
    _check_printed(printed, label)
    return printed


def _check_printed(printed: str, label: str) -> None:
    """Read the printed query back as Neo4j will: no escape left to decode, and every node
    pattern of its parse carries ``label`` (a printer fault fails closed, not open)."""
    require_plain_text(printed)
    for ctx in _contexts(parse(lex(printed))):
        if isinstance(ctx, CypherParser.NodePatternContext):
            labels = ctx.nodeLabels()
            names = [text.name_value(n.start) for n in labels.name()] if labels else []
            if label not in names:
                raise ToolError(
                    "Not supported by the scope guard",
                    "the rewritten query has a node pattern without the scope label.",
                    _SUPPORTED,
                )


def lex(query: str) -> list[Token]:
    """The query's tokens without whitespace or comments (EOF included)."""
    lexer = text.ScopeLexer(InputStream(query))
    lexer.removeErrorListeners()
    lexer.addErrorListener(_Raise())
    stream = CommonTokenStream(lexer)
    stream.fill()
    return list(stream.tokens)


def parse(tokens: list[Token]) -> Any:
    """The parse tree of ``lex``'s tokens; syntax errors and real ambiguities raise."""
    parser = CypherParser(CommonTokenStream(ListTokenSource(tokens)))
    parser.removeErrorListeners()
    parser.addErrorListener(_Raise())
    parser._errHandler = BailErrorStrategy()
    parser._interp.predictionMode = PredictionMode.LL_EXACT_AMBIG_DETECTION
    try:
        return parser.script()
    except ParseCancellationException as exc:
        raise _syntax_error(tokens, getattr(exc.args[0], "offendingToken", None)) from None
    except RecursionError:
        raise ToolError(
            "Query too deeply nested",
            "the query nests expressions too deeply for the scope guard.",
            "Flatten it with WITH clauses.",
        ) from None


class _Raise(ErrorListener):  # type: ignore[misc]
    """Turn lexer and parser errors into ``ToolError`` instead of printing them."""

    def syntaxError(  # ANTLR's method name
        self, recognizer: Any, offending: Any, line: int, column: int, msg: str, e: Any
    ) -> None:
        if isinstance(recognizer, CypherLexer):
            raise ToolError(
                "Unreadable query", f"line {line}:{column}: {msg}.", text.lexer_hint(msg)
            )
        raise _syntax_error(text.current_tokens(recognizer), offending, msg)

    def reportAmbiguity(  # ANTLR's method name
        self, recognizer: Any, dfa: Any, start: int, stop: int, *rest: Any
    ) -> None:
        rule = recognizer.ruleNames[dfa.atnStartState.ruleIndex]
        if rule not in TOLERATED_AMBIGUITY:
            raise ToolError(
                "Ambiguous query",
                f"the scope guard can read the query in two ways ({rule}).",
                "Add parentheses or split the expression with WITH.",
            )


def _syntax_error(tokens: list[Token], offending: Any, msg: str = "") -> ToolError:
    """A refusal for a form the grammar does not read, with a rewrite hint when one is known."""
    where = f" at {offending.text!r}" if offending is not None else ""
    hint = text.syntax_hint(tokens)
    return ToolError(
        "Not supported by the scope guard",
        f"the scope guard cannot read this query{where}{': ' + msg if msg else ''}.",
        hint or _SUPPORTED,
    )


def _check_tokens(tokens: list[Token]) -> None:
    """Refusals visible on the tokens alone: nesting, procedure calls, large ranges."""
    depth = 0
    for i, tok in enumerate(tokens):
        depth += (tok.type in text.OPEN) - (tok.type in text.CLOSE)
        if depth > MAX_NESTING:
            raise ToolError(
                "Query too deeply nested",
                f"brackets nest more than {MAX_NESTING} deep.",
                "Flatten it with WITH clauses.",
            )
        if tok.type == _T.CALL and text.is_keyword_use(tokens, i):
            raise text.call_refusal(tokens[i + 1].type if i + 1 < len(tokens) else None)
    budget = prod(_range_length(tokens, i) for i in text.range_calls(tokens))
    if budget > MAX_RANGE_ELEMENTS:
        raise ToolError(
            "range() too large",
            f"range() calls would build {budget} elements in one expression (nested ranges "
            f"multiply); the limit is {MAX_RANGE_ELEMENTS}, and such work cannot be "
            "interrupted by the timeout.",
            "Use a smaller range, or page with SKIP / LIMIT.",
        )


def _range_length(tokens: list[Token], i: int) -> int:
    """The length of the ``range(...)`` call whose name is token i; literals only."""
    args = [text.integer_value(arg) for arg in text.call_arguments(tokens, i)]
    if any(a is None for a in args) or len(args) not in (2, 3):
        raise ToolError(
            "range() refused",
            "range() needs two or three integer literals here (start, end, step), so that "
            "its size is known before it runs.",
            "Write e.g. range(1, 10) or UNWIND a list from a MATCH.",
        )
    start, end, step = [*args, 1][:3]
    assert start is not None and end is not None and step is not None
    if step == 0:
        raise ToolError("range() refused", "range() with step 0 never ends.")
    return max(0, (end - start) // step + 1)


@dataclass
class _Marks:
    """What the rendering needs from the tree: where labels go, which tokens glue."""

    label_after: set[int]
    arrows: set[int]
    range_lits: set[int]


def _check_tree(tree: Any) -> _Marks:
    """Refuse what the tree shows (writes, calls, scope labels, functions, regexes)."""
    marks = _Marks(set(), set(), set())
    for ctx in _contexts(tree):
        if isinstance(ctx, _WRITE_CONTEXTS):
            raise ToolError("Write clause refused", "the scope guard only passes reads.")
        if isinstance(ctx, CypherParser.QueryCallStContext | CypherParser.StandaloneCallContext):
            raise text.call_refusal(None)
        if isinstance(ctx, CypherParser.NodeLabelsContext | CypherParser.RelationshipTypesContext):
            _check_names(ctx)
        elif isinstance(ctx, CypherParser.FunctionInvocationContext):
            _check_function(ctx)
        elif isinstance(ctx, CypherParser.ComparisonExpressionContext):
            _check_regexes(ctx)
        elif isinstance(ctx, CypherParser.NodePatternContext):
            marks.label_after.add(_label_position(ctx))
        elif isinstance(ctx, CypherParser.RelationshipPatternContext):
            marks.arrows.update(c.symbol.tokenIndex for c in ctx.getChildren() if _is_leaf(c))
        elif isinstance(ctx, CypherParser.RangeLitContext):
            marks.range_lits.update(range(ctx.start.tokenIndex, ctx.stop.tokenIndex + 1))
    return marks


def _contexts(tree: Any) -> Iterator[Any]:
    """Every rule context of the tree, without recursion."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ParserRuleContext):
            yield node
            stack.extend(reversed(list(node.getChildren())))


def _is_leaf(node: Any) -> bool:
    return not isinstance(node, ParserRuleContext)


def _check_names(ctx: Any) -> None:
    """Refuse labels and types named like a scope label: the guard adds the only one."""
    for name in ctx.name():
        if text.name_value(name.start).lower().startswith(SCOPE_PREFIX):
            raise ToolError(
                "Scope label refused",
                f"{text.name_value(name.start)} names a scope label; GraphQuery adds the "
                "caller's own scope to every node, and other scopes are out of reach.",
                "Leave scope labels out of the query.",
            )


def _check_function(ctx: Any) -> None:
    """Refuse namespaced functions outside Neo4j's built-in temporal/spatial/vector ones."""
    name = ".".join(text.name_value(s.start) for s in ctx.invocationName().symbol())
    if "." in name and not name.lower().startswith(ALLOWED_FUNCTION_NAMESPACES):
        raise ToolError(
            "Function refused",
            f"{name}() is outside the functions the scope guard passes.",
            "Use built-in functions (toLower, size, date.truncate, ...); the Search tool "
            "covers full-text and vector search.",
        )


def _check_regexes(ctx: Any) -> None:
    """``=~`` only with a short, literal, backtracking-safe pattern on its right."""
    children = list(ctx.getChildren())
    for i, child in enumerate(children):
        if isinstance(child, CypherParser.ComparisonSignsContext) and child.getText() == "=~":
            right = children[i + 1]
            pattern = text.string_literal_value(right)
            why = "its pattern is not a string literal" if pattern is None else None
            why = why or regex_refusal(pattern or "")
            if why is not None:
                raise ToolError(
                    "Regular expression refused",
                    f"=~ is refused because {why}; a backtracking regex cannot be "
                    "interrupted by the timeout.",
                    "Use CONTAINS / STARTS WITH / ENDS WITH on toLower(...), or a simpler "
                    "literal pattern such as '(?i).*alice.*'.",
                )


def _label_position(ctx: Any) -> int:
    """The token after which the scope label goes: after the labels, the variable or '('."""
    anchor = ctx.nodeLabels() or ctx.symbol()
    return int(anchor.stop.tokenIndex if anchor is not None else ctx.start.tokenIndex)


def _render(tokens: list[Token], marks: _Marks, label: str) -> list[text.Piece]:
    """The canonical pieces of the query, with ``:label`` after each marked token."""
    pieces: list[text.Piece] = []
    for tok in tokens:
        if tok.type in (Token.EOF, _T.SP, _T.SEMI):
            continue
        glue = tok.tokenIndex in marks.arrows or (
            tok.tokenIndex in marks.range_lits and tok.type != _T.MULT
        )
        pieces.append(text.piece(tok, glue))
        if tok.tokenIndex in marks.label_after:
            pieces.extend((text.Piece("punct", ":"), text.Piece("label", label)))
    return pieces


def _check_output(pieces: list[text.Piece], label: str) -> None:
    """Refuse a parenthesised name next to an arrow that lacks the label (fail closed).

    Neo4j may read ``(a)--(b)`` as a pattern where ANTLR read arithmetic; every such
    group must therefore carry the label, whichever way the parser took it.
    """
    for start, end in text.node_like_groups(pieces):
        if text.next_to_arrow(pieces, start, end) and not any(
            p.kind == "label" and p.text == label for p in pieces[start:end]
        ):
            raise ToolError(
                "Not supported by the scope guard",
                "a parenthesised value stands next to '-', '<' or '>' outside a pattern.",
                "Write (x) - 1 as x - 1, or put the pattern in MATCH.",
            )


__all__ = ["MAX_QUERY_CHARS", "MAX_RANGE_ELEMENTS", "lex", "parse", "scope_cypher"]
