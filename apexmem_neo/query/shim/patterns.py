"""SQL LIKE and GLOB patterns as Java regular expressions without catastrophic backtracking.

A pattern is cut at its ``%`` (LIKE) or ``*`` (GLOB) wildcards into segments of fixed length:
literal characters, ``_`` / ``?`` and GLOB sets ``[...]`` each match exactly one character.
The first segment must match at the start and the last at the end (Cypher's ``=~`` matches
the whole string); each middle segment is placed at its leftmost match after the previous one,
inside an atomic group ``(?>.*?seg)`` the engine never re-enters to try a later place. Leftmost
placement loses no match (it leaves the most room for what follows), and the cost stays near
the string's length times the pattern's, where one plain ``.*`` per wildcard costs the length
to the power of the number of wildcards (``LIKE '%_%_%_%_%x'`` on a long text).

The semantics are SQLite's: ``_`` / ``?`` is one character, an escape character makes the next
one literal (an escape at the very end matches nothing), and in a GLOB set ``^`` first negates,
``]`` first is literal, ``a-z`` is a range and an unclosed ``[`` matches nothing. Case rules
(LIKE folds ASCII only) come from the flags the caller puts in front.
"""

from __future__ import annotations

from typing import Final

NEVER: Final = "(?!)"
"""A regular expression that matches no string."""
_SPECIAL: Final = r"\.^$|?*+()[]{}"
_CLASS_SPECIAL: Final = "\\[]^-&"

Tokens = list[str | None]
"""One-character regular expressions; ``None`` marks a wildcard (any run of characters)."""


def like_regex(pattern: str, escape: str | None = None) -> str:
    """SQL LIKE (``%``, ``_``, optional escape character) as a Java regular expression."""
    tokens: Tokens = []
    chars = iter(pattern)
    for ch in chars:
        if escape is not None and ch == escape:
            escaped = next(chars, None)
            if escaped is None:
                return NEVER
            tokens.append(_literal(escaped))
        elif ch == "%":
            tokens.append(None)
        else:
            tokens.append("." if ch == "_" else _literal(ch))
    return segmented(tokens)


def glob_regex(pattern: str) -> str:
    """SQLite GLOB (``*``, ``?``, ``[...]``) as a Java regular expression."""
    tokens: Tokens = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "[":
            found = glob_set(pattern, i + 1)
            if found is None:
                return NEVER
            unit, i = found
            tokens.append(unit)
            continue
        tokens.append(None if ch == "*" else "." if ch == "?" else _literal(ch))
        i += 1
    return segmented(tokens)


def glob_set(pattern: str, start: int) -> tuple[str, int] | None:
    """The GLOB set whose body starts at ``start`` (just after ``[``) as a Java character
    class, with the index after its ``]``; None when no ``]`` closes it. Follows SQLite's
    ``patternCompare``: a ``-`` between two characters makes a range (the first character also
    matches alone, so a reversed range ``[z-a]`` still matches "z")."""
    negate = pattern.startswith("^", start)
    i = start + 1 if negate else start
    items: list[str] = []
    if pattern.startswith("]", i):
        items.append(_class_char("]"))
        i += 1
    prior: str | None = None
    while i < len(pattern) and pattern[i] != "]":
        ch = pattern[i]
        if ch == "-" and prior is not None and i + 1 < len(pattern) and pattern[i + 1] != "]":
            end = pattern[i + 1]
            if prior <= end:  # the range replaces its first character
                items[-1] = f"{_class_char(prior)}-{_class_char(end)}"
            prior, i = None, i + 2
            continue
        items.append(_class_char(ch))
        prior, i = ch, i + 1
    if i >= len(pattern):
        return None
    return f"[{'^' if negate else ''}{''.join(items)}]", i + 1


def segmented(tokens: Tokens) -> str:
    """Fixed-length segments between wildcards: the first anchored at the start, the middle
    ones each at its leftmost place in an atomic group, the last anchored at the end."""
    segments = [""]
    for token in tokens:
        if token is None:
            segments.append("")
        else:
            segments[-1] += token
    if len(segments) == 1:
        return segments[0]
    first, *middle, last = segments
    return first + "".join(f"(?>.*?{s})" for s in middle if s) + ".*" + last


def _literal(ch: str) -> str:
    return "\\" + ch if ch in _SPECIAL else ch


def _class_char(ch: str) -> str:
    return "\\" + ch if ch in _CLASS_SPECIAL else ch


__all__ = ["NEVER", "glob_regex", "glob_set", "like_regex", "segmented"]
