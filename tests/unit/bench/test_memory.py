"""benchmarks.memory: the benchmarks ingest with the same extraction budget as `apexmem ingest`."""

from __future__ import annotations

from apexmem_neo.llm import make_lm
from apexmem_neo.llm.lm import DEFAULT_MAX_TOKENS
from benchmarks.memory import extraction_lm


def test_extraction_gets_the_ingest_budget_and_the_answering_lm_keeps_its_own() -> None:
    answering = make_lm("openai/local-test", "http://127.0.0.1:9/v1", "local", max_tokens=512)
    extracting = extraction_lm(answering)
    assert extracting.kwargs["max_tokens"] == DEFAULT_MAX_TOKENS
    assert answering.kwargs["max_tokens"] == 512
    larger = make_lm("openai/local-test", "http://127.0.0.1:9/v1", "local", max_tokens=4096)
    assert extraction_lm(larger).kwargs["max_tokens"] == 4096
