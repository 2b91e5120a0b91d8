"""Sentence embeddings: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime, offline, no torch.

A text becomes a 384-dimension unit vector: WordPiece tokens (truncated at ``MAX_TOKENS``),
the model's last hidden states averaged over the real tokens (mean pooling over the
attention mask, as sentence-transformers does for this model), then L2-normalised, so the
dot product of two vectors is their cosine.

Nothing heavy is imported until the first text is embedded: numpy, onnxruntime and
tokenizers load then, once, after the model and tokenizer files pass their sha256 checks
(``reading.files``). Texts are embedded in batches sorted by length, each padded only to
its own longest text. One session serves the process, with ``threads`` intra-op threads
and one inference at a time, so embedding never takes more of the machine than that. Runs
embed the same sentences again and again (a claim against many pages, a page against many
claims), so vectors are remembered per text in a bounded LRU cache.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.errors import ConfigError
from assay.reading.files import model_file, tokenizer_file, verified

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

DIMENSIONS = 384
MAX_TOKENS = 256
"""Word pieces kept per text, [CLS] and [SEP] included: sentence-transformers' own limit
for this model (it was fine-tuned at 128). Few sentences pass 128 — 0.5% of
Climate-FEVER's evidence sentences, 0.05% of the HotpotQA corpus's — so the higher limit
costs nothing measurable, and one that does pass 128 keeps its tail (benchmarks/README.md,
"Embedding model")."""
BATCH_TEXTS = 8
BATCH_TOKENS = 4096
"""A batch holds at most this many padded tokens, so a batch of long texts stays small
(attention memory grows with the square of the length)."""
BATCH_PADDING = 1.25
"""Padding may add at most a quarter to a batch's real tokens. On one thread batching
gains little (one at a time ran at 70–85% of the batched speed) while a padded token
costs what a real one does: the judge's 24-sentence shortlist in batches of 32, padded
to its longest sentence, ran at 40 sentences/s against 105 with this rule."""
THREADS = 1
THREADS_VARIABLE = "ASSAY_EMBEDDING_THREADS"
CACHE_TEXTS = 8192
"""Vectors remembered (384 float32 each: about 12.6 MB when full)."""


@dataclass(frozen=True)
class _Loaded:
    session: Any  # onnxruntime.InferenceSession
    tokenizer: Any  # tokenizers.Tokenizer
    inputs: frozenset[str]


class Embedder:
    """Turns texts into unit vectors with one lazily loaded ONNX session.

    ``model`` overrides where the model file is read (default: ``ASSAY_EMBEDDING_MODEL``,
    else the installed package); its sha256 is checked all the same.
    """

    def __init__(
        self,
        model: Path | str | None = None,
        *,
        threads: int = THREADS,
        max_tokens: int = MAX_TOKENS,
        cache_texts: int = CACHE_TEXTS,
    ) -> None:
        if threads < 1:
            raise ConfigError(f"embedding threads must be at least 1, not {threads}")
        self._model = model
        self.threads = threads
        self.max_tokens = max_tokens
        self._cache = _VectorCache(cache_texts)
        self._loaded: _Loaded | None = None
        self._loading = threading.Lock()
        self._running = threading.Lock()

    @property
    def model_sha256(self) -> str:
        """The sha256 the model file must have: what identifies the vectors it makes (an
        index records it beside the vectors it stores)."""
        return model_file(self._model).sha256

    def check(self) -> None:
        """Raise InstallError now if the model or tokenizer file is missing or altered
        (cheap after the first time); the model itself still loads only when needed."""
        if self._loaded is None:
            verified(model_file(self._model))
            verified(tokenizer_file())

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """One unit vector per text, shape ``(len(texts), 384)``, in the order given."""
        import numpy as np

        vectors: list[NDArray[np.float32] | None] = [self._cache.get(t) for t in texts]
        missing = list(dict.fromkeys(t for t, v in zip(texts, vectors, strict=True) if v is None))
        if missing:
            fresh = dict(zip(missing, self._encode(missing), strict=True))
            for text, vector in fresh.items():
                self._cache.put(text, vector)
            vectors = [fresh[t] if v is None else v for t, v in zip(texts, vectors, strict=True)]
        if not vectors:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        return np.stack([v for v in vectors if v is not None])

    def similarity(self, text: str, others: Sequence[str]) -> list[float]:
        """The cosine (-1 … 1) of ``text`` with each of ``others``."""
        if not others:
            return []
        vectors = self.embed([text, *others])
        return [float(x) for x in vectors[1:] @ vectors[0]]

    def _encode(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Vectors for ``texts`` (no cache): batches of similar length, padded per batch."""
        import numpy as np

        loaded = self._load()
        out = np.empty((len(texts), DIMENSIONS), dtype=np.float32)
        with self._running:  # one text at a time through the tokenizer and the session
            ids = [loaded.tokenizer.encode(t).ids for t in texts]  # encode_batch spawns threads
            for batch in _batches([len(p) for p in ids]):
                out[batch] = _run(loaded, [ids[i] for i in batch])
        return out

    def _load(self) -> _Loaded:
        with self._loading:
            if self._loaded is None:
                self._loaded = _open(
                    verified(model_file(self._model)),
                    verified(tokenizer_file()),
                    self.threads,
                    self.max_tokens,
                )
            return self._loaded


def _open(model: Path, tokenizer_path: Path, threads: int, max_tokens: int) -> _Loaded:
    import onnxruntime
    from tokenizers import Tokenizer

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3  # errors only: onnxruntime's warnings are not assay's output
    # The arena keeps every batch shape's buffers: RSS grew from 220 MB to 700 MB over 500
    # sentences of mixed lengths with it, and stayed at 220 MB without it, at the same speed.
    options.enable_cpu_mem_arena = False
    # Idle pool threads would spin on a core the rest of the run needs.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = onnxruntime.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    tokenizer = Tokenizer.from_file(str(tokenizer_path))
    tokenizer.no_padding()  # the file pads every text to 128; batches pad themselves
    tokenizer.enable_truncation(max_tokens)
    return _Loaded(session, tokenizer, frozenset(i.name for i in session.get_inputs()))


def _run(loaded: _Loaded, pieces: list[list[int]]) -> NDArray[np.float32]:
    """One batch: pad to its longest text, run the model, mean-pool the real tokens, and
    scale each vector to unit length."""
    import numpy as np

    width = max(len(p) for p in pieces)
    ids = np.zeros((len(pieces), width), dtype=np.int64)  # 0 is [PAD]
    mask = np.zeros_like(ids)
    for row, piece in enumerate(pieces):
        ids[row, : len(piece)] = piece
        mask[row, : len(piece)] = 1
    feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    (hidden,) = loaded.session.run(
        ["last_hidden_state"], {k: v for k, v in feed.items() if k in loaded.inputs}
    )
    weights = mask[:, :, None].astype(np.float32)
    pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    result: NDArray[np.float32] = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
    return result


def _batches(lengths: list[int]) -> list[list[int]]:
    """The indices of ``lengths``, shortest first, in batches of at most ``BATCH_TEXTS``
    texts and ``BATCH_TOKENS`` padded tokens, padded to at most ``BATCH_PADDING`` times
    their real tokens (a batch is as wide as its longest text)."""
    batches: list[list[int]] = []
    current: list[int] = []
    real = 0
    for index in sorted(range(len(lengths)), key=lengths.__getitem__):
        width, count = lengths[index], len(current) + 1
        if current and (
            count > BATCH_TEXTS
            or count * width > BATCH_TOKENS
            or count * width > BATCH_PADDING * (real + width)
        ):
            batches.append(current)
            current, real = [], 0
        current.append(index)
        real += width
    return [*batches, current] if current else batches


class _VectorCache:
    """The ``size`` most recently used vectors by text; safe to share between threads."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._vectors: OrderedDict[str, NDArray[np.float32]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, text: str) -> NDArray[np.float32] | None:
        with self._lock:
            vector = self._vectors.get(text)
            if vector is not None:
                self._vectors.move_to_end(text)
            return vector

    def put(self, text: str, vector: NDArray[np.float32]) -> None:
        vector = vector.copy()  # a row of a batch's array would keep the whole array alive
        vector.setflags(write=False)  # handed out again: no caller may change it
        with self._lock:
            self._vectors[text] = vector
            self._vectors.move_to_end(text)
            while len(self._vectors) > self._size:
                self._vectors.popitem(last=False)

    def __len__(self) -> int:
        return len(self._vectors)


_default: Embedder | None = None
_creating = threading.Lock()


def default_embedder() -> Embedder:
    """The process's embedder, created on first call (cheap: the model loads on first
    use); ``ASSAY_EMBEDDING_THREADS`` sets its thread count."""
    global _default
    with _creating:
        if _default is None:
            _default = Embedder(threads=_configured_threads())
        return _default


def similarity(text: str, others: Sequence[str]) -> list[float]:
    """The cosine of ``text`` with each of ``others``, by the default embedder."""
    return default_embedder().similarity(text, others)


def _configured_threads() -> int:
    raw = os.environ.get(THREADS_VARIABLE, "").strip()
    if not raw:
        return THREADS
    if not raw.isdigit() or not 1 <= int(raw) <= 64:
        raise ConfigError(f"{THREADS_VARIABLE} must be a whole number from 1 to 64, not {raw!r}")
    return int(raw)
