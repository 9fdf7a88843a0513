"""One version everywhere: the package's ``__version__``, pyproject.toml's and the newest
release in CHANGELOG.md, which keeps an ``Unreleased`` section above its releases."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from apexmem_neo import __version__

ROOT = Path(__file__).resolve().parents[2]


def test_the_package_and_pyproject_give_one_version() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["version"] == __version__


def test_the_changelog_opens_with_unreleased_then_this_version() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", changelog, flags=re.MULTILINE)
    assert headings[0] == "Unreleased"
    assert re.fullmatch(rf"{re.escape(__version__)} - \d{{4}}-\d{{2}}-\d{{2}}", headings[1])
