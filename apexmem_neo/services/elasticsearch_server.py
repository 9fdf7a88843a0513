"""Elasticsearch 8.19 as a single local node, from Maven Central's integ-test zip, without Docker.

The artifact is ``org.elasticsearch.distribution.integ-test-zip:elasticsearch:<ES_VERSION>:zip``,
fetched with ``mvn dependency:copy`` into the shared Maven cache ``APEXMEM_HOME/cache/maven-repo``.
It is a minimal distribution: modules ``apm``, ``transport-netty4``, ``x-pack-core`` and
``x-pack-security`` only. Core features (``dense_vector`` + kNN, BM25 ``match`` with the
standard analyzer, bool queries, terms aggregations) work; anything from a missing module does
not: ``GET /`` (module rest-root; the client's ``info()``/``ping()`` fail), Painless scripts,
the language analyzers of analysis-common, RRF retrievers, ingest pipelines, ILM.

Elasticsearch refuses to run as root, so a root caller runs it as the system user ``ES_USER``
(created with ``useradd --system`` when missing). That user cannot reach a home such as
``/root/.apexmem`` (``/root`` is mode 700), and loosening the permissions of the caller's
directories is not ours to do. So the layout depends on who calls:

- root: everything the server touches lives in ``/var/lib/apexmem-es/<key>/`` where ``key``
  hashes the absolute APEXMEM_HOME (one tree per home; a ``HOME`` file there names it):
  ``cache/elasticsearch-<version>/`` (the install, with ``config/elasticsearch.yml``),
  ``data/``, ``logs/`` (the server's own logs) and ``tmp/`` (ES_TMPDIR and HOME). Symlinks keep
  it reachable from the home: ``cache/es``, ``data/es`` and ``logs/es-server`` point there.
  The install, data, logs and tmp are owned by ``ES_USER``; the directories above are root's,
  mode 755. Deleting APEXMEM_HOME leaves this tree behind; remove it by hand.
- any other user: the server runs as that user, directly under the home:
  ``cache/es/elasticsearch-<version>/``, ``cache/es/tmp/``, ``data/es/``, ``logs/es-server/``.

The console output (and the launch line) goes to ``APEXMEM_HOME/logs/es.log`` either way; the
PID file is ``APEXMEM_HOME/run/es.pid``. The marker is the install path, which is in the
command line of the PID we spawn both while it is ``bin/elasticsearch`` (bash) and after that
script execs the CLI JVM (``-Des.path.home=<install>``); the server JVM is its child in the
same process group and carries ``JVM_MARK`` as well.
"""

from __future__ import annotations

import hashlib
import json
import os
import pwd
import shutil
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

from apexmem_neo.errors import ServiceError
from apexmem_neo.services import process
from apexmem_neo.services.base import LocalService
from apexmem_neo.services.process import LaunchSpec

SERVICE_NAME = "es"
# Newest 8.19.x that Maven Central serves (8.19.10 and later answer "could not find artifact").
ES_VERSION = "8.19.9"
ES_ARTIFACT = f"org.elasticsearch.distribution.integ-test-zip:elasticsearch:{ES_VERSION}:zip"
DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1"
ES_USER = "apexmem-es"
SYSTEM_ROOT = Path("/var/lib/apexmem-es")
HEAP = "512m"
JVM_MARK = "-Dapexmem.service=apexmem-es"
UNPACKED_STAMP = ".apexmem-unpacked"
CLUSTER_NAME = "apexmem"
NODE_NAME = "apexmem-es"

# module directory -> settings that exist only when that module is installed
MODULE_SETTINGS: dict[str, dict[str, str | bool]] = {
    "x-pack-security": {"xpack.security.enabled": False},
    "x-pack-ml": {"xpack.ml.enabled": False},
    "ingest-geoip": {"ingest.geoip.downloader.enabled": False},
}


@dataclass(frozen=True)
class EsLayout:
    """Where one APEXMEM_HOME's Elasticsearch files live (see the module docstring)."""

    cache: Path
    data: Path
    logs: Path
    tmp: Path
    user: str | None  # the user the server runs as; None: the caller itself
    links: tuple[tuple[Path, Path], ...] = ()  # (symlink under the home, its target)

    @property
    def install(self) -> Path:
        return self.cache / f"elasticsearch-{ES_VERSION}"

    @property
    def config_file(self) -> Path:
        return self.install / "config" / "elasticsearch.yml"


def home_key(home: Path) -> str:
    """A short stable name for one APEXMEM_HOME (its absolute path, hashed)."""
    return hashlib.sha256(str(home.absolute()).encode()).hexdigest()[:12]


def plan_layout(home: Path, as_root: bool) -> EsLayout:
    """The layout for ``home``; pure, no I/O."""
    home = home.absolute()
    if not as_root:
        cache = home / "cache" / "es"
        return EsLayout(
            cache, home / "data" / "es", home / "logs" / "es-server", cache / "tmp", None
        )
    base = SYSTEM_ROOT / home_key(home)
    links = (
        (home / "cache" / "es", base / "cache"),
        (home / "data" / "es", base / "data"),
        (home / "logs" / "es-server", base / "logs"),
    )
    return EsLayout(base / "cache", base / "data", base / "logs", base / "tmp", ES_USER, links)


def installed_modules(install: Path) -> frozenset[str]:
    """The names of the module directories the distribution ships."""
    modules = install / "modules"
    if not modules.is_dir():
        return frozenset()
    return frozenset(p.name for p in modules.iterdir() if p.is_dir())


def _yaml_value(value: str | int | bool) -> str:
    return json.dumps(value)  # a JSON scalar is a valid YAML scalar


def render_config(host: str, port: int, data: Path, logs: Path, modules: frozenset[str]) -> str:
    """elasticsearch.yml for one single-node server; module-only settings only when present.

    An unknown setting is fatal at start, so xpack.* and ingest.geoip.* appear only when the
    module that registers them is installed.
    """
    settings: dict[str, str | int | bool] = {
        "cluster.name": CLUSTER_NAME,
        "node.name": NODE_NAME,
        "discovery.type": "single-node",
        "network.host": host,
        "http.port": port,
        "path.data": str(data),
        "path.logs": str(logs),
        # a nearly full dev disk must not turn indices read-only or leave shards unassigned
        "cluster.routing.allocation.disk.threshold_enabled": False,
    }
    for module, extra in MODULE_SETTINGS.items():
        if module in modules:
            settings.update(extra)
    lines = [f"{key}: {_yaml_value(value)}" for key, value in settings.items()]
    return (
        "# written by apexmem-neo on every start; edits are overwritten\n" + "\n".join(lines) + "\n"
    )


def java_home() -> Path:
    """ES_JAVA_HOME if set, else the JDK that ``java`` on PATH belongs to (17+ is accepted)."""
    explicit = os.environ.get("ES_JAVA_HOME")
    if explicit:
        return Path(explicit)
    java = shutil.which("java")
    if java is None:
        raise ServiceError(SERVICE_NAME, "no `java` on PATH; install a JDK 17+ or set ES_JAVA_HOME")
    return Path(os.path.realpath(java)).parent.parent


def run_logged(argv: Sequence[str], log: Path, what: str) -> None:
    """``process.run_logged`` for this service's preparation steps."""
    process.run_logged(SERVICE_NAME, argv, log, what)


def fetch_zip(dest: Path, maven_repo: Path, log: Path) -> Path:
    """Copy the integ-test zip from Maven Central (through the shared cache) into dest."""
    dest.mkdir(parents=True, exist_ok=True)
    argv = [
        "mvn", "-B", "-q", "-Dstyle.color=never",
        f"{DEPENDENCY_PLUGIN}:copy",
        f"-Dartifact={ES_ARTIFACT}",
        f"-DoutputDirectory={dest}",
        f"-Dmaven.repo.local={maven_repo}",
    ]  # fmt: skip
    run_logged(argv, log, f"fetching {ES_ARTIFACT}")
    zip_path = dest / f"elasticsearch-{ES_VERSION}.zip"
    if not zip_path.is_file():
        raise ServiceError(SERVICE_NAME, f"mvn succeeded but {zip_path} is missing", log)
    return zip_path


def install_complete(install: Path) -> bool:
    return (install / UNPACKED_STAMP).is_file() and (install / "bin" / "elasticsearch").is_file()


def unpack(zip_path: Path, install: Path, log: Path) -> None:
    """Unpack the zip's single top directory as ``install``, keeping file modes; then stamp it."""
    staging = install.parent / f".unpack-{install.name}"
    shutil.rmtree(staging, ignore_errors=True)
    shutil.rmtree(install, ignore_errors=True)
    try:
        with zipfile.ZipFile(zip_path) as archive:
            for info in archive.infolist():
                target = Path(archive.extract(info, staging))
                mode = (info.external_attr >> 16) & 0o777
                if mode:
                    target.chmod(mode)
        (staging / install.name).rename(install)
    except (zipfile.BadZipFile, OSError) as exc:
        raise ServiceError(SERVICE_NAME, f"unpacking {zip_path.name} failed: {exc}", log) from exc
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    (install / UNPACKED_STAMP).write_text(f"{ES_ARTIFACT}\n")


def ensure_user(name: str, log: Path) -> pwd.struct_passwd:
    """The system user ``name``, created (no home, no login shell) when missing."""
    try:
        return pwd.getpwnam(name)
    except KeyError:
        pass
    argv = ["useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent",
            "--shell", "/usr/sbin/nologin", "--user-group", name]  # fmt: skip
    try:
        run_logged(argv, log, f"creating system user {name}")
    except ServiceError as exc:
        try:  # created concurrently by someone else: fine
            return pwd.getpwnam(name)
        except KeyError:
            raise exc from None
    return pwd.getpwnam(name)


def chown_tree(path: Path, uid: int, gid: int) -> None:
    """Give a whole tree to uid:gid unless its top already belongs to them."""
    top = path.stat()
    if top.st_uid == uid and top.st_gid == gid:
        return
    os.chown(path, uid, gid)
    for root, dirs, files in os.walk(path):
        for entry in (*dirs, *files):
            os.chown(os.path.join(root, entry), uid, gid, follow_symlinks=False)


def ensure_link(link: Path, target: Path) -> None:
    """``link`` -> ``target``; refuses to replace a real file or directory."""
    if link.is_symlink():
        if Path(os.readlink(link)) == target:
            return
        link.unlink()
    elif link.exists():
        raise ServiceError(
            SERVICE_NAME, f"{link} exists and is not a symlink to {target}; move it away"
        )
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target, target_is_directory=True)


def _mkdir_traversable(path: Path) -> None:
    """Create path and its missing parents as mode 755 regardless of the umask."""
    missing = [p for p in (path, *path.parents) if not p.exists()]
    for directory in reversed(missing):
        directory.mkdir(exist_ok=True)
        directory.chmod(0o755)


class ElasticsearchService(LocalService):
    """Elasticsearch ``ES_VERSION`` on host:port: single node, security off, heap ``HEAP``."""

    name = SERVICE_NAME
    start_timeout = 180.0

    def __init__(self, home: Path, host: str, port: int) -> None:
        super().__init__(home, host, port)
        self.layout = plan_layout(home, as_root=os.geteuid() == 0)
        self.marker = str(self.layout.install)  # only our install has this path

    @property
    def prepare_log(self) -> Path:
        return self.home / "logs" / f"{self.name}-prepare.log"

    @property
    def base_url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def prepare(self) -> None:
        layout = self.layout
        account = ensure_user(layout.user, self.prepare_log) if layout.user else None
        java_home()  # fail before the download when there is no JDK
        if layout.user is not None:
            _mkdir_traversable(layout.cache)
            (layout.cache.parent / "HOME").write_text(f"{self.home.absolute()}\n")
        if not install_complete(layout.install):
            self._install()
        for directory in (layout.data, layout.logs, layout.tmp):
            directory.mkdir(parents=True, exist_ok=True)
        modules = installed_modules(layout.install)
        config = render_config(self.host, self.port, layout.data, layout.logs, modules)
        layout.config_file.write_text(config)
        if account is not None:
            for tree in (layout.install, layout.data, layout.logs, layout.tmp):
                chown_tree(tree, account.pw_uid, account.pw_gid)
            os.chown(layout.config_file, account.pw_uid, account.pw_gid)
        for link, target in layout.links:
            ensure_link(link, target)

    def _install(self) -> None:
        download = self.layout.cache / ".download"
        zip_path = fetch_zip(download, self.home / "cache" / "maven-repo", self.prepare_log)
        try:
            unpack(zip_path, self.layout.install, self.prepare_log)
        finally:
            shutil.rmtree(download, ignore_errors=True)

    def launch_spec(self) -> LaunchSpec:
        layout = self.layout
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "HOME": str(layout.tmp),
            "ES_JAVA_HOME": str(java_home()),
            "ES_JAVA_OPTS": f"-Xms{HEAP} -Xmx{HEAP} {JVM_MARK}",
            "ES_TMPDIR": str(layout.tmp),
            "ES_PATH_CONF": str(layout.install / "config"),
        }
        argv = [str(layout.install / "bin" / "elasticsearch")]
        return LaunchSpec(argv=argv, env=env, cwd=layout.install, user=layout.user)

    def is_healthy(self) -> bool:
        try:
            response = httpx.get(f"{self.base_url}/_cluster/health", timeout=2.0)
            if response.status_code != 200:
                return False
            return response.json().get("status") in ("green", "yellow")
        except (httpx.HTTPError, OSError, ValueError, AttributeError):
            return False

    def version(self) -> str:
        """The node's version from ``/_nodes/_local`` (the integ-test zip does not serve ``/``)."""
        try:
            response = httpx.get(
                f"{self.base_url}/_nodes/_local",
                params={"filter_path": "nodes.*.version"},
                timeout=5.0,
            )
            nodes = response.json()["nodes"]
            return str(next(iter(nodes.values()))["version"])
        except (httpx.HTTPError, OSError, ValueError, KeyError, TypeError, StopIteration):
            return "unknown"
