"""What a new user sees first, pinned through the local LLM in every answering mode.

The README quickstart (two turns: Italian Garden, then "Sakura Sushi is my favourite
restaurant now.") and the `make demo` sample (six turns) are built by extraction, then
``current()`` must give Sakura Sushi under the one property that held Italian Garden, and the
demo's three questions (now, as of 2024-02-01, when it changed) must be answered right in
every answering mode: ``fast``, ``auto`` (the default), ``react`` and ``query``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from apexmem_neo.cli.demo import DEMO_SCOPE, QUESTIONS
from apexmem_neo.memory import Memory
from apexmem_neo.samples import sample_path
from tests.readme_quickstart import QUICKSTART_TURNS

pytestmark = [pytest.mark.integration, pytest.mark.llm]

CHANGE_DATES = ("2024-03-20", "march 20", "20 march")
PINNED_MODES = ("fast", "auto", "react", "query")


@pytest.fixture(scope="module")
def quickstart(lm_api_base: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    path = tmp_path_factory.mktemp("quickstart") / "alice.sqlite"
    with Memory.sqlite(
        path, lm_api_base=lm_api_base, lm_api_key="local", home=path.parent
    ) as memory:
        memory.add(QUICKSTART_TURNS, scope="alice")
        yield memory


@pytest.fixture(scope="module")
def demo(lm_api_base: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    with Memory.sqlite(
        path, lm_api_base=lm_api_base, lm_api_key="local", home=path.parent
    ) as memory:
        memory.ingest_file(sample_path(), fmt="jsonl", scope=DEMO_SCOPE)
        yield memory


def _restaurants(memory: Memory, scope: str) -> list[str]:
    history = memory.history("Alice", "favourite_restaurant", scope=scope)
    return [str(f.value) for f in history.facts]


def _check_answers(memory: Memory, scope: str, mode: str) -> None:
    now, as_of, changed = (
        memory.ask(q.question, scope=scope, at=q.date, mode=mode) for q in QUESTIONS
    )
    assert "sakura sushi" in now.answer.lower(), (mode, now.answer)
    assert "italian garden" in as_of.answer.lower(), (mode, as_of.answer)
    assert any(d in changed.answer.lower() for d in CHANGE_DATES), (mode, changed.answer)


@pytest.mark.timeout(3600)
def test_the_quickstart_keeps_one_favourite_restaurant(quickstart: Memory) -> None:
    assert _restaurants(quickstart, "alice") == ["Italian Garden", "Sakura Sushi"]
    current = quickstart.current("Alice", "favourite_restaurant", scope="alice")
    assert current is not None and current.value == "Sakura Sushi"


@pytest.mark.timeout(3600)
@pytest.mark.parametrize("mode", PINNED_MODES)
def test_the_quickstart_answers_in_every_mode(quickstart: Memory, mode: str) -> None:
    _check_answers(quickstart, "alice", mode)


@pytest.mark.timeout(3600)
def test_the_demo_keeps_one_favourite_restaurant(demo: Memory) -> None:
    assert _restaurants(demo, DEMO_SCOPE) == ["Italian Garden", "Sakura Sushi"]
    current = demo.current("Alice", "favourite_restaurant", scope=DEMO_SCOPE)
    assert current is not None and current.value == "Sakura Sushi"


@pytest.mark.timeout(3600)
@pytest.mark.parametrize("mode", PINNED_MODES)
def test_the_demo_answers_in_every_mode(demo: Memory, mode: str) -> None:
    _check_answers(demo, DEMO_SCOPE, mode)
