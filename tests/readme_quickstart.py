"""The README's Python quickstart, as code: the tests run it word for word (with the local
model) and with ``extract=False`` (no LLM), so the README cannot drift from the API."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCK = re.compile(r"```python\n(# quickstart\n.*?# end quickstart\n)```", re.DOTALL)


QUICKSTART_TURNS = [
    {"role": "user", "name": "Alice", "timestamp": "2024-01-15",
     "content": "My favourite restaurant is Italian Garden."},
    {"role": "user", "name": "Alice", "timestamp": "2024-03-20",
     "content": "Sakura Sushi is my favourite restaurant now."},
]  # fmt: skip
"""The quickstart's two messages, for tests that build its memory another way."""


def quickstart() -> str:
    """The quickstart block of README.md (between its marker comments)."""
    found = BLOCK.search(README.read_text(encoding="utf-8"))
    if found is None:
        raise AssertionError("README.md has no ```python block from '# quickstart' to the end")
    return found.group(1)


def without_llm(code: str) -> str:
    """The quickstart storing turns only (``extract=False``) and stopping before ``ask``."""
    offline = code.replace('scope="alice",\n    )', 'scope="alice",\n        extract=False,\n    )')
    if offline == code:
        raise AssertionError('the quickstart\'s add(...) call no longer ends with scope="alice"')
    return offline.split("    result = memory.ask(")[0]
