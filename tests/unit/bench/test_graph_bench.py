"""The graph benchmark end to end on SQLite at a tiny size: warm-up loads, steal, results."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from apexmem_neo.store.neo4j import cypher_files
from apexmem_neo.store.neo4j import store as neo4j_store
from benchmarks.graph import bench, gc_ab, write_ab
from benchmarks.graph.generate import Spec, generate
from benchmarks.graph.write_ab import with_property_edge


def test_steal_percent_is_the_share_of_all_cpu_time() -> None:
    assert bench.steal_percent((100, 1000), (130, 1200)) == 15.0
    assert bench.steal_percent(None, (1, 2)) is None
    assert bench.steal_percent((1, 2), (1, 2)) is None  # no time passed: no share


def test_proc_stat_steal_is_read_where_linux_has_it() -> None:
    ticks = bench.cpu_steal_jiffies()
    if Path("/proc/stat").exists():
        assert ticks is not None and 0 <= ticks[0] <= ticks[1]


def test_tiny_sqlite_run_writes_warmup_and_per_load_steal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bench, "RESULTS", tmp_path / "results")
    bench.main(
        ["--backend", "sqlite", "--sizes", "2000", "--samples", "20", "--warmup-loads", "2",
         "--workdir", str(tmp_path)]
    )  # fmt: skip
    payload = json.loads((tmp_path / "results" / "graph_sqlite.json").read_text())
    assert payload["warmup"]["size"] == 2000
    assert len(payload["warmup"]["loads_facts_per_s"]) == 2
    assert all(rate > 0 for rate in payload["warmup"]["loads_facts_per_s"])
    assert payload["neo4j"] is None
    (result,) = payload["results"]
    assert result["ingest"]["facts"] == 2000
    assert len(result["ingest"]["loads_facts_per_s"]) == bench.load_attempts(2000)
    if Path("/proc/stat").exists():
        steal = result["ingest"]["cpu_steal_pct"]
        assert steal is None or 0 <= steal <= 100  # None: the write took under a jiffy
    assert all(plan["uses_index"] for plan in result["plans"].values())
    narrow = result["latency"]["facts_between_narrow"]["rows_mean"]
    assert 1 <= narrow <= bench.NARROW_WINDOW_FACTS + 1  # ties on t_from may add one


def test_rates_are_steady_once_the_last_loads_stop_climbing() -> None:
    climbing = [2000, 4000, 5000, 6000, 7000, 8000, 9000, 10000, 11000, 12000]
    assert not bench.is_steady(climbing)
    plateau = [7000, 6900, 7100, 7050, 6800, 7000, 7200, 6900, 7300, 7100]
    assert bench.is_steady([*climbing[:5], *plateau]), "last five within 5% of the five before"
    assert not bench.is_steady([9000] * 9), "fewer loads than two windows"


def test_warm_up_runs_its_least_loads_then_stops_when_steady_or_at_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bench, "MAX_WARMUP_LOADS", 14)
    rates = bench.warm_up_until_steady("sqlite", tmp_path, 200, 11, writers=1)
    assert 11 <= len(rates) <= 14 and all(rate > 0 for rate in rates)
    assert len(rates) == 14 or bench.is_steady(rates)
    assert len(rates) == 11 or not bench.is_steady(rates[:-1]), "went on only while climbing"


def test_narrow_window_ends_at_the_sixth_fact_from_t(tmp_path: Path) -> None:
    from apexmem_neo.store.sqlite import SQLiteGraphStore
    from benchmarks.graph.generate import Spec, generate

    store = SQLiteGraphStore(tmp_path / "g.sqlite3")
    store.init_schema()
    for batch in generate(Spec(n_facts=3000, n_entities=50)):
        store.write(batch)
    entity = batch.facts[0].entity_id
    timeline = store.facts_between(entity, "1900-01-01", "9999-12-31")
    t = timeline[0].t_from
    end = bench.narrow_window_end(store, entity, t)
    assert end == timeline[bench.NARROW_WINDOW_FACTS - 1].t_from
    assert len(store.facts_between(entity, t, end)) >= bench.NARROW_WINDOW_FACTS
    store.close()


def test_private_neo4j_is_refused_for_sqlite(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        bench.main(["--backend", "sqlite", "--private-neo4j"])
    assert exit_info.value.code == 2
    assert "--private-neo4j needs --backend neo4j" in capsys.readouterr().err


@pytest.mark.parametrize("n_facts", [10_000, 100_000])
def test_generated_shape_is_the_documented_one_at_every_size(n_facts: int) -> None:
    """Events assert 2-6 facts (an entity's last event may be cut short) and every
    (entity, property) pair collects several facts, also at 10 facts per entity."""
    per_event: Counter[str] = Counter()
    per_pair: Counter[tuple[str, str]] = Counter()
    events = set()
    for batch in generate(Spec(n_facts=n_facts)):
        events.update(event.event_id for event in batch.events)
        for fact in batch.facts:
            per_event[str(fact.event_id)] += 1
            per_pair[(fact.entity_id, fact.property)] += 1
    assert sum(per_event.values()) == n_facts
    assert set(per_event) == events
    assert max(per_event.values()) <= 6
    assert sum(n >= 2 for n in per_event.values()) >= 0.85 * len(per_event)
    assert n_facts / len(per_event) >= 2
    assert sum(per_pair.values()) / len(per_pair) >= 3


def test_the_edge_arm_writes_facts_as_before_today() -> None:
    today = cypher_files.query("write_facts")
    assert "OF_PROPERTY" not in cypher_files.strip_comments(today)
    edge = cypher_files.strip_comments(with_property_edge(today))
    assert "MATCH (p:Property {property_id: row.property_id})" in edge
    assert edge.index("UNWIND g.rows AS row") < edge.index("MATCH (p:Property")
    assert "CREATE (f)-[:OF_PROPERTY]->(p)" in edge
    with pytest.raises(SystemExit, match="write_facts.cypher changed"):
        with_property_edge("MATCH (n) RETURN n")


def test_entity_merge_variant_takes_entities_off_the_create_path_until_it_ends() -> None:
    """The variant the write A/B measures: inside, entities and properties are not on the
    store's CREATE path (so they go through their MERGE queries); after, even on an error,
    the path is as before."""
    before = dict(neo4j_store.CREATE_NEW)
    with pytest.raises(RuntimeError), write_ab.entity_merge():
        assert set(before) - set(neo4j_store.CREATE_NEW) == {"entities", "properties"}
        raise RuntimeError
    assert before == neo4j_store.CREATE_NEW


def test_existence_lookup_variant_puts_the_event_and_fact_lookups_back_until_it_ends() -> None:
    before = dict(neo4j_store.CREATE_NEW)
    assert before["events"].existing is None and before["facts"].existing is None
    with pytest.raises(RuntimeError), write_ab.existence_lookup():
        assert neo4j_store.CREATE_NEW["events"].existing == "existing_event_ids"
        assert neo4j_store.CREATE_NEW["facts"].existing == "existing_fact_ids"
        assert cypher_files.query("existing_fact_ids") == write_ab.EXISTING_FACT_IDS
        raise RuntimeError
    assert before == neo4j_store.CREATE_NEW
    with pytest.raises(cypher_files.CypherFileError, match="existing_fact_ids"):
        cypher_files.query("existing_fact_ids")


def test_replan_variant_takes_the_keep_plan_prefix_off_the_write_queries_until_it_ends() -> None:
    assert neo4j_store.write_query("write_facts").startswith("CYPHER replan=skip\n")
    assert neo4j_store.write_query("link_turns") == cypher_files.query("link_turns")
    with pytest.raises(RuntimeError), write_ab.replan():
        assert neo4j_store.write_query("write_facts") == cypher_files.query("write_facts")
        raise RuntimeError
    assert neo4j_store.write_query("write_facts").startswith("CYPHER replan=skip\n")


def test_query_times_sum_per_load_and_keep_the_median_and_slowest_call() -> None:
    times = write_ab.QueryTimes()
    today, other = times.timer("today"), times.timer("replan")
    for seconds in (0.010, 0.030, 0.020, 0.140):
        today("write_facts", seconds)
    other("write_facts", 0.5)
    summary = times.summary(loads_per_arm=2)
    assert summary["today"]["write_facts"] == {
        "calls_per_load": 2.0, "ms_per_load": 100.0, "p50_ms": 25.0, "max_ms": 140.0,
    }  # fmt: skip
    assert summary["replan"]["write_facts"]["ms_per_load"] == 250.0


def test_generator_puts_entities_and_properties_in_a_batch_of_their_own_first() -> None:
    first, second, *_ = generate(Spec(n_facts=2000, n_entities=20, batch_facts=500))
    assert (len(first.entities), len(first.properties)) == (20, 100)
    assert not (first.facts or first.events or first.participants)
    assert second.facts and not second.entities  # (a batch lists the properties its facts use)
    old_first = next(generate(Spec(n_facts=2000, n_entities=20, definitions_first=False)))
    assert old_first.entities and old_first.facts
    assert {f.fact_id for b in generate(Spec(n_facts=2000, n_entities=20)) for f in b.facts} == {
        f.fact_id
        for b in generate(Spec(n_facts=2000, n_entities=20, definitions_first=False))
        for f in b.facts
    }, "the same facts either way"


@pytest.mark.parametrize("bad", [["--rounds", "0"], ["--warmups", "-1"], ["--size", "0"]])
def test_both_ab_benchmarks_refuse_bad_counts_before_any_server_starts(
    bad: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    for main in (lambda argv: write_ab.main(["--variant", "entity_merge", *argv]), gc_ab.main):
        with pytest.raises(SystemExit) as exit_:
            main(bad)
        assert exit_.value.code == 2
        assert "--rounds and --writers must be at least 1" in capsys.readouterr().err
