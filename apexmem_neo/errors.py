"""Exception hierarchy. Every error says what went wrong and, where there is one, where to look."""

from __future__ import annotations

from pathlib import Path


class ApexMemError(Exception):
    """Base class of every error this package raises on purpose."""


class ServiceError(ApexMemError):
    """A local service could not be built, started, reached or stopped.

    The message is one line naming the cause; ``log_path`` points at the log to read next.
    """

    def __init__(self, service: str, cause: str, log_path: Path | None = None) -> None:
        self.service = service
        self.cause = cause
        self.log_path = log_path
        suffix = f" (log: {log_path})" if log_path is not None else ""
        super().__init__(f"{service}: {cause}{suffix}")


class ServiceUnavailableError(ApexMemError):
    """A service the caller asked for does not answer at its configured address."""

    def __init__(self, service: str, address: str, detail: str = "") -> None:
        self.service = service
        self.address = address
        hint = f": {detail}" if detail else ""
        super().__init__(
            f"{service} is not reachable at {address}{hint}. "
            f"Start it with `apexmem services up {service}` "
            "or point the setting at a running server."
        )


class LanguageModelError(ApexMemError):
    """The language model cannot be used at all: no key, a key the provider refuses, a model
    it does not know. Every call would fail the same way, so the call stops here.

    The message is one line naming the model, the cause and the fix.
    """

    def __init__(self, model: str, cause: str, fix: str) -> None:
        self.model = model
        self.cause = cause
        self.fix = fix
        ApexMemError.__init__(self, f"language model {model}: {cause}. Fix: {fix}")


class LanguageModelUnreachableError(LanguageModelError, ServiceUnavailableError):
    """Nothing answers at the language model's address (refused, no route, unknown host).

    Both a ``LanguageModelError`` and a ``ServiceUnavailableError`` for the service "llm".
    """

    def __init__(self, model: str, address: str, cause: str, fix: str) -> None:
        self.service = "llm"
        self.address = address
        LanguageModelError.__init__(self, model, cause, fix)


class UnknownEntityError(ApexMemError, LookupError):
    """No entity of that name or id in the scope. The one-line message lists the scope's
    nearest known names (``nearest``), so the caller can ask again with one of them."""

    def __init__(self, name: str, scope: str | None = None, nearest: tuple[str, ...] = ()) -> None:
        self.name = name
        self.scope = scope
        self.nearest = nearest
        super().__init__(self._message())

    def _where(self) -> str:
        return f" in scope {self.scope!r}" if self.scope is not None else ""

    def _message(self) -> str:
        known = "; nearest known names: " + ", ".join(self.nearest) if self.nearest else ""
        return f"no entity named {self.name!r}{self._where()}{known}"


class AmbiguousEntityError(UnknownEntityError):
    """A name that fits several entities equally well ("Maya" for Maya Lee and Maya Chen).

    A subclass of ``UnknownEntityError`` because the name names no single entity; ``nearest``
    holds the candidates (name, type and id) so the caller can ask by full name or id.
    """

    def _message(self) -> str:
        listed = "; ".join(self.nearest)
        return (
            f"{self.name!r} names more than one entity{self._where()}: {listed} "
            "(ask by full name or id)"
        )


class InvalidInputError(ApexMemError, ValueError):
    """Input given to the memory is malformed; the message names the item and the problem."""


class UnknownModeError(ApexMemError, ValueError):
    """An answering mode that is not one of the agent's modes."""


class NoLanguageModelError(ApexMemError):
    """A call needs an LM and the memory was built without one."""


class NoSearchIndexError(ApexMemError):
    """``search`` on a memory built without a search index."""


class StoreNotFoundError(ApexMemError, FileNotFoundError):
    """A memory opened for reading does not exist."""


class NothingToForgetError(ApexMemError, LookupError):
    """``forget`` named a session, an entity or a scope that holds nothing; the message
    names what the scope holds instead."""


class ToolError(ApexMemError):
    """A refused or failed query or tool call, told to the agent as text it can act on.

    ``title`` names the problem (shown after "Error:"), ``detail`` explains it and
    ``suggestion`` (optional) shows the form to use instead, e.g. a Cypher query.
    """

    def __init__(self, title: str, detail: str, suggestion: str | None = None) -> None:
        self.title = title
        self.detail = detail
        self.suggestion = suggestion
        super().__init__(f"{title}: {detail}")
