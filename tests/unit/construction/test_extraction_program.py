"""A compiled extraction program: its demos replace the built-in ones, and a file compiled
for another prompt is refused."""

from __future__ import annotations

from pathlib import Path

import dspy
import pytest

from apexmem_neo.agent.programs import AnswerProgram
from apexmem_neo.construction.checkpoint import Checkpoint
from apexmem_neo.construction.pipeline import ConstructionPipeline, PipelineConfig
from apexmem_neo.errors import ApexMemError
from apexmem_neo.llm.extract_compact import ExtractCompact
from apexmem_neo.llm.extract_compact.examples import DEMOS
from apexmem_neo.store.sqlite import SQLiteGraphStore


def _pipeline(
    store: SQLiteGraphStore, checkpoint: Checkpoint, program: Path
) -> ConstructionPipeline:
    config = PipelineConfig(extraction_program=program)
    return ConstructionPipeline(store, checkpoint, dspy.utils.DummyLM([]), config)


def test_the_compiled_demos_replace_the_built_in_ones(
    store: SQLiteGraphStore, checkpoint: Checkpoint, tmp_path: Path
) -> None:
    compiled = ExtractCompact()
    compiled.predict.demos = DEMOS[:2]
    path = tmp_path / "extraction.json"
    compiled.save(str(path))
    pipe = _pipeline(store, checkpoint, path)
    loaded = pipe.compact_extractor.predict.demos
    assert len(loaded) == 2 and len(ExtractCompact().predict.demos) == len(DEMOS)
    assert loaded[0]["text"] == DEMOS[0]["text"]


def test_a_program_of_another_kind_is_refused(
    store: SQLiteGraphStore, checkpoint: Checkpoint, tmp_path: Path
) -> None:
    path = tmp_path / "answer.json"
    AnswerProgram().save(str(path))
    with pytest.raises(ApexMemError):
        _pipeline(store, checkpoint, path)
    with pytest.raises(ApexMemError, match="no compiled program"):
        _pipeline(store, checkpoint, tmp_path / "missing.json")
