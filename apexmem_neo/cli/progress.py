"""Progress bars of `ingest`, `index` and `demo`, fed by the ``Memory`` callbacks."""

from __future__ import annotations

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
)

from apexmem_neo.cli.common import console
from apexmem_neo.search.indexer import Progress as Callback


def progress_bar() -> Progress:
    """One bar per task: its name, count, share, a line of detail and the time taken."""
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TaskProgressColumn(),
        TextColumn("{task.fields[detail]}"),
        TimeElapsedColumn(),
        console=console,
    )


def index_feed(bar: Progress, label: str = "index") -> Callback:
    """A ``progress(done, total)`` callback that shows the search index being written."""
    task: list[TaskID] = []

    def update(done: int, total: int) -> None:
        if not task:
            task.append(bar.add_task(label, total=total, detail="documents"))
        bar.update(task[0], completed=done, total=total)

    return update
