"""What the QA benchmarks share: a ``Memory`` (store, query backend, search index) built by
the construction pipeline, the agent over it, and the provenance written with every result.

SQLite (default): the graph in ``db``, the embedded search index beside it
(``x.sqlite`` -> ``x.search.sqlite``); both are kept, so a second run reuses the ingest
(the checkpoint skips done turns) and the index (upserts are idempotent). Neo4j: the server at
NEO4J_URI with a Neo4j-native search namespace; the checkpoint lives in ``db``.
"""

from __future__ import annotations

import json
import os
import platform
import shlex
import subprocess
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from apexmem_neo import Memory
from apexmem_neo.agent import AgentConfig, MemoryAgent
from apexmem_neo.construction.checkpoint import Checkpoint
from apexmem_neo.construction.loaders import TurnInput
from apexmem_neo.construction.pipeline import PipelineConfig, RunStats, TurnReport
from apexmem_neo.llm import make_lm
from apexmem_neo.llm.lm import DEFAULT_MAX_TOKENS
from apexmem_neo.settings import Settings

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"
WORK = RESULTS / "work"  # kept stores and indexes (git-ignored with results/)
StoreName = Literal["sqlite", "neo4j"]

__all__ = ["Memory"]


def resolve_lm(model: str | None, api_base: str | None, max_tokens: int) -> tuple[Any, str]:
    """A temperature-0 LM for ``model`` (default APEXMEM_LM) and the model name used; the
    local api_base applies only to the local default model (``Settings.lm_endpoint``)."""
    settings = Settings()
    name = model or settings.lm
    base, key = settings.lm_endpoint() if name == settings.lm else (None, None)
    base = api_base or base
    return make_lm(name, base, key, max_tokens=max_tokens, timeout=1800), name


@contextmanager
def open_memory(store: StoreName, db: Path, namespace: str, lm: Any = None) -> Iterator[Memory]:
    """The benchmark's memory (schema ready, search index opened lazily); ``lm`` extracts."""
    settings = Settings()
    db.parent.mkdir(parents=True, exist_ok=True)
    common: dict[str, Any] = {
        "lm": lm,
        "embedder": settings.embed_model,
        "home": settings.apexmem_home,
        "models_dir": settings.models_dir,
    }
    if store == "sqlite":
        memory = Memory.sqlite(db, **common)
    else:
        memory = Memory.neo4j(
            settings.neo4j_uri, auth=settings.neo4j_auth(), database=settings.neo4j_database,
            index_name=namespace, checkpoint=db, **common,
        )  # fmt: skip
    with memory:
        yield memory


def print_progress(report: TurnReport, stats: RunStats) -> None:
    """One line per ingested turn: its status, facts, LLM calls and the wall time so far."""
    print(
        f"  ingest {stats.processed}/{stats.turns_total - stats.turns_skipped} {report.status} "
        f"facts={report.facts} llm_calls={report.llm_calls} ({stats.wall_seconds:.0f} s)",
        flush=True,
    )


def extraction_lm(lm: Any) -> Any:
    """``lm`` with the output budget ``apexmem ingest`` gives extraction (``DEFAULT_MAX_TOKENS``)
    when its own is smaller: at the answering budget of 512 tokens a turn with many facts was
    cut off, failed to parse and was asked again (2 of 18 LOCOMO turns in one smoke run)."""
    return lm.copy(max_tokens=max(DEFAULT_MAX_TOKENS, lm.kwargs.get("max_tokens", 0)))


def ingest(memory: Memory, turns: Sequence[TurnInput], lm: Any, source: str) -> RunStats:
    """Extract the turns with ``lm`` (done turns are skipped), then index the whole graph."""
    memory.lm = extraction_lm(lm)
    added = memory.ingest_turns(
        turns, source=source, config=PipelineConfig(), on_turn=print_progress
    )
    memory.index(optimize=False)
    assert added.run is not None
    return added.run


def construction_cost(checkpoint: Checkpoint) -> dict[str, float]:
    """LLM calls, tokens and seconds of every construction run saved in the checkpoint."""
    rows = checkpoint.conn.execute("SELECT stats_json FROM construction_runs").fetchall()
    total = {"runs": 0.0, "llm_calls": 0.0, "tokens": 0.0, "wall_seconds": 0.0, "turns": 0.0}
    for (raw,) in rows:
        stats = json.loads(raw)
        total["runs"] += 1
        total["llm_calls"] += stats.get("llm_calls", 0)
        total["tokens"] += stats.get("tokens", 0)
        total["wall_seconds"] += stats.get("wall_seconds", 0.0)
        total["turns"] += stats.get("turns_done", 0) + stats.get("turns_failed", 0)
    return total


def make_agent(memory: Memory, lm: Any, config: AgentConfig, scope: str) -> MemoryAgent:
    """The agent over ``scope`` of ``memory`` answering with ``lm`` (the benchmarks vary its
    config; a LOCOMO conversation is its own scope)."""
    return memory.agent(scope=scope, lm=lm, config=config)


def head_commit() -> str:
    """The repository's HEAD commit, or "unknown" outside a git checkout."""
    root = Path(__file__).resolve().parents[1]
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True)
    return head.stdout.strip() or "unknown"


def repo_path(path: Path) -> str:
    """``path`` relative to the repository when it lies inside it, else as given."""
    try:
        return path.resolve().relative_to(REPO).as_posix()
    except ValueError:
        return str(path)


def portable_args(argv: Sequence[str]) -> list[str]:
    """``argv`` with each absolute path inside the repository made relative to it, so a
    recorded command runs from any clone."""
    return [repo_path(Path(a)) if a.startswith(f"{REPO}/") else a for a in argv]


def provenance(module: str, argv: Sequence[str], **extra: Any) -> dict[str, Any]:
    """The exact command (``python -m module argv``, paths in the repository relative to
    it), commit, time, host load and Python of a run (the commit is taken when it starts)."""
    load = os.getloadavg() if hasattr(os, "getloadavg") else (0.0, 0.0, 0.0)
    return {
        "command": shlex.join([".venv/bin/python", "-m", module, *portable_args(argv)]),
        "commit": head_commit(),
        "started_at": datetime.now(UTC).replace(tzinfo=None).isoformat(timespec="seconds"),
        "load_avg_1_5_15": [round(x, 2) for x in load],
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        **extra,
    }


def append_jsonl(path: Path, record: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(record) + "\n")


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


@dataclass
class AnswerLog:
    """One run's answers waiting for the judge (``<stem>.answers.jsonl``) and its judged records
    (``<stem>.jsonl``), keyed by (``group``, qid) where ``group`` names the record field that
    says which system or memory answered. Only rows from the store file that group uses now
    count (``db_of(group) -> path``), so a rebuilt memory is asked again."""

    jsonl: Path
    group: str
    db_of: Callable[[str], str]

    @property
    def answers(self) -> Path:
        return self.jsonl.with_suffix(".answers.jsonl")

    def records(self) -> list[dict[str, Any]]:
        """The judged records of the current stores."""
        return self._rows(self.jsonl)

    def judged(self) -> set[tuple[str, str]]:
        return {(r[self.group], r["qid"]) for r in self.records()}

    def waiting(self) -> dict[tuple[str, str], dict[str, Any]]:
        return {(r[self.group], r["qid"]): r["got"] for r in self._rows(self.answers)}

    def save_answer(self, group: str, qid: str, got: dict[str, Any]) -> None:
        row = {self.group: group, "qid": qid, "db": self.db_of(group), "got": got}
        append_jsonl(self.answers, row)

    def save_record(self, record: dict[str, Any]) -> None:
        append_jsonl(self.jsonl, {**record, "db": self.db_of(record[self.group])})

    def _rows(self, path: Path) -> list[dict[str, Any]]:
        return [r for r in read_jsonl(path) if r.get("db") == self.db_of(r[self.group])]
