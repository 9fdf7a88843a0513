"""SQLite's date and time functions as Cypher temporal expressions (part of the SQL shim).

Times are stored as text ``YYYY-MM-DDTHH:MM:SS`` (or ``YYYY-MM-DD``), which Cypher's
``localdatetime()`` parses. Each SQLite function returns what SQLite returns:

* ``date(t, mods...)`` -> ``'YYYY-MM-DD'``; ``datetime(...)`` -> ``'YYYY-MM-DD HH:MM:SS'``;
  ``time(...)`` -> ``'HH:MM:SS'``;
* ``julianday(t)`` -> a float, computed as SQLite does (integer milliseconds since the
  Julian epoch / 86400000.0), so differences of julianday() agree to the last bit;
* ``unixepoch(t)`` -> integer seconds; ``strftime(fmt, t, mods...)`` for %Y %m %d %H %M %S
  %f %j %w %s %%.

Modifiers: ``'+N days'`` / hours / minutes / seconds / months / years (also with ``-``),
``'start of day'`` / month / year. Other modifiers are refused with a ``ToolError``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Final

from apexmem_neo.errors import ToolError
from apexmem_neo.query.cypher.quoting import string

NOW: Final = "localdatetime({timezone: 'UTC'})"
EPOCH: Final = "localdatetime('1970-01-01T00:00:00')"
JULIAN_EPOCH_MS: Final = 210866760000000
"""Milliseconds from the Julian day epoch to 1970-01-01T00:00:00 (2440587.5 days)."""

_SHIFT: Final = re.compile(
    r"^\s*([+-]?\s*\d+(?:\.\d+)?)\s+(day|hour|minute|second|month|year)s?\s*$", re.I
)
_START: Final = re.compile(r"^\s*start\s+of\s+(day|month|year)\s*$", re.I)
_TWO: Final = "right('0' + toString({v}.{f}), 2)"
STRFTIME_CODES: Final[dict[str, str]] = {
    "Y": "right('000' + toString({v}.year), 4)",
    "m": _TWO.replace("{f}", "month"),
    "d": _TWO.replace("{f}", "day"),
    "H": _TWO.replace("{f}", "hour"),
    "M": _TWO.replace("{f}", "minute"),
    "S": _TWO.replace("{f}", "second"),
    "f": _TWO.replace("{f}", "second") + " + '.' + right('00' + toString({v}.millisecond), 3)",
    "j": "right('00' + toString({v}.ordinalDay), 3)",
    "w": "toString({v}.dayOfWeek % 7)",
    "s": "toString(duration.inSeconds(" + EPOCH + ", {v}).seconds)",
}
INTEGER_CODES: Final = frozenset("YmdHMSjws")

Fresh = Callable[[str], str]
"""Returns an unused Cypher variable name derived from its argument."""


def time_value(arg: str, modifiers: Sequence[str]) -> str:
    """A Cypher localdatetime for SQLite's (time value, modifiers...)."""
    value = NOW if arg == string("now") else f"localdatetime({arg})"
    for modifier in modifiers:
        value = _apply(value, modifier)
    return value


def _apply(value: str, modifier: str) -> str:
    shift = _SHIFT.match(modifier)
    if shift:
        amount = shift.group(1).replace(" ", "").lstrip("+")
        unit = shift.group(2).lower() + "s"
        return f"({value} + duration({{{unit}: {amount}}}))"
    start = _START.match(modifier)
    if start:
        return f"localdatetime.truncate('{start.group(1).lower()}', {value})"
    raise ToolError(
        "Unsupported date modifier",
        f"the modifier {modifier!r} has no Cypher form in the shim; supported: '+N days' "
        "(hours, minutes, seconds, months, years; also '-N ...') and 'start of day|month|year'.",
        "localdatetime(x) + duration({days: 7}), localdatetime.truncate('month', x)",
    )


def bind(fresh: Fresh, value: str, body: str) -> str:
    """Evaluate ``value`` once and use it as ``{v}`` in ``body`` (a one-element comprehension)."""
    v = fresh("_t")
    return f"[{v} IN [{value}] | {body.replace('{v}', v)}][0]"


def date_text(fresh: Fresh, value: str) -> str:
    return f"toString(date({value}))"


def time_text(fresh: Fresh, value: str) -> str:
    body = " + ':' + ".join(STRFTIME_CODES[c] for c in "HMS")
    return bind(fresh, value, body)


def datetime_text(fresh: Fresh, value: str) -> str:
    body = "toString(date({v})) + ' ' + " + " + ':' + ".join(STRFTIME_CODES[c] for c in "HMS")
    return bind(fresh, value, body)


def julianday(fresh: Fresh, value: str) -> str:
    seconds = f"duration.inSeconds({EPOCH}, {value}).seconds"
    return f"(({seconds}) * 1000 + {JULIAN_EPOCH_MS}) / 86400000.0"


def unixepoch(fresh: Fresh, value: str) -> str:
    return f"duration.inSeconds({EPOCH}, {value}).seconds"


def strftime(fresh: Fresh, fmt: str, value: str) -> str:
    """SQLite's strftime(fmt, value) as a Cypher string expression."""
    parts: list[str] = []
    literal = ""
    i = 0
    while i < len(fmt):
        ch = fmt[i]
        if ch != "%":
            literal += ch
            i += 1
            continue
        code = fmt[i + 1] if i + 1 < len(fmt) else ""
        i += 2
        if code == "%":
            literal += "%"
            continue
        if code not in STRFTIME_CODES:
            raise ToolError(
                "Unsupported strftime code",
                f"%{code} has no Cypher form in the shim; supported: "
                + " ".join("%" + c for c in STRFTIME_CODES)
                + " %%.",
                "localdatetime(x).week, localdatetime(x).quarter, localdatetime(x).dayOfWeek",
            )
        if literal:
            parts.append(string(literal))
            literal = ""
        parts.append(STRFTIME_CODES[code])
    if literal or not parts:
        parts.append(string(literal))
    return bind(fresh, value, " + ".join(parts))


def strftime_is_integer(fmt: str) -> bool:
    """True when ``strftime(fmt, ...)`` yields only digits (so arithmetic may use toInteger)."""
    codes = re.findall(r"%(.)", fmt)
    stripped = re.sub(r"%.", "", fmt)
    return bool(codes) and not stripped and set(codes) <= INTEGER_CODES
