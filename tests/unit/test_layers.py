"""The package's layers (docs/design.md, "Layers"): every import of another apexmem_neo
package goes to a lower row, so nothing imports upward. Imports inside functions and under
``TYPE_CHECKING`` count too: a lazy import is still a dependency."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "apexmem_neo"

ROWS: tuple[tuple[str, ...], ...] = (
    ("cli",),
    ("server", "mcp_server", "integrations"),
    ("apexmem_neo",),
    ("memory",),
    ("agent",),
    ("tools",),
    ("construction", "testing"),
    ("llm", "query", "search", "services"),
    ("store",),
    ("ontology",),
    ("errors", "settings", "samples"),
)
"""The picture's rows, top first; ``apexmem_neo`` is the package's own ``__init__``."""

PARTS = {"mcp_listing": "mcp_server"}
"""Modules that are a part of another unit (the MCP server's listing tools)."""

ROW = {unit: row for row, units in enumerate(ROWS) for unit in units}


def unit_of(module: str) -> str:
    """The unit of the picture a dotted ``apexmem_neo`` module name belongs to."""
    parts = module.split(".")
    name = parts[1] if len(parts) > 1 else "apexmem_neo"
    if not ((PACKAGE / name).is_dir() or (PACKAGE / f"{name}.py").is_file()):
        name = "apexmem_neo"  # a name the package's __init__ defines, such as __version__
    return PARTS.get(name, name)


def module_name(path: Path) -> str:
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    return ".".join(relative.parts).removesuffix(".__init__")


def imported(path: Path) -> Iterator[str]:
    """Every apexmem_neo module ``path`` imports, wherever the import stands."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        yield from (name for name in names if name.split(".")[0] == "apexmem_neo")


def dependencies() -> set[tuple[str, str]]:
    """(importer, imported) units, across units only."""
    found = set()
    for path in PACKAGE.rglob("*.py"):
        importer = unit_of(module_name(path))
        for name in imported(path):
            target = unit_of(name)
            if target != importer:
                found.add((importer, target))
    return found


def test_every_unit_of_the_package_has_a_row() -> None:
    units = {unit_of(module_name(path)) for path in PACKAGE.rglob("*.py")}
    assert units == set(ROW)


def test_nothing_imports_upward() -> None:
    upward = sorted((a, b) for a, b in dependencies() if ROW[b] <= ROW[a])
    assert upward == []


def pictured_rows() -> tuple[tuple[str, ...], ...]:
    """The rows of the picture in docs/design.md: each line's units, left of its comment."""
    design = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    picture = design.split("## Layers", 1)[1].split("```", 2)[1]
    rows = []
    for line in picture.splitlines():
        if line[:1].strip():  # a line that goes on from the one above starts with spaces
            units = re.split(r"\s{2,}", line, maxsplit=1)[0]
            rows.append(tuple(re.sub(r"\s*\(.*?\)", "", u) for u in units.split(" · ")))
    return tuple(rows)


def test_the_picture_in_the_design_notes_is_this_one() -> None:
    assert pictured_rows() == ROWS
