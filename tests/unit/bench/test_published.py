"""The published headline results: every file says how it was made, its intervals are the
Wilson intervals of its counts, and README.md's results table is made from the files."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from benchmarks.published_results import (
    PUBLISHED,
    REQUIRED,
    load_published,
    results_table,
    wilson,
)

README = Path(__file__).resolve().parents[3] / "README.md"
RESULTS = load_published()


def test_there_are_published_results() -> None:
    assert len(RESULTS) >= 7
    assert len({r["file"] for r in RESULTS}) == len(list(PUBLISHED.glob("*.json")))


@pytest.mark.parametrize("result", RESULTS, ids=lambda r: r["file"])
def test_every_file_says_how_it_was_made(result: dict[str, Any]) -> None:
    for key in REQUIRED:
        assert result.get(key), f"{result['file']}: no {key}"
    assert "python -m benchmarks." in result["command"]
    assert re.fullmatch(r"[0-9a-f]{7,40}", result["commit"])
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", result["date"])
    assert isinstance(result["figures"], dict)
    assert result["table"], f"{result['file']}: no table rows"


@pytest.mark.parametrize("result", RESULTS, ids=lambda r: r["file"])
def test_intervals_match_their_figures(result: dict[str, Any]) -> None:
    """Counts carry their Wilson interval; a LOCOMO system's bootstrap interval holds its
    judge accuracy."""
    for key, (lo, hi) in result.get("ci95", {}).items():
        counts = result["figures"][key]
        if "successes" not in counts:
            assert lo <= counts["judge_accuracy"] <= hi
            continue
        assert counts["rate"] == round(counts["successes"] / counts["n"], 3)
        expected = wilson(counts["successes"], counts["n"])
        assert (lo, hi) == pytest.approx(expected, abs=0.0005)
    for row in result["table"]:
        if "ci95" in row:
            assert row["ci95"] in result["ci95"]


def test_wilson_matches_known_values() -> None:
    # 20 of 149 and 0 of 10: intervals computed independently (Wilson 1927, z = 1.96).
    assert wilson(20, 149) == pytest.approx((0.0886, 0.1982), abs=1e-4)
    lo, hi = wilson(0, 10)
    assert lo == 0.0
    assert hi == pytest.approx(0.2775, abs=1e-4)
    assert wilson(10, 10)[1] == pytest.approx(1.0)


@pytest.mark.parametrize(("successes", "n"), [(1, 0), (-1, 10), (11, 10)])
def test_wilson_refuses_impossible_counts(successes: int, n: int) -> None:
    with pytest.raises(ValueError):
        wilson(successes, n)


def test_the_readme_table_is_made_from_the_published_files() -> None:
    table = results_table()
    assert table in README.read_text(encoding="utf-8")
    assert len(table.splitlines()) == 2 + sum(len(r["table"]) for r in RESULTS)


def test_the_table_follows_a_changed_figure(tmp_path: Path) -> None:
    for path in PUBLISHED.glob("*.json"):
        (tmp_path / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    target = tmp_path / "query_languages.json"
    data = json.loads(target.read_text(encoding="utf-8"))
    data["figures"]["neo4j_cypher"]["rate"] = 0.999
    target.write_text(json.dumps(data), encoding="utf-8")
    assert "99.9%" in results_table(tmp_path)
    assert "99.9%" not in results_table()
