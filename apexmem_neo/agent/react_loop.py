"""The ReAct loop over the memory tools, driven step by step so that every step is traced.

``ToolProgram`` holds the two predictors, built with DSPy's public ``Predict``,
``ChainOfThought``, ``Signature`` and ``Tool``: ``react`` picks the next thought and tool call
(its instructions are ReAct's, listing the tools and ``finish``), ``extract`` answers from the
trajectory. This driver runs them with a tool-call budget, times each tool, records each step's
token usage, and turns a parse error of the final extract step into an error in the result
instead of an exception (a model that cannot be used at all raises ``LanguageModelError``:
``apexmem_neo.llm.failures``). ``AgentConfig.react_program`` names a compiled program whose
demonstrations its steps then carry; its predictors are named as ``dspy.ReAct``'s, so a
program compiled from either loads.

Each predictor call gets the trajectory rendered and, when the prompt overflows the context
window, shortened the way ``dspy.ReAct`` does it (``call_with_truncation``); this is done
here with DSPy's public API, as ReAct's own helpers for it are private.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

import dspy

from apexmem_neo.agent.models import AgentConfig, StepPhase, TraceStep
from apexmem_neo.agent.signatures import AnswerWithTools
from apexmem_neo.llm.failures import raise_if_fatal
from apexmem_neo.llm.programs import load_compiled

logger = logging.getLogger(__name__)

BUDGET_NOTE = "Tool budget exhausted: no more tool calls; answer with what you have."


REPEATED_CALL = "Not run again: this exact call was already made"


def repeated_call_note(earlier: int) -> str:
    """What the trace records for a repeated call (the loop then stops)."""
    return f"{REPEATED_CALL}; observation_{earlier} holds its result."


@dataclass
class LoopOutcome:
    answer: str = ""
    turn_ids: list[str] = field(default_factory=list)
    steps: list[TraceStep] = field(default_factory=list)
    tool_calls: int = 0
    error: str | None = None
    calls_seen: dict[str, int] = field(default_factory=dict)
    """Each distinct call made so far (tool and arguments as JSON) -> its trajectory index."""
    first_step: int = 0
    """The number of the loop's first step (the steps the question took before it)."""

    def new_step(self, phase: StepPhase) -> TraceStep:
        """A new step of ``phase``, numbered after the steps so far (counting from
        ``first_step``) and appended to them."""
        step = TraceStep(step=self.first_step + len(self.steps), phase=phase)
        self.steps.append(step)
        return step


def token_total(tracker: Any) -> dict[str, int]:
    """Summed integer token counts (prompt, completion, total) over every LM tracked."""
    out: dict[str, int] = {}
    for usage in tracker.get_total_tokens().values():
        for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
            value = usage.get(key)
            if isinstance(value, int):
                out[key] = out.get(key, 0) + value
    return out


def token_delta(before: Mapping[str, int], after: Mapping[str, int]) -> dict[str, int]:
    return {k: v - before.get(k, 0) for k, v in after.items() if v - before.get(k, 0)}


@contextmanager
def timed(step: TraceStep, tracker: Any) -> Iterator[None]:
    """Record on ``step`` the seconds and the tokens the block spends, however it ends."""
    before, t0 = token_total(tracker), time.perf_counter()
    try:
        yield
    finally:
        step.seconds = round(time.perf_counter() - t0, 3)
        step.tokens = token_delta(before, token_total(tracker))


STEP_KEYS = ("thought", "tool_name", "tool_args", "observation")
"""The trajectory keys of one step, each suffixed ``_<index>``."""

TRUNCATION_ATTEMPTS = 3
"""Calls per predictor step before a context-window overflow is given up on (dspy.ReAct's)."""


def format_trajectory(trajectory: Mapping[str, Any]) -> str:
    """The trajectory as ``dspy.ReAct`` renders it for its predictors: every entry as an input
    field of the configured adapter (``dspy.ChatAdapter`` if none)."""
    adapter = dspy.settings.adapter or dspy.ChatAdapter()
    signature = dspy.Signature(f"{', '.join(trajectory.keys())} -> x")
    return str(adapter.format_user_message_content(signature, dict(trajectory)))


def is_context_window_error(exc: BaseException) -> bool:
    """An overlong prompt: DSPy's ``ContextWindowExceededError`` (DSPy's LM raises it for
    LiteLLM's), or LiteLLM's own if something raised that unconverted."""
    if isinstance(exc, dspy.ContextWindowExceededError):
        return True
    litellm = sys.modules.get("litellm")  # not loaded: nothing can have raised its errors
    litellm_error = getattr(litellm, "ContextWindowExceededError", None)
    return isinstance(litellm_error, type) and isinstance(exc, litellm_error)


def drop_oldest_step(trajectory: dict[str, Any]) -> None:
    """Remove the oldest step's four entries, in place; as ``dspy.ReAct`` does, the last
    remaining step is kept, so a trajectory of one step (or none) raises instead."""
    keys = list(trajectory)
    if len(keys) <= len(STEP_KEYS):
        left = "only its last step, which is kept" if keys else "no step"
        raise dspy.ContextWindowExceededError(
            message="The prompt exceeds the context window and the trajectory cannot be "
            f"shortened: it holds {left}."
        )
    for key in keys[: len(STEP_KEYS)]:
        trajectory.pop(key)


def call_with_truncation(module: Any, trajectory: dict[str, Any], inputs: Mapping[str, Any]) -> Any:
    """``module(**inputs, trajectory=<rendered trajectory>)``; on a context-window overflow,
    drop the oldest step (from ``trajectory`` itself, so later steps see it shortened too) and
    try again, up to ``TRUNCATION_ATTEMPTS`` calls, as ``dspy.ReAct`` does."""
    last_error: BaseException | None = None
    for _ in range(TRUNCATION_ATTEMPTS):
        try:
            return module(**inputs, trajectory=format_trajectory(trajectory))
        except Exception as exc:
            if not is_context_window_error(exc):
                raise
            logger.warning("Trajectory exceeded the context window; dropping its oldest step.")
            last_error = exc
            drop_oldest_step(trajectory)
    raise dspy.ContextWindowExceededError(
        message=f"The context window was exceeded even after {TRUNCATION_ATTEMPTS} attempts "
        "to shorten the trajectory."
    ) from last_error


def extract_signature() -> type[dspy.Signature]:
    """The answer step's signature: ``dspy.ReAct``'s (the task's fields and the trajectory)
    with the question moved after the trajectory. Read last, as in the fast path, the
    question kept the local model from answering a past date's question with the value the
    tool output lists as holding now."""
    question = AnswerWithTools.input_fields["question"]
    signature: type[dspy.Signature] = (
        dspy.Signature(
            {**AnswerWithTools.input_fields, **AnswerWithTools.output_fields},
            AnswerWithTools.instructions,
        )
        .delete("question")
        .append("trajectory", dspy.InputField(), type_=str)
        .append("question", question, type_=str)
    )
    return signature


AGENT_INSTRUCTIONS = (
    "You are an Agent. In each episode, you will be given the fields {inputs} as input. And "
    "you can see your past trajectory so far.",
    "Your goal is to use one or more of the supplied tools to collect any necessary "
    "information for producing {outputs}.\n",
    "To do this, you will interleave next_thought, next_tool_name, and next_tool_args in each "
    "turn, and also when finishing the task.",
    "After each tool call, you receive a resulting observation, which gets appended to your "
    "trajectory.\n",
    "When writing next_thought, you may reason about the current situation and plan for future "
    "steps.",
    "When selecting the next_tool_name and its next_tool_args, the tool must be one of:\n",
)
"""The react step's instructions after the task's own, as ``dspy.ReAct`` words them (a test
keeps the two the same)."""
ARGS_NOTE = "When providing `next_tool_args`, the value inside the field must be in JSON format"


def _backticked(names: Any) -> str:
    return ", ".join(f"`{name}`" for name in names)


def finish_tool(outputs: str) -> dspy.Tool:
    """The tool that ends the loop: the information for ``outputs`` is gathered."""
    return dspy.Tool(
        func=lambda: "Completed.",
        name="finish",
        desc="Marks the task as complete. That is, signals that all information for producing "
        f"the outputs, i.e. {outputs}, are now available to be extracted.",
        args={},
    )


def react_signature(task: type[dspy.Signature], tools: Mapping[str, dspy.Tool]) -> Any:
    """The react step: the task's inputs and the trajectory in; the next thought, a tool name
    among ``tools`` and its arguments out."""
    words = {"inputs": _backticked(task.input_fields), "outputs": _backticked(task.output_fields)}
    lines = [f"{task.instructions}\n"] if task.instructions else []
    lines += [line.format(**words) for line in AGENT_INSTRUCTIONS]
    lines += [f"({number}) {tool}" for number, tool in enumerate(tools.values(), start=1)]
    lines.append(ARGS_NOTE)
    names = tuple(tools)
    return (
        dspy.Signature({**task.input_fields}, "\n".join(lines))
        .append("trajectory", dspy.InputField(), type_=str)
        .append("next_thought", dspy.OutputField(), type_=str)
        .append("next_tool_name", dspy.OutputField(), type_=Literal[names])
        .append("next_tool_args", dspy.OutputField(), type_=dict[str, Any])
    )


class ToolProgram(dspy.Module):  # type: ignore[misc]
    """The loop's predictors over ``tools`` (``finish`` added): ``react`` and ``extract``."""

    def __init__(self, tools: Mapping[str, Callable[..., object]]) -> None:
        super().__init__()
        each = [fn if isinstance(fn, dspy.Tool) else dspy.Tool(fn) for fn in tools.values()]
        wrapped = {tool.name: tool for tool in each}
        wrapped["finish"] = finish_tool(_backticked(AnswerWithTools.output_fields))
        self.tools = wrapped
        self.react = dspy.Predict(react_signature(AnswerWithTools, wrapped))
        self.extract = dspy.ChainOfThought(extract_signature())


def _args(raw: Any) -> dict[str, Any]:
    return dict(raw) if isinstance(raw, Mapping) else {}


class ReactLoop:
    """One question through the tools; see the module docstring."""

    def __init__(self, tools: Mapping[str, Callable[..., object]], config: AgentConfig) -> None:
        """``tools`` by name; what a call returns reaches the model as ``str(result)`` (a
        ``ToolResult`` renders its markdown or its error block)."""
        self.config = config
        self.program = ToolProgram(tools)
        if config.react_program is not None:
            load_compiled(self.program, config.react_program)

    def run(self, inputs: Mapping[str, Any], tracker: Any, first_step: int = 0) -> LoopOutcome:
        out = LoopOutcome(first_step=first_step)
        trajectory: dict[str, Any] = {}
        for idx in range(self.config.max_iters):
            if not self._step(idx, inputs, trajectory, tracker, out):
                break
        self._extract(inputs, trajectory, tracker, out)
        return out

    def _call(self, module: Any, trajectory: dict[str, Any], inputs: Mapping[str, Any]) -> Any:
        return call_with_truncation(module, trajectory, inputs)

    def _step(
        self,
        idx: int,
        inputs: Mapping[str, Any],
        trajectory: dict[str, Any],
        tracker: Any,
        out: LoopOutcome,
    ) -> bool:
        """One thought + tool call; False when the loop should stop."""
        before, t0 = token_total(tracker), time.perf_counter()
        step = out.new_step("react")
        try:
            pred = self._call(self.program.react, trajectory, inputs)
        except Exception as exc:  # a reply the adapter cannot parse ends the loop
            raise_if_fatal(exc)
            step.error = f"{type(exc).__name__}: {exc}"[:500]
            step.seconds = round(time.perf_counter() - t0, 3)
            return False
        step.thought, step.tool = str(pred.next_thought), str(pred.next_tool_name)
        step.args = _args(pred.next_tool_args)
        trajectory[f"thought_{idx}"] = pred.next_thought
        trajectory[f"tool_name_{idx}"] = pred.next_tool_name
        trajectory[f"tool_args_{idx}"] = pred.next_tool_args
        observation = self._observe(step, out, idx)
        trajectory[f"observation_{idx}"] = observation
        step.output_chars = len(observation)
        step.seconds = round(time.perf_counter() - t0, 3)
        step.tokens = token_delta(before, token_total(tracker))
        if observation.startswith(REPEATED_CALL):
            # a temperature-0 model that repeats a call is stuck: it would repeat it until the
            # budget ran out. Stop here, and leave the repeat out of what the answer step reads
            # (it once answered with the note itself).
            for key in STEP_KEYS:
                trajectory.pop(f"{key}_{idx}")
            return False
        return step.tool != "finish" and observation != BUDGET_NOTE

    def _observe(self, step: TraceStep, out: LoopOutcome, idx: int) -> str:
        tool = self.program.tools.get(step.tool or "")
        if tool is None:
            names = ", ".join(self.program.tools)
            return f"Unknown tool {step.tool!r}; the tools are: {names}."
        if step.tool != "finish":
            if out.tool_calls >= self.config.max_tool_calls:
                return BUDGET_NOTE
            out.tool_calls += 1
            earlier = _seen_before(out.calls_seen, step, idx)
            if earlier is not None:
                return repeated_call_note(earlier)
        try:
            text = str(tool(**step.args))
        except Exception as exc:  # bad arguments: tell the model, as dspy.ReAct does
            text = f"Execution error in {step.tool}: {type(exc).__name__}: {exc}"
        return text[: self.config.max_observation_chars]

    def _extract(
        self,
        inputs: Mapping[str, Any],
        trajectory: dict[str, Any],
        tracker: Any,
        out: LoopOutcome,
    ) -> None:
        step = out.new_step("extract")
        with timed(step, tracker):
            try:
                pred = self._call(self.program.extract, trajectory, inputs)
                out.answer = str(pred.answer)
                out.turn_ids = [str(t) for t in (pred.evidence_turn_ids or [])]
                step.thought = str(getattr(pred, "reasoning", "") or "")
                step.output_chars = len(out.answer)
            except Exception as exc:  # report, never crash: the trace so far stays useful
                raise_if_fatal(exc)  # ... unless the model itself cannot be used
                step.error = out.error = f"final extract failed: {type(exc).__name__}: {exc}"[:800]


def _seen_before(calls_seen: dict[str, int], step: TraceStep, idx: int) -> int | None:
    """The trajectory index of an identical earlier call, else None (and remember this one).
    The tools are read-only, so the same call returns the same text: a small model can send
    one failing query again and again, spending the whole budget (even after a note saying
    so)."""
    key = json.dumps([step.tool, step.args], sort_keys=True, default=str)
    earlier = calls_seen.get(key)
    if earlier is None:
        calls_seen[key] = idx
    return earlier
