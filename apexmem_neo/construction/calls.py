"""LLM calls with bounded retries and per-stage accounting of calls, tokens and time.

``LLMRunner.run(stage, call)`` invokes ``call(config)`` inside ``dspy.context`` (the LM and
adapter are passed explicitly, never set globally) and ``dspy.track_usage()``. A call that
raises (an unparseable or invalid output, a server error) is retried up to ``max_attempts``
in all, the retries at a small positive temperature so that they can differ; DSPy's JSON
adapter already repairs near-JSON (json_repair) and the output models coerce near-miss
values, so what reaches a retry is genuinely malformed. The last failure is returned with
the raw model output, never raised; only a model that cannot be used at all (unreachable,
no or a refused key, unknown: ``apexmem_neo.llm.failures``) raises ``LanguageModelError`` at
once, since every other call would fail the same way.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import dspy
from pydantic import TypeAdapter

from apexmem_neo.llm import SchemaJSONAdapter
from apexmem_neo.llm.failures import raise_if_fatal

T = TypeVar("T")


class CompactJSONAdapter(SchemaJSONAdapter):
    """SchemaJSONAdapter whose few-shot answers are compact JSON (no indentation).

    The model imitates the demos' layout, so compact demos cost fewer prompt tokens and make
    the model generate fewer whitespace tokens: on a slow local model, generation is most of
    a turn's time.
    """

    def format_field_with_value(
        self, fields_with_values: dict[Any, Any], role: str = "user"
    ) -> str:
        if role == "user":
            text: str = super().format_field_with_value(fields_with_values, role)
            return text
        values = {field.name: value for field, value in fields_with_values.items()}
        return json.dumps(_jsonable(values), ensure_ascii=False, separators=(",", ":"))


def _jsonable(value: Any) -> Any:
    """``value`` as plain JSON data, through pydantic (a nested value it cannot serialise
    becomes its string; the whole value only when pydantic cannot handle it at all)."""
    try:
        return TypeAdapter(type(value)).dump_python(value, mode="json", fallback=str)
    except Exception:
        return str(value)


@dataclass
class StageUsage:
    calls: int = 0
    failed_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0

    def as_dict(self) -> dict[str, float | int]:
        return {
            "calls": self.calls,
            "failed_calls": self.failed_calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
            "seconds": round(self.seconds, 3),
        }


@dataclass
class UsageLedger:
    """Thread-safe totals per stage (extract, resolve_entity, resolve_property)."""

    stages: dict[str, StageUsage] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, stage: str, ok: bool, tokens: tuple[int, int], seconds: float) -> None:
        with self._lock:
            usage = self.stages.setdefault(stage, StageUsage())
            usage.calls += 1
            usage.failed_calls += 0 if ok else 1
            usage.prompt_tokens += tokens[0]
            usage.completion_tokens += tokens[1]
            usage.seconds += seconds

    def totals(self) -> StageUsage:
        with self._lock:
            total = StageUsage()
            for usage in self.stages.values():
                total.calls += usage.calls
                total.failed_calls += usage.failed_calls
                total.prompt_tokens += usage.prompt_tokens
                total.completion_tokens += usage.completion_tokens
                total.seconds += usage.seconds
            return total

    def snapshot(self) -> dict[str, dict[str, float | int]]:
        with self._lock:
            return {name: usage.as_dict() for name, usage in sorted(self.stages.items())}


@dataclass
class CallResult(Generic[T]):
    value: T | None
    calls: int
    error: str | None = None
    raw_output: str | None = None

    @property
    def ok(self) -> bool:
        return self.value is not None


def _tokens(tracker: Any) -> tuple[int, int]:
    prompt = completion = 0
    for usage in tracker.get_total_tokens().values():
        prompt += int(usage.get("prompt_tokens") or 0)
        completion += int(usage.get("completion_tokens") or 0)
    return prompt, completion


def _raw_output(exc: BaseException) -> str | None:
    raw = getattr(exc, "lm_response", None)
    return None if raw is None else str(raw)


class LLMRunner:
    """Runs DSPy module calls against ``lm`` with retries; accounts usage in ``ledger``."""

    def __init__(
        self,
        lm: Any,
        adapter: Any | None = None,
        max_attempts: int = 3,
        retry_temperature: float = 0.4,
        ledger: UsageLedger | None = None,
    ) -> None:
        if max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {max_attempts}")
        self.lm = lm
        self.adapter = adapter if adapter is not None else CompactJSONAdapter()
        self.max_attempts = max_attempts
        self.retry_temperature = retry_temperature
        self.ledger = ledger if ledger is not None else UsageLedger()

    def run(self, stage: str, call: Callable[[dict[str, object]], T]) -> CallResult[T]:
        error: str | None = None
        raw: str | None = None
        for attempt in range(1, self.max_attempts + 1):
            config: dict[str, object] = {}
            if attempt > 1:
                config = {"temperature": self.retry_temperature, "rollout_id": attempt}
            started = time.perf_counter()
            value: T | None = None
            with dspy.context(lm=self.lm, adapter=self.adapter), dspy.track_usage() as tracker:
                try:
                    value = call(config)
                except Exception as exc:  # any bad output or server error: retry, then record
                    raise_if_fatal(exc)  # not a model that cannot be used: stop the run
                    error, raw = f"{type(exc).__name__}: {exc}"[:2000], _raw_output(exc)
            elapsed = time.perf_counter() - started
            self.ledger.add(stage, value is not None, _tokens(tracker), elapsed)
            if value is not None:
                return CallResult(value, attempt)
        return CallResult(None, self.max_attempts, error, raw)
