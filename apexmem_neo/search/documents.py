"""Search documents: one per entity, property, event/evidence and turn, each naming its graph id.

A document has a ``text`` (what it says) and a ``context`` (the text plus what surrounds it:
neighbouring turns for a turn, the latest facts for an entity). Both are searched lexically
and densely; the search config chooses which channels count. Every document names the
``scope`` (user or agent) its graph rows belong to, and a search sees one scope only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from apexmem_neo.ontology import (
    Entity,
    Event,
    Evidence,
    Fact,
    GraphBatch,
    Property,
    Session,
    Turn,
    value_text,
)


class DocKind(StrEnum):
    """The four groups a search returns."""

    ENTITY = "entity"
    PROPERTY = "property"
    EVENT = "event"
    TURN = "turn"


ALL_KINDS: tuple[DocKind, ...] = tuple(DocKind)

DEFAULT_WINDOW = 2
"""Turns on each side that a turn's context holds: two recall clearly more than one, three
hardly more than two (the CHANGELOG has the figures)."""


class SearchDocument(BaseModel):
    """One indexed document. ``doc_id`` is ``"<kind>:<graph_id>"``, so re-indexing replaces;
    it is unique across scopes because graph ids are (entity and property ids hash the scope,
    the others hash the conversation or turn, which belong to one scope)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: DocKind
    graph_id: str = Field(min_length=1)
    # The scope of the graph rows the document came from; required, so no builder forgets it.
    scope: str = Field(min_length=1)
    text: str = Field(min_length=1)
    context: str = ""
    title: str = ""
    speaker: str | None = None
    session_id: str | None = None
    conversation_id: str | None = None
    time: str | None = None
    # The date in words ("8 May 2023"), indexed with the text (questions name dates in words)
    # but kept out of ``text``, which hits show as it was said.
    date_words: str = ""

    @property
    def doc_id(self) -> str:
        return f"{self.kind.value}:{self.graph_id}"

    @property
    def indexed_text(self) -> str:
        """What the text channels index: the text, then its date in words if any."""
        return f"{self.text} ({self.date_words})" if self.date_words else self.text

    @property
    def context_text(self) -> str:
        """The context, or the text itself when the document has no context."""
        return self.context or self.indexed_text


def doc_ids_of(graph_ids: Iterable[str]) -> list[str]:
    """Every ``doc_id`` a document of these graph ids can have (one per kind): what a backend
    looks up to find a graph node's documents by its unique doc_id key."""
    if isinstance(graph_ids, str):  # a lone id would be read as its characters
        raise TypeError(f"graph ids come as a collection, not one string: [{graph_ids!r}]")
    return [f"{kind.value}:{graph_id}" for graph_id in graph_ids for kind in ALL_KINDS]


def human_date(iso: str | None) -> str:
    """``2023-05-08T13:56:00`` -> ``8 May 2023`` (words a question may use); '' for None."""
    if not iso or len(iso) < 10:
        return ""
    months = (
        "January February March April May June July August September October November December"
    ).split()
    year, month, day = iso[:4], int(iso[5:7]), int(iso[8:10])
    return f"{day} {months[month - 1]} {year}"


def turn_line(turn: Turn, caption: str | None = None) -> str:
    """``Speaker: text`` plus the image caption, if any."""
    line = f"{turn.speaker}: {turn.text}".strip()
    if caption:
        line += f" [shares an image: {caption}]"
    return line


def turn_documents(
    turns: Sequence[Turn],
    sessions: Iterable[Session] = (),
    captions: Mapping[str, str] | None = None,
    window: int = DEFAULT_WINDOW,
    after: int | None = None,
    *,
    scope: str,
) -> list[SearchDocument]:
    """One document per turn of ``scope`` (the turns' own); the context holds ``window``
    turns before it and ``after`` turns after it (default: ``window``) within its session."""
    after = window if after is None else after
    captions = captions or {}
    by_session = {s.session_id: s for s in sessions}
    ordered = sorted(turns, key=lambda t: (t.session_id, t.seq))
    lines = [turn_line(t, captions.get(t.turn_id)) for t in ordered]
    docs: list[SearchDocument] = []
    for i, turn in enumerate(ordered):
        lo, hi = i, i
        while lo > 0 and i - lo < window and ordered[lo - 1].session_id == turn.session_id:
            lo -= 1
        while hi + 1 < len(ordered) and hi - i < after:
            if ordered[hi + 1].session_id != turn.session_id:
                break
            hi += 1
        session = by_session.get(turn.session_id)
        date = human_date(turn.anchor_datetime)
        docs.append(
            SearchDocument(
                kind=DocKind.TURN,
                graph_id=turn.turn_id,
                scope=scope,
                text=lines[i],
                date_words=date,
                context=" ".join(lines[lo : hi + 1]),
                speaker=turn.speaker,
                session_id=turn.session_id,
                conversation_id=session.conversation_id if session else None,
                time=turn.anchor_datetime,
            )
        )
    return docs


def entity_document(entity: Entity, facts: Sequence[Fact] = ()) -> SearchDocument:
    """Name, aliases, type and a short summary of the latest fact per property."""
    latest: dict[str, Fact] = {}
    for fact in sorted(facts, key=lambda f: (f.t_from, f.recorded_at or "", f.fact_id)):
        if fact.entity_id == entity.entity_id:
            latest[fact.property] = fact
    summary = "; ".join(
        f"{p.replace('_', ' ')}: {value_text(f.value)}" for p, f in sorted(latest.items())
    )
    names = ", ".join([entity.name, *entity.aliases])
    text = f"{names} ({entity.entity_type.value})"
    if entity.description:
        text += f". {entity.description}"
    return SearchDocument(
        kind=DocKind.ENTITY,
        graph_id=entity.entity_id,
        scope=entity.scope,
        title=entity.name,
        text=text,
        context=f"{text}. {summary}" if summary else "",
    )


def property_document(prop: Property) -> SearchDocument:
    """A property's words (snake_case split), dtype and description."""
    words = prop.name.replace("_", " ")
    text = f"{words} ({prop.dtype.value})"
    if prop.description:
        text += f": {prop.description}"
    if prop.enum_values:
        text += f"; one of {', '.join(prop.enum_values)}"
    return SearchDocument(
        kind=DocKind.PROPERTY,
        graph_id=prop.property_id,
        scope=prop.scope,
        title=prop.name,
        text=text,
    )


def event_document(event: Event, evidence: Evidence | None = None, *, scope: str) -> SearchDocument:
    """An event's type, location and anchor date, with the evidence text that asserted it."""
    date = human_date(event.anchor_datetime)
    text = event.event_type.replace("_", " ")
    if event.location:
        text += f" at {event.location}"
    text += f" on {date}" if date else ""
    if evidence is not None:
        text += f": {evidence.text}"
    return SearchDocument(
        kind=DocKind.EVENT,
        graph_id=event.event_id,
        scope=scope,
        title=event.event_type,
        text=text,
        time=event.anchor_datetime,
    )


def evidence_document(
    evidence: Evidence, anchor: str | None = None, *, scope: str
) -> SearchDocument:
    """Evidence on its own (the events/evidence group), dated by its turn's anchor."""
    date = human_date(anchor)
    return SearchDocument(
        kind=DocKind.EVENT,
        graph_id=evidence.evidence_id,
        scope=scope,
        text=evidence.text,
        date_words=date,
        time=anchor,
    )


def documents_from_batch(batch: GraphBatch, window: int = DEFAULT_WINDOW) -> list[SearchDocument]:
    """Every search document a graph batch yields: turns, entities, properties, events, evidence,
    all in the batch's scope.

    Events embed the text of the evidence they cite; evidence that no event cites gets its own
    document. Re-running on the same batch yields the same documents (same ids).
    """
    docs = turn_documents(batch.turns, batch.sessions, window=window, scope=batch.scope)
    docs += [entity_document(e, batch.facts) for e in batch.entities]
    return docs + event_documents(batch)


def event_documents(batch: GraphBatch) -> list[SearchDocument]:
    """The property, event and uncited evidence documents of a batch (its scope's)."""
    anchors = {t.turn_id: t.anchor_datetime for t in batch.turns}
    evidence = {e.evidence_id: e for e in batch.evidence}
    docs = [property_document(p) for p in batch.properties]
    cited: set[str] = set()
    for event in batch.events:
        cited.add(event.evidence_id or "")
        docs.append(event_document(event, evidence.get(event.evidence_id or ""), scope=batch.scope))
    docs += [
        evidence_document(ev, anchors.get(ev.turn_id or ""), scope=batch.scope)
        for ev in batch.evidence
        if ev.evidence_id not in cited
    ]
    return docs
