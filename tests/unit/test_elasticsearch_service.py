"""ElasticsearchService logic that needs no server: version pin, layout, marker, config, unzip."""

from __future__ import annotations

import re
import socket
import stat
import zipfile
from pathlib import Path

import pytest

from apexmem_neo.errors import ServiceError
from apexmem_neo.services import elasticsearch_server as es
from apexmem_neo.services.elasticsearch_server import ElasticsearchService


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def config_lines(text: str) -> dict[str, str]:
    pairs = (ln.split(": ", 1) for ln in text.splitlines() if ln and not ln.startswith("#"))
    return {key: value for key, value in pairs}


def test_version_is_pinned_to_an_8_19_patch_release() -> None:
    assert re.fullmatch(r"8\.19\.\d+", es.ES_VERSION)
    expected = f"org.elasticsearch.distribution.integ-test-zip:elasticsearch:{es.ES_VERSION}:zip"
    assert expected == es.ES_ARTIFACT


def test_config_with_security_module_turns_security_off(tmp_path: Path) -> None:
    modules = frozenset({"transport-netty4", "x-pack-core", "x-pack-security"})
    text = es.render_config("127.0.0.1", 9201, tmp_path / "d", tmp_path / "l", modules)
    lines = config_lines(text)
    assert lines["xpack.security.enabled"] == "false"
    assert lines["discovery.type"] == '"single-node"'
    assert lines["network.host"] == '"127.0.0.1"'
    assert lines["http.port"] == "9201"
    assert lines["path.data"] == f'"{tmp_path / "d"}"'
    assert lines["path.logs"] == f'"{tmp_path / "l"}"'
    assert "xpack.ml.enabled" not in lines
    assert "ingest.geoip.downloader.enabled" not in lines


def test_config_without_x_pack_has_no_xpack_setting(tmp_path: Path) -> None:
    text = es.render_config("::1", 9200, tmp_path, tmp_path, frozenset({"transport-netty4"}))
    assert "xpack" not in text
    assert config_lines(text)["network.host"] == '"::1"'


def test_config_disables_ml_and_geoip_only_when_their_modules_exist(tmp_path: Path) -> None:
    modules = frozenset({"x-pack-ml", "ingest-geoip"})
    lines = config_lines(es.render_config("127.0.0.1", 9200, tmp_path, tmp_path, modules))
    assert lines["xpack.ml.enabled"] == "false"
    assert lines["ingest.geoip.downloader.enabled"] == "false"
    assert "xpack.security.enabled" not in lines


def test_installed_modules_lists_module_directories(tmp_path: Path) -> None:
    for name in ("x-pack-core", "x-pack-security"):
        (tmp_path / "modules" / name).mkdir(parents=True)
    (tmp_path / "modules" / "README").write_text("not a module")
    assert es.installed_modules(tmp_path) == {"x-pack-core", "x-pack-security"}
    assert es.installed_modules(tmp_path / "absent") == frozenset()


def test_root_layout_lives_outside_the_home_and_links_back(tmp_path: Path) -> None:
    layout = es.plan_layout(tmp_path, as_root=True)
    base = es.SYSTEM_ROOT / es.home_key(tmp_path)
    assert layout.user == es.ES_USER
    assert layout.install == base / "cache" / f"elasticsearch-{es.ES_VERSION}"
    assert (layout.data, layout.logs, layout.tmp) == (base / "data", base / "logs", base / "tmp")
    assert dict(layout.links) == {
        tmp_path / "cache" / "es": base / "cache",
        tmp_path / "data" / "es": base / "data",
        tmp_path / "logs" / "es-server": base / "logs",
    }


def test_non_root_layout_stays_in_the_home(tmp_path: Path) -> None:
    layout = es.plan_layout(tmp_path, as_root=False)
    assert layout.user is None
    assert layout.links == ()
    assert layout.install == tmp_path / "cache" / "es" / f"elasticsearch-{es.ES_VERSION}"
    assert layout.data == tmp_path / "data" / "es"


def test_home_key_differs_per_home(tmp_path: Path) -> None:
    assert es.home_key(tmp_path / "a") != es.home_key(tmp_path / "b")
    assert es.home_key(tmp_path / "a") == es.home_key(tmp_path / "a")


def test_marker_is_the_install_path_which_the_launch_command_carries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ES_JAVA_HOME", "/opt/some-jdk")
    service = ElasticsearchService(tmp_path, "127.0.0.1", 9200)
    spec = service.launch_spec()
    assert service.marker == str(service.layout.install)
    assert service.marker in spec.argv[0]  # bash runs bin/elasticsearch before it execs java
    assert spec.env["ES_JAVA_HOME"] == "/opt/some-jdk"
    assert spec.env["ES_JAVA_OPTS"].split() == ["-Xms512m", "-Xmx512m", es.JVM_MARK]
    assert spec.env["ES_TMPDIR"] == spec.env["HOME"] == str(service.layout.tmp)
    assert spec.user == service.layout.user


def make_zip(path: Path, top: str) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        script = zipfile.ZipInfo(f"{top}/bin/elasticsearch")
        script.external_attr = (stat.S_IFREG | 0o755) << 16
        archive.writestr(script, "#!/bin/bash\n")
        config = zipfile.ZipInfo(f"{top}/config/jvm.options")
        config.external_attr = (stat.S_IFREG | 0o644) << 16
        archive.writestr(config, "-XX:+UseG1GC\n")


def test_unpack_keeps_modes_and_stamps_the_install(tmp_path: Path) -> None:
    install = tmp_path / "cache" / f"elasticsearch-{es.ES_VERSION}"
    install.parent.mkdir(parents=True)
    zip_path = tmp_path / "es.zip"
    make_zip(zip_path, install.name)
    assert not es.install_complete(install)
    es.unpack(zip_path, install, tmp_path / "prepare.log")
    assert es.install_complete(install)
    assert (install / "bin" / "elasticsearch").stat().st_mode & 0o777 == 0o755
    assert (install / "config" / "jvm.options").stat().st_mode & 0o777 == 0o644
    assert [p.name for p in install.parent.iterdir()] == [install.name]  # no staging left


def test_unpack_of_a_broken_zip_is_a_service_error(tmp_path: Path) -> None:
    bad = tmp_path / "broken.zip"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ServiceError, match="unpacking broken.zip failed") as caught:
        es.unpack(bad, tmp_path / "install", tmp_path / "prepare.log")
    assert caught.value.log_path == tmp_path / "prepare.log"


def test_failed_command_is_a_one_line_service_error_with_the_log(tmp_path: Path) -> None:
    log = tmp_path / "prepare.log"
    with pytest.raises(ServiceError, match=r"fetching x failed \(exit 3\): error: nope") as caught:
        es.run_logged(["sh", "-c", "echo 'error: nope'; exit 3"], log, "fetching x")
    assert caught.value.log_path == log
    assert "\n" not in str(caught.value)


def test_ensure_link_creates_and_refuses_real_directories(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.mkdir()
    link = tmp_path / "home" / "cache" / "es"
    es.ensure_link(link, target)
    es.ensure_link(link, target)  # idempotent
    assert link.resolve() == target
    real = tmp_path / "home" / "data" / "es"
    real.mkdir(parents=True)
    with pytest.raises(ServiceError, match="is not a symlink"):
        es.ensure_link(real, target)


def test_health_and_version_without_a_server_never_raise(tmp_path: Path) -> None:
    service = ElasticsearchService(tmp_path, "127.0.0.1", free_port())
    assert service.is_healthy() is False
    assert service.version() == "unknown"
