"""`apexmem forget --scope S [--session NAME | --entity NAME]`: erase from memory for good."""

from __future__ import annotations

from typing import Annotated

import typer

from apexmem_neo.cli.common import (
    JsonOpt,
    MemoryChoice,
    fail,
    print_json,
)


@MemoryChoice.options()
def forget(
    scope: Annotated[
        str, typer.Option("--scope", help="Whose memory to erase from (required: no default).")
    ],
    session: Annotated[
        str | None, typer.Option("--session", help="Erase only this session (its name).")
    ] = None,
    entity: Annotated[
        str | None, typer.Option("--entity", help="Erase only this entity (name or id).")
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", help="Do not ask for confirmation.")] = False,
    choice: MemoryChoice = MemoryChoice.SETTINGS,
    as_json: JsonOpt = False,
) -> None:
    """Erase a whole scope, one of its sessions or one entity from the store, the search
    index, the checkpoint and the embedding cache. This cannot be undone; an audit record
    (ids, counts, time; no content) stays."""
    if session is not None and entity is not None:
        fail("--session and --entity: forget one of them at a time")
    what = f"session {session!r}" if session else f"entity {entity!r}" if entity else "everything"
    if not yes and not typer.confirm(f"Erase {what} of scope {scope!r} for good?"):
        fail("nothing erased")
    with choice.open(create=False, with_lm=False) as memory:
        result = memory.forget(scope=scope, session=session, entity=entity)
    if as_json:
        print_json(result.model_dump(mode="json", exclude={"erasure": {"erased_ids"}}))
        return
    counts = ", ".join(f"{n} {t}" for t, n in result.erasure.counts.items() if n)
    typer.echo(
        f"erased {what} of scope {scope!r}: {counts or 'nothing matched'}; "
        f"{result.documents} search documents, {result.checkpoint_rows} checkpoint rows "
        f"(erasure {result.erasure.erasure_id})"
    )
