"""A LangGraph graph whose long-term memory is an apexmem-neo ``Memory`` (no LLM needed).

The graph has two nodes: ``remember`` puts the user's message into the store under the
user's namespace, and ``recall`` searches that namespace for what best matches it. The store
is ``ApexMemStore``: every put is an append-only turn of the user's scope (namespace
``("users", "alice")`` is scope ``users/alice``), so the same memory also answers
``Memory.search`` and keeps every version of an item.

    python examples/langgraph_memory_store.py                 # ~/.apexmem memory, default embedder
    python examples/langgraph_memory_store.py --db /tmp/lg.sqlite --fake-embedder

``--fake-embedder`` uses the deterministic hashing embedder of ``apexmem_neo.testing`` (no
model weights to load), as the example's test does.
"""

from __future__ import annotations

import argparse
import uuid
from pathlib import Path
from typing import Any, TypedDict

from langgraph.config import get_store
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from apexmem_neo import Memory
from apexmem_neo.integrations.langgraph import ApexMemStore

CONVERSATION = [
    ("alice", "I live in Lisbon"),
    ("alice", "My favourite food is ramen"),
    ("bob", "I live in Oslo and I like skiing"),
    ("alice", "I moved from Lisbon to Porto"),
]


class State(TypedDict, total=False):
    user: str
    message: str
    recalled: list[str]


def remember(state: State) -> dict[str, Any]:
    """Store the message in the user's namespace (one new item per message)."""
    get_store().put(("users", state["user"]), uuid.uuid4().hex, {"text": state["message"]})
    return {}


def recall(state: State) -> dict[str, Any]:
    """The user's stored memories that best match the message, best first."""
    found = get_store().search(("users", state["user"]), query=state["message"], limit=2)
    return {"recalled": [item.value["text"] for item in found]}


def build_graph(store: ApexMemStore) -> CompiledStateGraph[Any, Any, Any, Any]:
    graph = StateGraph(State)
    graph.add_node("remember", remember)
    graph.add_node("recall", recall)
    graph.add_edge(START, "remember")
    graph.add_edge("remember", "recall")
    graph.add_edge("recall", END)
    return graph.compile(store=store)


def open_memory(db: Path | None, fake_embedder: bool) -> Memory:
    options: dict[str, Any] = {"lm": None}
    if db is not None:
        options["home"] = db.parent / f"{db.name}.home"
    if fake_embedder:
        from apexmem_neo.testing import HashingEmbedder

        options["embedder"] = HashingEmbedder()
    return Memory.sqlite(db, **options)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, default=None, help="the memory's SQLite file")
    parser.add_argument("--fake-embedder", action="store_true", help="the hashing embedder")
    args = parser.parse_args()
    with open_memory(args.db, args.fake_embedder) as memory:
        store = ApexMemStore(memory)
        app = build_graph(store)
        for user, message in CONVERSATION:
            out = app.invoke({"user": user, "message": message})
            print(f"{user}: {message!r} -> recalled {out['recalled']}")
        print("namespaces:", store.list_namespaces())
        hits = memory.search("where does she live", scope="users/alice", k=2).turns
        print("Memory.search in scope users/alice:", [hit.text for hit in hits])


if __name__ == "__main__":
    main()
