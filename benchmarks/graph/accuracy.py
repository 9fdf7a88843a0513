"""Append-only vs eager overwrite: accuracy per temporal question type.

Ground truth is computed here, in plain Python, from the generated facts (the world as the
generator made it); both memory modes answer through the store's query API.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable
from datetime import datetime, timedelta
from itertools import pairwise
from typing import Any, Protocol

from rich.table import Table

from apexmem_neo.ontology import Fact
from apexmem_neo.ontology.types import TimeLike
from apexmem_neo.store import ChangeRecord, FactRecord, GraphStore
from apexmem_neo.store.eager import EagerOverwriteStore

QUESTION_TYPES = (
    "current",
    "as_of",
    "when_changed",
    "before_event",
    "count_changes",
    "duration_between_changes",
)


class Answers(Protocol):
    def current(
        self, entity_id: str, property: str, now: TimeLike | None = None
    ) -> FactRecord | None: ...

    def as_of(self, entity_id: str, property: str, t: TimeLike) -> FactRecord | None: ...

    def changes(self, entity_id: str, property: str) -> list[ChangeRecord]: ...

    def before(self, entity_id: str, property: str, reference: TimeLike) -> FactRecord | None: ...


def _k(f: Fact) -> tuple[str, str, str]:
    return (f.t_from, f.recorded_at or "", f.fact_id)


def _holding(facts: list[Fact], t: str) -> Any:
    held = [f for f in facts if f.t_from <= t and (f.t_to is None or t <= f.t_to)]
    return held[-1].value if held else None


def _change_times(facts: list[Fact]) -> list[str]:
    return [new.t_from for old, new in pairwise(facts) if old.value != new.value]


def _seconds(a: str, b: str) -> float:
    return (datetime.fromisoformat(b) - datetime.fromisoformat(a)).total_seconds()


def questions(facts: list[Fact], rng: random.Random, n_pairs: int = 300) -> list[dict[str, Any]]:
    """Questions with their true answers, on pairs that have at least three facts."""
    by_pair: dict[tuple[str, str], dict[str, Fact]] = defaultdict(dict)
    for f in facts:
        by_pair[(f.entity_id, f.property)].setdefault(f.fact_id, f)
    pairs = sorted(k for k, v in by_pair.items() if len(v) >= 3)
    out = []
    for e, p in rng.sample(pairs, k=min(n_pairs, len(pairs))):
        timeline = sorted(by_pair[(e, p)].values(), key=_k)
        changes = _change_times(timeline)
        probe = rng.choice(timeline)
        t = (datetime.fromisoformat(probe.t_from) + timedelta(hours=rng.randint(0, 72))).isoformat()
        target = rng.choice(timeline[1:])
        just_before = (datetime.fromisoformat(target.t_from) - timedelta(seconds=1)).isoformat()
        truth = {
            "current": timeline[-1].value,
            "as_of": _holding(timeline, t),
            "when_changed": changes[-1] if changes else None,
            "before_event": _holding(timeline, just_before),
            "count_changes": len(changes),
            "duration_between_changes": _seconds(changes[-2], changes[-1])
            if len(changes) >= 2
            else None,
        }
        out.append({"e": e, "p": p, "t": t, "event": target.event_id, "truth": truth})
    return out


def answer(mem: Answers, q: dict[str, Any]) -> dict[str, Any]:
    e, p = q["e"], q["p"]
    changes = mem.changes(e, p)

    def value(record: FactRecord | None) -> Any:
        return None if record is None else record.value

    return {
        "current": value(mem.current(e, p)),
        "as_of": value(mem.as_of(e, p, q["t"])),
        "when_changed": changes[-1].changed_at if changes else None,
        "before_event": value(mem.before(e, p, q["event"])),
        "count_changes": len(changes),
        "duration_between_changes": _seconds(changes[-2].changed_at, changes[-1].changed_at)
        if len(changes) >= 2
        else None,
    }


def score(store: GraphStore, facts: list[Fact], rng: random.Random) -> dict[str, Any]:
    """Per mode and question type: the fraction answered exactly."""
    qs = questions(facts, rng)
    modes: dict[str, Callable[[], Answers]] = {
        "append_only": lambda: store,
        "eager_overwrite": lambda: EagerOverwriteStore(store),
    }
    result: dict[str, Any] = {"questions": len(qs)}
    for mode, make in modes.items():
        mem = make()
        right = dict.fromkeys(QUESTION_TYPES, 0)
        for q in qs:
            got = answer(mem, q)
            for kind in QUESTION_TYPES:
                right[kind] += got[kind] == q["truth"][kind]
        result[mode] = {kind: round(right[kind] / max(len(qs), 1), 4) for kind in QUESTION_TYPES}
    return result


def table(acc: dict[str, Any], size: int) -> Table:
    t = Table(title=f"accuracy on {acc['questions']} question sets ({size:,} facts)")
    t.add_column("question type")
    t.add_column("append-only", justify="right")
    t.add_column("eager overwrite", justify="right")
    for kind in QUESTION_TYPES:
        t.add_row(kind, f"{acc['append_only'][kind]:.1%}", f"{acc['eager_overwrite'][kind]:.1%}")
    return t
