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


class SearchError(ApexMemError):
    """Base class of search errors."""


class EmptyQueryError(SearchError, ValueError):
    """The query is empty or only whitespace."""

    def __init__(self) -> None:
        super().__init__("search query is empty (or only whitespace); give some words to search")


class MissingScopeError(SearchError, ValueError):
    """A search named no scope: it would see every user's documents."""

    def __init__(self) -> None:
        super().__init__(
            "search needs a scope (a search sees one scope only): pass "
            "filters=SearchFilters(scope=...)"
        )


REBUILD_COMMAND = "apexmem index --rebuild"
"""The command that rebuilds a search index, named in the messages that ask for a rebuild."""


class EmbedderMismatchError(SearchError):
    """The index was built with another embedding model (or vector size) than the one given:
    its vectors and the query vectors would not be comparable.

    ``stored`` and ``given`` are (model name, dimensions), as ``search.protocol.EmbedderInfo``.
    """

    def __init__(
        self,
        where: str,
        stored: tuple[str, int],
        given: tuple[str, int],
        rebuild: str = REBUILD_COMMAND,
    ) -> None:
        self.stored, self.given = stored, given
        (stored_name, stored_dims), (name, dims) = stored, given
        built = f"embedder {stored_name!r}" if stored_name else "an unrecorded embedder"
        configured = repr(name) if name else "an unnamed embedder"
        model = stored_name or f"a {stored_dims}-d model"
        super().__init__(
            f"search index {where} was built with {built} ({stored_dims}-d); this memory is "
            f"configured with {configured} ({dims}-d): set APEXMEM_EMBED_MODEL={model} "
            f"(or embedder=... in code) or rebuild the index with `{rebuild}`"
        )


class UnscopedIndexError(SearchError):
    """The index was built before scopes: its documents name no scope, so no search could
    keep one scope's documents from another's."""

    def __init__(self, where: str, rebuild: str = REBUILD_COMMAND) -> None:
        super().__init__(
            f"search index {where} was built before scopes (its documents name no scope); "
            f"rebuild it with `{rebuild}`"
        )


class EmbedderError(SearchError):
    """A model could not be found or loaded."""


class StoreError(ApexMemError):
    """Base class of store errors."""


class StoreNotReadyError(StoreError):
    """A query or write came before ``init_schema()`` or after ``close()``."""


class DanglingReferenceError(StoreError):
    """A batch points at an id that is neither in the batch nor in the store."""

    def __init__(self, field: str, value: str) -> None:
        self.field = field
        self.value = value
        super().__init__(f"{field} {value!r} does not exist in the batch or the store")


class UnknownReferenceError(StoreError):
    """``before()`` was given an event id the store does not know."""

    def __init__(self, reference: str) -> None:
        self.reference = reference
        super().__init__(
            f"reference {reference!r} is neither an ISO 8601 time nor a known event_id"
        )


class InvalidCursorError(StoreError, ValueError):
    """A page cursor that no page of this kind can have returned (``GraphStore.page``)."""

    def __init__(self, cursor: str, reason: str) -> None:
        self.cursor = cursor
        super().__init__(f"page cursor {cursor!r} is not valid: {reason}")


class BulkWriteError(StoreError):
    """Batch number ``index`` (0-based) failed; batches before it that committed stay."""

    def __init__(self, index: int, cause: BaseException) -> None:
        super().__init__(f"bulk write stopped at batch {index}: {cause}")
        self.index = index


class CypherFileError(StoreError):
    """A Cypher file is missing, misnamed, or names a label or type outside the allow-list."""


class TransferError(ApexMemError):
    """An export file that cannot be imported (the message names the line), or a scope that
    cannot be exported."""


class LoaderError(ApexMemError, ValueError):
    """An input file is not in the format it claims (the message names file and place)."""


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


class UnknownSessionError(ApexMemError, LookupError):
    """A listing named a session its scope does not hold; the message lists the scope's
    sessions."""
