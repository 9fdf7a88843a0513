"""The outside reference: neo4j-graphrag's Text2CypherRetriever inside its GraphRAG pipeline.

One shot: question -> Cypher (one LLM call, the library's own prompt) -> the library's
EXPLAIN read-only guard -> rows -> answer (a second LLM call, the library's RAG prompt). No
retry, no tool loop: what the agentic loop adds is measured against this.

The schema is handed over as text in the library's own format, built from the same
``Neo4jQueryBackend.schema()`` the agent's SchemaViewer shows, because the library's
automatic schema reading needs the APOC plugin, which the project's Neo4j does not ship.
The model is reached through the library's ``OpenAILLM`` at the OpenAI-compatible
``api_base`` (the local llama-server by default); a LiteLLM id ``openai/<name>`` becomes
``<name>``, and other providers need an OpenAI-compatible endpoint for this arm.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from neo4j import Driver
from neo4j_graphrag.generation import GraphRAG
from neo4j_graphrag.llm import OpenAILLM
from neo4j_graphrag.llm.types import LLMResponse
from neo4j_graphrag.retrievers import Text2CypherRetriever

from apexmem_neo.query.backend import SchemaInfo
from apexmem_neo.tools.compact_schema import EXAMPLE_QUERIES, EXAMPLE_REQUEST, HISTORY_NOTE
from benchmarks.query_languages.fewshot import cypher_example
from benchmarks.query_languages.judge import is_correct
from benchmarks.query_languages.metrics import (
    CallRecord,
    QuestionRecord,
    classify_exception,
    rows_head,
)
from benchmarks.query_languages.questions import Question, dated_text

ARM = "text2cypher"


class CountingOpenAILLM(OpenAILLM):
    """OpenAILLM that adds up the token usage and calls the library itself discards."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tokens = 0
        self.calls = 0

    def invoke(self, *args: Any, **kwargs: Any) -> LLMResponse:
        self.calls += 1
        response: LLMResponse = super().invoke(*args, **kwargs)
        if response.usage is not None:
            self.tokens += int(response.usage.total_tokens or 0)
        return response


def schema_text(info: SchemaInfo) -> str:
    """The schema in neo4j-graphrag's ``get_schema`` text format."""
    nodes = [t for t in info.tables if t.kind == "node label"]
    rels = [t for t in info.tables if t.kind == "relationship"]

    def props(table: Any) -> str:
        return ", ".join(f"{c.name}: {c.type.upper()}" for c in table.columns)

    lines = ["Node properties:"]
    lines += [f"{t.name} {{{props(t)}}}" for t in nodes]
    lines += ["Relationship properties:"]
    lines += [f"{t.name} {{{props(t)}}}" for t in rels]
    lines += ["The relationships:"]
    lines += [r.pattern for r in info.relations]
    lines += [f"Note: {n}" for n in info.notes]
    return "\n".join(lines)


def model_name(lm: str) -> str:
    return lm.removeprefix("openai/")


class Text2CypherArm:
    """The fourth arm over ``driver``'s graph; ``ask`` never raises (errors are recorded).
    ``demos`` (compiled few-shot examples) follow the worked example every arm is shown."""

    name = ARM

    def __init__(
        self,
        driver: Driver,
        schema: SchemaInfo,
        lm: str,
        api_base: str,
        api_key: str,
        demos: Sequence[str] = (),
    ) -> None:
        self.llm = CountingOpenAILLM(
            model_name=model_name(lm),
            model_params={"temperature": 0.0, "max_tokens": 300},
            base_url=api_base,
            api_key=api_key,
        )
        self.retriever = Text2CypherRetriever(
            driver=driver,
            llm=self.llm,
            neo4j_schema=f"{schema_text(schema)}\nNote: {HISTORY_NOTE}",
            examples=[cypher_example(EXAMPLE_REQUEST, EXAMPLE_QUERIES["cypher"]), *demos],
        )
        self.rag = GraphRAG(retriever=self.retriever, llm=self.llm)

    def ask(self, question: Question) -> QuestionRecord:
        self.llm.tokens = self.llm.calls = 0
        text = dated_text(question)
        t0 = time.perf_counter()
        answer, error, call = "", None, CallRecord(tool="Text2Cypher")
        try:
            result = self.rag.search(query_text=text, return_context=True)
            answer = result.answer
            context = result.retriever_result
            cypher = context.metadata.get("cypher", "") if context and context.metadata else ""
            items = context.items if context else []
            shown = "\n".join(str(item.content) for item in items)
            call = CallRecord(tool="Text2Cypher", args={"query": cypher},
                              output_head=rows_head(len(items), shown), ok=True,
                              error_class=None if items else "empty result")  # fmt: skip
        except Exception as exc:  # every failure of the pipeline is a result of this arm
            error = f"{type(exc).__name__}: {exc}"[:800]
            call = CallRecord(tool="Text2Cypher", output_head=error[:300], ok=False,
                              error_class=classify_exception(exc))  # fmt: skip
        return QuestionRecord(
            arm=ARM, qid=question.qid, kind=question.kind, question=question.text,
            gold=question.gold, answer_type=question.answer_type, answer=answer,
            correct=is_correct(answer, question.gold, question.answer_type), error=error,
            calls=[call], tool_calls=1, llm_calls=self.llm.calls, tokens=self.llm.tokens,
            seconds=round(time.perf_counter() - t0, 3),
        )  # fmt: skip
