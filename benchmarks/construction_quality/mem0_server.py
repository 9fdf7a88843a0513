"""A benchmark-only llama-server for the Mem0 arm: the binary and model file of
``apexmem services up llm``, on its own port with a larger context per slot.

Mem0's stock extraction prompt alone nearly fills a slot of the library's server, so there
the turn, the memories Mem0 recalls and its answer overflow. This server gives each of its
``SLOTS`` slots ``CONTEXT // SLOTS`` tokens (one slot keeps the long extraction prompt cached,
the other serves the answers). It has its own PID
file and log (``APEXMEM_HOME/run/llm-mem0.pid``, ``logs/llm-mem0.log``); the library's
server, its port and its settings are untouched.

    .venv/bin/python -m benchmarks.construction_quality.mem0_server up     # or: down, status
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

from apexmem_neo.errors import ServiceError
from apexmem_neo.services.llama_server import SERVICE_NAME, LlamaServerService
from apexmem_neo.services.process import LaunchSpec
from apexmem_neo.settings import Settings

HOST = "127.0.0.1"
PORT = 8081
CONTEXT = 32768
SLOTS = 2
MIN_SLOT_CONTEXT = 12288
"""Mem0's prompt, the turn, the memories and earlier messages it adds, and its default output
budget fit with room to spare."""


class Mem0LlamaServer(LlamaServerService):
    """llama-server with ``CONTEXT`` tokens over ``SLOTS`` slots, for the Mem0 arm only."""

    name = "llm-mem0"

    @property
    def cache_dir(self) -> Path:
        return self.home / "cache" / SERVICE_NAME  # the library server's build and model

    def launch_spec(self) -> LaunchSpec:
        spec = super().launch_spec()
        argv = with_option(with_option(spec.argv, "-c", str(CONTEXT)), "-np", str(SLOTS))
        return dataclasses.replace(spec, argv=argv)


def with_option(argv: Sequence[str], flag: str, value: str) -> list[str]:
    """``argv`` with ``flag``'s value replaced (or the pair appended)."""
    out = list(argv)
    if flag in out:
        out[out.index(flag) + 1] = value
    else:
        out += [flag, value]
    return out


def server(settings: Settings | None = None) -> Mem0LlamaServer:
    settings = settings or Settings()
    return Mem0LlamaServer(settings.apexmem_home, HOST, PORT)


def api_base(srv: Mem0LlamaServer) -> str:
    return f"{srv.base_url}/v1"


def slot_context(base_url: str) -> int | None:
    """The tokens each slot of the llama-server at ``base_url`` holds (None: not a
    llama-server, or it does not say)."""
    root = base_url.removesuffix("/").removesuffix("/v1")
    try:
        props: dict[str, Any] = httpx.get(f"{root}/props", timeout=5.0).json()
    except (httpx.HTTPError, OSError, ValueError):
        return None
    n_ctx = (props.get("default_generation_settings") or {}).get("n_ctx")
    return int(n_ctx) if isinstance(n_ctx, int) else None


def check_context(base_url: str) -> int | None:
    """The slot context of the server, after refusing one too small for Mem0's prompt."""
    n_ctx = slot_context(base_url)
    if n_ctx is not None and n_ctx < MIN_SLOT_CONTEXT:
        raise ServiceError(
            "llm-mem0",
            f"the LLM server at {base_url} gives each slot {n_ctx} tokens; Mem0's stock "
            f"extraction prompt needs at least {MIN_SLOT_CONTEXT} (start the benchmark's own "
            "server: python -m benchmarks.construction_quality.mem0_server up)",
        )
    return n_ctx


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("action", choices=("up", "down", "status"))
    args = p.parse_args(argv)
    srv = server()
    try:
        if args.action == "up":
            result = srv.up()
            verb = "started" if result.started else f"already {result.state.value}"
            print(f"llm-mem0: {verb} at {result.address} ({result.seconds:.1f} s)")
        elif args.action == "down":
            print("llm-mem0: stopped" if srv.down() else "llm-mem0: not started by apexmem")
        else:
            status = srv.status()
            print(f"llm-mem0: {status.state.value} at {status.address} pid {status.pid}")
    except ServiceError as exc:
        print(exc, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
