"""Input formats (LOCOMO, JSONL) and online relevance scoring with reuse of built turns."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import dspy
import pytest

from apexmem_neo.construction.checkpoint import Checkpoint
from apexmem_neo.construction.loaders import (
    LoaderError,
    detect_format,
    load_turns,
    parse_locomo_time,
)
from apexmem_neo.construction.online import build_online, relevance
from apexmem_neo.construction.pipeline import ConstructionPipeline, PipelineConfig
from apexmem_neo.llm import SchemaJSONAdapter
from apexmem_neo.ontology.ids import session_number
from apexmem_neo.store.sqlite import SQLiteGraphStore
from tests.unit.construction.conftest import event, fact, turn

LOCOMO = [
    {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Ben",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "Hi Ben!"},
                {
                    "speaker": "Ben",
                    "dia_id": "D1:2",
                    "text": "Look at this.",
                    "img_url": ["x"],
                    "blip_caption": "a photo of a dog",
                },
            ],
            "session_2_date_time": "10:37 am on 27 June, 2023",
            "session_2": [{"speaker": "Ann", "dia_id": "D2:1", "text": "Back again."}],
            "session_3_date_time": "10:37 am on 28 June, 2023",
        },
    }
]


def test_locomo_sessions_turns_anchors_listeners_and_captions(tmp_path: Path) -> None:
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(LOCOMO))
    turns = load_turns(path)
    assert detect_format(path) == "locomo"
    assert [t.source_key for t in turns] == ["conv-x:D1:1", "conv-x:D1:2", "conv-x:D2:1"]
    assert turns[0].anchor == "2023-05-08T13:56:00"
    assert turns[2].anchor == "2023-06-27T10:37:00"
    assert (turns[1].speaker, turns[1].listener) == ("Ben", "Ann")
    assert turns[1].text == "Look at this. [shares a photo: a photo of a dog]"
    assert [t.session_seq for t in turns] == [1, 1, 2]
    assert len(load_turns(path, max_sessions=1)) == 2
    assert load_turns(path, conversations=["other"]) == []


def test_jsonl_format_with_defaults_and_document_streams(tmp_path: Path) -> None:
    path = tmp_path / "stream.jsonl"
    lines = [
        {
            "speaker": "Alice",
            "listener": "Bob",
            "text": "a",
            "timestamp": "2024-01-15",
            "session": "s1",
        },
        {"speaker": "World", "text": "Snow in Denver.", "timestamp": "2024-01-16T08:00:00+01:00"},
        {
            "speaker": "Bob",
            "text": "b",
            "timestamp": "2024-01-15T20:00:00",
            "session": "s1",
            "id": "x",
        },
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n\n")
    turns = load_turns(path)
    assert detect_format(path) == "jsonl"
    s1, default = session_number("s1"), session_number("default")  # as Memory.add names them
    assert [(t.session_seq, t.seq) for t in turns] == [(s1, 0), (default, 0), (s1, 1)]
    assert turns[1].anchor == "2024-01-16T07:00:00"  # normalised to UTC
    assert turns[1].listener is None and turns[1].speaker == "World"
    assert turns[2].source_key == "stream:x"
    assert turns[0].conversation_id == "stream"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"speaker": "A", "text": "t"}', "missing required key 'timestamp'"),
        ('{"speaker": "A", "text": "t", "timestamp": "soon"}', "not an ISO 8601"),
        ("[1, 2]", "must be a JSON object"),
        ("{not json", "not JSON"),
    ],
)
def test_jsonl_errors_name_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(LoaderError, match=message) as info:
        load_turns(path)
    assert "bad.jsonl:1" in str(info.value)


def test_a_jsonl_turns_metadata_is_kept_and_a_bad_one_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "tagged.jsonl"
    lines = [
        {"speaker": "A", "text": "t", "timestamp": "2024-01-15", "metadata": {"source": "mail"}},
        {"speaker": "A", "text": "u", "timestamp": "2024-01-16"},
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    assert [t.metadata for t in load_turns(path)] == [{"source": "mail"}, {}]
    bad = {"speaker": "A", "text": "t", "timestamp": "2024-01-15", "metadata": {"tags": [1]}}
    path.write_text(json.dumps(lines[1]) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(LoaderError, match="metadata") as info:
        load_turns(path)
    assert "tagged.jsonl:2" in str(info.value)


def test_locomo_time_and_missing_file() -> None:
    assert parse_locomo_time("12:09 am on 13 September, 2023") == "2023-09-13T00:09:00"
    with pytest.raises(LoaderError):
        parse_locomo_time("yesterday")
    with pytest.raises(LoaderError, match="no such file"):
        load_turns("/nonexistent/file.json")


class BagOfWords:
    """A tiny deterministic embedder over a fixed vocabulary (raises on nothing)."""

    VOCAB = ("sushi", "restaurant", "food", "snow", "weather", "dog")

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [[float(w in t.lower()) for w in self.VOCAB] for t in texts]


def test_relevance_is_in_unit_range_and_ranks_the_relevant_text_first() -> None:
    texts = ["I love the sushi restaurant downtown.", "Heavy snow today.", "My dog barks."]
    lexical = relevance("Which restaurant serves sushi?", texts)
    assert lexical[0] == 1.0 and lexical[1] == lexical[2] == 0.0
    mixed = relevance("sushi food", texts, BagOfWords())
    assert all(0.0 <= s <= 1.0 for s in mixed)
    assert mixed[0] == max(mixed)
    assert relevance("anything", []) == []


def test_build_online_builds_relevant_turns_once_and_reuses_them(tmp_path: Path) -> None:
    adapter = SchemaJSONAdapter()
    texts = ["Sakura Sushi is my favourite restaurant.", "It snowed all day.", "My dog is Rex."]
    answers = {
        f"[[ ## text ## ]]\n{texts[0]}": event(
            [("Alice", "Person", "Speaker")],
            [fact("Alice", "favourite_restaurant", "Sakura Sushi", "Sakura Sushi")],
        ),
        f"[[ ## text ## ]]\n{texts[2]}": event(
            [("Rex", "Animal", "Mentioned")], [fact("Alice", "has_pet", "Rex", "My dog is Rex")]
        ),
    }
    turns = [turn(t, f"2024-01-1{i}T10:00:00", i) for i, t in enumerate(texts)]
    store, cp = SQLiteGraphStore(tmp_path / "g.sqlite"), Checkpoint(tmp_path / "g.sqlite")
    store.init_schema()
    cp.open()
    pipe = ConstructionPipeline(
        store,
        cp,
        dspy.utils.DummyLM(answers, adapter=adapter),
        PipelineConfig(extraction="full"),
        adapter=adapter,
    )
    first = build_online("Which restaurant does Alice like?", turns, pipe)
    assert first.selected == ["test:1:0"] and first.built == 1 and first.reused == 0
    second = build_online(
        "Is sushi her favourite restaurant, and does she have a dog?", turns, pipe
    )
    assert set(second.selected) == {"test:1:0", "test:1:2"}
    assert (second.built, second.reused) == (1, 1)
    assert second.stats.llm_calls == 1, second.stats.llm
