"""Importing apexmem_neo sets nothing: the environment is the application's, and only the
entry points (the CLI, the servers, the benchmarks) set variables, when they run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

IMPORT_EVERY_MODULE = """
import importlib, json, os, pkgutil, sys
before = dict(os.environ)
import apexmem_neo
for module in pkgutil.walk_packages(apexmem_neo.__path__, "apexmem_neo."):
    try:
        importlib.import_module(module.name)
    except ModuleNotFoundError as exc:  # an optional extra that is not installed
        if (exc.name or "").startswith("apexmem_neo"):
            raise
after = dict(os.environ)
changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
print(json.dumps(changed))
"""


def test_importing_every_module_leaves_the_environment_as_it_was() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LITELLM_", "HF_"))}
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_EVERY_MODULE],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.splitlines()[-1]) == []
