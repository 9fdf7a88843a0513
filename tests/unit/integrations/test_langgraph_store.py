"""ApexMemStore against the real langgraph package on real SQLite memories (no service, no
LLM): put/get/overwrite/delete kept append-only, search with and without a query, filters,
limits, namespaces, batches and the async methods, and LangGraph's Item fields."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from langgraph.store.base import (
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchItem,
    SearchOp,
)

from apexmem_neo import Memory
from apexmem_neo.errors import InvalidInputError
from apexmem_neo.integrations.langgraph import (
    SESSION,
    ApexMemStore,
    item_text,
    matches_filter,
    namespace_scope,
    scope_namespace,
)
from apexmem_neo.testing import HashingEmbedder

ALICE = ("users", "alice")
BOB = ("users", "bob")


def open_memory(tmp_path: Path, **options: Any) -> Memory:
    options.setdefault("embedder", HashingEmbedder())
    return Memory.sqlite(tmp_path / "m.sqlite", home=tmp_path / "home", lm=None, **options)


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Memory]:
    with open_memory(tmp_path) as memory:
        yield memory


@pytest.fixture
def store(memory: Memory) -> ApexMemStore:
    return ApexMemStore(memory)


def keys(items: list[SearchItem]) -> list[tuple[tuple[str, ...], str]]:
    return [(item.namespace, item.key) for item in items]


def test_namespaces_map_to_scopes_and_back() -> None:
    assert namespace_scope(("users", "alice")) == "users/alice"
    assert namespace_scope(("alice",)) == "alice"
    assert namespace_scope(("a-b", "c_d", "e:f", "g@h")) == "a-b/c_d/e:f/g@h"
    assert scope_namespace("users/alice") == ("users", "alice")
    assert scope_namespace("a//b") is None and scope_namespace("x.y") is None


@pytest.mark.parametrize(
    "namespace",
    [(), ("a/b",), ("has space",), ("ünï",), ("-lead",), ("x" * 129,), ("a", "x" * 127)],
)
def test_a_namespace_no_scope_can_hold_is_refused_with_the_rule(
    store: ApexMemStore, namespace: tuple[str, ...]
) -> None:
    with pytest.raises(InvalidNamespaceError, match="scope|at least one label"):
        store.batch([PutOp(namespace, "k", {"text": "x"})])
    assert store.memory.scopes() == []


def test_langgraphs_own_label_checks_still_apply(store: ApexMemStore) -> None:
    with pytest.raises(InvalidNamespaceError, match="periods"):
        store.put(("a.b",), "k", {"x": 1})
    with pytest.raises(InvalidNamespaceError, match="langgraph"):
        store.put(("langgraph",), "k", {"x": 1})


def test_put_then_get_returns_an_item_with_langgraphs_fields(store: ApexMemStore) -> None:
    before = datetime.now(UTC)
    store.put(ALICE, "food", {"text": "Alice likes sushi", "tags": ["a", 1], "n": {"x": None}})
    item = store.get(ALICE, "food")
    assert isinstance(item, Item)
    assert item.namespace == ALICE and item.key == "food"
    assert item.value == {"text": "Alice likes sushi", "tags": ["a", 1], "n": {"x": None}}
    assert item.created_at.tzinfo is not None and before <= item.created_at <= datetime.now(UTC)
    assert item.updated_at == item.created_at
    assert item.dict()["namespace"] == ["users", "alice"]
    assert store.get(ALICE, "nothing") is None
    assert store.get(BOB, "food") is None
    assert store.get(("never", "used"), "food") is None


def test_a_put_is_a_turn_without_extraction_whose_metadata_holds_the_item(
    store: ApexMemStore, memory: Memory
) -> None:
    store.put(ALICE, "food", {"text": "Alice likes sushi", "kind": "pref", "n": 3})
    (turn,) = memory.turns("users/alice", session=SESSION).items
    assert turn.text == "Alice likes sushi" and turn.speaker == "LangGraph"
    assert turn.metadata["langgraph.key"] == "food"
    assert turn.metadata["langgraph.op"] == "put"
    assert json.loads(str(turn.metadata["langgraph.namespace"])) == ["users", "alice"]
    assert json.loads(str(turn.metadata["langgraph.value"])) == {
        "text": "Alice likes sushi",
        "kind": "pref",
        "n": 3,
    }
    assert turn.metadata["langgraph.value.kind"] == "pref"
    assert "langgraph.value.n" not in turn.metadata  # only string fields are copied
    assert memory.stats().counts.facts == 0  # no LLM, no facts
    found = memory.turns("users/alice", metadata={"langgraph.value.kind": "pref"}).items
    assert [t.turn_id for t in found] == [turn.turn_id]


def test_overwrite_keeps_the_history_and_get_returns_the_latest(
    store: ApexMemStore, memory: Memory
) -> None:
    store.put(ALICE, "food", {"text": "Alice likes sushi"})
    first = store.get(ALICE, "food")
    store.put(ALICE, "food", {"text": "Alice likes ramen now"})
    latest = store.get(ALICE, "food")
    assert first is not None and latest is not None
    assert latest.value == {"text": "Alice likes ramen now"}
    assert latest.created_at == first.created_at and latest.updated_at > first.updated_at
    turns = memory.turns("users/alice", session=SESSION).items
    assert [t.text for t in turns] == ["Alice likes sushi", "Alice likes ramen now"]


def test_delete_is_a_tombstone_and_a_later_put_starts_a_new_item(
    store: ApexMemStore, memory: Memory
) -> None:
    store.put(ALICE, "food", {"text": "sushi"})
    created = store.get(ALICE, "food")
    store.delete(ALICE, "food")
    assert store.get(ALICE, "food") is None
    assert store.search(ALICE) == []
    ops = [t.metadata["langgraph.op"] for t in memory.turns("users/alice").items]
    assert ops == ["put", "delete"]
    store.put(ALICE, "food", {"text": "ramen"})
    again = store.get(ALICE, "food")
    assert again is not None and created is not None
    assert again.value == {"text": "ramen"} and again.created_at > created.created_at
    store.delete(ALICE, "never-put")  # deleting nothing is no error
    assert store.get(ALICE, "never-put") is None


def test_values_that_are_not_json_store_nothing(store: ApexMemStore, memory: Memory) -> None:
    with pytest.raises(InvalidInputError, match="'bad': the value must be JSON"):
        store.batch([PutOp(ALICE, "ok", {"x": 1}), PutOp(ALICE, "bad", {"when": datetime.now()})])
    with pytest.raises(InvalidInputError, match="must be JSON"):
        store.put(ALICE, "nan", {"x": float("nan")})
    assert memory.scopes() == []


def test_ttl_is_refused(store: ApexMemStore) -> None:
    assert store.supports_ttl is False
    with pytest.raises(NotImplementedError, match="TTL"):  # LangGraph's own check in put()
        store.put(ALICE, "k", {"x": 1}, ttl=5)
    with pytest.raises(InvalidInputError, match="TTL"):
        store.batch([PutOp(ALICE, "k", {"x": 1}, ttl=5.0)])


def fill(store: ApexMemStore) -> None:
    store.put(ALICE, "food", {"text": "Alice likes sushi", "kind": "pref", "score": 3})
    store.put(ALICE, "home", {"text": "Alice lives in Paris", "kind": "fact", "score": 5})
    store.put(ALICE, "pet", {"text": "Alice has a cat named Miso", "kind": "fact", "score": 1})
    store.put(BOB, "food", {"text": "Bob likes pizza", "kind": "pref", "score": 4})
    store.put(("teams", "red"), "goal", {"text": "Ship the release", "meta": {"level": 2}})


def test_search_without_a_query_lists_the_latest_first(store: ApexMemStore) -> None:
    fill(store)
    store.put(ALICE, "food", {"text": "Alice likes ramen now", "kind": "pref", "score": 3})
    found = store.search(ALICE)
    assert keys(found) == [(ALICE, "food"), (ALICE, "pet"), (ALICE, "home")]
    assert found[0].value["text"] == "Alice likes ramen now" and found[0].score is None
    assert all(isinstance(item, SearchItem) for item in found)
    assert {k for k, _ in keys(store.search(("users",)))} == {ALICE, BOB}
    assert len(store.search(())) == 5
    assert store.search(("nobody",)) == []


def test_search_limit_and_offset_page_the_items(store: ApexMemStore) -> None:
    fill(store)
    everything = keys(store.search((), limit=100))
    assert keys(store.search((), limit=2)) == everything[:2]
    assert keys(store.search((), limit=2, offset=2)) == everything[2:4]
    assert keys(store.search((), limit=10, offset=4)) == everything[4:]
    assert store.search((), offset=10) == []


@pytest.mark.parametrize(
    ("filter", "expected"),
    [
        ({"kind": "pref"}, {"food"}),
        ({"kind": {"$eq": "fact"}}, {"home", "pet"}),
        ({"kind": {"$ne": "fact"}}, {"food"}),
        ({"score": {"$gt": 2}}, {"food", "home"}),
        ({"score": {"$gte": 3, "$lt": 5}}, {"food"}),
        ({"score": {"$lte": 1}}, {"pet"}),
        ({"kind": "fact", "score": 5}, {"home"}),
        ({"missing": "x"}, set()),
    ],
)
def test_search_filters_like_langgraphs_stores(
    store: ApexMemStore, filter: dict[str, Any], expected: set[str]
) -> None:
    fill(store)
    assert {item.key for item in store.search(ALICE, filter=filter)} == expected


def test_a_filter_reads_the_latest_value_not_an_older_one(store: ApexMemStore) -> None:
    fill(store)
    store.put(ALICE, "food", {"text": "Alice likes ramen", "kind": "old"})
    assert {i.key for i in store.search(ALICE, filter={"kind": "pref"})} == set()
    assert {i.key for i in store.search(ALICE, query="sushi", filter={"kind": "pref"})} == set()


def test_nested_filters_and_the_matching_rules() -> None:
    value = {"meta": {"level": 2, "tags": ["a"]}, "n": 1}
    assert matches_filter(value, {"meta": {"level": 2}})
    assert matches_filter(value, {"meta": {"tags": ["a"]}})
    assert not matches_filter(value, {"meta": {"tags": ["b"]}})
    assert not matches_filter(value, {"n": {"$gt": "x"}})
    assert matches_filter(value, None) and matches_filter(value, {})
    with pytest.raises(ValueError, match="unsupported filter operator"):
        matches_filter(value, {"n": {"$in": [1]}})


def test_search_with_a_query_ranks_the_current_items(store: ApexMemStore) -> None:
    fill(store)
    found = store.search(("users",), query="cat named Miso")
    assert found[0].key == "pet" and found[0].namespace == ALICE
    assert all(isinstance(item.score, float) for item in found)
    assert [i.score for i in found] == sorted((i.score or 0.0 for i in found), reverse=True)
    assert {k for k, _ in keys(found)} <= {ALICE, BOB}
    assert len(found) == 4  # every current item of the prefix, ranked


def test_a_query_never_returns_an_overwritten_or_deleted_version(store: ApexMemStore) -> None:
    fill(store)
    store.put(ALICE, "food", {"text": "Alice likes ramen", "kind": "pref"})
    store.delete(ALICE, "pet")
    found = store.search(ALICE, query="sushi cat Miso")
    assert [i.value["text"] for i in found if i.key == "food"] == ["Alice likes ramen"]
    assert "pet" not in {i.key for i in found}
    assert len(found) == len({i.key for i in found}) == 2


def test_a_query_with_a_filter_limit_and_offset(store: ApexMemStore) -> None:
    fill(store)
    ranked = store.search(("users",), query="likes", filter={"kind": "pref"})
    assert {i.key for i in ranked} == {"food"} and len(ranked) == 2
    ranked_all = keys(store.search(("users",), query="likes"))
    assert keys(store.search(("users",), query="likes", limit=1)) == ranked_all[:1]
    assert keys(store.search(("users",), query="likes", limit=1, offset=1)) == ranked_all[1:2]


def test_items_index_the_fields_asked_for(store: ApexMemStore, memory: Memory) -> None:
    store.put(ALICE, "doc", {"title": "Garden plans", "body": {"notes": ["roses", "tulips"]}},
              index=["title", "body.notes[*]"])  # fmt: skip
    (turn,) = memory.turns("users/alice").items
    assert turn.text == "Garden plans\nroses\ntulips"
    assert item_text({"content": "hello"}) == "hello"
    assert item_text({"a": 1}) == '{"a": 1}'
    assert item_text({"text": "  "}, ["missing"]) == '{"text": "  "}'


def test_list_namespaces_matches_cuts_and_pages(store: ApexMemStore, memory: Memory) -> None:
    fill(store)
    store.put(("users", "alice", "prefs"), "x", {"v": 1})
    memory.add("I am not a store item", scope="carol", extract=False)
    prefs = ("users", "alice", "prefs")
    assert store.list_namespaces() == [("teams", "red"), ALICE, prefs, BOB]  # not carol
    assert store.list_namespaces(prefix=("users",)) == [ALICE, prefs, BOB]
    assert store.list_namespaces(suffix=("alice",)) == [ALICE]
    assert store.list_namespaces(prefix=("*", "alice")) == [ALICE, prefs]
    assert store.list_namespaces(max_depth=1) == [("teams",), ("users",)]
    assert store.list_namespaces(limit=2, offset=1) == [ALICE, prefs]


def test_a_namespace_whose_items_are_all_deleted_is_not_listed(store: ApexMemStore) -> None:
    store.put(BOB, "food", {"text": "pizza"})
    store.delete(BOB, "food")
    assert store.list_namespaces() == []


def test_store_turns_share_the_scope_with_conversation_turns(
    store: ApexMemStore, memory: Memory
) -> None:
    memory.add("I moved to Lisbon", scope="alice", extract=False)
    store.put(("alice",), "home", {"text": "Alice lives in Lisbon"})
    assert [i.key for i in store.search(("alice",))] == ["home"]
    assert [i.key for i in store.search(("alice",), query="Lisbon")] == ["home"]
    texts = {hit.text for hit in memory.search("Lisbon", scope="alice").turns}
    assert {"User: I moved to Lisbon", "LangGraph: Alice lives in Lisbon"} <= texts


def test_a_batch_runs_in_order_and_reads_see_earlier_puts(store: ApexMemStore) -> None:
    results = store.batch(
        [
            PutOp(ALICE, "a", {"v": 1}),
            PutOp(BOB, "b", {"v": 2}),
            GetOp(ALICE, "a"),
            PutOp(ALICE, "a", None),
            GetOp(ALICE, "a"),
            SearchOp(("users",)),
            ListNamespacesOp(match_conditions=(MatchCondition("prefix", ("users",)),)),
        ]
    )
    assert results[:2] == [None, None] and results[3] is None
    assert isinstance(results[2], Item) and results[2].value == {"v": 1}
    assert results[4] is None
    assert keys(results[5]) == [(BOB, "b")]  # type: ignore[arg-type]
    assert results[6] == [BOB]


def test_the_async_methods(store: ApexMemStore) -> None:
    async def run() -> None:
        await store.aput(ALICE, "food", {"text": "Alice likes sushi"})
        item = await store.aget(ALICE, "food")
        assert item is not None and item.value == {"text": "Alice likes sushi"}
        assert keys(await store.asearch(("users",), query="sushi")) == [(ALICE, "food")]
        assert await store.alist_namespaces() == [ALICE]
        await store.adelete(ALICE, "food")
        assert await store.aget(ALICE, "food") is None

    asyncio.run(run())


def test_items_outlive_the_memory_object(tmp_path: Path) -> None:
    with open_memory(tmp_path) as memory:
        ApexMemStore(memory).put(ALICE, "food", {"text": "sushi"})
    with open_memory(tmp_path) as memory:
        item = ApexMemStore(memory).get(ALICE, "food")
    assert item is not None and item.value == {"text": "sushi"}


def test_without_a_search_index_a_query_lists(tmp_path: Path) -> None:
    with Memory.sqlite(tmp_path / "n.sqlite", home=tmp_path, lm=None, search=None) as memory:
        store = ApexMemStore(memory)
        store.put(ALICE, "a", {"text": "one"})
        store.put(ALICE, "b", {"text": "two"})
        found = store.search(ALICE, query="one")
    assert keys(found) == [(ALICE, "b"), (ALICE, "a")] and found[0].score is None
