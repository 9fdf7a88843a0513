"""``ApexMemStore``: LangGraph's long-term memory store (``BaseStore``) backed by a ``Memory``.

Namespaces and scopes: a namespace is one scope, its labels joined by "/" (``("users",
"alice")`` is scope ``users/alice``, ``("alice",)`` is scope ``alice``). A label is letters,
digits and ``_:@-`` (a scope's characters less the "/" that joins labels and the "." LangGraph
forbids), the first label starts with a letter or digit, and the scope is at most 128
characters; any other namespace raises ``InvalidNamespaceError`` saying so. The items of a
namespace therefore sit behind the same wall as everything else in its scope, beside the
conversation turns ``Memory.add`` stored there.

Append-only: every ``put`` is one turn of the scope's session ``langgraph-store`` (stored with
``Memory.add(..., extract=False)``: no LLM call, searchable at once), whose metadata holds the
key (``langgraph.key``), the namespace (``langgraph.namespace``), the value as JSON
(``langgraph.value``), the time (``langgraph.at``, to the microsecond), the operation
(``langgraph.op``: "put" or "delete") and each top-level string field of the value of at
most ``FIELD_CHARS`` characters (``langgraph.value.<field>``, which
``Memory.turns(metadata=...)`` and the search filter read).
The turn's text is what search reads: the value's fields named by ``index``, else its
``text`` or ``content`` string, else its JSON. A ``delete`` is a "delete" turn (a tombstone).
Nothing is overwritten: ``get`` reads every turn of the key and returns the latest put unless
a delete came after it, and ``Memory.turns(scope, session="langgraph-store")`` shows the
whole history. ``created_at`` is the time of the first put since the key was last deleted,
``updated_at`` that of the latest put.

``search`` with a ``query`` ranks the namespace's current items with ``Memory.search``
(hybrid dense + BM25 over the turns, with the metadata filter); without one, or on a memory
without a search index, it lists them, the most recently updated first. A ``filter`` matches
like LangGraph's own stores: a field equal to a value, or ``$eq``, ``$ne``, ``$gt``, ``$gte``,
``$lt``, ``$lte``. Items never expire (no TTL). Reads fold a namespace's whole history, so
their cost grows with the number of puts it ever held.
"""

from __future__ import annotations

import asyncio
import json
import operator
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    get_text_at_path,
    tokenize_path,
)

from apexmem_neo.errors import InvalidInputError, UnknownSessionError
from apexmem_neo.memory.core import Memory
from apexmem_neo.ontology import Turn
from apexmem_neo.ontology.metadata import Metadata, metadata_problem

SESSION: Final = "langgraph-store"
"""The session of a scope that holds the store's turns."""
SPEAKER: Final = "LangGraph"
KEY: Final = "langgraph.key"
NAMESPACE: Final = "langgraph.namespace"
VALUE: Final = "langgraph.value"
AT: Final = "langgraph.at"
OP: Final = "langgraph.op"
FIELD: Final = "langgraph.value."
"""The prefix of the metadata keys that copy a value's top-level string fields."""
FIELD_CHARS: Final = 256
"""The longest string field copied to metadata (a filter on a longer one is checked on the
items alone)."""
MAX_FETCH: Final = 1024
"""The most search hits one namespace's ranking asks for."""
_LABEL = re.compile(r"[A-Za-z0-9_:@-]+")
_SCOPE_MAX = 128


def namespace_scope(namespace: tuple[str, ...]) -> str:
    """The scope a namespace's items live in: its labels joined by "/";
    ``InvalidNamespaceError`` naming the rule when the namespace cannot be one."""
    if not namespace:
        raise InvalidNamespaceError("a namespace needs at least one label")
    for label in namespace:
        if not isinstance(label, str) or not _LABEL.fullmatch(label):
            raise InvalidNamespaceError(
                f"namespace label {label!r} in {namespace!r} cannot be part of an apexmem scope: "
                "use letters, digits and _:@- (labels are joined by '/' into the scope)"
            )
    scope = "/".join(namespace)
    if not scope[0].isalnum() or len(scope) > _SCOPE_MAX:
        raise InvalidNamespaceError(
            f"namespace {namespace!r} makes scope {scope!r}: a scope starts with a letter or "
            f"digit and has at most {_SCOPE_MAX} characters"
        )
    return scope


def scope_namespace(scope: str) -> tuple[str, ...] | None:
    """The namespace whose items ``scope`` holds, or None when no namespace maps to it."""
    namespace = tuple(scope.split("/"))
    try:
        namespace_scope(namespace)
    except InvalidNamespaceError:
        return None
    return namespace


@dataclass(frozen=True)
class _Version:
    """The current item of a key and the turn that stored it."""

    item: Item
    turn_id: str


class ApexMemStore(BaseStore):
    """LangGraph's ``BaseStore`` over a ``Memory``: namespaces are scopes and every put or
    delete is a turn, nothing overwritten (see the module docstring). Pass it to
    ``graph.compile(store=...)``; nodes reach it with ``get_store()`` or ``runtime.store``."""

    def __init__(self, memory: Memory, *, session: str = SESSION) -> None:
        self.memory = memory
        self.session = session

    # ---- BaseStore ----

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops`` in order; consecutive puts are stored together (one ``Memory.add``
        per scope), and every read sees the writes before it."""
        results: list[Result] = []
        pending: list[PutOp] = []
        for op in ops:
            if isinstance(op, PutOp):
                pending.append(op)
                results.append(None)
                continue
            self._write(pending)
            pending = []
            results.append(self._read(op))
        self._write(pending)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """``batch`` in a worker thread, so the event loop never waits on the store."""
        return await asyncio.to_thread(self.batch, list(ops))

    def _read(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._get(op.namespace, op.key)
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        raise ValueError(f"unknown store operation: {type(op).__name__}")

    # ---- writing ----

    def _write(self, puts: list[PutOp]) -> None:
        """Store ``puts`` as turns, one ``Memory.add`` per scope; every value is checked
        first, so a bad one stores nothing of the batch."""
        if not puts:
            return
        at = datetime.now(UTC)
        by_scope: dict[str, list[dict[str, Any]]] = {}
        for op in puts:
            if op.ttl is not None:
                raise InvalidInputError(
                    "ApexMemStore keeps every item: it has no TTL (put without ttl=)"
                )
            scope = namespace_scope(op.namespace)
            by_scope.setdefault(scope, []).append(self._message(op, at))
        for scope, messages in by_scope.items():
            self.memory.add(messages, scope=scope, session=self.session, at=at, extract=False)

    def _message(self, op: PutOp, at: datetime) -> dict[str, Any]:
        """The chat message a put or delete is stored as (text and metadata)."""
        metadata: dict[str, Any] = {
            KEY: op.key,
            NAMESPACE: json.dumps(list(op.namespace)),
            AT: at.isoformat(),
        }
        if op.value is None:
            metadata[OP] = "delete"
            text = f"deleted {op.key}"
        else:
            metadata |= {OP: "put", VALUE: _dumps(op.key, op.value), **_fields(op.value)}
            text = item_text(op.value, op.index)[: self.memory.max_turn_chars]
        problem = metadata_problem(metadata)
        if problem is not None:
            raise InvalidInputError(f"item {op.key!r}: {problem}")
        return {"role": "user", "name": SPEAKER, "content": text, "metadata": metadata}

    # ---- reading ----

    def _get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        scope = namespace_scope(namespace)
        found = self._live(scope, namespace, {KEY: key}).get(key)
        return None if found is None else found.item

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        if prefix:
            namespace_scope(prefix)  # a prefix no scope can hold is an error, not "nothing"
        wanted = op.offset + op.limit
        found: list[SearchItem] = []
        for scope, namespace in self._namespaces():
            if namespace[: len(prefix)] != prefix:
                continue
            live = self._live(scope, namespace)
            kept = {k: v for k, v in live.items() if matches_filter(v.item.value, op.filter)}
            if op.query and self.memory.search_index is not None:
                found += self._ranked(scope, op.query, kept, op.filter, wanted)
            else:
                found += [_search_item(v.item, None) for v in kept.values()]
        if op.query and self.memory.search_index is not None:
            found.sort(key=lambda item: -(item.score or 0.0))
        else:
            found.sort(key=lambda item: item.updated_at, reverse=True)
        return found[op.offset : op.offset + op.limit]

    def _ranked(
        self,
        scope: str,
        query: str,
        live: dict[str, _Version],
        filter: dict[str, Any] | None,
        wanted: int,
    ) -> list[SearchItem]:
        """The items of ``live`` that ``Memory.search`` ranks for ``query``, best first: hits
        on older versions and tombstones are dropped, so it asks for more until ``wanted``
        items are found, the index has no more, or ``MAX_FETCH`` is reached."""
        if not live or wanted <= 0:
            return []
        by_turn = {v.turn_id: v for v in live.values()}
        metadata = {OP: "put", **_pushed_filter(filter)}
        fetch = min(max(wanted * 2, 10), MAX_FETCH)
        while True:
            hits = self.memory.search(
                query, scope=scope, k=fetch, kinds=["turn"], metadata=metadata
            ).turns
            kept = [_search_item(by_turn[h.graph_id].item, h.score)
                    for h in hits if h.graph_id in by_turn]  # fmt: skip
            if len(kept) >= wanted or len(hits) < fetch or fetch >= MAX_FETCH:
                return kept
            fetch = min(fetch * 2, MAX_FETCH)

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        """The namespaces that hold a current item, matched, cut to ``max_depth``, sorted."""
        conditions = op.match_conditions or ()
        held = [
            namespace
            for scope, namespace in self._namespaces()
            if all(namespace_matches(c, namespace) for c in conditions)
            and self._live(scope, namespace)
        ]
        if op.max_depth is not None:
            held = [namespace[: op.max_depth] for namespace in held]
        return sorted(set(held))[op.offset : op.offset + op.limit]

    def _namespaces(self) -> Iterator[tuple[str, tuple[str, ...]]]:
        """Each scope of the memory that a namespace maps to, with that namespace."""
        for scope in self.memory.scopes():
            namespace = scope_namespace(scope)
            if namespace is not None:
                yield scope, namespace

    def _live(
        self, scope: str, namespace: tuple[str, ...], metadata: Metadata | None = None
    ) -> dict[str, _Version]:
        """The current item of each key of the scope's store turns (those holding
        ``metadata``), folded oldest first: a put replaces, a delete removes."""
        live: dict[str, _Version] = {}
        for turn in self._turns(scope, metadata):
            _fold(live, turn, namespace)
        return live

    def _turns(self, scope: str, metadata: Metadata | None) -> Iterator[Turn]:
        """The store's turns in ``scope`` in the order they were written, page by page."""
        after: str | None = None
        while True:
            try:
                page = self.memory.turns(
                    scope, session=self.session, metadata=metadata, after=after
                )
            except UnknownSessionError:  # nothing was ever put in this namespace
                return
            yield from page.items
            if page.next is None:
                return
            after = page.next


def _fold(live: dict[str, _Version], turn: Turn, namespace: tuple[str, ...]) -> None:
    """Apply one stored put or delete to ``live``; turns the store did not write are skipped."""
    key, op = turn.metadata.get(KEY), turn.metadata.get(OP)
    if not isinstance(key, str):
        return
    if op == "delete":
        live.pop(key, None)
        return
    raw = turn.metadata.get(VALUE)
    if op != "put" or not isinstance(raw, str):
        return
    at = _stored_time(turn)
    before = live.get(key)
    item = Item(
        value=json.loads(raw),
        key=key,
        namespace=namespace,
        created_at=before.item.created_at if before is not None else at,
        updated_at=at,
    )
    live[key] = _Version(item, turn.turn_id)


def _stored_time(turn: Turn) -> datetime:
    """When a turn was stored: its ``langgraph.at``, else its anchor (both UTC)."""
    raw = turn.metadata.get(AT)
    moment = datetime.fromisoformat(raw if isinstance(raw, str) else turn.anchor_datetime)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _search_item(item: Item, score: float | None) -> SearchItem:
    return SearchItem(
        namespace=item.namespace,
        key=item.key,
        value=item.value,
        created_at=item.created_at,
        updated_at=item.updated_at,
        score=score,
    )


def _dumps(key: str, value: Mapping[str, Any]) -> str:
    """``value`` as JSON; ``InvalidInputError`` when it is not a JSON object."""
    try:
        return json.dumps(dict(value), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"item {key!r}: the value must be JSON: {exc}") from None


def _fields(value: Mapping[str, Any]) -> dict[str, str]:
    """The value's top-level string fields as metadata (``langgraph.value.<field>``)."""
    fields = {FIELD + k: v for k, v in value.items() if isinstance(k, str) and _copied(v)}
    return {k: v for k, v in fields.items() if metadata_problem({k: v}) is None}


def _copied(value: Any) -> bool:
    """Whether a field's value is copied to metadata: a string of at most ``FIELD_CHARS``."""
    return isinstance(value, str) and len(value) <= FIELD_CHARS


def _pushed_filter(filter: dict[str, Any] | None) -> dict[str, str]:
    """The string equalities of ``filter`` as a metadata filter: ``Memory.search`` keeps
    only turns that hold them (the rest of the filter is checked on the items)."""
    pushed: dict[str, str] = {}
    for field, wanted in (filter or {}).items():
        if isinstance(wanted, dict) and set(wanted) == {"$eq"}:
            wanted = wanted["$eq"]
        if _copied(wanted):
            pushed[FIELD + field] = wanted
    return {k: v for k, v in pushed.items() if metadata_problem({k: v}) is None}


def item_text(value: Mapping[str, Any], index: Any = None) -> str:
    """The text search reads for ``value``: the fields at the ``index`` paths (LangGraph's
    path syntax), else its ``text`` or ``content`` string, else its JSON."""
    if isinstance(index, list):
        texts = [t for path in index for t in get_text_at_path(value, tokenize_path(path))]
        if any(t.strip() for t in texts):
            return "\n".join(texts)
    for field in ("text", "content"):
        found = value.get(field)
        if isinstance(found, str) and found.strip():
            return found
    return json.dumps(dict(value), ensure_ascii=False, default=str)


def matches_filter(value: Mapping[str, Any], filter: Mapping[str, Any] | None) -> bool:
    """Whether ``value`` passes ``filter``, as LangGraph's stores read one: each field equal
    to the filter's value (dicts field by field), or passing its ``$`` operators."""
    return all(_compare(value.get(k), wanted) for k, wanted in (filter or {}).items())


def _compare(found: Any, wanted: Any) -> bool:
    if isinstance(wanted, dict):
        if any(str(k).startswith("$") for k in wanted):
            return all(_operator(found, op, arg) for op, arg in wanted.items())
        return isinstance(found, dict) and matches_filter(found, wanted)
    if isinstance(wanted, list | tuple):
        return (
            isinstance(found, list | tuple)
            and len(found) == len(wanted)
            and all(_compare(f, w) for f, w in zip(found, wanted, strict=True))
        )
    return bool(found == wanted)


_ORDER: Final[dict[str, Callable[[float, float], bool]]] = {
    "$gt": operator.gt,
    "$gte": operator.ge,
    "$lt": operator.lt,
    "$lte": operator.le,
}


def _operator(found: Any, op: str, arg: Any) -> bool:
    """One ``$`` operator: equality on any value, order on numbers (a missing or
    non-numeric field fails an order test)."""
    if op == "$eq":
        return bool(found == arg)
    if op == "$ne":
        return bool(found != arg)
    if op not in _ORDER:
        raise ValueError(f"unsupported filter operator {op!r}: use $eq $ne $gt $gte $lt $lte")
    try:
        return bool(_ORDER[op](float(found), float(arg)))
    except (TypeError, ValueError):
        return False


def namespace_matches(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    """Whether ``namespace`` starts (prefix) or ends (suffix) with the condition's path,
    "*" matching any one label."""
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        pairs = zip(namespace, path, strict=False)
    elif condition.match_type == "suffix":
        pairs = zip(reversed(namespace), reversed(path), strict=False)
    else:
        raise ValueError(f"unsupported match type {condition.match_type!r}")
    return all(want == "*" or label == want for label, want in pairs)
