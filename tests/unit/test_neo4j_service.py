"""Neo4jService logic that needs no server: cache key, launch command, tool and build errors."""

from __future__ import annotations

import re
import shutil
import socket
import stat
from pathlib import Path

import pytest

from apexmem_neo.errors import ServiceError
from apexmem_neo.services import neo4j_server as n4
from apexmem_neo.services.base import ServiceState
from apexmem_neo.services.neo4j_server import Neo4jService

JAVA = shutil.which("java") or "/usr/bin/java"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def sources(tmp_path: Path) -> Path:
    """A private copy of the launcher's Maven project (pom.xml and src/)."""
    copy = tmp_path / "src-copy"
    copy.mkdir()
    shutil.copy2(n4.SOURCE_DIR / "pom.xml", copy / "pom.xml")
    shutil.copytree(n4.SOURCE_DIR / "src", copy / "src")
    return copy


@pytest.fixture
def service(tmp_path: Path, sources: Path) -> Neo4jService:
    svc = Neo4jService(tmp_path / "home", "127.0.0.1", free_port())
    svc.source_dir = sources
    return svc


def bin_dir(tmp_path: Path, mvn_script: str | None) -> Path:
    """A PATH directory holding `java` and, when given, a fake `mvn` with that shell body."""
    path = tmp_path / "bin"
    path.mkdir(exist_ok=True)
    (path / "java").symlink_to(JAVA)
    if mvn_script is not None:
        mvn = path / "mvn"
        mvn.write_text("#!/bin/sh\n" + mvn_script)
        mvn.chmod(mvn.stat().st_mode | stat.S_IEXEC)
    return path


def test_the_pom_pins_one_5_26_version_for_neo4j_and_bolt() -> None:
    pom = (n4.SOURCE_DIR / "pom.xml").read_text()
    assert re.search(r"<neo4j.version>5\.26\.\d+</neo4j.version>", pom)
    assert "<artifactId>neo4j-bolt</artifactId>" in pom
    assert pom.count("<version>${neo4j.version}</version>") == 2


def test_cache_key_is_stable_and_follows_the_sources(sources: Path) -> None:
    first = n4.source_digest(sources)
    assert n4.source_digest(sources) == first
    java = next((sources / "src").rglob("Neo4jLauncher.java"))
    java.write_text(java.read_text() + "\n// changed\n")
    second = n4.source_digest(sources)
    assert second != first
    pom = sources / "pom.xml"
    pom.write_text(pom.read_text())  # rewritten, same bytes: same key
    assert n4.source_digest(sources) == second
    (sources / "src" / "main" / "resources").mkdir()
    (sources / "src" / "main" / "resources" / "extra.properties").write_text("a=1\n")
    assert n4.source_digest(sources) != second


def test_cache_key_changes_with_the_pom(sources: Path) -> None:
    before = n4.source_digest(sources)
    pom = sources / "pom.xml"
    pom.write_text(pom.read_text().replace("<version>1.0.0</version>", "<version>1.0.1</version>"))
    assert n4.source_digest(sources) != before


def test_build_dir_lives_in_the_cache_under_the_key(service: Neo4jService) -> None:
    key = n4.source_digest(service.source_dir)
    assert service.build_dir() == service.home / "cache" / "neo4j" / key
    assert service.maven_repo == service.home / "cache" / "maven-repo"


def test_launch_command_carries_the_marker_and_the_addresses(service: Neo4jService) -> None:
    spec = service.launch_spec()
    argv = list(spec.argv)
    assert Path(argv[0]).name == "java"
    assert f"-Dapexmem.service={n4.MARKER}" in argv
    assert service.marker == "apexmem-neo4j-launcher"
    assert service.marker in " ".join(argv)
    assert "-Xmx1024m" in argv and "-Dapexmem.pagecache.mb=512" in argv  # the defaults
    assert "-XX:+UseG1GC" in argv and "-Xms1024m" in argv  # the heap starts at its maximum
    jar = argv[argv.index("-jar") + 1]
    assert jar == str(service.build_dir() / "apexmem-neo4j-launcher.jar")
    assert argv[-3:] == [str(service.home / "data" / "neo4j"), "127.0.0.1", str(service.port)]
    assert spec.cwd == service.data_dir


def test_heap_gc_and_page_cache_come_from_the_environment() -> None:
    env = {"APEXMEM_NEO4J_HEAP_MB": "2048", "APEXMEM_NEO4J_PAGECACHE_MB": " 3072 "}
    assert n4.jvm_options({**env, "APEXMEM_NEO4J_GC": " Parallel "}) == [
        "-Xms2048m",
        "-Xmx2048m",
        "-XX:+UseParallelGC",
        "-Dapexmem.pagecache.mb=3072",
    ]
    assert n4.jvm_options({}) == [
        "-Xms1024m",
        "-Xmx1024m",
        "-XX:+UseG1GC",
        "-Dapexmem.pagecache.mb=512",
    ]


@pytest.mark.parametrize("bad", ["0", "-5", "2g", "1.5"])
def test_a_bad_memory_size_is_an_error_naming_the_variable(bad: str) -> None:
    with pytest.raises(ServiceError, match=f"APEXMEM_NEO4J_PAGECACHE_MB='{re.escape(bad)}'"):
        n4.jvm_options({"APEXMEM_NEO4J_PAGECACHE_MB": bad})


def test_an_unknown_gc_is_an_error_naming_the_choices() -> None:
    with pytest.raises(ServiceError, match="APEXMEM_NEO4J_GC='zgc'.*g1 or parallel"):
        n4.jvm_options({"APEXMEM_NEO4J_GC": "zgc"})


def test_missing_mvn_is_a_service_error_naming_it(
    service: Neo4jService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(bin_dir(tmp_path, None)))
    with pytest.raises(ServiceError) as caught:
        service.prepare()
    assert "`mvn` not found on PATH" in str(caught.value)
    assert caught.value.log_path == service.build_log_path
    assert "`mvn` not found" in service.build_log_path.read_text()
    assert "\n" not in caught.value.cause


def test_missing_java_is_a_service_error_naming_it(
    service: Neo4jService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(ServiceError, match="`java` not found on PATH"):
        service.prepare()


def test_a_failed_maven_build_names_the_cause_and_the_log(
    service: Neo4jService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = (
        'echo "[INFO] working"\n'
        "printf '\\033[0m[ERROR] COMPILATION ERROR : \\n'\n"
        'echo "[ERROR] Could not resolve org.neo4j:neo4j"\n'
        "exit 1\n"
    )
    monkeypatch.setenv("PATH", str(bin_dir(tmp_path, script)))
    with pytest.raises(ServiceError) as caught:
        service.prepare()
    assert caught.value.cause.endswith("failed: Could not resolve org.neo4j:neo4j")
    assert caught.value.log_path == service.build_log_path
    assert not service.build_dir().exists()


# A fake Maven that honours -Dapexmem.build.dir the way the real pom does.
FAKE_MAVEN_OK = """\
for arg in "$@"; do
  case "$arg" in -Dapexmem.build.dir=*) out="${arg#-Dapexmem.build.dir=}" ;; esac
done
/bin/mkdir -p "$out/lib" && echo jar > "$out/apexmem-neo4j-launcher.jar"
echo built >> "${out%/*}/builds.txt"
"""


def test_a_build_lands_under_the_key_and_replaces_stale_builds(
    service: Neo4jService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(bin_dir(tmp_path, FAKE_MAVEN_OK)))
    stale = service.cache_dir / "0123456789abcdef"
    stale.mkdir(parents=True)
    service.prepare()
    assert (service.build_dir() / "apexmem-neo4j-launcher.jar").is_file()
    assert not stale.exists()
    assert service.data_dir.is_dir()
    service.prepare()  # warm: no second build
    assert (service.cache_dir / "builds.txt").read_text().count("built") == 1
    log = service.build_log_path.read_text()
    assert "-Dmaven.repo.local=" + str(service.maven_repo) in log
    assert " -B " in log


def test_a_warm_cache_needs_no_maven(
    service: Neo4jService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = service.build_dir()
    target.mkdir(parents=True)
    (target / "apexmem-neo4j-launcher.jar").write_text("jar")
    monkeypatch.setenv("PATH", str(bin_dir(tmp_path, None)))
    service.prepare()
    assert not service.build_log_path.exists()


def test_no_server_means_unhealthy_and_stopped(service: Neo4jService) -> None:
    assert service.is_healthy() is False
    assert service.status().state is ServiceState.STOPPED
    assert service.down() is False
