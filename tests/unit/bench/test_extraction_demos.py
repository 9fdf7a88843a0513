"""Demos of the compact extraction drawn from generated turns, labelled by their truth."""

from __future__ import annotations

from pathlib import Path

from apexmem_neo.llm.extract_compact import ExtractCompact
from apexmem_neo.llm.extract_compact.examples import DEMOS
from apexmem_neo.llm.programs import load_compiled
from benchmarks.construction_quality.demos import KINDS, compile_program, labelled_event, turn_kind
from benchmarks.construction_quality.generator import generate


def test_every_kind_is_found_and_labelled_from_the_truth() -> None:
    conv = generate("tuning").conversations[0]
    kinds = {turn_kind(t) for t in conv.turns}
    assert {"own", "third_party", "denial", "chat"} <= kinds <= set(KINDS)
    for turn in conv.turns:
        event = labelled_event(turn)
        assert [(f.subject, f.value) for f in event.facts] == [
            (ref.owner, ref.value) for ref in turn.asserts
        ]
        assert all(str(f.value) in turn.text for f in event.facts)  # said in its own turn


def test_a_compiled_program_loads_into_a_fresh_extractor(tmp_path: Path) -> None:
    out = tmp_path / "extraction.json"
    count = compile_program(["tuning"], per_kind=1, seed=1, out=out)
    assert count == len(DEMOS) + len(KINDS)
    loaded = load_compiled(ExtractCompact(), out)
    assert len(loaded.predict.demos) == count
    assert compile_program(["tuning"], per_kind=1, seed=1, out=tmp_path / "again.json") == count
    assert out.read_text() == (tmp_path / "again.json").read_text()  # seeded: the same draw
