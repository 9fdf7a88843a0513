"""Sample data shipped with the package: ``alice.jsonl``, the conversation `apexmem demo` uses.

Alice (talking to Bob) names her favourite restaurant (Italian Garden on 2024-01-15, Sakura
Sushi on 2024-03-20), changes job (nurse at City Hospital, then software engineer at Google on
2024-05-02) and moves (Boston, then Seattle on 2024-06-10). Turns are in the JSONL format of
``apexmem_neo.construction.loaders``; new values are said value-first ("X is my ... now"),
which the small local model extracts reliably.
"""

from __future__ import annotations

from importlib.resources import as_file, files
from pathlib import Path

ALICE = "alice.jsonl"


def sample_text(name: str = ALICE) -> str:
    return files(__name__).joinpath(name).read_text(encoding="utf-8")


def sample_path(name: str = ALICE) -> Path:
    """A filesystem path of the sample (the package is installed unzipped)."""
    with as_file(files(__name__).joinpath(name)) as path:
        return Path(path)
