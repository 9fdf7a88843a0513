"""The construction benchmark's store metrics that need no model: grounded facts."""

from __future__ import annotations

import json
from typing import Any

from apexmem_neo.llm.extract_compact import CompactFact
from benchmarks.construction.output_cost import grounded as grounded_in_reply
from benchmarks.construction.run import grounded, value_said
from benchmarks.memory import REPO, provenance

TURN = "Lost my job as a banker yesterday, so I'm gonna start my own dance studio!"


def fact(value: Any, dtype: str = "str", text: str = TURN) -> dict[str, Any]:
    return {"value_json": json.dumps(value), "dtype": dtype, "turn_text": text}


def test_a_value_said_in_the_turn_is_grounded_in_any_case_or_inflection() -> None:
    assert value_said("banker", TURN)
    assert value_said("Dance Studio", TURN)
    assert value_said("dance studios", TURN)
    assert not value_said("Door Dash", TURN)
    assert not value_said("bankers union", TURN)


def test_only_text_values_count_and_the_share_is_over_them() -> None:
    facts = [
        fact("banker"),
        fact("business owner"),  # a paraphrase counts against the share
        fact("Door Dash", "enum"),
        fact(True, "bool"),
        fact("2023-01-19", "date"),
    ]
    assert grounded(facts) == {"text_facts": 3, "grounded": 1, "share": 1 / 3}
    assert grounded([]) == {"text_facts": 0, "grounded": 0, "share": 0.0}


def test_a_replys_grounded_facts_are_its_text_values_found_in_the_turn() -> None:
    facts = [
        CompactFact(subject="Jon", property="occupation", value="banker"),
        CompactFact(subject="Gina", property="occupation", value="Door Dash"),
        CompactFact(subject="Jon", property="lost_job", value=True),
    ]
    assert grounded_in_reply(facts, TURN) == 1


def test_a_recorded_command_names_paths_in_the_repository_relative_to_it() -> None:
    argv = ["--out", f"{REPO}/benchmarks/results/x.json", "--work-dir", "/tmp/w", "--n", "3"]
    command = provenance("benchmarks.some.run", argv)["command"]
    assert command == (
        ".venv/bin/python -m benchmarks.some.run --out benchmarks/results/x.json "
        "--work-dir /tmp/w --n 3"
    )
