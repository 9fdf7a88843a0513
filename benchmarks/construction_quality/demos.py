"""An extraction program with demos drawn from generated sets (labelled by their truth).

Each generated turn knows what it asserts (an owner's value of a concept) and denies, so it
is a labelled demo of the compact extraction without asking a model: the owner as subject,
the concept's canonical property, the value and the turn's own time words; a turn that only
denies or chats gives no fact. ``compile_program`` draws ``per_kind`` turns of each kind
(the speaker's value, a third party's, one dated by time words, a denial, small talk) from
the named sets with a seeded random choice, appends them to the built-in demos, and saves
the ``ExtractCompact`` program with DSPy's ``save`` for ``PipelineConfig.extraction_program``
(``run --extraction-program``). The sets it draws from become tuning data.

Usage (from the repo root):
    .venv/bin/python -m benchmarks.construction_quality.demos --sets tuning,test,holdout \\
        --per-kind 2 --seed 48 --out benchmarks/results/extraction_program.json
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

import dspy

from apexmem_neo.construction.grounding import find_expression
from apexmem_neo.llm.extract_compact import ExtractCompact
from apexmem_neo.llm.extract_compact.examples import DEMOS
from apexmem_neo.llm.extract_compact.models import CompactEvent, CompactFact
from apexmem_neo.llm.extract_event.examples import turn_demo
from apexmem_neo.llm.extract_event.module import format_anchor, format_context
from benchmarks.construction_quality.generator import SETS, generate
from benchmarks.construction_quality.templates import PROPERTIES
from benchmarks.construction_quality.truth import Conversation, GenTurn

KINDS = ("own", "third_party", "dated", "denial", "chat")
CONTEXT_TURNS = 2
"""Previous turns a demo shows, as the pipeline's default ``context_turns``."""


def turn_kind(turn: GenTurn) -> str:
    """What a generated turn shows: a third party's value, a dated value of the speaker's,
    the speaker's value, a denial, or small talk."""
    if turn.asserts and any(ref.owner != turn.speaker for ref in turn.asserts):
        return "third_party"
    if turn.asserts:
        return "dated" if find_expression(turn.text) else "own"
    return "denial" if turn.denies else "chat"


def labelled_event(turn: GenTurn) -> CompactEvent:
    """The compact event the turn's truth gives: one fact per asserted value."""
    when = find_expression(turn.text)
    facts = [
        CompactFact(subject=ref.owner, property=PROPERTIES[ref.concept], value=ref.value, when=when)
        for ref in turn.asserts
    ]
    kind = turn_kind(turn)
    event = {"denial": "ended", "chat": "remark"}.get(kind, "statement")
    return CompactEvent(event=event, facts=facts)


def demo(conv: Conversation, index: int) -> dspy.Example:
    """The turn at ``index`` as a demo, with the previous turns as its context."""
    turn = conv.turns[index]
    previous = [(t.speaker, t.text) for t in conv.turns[max(0, index - CONTEXT_TURNS) : index]]
    return turn_demo(
        turn.speaker,
        turn.listener or "(none)",
        turn.text,
        format_anchor(turn.timestamp),
        labelled_event(turn),
        format_context(previous) or "(start of conversation)",
    )


def draw(convs: Iterable[Conversation], per_kind: int, seed: int) -> list[dspy.Example]:
    """``per_kind`` demos of each kind, drawn at random (seeded) from the conversations."""
    by_kind: dict[str, list[tuple[Conversation, int]]] = {k: [] for k in KINDS}
    for conv in convs:
        for i, turn in enumerate(conv.turns):
            by_kind[turn_kind(turn)].append((conv, i))
    rng = random.Random(seed)
    chosen = [
        pick
        for kind in KINDS
        for pick in rng.sample(by_kind[kind], min(per_kind, len(by_kind[kind])))
    ]
    return [demo(conv, i) for conv, i in chosen]


def compile_program(sets: Sequence[str], per_kind: int, seed: int, out: Path) -> int:
    """Save ``ExtractCompact`` with the built-in demos and the drawn ones; their count."""
    convs = [conv for name in sets for conv in generate(name).conversations]
    program = ExtractCompact()
    program.predict.demos = [*DEMOS, *draw(convs, per_kind, seed)]
    out.parent.mkdir(parents=True, exist_ok=True)
    program.save(str(out))
    return len(program.predict.demos)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sets", default="tuning", help="comma-separated generated sets to draw from")
    p.add_argument(
        "--per-kind", type=int, default=2, help=f"demos of each kind ({', '.join(KINDS)})"
    )
    p.add_argument("--seed", type=int, default=48)
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    sets = [s for s in args.sets.split(",") if s]
    unknown = [s for s in sets if s not in SETS]
    if unknown:
        p.error(f"unknown set(s) {', '.join(unknown)}; known: {', '.join(SETS)}")
    count = compile_program(sets, args.per_kind, args.seed, args.out)
    print(f"{count} demos ({len(DEMOS)} built in) written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
