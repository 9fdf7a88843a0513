"""Process plumbing shared by every local service: PID files, ports, detached start, stop.

Nothing here knows about a particular server. A service owns a PID file; a PID is only
trusted while /proc says the process is alive *and* its command line carries the service's
marker, so a recycled PID never makes us stop somebody else's process.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from apexmem_neo.errors import ServiceError


def process_cmdline(pid: int) -> str | None:
    """The command line of a live process, or None when there is no such process."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    state = _process_state(pid)
    if state in (None, "Z", "X"):  # zombie or dead: gone for our purposes
        return None
    return raw.replace(b"\0", b" ").decode(errors="replace").strip()


def _process_state(pid: int) -> str | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    # the state follows the parenthesised command name, which may itself hold spaces
    return stat.rsplit(")", 1)[1].split()[0]


@dataclass(frozen=True)
class PidFile:
    """A PID file plus the marker that the owning process's command line must contain."""

    path: Path
    marker: str

    def read(self) -> int | None:
        try:
            text = self.path.read_text().strip()
        except FileNotFoundError:
            return None
        return int(text) if text.isdigit() else None

    def write(self, pid: int) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(f"{pid}\n")
        tmp.replace(self.path)

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)

    def live_pid(self) -> int | None:
        """The recorded PID if that process still runs and is ours; a stale file is removed."""
        pid = self.read()
        if pid is None:
            if self.path.exists():
                self.remove()
            return None
        cmdline = process_cmdline(pid)
        if cmdline is None or self.marker not in cmdline:
            self.remove()
            return None
        return pid


def port_is_open(host: str, port: int, timeout: float = 0.5) -> bool:
    """True when something accepts TCP connections on host:port."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def port_owner(port: int) -> str:
    """Best-effort description ("pid 123: java -jar ...") of the process listening on a port."""
    inodes = _listening_inodes(port)
    if not inodes:
        return "an unknown process"
    for pid_dir in Path("/proc").iterdir():
        if not pid_dir.name.isdigit():
            continue
        try:
            fds = list((pid_dir / "fd").iterdir())
        except (PermissionError, FileNotFoundError, NotADirectoryError):
            continue
        for fd in fds:
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:[") and target[8:-1] in inodes:
                cmd = process_cmdline(int(pid_dir.name)) or "?"
                return f"pid {pid_dir.name}: {cmd[:160]}"
    return "a process this user cannot inspect"


def _listening_inodes(port: int) -> set[str]:
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except FileNotFoundError:
            continue
        for line in lines:
            fields = line.split()
            local_port = int(fields[1].rsplit(":", 1)[1], 16)
            if local_port == port and fields[3] == "0A":  # 0A = LISTEN
                inodes.add(fields[9])
    return inodes


@dataclass(frozen=True)
class LaunchSpec:
    """How to start a server process: argv, environment, working directory, optional user."""

    argv: Sequence[str]
    env: Mapping[str, str]
    cwd: Path
    user: str | None = None


def spawn_detached(spec: LaunchSpec, log_path: Path) -> subprocess.Popen[bytes]:
    """Start a server in its own session (so its whole group can be stopped), output to a log."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    group, extra_groups = _user_groups(spec.user)
    with log_path.open("ab") as log:
        log.write(
            f"\n=== start {time.strftime('%Y-%m-%dT%H:%M:%S')}: {' '.join(spec.argv)}\n".encode()
        )
        log.flush()
        try:
            return subprocess.Popen(
                list(spec.argv),
                env=dict(spec.env),
                cwd=spec.cwd,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                user=spec.user,
                group=group,
                extra_groups=extra_groups,
            )
        except FileNotFoundError as exc:
            raise ServiceError(
                spec.argv[0], f"executable not found: {exc.filename}", log_path
            ) from exc


def _user_groups(user: str | None) -> tuple[int | None, list[int] | None]:
    """The primary group and (no) supplementary groups for a process started as ``user``.

    Popen(user=...) alone only changes the uid: the child would keep root's gid 0 and groups.
    """
    if user is None:
        return None, None
    try:
        return pwd.getpwnam(user).pw_gid, []
    except KeyError as exc:
        raise ServiceError(user, f"no such system user: {user}") from exc


def stop_process_group(pid: int, timeout: float = 30.0) -> None:
    """SIGTERM the process group led by pid, wait, then SIGKILL whatever is left."""
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            return
        except PermissionError:
            os.kill(pid, sig)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            _reap(pid)
            if process_cmdline(pid) is None and not _group_alive(pid):
                return
            time.sleep(0.2)


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def wait_until(
    ready: Callable[[], bool],
    still_starting: Callable[[], str | None],
    timeout: float,
    interval: float = 0.5,
) -> str | None:
    """Poll ``ready`` until it is true. Returns None on success, else the reason it gave up.

    ``still_starting`` returns a reason string when waiting is pointless (the process died).
    """
    deadline = time.monotonic() + timeout
    while True:
        if ready():
            return None
        reason = still_starting()
        if reason is not None:
            return reason
        if time.monotonic() >= deadline:
            return f"not healthy after {timeout:.0f} s"
        time.sleep(interval)


def tail(path: Path, lines: int = 15) -> str:
    """The last lines of a log, for error messages."""
    try:
        content = path.read_text(errors="replace").splitlines()
    except FileNotFoundError:
        return ""
    return "\n".join(content[-lines:])


_ERROR_WORDS = ("error", "exception", "fatal", "failed", "cannot", "refused", "address already")


def failure_excerpt(path: Path, scan: int = 200, keep: int = 3) -> str:
    """The log lines most likely to explain a failed start, joined on one line.

    Servers often end their log with a generic "died while starting"; the cause is earlier,
    so prefer the last lines that name an error, and fall back to the plain tail.
    """
    lines = [line.strip() for line in tail(path, scan).splitlines() if line.strip()]
    telling = [line for line in lines if any(w in line.lower() for w in _ERROR_WORDS)]
    chosen = (telling or lines)[-keep:]
    return " | ".join(line[:300] for line in chosen)


def run_logged(service: str, argv: Sequence[str], log: Path, what: str) -> None:
    """Run a preparation step (download, build, user creation) with its output appended to
    ``log``; a failure is a one-line ``ServiceError`` of ``service`` naming the step."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        out.write(f"\n=== {what}: {' '.join(argv)}\n".encode())
        out.flush()
        try:
            done = subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT, check=False)
        except FileNotFoundError as exc:
            raise ServiceError(service, f"{what}: {exc.filename} not found", log) from exc
    if done.returncode != 0:
        cause = f"{what} failed (exit {done.returncode}): {last_error(log)}"
        raise ServiceError(service, cause, log)


def last_error(log: Path) -> str:
    """The last line of the log that mentions an error (or its last line), for one-line causes."""
    try:
        lines = [ln.strip() for ln in log.read_text(errors="replace").splitlines() if ln.strip()]
    except FileNotFoundError:
        return "no output"
    errors = [ln for ln in lines if "error" in ln.lower()]
    return (errors or lines or ["no output"])[-1][:300]
