"""The README's CLI examples, run as written after ``apexmem demo`` (what ``make demo`` runs),
through the local LLM: every command of the block that follows "After `make demo`" exits 0
and prints no error line.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.llm]

README = Path(__file__).resolve().parents[3] / "README.md"


def demo_block() -> str:
    """The bash block after the README's "After `make demo`" sentence."""
    text = README.read_text(encoding="utf-8")
    after = text[text.index("After `make demo`, these run as written") :]
    found = re.search(r"```bash\n(.*?)```", after, re.DOTALL)
    assert found is not None, "the README lost its demo CLI block"
    return found.group(1)


def test_the_block_reads_the_demos_memory() -> None:
    block = demo_block()
    assert "APEXMEM_SCOPE=alice-demo" in block and "demo/alice.sqlite" in block
    assert all(line.startswith(("export ", "apexmem ")) for line in block.splitlines() if line)


@pytest.mark.timeout(3600)
def test_the_readme_cli_runs_as_written_after_the_demo(lm_api_base: str, tmp_path: Path) -> None:
    bin_dir = str(Path(sys.executable).parent)
    env = {k: v for k, v in os.environ.items() if k not in ("APEXMEM_DB", "APEXMEM_SCOPE")}
    env |= {
        "APEXMEM_HOME": str(tmp_path / "home"),
        "APEXMEM_LM_API_BASE": lm_api_base,
        "APEXMEM_LM_API_KEY": "local",
        "PATH": f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
    }
    demo = subprocess.run(
        ["apexmem", "demo"], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=3000
    )
    assert demo.returncode == 0, demo.stderr[-2000:]
    for command in _commands(demo_block()):
        run = subprocess.run(
            ["bash", "-c", command], env=env, cwd=tmp_path, capture_output=True, text=True,
            timeout=900,
        )  # fmt: skip
        assert run.returncode == 0, (command, run.stdout[-1500:], run.stderr[-1500:])
        assert "error:" not in run.stderr, (command, run.stderr[-1500:])
    assert (tmp_path / "alice.jsonl").stat().st_size > 0


def _commands(block: str) -> list[str]:
    """Each apexmem line of the block, preceded by the block's export lines."""
    lines = [line for line in block.splitlines() if line.strip()]
    exports = [line for line in lines if line.startswith("export ")]
    return ["\n".join([*exports, line]) for line in lines if line.startswith("apexmem ")]
