"""Build DSPy LMs for honest measurement, and make local servers get structured output.

``make_lm`` gives a ``dspy.LM`` at temperature 0 with DSPy's response cache off, so a
benchmark measures the model rather than the cache.

``SchemaJSONAdapter`` fixes a gap for local OpenAI-compatible servers (llama-server, vLLM,
...). ``dspy.JSONAdapter`` picks the ``response_format`` from the LM's capabilities, which
come from a bundled model-metadata snapshot (the native route) or from LiteLLM's model map
(the LiteLLM route). A model id neither knows, such as ``openai/qwen2.5-coder-1.5b-instruct``,
reports neither ``response_format`` as a supported parameter nor response-schema support,
so the plain adapter sends *no* ``response_format`` at all and the small model answers in
free text. The subclass skips the capability lookup and always sends the signature's output
model as a strict ``json_schema``, or ``json_object`` where no closed schema exists
(open-ended ``dict`` outputs). llama-server turns the schema into a grammar, so the reply
conforms by construction.

The output model is built here (``response_format``), with DSPy's rules for OpenAI
structured outputs, from public APIs only, so a DSPy upgrade cannot remove it. It also
carries each output field's ``max_length`` as ``maxItems`` / ``maxLength``, which a model
built from the bare annotations lacks; without it the small model listed evidence turn ids
("D17:2", "D17:3", ...) until ``max_tokens``.
"""

from __future__ import annotations

import os
from typing import Any, get_origin

import dspy
import pydantic
from annotated_types import MaxLen

DEFAULT_MAX_TOKENS = 1024

JSON_OBJECT: dict[str, str] = {"type": "json_object"}
"""The response format where no closed schema exists."""

ResponseFormat = type[pydantic.BaseModel] | dict[str, str]
"""An output model (sent as a strict ``json_schema``) or a plain format such as ``json_object``."""

# An adapter call's parts, as dspy.Adapter's __call__, format and parse take and return them.
LMKwargs = dict[str, Any]
SignatureClass = type[dspy.Signature]
Demos = list[dict[str, Any]]
Inputs = dict[str, Any]
Messages = list[dict[str, Any]]
Outputs = list[dict[str, Any]]  # the parsed replies, one per generation

OUTPUT_MODEL_NAME = "DSPyProgramOutputs"
"""The output model's name (the ``json_schema`` name the server sees), as DSPy names it."""


def make_lm(
    model: str, api_base: str | None = None, api_key: str | None = None, **kwargs: Any
) -> dspy.LM:
    """A ``dspy.LM`` for ``model`` (any LiteLLM id); temperature 0, cache off and at most
    ``DEFAULT_MAX_TOKENS`` generated tokens by default (a runaway generation on the local
    server's single slot would stall every other caller)."""
    quiet_litellm()
    kwargs.setdefault("temperature", 0.0)
    kwargs.setdefault("max_tokens", DEFAULT_MAX_TOKENS)
    kwargs.setdefault("cache", False)
    if api_base is not None:
        kwargs["api_base"] = api_base
    if api_key is not None:
        kwargs["api_key"] = api_key
    return dspy.LM(model, **kwargs)


def quiet_litellm() -> None:
    """Keep LiteLLM's banners off the console ("Give Feedback / Get Help", "Provider List",
    printed on every failure unless ``suppress_debug_info``) and its logger to errors, through
    its public settings. Called where an LM is built, not at import: a process that builds no
    LM keeps LiteLLM as it was. The failure itself reaches the caller as an exception. A
    level set on the logger, or ``LITELLM_LOG``, is left as it is."""
    import logging

    import litellm

    litellm.suppress_debug_info = True
    logger = logging.getLogger("LiteLLM")
    if logger.level == logging.NOTSET and not os.environ.get("LITELLM_LOG"):
        logger.setLevel(logging.ERROR)


class SchemaJSONAdapter(dspy.JSONAdapter):  # type: ignore[misc]
    """A JSONAdapter that always sends ``response_format``, whatever the model metadata says.

    Use it for servers known to honour OpenAI's ``json_schema`` response format but whose
    model id DSPy cannot look up. Formatting and parsing are JSONAdapter's (tool-call fields
    keep its rules), so subclasses still tune them through JSONAdapter's methods.

    The call is not JSONAdapter's: that one chooses a response format from the LM's
    capabilities, which would replace ours for any LM that lists ``response_format`` (with
    ``json_object``, or with a schema without the length caps). ``__call__`` and ``acall``
    set ours and run ``dspy.Adapter``'s pipeline through ``FormattedBy``, an adapter that
    formats and parses with this one. Like JSONAdapter, it never falls back to another adapter
    on a parse error.
    """

    def response_format(self, signature: type[dspy.Signature]) -> ResponseFormat:
        """What this adapter sends as ``response_format`` for ``signature``."""
        return response_format(signature, self.use_native_function_calling)

    def __call__(
        self, lm: Any, lm_kwargs: LMKwargs, signature: SignatureClass, demos: Demos, inputs: Inputs
    ) -> Outputs:
        lm_kwargs["response_format"] = self.response_format(signature)
        outputs: Outputs = FormattedBy(self)(lm, lm_kwargs, signature, demos, inputs)
        return outputs

    async def acall(
        self, lm: Any, lm_kwargs: LMKwargs, signature: SignatureClass, demos: Demos, inputs: Inputs
    ) -> Outputs:
        lm_kwargs["response_format"] = self.response_format(signature)
        outputs: Outputs = await FormattedBy(self).acall(lm, lm_kwargs, signature, demos, inputs)
        return outputs


class FormattedBy(dspy.Adapter):  # type: ignore[misc]
    """``dspy.Adapter``'s own call (prepare native features, format, call the LM, parse) with
    another adapter's ``format`` and ``parse``, so that adapter's response format is the one
    the LM receives. It takes the other adapter's native-feature settings as well."""

    def __init__(self, adapter: dspy.Adapter) -> None:
        super().__init__(
            use_native_function_calling=adapter.use_native_function_calling,
            native_response_types=adapter.native_response_types,
            parallel_tool_calls=adapter.parallel_tool_calls,
        )
        self.adapter = adapter

    def format(self, signature: SignatureClass, demos: Demos, inputs: Inputs) -> Messages:
        messages: Messages = self.adapter.format(signature, demos, inputs)
        return messages

    def parse(self, signature: SignatureClass, completion: str) -> dict[str, Any]:
        fields: dict[str, Any] = self.adapter.parse(signature, completion)
        return fields


def response_format(
    signature: type[dspy.Signature], use_native_function_calling: bool = True
) -> ResponseFormat:
    """``json_object`` where a strict schema cannot describe the outputs (an open-ended ``dict``
    output, or a tool-call output the model must write as text), else ``output_model``."""
    fields = signature.output_fields.values()
    has_tool_calls = any(field.annotation == dspy.ToolCalls for field in fields)
    if has_open_ended_mapping(signature) or (has_tool_calls and not use_native_function_calling):
        return dict(JSON_OBJECT)
    return output_model(signature, use_native_function_calling)


def has_open_ended_mapping(signature: type[dspy.Signature]) -> bool:
    """Whether an output field is a ``dict[...]``, whose keys no closed schema can list."""
    return any(get_origin(field.annotation) is dict for field in signature.output_fields.values())


def output_model(
    signature: type[dspy.Signature], use_native_function_calling: bool = True
) -> type[pydantic.BaseModel]:
    """A pydantic model of the signature's outputs whose JSON schema suits OpenAI's strict
    structured outputs (DSPy's rules: every object lists all its properties as ``required``
    and sets ``additionalProperties: false``), plus the fields' length caps
    (``add_length_limits``). A ``ToolCalls`` field is left out when native function calling
    carries the calls. LiteLLM and DSPy read the schema through ``model_json_schema``, which
    returns this one precomputed dict."""
    fields: dict[str, Any] = {}
    for name, field in signature.output_fields.items():
        if use_native_function_calling and field.annotation == dspy.ToolCalls:
            continue
        fields[name] = (field.annotation, getattr(field, "default", ...))
    model = pydantic.create_model(
        OUTPUT_MODEL_NAME, __config__=pydantic.ConfigDict(extra="forbid"), **fields
    )
    schema = model.model_json_schema()
    for prop in schema.get("properties", {}).values():
        prop.pop("json_schema_extra", None)  # DSPy's own field metadata, not a schema keyword
    close_object_schemas(schema)
    add_length_limits(schema, signature)

    def fixed_schema(*_args: Any, **_kwargs: Any) -> dict[str, Any]:
        return schema

    # setattr, not assignment: mypy refuses assigning to a method
    setattr(model, "model_json_schema", fixed_schema)  # noqa: B010
    return model


def close_object_schemas(schema: dict[str, Any]) -> None:
    """In place: every object schema gets ``required`` = all its properties and
    ``additionalProperties: false``, through object properties, array items and
    ``$defs`` / ``definitions``."""
    if schema.get("type") == "object":
        props = schema.setdefault("properties", {})
        schema["required"] = list(props)
        schema["additionalProperties"] = False
        for sub in props.values():
            if isinstance(sub, dict):
                close_object_schemas(sub)
    if schema.get("type") == "array" and isinstance(schema.get("items"), dict):
        close_object_schemas(schema["items"])
    for key in ("$defs", "definitions"):
        for sub in schema.get(key, {}).values():
            close_object_schemas(sub)


def add_length_limits(schema: dict[str, Any], signature: Any) -> None:
    """Write each output field's ``max_length`` into ``schema``: ``maxItems`` on an array,
    ``maxLength`` on a string (``output_model`` keeps only the bare annotations)."""
    properties = schema.get("properties", {})
    for name, field in signature.output_fields.items():
        limits = [m.max_length for m in field.metadata if isinstance(m, MaxLen)]
        prop = properties.get(name)
        if not limits or not isinstance(prop, dict):
            continue
        key = {"array": "maxItems", "string": "maxLength"}.get(prop.get("type", ""))
        if key is not None:
            prop[key] = min(limits)
