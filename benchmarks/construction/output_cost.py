"""What the extraction output costs on the local server: the same ExtractCompact prompts sent
raw to llama-server under several response formats and demo counts, interleaved turn by turn.

Arms: ``schema`` (the strict json_schema the pipeline sends: a grammar on the server),
``object`` (json_object), ``none`` (no response_format), ``compact-demos`` (the schema, with
the demonstrations' JSON written without indentation), ``demos-3`` and ``demos-0`` (the
schema with the first three or no demonstrations), ``cap-3`` (at most three facts per turn,
in the schema and the demonstrations). Per arm: median seconds, generated tokens, generation
speed (the server's own timings), whether the reply parses, the facts written and how many
of them are grounded (a text value found in the turn itself, not only in its context).

Usage (from the repo root; the local LLM server running):
    .venv/bin/python -m benchmarks.construction.output_cost --data locomo10.json \
        --turns 8 --arms schema,object,none
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import Any

import dspy
import httpx
from dspy.adapters.utils import serialize_for_json

from apexmem_neo.construction.loaders import load_locomo
from apexmem_neo.llm.extract_compact.module import ExtractCompact
from apexmem_neo.llm.extract_compact.signatures import ExtractCompactSignature
from apexmem_neo.llm.extract_event.module import format_anchor, format_context
from apexmem_neo.llm.lm import SchemaJSONAdapter, output_model
from apexmem_neo.settings import LOCAL_LM_API_BASE
from benchmarks.construction.run import value_said
from benchmarks.locomo.data import add_data_argument, locomo_data

ARMS = ("schema", "object", "none", "compact-demos", "demos-3", "demos-0", "cap-3")
CAP = 3


class CompactDemosAdapter(SchemaJSONAdapter):
    """Writes the demonstrations' answers as JSON without indentation."""

    def format_assistant_message_content(
        self, signature: Any, outputs: dict[str, Any], missing_field_message: Any = None
    ) -> str:
        fields = {k: outputs.get(k, missing_field_message) for k in signature.output_fields}
        return json.dumps(serialize_for_json(fields), ensure_ascii=False)


def request(arm: str, inputs: dict[str, str], demos: list[dspy.Example]) -> dict[str, Any]:
    """The chat request body of ``arm`` for one turn."""
    sig = ExtractCompactSignature
    adapter = CompactDemosAdapter() if arm in ("compact-demos", "cap-3") else SchemaJSONAdapter()
    shown = {"demos-3": demos[:3], "demos-0": []}.get(arm, demos)
    if arm == "cap-3":
        shown = [_capped(d) for d in demos]
    body: dict[str, Any] = {
        "messages": adapter.format(sig, shown, inputs), "temperature": 0, "max_tokens": 1024
    }  # fmt: skip
    schema = output_model(sig).model_json_schema()
    if arm == "cap-3":
        schema["$defs"]["CompactEvent"]["properties"]["facts"]["maxItems"] = CAP
    formats = {"object": {"type": "json_object"}, "none": None}
    chosen = formats.get(
        arm,
        {"type": "json_schema", "json_schema": {"name": "out", "schema": schema, "strict": True}},
    )
    if chosen is not None:
        body["response_format"] = chosen
    return body


def _capped(demo: dspy.Example) -> dspy.Example:
    event = demo.event.model_copy(update={"facts": demo.event.facts[:CAP]})
    return dspy.Example(**{**demo.toDict(), "event": event}).with_inputs(*demo.inputs().keys())


def grounded(facts: list[Any], text: str) -> int:
    """Facts whose text value is found in the turn's own text (``value_said``)."""
    return sum(isinstance(f.value, str) and value_said(f.value, text) for f in facts)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_argument(p)
    p.add_argument("--conversation", default="conv-30")
    p.add_argument("--turns", type=int, default=8)
    p.add_argument("--arms", default="schema,object,none")
    p.add_argument("--api-base", default=LOCAL_LM_API_BASE)
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    arms = [a for a in args.arms.split(",") if a]
    unknown = [a for a in arms if a not in ARMS]
    if unknown:
        raise SystemExit(f"unknown arm(s) {', '.join(unknown)}; known: {', '.join(ARMS)}")
    args.data = locomo_data(args.data)
    turns = load_locomo(args.data, [args.conversation], 1)[: args.turns]
    demos = list(ExtractCompact().predict.demos)
    results: dict[str, list[dict[str, Any]]] = {a: [] for a in arms}
    with httpx.Client(timeout=600) as client:
        for i, turn in enumerate(turns):
            context = [(t.speaker, t.text) for t in turns[max(0, i - 3) : i]]
            inputs = {
                "known_properties": "(none yet)", "anchor": format_anchor(turn.anchor),
                "context": format_context(context) or "(start of conversation)",
                "speaker": turn.speaker, "listener": turn.listener or "(none)", "text": turn.text,
            }  # fmt: skip
            for arm in arms if i % 2 == 0 else arms[::-1]:  # who goes first alternates
                body = request(arm, inputs, demos)
                results[arm].append(_call(client, args.api_base, body, turn.text))
    for arm, rows in results.items():
        print(
            f"{arm:14} s {statistics.median(r['seconds'] for r in rows):5.1f}  "
            f"tokens {statistics.median(r['generated'] for r in rows):5.0f}  "
            f"tok/s {statistics.median(r['per_second'] for r in rows):5.1f}  "
            f"parsed {sum(r['parsed'] for r in rows)}/{len(rows)}  "
            f"facts {sum(r['facts'] for r in rows)}  grounded {sum(r['grounded'] for r in rows)}"
        )
    return 0


def _call(client: httpx.Client, api_base: str, body: dict[str, Any], text: str) -> dict[str, Any]:
    t0 = time.perf_counter()
    reply = client.post(f"{api_base.rstrip('/')}/chat/completions", json=body).json()
    timings = reply.get("timings", {})
    text = reply["choices"][0]["message"]["content"]
    try:
        event = SchemaJSONAdapter().parse(ExtractCompactSignature, text)["event"]
        facts = list(event.facts)
        parsed = True
    except Exception:  # any reply the pipeline could not read counts as unparsed
        parsed, facts = False, []
    return {
        "seconds": time.perf_counter() - t0,
        "generated": timings.get("predicted_n", 0),
        "per_second": timings.get("predicted_per_second", 0.0),
        "parsed": parsed,
        "facts": len(facts),
        "grounded": grounded(facts, text),
    }


if __name__ == "__main__":
    raise SystemExit(main())
