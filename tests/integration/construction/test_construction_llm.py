"""The construction pipeline through the local LLM on a handful of real LOCOMO turns.

Kept to a few turns: the local model generates ~29 tokens/s on one request at a time.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from apexmem_neo.construction.checkpoint import Checkpoint
from apexmem_neo.construction.loaders import TurnInput, load_locomo
from apexmem_neo.construction.pipeline import ConstructionPipeline, PipelineConfig, RunStats
from apexmem_neo.llm import make_lm
from apexmem_neo.ontology import Fact, GraphBatch
from apexmem_neo.ontology.ids import entity_id
from apexmem_neo.store.sqlite import SQLiteGraphStore
from tests.unit.construction.conftest import turn

pytestmark = [pytest.mark.integration, pytest.mark.llm]

LOCOMO = Path(__file__).resolve().parents[4] / "shared" / "data" / "locomo" / "locomo_dev5.json"
TURN_KEYS = ("conv-26:D1:3", "conv-26:D1:14")  # "...support group yesterday...", "...last year"
MODEL = "openai/qwen2.5-coder-1.5b-instruct"


class Built:
    def __init__(self, path: Path, lm_api_base: str) -> None:
        self.store, self.checkpoint = SQLiteGraphStore(path), Checkpoint(path)
        self.store.init_schema()
        self.checkpoint.open()
        self.lm = make_lm(MODEL, lm_api_base, "local", max_tokens=800)

    def ingest(self, turns: list[TurnInput], config: PipelineConfig | None = None) -> RunStats:
        return ConstructionPipeline(self.store, self.checkpoint, self.lm, config).ingest(turns)

    def close(self) -> None:
        self.checkpoint.close()
        self.store.close()


@pytest.fixture(scope="module")
def locomo_turns() -> list[TurnInput]:
    if not LOCOMO.is_file():
        pytest.skip(f"LOCOMO data not found at {LOCOMO}")
    turns = load_locomo(LOCOMO, ["conv-26"], max_sessions=1)
    return [t for t in turns if t.source_key in TURN_KEYS]


@pytest.fixture(scope="module")
def built(
    lm_api_base: str, locomo_turns: list[TurnInput], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Built, RunStats]]:
    graph = Built(tmp_path_factory.mktemp("locomo") / "graph.sqlite", lm_api_base)
    stats = graph.ingest(locomo_turns)
    yield graph, stats
    graph.close()


def test_turns_are_built_within_the_call_budget(built: tuple[Built, RunStats]) -> None:
    graph, stats = built
    assert stats.turns_done + stats.turns_failed == len(TURN_KEYS)
    assert stats.turns_failed == 0, graph.checkpoint.failed()
    assert stats.facts >= 1
    assert stats.calls_per_turn() <= 3.0  # one extraction each, plus rare resolutions/retries
    assert stats.tokens > 0 and stats.llm["extract"]["calls"] >= len(TURN_KEYS)


def test_outputs_validate_against_the_ontology(built: tuple[Built, RunStats]) -> None:
    graph, _ = built
    conn = graph.store.connection
    for row in conn.execute("SELECT entity_id, property FROM facts"):
        for record in graph.store.history(row[0], row[1]):
            Fact(
                entity_id=record.entity_id,
                property=record.property,
                dtype=record.dtype,
                value=record.value,
                t_from=record.t_from,
                t_to=record.t_to,
                confidence=record.confidence,
                enum_values=(record.value,) if record.dtype.value == "enum" else (),
            )


def test_dates_are_iso_and_consistent_with_the_anchor(
    built: tuple[Built, RunStats], locomo_turns: list[TurnInput]
) -> None:
    graph, _ = built
    rows = graph.store.connection.execute(
        "SELECT f.t_from, t.anchor_datetime, t.text FROM facts f "
        "JOIN evidence e ON e.evidence_id = f.evidence_id JOIN turns t ON t.turn_id = e.turn_id"
    ).fetchall()
    assert rows
    for t_from, anchor, _text in rows:
        moment, base = datetime.fromisoformat(t_from), datetime.fromisoformat(anchor)
        assert base - timedelta(days=3 * 366) <= moment <= base + timedelta(days=1)
    yesterday = [r[0] for r in rows if "yesterday" in r[2]]
    assert yesterday and all(t.startswith("2023-05-07") for t in yesterday)
    last_year = [r[0] for r in rows if "last year" in r[2]]
    assert all(t.startswith("2022-") or t.startswith("2023-05-08") for t in last_year)


def test_evidence_spans_point_into_the_turn_text(built: tuple[Built, RunStats]) -> None:
    graph, _ = built
    rows = graph.store.connection.execute(
        "SELECT e.text, e.span_start, e.span_end, t.text FROM evidence e "
        "JOIN turns t ON t.turn_id = e.turn_id"
    ).fetchall()
    assert rows
    for quote, start, end, text in rows:
        assert text[start:end] == quote


def test_reingest_adds_nothing(
    built: tuple[Built, RunStats], locomo_turns: list[TurnInput]
) -> None:
    graph, _ = built
    before = graph.store.counts()
    again = graph.ingest(locomo_turns)
    assert again.llm_calls == 0 and again.turns_skipped == len(locomo_turns)
    assert graph.store.counts() == before


def test_alice_example_yields_two_coexisting_favourite_restaurant_facts(
    lm_api_base: str, tmp_path: Path
) -> None:
    graph = Built(tmp_path / "alice.sqlite", lm_api_base)
    turns = [
        turn("My favourite restaurant is Italian Garden.", "2024-01-15T19:00:00", 0, 1),
        turn("Sakura Sushi is my favourite restaurant now.", "2024-03-20T19:00:00", 0, 2),
    ]
    stats = graph.ingest(turns)
    assert stats.turns_failed == 0
    alice = entity_id("Person", "Alice", "test")
    props = [
        r[0]
        for r in graph.store.connection.execute(
            "SELECT DISTINCT property FROM facts WHERE entity_id = ?", (alice,)
        )
    ]
    restaurant = [p for p in props if "restaurant" in p]
    assert restaurant, props
    history = graph.store.history(alice, restaurant[0])
    values = {str(f.value).lower(): f.t_from for f in history}
    assert any("italian garden" in v for v in values), values
    assert any("sakura sushi" in v for v in values), values
    assert sorted(values.values()) == ["2024-01-15T19:00:00", "2024-03-20T19:00:00"]
    graph.close()


def test_three_moves_make_one_city_timeline_about_the_speaker(
    lm_api_base: str, tmp_path: Path
) -> None:
    """The extractor once stored these under location/moved_to/moved, the first about Denver."""
    graph = Built(tmp_path / "moves.sqlite", lm_api_base)
    turns = [
        turn("I live in Denver, in a small flat downtown.", "2024-01-11T10:00:00", 0, 1),
        turn(
            "I just moved to Austin! The boxes are still everywhere.", "2024-02-02T10:00:00", 0, 2
        ),
        turn(
            "I just moved to Seattle! The boxes are still everywhere.", "2024-03-10T10:00:00", 0, 3
        ),
    ]
    stats = graph.ingest(turns)
    assert stats.turns_failed == 0
    history = graph.store.history(entity_id("Person", "Alice", "test"), "lives_in")
    assert [f.value for f in history] == ["Denver", "Austin", "Seattle"], history
    graph.close()


def test_two_jobs_make_one_employer_timeline(lm_api_base: str, tmp_path: Path) -> None:
    """The extractor once gave occupation = engineer only, then occupation = Globex."""
    graph = Built(tmp_path / "jobs.sqlite", lm_api_base)
    turns = [
        turn("I work at Acme Corp as an engineer.", "2024-01-11T10:00:00", 0, 1),
        turn("Big news: I started at Globex last week!", "2024-03-20T10:00:00", 0, 2),
    ]
    stats = graph.ingest(turns)
    assert stats.turns_failed == 0
    alice = entity_id("Person", "Alice", "test")
    employers = [f.value for f in graph.store.history(alice, "employer")]
    assert employers == ["Acme Corp", "Globex"], employers
    occupations = [f.value for f in graph.store.history(alice, "occupation")]
    assert "Globex" not in occupations and "Acme Corp" not in occupations, occupations
    graph.close()


def test_consecutive_real_turns_build_with_exact_evidence_and_rule_dates(
    lm_api_base: str, tmp_path: Path
) -> None:
    """The default (compact) extraction on the first four turns of a LOCOMO session."""
    if not LOCOMO.is_file():
        pytest.skip(f"LOCOMO data not found at {LOCOMO}")
    turns = load_locomo(LOCOMO, ["conv-26"], max_sessions=1)[:4]  # "yesterday" in D1:3
    graph = Built(tmp_path / "session.sqlite", lm_api_base)
    stats = graph.ingest(turns)
    assert stats.turns_done == 4 and stats.turns_failed == 0, graph.checkpoint.failed()
    assert graph.checkpoint.counts() == {"done": 4}
    assert stats.llm["extract"]["calls"] <= 6  # one per turn, rare retries
    rows = graph.store.connection.execute(
        "SELECT e.text, e.span_start, e.span_end, t.text, f.t_from FROM facts f "
        "JOIN evidence e ON e.evidence_id = f.evidence_id JOIN turns t ON t.turn_id = e.turn_id"
    ).fetchall()
    assert rows and all(text[start:end] == quote for quote, start, end, text, _ in rows)
    yesterday = [t_from for quote, *_, t_from in rows if "yesterday" in quote]
    assert all(t.startswith("2023-05-07") for t in yesterday), rows
    graph.close()


def test_the_full_extraction_baseline_still_builds(lm_api_base: str, tmp_path: Path) -> None:
    """The earlier extraction (dtypes, model dates, confidences), the benchmark's baseline."""
    graph = Built(tmp_path / "per_turn.sqlite", lm_api_base)
    turns = [turn("I live in Denver, in a small flat downtown.", "2024-01-11T10:00:00", 0, 1)]
    stats = graph.ingest(turns, PipelineConfig(extraction="full"))
    assert stats.turns_failed == 0 and stats.llm["extract"]["calls"] >= 1
    history = graph.store.history(entity_id("Person", "Alice", "test"), "lives_in")
    assert [f.value for f in history] == ["Denver"], history
    graph.close()


def test_written_batches_round_trip_as_graph_batches(built: tuple[Built, RunStats]) -> None:
    graph, _ = built
    assert graph.checkpoint.pending() == []
    assert isinstance(GraphBatch(), GraphBatch)
