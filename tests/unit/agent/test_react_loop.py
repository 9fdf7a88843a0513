"""The ReAct loop's trajectory rendering and its truncation on a context-window overflow."""

from __future__ import annotations

from typing import Any

import dspy
import pytest
from dspy.utils import DummyLM

from apexmem_neo.agent.models import AgentConfig
from apexmem_neo.agent.react_loop import (
    TRUNCATION_ATTEMPTS,
    ReactLoop,
    call_with_truncation,
    extract_signature,
    format_trajectory,
)
from apexmem_neo.agent.signatures import AnswerWithTools

INPUTS = {"question": "q?", "question_date": "2024-04-01", "time_hints": "", "context": ""}


def trajectory(steps: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for i in range(steps):
        out[f"thought_{i}"] = f"think {i}"
        out[f"tool_name_{i}"] = "lookup"
        out[f"tool_args_{i}"] = {"query": str(i)}
        out[f"observation_{i}"] = f"seen {i}"
    return out


class FakeModule:
    """Raises ``errors`` in turn, then answers; records each rendered trajectory."""

    def __init__(self, *errors: Exception) -> None:
        self.errors = list(errors)
        self.seen: list[str] = []

    def __call__(self, **kwargs: Any) -> dspy.Prediction:
        self.seen.append(kwargs["trajectory"])
        assert {k: v for k, v in kwargs.items() if k != "trajectory"} == INPUTS
        if self.errors:
            raise self.errors.pop(0)
        return dspy.Prediction(answer="ok")


def overflow() -> Exception:
    error: Exception = dspy.ContextWindowExceededError(model="fake")
    return error


def test_the_trajectory_is_rendered_as_adapter_input_fields() -> None:
    text = format_trajectory(trajectory(1))
    assert text.startswith("[[ ## thought_0 ## ]]\nthink 0")
    assert '[[ ## tool_args_0 ## ]]\n{"query": "0"}' in text
    assert text.endswith("[[ ## observation_0 ## ]]\nseen 0")
    assert format_trajectory({}) == ""


def test_an_overflow_drops_the_oldest_step_and_retries() -> None:
    module, traj = FakeModule(overflow()), trajectory(3)
    assert call_with_truncation(module, traj, INPUTS).answer == "ok"
    assert len(module.seen) == 2
    assert "thought_0" in module.seen[0]
    assert "thought_0" not in module.seen[1] and "observation_0" not in module.seen[1]
    assert "thought_1" in module.seen[1] and "thought_2" in module.seen[1]
    assert traj == {k: v for k, v in trajectory(3).items() if not k.endswith("_0")}


def test_litellms_own_overflow_error_is_recognised_too() -> None:
    from litellm.exceptions import ContextWindowExceededError

    error = ContextWindowExceededError("too long", model="fake", llm_provider="openai")
    module, traj = FakeModule(error), trajectory(2)
    assert call_with_truncation(module, traj, INPUTS).answer == "ok"
    assert list(traj) == [f"{k}_1" for k in ("thought", "tool_name", "tool_args", "observation")]


@pytest.mark.parametrize("steps", [0, 1])
def test_the_last_step_is_never_dropped(steps: int) -> None:
    module, traj = FakeModule(overflow()), trajectory(steps)
    with pytest.raises(dspy.ContextWindowExceededError, match="cannot be shortened"):
        call_with_truncation(module, traj, INPUTS)
    assert len(module.seen) == 1 and traj == trajectory(steps)


def test_it_gives_up_after_three_attempts() -> None:
    module = FakeModule(*(overflow() for _ in range(TRUNCATION_ATTEMPTS)))
    traj = trajectory(5)
    with pytest.raises(dspy.ContextWindowExceededError, match="even after 3 attempts"):
        call_with_truncation(module, traj, INPUTS)
    assert len(module.seen) == TRUNCATION_ATTEMPTS
    assert [k for k in traj if k.startswith("thought")] == ["thought_3", "thought_4"]


def test_other_errors_are_not_retried() -> None:
    module, traj = FakeModule(ValueError("bad reply")), trajectory(3)
    with pytest.raises(ValueError, match="bad reply"):
        call_with_truncation(module, traj, INPUTS)
    assert len(module.seen) == 1 and traj == trajectory(3)


def lookup(query: str) -> str:
    """Look something up."""
    return f"found {query}"


class OverflowOnce:
    """Wraps a predictor: overflows once when the trajectory holds the first two steps."""

    def __init__(self, predictor: Any) -> None:
        self.predictor, self.overflows = predictor, 0

    def __call__(self, **kwargs: Any) -> Any:
        text = kwargs["trajectory"]
        if not self.overflows and "thought_0" in text and "thought_1" in text:
            self.overflows += 1
            raise dspy.ContextWindowExceededError(model="dummy")
        return self.predictor(**kwargs)


class NoTokens:
    def get_total_tokens(self) -> dict[str, Any]:
        return {}


def step(tool: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"next_thought": f"use {tool}", "next_tool_name": tool, "next_tool_args": args}


def test_the_loop_goes_on_without_the_oldest_step_after_an_overflow() -> None:
    answers = [
        step("lookup", {"query": "a"}),
        step("lookup", {"query": "b"}),
        step("finish", {}),  # the third step's prompt overflows once, then gets this
        {"reasoning": "r", "answer": "b it is", "evidence_turn_ids": []},
    ]
    adapter = dspy.JSONAdapter()
    lm = DummyLM(answers, adapter=adapter)
    loop = ReactLoop({"lookup": lookup}, AgentConfig())
    react = loop.program.react = OverflowOnce(loop.program.react)
    with dspy.context(lm=lm, adapter=adapter):
        out = loop.run(INPUTS, NoTokens())
    assert react.overflows == 1 and len(lm.history) == 4
    assert out.error is None and out.answer == "b it is" and out.tool_calls == 2
    assert [(s.phase, s.tool, s.error) for s in out.steps] == [
        ("react", "lookup", None),
        ("react", "lookup", None),
        ("react", "finish", None),
        ("extract", None, None),
    ]
    finish_prompt, extract_prompt = (str(entry["messages"]) for entry in lm.history[-2:])
    for prompt in (finish_prompt, extract_prompt):  # the drop holds for later calls too
        assert "thought_0" not in prompt and "found a" not in prompt
        assert "[[ ## thought_1 ## ]]" in prompt and "found b" in prompt
    assert "[[ ## thought_2 ## ]]" in extract_prompt


def test_the_answer_step_reads_the_question_after_the_trajectory() -> None:
    signature = extract_signature()
    assert list(signature.input_fields)[-2:] == ["trajectory", "question"]
    assert signature.instructions == AnswerWithTools.instructions
    assert set(signature.output_fields) == set(AnswerWithTools.output_fields)
    loop = ReactLoop({}, AgentConfig())
    assert list(loop.program.extract.predict.signature.input_fields)[-1] == "question"
