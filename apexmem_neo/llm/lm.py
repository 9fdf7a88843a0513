"""Build DSPy LMs for honest measurement, and make local servers get structured output.

``make_lm`` gives a ``dspy.LM`` at temperature 0 with DSPy's response cache off, so a
benchmark measures the model rather than the cache.

``SchemaJSONAdapter`` fixes a gap for local OpenAI-compatible servers (llama-server, vLLM,
...). dspy 3.4.1's ``JSONAdapter._prepare_response_format`` decides from the LM's
capabilities, which come from a bundled model-metadata snapshot (the native route) or from
LiteLLM's model map (the LiteLLM route). A model id neither knows, such as
``openai/qwen2.5-coder-1.5b-instruct``, reports neither ``response_format`` as a supported
parameter nor ``supports_response_schema``, so the adapter sends *no* ``response_format`` at
all and the small model answers in free text. The subclass skips the capability lookup and
always sends the signature's output model as a strict ``json_schema`` (DSPy's own builder),
or ``json_object`` where no closed schema exists (open-ended ``dict`` outputs). llama-server
turns the schema into a grammar, so the reply conforms by construction.

DSPy's builder also drops an output field's ``max_length`` (it keeps the bare annotation), so
the adapter puts it back as ``maxItems`` / ``maxLength``. Without it the 1.5B model listed
evidence turn ids ("D17:2", "D17:3", ...) until max_tokens, ~50 s per answer.
"""

from __future__ import annotations

import os

# Before dspy/litellm load: use the bundled model metadata instead of fetching it at import.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from typing import Any

import dspy
from annotated_types import MaxLen
from dspy.adapters.json_adapter import (
    _get_structured_outputs_response_format,
    _has_open_ended_mapping,
)
from dspy.adapters.types.tool import ToolCalls

DEFAULT_MAX_TOKENS = 1024


def make_lm(
    model: str, api_base: str | None = None, api_key: str | None = None, **kwargs: Any
) -> dspy.LM:
    """A ``dspy.LM`` for ``model`` (any LiteLLM id); temperature 0, cache off and at most
    ``DEFAULT_MAX_TOKENS`` generated tokens by default (a runaway generation on the local
    server's single slot would stall every other caller)."""
    kwargs.setdefault("temperature", 0.0)
    kwargs.setdefault("max_tokens", DEFAULT_MAX_TOKENS)
    kwargs.setdefault("cache", False)
    if api_base is not None:
        kwargs["api_base"] = api_base
    if api_key is not None:
        kwargs["api_key"] = api_key
    return dspy.LM(model, **kwargs)


class SchemaJSONAdapter(dspy.JSONAdapter):  # type: ignore[misc]
    """A JSONAdapter that always sends ``response_format``, whatever the model metadata says.

    Use it for servers known to honour OpenAI's ``json_schema`` response format but whose
    model id DSPy cannot look up. Tool-call fields keep JSONAdapter's rules.
    """

    def _prepare_response_format(self, lm: Any, lm_kwargs: dict[str, Any], signature: Any) -> None:
        outputs = signature.output_fields.values()
        has_tool_calls = any(field.annotation == ToolCalls for field in outputs)
        if _has_open_ended_mapping(signature) or (
            has_tool_calls and not self.use_native_function_calling
        ):
            lm_kwargs["response_format"] = {"type": "json_object"}
            return
        response_model = _get_structured_outputs_response_format(
            signature, self.use_native_function_calling
        )
        # The builder overrides model_json_schema to return one precomputed dict, so editing
        # that dict changes what LiteLLM sends for this model.
        add_length_limits(response_model.model_json_schema(), signature)
        lm_kwargs["response_format"] = response_model


def add_length_limits(schema: dict[str, Any], signature: Any) -> None:
    """Write each output field's ``max_length`` into ``schema``: ``maxItems`` on an array,
    ``maxLength`` on a string (DSPy's schema builder leaves both out)."""
    properties = schema.get("properties", {})
    for name, field in signature.output_fields.items():
        limits = [m.max_length for m in field.metadata if isinstance(m, MaxLen)]
        prop = properties.get(name)
        if not limits or not isinstance(prop, dict):
            continue
        key = {"array": "maxItems", "string": "maxLength"}.get(prop.get("type", ""))
        if key is not None:
            prop[key] = min(limits)
