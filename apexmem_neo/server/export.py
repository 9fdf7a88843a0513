"""GET export as a stream: ``Memory.export`` writes the scope's JSON Lines on a worker thread
into a bounded queue, and the response sends them as they come, so a large scope is never
held whole in memory.

An export that fails before its first line answers with a JSON error; one that fails later
aborts the response (the client sees an incomplete body, never a silently short file). A
client that leaves stops the export at its next line.
"""

from __future__ import annotations

import io
import queue
import threading
from collections.abc import Iterator
from typing import Final

from apexmem_neo.memory.core import Memory

QUEUED_CHUNKS: Final = 64
"""Lines waiting to be sent at most; the export waits while the client is slower."""
POLL_S: Final = 0.5


class _Abandoned(Exception):
    """The client left: the export stops."""


class _End:
    """The export finished."""


_Item = str | BaseException | _End


class _Pipe(io.StringIO):
    """A text file whose writes go to the response's queue (it keeps nothing itself)."""

    def __init__(self, lines: queue.Queue[_Item], stopped: threading.Event) -> None:
        super().__init__()
        self._lines = lines
        self._stopped = stopped

    def write(self, text: str) -> int:
        put(self._lines, text, self._stopped)
        return len(text)


def put(lines: queue.Queue[_Item], item: _Item, stopped: threading.Event) -> None:
    """Queue ``item``, waiting for room; ``_Abandoned`` once the reader is gone."""
    while not stopped.is_set():
        try:
            lines.put(item, timeout=POLL_S)
            return
        except queue.Full:
            continue
    raise _Abandoned


def export_lines(memory: Memory, scope: str) -> Iterator[str]:
    """The scope's export, line by line; raises the export's error if it fails before the
    first line (call ``next`` on it before the response starts)."""
    lines: queue.Queue[_Item] = queue.Queue(maxsize=QUEUED_CHUNKS)
    stopped = threading.Event()

    def produce() -> None:
        try:
            memory.export(_Pipe(lines, stopped), scope=scope)
            put(lines, _End(), stopped)
        except _Abandoned:
            return
        except BaseException as exc:  # handed to the reader, which raises it
            try:
                put(lines, exc, stopped)
            except _Abandoned:
                return

    threading.Thread(target=produce, name="apexmem-rest-export", daemon=True).start()
    try:
        while not isinstance(item := lines.get(), _End):
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stopped.set()


def started(lines: Iterator[str]) -> Iterator[str]:
    """``lines`` with its first line already read, so an early failure raises here."""
    first = next(lines, None)

    def rest() -> Iterator[str]:
        if first is not None:
            yield first
        yield from lines

    return rest()
