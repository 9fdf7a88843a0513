"""Neo4j 5.26 LTS Community without Docker: an embedded-Neo4j launcher built from Maven Central.

The launcher (services/neo4j/) is a Maven project. ``prepare`` builds it once into
``$APEXMEM_HOME/cache/neo4j/<key>/``, where the key hashes pom.xml and the Java sources, so a
changed launcher is rebuilt and an unchanged one never is. Maven's local repository lives in
``$APEXMEM_HOME/cache/maven-repo``, outside the git tree.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from neo4j import GraphDatabase, Query

from apexmem_neo.errors import ServiceError
from apexmem_neo.services.base import LocalService
from apexmem_neo.services.process import LaunchSpec, port_is_open

MARKER = "apexmem-neo4j-launcher"
JAR_NAME = f"{MARKER}.jar"
SOURCE_DIR = Path(__file__).resolve().parents[2] / "services" / "neo4j"
BUILD_TIMEOUT = 1800.0
_ANSI = re.compile(r"\x1b\[[0-9;]*m")

JVM_OPTIONS: tuple[str, ...] = (
    "-XX:+ExitOnOutOfMemoryError",
    "-XX:-OmitStackTraceInFastThrow",
    # the same opens Neo4j's own start script passes on Java 17+
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Dlog4j2.disable.jmx=true",
)


MEMORY_ENV: dict[str, tuple[str, int]] = {
    # env variable: (what it sizes, default MiB)
    "APEXMEM_NEO4J_HEAP_MB": ("the JVM heap", 1024),
    "APEXMEM_NEO4J_PAGECACHE_MB": ("Neo4j's page cache", 512),
}

GC_ENV = "APEXMEM_NEO4J_GC"
GC_OPTIONS: dict[str, str] = {
    # Neo4j's own default: short, steady pauses; its concurrent threads share the cores.
    "g1": "-XX:+UseG1GC",
    # The throughput collector works only inside its pauses; benchmarks.graph.gc_ab compares
    # the two (its figures are in the CHANGELOG): G1 stays the default for its steadier reads.
    "parallel": "-XX:+UseParallelGC",
}
DEFAULT_GC = "g1"


def jvm_options(env: Mapping[str, str]) -> list[str]:
    """Heap, garbage collector and page cache, from ``MEMORY_ENV`` (MiB, positive integers)
    and ``GC_ENV`` (a ``GC_OPTIONS`` name). The heap starts at its maximum, as Neo4j's
    manual advises: growing it takes a full collection."""
    sizes = {}
    for variable, (what, default) in MEMORY_ENV.items():
        raw = env.get(variable, "").strip()
        if raw and not (raw.isdigit() and int(raw) > 0):
            raise ServiceError("neo4j", f"{variable}={raw!r}: {what} is a positive whole MiB")
        sizes[variable] = int(raw) if raw else default
    gc = env.get(GC_ENV, "").strip().lower() or DEFAULT_GC
    if gc not in GC_OPTIONS:
        choices = " or ".join(GC_OPTIONS)
        raise ServiceError("neo4j", f"{GC_ENV}={gc!r}: the garbage collector is {choices}")
    heap = sizes["APEXMEM_NEO4J_HEAP_MB"]
    return [
        f"-Xms{heap}m",
        f"-Xmx{heap}m",
        GC_OPTIONS[gc],
        f"-Dapexmem.pagecache.mb={sizes['APEXMEM_NEO4J_PAGECACHE_MB']}",
    ]


def source_digest(source_dir: Path) -> str:
    """A short hash of pom.xml and every file under src/: the build-cache key."""
    pom = source_dir / "pom.xml"
    if not pom.is_file():
        raise ServiceError("neo4j", f"launcher sources not found: {pom} is missing")
    files = [pom, *sorted(p for p in (source_dir / "src").rglob("*") if p.is_file())]
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(source_dir).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()[:16]


@contextmanager
def _exclusive(lock_path: Path) -> Iterator[None]:
    """Hold an exclusive file lock so that two `up` calls never build at once."""
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _first_error_line(log_path: Path) -> str:
    try:
        lines = log_path.read_text(errors="replace").splitlines()
    except FileNotFoundError:
        return ""
    for line in lines:
        text = _ANSI.sub("", line).strip()
        message = text.removeprefix("[ERROR]").strip()
        # skip empty lines and headers such as "COMPILATION ERROR :"
        if text.startswith("[ERROR]") and message and not message.endswith(":"):
            return message[:300]
    return ""


class Neo4jService(LocalService):
    """Neo4j Community (embedded, Bolt only, auth off) managed as a local service."""

    name = "neo4j"
    marker = MARKER
    source_dir: Path = SOURCE_DIR
    connect_timeout: float = 3.0
    # the first query after start compiles Cypher cold; on a busy 2-core box that takes seconds,
    # and a server-side timeout would abort it and make the next probe start over
    query_timeout: float = 20.0

    @property
    def uri(self) -> str:
        return f"bolt://{self.host}:{self.port}"

    @property
    def maven_repo(self) -> Path:
        return self.home / "cache" / "maven-repo"

    @property
    def build_log_path(self) -> Path:
        return self.home / "logs" / "neo4j-build.log"

    def build_dir(self) -> Path:
        """Where the launcher built from the current sources lives (it may not exist yet)."""
        return self.cache_dir / source_digest(self.source_dir)

    def prepare(self) -> None:
        self._tool("java")
        target = self.build_dir()
        if not (target / JAR_NAME).is_file():
            with _exclusive(self.cache_dir / ".build.lock"):
                if not (target / JAR_NAME).is_file():
                    self._build(target)
        self.data_dir.mkdir(parents=True, exist_ok=True)

    def launch_spec(self) -> LaunchSpec:
        argv = [
            self._tool("java"),
            *JVM_OPTIONS,
            *jvm_options(os.environ),
            f"-Dapexmem.service={MARKER}",
            "-jar",
            str(self.build_dir() / JAR_NAME),
            str(self.data_dir),
            self.host,
            str(self.port),
        ]
        return LaunchSpec(argv=argv, env=dict(os.environ), cwd=self.data_dir)

    def is_healthy(self) -> bool:
        if not port_is_open(self.host, self.port, timeout=self.connect_timeout):
            return False
        try:
            return self._query_one("RETURN 1 AS value") == 1
        except Exception:  # any failure means "not healthy", by contract
            return False

    def version(self) -> str:
        query = (
            "CALL dbms.components() YIELD name, versions "
            "WHERE name = 'Neo4j Kernel' RETURN versions[0] AS value"
        )
        try:
            return str(self._query_one(query))
        except Exception as exc:
            raise ServiceError(self.name, f"cannot read the version at {self.uri}: {exc}") from exc

    def _query_one(self, text: str) -> object:
        """Run one read query in a short-lived driver and return the single value it yields."""
        with (
            GraphDatabase.driver(
                self.uri,
                auth=None,
                connection_timeout=self.connect_timeout,
                connection_acquisition_timeout=self.connect_timeout,
                max_connection_pool_size=1,
            ) as driver,
            driver.session() as session,
        ):
            record = session.run(Query(text, timeout=self.query_timeout)).single(strict=True)
            return record["value"]

    def _tool(self, command: str) -> str:
        path = shutil.which(command)
        if path is None:
            need = "a JDK 17 or 21" if command == "java" else "Maven 3.8 or newer"
            raise self._build_error(f"`{command}` not found on PATH; install {need}")
        return path

    def _build(self, target: Path) -> None:
        mvn = self._tool("mvn")
        partial = target.with_name(target.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        argv = [
            mvn,
            "-q",
            "-B",
            "-Dstyle.color=never",
            f"-Dmaven.repo.local={self.maven_repo}",
            f"-Dapexmem.build.dir={partial}",
            "-f",
            str(self.source_dir / "pom.xml"),
            "package",
        ]
        returncode = self._run_maven(argv)
        if returncode != 0 or not (partial / JAR_NAME).is_file():
            cause = _first_error_line(self.build_log_path) or (
                f"exit code {returncode}" if returncode else f"it produced no {JAR_NAME}"
            )
            raise self._build_error(f"Maven build of the Neo4j launcher failed: {cause}")
        partial.rename(target)
        self._prune_builds(keep=target)

    def _run_maven(self, argv: list[str]) -> int:
        """Run Maven with all output in the build log; return its exit code."""
        self.build_log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.build_log_path.open("w") as log:
            log.write(f"$ {' '.join(argv)}\n")
            log.flush()
            try:
                done = subprocess.run(
                    argv,
                    cwd=self.source_dir,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    timeout=BUILD_TIMEOUT,
                    check=False,
                )
            except subprocess.TimeoutExpired as exc:
                cause = f"Maven build timed out after {BUILD_TIMEOUT:.0f} s"
                raise self._build_error(cause) from exc
        return done.returncode

    def _prune_builds(self, keep: Path) -> None:
        """Remove builds of older sources, unless a server of ours may still be using one."""
        if self.pid_file.live_pid() is not None:
            return
        for entry in self.cache_dir.iterdir():
            if entry.is_dir() and entry != keep:
                shutil.rmtree(entry, ignore_errors=True)

    def _build_error(self, cause: str) -> ServiceError:
        """A ServiceError pointing at the build log, with the cause also written there."""
        self.build_log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.build_log_path.open("a") as log:
            log.write(f"apexmem: {cause}\n")
        return ServiceError(self.name, cause, self.build_log_path)


def private_neo4j(
    shared_home: Path, home: Path, port: int, host: str = "127.0.0.1"
) -> Neo4jService:
    """A second Neo4j whose data, logs and PID file live under ``home``, borrowing the build
    and Maven cache of the one under ``shared_home`` (built there first if need be): no
    second build, and nothing it does can prune the build the shared server runs from."""
    shared = Neo4jService(shared_home, host, 7687)
    shared.prepare()
    (home / "cache" / "neo4j").mkdir(parents=True, exist_ok=True)
    _link(home / "cache" / "maven-repo", shared.maven_repo)
    _link(home / "cache" / "neo4j" / shared.build_dir().name, shared.build_dir())
    return Neo4jService(home, host, port)


def _link(link: Path, target: Path) -> None:
    if not link.is_symlink() and not link.exists():
        link.symlink_to(target, target_is_directory=True)
