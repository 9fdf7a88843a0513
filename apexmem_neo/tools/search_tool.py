"""Search: hybrid search over the memory, shown as four markdown groups.

Entities, properties, events/evidence and turns, best first within each group, each hit with
the graph id to pass on to EntityLookup or GraphQuery.
"""

from __future__ import annotations

from collections.abc import Callable

from apexmem_neo.errors import ToolError
from apexmem_neo.search.engine import SearchHit, SearchResults
from apexmem_neo.tools import markdown
from apexmem_neo.tools.entity_lookup import Searcher
from apexmem_neo.tools.result import ToolResult, unexpected

SEARCH_DOC = """Search the memory by meaning and words; results come in four groups.

Args:
    query: a few words, e.g. "Alice favourite restaurant" or "moved to Paris".

Returns markdown with up to {k} hits in each group: Entities, Properties, Events/evidence,
Turns (what was said, with speaker and time). Every hit shows its id: pass an entity name to
EntityLookup, or ids to GraphQuery.
"""

GROUPS: tuple[tuple[str, str], ...] = (
    ("entities", "Entities"),
    ("properties", "Properties"),
    ("events", "Events / evidence"),
    ("turns", "Turns"),
)


def _line(hit: SearchHit, max_chars: int) -> str:
    meta = [x for x in (hit.time, hit.speaker) if x]
    where = f" ({', '.join(meta)})" if meta else ""
    title = f"**{markdown.cell(hit.title, 80)}**: " if hit.title else ""
    text = markdown.cell(hit.text, max_chars)
    return f"- {title}{text}{where} `{hit.graph_id}` score {hit.score:.3f}"


def render_results(results: SearchResults, max_chars: int = 200) -> str:
    lines = [f"# Search: {markdown.cell(results.query, 120)}"]
    for attr, heading in GROUPS:
        hits: list[SearchHit] = getattr(results, attr)
        lines += ["", f"## {heading} ({len(hits)})", ""]
        lines += [_line(h, max_chars) for h in hits] or ["_(none)_"]
    return "\n".join(lines)


def run_search(searcher: Searcher, query: str, k: int = 5) -> ToolResult:
    """Search's body: never raises; an empty query or a failed search comes back in
    ``error``."""
    if not query or not query.strip():
        return ToolResult.failure(ToolError("Empty query", "Give a few words to search for."))
    try:
        return ToolResult(render_results(searcher.search(query, k=k)))
    except Exception as exc:  # the agent must always get text back
        return unexpected("Search failed", exc)


def search_tool(searcher: Searcher, k: int = 5) -> Callable[..., ToolResult]:
    """The agent's ``Search(query)`` bound to ``searcher``."""

    def search(query: str) -> ToolResult:
        return run_search(searcher, query, k)

    search.__name__ = search.__qualname__ = "Search"
    search.__doc__ = SEARCH_DOC.format(k=k)
    return search
