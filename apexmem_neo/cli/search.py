"""`apexmem search QUERY`: hybrid (dense + BM25) search over the memory, without an LLM;
``--metadata key=value`` (repeatable) keeps the turns whose metadata matches."""

from __future__ import annotations

from typing import Annotated

import typer

from apexmem_neo.cli.common import (
    DEFAULT_SCOPE,
    JsonOpt,
    MemoryChoice,
    ScopeOpt,
    print_json,
)
from apexmem_neo.cli.listing import MetadataOpt, metadata_filter
from apexmem_neo.search import DocKind, SearchResults
from apexmem_neo.tools import markdown

CELL_CHARS = 120


@MemoryChoice.options()
def search(
    text: Annotated[str, typer.Argument(metavar="QUERY", help="What to look for, in words.")],
    k: Annotated[int, typer.Option("--k", min=1, help="At most this many hits per kind.")] = 10,
    kind: Annotated[
        list[DocKind] | None,
        typer.Option("--kind", help="Only this kind of document (repeatable; default: all)."),
    ] = None,
    metadata: MetadataOpt = None,
    scope: ScopeOpt = DEFAULT_SCOPE,
    choice: MemoryChoice = MemoryChoice.SETTINGS,
    as_json: JsonOpt = False,
) -> None:
    """Search the memory's entities, properties, events and turns (best first per kind); with
    --metadata only turns whose metadata matches."""
    from apexmem_neo.memory.listing import empty_scope_hint

    wanted = metadata_filter(metadata)
    shown = [DocKind.TURN] if wanted else kind
    with choice.open(create=False, with_lm=False) as memory:
        if choice.warn_if_unindexed(memory):
            found = memory.search(text, scope=scope, k=k, kinds=kind, metadata=wanted)
        else:  # nothing to rank: skip loading the embedding model
            found = SearchResults(query=text)
        if found.empty and found.hint is None:  # not searched: no index
            found.hint = empty_scope_hint(memory.store, scope)
    if as_json:
        print_json(found.model_dump(mode="json"))
    else:
        typer.echo(results_markdown(found, shown))
    if found.hint is not None:  # on stderr: the JSON on stdout stays one document
        typer.echo(found.hint, err=True)


def results_markdown(found: SearchResults, kinds: list[DocKind] | None) -> str:
    """One section per kind asked for: score, graph id, speaker and time, text."""
    parts = []
    for group in dict.fromkeys(kinds or list(DocKind)):
        hits = found.group(group)
        rows = [(f"{h.score:.3f}", h.graph_id, h.speaker or "", h.time or "", h.text)
                for h in hits]  # fmt: skip
        head = ("score", "id", "speaker", "time", "text")
        body = markdown.table(head, rows, CELL_CHARS) if rows else "_(none)_"
        parts.append(f"## {group.value} ({len(hits)})\n\n{body}")
    return "\n\n".join(parts)
