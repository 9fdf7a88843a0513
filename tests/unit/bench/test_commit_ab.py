"""commit_ab: the figure to read is the median of per-round ratios, and the base arm runs
this tree's benchmark code on the base's library."""

from __future__ import annotations

from pathlib import Path

from benchmarks.graph.commit_ab import ROOT, harness, summary


def test_the_ratio_is_the_median_of_the_per_round_ratios() -> None:
    def arm(*pairs: tuple[float, float]) -> list[dict[str, float]]:
        return [{"ingest": ingest, "read": read} for ingest, read in pairs]

    runs = {
        "base": arm((100.0, 1.0), (200.0, 2.0), (100.0, 1.0)),
        "tree": arm((90.0, 1.0), (220.0, 1.0), (100.0, 3.0)),
    }
    result = summary(runs)
    assert result["round_ratios"] == [
        {"ingest": 0.9, "read": 1.0},
        {"ingest": 1.1, "read": 0.5},
        {"ingest": 1.0, "read": 3.0},
    ]
    assert result["ratios_tree_over_base"] == {"ingest": 1.0, "read": 1.0}
    assert result["medians"]["tree"] == {"ingest": 100.0, "read": 1.0}


def test_the_harness_holds_the_base_library_and_this_trees_benchmarks(tmp_path: Path) -> None:
    base = tmp_path / "abc1234"
    (base / "apexmem_neo").mkdir(parents=True)
    path = harness(base)
    assert (path / "apexmem_neo").resolve() == (base / "apexmem_neo").resolve()
    assert (path / "benchmarks").resolve() == (ROOT / "benchmarks").resolve()
    assert harness(base) == path  # made once, reused
