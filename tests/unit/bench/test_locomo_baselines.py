"""The full-context baseline's window: the most recent turns that fit, in order."""

from __future__ import annotations

from apexmem_neo.construction.loaders import TurnInput
from benchmarks.locomo.baselines import (
    CHARS_PER_TOKEN,
    PROMPT_RESERVE,
    fit_recent,
    transcript_line,
)


def turns(n: int) -> list[TurnInput]:
    return [
        TurnInput(source_key=f"c:D1:{i}", conversation_id="c", session_seq=1, seq=i,
                  speaker="A", text="x" * 100, anchor="2023-05-08T13:56:00")
        for i in range(n)
    ]  # fmt: skip


def test_transcript_line_names_the_dia_id_and_date() -> None:
    assert transcript_line(turns(1)[0]).startswith("[D1:0] 2023-05-08 A: xxx")


def test_fit_recent_keeps_the_latest_turns_within_budget() -> None:
    many = turns(400)
    line = len(transcript_line(many[0])) + 1
    window = 2000
    kept = fit_recent(many, window)
    assert len(kept) == int((window - PROMPT_RESERVE) * CHARS_PER_TOKEN // line)
    assert kept == many[-len(kept) :]
    assert fit_recent(many[:3], 8192) == many[:3]
