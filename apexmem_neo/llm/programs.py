"""Compiled DSPy programs on disk: loading one into a fresh program of its kind.

A compiled program is a DSPy module with few-shot demonstrations chosen for a model and its
data, saved with DSPy's own ``save`` as JSON. The agent's answer, ReAct and query programs
and the construction's extraction program are all loaded here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dspy

from apexmem_neo.errors import ApexMemError


def signatures_of(program: dspy.Module) -> dict[str, Any]:
    """Each predictor's instructions and field descriptions: a program without its demos."""
    return {name: p.signature.dump_state() for name, p in program.named_predictors()}


def load_compiled(program: dspy.Module, path: str | Path) -> dspy.Module:
    """``program`` with the demonstrations saved at ``path`` (DSPy's ``save``), loaded with
    DSPy's ``load``. A file whose instructions or fields differ from ``program``'s own was
    compiled for another prompt (other tools, an older signature) and is refused, since
    loading it would also replace the program's words with the stale ones."""
    file = Path(path)
    if not file.is_file():
        raise ApexMemError(f"no compiled program at {file}")
    expected = signatures_of(program)
    try:
        program.load(str(file))
    except Exception as exc:  # a file of another program or a broken one: name it
        raise ApexMemError(f"{file} is not a compiled program of this kind: {exc}") from exc
    if signatures_of(program) != expected:
        raise ApexMemError(
            f"{file} was compiled for another prompt (its instructions or fields differ from "
            "the program's own): compile it again"
        )
    return program


__all__ = ["load_compiled", "signatures_of"]
