"""The CLI's error exits: markup in messages prints as written, every user error is one line."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
import typer
from pydantic import BaseModel, ValidationError
from typer.testing import CliRunner

from apexmem_neo.cli.common import MemoryChoice, fail, one_line, store_flags, user_errors
from apexmem_neo.construction.loaders import LoaderError
from apexmem_neo.errors import ApexMemError
from apexmem_neo.query.backend import ToolError


def test_fail_prints_brackets_whole(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(typer.Exit) as info:
        fail("no entity named '[bold]x[/]' in [memory]")
    assert info.value.exit_code == 1
    err = capsys.readouterr().err
    assert err.strip() == "error: no entity named '[bold]x[/]' in [memory]"


class Limits(BaseModel):
    rows: int


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (ApexMemError("neo4j is down\n  at bolt://x"), "neo4j is down at bolt://x"),
        (LoaderError("a.json: not JSON"), "a.json: not JSON"),
        (ToolError("Refused", "writes are refused", "SELECT 1"), "Refused: writes are refused"),
    ],
)
def test_user_errors_become_one_line(
    error: Exception, expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(typer.Exit), user_errors():
        raise error
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and expected in err


def test_a_validation_error_names_the_field() -> None:
    with pytest.raises(ValidationError) as info:
        Limits.model_validate({"rows": "many"})
    text = one_line(info.value)
    assert text.startswith("Limits: rows:") and "\n" not in text


def test_other_errors_are_not_swallowed() -> None:
    with pytest.raises(KeyError), user_errors():
        raise KeyError("a bug")


def test_store_flags_repeat_the_options_given() -> None:
    assert store_flags(None, None, None) == ""
    assert store_flags("neo4j", None, "team") == " --store neo4j --index-name team"


def test_memory_choice_options_stand_in_the_choice_parameter() -> None:
    """``@MemoryChoice.options()`` offers --store, --db and --index-name where the ``choice``
    parameter stands, and the command gets them back as one ``MemoryChoice``."""
    seen: list[MemoryChoice] = []

    @MemoryChoice.options()
    def command(
        name: str = "x", choice: MemoryChoice = MemoryChoice.SETTINGS, loud: bool = False
    ) -> None:
        seen.append(choice)

    assert list(inspect.signature(command).parameters) == [
        "name", "store", "db", "index_name", "loud",
    ]  # fmt: skip
    app = typer.Typer()
    app.command()(command)
    result = CliRunner().invoke(app, ["--store", "neo4j", "--db", "m.sqlite", "--loud"])
    assert result.exit_code == 0, result.output
    assert seen == [MemoryChoice(store="neo4j", db=Path("m.sqlite"), index_name=None)]


def test_memory_choice_options_without_an_index_name() -> None:
    @MemoryChoice.options(index_name=False)
    def command(choice: MemoryChoice = MemoryChoice.SETTINGS) -> None:
        """Nothing."""

    assert list(inspect.signature(command).parameters) == ["store", "db"]
    assert command.__doc__ == "Nothing."
