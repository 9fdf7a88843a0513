"""Time `apexmem services up` for each service, warm (caches filled) or cold (a fresh home).

    python -m benchmarks.services.startup                 # warm: down, then up, per service
    python -m benchmarks.services.startup --home /tmp/h   # cold when /tmp/h is empty

Cold runs use their own ports (7787, 9250, 8180) so they never touch the servers of the
default home. Services this script starts are stopped again at the end. Results go to
benchmarks/results/services_startup.json.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from apexmem_neo.services.registry import SERVICE_NAMES, build_service
from apexmem_neo.settings import Settings

COLD_PORTS = {
    "neo4j": "bolt://127.0.0.1:7787",
    "es": "http://127.0.0.1:9250",
    "llm": "http://127.0.0.1:8180/v1",
}
RESULTS = Path(__file__).resolve().parents[1] / "results" / "services_startup.json"


def _settings(home: Path | None) -> Settings:
    if home is None:
        return Settings()
    return Settings(
        APEXMEM_HOME=home,
        NEO4J_URI=COLD_PORTS["neo4j"],
        ELASTICSEARCH_URL=COLD_PORTS["es"],
        APEXMEM_LM_API_BASE=COLD_PORTS["llm"],
    )


def measure(name: str, settings: Settings, keep_running: bool) -> dict[str, float | str]:
    """Stop the service if apexmem runs it, then time a start and a reuse."""
    service = build_service(name, settings)
    was_running = service.pid_file.live_pid() is not None
    service.down()
    began = time.monotonic()
    result = service.up()
    up_seconds = time.monotonic() - began
    began = time.monotonic()
    service.up()
    reuse_seconds = time.monotonic() - began
    version = service.version()
    if not (keep_running and was_running):
        service.down()
    return {
        "service": name,
        "up_s": round(up_seconds, 1),
        "reuse_s": round(reuse_seconds, 2),
        "state": result.state.value,
        "version": version,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, default=None, help="APEXMEM_HOME for a cold run")
    parser.add_argument("--services", default=",".join(SERVICE_NAMES))
    args = parser.parse_args()
    settings = _settings(args.home)
    mode = "warm" if args.home is None else f"home {args.home}"
    rows = [measure(n, settings, args.home is None) for n in args.services.split(",")]
    table = Table("service", "version", "up (s)", "reuse (s)", title=f"services up, {mode}")
    for row in rows:
        table.add_row(*(str(row[k]) for k in ("service", "version", "up_s", "reuse_s")))
    Console().print(table)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"mode": mode, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
