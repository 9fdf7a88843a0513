"""Helpers shared by CLI command groups: the console, the options every command takes, the
one place the settings are read and a ``Memory`` opened, and error exits.

Errors leave by one path, ``fail``: a one-line ``error:`` on stderr and exit 1, or, when the
command was given ``--json``, one JSON object ``{"error": {"type": ..., "message": ...}}`` on
stdout (and still exit 1). ``--json`` options record themselves for it (``remember_json``),
and ``ApexMemGroup``, the root command's class, sends every typed error a command lets
through to ``fail``."""

from __future__ import annotations

import functools
import inspect
import json
import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Final, Literal, NoReturn, TypeVar, cast

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape
from typer.core import TyperGroup

from apexmem_neo.construction.loaders import LoaderError
from apexmem_neo.errors import ApexMemError, ToolError
from apexmem_neo.settings import Settings

if TYPE_CHECKING:  # Memory loads DSPy and the stores: only commands that open one pay for it
    from apexmem_neo.memory import Memory

Command = TypeVar("Command", bound=Callable[..., Any])
StoreName = Literal["sqlite", "neo4j"]
StoreOpt = Annotated[
    StoreName | None, typer.Option("--store", help="sqlite or neo4j (default APEXMEM_STORE).")
]
DbOpt = Annotated[
    Path | None,
    typer.Option(
        "--db",
        help="SQLite store file (default APEXMEM_HOME/data/apexmem.sqlite); with neo4j, the "
        "construction checkpoint file.",
    ),
]
IndexNameOpt = Annotated[
    str | None,
    typer.Option(
        "--index-name",
        help="Search index namespace (default APEXMEM_INDEX_NAME): the Neo4j label suffix or "
        "the Elasticsearch index prefix.",
    ),
]
ScopeOpt = Annotated[
    str,
    typer.Option(
        "--scope",
        envvar="APEXMEM_SCOPE",
        help="Whose memory: a user or agent id (default APEXMEM_SCOPE, else default).",
    ),
]
_JSON_MODE: ContextVar[bool] = ContextVar("apexmem_cli_json", default=False)
"""Whether the running command was given ``--json`` (its errors print as JSON too)."""
DEFAULT_SCOPE = "default"
USER_ERRORS = (ApexMemError, LoaderError, ValidationError)
"""What a user can act on: printed as one line (or a JSON error object), never a traceback."""


def remember_json(value: bool) -> bool:
    """The ``--json`` options' callback: errors of this command print as JSON too."""
    _JSON_MODE.set(value)
    return value


JsonOpt = Annotated[
    bool,
    typer.Option("--json", help="Print one JSON document instead.", callback=remember_json),
]

console = Console()
err_console = Console(stderr=True)


def load_settings() -> Settings:
    """The settings from the environment (APEXMEM_*, NEO4J_*, ELASTICSEARCH_*)."""
    with user_errors():
        return Settings()


def fail(message: str, code: int = 1, kind: str = "UsageError") -> NoReturn:
    """Exit ``code`` with a one-line error: in red on stderr, or under ``--json`` as
    ``{"error": {"type": kind, "message": message}}`` on stdout. The message is printed as it
    is (rich markup such as ``[bold]`` in it is escaped, not interpreted)."""
    line = " ".join(message.split())
    if _JSON_MODE.get():
        typer.echo(json.dumps({"error": {"type": kind, "message": line}}, ensure_ascii=False))
    else:
        err_console.print(f"[bold red]error:[/] {escape(line)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def fail_with(exc: BaseException) -> NoReturn:
    """``fail`` with the error's one line, typed by its class name."""
    fail(one_line(exc), kind=type(exc).__name__)


class ApexMemGroup(TyperGroup):
    """The root command: a typed error (``USER_ERRORS``) that a command lets through exits
    by ``fail``, the same way for every command. Each invocation starts without ``--json``
    (one process may run several, as tests do)."""

    def invoke(self, ctx: Any) -> Any:
        use_bundled_model_metadata()
        token = _JSON_MODE.set(False)
        try:
            return super().invoke(ctx)
        except USER_ERRORS as exc:
            fail_with(exc)
        finally:
            _JSON_MODE.reset(token)


def use_bundled_model_metadata() -> None:
    """Tell LiteLLM to read the model metadata it ships with rather than fetch a fresh copy
    over the network when it is first imported. Set here, when a command runs, because the
    library sets nothing in the environment of the applications that import it."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def warn(message: str) -> None:
    line = f"[bold yellow]warning:[/] {escape(message)}"
    err_console.print(line, highlight=False, soft_wrap=True)


def one_line(exc: BaseException) -> str:
    """The message of an error the user can act on, on one line."""
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        text = f"{exc.title}: {where + ': ' if where else ''}{first['msg']}"
    else:
        text = str(exc) or type(exc).__name__
        if isinstance(exc, ToolError) and exc.suggestion:
            text += f" Instead, try: {exc.suggestion}"
    return " ".join(text.split())


@contextmanager
def user_errors() -> Iterator[None]:
    """Errors from bad input, settings or a service become one ``error:`` line (or a JSON
    error object) and exit 1."""
    try:
        yield
    except USER_ERRORS as exc:
        fail_with(exc)


@contextmanager
def using_memory(
    store: StoreName | None,
    db: Path | None,
    index_name: str | None,
    *,
    create: bool,
    with_lm: bool = True,
) -> Iterator[Memory]:
    """The memory the settings describe, with the command's flags over them; closed on exit.
    ``create`` False (read commands) makes a missing SQLite file an error, not a new memory;
    ``with_lm`` False (commands that never ask a model) skips loading one."""
    settings = load_settings()
    with user_errors():
        from apexmem_neo.memory import Memory

        memory = Memory.from_settings(
            settings, store=store, db=db, index_name=index_name, create=create, with_lm=with_lm
        )
        with memory:
            yield memory


_CHOICE_OPTIONS: Final[dict[str, Any]] = {
    "store": StoreOpt,
    "db": DbOpt,
    "index_name": IndexNameOpt,
}
"""The option each field of ``MemoryChoice`` is given as."""


@dataclass(frozen=True)
class MemoryChoice:
    """Which memory a command opens: its --store, --db and --index-name options.

    A command takes them as one parameter, ``choice: MemoryChoice = MemoryChoice.SETTINGS``,
    under ``@MemoryChoice.options()``: the options are declared once, here, for every
    command that opens a memory."""

    SETTINGS: ClassVar[MemoryChoice]
    """No option given: the settings decide."""

    store: StoreName | None = None
    db: Path | None = None
    index_name: str | None = None

    def open(self, *, create: bool, with_lm: bool = True) -> AbstractContextManager[Memory]:
        """``using_memory`` with these options."""
        return using_memory(self.store, self.db, self.index_name, create=create, with_lm=with_lm)

    def warn_if_unindexed(self, memory: Memory) -> bool:
        """``warn_if_unindexed`` with these options in its hint."""
        return warn_if_unindexed(memory, self.store, self.db, self.index_name)

    @staticmethod
    def options(*, index_name: bool = True) -> Callable[[Command], Command]:
        """Offer a command's ``choice`` parameter as the options --store, --db and (with
        ``index_name``) --index-name, in its place among the command's options."""
        names = tuple(_CHOICE_OPTIONS) if index_name else ("store", "db")

        def declare(command: Command) -> Command:
            return _with_choice_options(command, names)

        return declare


MemoryChoice.SETTINGS = MemoryChoice()


def _with_choice_options(command: Command, names: tuple[str, ...]) -> Command:
    """``command`` with its ``choice`` parameter spelt out as the ``names`` options (what
    typer reads is the signature; the call gets a ``MemoryChoice`` back)."""
    signature = inspect.signature(command, eval_str=True)
    params = list(signature.parameters.values())
    at = [p.name for p in params].index("choice")
    params[at : at + 1] = [
        inspect.Parameter(name, params[at].kind, default=None, annotation=_CHOICE_OPTIONS[name])
        for name in names
    ]

    @functools.wraps(command)
    def run(**kwargs: Any) -> Any:
        choice = MemoryChoice(**{name: kwargs.pop(name) for name in names})
        return command(choice=choice, **kwargs)

    run.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in params}
    run.__annotations__["return"] = signature.return_annotation
    return cast(Command, run)


def print_json(data: Any) -> None:
    """One JSON document on stdout (plain text: no colour, no wrapping)."""
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def print_plain(text: str) -> None:
    """Print ``text`` as it is, on one line however long (no markup, highlighting or
    wrapping), so that the paths and names a message carries come out unchanged."""
    console.print(text, highlight=False, markup=False, soft_wrap=True)


def store_flags(store: str | None, db: Path | None, index_name: str | None) -> str:
    """The flags that name this memory again, for a command line in a hint."""
    parts = [f" --store {store}"] if store else []
    parts += [f" --db {db}"] if db is not None else []
    parts += [f" --index-name {index_name}"] if index_name else []
    return "".join(parts)


def warn_if_unindexed(
    memory: Memory, store: str | None, db: Path | None, index_name: str | None
) -> bool:
    """Warn (on stderr) when the memory's search index holds nothing; True if it does hold."""
    documents = memory.stats().search_documents
    if documents:
        return True
    warn(
        f"no search index for this memory ({memory.search_location or 'none'}): Search finds "
        f"nothing. Build it with `apexmem index{store_flags(store, db, index_name)}`."
    )
    return False
