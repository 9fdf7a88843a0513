"""The fast path's context is the same text for the same inputs as before the refactor."""

from __future__ import annotations

import json
from pathlib import Path

from tests.unit.agent.context_cases import context_cases

EXPECTED = Path(__file__).with_name("context_cases.json")


def test_context_unchanged(tmp_path: Path) -> None:
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    built = json.loads(json.dumps(dict(context_cases(tmp_path))))  # tuples as JSON lists
    assert built.keys() == expected.keys()
    for case, holds in expected.items():
        assert built[case] == holds, case
