"""The LocalService template: build once into a cache, start detached, wait for health, stop by PID.

A concrete service (Neo4j, Elasticsearch, llama-server) supplies five things: how to prepare
its artifacts (``prepare``), how to launch (``launch_spec``), how to tell it is healthy
(``is_healthy``), what it is (``version``), and the marker that identifies its process.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from apexmem_neo.errors import ServiceError
from apexmem_neo.services.process import (
    LaunchSpec,
    PidFile,
    failure_excerpt,
    port_is_open,
    port_owner,
    spawn_detached,
    stop_process_group,
    wait_until,
)


class ServiceState(StrEnum):
    RUNNING = "running"  # started by apexmem, PID file valid, healthy
    STARTING = "starting"  # our process is alive but not healthy yet
    EXTERNAL = "external"  # a healthy server on the port that apexmem did not start
    BLOCKED = "blocked"  # the port is held by something that is not a healthy server of ours
    STOPPED = "stopped"


@dataclass(frozen=True)
class ServiceStatus:
    name: str
    state: ServiceState
    address: str
    pid: int | None = None
    detail: str = ""


@dataclass(frozen=True)
class UpResult:
    name: str
    started: bool  # False when an already-running server was reused
    state: ServiceState
    address: str
    pid: int | None
    seconds: float


class LocalService(ABC):
    """One server process managed through a PID file and a log under APEXMEM_HOME."""

    name: str
    marker: str
    start_timeout: float = 180.0
    stop_timeout: float = 30.0

    def __init__(self, home: Path, host: str, port: int) -> None:
        self.home = home
        self.host = host
        self.port = port

    # -- what a concrete service provides -------------------------------------------------
    @abstractmethod
    def prepare(self) -> None:
        """Build or download what the server needs into the cache; idempotent and fast when warm."""

    @abstractmethod
    def launch_spec(self) -> LaunchSpec:
        """The command that starts the server in the foreground."""

    @abstractmethod
    def is_healthy(self) -> bool:
        """One cheap round trip that proves the server answers (never raises)."""

    @abstractmethod
    def version(self) -> str:
        """The server's version as it reports it (called only when healthy)."""

    # -- shared behaviour ---------------------------------------------------------------------
    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def cache_dir(self) -> Path:
        return self.home / "cache" / self.name

    @property
    def data_dir(self) -> Path:
        return self.home / "data" / self.name

    @property
    def log_path(self) -> Path:
        return self.home / "logs" / f"{self.name}.log"

    @property
    def pid_file(self) -> PidFile:
        return PidFile(self.home / "run" / f"{self.name}.pid", self.marker)

    def status(self) -> ServiceStatus:
        pid = self.pid_file.live_pid()
        if pid is not None:
            state = ServiceState.RUNNING if self.is_healthy() else ServiceState.STARTING
            return ServiceStatus(self.name, state, self.address, pid)
        if not port_is_open(self.host, self.port):
            return ServiceStatus(self.name, ServiceState.STOPPED, self.address)
        if self.is_healthy():
            return ServiceStatus(self.name, ServiceState.EXTERNAL, self.address)
        owner = port_owner(self.port)
        return ServiceStatus(self.name, ServiceState.BLOCKED, self.address, detail=owner)

    def up(self) -> UpResult:
        """Start the server unless a healthy one is already there; fail clearly otherwise."""
        began = time.monotonic()
        current = self.status()
        if current.state in (ServiceState.RUNNING, ServiceState.EXTERNAL):
            return self._result(current, started=False, began=began)
        if current.state is ServiceState.BLOCKED:
            raise ServiceError(
                self.name,
                f"port {self.port} is taken by {current.detail}; stop it or choose another port",
            )
        if current.state is ServiceState.STARTING and current.pid is not None:
            self._wait_healthy(current.pid, None)
            return self._result(self.status(), started=False, began=began)
        self.prepare()
        pid = self._spawn()
        return self._result(
            ServiceStatus(self.name, ServiceState.RUNNING, self.address, pid),
            started=True,
            began=began,
        )

    def down(self) -> bool:
        """Stop the server if apexmem started it. Returns True when a process was stopped."""
        pid = self.pid_file.live_pid()
        if pid is None:
            return False
        stop_process_group(pid, self.stop_timeout)
        self.pid_file.remove()
        return True

    def _spawn(self) -> int:
        spec = self.launch_spec()
        proc = spawn_detached(spec, self.log_path)
        self.pid_file.write(proc.pid)
        self._wait_healthy(proc.pid, proc.poll)
        return proc.pid

    def _wait_healthy(self, pid: int, poll: Callable[[], int | None] | None) -> None:
        def died() -> str | None:
            if poll is not None:  # our child: poll() is exact (and /proc races the exec)
                code = poll()
                return None if code is None else f"exited during start with code {code}"
            if self.pid_file.live_pid() is None:
                return "process disappeared during start"
            return None

        reason = wait_until(self.is_healthy, died, self.start_timeout)
        if reason is None:
            return
        stop_process_group(pid, 5.0)
        self.pid_file.remove()
        excerpt = failure_excerpt(self.log_path)
        raise ServiceError(self.name, f"{reason}; log says: {excerpt}", self.log_path)

    def _result(self, status: ServiceStatus, started: bool, began: float) -> UpResult:
        return UpResult(
            name=self.name,
            started=started,
            state=status.state,
            address=status.address,
            pid=status.pid,
            seconds=time.monotonic() - began,
        )
