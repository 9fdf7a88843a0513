"""Launcher logic (PID files, ports, health waits, failure cleanup) with a tiny scripted process.

No real server is started here: a few lines of Python stand in for one, which is enough to
exercise every path of LocalService; the real servers are covered in tests/integration.
"""

from __future__ import annotations

import os
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from apexmem_neo.errors import ServiceError
from apexmem_neo.services.base import LocalService, ServiceState
from apexmem_neo.services.process import (
    LaunchSpec,
    PidFile,
    port_is_open,
    port_owner,
    process_cmdline,
    wait_until,
)

LISTENER = """
import socket, sys, time
delay, mode = float(sys.argv[2]), sys.argv[3]
time.sleep(delay)
if mode == "die":
    print("fatal: pretend config error", flush=True)
    sys.exit(3)
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
if mode == "listen":
    s.listen()
print("ready", flush=True)
while True:
    time.sleep(1)
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ScriptedService(LocalService):
    """A LocalService whose 'server' is the LISTENER script above."""

    name = "scripted"
    marker = "apexmem-scripted-test-service"
    start_timeout = 5.0
    stop_timeout = 5.0

    def __init__(self, home: Path, port: int, delay: float = 0.0, mode: str = "listen") -> None:
        super().__init__(home, "127.0.0.1", port)
        self.delay, self.mode, self.prepared = delay, mode, 0

    def prepare(self) -> None:
        self.prepared += 1

    def launch_spec(self) -> LaunchSpec:
        argv = [
            sys.executable,
            "-c",
            LISTENER,
            str(self.port),
            str(self.delay),
            self.mode,
            self.marker,
        ]
        return LaunchSpec(argv=argv, env=dict(os.environ), cwd=self.home)

    def is_healthy(self) -> bool:
        return port_is_open(self.host, self.port)

    def version(self) -> str:
        return "scripted 1.0"


@pytest.fixture
def service(tmp_path: Path) -> Iterator[ScriptedService]:
    svc = ScriptedService(tmp_path, free_port())
    yield svc
    svc.down()


def test_up_starts_then_reuses_then_down_stops(service: ScriptedService) -> None:
    first = service.up()
    assert first.started and first.state is ServiceState.RUNNING and first.pid
    assert service.pid_file.read() == first.pid
    second = service.up()
    assert not second.started and second.pid == first.pid
    assert service.prepared == 1  # a reused server is not prepared again
    assert service.down() is True
    assert process_cmdline(first.pid) is None
    assert not service.pid_file.path.exists()
    assert service.status().state is ServiceState.STOPPED


def test_down_without_a_server_is_a_no_op(service: ScriptedService) -> None:
    assert service.down() is False


def test_process_that_dies_during_start_names_the_exit_and_the_log(tmp_path: Path) -> None:
    svc = ScriptedService(tmp_path, free_port(), mode="die")
    with pytest.raises(ServiceError) as info:
        svc.up()
    message = str(info.value)
    assert "exited during start with code 3" in message
    assert "pretend config error" in message
    assert str(svc.log_path) in message
    assert not svc.pid_file.path.exists()


def test_health_timeout_kills_the_process_and_leaves_no_orphan(tmp_path: Path) -> None:
    svc = ScriptedService(tmp_path, free_port(), mode="bind-only")  # never accepts
    svc.start_timeout = 1.5
    with pytest.raises(ServiceError, match="not healthy after 2 s"):
        svc.up()
    leftovers = [
        p
        for p in Path("/proc").iterdir()
        if p.name.isdigit() and svc.marker in (process_cmdline(int(p.name)) or "")
    ]
    assert leftovers == []


def test_port_taken_by_another_process_is_reported_with_its_owner(tmp_path: Path) -> None:
    port = free_port()
    blocker = socket.socket()
    blocker.bind(("127.0.0.1", port))
    blocker.listen()
    try:
        svc = ScriptedService(tmp_path, port)
        svc.is_healthy = lambda: False  # type: ignore[method-assign]  # not a server of ours
        assert svc.status().state is ServiceState.BLOCKED
        with pytest.raises(ServiceError, match=f"port {port} is taken by pid {os.getpid()}"):
            svc.up()
    finally:
        blocker.close()


def test_healthy_server_we_did_not_start_is_reused_not_owned(tmp_path: Path) -> None:
    port = free_port()
    other = socket.socket()
    other.bind(("127.0.0.1", port))
    other.listen()
    try:
        svc = ScriptedService(tmp_path, port)
        result = svc.up()
        assert result.state is ServiceState.EXTERNAL and not result.started
        assert svc.down() is False  # never stops what it did not start
    finally:
        other.close()


def test_stale_pid_file_is_ignored_and_removed(service: ScriptedService) -> None:
    service.pid_file.write(2**22 + 12345)  # above pid_max defaults: no such process
    assert service.pid_file.live_pid() is None
    assert not service.pid_file.path.exists()
    assert service.up().started


def test_pid_of_an_unrelated_process_is_not_trusted(tmp_path: Path) -> None:
    pid_file = PidFile(tmp_path / "x.pid", marker="apexmem-no-such-marker")
    pid_file.write(os.getpid())  # alive, but its command line lacks the marker
    assert pid_file.live_pid() is None


def test_port_owner_names_the_listening_process() -> None:
    port = free_port()
    with socket.socket() as s:
        s.bind(("127.0.0.1", port))
        s.listen()
        assert port_owner(port).startswith(f"pid {os.getpid()}:")
    assert port_owner(free_port()) == "an unknown process"


def test_wait_until_reports_timeout_and_early_death() -> None:
    began = time.monotonic()
    assert wait_until(lambda: False, lambda: None, timeout=0.3, interval=0.05) == (
        "not healthy after 0 s"
    )
    assert time.monotonic() - began < 2
    assert wait_until(lambda: False, lambda: "died", timeout=5) == "died"
    assert wait_until(lambda: True, lambda: "died", timeout=5) is None
