"""Input limits on both stores: a turn of the longest length allowed goes through every later
step (store, GraphQuery, index rebuild, export and import), and two Memory objects adding to
one session give every turn its own number, with none lost.

The Neo4j server is shared: each test uses its own scope and search namespace, and erases its
scope (``forget``) at the end."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from apexmem_neo import Memory
from apexmem_neo.memory import InvalidInputError
from apexmem_neo.settings import MAX_TURN_CHARS_LIMIT
from apexmem_neo.testing import HashingEmbedder

pytestmark = [pytest.mark.integration]
Opener = Callable[..., Memory]
WRITERS = 2
TURNS_EACH = 25


def longest_turn(chars: int) -> str:
    """``chars`` characters that are as large as text gets: 4-byte emoji (the limit's worst case
    in UTF-8), one word longer than any index accepts as a term, and a few plain words."""
    words = " Alice likes long messages about piano "
    word = "y" * 40_000
    emoji = "\N{GRINNING FACE}" * (chars - len(words) - len(word) - 1)
    return f"{emoji} {word}{words}"


@pytest.fixture(params=["sqlite", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def opener(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Opener]:
    """Opens memories of the parametrised store (the same store each call), all closed after."""
    namespace = f"lim{uuid.uuid4().hex[:8]}"
    with ExitStack() as stack:

        def open_memory(**options: object) -> Memory:
            options.setdefault("embedder", HashingEmbedder())
            options.setdefault("lm", None)
            options.setdefault("home", tmp_path / "home")
            if request.param == "sqlite":
                memory = Memory.sqlite(tmp_path / "m.sqlite", **options)
            else:
                uri = request.getfixturevalue("neo4j_uri")
                memory = Memory.neo4j(uri, index_name=namespace, **options)
            return stack.enter_context(memory)

        yield open_memory


@pytest.fixture
def scope() -> str:
    return f"limits-{uuid.uuid4().hex[:10]}"


def test_a_turn_of_the_longest_length_goes_through_every_step(
    opener: Opener, scope: str, tmp_path: Path
) -> None:
    memory = opener(max_turn_chars=MAX_TURN_CHARS_LIMIT)
    text = longest_turn(MAX_TURN_CHARS_LIMIT)
    assert len(text) == MAX_TURN_CHARS_LIMIT and len(text.encode()) > 850_000
    try:
        added = memory.add([text, "A short one."], scope=scope, extract=False)
        assert [t.status for t in added.turns] == ["stored", "stored"] and added.indexed >= 2
        with pytest.raises(InvalidInputError, match="250,001 characters"):
            memory.add(text + "!", scope=scope, extract=False)
        lengths = memory.query(
            "SELECT length(text) AS n FROM turns ORDER BY seq", "sql", scope=scope
        ).rows
        assert [r[0] for r in lengths] == [MAX_TURN_CHARS_LIMIT, len("A short one.")]
        assert memory.index(rebuild=True) >= 2
        assert memory.search("Alice piano", scope=scope, k=2).turns
        exported = memory.export(tmp_path / "scope.jsonl", scope=scope)
        assert exported.rows["turns"] == 2
        with Memory.sqlite(
            tmp_path / "copy.sqlite", embedder=HashingEmbedder(), lm=None, home=tmp_path,
            max_turn_chars=MAX_TURN_CHARS_LIMIT,
        ) as copy:  # fmt: skip
            assert copy.import_file(tmp_path / "scope.jsonl").added["turns"] == 2
            rows = copy.query("SELECT text FROM turns ORDER BY seq", scope=scope).rows
            assert rows[0][0] == text
    finally:
        memory.forget(scope=scope)


def add_many(memory: Memory, scope: str, writer: int, errors: list[BaseException]) -> None:
    try:
        for i in range(TURNS_EACH):
            memory.add(f"writer {writer} turn {i}", scope=scope, session="s1", extract=False)
    except BaseException as exc:  # reported by the test, not lost in the thread
        errors.append(exc)


def test_two_writers_in_one_session_never_share_a_turn_number(opener: Opener, scope: str) -> None:
    memories = [opener(search=None) for _ in range(WRITERS)]
    errors: list[BaseException] = []
    threads = [
        threading.Thread(target=add_many, args=(m, scope, i, errors))
        for i, m in enumerate(memories)
    ]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not errors, errors
        rows = (
            memories[0]
            .query("SELECT seq, text FROM turns ORDER BY seq", "sql", scope=scope, limit=1000)
            .rows
        )
        assert [r[0] for r in rows] == list(range(WRITERS * TURNS_EACH))
        said = {r[1] for r in rows}
        assert said == {f"writer {w} turn {i}" for w in range(WRITERS) for i in range(TURNS_EACH)}
        memories[0].forget(scope=scope, session="s1")  # its turn counter goes with it
        memories[1].add("Again.", scope=scope, session="s1", extract=False)
        again = memories[0].query("SELECT seq FROM turns", "sql", scope=scope).rows
        assert [r[0] for r in again] == [0]
    finally:
        memories[0].forget(scope=scope)
