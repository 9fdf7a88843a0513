"""A conservative check that a Java regular expression cannot backtrack for hours.

Neo4j evaluates ``=~`` with ``java.util.regex`` inside one expression, where transaction
termination cannot interrupt it, so a hostile pattern such as ``(.*a){5}b`` keeps a core busy
long after the query's timeout. ``regex_refusal`` accepts only short patterns without the
shapes that backtrack super-linearly: quantified groups that contain a quantifier or an
alternation, backreferences, large counted repetitions, and more than two unbounded
repetitions in a row of the pattern.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

MAX_REGEX_CHARS: Final = 256
MAX_UNBOUNDED: Final = 2
"""Unbounded repetitions (``*``, ``+``, ``{n,}``) per pattern: each one multiplies the
backtracking of a failing match by the subject's length."""
MAX_REPEAT: Final = 1000
"""Largest bound of a counted repetition ``{n,m}``."""
SMALL_REPEAT: Final = 16
"""Counted repetitions up to this bound are cheap; larger ones count as unbounded."""


_COMMENTS_FLAG: Final = re.compile(r"\(\?[a-zA-Z-]*x")


@dataclass
class _Group:
    """What an open group contains so far: a quantifier, an alternation."""

    quantified_inside: bool = False
    alternation: bool = False


@dataclass
class _Scan:
    """The scanner's state: open groups, unbounded repetitions seen, the last atom's kind."""

    groups: list[_Group] = field(default_factory=lambda: [_Group()])
    unbounded: int = 0
    last: str = "none"  # "none", "atom" or "group" (a group just closed)
    closed: _Group | None = None


def regex_refusal(pattern: str) -> str | None:
    """Why ``pattern`` may backtrack catastrophically, or None when it is safe to run."""
    if len(pattern) > MAX_REGEX_CHARS:
        return f"the pattern is longer than {MAX_REGEX_CHARS} characters"
    scan = _Scan()
    i = 0
    while i < len(pattern):
        i, why = _step(pattern, i, scan)
        if why is not None:
            return why
    if scan.unbounded > MAX_UNBOUNDED:
        return f"it repeats without bound more than {MAX_UNBOUNDED} times (*, + or {{n,}})"
    return None


def _step(pattern: str, i: int, scan: _Scan) -> tuple[int, str | None]:
    """Read one element at ``i``; return the next index and a refusal reason, if any."""
    ch = pattern[i]
    if ch == "\\":
        return _escape(pattern, i, scan)
    if ch == "[":
        scan.last = "atom"
        return _skip_class(pattern, i), None
    if ch == "(":
        if _COMMENTS_FLAG.match(pattern, i):
            return i, "it turns on comments mode (?x), which hides what a quantifier repeats"
        scan.groups.append(_Group())
        scan.last = "none"
        return _skip_group_prefix(pattern, i + 1), None
    if ch == ")":
        return i + 1, _close_group(scan)
    if ch == "|":
        scan.groups[-1].alternation = True
        scan.last = "none"
        return i + 1, None
    if ch in "*+?{":
        return _quantifier(pattern, i, scan)
    scan.last = "atom"
    return i + 1, None


def _escape(pattern: str, i: int, scan: _Scan) -> tuple[int, str | None]:
    """A backslash escape: backreferences are refused, ``\\Q...\\E`` is skipped whole."""
    nxt = pattern[i + 1 : i + 2]
    if (nxt.isdigit() and nxt != "0") or nxt == "k":
        return i, "it uses a backreference"
    scan.last = "atom"
    if nxt == "Q":
        end = pattern.find("\\E", i + 2)
        return (len(pattern) if end < 0 else end + 2), None
    if nxt in ("p", "P") and pattern[i + 2 : i + 3] == "{":
        end = pattern.find("}", i)
        return (len(pattern) if end < 0 else end + 1), None
    return i + 2, None


def _skip_class(pattern: str, i: int) -> int:
    """The index after the character class starting at ``i`` (Java classes may nest)."""
    depth = 0
    j = i
    while j < len(pattern):
        ch = pattern[j]
        if ch == "\\":
            j += 2
            continue
        if ch == "[":
            depth += 1
        elif ch == "]" and j > i + 1 + (pattern[i + 1 : i + 2] == "^"):
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return len(pattern)


def _skip_group_prefix(pattern: str, i: int) -> int:
    """Skip ``?:``, ``?=``, ``?<name>``, ``?i`` and the like after an opening parenthesis."""
    if pattern[i : i + 1] != "?":
        return i
    j = i + 1
    if pattern[j : j + 1] == "<" and pattern[j + 1 : j + 2] not in ("=", "!"):
        end = pattern.find(">", j)
        return len(pattern) if end < 0 else end + 1
    while j < len(pattern) and (pattern[j].isalpha() or pattern[j] in "-<=!>"):
        j += 1
    return j + 1 if pattern[j : j + 1] in (":", ")") else j


def _close_group(scan: _Scan) -> str | None:
    """Close the innermost group; its content counts for the enclosing one."""
    if len(scan.groups) < 2:
        return "it has an unbalanced ')'"
    group = scan.groups.pop()
    parent = scan.groups[-1]
    parent.quantified_inside = parent.quantified_inside or group.quantified_inside
    parent.alternation = parent.alternation or group.alternation
    scan.closed = group
    scan.last = "group"
    return None


def _quantifier(pattern: str, i: int, scan: _Scan) -> tuple[int, str | None]:
    """A quantifier after an atom or a group; nested quantifiers are refused."""
    end, low, high = _read_quantifier(pattern, i)
    if end == i:  # a literal '{' that does not start a repetition
        scan.last = "atom"
        return i + 1, None
    if scan.last == "none":
        return end, None  # nothing to repeat: Java rejects it, no backtracking
    if (high if high is not None else low) > MAX_REPEAT:
        return end, f"it repeats more than {MAX_REPEAT} times"
    if scan.last == "group" and scan.closed is not None:
        if scan.closed.quantified_inside:
            return end, "it has a nested quantifier (a repeated group that repeats inside)"
        if scan.closed.alternation and high != 1:
            return end, "it repeats a group with alternatives ('|')"
    if high is None or high > SMALL_REPEAT:
        scan.unbounded += 1
    scan.groups[-1].quantified_inside = True
    scan.last = "none"
    return end, None


def _read_quantifier(pattern: str, i: int) -> tuple[int, int, int | None]:
    """The end index and bounds of the quantifier at ``i`` (end == i when there is none)."""
    ch = pattern[i]
    if ch == "{":
        close = pattern.find("}", i)
        body = pattern[i + 1 : close] if close > 0 else ""
        low_text, comma, high_text = body.partition(",")
        if not low_text.isdigit() or (high_text and not high_text.isdigit()):
            return i, 0, None
        low = int(low_text)
        high = int(high_text) if high_text else (None if comma else low)
        end = close + 1
    else:
        low, high, end = (0, None, i + 1) if ch in "*+" else (0, 1, i + 1)
    if pattern[end : end + 1] in ("?", "+"):
        end += 1  # lazy or possessive: the same worst case for our purpose
    return end, low, high


__all__ = ["MAX_REGEX_CHARS", "MAX_REPEAT", "MAX_UNBOUNDED", "SMALL_REPEAT", "regex_refusal"]
