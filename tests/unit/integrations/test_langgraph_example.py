"""examples/langgraph_memory_store.py runs as a user would run it (a subprocess, its own
SQLite file, the hashing embedder) and prints what its graph remembered and recalled."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "langgraph_memory_store.py"


def test_the_example_graph_remembers_and_recalls(tmp_path: Path) -> None:
    db = tmp_path / "example.sqlite"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(EXAMPLE.parents[1])}
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), "--db", str(db), "--fake-embedder"],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "alice: 'I live in Lisbon' -> recalled ['I live in Lisbon']"
    assert lines[2].startswith("bob: ") and "Lisbon" not in lines[2]  # bob sees only his own
    assert "'I live in Lisbon'" in lines[3]  # alice's earlier message is recalled
    assert lines[4] == "namespaces: [('users', 'alice'), ('users', 'bob')]"
    assert lines[5].startswith("Memory.search in scope users/alice: [") and "Oslo" not in lines[5]
    assert db.is_file()
