"""The LOCOMO harness's agent options reach the agent, and context recall reads labels right."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from apexmem_neo.agent import AgentConfig
from benchmarks.locomo.context_recall import labels_shown
from benchmarks.locomo.run import _args, agent_config


def test_defaults_are_the_agents_own() -> None:
    config = agent_config(_args([]))
    default = AgentConfig()
    assert config.prefetch_entities == default.prefetch_entities
    assert config.prefetch_turns == default.prefetch_turns
    assert (config.mode, config.max_iters) == ("auto", default.max_iters)
    assert config.context_order == default.context_order


def test_prefetch_options_reach_the_config() -> None:
    args = _args(["--prefetch-entities", "0", "--prefetch-turns", "12", "--mode", "fast"])
    config = agent_config(args)
    assert (config.prefetch_entities, config.prefetch_turns, config.mode) == (0, 12, "fast")
    assert agent_config(_args(["--context-order", "turns"])).context_order == "turns"
    assert agent_config(_args(["--answer-program", "p.json"])).answer_program == "p.json"
    assert agent_config(_args([])).answer_program == AgentConfig().answer_program


def test_out_of_range_prefetch_is_refused_naming_the_field() -> None:
    with pytest.raises(ValidationError, match="prefetch_turns"):
        agent_config(_args(["--prefetch-turns", "50"]))


def test_context_recall_counts_only_labels_left_in_the_text() -> None:
    by_label = {"T1": "turn_a", "T2": "turn_b", "T3": "turn_c"}
    text = "Facts:\n- city = Oslo [T1]\n\nTurns:\n- T2 (2023-05-01) hello"  # T3 cut off
    assert labels_shown(text, by_label) == {"turn_a", "turn_b"}
    assert not labels_shown("T12 and T4", by_label)  # whole labels only, known ones only
