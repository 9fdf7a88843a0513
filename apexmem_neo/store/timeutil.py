"""Time helpers shared by every store backend.

All times are strings in ``YYYY-MM-DDTHH:MM:SS`` (UTC, second resolution): see
``apexmem_neo.ontology.types.normalize_time``. String order is time order.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TypeAlias

from apexmem_neo.ontology.types import TimeLike, normalize_time, parse_time

Clock: TypeAlias = Callable[[], datetime]
"""Returns "now"; stores use it to stamp ``recorded_at`` on rows that do not carry one."""

RESOLUTION = timedelta(seconds=1)

__all__ = [
    "RESOLUTION",
    "Clock",
    "TimeLike",
    "is_time",
    "just_after",
    "just_before",
    "normalize_time",
    "parse_time",
    "utc_now",
]


def utc_now() -> datetime:
    return datetime.now(UTC)


def just_before(t: str) -> str | None:
    """The instant one resolution step (1 s) before ``t``; None before the first instant."""
    try:
        return (parse_time(t) - RESOLUTION).isoformat(timespec="seconds")
    except OverflowError:
        return None


def just_after(t: str) -> str:
    """The instant one resolution step (1 s) after ``t``."""
    return (parse_time(t) + RESOLUTION).isoformat(timespec="seconds")


def is_time(value: object) -> bool:
    """True if ``value`` normalises as a time (used to tell times from event ids)."""
    try:
        normalize_time(value)
    except ValueError:
        return False
    return True
