"""The graph benchmark end to end on SQLite at a tiny size: warm-up loads, steal, results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.graph import bench


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
    (result,) = payload["results"]
    assert result["ingest"]["facts"] == 2000
    assert len(result["ingest"]["loads_facts_per_s"]) == bench.load_attempts(2000)
    if Path("/proc/stat").exists():
        steal = result["ingest"]["cpu_steal_pct"]
        assert steal is None or 0 <= steal <= 100  # None: the write took under a jiffy
    assert all(plan["uses_index"] for plan in result["plans"].values())
