"""Sentence-transformers models run with ONNX Runtime, so a process that embeds never imports
torch: a command that searches starts in a fraction of the time.

A model directory of the usual shape (a Transformer, mean or CLS pooling, optionally Normalize)
is exported once to ONNX with torch (``export_onnx``, the ``[local]`` extra), checked against
torch's own vectors and kept under the models directory; later processes load only the ONNX file
and the fast tokenizer. The vectors are the torch model's (float32, the same weights), so indexes
and the embedding cache built by either runtime stay valid.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from apexmem_neo.errors import EmbedderError

ONNX_EXTRA_HINT = (
    "the ONNX runtime of the local embedder needs the [local] extra: "
    "pip install 'apexmem-neo[local]' (or set APEXMEM_EMBED_RUNTIME=torch)"
)
_TRANSFORMER = "sentence_transformers.models.Transformer"
_POOLING = "sentence_transformers.models.Pooling"
_NORMALIZE = "sentence_transformers.models.Normalize"
_PROBE = ("An ONNX export is checked against torch.", "Alice moved to Boston last spring.")
_MIN_PROBE_COSINE = 0.9999


@dataclass(frozen=True)
class ModelLayout:
    """What the ONNX runtime needs to know of a sentence-transformers directory."""

    directory: Path
    pooling: str  # "mean" or "cls"
    max_seq_length: int
    dimensions: int


def read_layout(directory: Path) -> ModelLayout | None:
    """The layout of a sentence-transformers directory, or None when its modules are not the
    Transformer / Pooling (mean or CLS) / Normalize pipeline this runtime reproduces."""
    try:
        modules = json.loads((directory / "modules.json").read_text())
        pooling_dir = next(m["path"] for m in modules if m["type"] == _POOLING)
        pooling = json.loads((directory / pooling_dir / "config.json").read_text())
        bert = json.loads((directory / "sentence_bert_config.json").read_text())
    except (OSError, ValueError, KeyError, StopIteration):
        return None
    kinds = [m["type"] for m in modules]
    if kinds not in ([_TRANSFORMER, _POOLING], [_TRANSFORMER, _POOLING, _NORMALIZE]):
        return None
    modes = {k for k, on in pooling.items() if k.startswith("pooling_mode_") and on}
    mode = {"pooling_mode_mean_tokens": "mean", "pooling_mode_cls_token": "cls"}
    if len(modes) != 1 or next(iter(modes)) not in mode:
        return None
    if not (directory / "tokenizer.json").is_file():
        return None
    return ModelLayout(
        directory=directory,
        pooling=mode[next(iter(modes))],
        max_seq_length=int(bert["max_seq_length"]),
        dimensions=int(pooling["word_embedding_dimension"]),
    )


def onnx_path(name: str, layout: ModelLayout, models_dir: Path) -> Path:
    """Where the export of model ``name`` (at ``layout.directory``) lives: under
    ``models_dir``, so a read-only package directory is never written to, in a folder named
    by the model and its directory."""
    where = str(layout.directory.resolve())
    tag = hashlib.sha256(where.encode()).hexdigest()[:12]
    label = "".join(c if c.isalnum() or c in "-_." else "_" for c in Path(name).name)
    return models_dir / "onnx" / f"{label}-{tag}" / "model.onnx"


class OnnxEmbedder:
    """A sentence-transformers model run with ONNX Runtime; the ``Embedder`` protocol.

    ``name`` is the model's name, as for the torch runtime: the vectors are the same.
    ``onnx_file`` (see ``onnx_path``) is exported on first use when missing (needs torch).
    Vectors are L2-normalised float32, computed in batches of ``batch_size`` texts of
    similar length.
    """

    def __init__(
        self, name: str, layout: ModelLayout, onnx_file: Path, batch_size: int = 64
    ) -> None:
        self._name = name
        self._layout = layout
        self._path = onnx_file
        self._batch_size = batch_size
        self._session: Any = None
        self._tokenizer: Any = None  # truncates to the model's window
        self._whole: Any = None  # does not: counts and truncates text itself
        self._inputs: tuple[str, ...] = ()
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._name

    @property
    def dimensions(self) -> int:
        return self._layout.dimensions

    @property
    def max_tokens(self) -> int:
        return self._layout.max_seq_length

    def _load(self) -> tuple[Any, Any]:
        with self._lock:
            if self._session is None:
                try:
                    import onnxruntime
                    from tokenizers import Tokenizer
                except ImportError as exc:
                    raise EmbedderError(ONNX_EXTRA_HINT) from exc
                if not self._path.is_file():
                    export_onnx(self._layout, self._path)
                whole = Tokenizer.from_file(str(self._layout.directory / "tokenizer.json"))
                pad_id, pad_token = _padding(whole)
                whole.no_padding()  # the file's fixed padding is not the model's window
                whole.no_truncation()
                window = Tokenizer.from_str(whole.to_str())
                window.enable_truncation(self._layout.max_seq_length)
                window.enable_padding(pad_id=pad_id, pad_token=pad_token)  # to the longest
                self._whole, self._tokenizer = whole, window
                options = onnxruntime.SessionOptions()
                options.log_severity_level = 3  # errors only: a command prints its own output
                self._session = onnxruntime.InferenceSession(
                    str(self._path), options, providers=["CPUExecutionProvider"]
                )
                self._inputs = tuple(i.name for i in self._session.get_inputs())
            return self._session, self._tokenizer

    def count_tokens(self, text: str) -> int:
        self._load()
        return len(self._whole.encode(text).ids)

    def truncate(self, text: str) -> str:
        self._load()
        ids = self._whole.encode(text, add_special_tokens=False).ids[: self.max_tokens - 2]
        return str(self._whole.decode(ids))

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.empty((len(texts), self.dimensions), dtype=np.float32)
        for start in range(0, len(order), self._batch_size):
            chosen = order[start : start + self._batch_size]
            out[chosen] = self._embed_batch([texts[i] for i in chosen])
        return out.tolist()

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        session, tokenizer = self._load()
        encodings = tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = session.run(None, feeds)[0]
        return _pool(hidden, mask, self._layout.pooling)


def _padding(tokenizer: Any) -> tuple[int, str]:
    """The model's padding token and its id, as its tokenizer file sets them (else a usual
    name): some models (MPNet) derive positions from it, so it must be the model's own."""
    if tokenizer.padding:
        return int(tokenizer.padding["pad_id"]), str(tokenizer.padding["pad_token"])
    for token in ("<pad>", "[PAD]"):
        found = tokenizer.token_to_id(token)
        if found is not None:
            return int(found), token
    return 0, "[PAD]"


def _pool(hidden: np.ndarray, mask: np.ndarray, pooling: str) -> np.ndarray:
    """Sentence vectors from token states (mean over real tokens, or the first token),
    L2-normalised."""
    if pooling == "cls":
        vectors = hidden[:, 0]
    else:
        weights = mask[..., None].astype(np.float32)
        vectors = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
    return unit_rows(vectors).astype(np.float32)


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    """Each row scaled to length one (a zero row stays zero): a dot product is then a cosine."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)


def export_onnx(layout: ModelLayout, target: Path) -> None:
    """Export the model's transformer to ONNX at ``target`` with torch, once.

    The export is checked before it is put in place: its vectors of two probe sentences must
    match sentence-transformers' own. It is written to a temporary file and renamed, so an
    interrupted export leaves nothing that looks complete.
    """
    try:
        import torch
        from transformers import AutoModel, AutoTokenizer
    except ImportError as exc:
        raise EmbedderError(
            f"exporting {layout.directory.name!r} to ONNX needs torch and transformers, "
            "the [local] extra: pip install 'apexmem-neo[local]'"
        ) from exc
    target.parent.mkdir(parents=True, exist_ok=True)
    model = AutoModel.from_pretrained(str(layout.directory)).eval()
    tokenizer = AutoTokenizer.from_pretrained(str(layout.directory))
    sample = tokenizer(list(_PROBE), padding=True, return_tensors="pt")
    names = [n for n in ("input_ids", "attention_mask", "token_type_ids") if n in sample]
    dynamic = {n: {0: "batch", 1: "tokens"} for n in [*names, "last_hidden_state"]}
    handle, tmp = tempfile.mkstemp(dir=target.parent, prefix=".model-", suffix=".onnx")
    os.close(handle)
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                _encoder(model, names),
                tuple(sample[n] for n in names),
                tmp,
                dynamo=False,
                input_names=names,
                output_names=["last_hidden_state"],
                dynamic_axes=dynamic,
                opset_version=17,
            )
            expected = _torch_vectors(model, sample, layout.pooling)
        _check_export(Path(tmp), layout, expected)
        os.replace(tmp, target)
    except Exception as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, EmbedderError):
            raise
        raise EmbedderError(f"cannot export {layout.directory.name!r} to ONNX: {exc}") from exc


def _encoder(model: Any, names: list[str]) -> Any:
    """The model as a module of positional tensors named ``names``, returning its token
    states: the exporter traces positional inputs only."""
    import torch

    class Encoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *tensors: Any) -> Any:
            return self.model(**dict(zip(names, tensors, strict=True))).last_hidden_state

    return Encoder().eval()


def _torch_vectors(model: Any, sample: Any, pooling: str) -> np.ndarray:
    hidden = model(**sample).last_hidden_state.numpy()
    return _pool(hidden, sample["attention_mask"].numpy(), pooling)


def _check_export(path: Path, layout: ModelLayout, expected: np.ndarray) -> None:
    """Refuse an export whose probe vectors differ from torch's."""
    probe = OnnxEmbedder(layout.directory.name, layout, path)
    got = np.asarray(probe.embed(list(_PROBE)), dtype=np.float32)
    cosine = float((got * expected).sum(axis=1).min())
    if cosine < _MIN_PROBE_COSINE:
        raise EmbedderError(
            f"the ONNX export of {layout.directory.name!r} disagrees with torch "
            f"(cosine {cosine:.5f}); set APEXMEM_EMBED_RUNTIME=torch"
        )
