"""The positional output form the construction output-cost benchmark measures."""

from __future__ import annotations

from apexmem_neo.llm.extract_compact.module import ExtractCompact
from apexmem_neo.llm.lm import SchemaJSONAdapter
from benchmarks.construction import lean, positional
from benchmarks.construction.output_cost import request

INPUTS = {
    "known_properties": "(none yet)", "anchor": "2023-01-20T16:04:00 (Friday)",
    "context": "(start of conversation)", "speaker": "Gina", "listener": "Jon",
    "text": "Yeah, me too! Contemporary dance speaks to me.",
}  # fmt: skip


def test_sentences_are_numbered_and_found_by_their_words() -> None:
    text = "Oh no! I started at Orbit Labs. Version 2.5 is out."
    assert (
        positional.numbered(text)
        == "[1] Oh no! [2] I started at Orbit Labs. [3] Version 2.5 is out."
    )
    assert positional.sentence_number("version 2.5", text) == 3
    assert positional.sentence_number("not there", text) == 1


def test_the_positional_request_shows_array_demos_and_a_numbered_turn() -> None:
    body = request("positional", INPUTS, list(ExtractCompact().predict.demos))
    demo_answers = [m["content"] for m in body["messages"] if m["role"] == "assistant"]
    assert demo_answers and all('"quote"' not in a and '"facts": [' in a for a in demo_answers)
    assert (
        "[1] Yeah, me too! [2] Contemporary dance speaks to me." in body["messages"][-1]["content"]
    )
    assert body["response_format"]["type"] == "json_schema"


def test_a_positional_reply_parses() -> None:
    facts = '[["Gina", "fav", "dance", 2, null]]'
    reply = '{"event": {"event": "x", "mentions": [["Jon", "Person"]], "facts": ' + facts + "}}"
    event = SchemaJSONAdapter().parse(positional.SIGNATURE, reply)["event"]
    assert event.facts == [("Gina", "fav", "dance", 2, None)]
    assert event.mentions[0][0] == "Jon"


def test_the_lean_request_drops_quotes_and_mentions_and_its_reply_parses() -> None:
    body = request("lean", INPUTS, list(ExtractCompact().predict.demos))
    demo_answers = [m["content"] for m in body["messages"] if m["role"] == "assistant"]
    assert demo_answers and all('"quote"' not in a and '"mentions"' not in a for a in demo_answers)
    assert any('"subject"' in a for a in demo_answers)
    reply = (
        '{"event": {"event": "x", "facts": [{"subject": "Gina", "property": "fav", '
        '"value": "dance", "when": null}]}}'
    )
    event = SchemaJSONAdapter().parse(lean.SIGNATURE, reply)["event"]
    assert event.facts[0].value == "dance" and not hasattr(event, "mentions")
