"""README's quickstart runs (without an LLM here; with the local model in the LLM tests)."""

from __future__ import annotations

from pathlib import Path

import pytest

from apexmem_neo.settings import default_models_dir
from tests.readme_quickstart import quickstart, without_llm


def test_the_readme_quickstart_runs_without_an_llm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    models = default_models_dir()  # the machine's unpacked models, kept
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))  # the default home and its caches go here
    monkeypatch.setattr("apexmem_neo.memory.build.default_models_dir", lambda: models)
    exec(compile(without_llm(quickstart()), "README.md quickstart", "exec"), {})
    assert "favourite restaurant" in capsys.readouterr().out
    assert (tmp_path / "alice.sqlite").is_file()
