"""The public API's shape: AsyncMemory mirrors Memory, and every public result is JSON."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

from apexmem_neo import AsyncMemory, Memory
from apexmem_neo.agent import AgentResult
from apexmem_neo.testing import HashingEmbedder
from tests.unit.agent.alice import alice_batch


def public_names(cls: type) -> set[str]:
    return {
        name
        for name, value in inspect.getmembers(cls)
        if not name.startswith("_") and (callable(value) or isinstance(value, property))
    }


def test_async_memory_has_every_public_method_of_memory() -> None:
    missing = public_names(Memory) - public_names(AsyncMemory)
    assert missing == set()


def test_async_methods_take_the_parameters_of_memorys() -> None:
    """Each parameter of a Memory method is one of the AsyncMemory method's, or goes through
    its ``**options``."""
    for name in public_names(Memory) - {"language"}:
        wanted = inspect.signature(getattr(Memory, name)).parameters
        given = inspect.signature(getattr(AsyncMemory, name)).parameters
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in given.values()):
            continue
        assert set(wanted) - {"self", "cls"} <= set(given), name


def test_async_methods_are_coroutines_except_the_language_property() -> None:
    for name in public_names(Memory) - {"language"}:
        method = getattr(AsyncMemory, name)
        assert inspect.iscoroutinefunction(method), name


def as_json(result: Any) -> Any:
    return json.loads(json.dumps(result.model_dump(mode="json")))


def test_every_public_result_serialises_to_json(tmp_path: Path) -> None:
    with Memory.sqlite(
        tmp_path / "m.sqlite", home=tmp_path / "home", embedder=HashingEmbedder(), lm=None
    ) as memory:
        memory.store.write(alice_batch(scope="alice"))
        results: list[Any] = [
            memory.add("I moved to Oslo.", scope="alice", at="2024-05-01", extract=False),
            memory.history("Alice", "favourite restaurant", scope="alice"),
            memory.current("Alice", "favourite restaurant", scope="alice"),
            memory.changes("Alice", "favourite restaurant", scope="alice")[0],
            memory.entity("Alice", scope="alice"),
            memory.search("restaurant", scope="alice"),
            memory.stats(),
            memory.query("SELECT seq, text FROM turns ORDER BY seq", scope="alice"),
            memory.export(tmp_path / "alice.jsonl", scope="alice"),
            memory.import_file(tmp_path / "alice.jsonl"),
            memory.turns("alice"),
            memory.forget(scope="alice", session="default"),
            AgentResult(question="Where?", answer="Oslo"),
        ]
        for result in results:
            assert isinstance(as_json(result), dict), type(result).__name__


def test_a_query_result_dumps_its_columns_and_rows(tmp_path: Path) -> None:
    with Memory.sqlite(
        tmp_path / "m.sqlite", home=tmp_path / "home", embedder=HashingEmbedder(), lm=None
    ) as memory:
        memory.store.write(alice_batch(scope="alice"))
        result = memory.query("SELECT seq, speaker FROM turns ORDER BY seq", scope="alice")
        assert as_json(result)["rows"] == [[0, "Alice"], [1, "Alice"]]
        assert json.loads(result.model_dump_json())["columns"] == ["seq", "speaker"]
