"""The Mem0 arm: stock Mem0 (PyPI ``mem0ai``, the ``bench-mem0`` extra) on the same local
model and the same packaged embedder as apexmem-neo, scored by the same deterministic rules.

How it is used, following Mem0's own LOCOMO evaluation of its open-source ``Memory``:

- ingest: each turn is one ``Memory.add`` of ``{"role": "user", "content": "<speaker>: <text>"}``
  under ``user_id`` = the conversation, with metadata ``speaker``, ``timestamp``, ``turn`` and
  ``session``. Mem0's open-source ``add`` refuses a ``timestamp`` (a platform-only feature), so
  its extraction grounds relative times ("yesterday") against the day of the run.
- ask: ``Memory.search`` of the question in the conversation, then one call of the same model
  with the memories, each prefixed by the day of its turn (as Mem0's evaluation shows them),
  the question's date and the question (``ANSWER_SYSTEM``, the kind of prompt the fast mode
  uses).
- facts: every stored memory is one fact; its subject is the person the scorer's ``owner_of``
  finds in its text, its value is its text, its turn is the one it was added from.
- reads and property names: Mem0 has neither, so those figures are None with the reason
  (``UNSUPPORTED``).

The LLM is the benchmark's own llama-server (``mem0_server``: a larger context per slot) or
``--mem0-api-base``; Mem0's stock prompts are used unchanged. Telemetry is off
(``MEM0_TELEMETRY=False``) and Mem0's files live under the store directory (``MEM0_DIR``).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable
from datetime import date
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import Any

import httpx

from apexmem_neo.search.packaged_models import resolve_model
from apexmem_neo.settings import LOCAL_LM, Settings
from benchmarks.construction_quality.questions import Read
from benchmarks.construction_quality.scoring import FactRow, ReadResult, owner_of
from benchmarks.construction_quality.truth import Conversation, DataSet, GenTurn, Question
from benchmarks.memory import append_jsonl, read_jsonl

EXTRA = "bench-mem0"
MISSING = (
    f"the Mem0 arm needs mem0ai: install the benchmark extra with "
    f".venv/bin/pip install -e '.[{EXTRA}]'"
)
COLLECTION = "construction_quality"
SEARCH_TOP_K = 10
MAX_MEMORIES = 10_000
ANSWER_SYSTEM = (
    "Answer the question from the memories only. Each memory starts with the day it was "
    "said. Today, when the question is asked, is {today}. Give the short answer: a name, a "
    "place or a value; for a when-question, the date.\n\nMemories:\n{memories}"
)
_NO_READS = "Mem0 has no read of one property of one entity, now or at a time; search only"
_NO_NAMES = "Mem0 stores free-text memories, without property names"
UNSUPPORTED: dict[str, str] = {
    "current": _NO_READS,
    "current_resolved": _NO_READS,
    "as_of_read": _NO_READS,
    "as_of_read_resolved": _NO_READS,
    "one_name_per_concept": _NO_NAMES,
    "entities_one_name": _NO_NAMES,
    "names_per_concept_mean": _NO_NAMES,
}
"""Figures that cannot be computed for Mem0, each with the reason."""


class Mem0ArmError(RuntimeError):
    """The Mem0 arm cannot go on: one line naming the cause."""


# ---- pure mapping (no mem0 needed) ----


def turn_message(conv_id: str, turn: GenTurn) -> tuple[list[dict[str, str]], dict[str, str]]:
    """The messages and metadata of one ``Memory.add`` for a turn."""
    messages = [{"role": "user", "content": f"{turn.speaker}: {turn.text}"}]
    meta = {"speaker": turn.speaker, "timestamp": turn.timestamp, "turn": turn.id,
            "session": turn.session, "conversation": conv_id}  # fmt: skip
    return messages, meta


def memory_line(memory: dict[str, Any]) -> str:
    """One retrieved memory as the answerer sees it: ``- <day of its turn>: <text>``."""
    stamp = str((memory.get("metadata") or {}).get("timestamp") or "")[:10]
    return f"- {stamp}: {memory['memory']}" if stamp else f"- {memory['memory']}"


def answer_messages(
    question: str, today: str, memories: list[dict[str, Any]]
) -> list[dict[str, str]]:
    """The answering call: Mem0's documented pattern (memories in the system message, the
    question as the user's), with the question's date."""
    lines = "\n".join(memory_line(m) for m in memories) or "(none)"
    system = ANSWER_SYSTEM.format(today=date.fromisoformat(today).strftime("%d %B %Y"),
                                  memories=lines)  # fmt: skip
    return [{"role": "system", "content": system}, {"role": "user", "content": question}]


def fact_rows(memories: list[dict[str, Any]], conv: Conversation) -> list[FactRow]:
    """Mem0's memories as facts: the subject the scorer finds in the text (the text itself
    when it names nobody known, which the scorer then calls a wrong entity), the text as the
    value, the turn it was added from, and a property name of its own (Mem0 has none, so no
    memory shares a concept's name with another and none is judged by its name alone)."""
    turns = {t.id: t.text for t in conv.turns}
    rows = []
    for mem in memories:
        meta = mem.get("metadata") or {}
        text = str(mem["memory"])
        rows.append(
            FactRow(
                fact_id=str(mem["id"]), entity=owner_of(text, conv) or text,
                property=f"mem0:{mem['id']}", value=text, t_from=meta.get("timestamp"),
                turn_text=turns.get(str(meta.get("turn"))),
            )
        )  # fmt: skip
    return rows


def unread(conv: Conversation, read: Read, prop: str | None, style: str) -> ReadResult:
    return ReadResult(read=read, style=style, property=prop, entity=None, error=_NO_READS)


def embedding_dims(model_dir: Path) -> int:
    """The sentence-transformers model's output size, from its saved modules (a Dense layer's
    ``out_features`` when it has one, else the pooling's word embedding size)."""
    modules = json.loads((model_dir / "modules.json").read_text(encoding="utf-8"))
    dims = None
    for module in modules:
        config = model_dir / module.get("path", "") / "config.json"
        if not module.get("path") or not config.is_file():
            continue
        values = json.loads(config.read_text(encoding="utf-8"))
        dims = values.get("out_features") or values.get("word_embedding_dimension") or dims
    if not isinstance(dims, int):
        raise Mem0ArmError(f"mem0 arm: cannot tell the embedding size of {model_dir}")
    return dims


def mem0_config(
    store: Path, model: str, api_base: str, api_key: str, embedder: Path, dims: int,
    callback: Callable[..., None] | None = None,
) -> dict[str, Any]:  # fmt: skip
    """``Memory.from_config``'s dict: the OpenAI-compatible local model, the packaged
    embedder by its local directory, qdrant in local (on-disk) path mode."""
    llm: dict[str, Any] = {"model": model, "openai_base_url": api_base, "api_key": api_key,
                           "temperature": 0.0}  # fmt: skip
    if callback is not None:
        llm["response_callback"] = callback
    return {
        "llm": {"provider": "openai", "config": llm},
        "embedder": {"provider": "huggingface",
                     "config": {"model": str(embedder), "embedding_dims": dims}},
        "vector_store": {"provider": "qdrant",
                         "config": {"collection_name": COLLECTION, "path": str(store / "qdrant"),
                                    "embedding_model_dims": dims, "on_disk": True}},
        "history_db_path": str(store / "history.db"),
    }  # fmt: skip


def openai_model(settings: Settings) -> str:
    """The model name Mem0's OpenAI provider sends: APEXMEM_LM without ``openai/``."""
    provider, _, name = settings.lm.partition("/")
    if provider != "openai" or not name:
        raise Mem0ArmError(
            f"mem0 arm: APEXMEM_LM={settings.lm} is not an OpenAI-compatible model "
            "(openai/<name>); Mem0 is given the same model as apexmem-neo through its OpenAI "
            "provider"
        )
    return name


def one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"{type(exc).__name__}: {text[:300]}"


# ---- the arm ----


class Mem0:
    """Stock Mem0 over one store directory (qdrant, its history database, turns done)."""

    name = "mem0"
    unsupported = UNSUPPORTED

    def __init__(self, store: Path, api_base: str, fresh: bool = False) -> None:
        if fresh:
            shutil.rmtree(store, ignore_errors=True)
        store.mkdir(parents=True, exist_ok=True)
        self.store, self.api_base = store, api_base
        self.done_file = store / "turns_done.jsonl"
        settings = Settings()
        self.model = openai_model(settings)
        api_key = settings.lm_endpoint()[1] or "local"
        self.embedder = Path(resolve_model(settings.embed_model, settings.models_dir))
        self.calls: list[dict[str, Any]] = []
        _check_server(api_base)
        self.memory = _open(mem0_config(
            store, self.model, api_base, api_key, self.embedder,
            embedding_dims(self.embedder), self._record,
        ), store)  # fmt: skip
        self.config = self._describe(settings)

    def _record(self, _llm: Any, response: Any, _params: Any) -> None:
        """Mem0's public ``response_callback``: usage, finish reason and raw text per call."""
        usage = getattr(response, "usage", None)
        choice = response.choices[0]
        self.calls.append({
            "prompt_tokens": getattr(usage, "prompt_tokens", 0) or 0,
            "completion_tokens": getattr(usage, "completion_tokens", 0) or 0,
            "finish_reason": choice.finish_reason, "content": choice.message.content or "",
        })  # fmt: skip

    def ingest(self, data: DataSet, jsonl: Path) -> dict[str, Any]:
        """Add every turn not added before, then the cost of every turn this store holds."""
        done = {(r["conversation"], r["turn"]) for r in read_jsonl(self.done_file)}
        todo = [(c, t) for c in data.conversations for t in c.turns
                if (c.conversation_id, t.id) not in done]  # fmt: skip
        for i, (conv, turn) in enumerate(todo, start=1):
            append_jsonl(self.done_file, self._add(conv, turn))
            row = read_jsonl(self.done_file)[-1]
            print(f"  mem0 ingest {i}/{len(todo)} {turn.id} memories={row['memories']} "
                  f"{row['seconds']:.0f} s", flush=True)  # fmt: skip
        return ingest_cost(read_jsonl(self.done_file))

    def _add(self, conv: Conversation, turn: GenTurn) -> dict[str, Any]:
        messages, meta = turn_message(conv.conversation_id, turn)
        self.calls = []
        t0 = time.perf_counter()
        try:
            added = self.memory.add(messages, user_id=conv.conversation_id, metadata=meta)
        except Exception as exc:
            raise Mem0ArmError(f"mem0 arm: add of turn {turn.id} failed: {one_line(exc)}") from exc
        results = added.get("results", []) if isinstance(added, dict) else added
        return {
            "conversation": conv.conversation_id, "turn": turn.id,
            "seconds": round(time.perf_counter() - t0, 2), "memories": len(results),
            "llm_calls": len(self.calls),
            "prompt_tokens": sum(c["prompt_tokens"] for c in self.calls),
            "completion_tokens": sum(c["completion_tokens"] for c in self.calls),
            "truncated": sum(c["finish_reason"] == "length" for c in self.calls),
            "unparsed": sum(not _parses(c["content"]) for c in self.calls),
        }  # fmt: skip

    def ask(self, conv: Conversation, question: Question) -> dict[str, Any]:
        self.calls = []
        t0 = time.perf_counter()
        try:
            found = self.memory.search(question.text, filters={"user_id": conv.conversation_id},
                                       top_k=SEARCH_TOP_K)["results"]  # fmt: skip
            answer = self.memory.llm.generate_response(
                answer_messages(question.text, question.at, found)
            )
        except Exception as exc:
            raise Mem0ArmError(f"mem0 arm: ask {question.qid} failed: {one_line(exc)}") from exc
        return {
            "answer": str(answer or "").strip(), "seconds": round(time.perf_counter() - t0, 2),
            "llm_calls": len(self.calls),
            "tokens": sum(c["prompt_tokens"] + c["completion_tokens"] for c in self.calls),
            "mode": "mem0 search + answer", "error": None,
            "memories": [memory_line(m) for m in found],
        }  # fmt: skip

    def facts(self, conv: Conversation) -> list[FactRow]:
        got = self.memory.get_all(filters={"user_id": conv.conversation_id}, top_k=MAX_MEMORIES)
        return fact_rows(got["results"], conv)

    def read(self, conv: Conversation, read: Read, prop: str | None, style: str) -> ReadResult:
        return unread(conv, read, prop, style)

    def close(self) -> None:
        self.memory.close()

    def _describe(self, settings: Settings) -> dict[str, Any]:
        """How Mem0 was configured, for the result's ``config`` block."""
        from benchmarks.construction_quality.mem0_server import slot_context

        return {
            "mem0ai": _installed("mem0ai"), "qdrant_client": _installed("qdrant-client"),
            "llm": {"provider": "openai (OpenAI-compatible)", "model": self.model,
                    "api_base": self.api_base, "temperature": 0.0,
                    "max_tokens": "Mem0's default", "same_model_as": settings.lm,
                    "context_tokens_per_slot": slot_context(self.api_base)},
            "embedder": {"provider": "huggingface (sentence-transformers, local directory)",
                         "model": settings.embed_model, "path": str(self.embedder)},
            "vector_store": {"provider": "qdrant", "mode": "local path (on disk, no server)",
                             "path": str(self.store / "qdrant")},
            "prompts": "stock (ADDITIVE_EXTRACTION_PROMPT, no custom instructions)",
            "add": "one turn per add: role user, content '<speaker>: <text>', user_id = "
            "conversation; metadata speaker, timestamp, turn, session",
            "timestamps": "not given to extraction: Mem0's open-source add() refuses "
            "timestamp (platform only), so relative times are grounded on the run's date; "
            "the answerer sees each memory's turn day from metadata",
            "search": f"Memory.search top_k={SEARCH_TOP_K}, Mem0's default threshold",
            "answer_prompt": ANSWER_SYSTEM,
            "optional_extras": "none: mem0ai as installed without its nlp extra (spaCy, whose "
            "model downloads at run time, is kept off) and without fastembed (BM25), so search "
            "is semantic only and there is no entity linking",
            "telemetry": "off (MEM0_TELEMETRY=False)",
        }  # fmt: skip


def ingest_cost(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The construction figures the run reports, from the per-turn records."""
    turns = len(rows) or 1
    seconds = sum(r["seconds"] for r in rows)
    calls = sum(r["llm_calls"] for r in rows)
    return {
        "turns": len(rows), "llm_calls": calls,
        "tokens": sum(r["prompt_tokens"] + r["completion_tokens"] for r in rows),
        "wall_seconds": round(seconds, 1), "memories": sum(r["memories"] for r in rows),
        "llm_calls_per_turn": round(calls / turns, 3),
        "seconds_per_turn": round(seconds / turns, 2),
        "failed_turns": 0,  # a failed add stops the run
        "truncated_outputs": sum(r["truncated"] for r in rows),
        "unparsed_outputs": sum(r["unparsed"] for r in rows),
        "turns_without_memory": sum(r["memories"] == 0 for r in rows),
    }  # fmt: skip


def _parses(content: str) -> bool:
    """Whether Mem0's parser reads a memory list from an extraction output (its own
    functions, so a reply it silently drops is counted)."""
    from mem0.memory.utils import extract_json, remove_code_blocks

    text = remove_code_blocks(content or "")
    if not text.strip():
        return True  # Mem0 reads an empty reply as "nothing to remember"
    for candidate in (text, extract_json(text)):
        try:
            return isinstance(json.loads(candidate, strict=False).get("memory", []), list)
        except (ValueError, AttributeError):
            continue
    return False


def _installed(dist: str) -> str | None:
    try:
        return importlib_metadata.version(dist)
    except importlib_metadata.PackageNotFoundError:
        return None


def _check_server(api_base: str) -> None:
    try:
        httpx.get(f"{api_base.rstrip('/')}/models", timeout=5.0).raise_for_status()
    except (httpx.HTTPError, OSError) as exc:
        raise Mem0ArmError(
            f"mem0 arm: no LLM server answers at {api_base} ({one_line(exc)}); start it with "
            ".venv/bin/python -m benchmarks.construction_quality.mem0_server up"
        ) from exc


def _open(config: dict[str, Any], store: Path) -> Any:
    """Mem0's ``Memory`` from ``config``, telemetry off and its files under ``store``."""
    os.environ["MEM0_TELEMETRY"] = "False"
    os.environ["MEM0_DIR"] = str(store / "mem0_dir")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        from mem0 import Memory
    except ImportError as exc:
        raise Mem0ArmError(MISSING) from exc
    from mem0.memory import telemetry
    from mem0.utils import spacy_models

    if telemetry.MEM0_TELEMETRY:
        raise Mem0ArmError("mem0 arm: mem0 was imported before telemetry could be turned off")
    # With spaCy installed but not its model, Mem0 downloads en_core_web_sm from GitHub on
    # first use; nothing may download here, so Mem0 runs as installed without its `nlp` extra
    # (its own fallback: no entity linking, BM25 on the raw text) on every machine.
    spacy_models._load_failed_full = spacy_models._load_failed_lemma = True
    return Memory.from_config(config)


__all__ = ["LOCAL_LM", "Mem0", "Mem0ArmError"]
