"""Whether a candidate answer is the kind of thing a question asks for, by meaning.

"What is X's occupation?" asks for an occupation: in "X was a Vellish soldier and
politician" the answer is "soldier" and "politician", not "Vellish" (a nationality).
Each kind in ``data/answer_types.txt`` is the centroid of its examples' embeddings; a
candidate is of the asked kind when it is nearer that centroid than every other kind's,
and the margin says by how much. A kind the list does not hold ("capital") is its own
word's embedding, and the listed kinds are its rivals.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True)
class _Kinds:
    names: tuple[frozenset[str], ...]  # each kind's name and the words that ask for it
    centroids: NDArray[np.float32]  # one unit row per kind


@cache
def _kinds() -> _Kinds:
    from assay.reading.embed import default_embedder  # the model loads on first use

    text = resources.files("assay.reading").joinpath("data/answer_types.txt").read_text()
    names, rows = [], []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        head, _, examples = line.partition(":")
        vectors = default_embedder().embed([e.strip() for e in examples.split(",") if e.strip()])
        centroid = vectors.mean(axis=0)
        names.append(frozenset(head.split()))
        rows.append(centroid / np.linalg.norm(centroid))
    return _Kinds(tuple(names), np.stack(rows).astype(np.float32))


def kind_margins(asked: str, candidates: Sequence[str]) -> list[float]:
    """For each candidate, its cosine with the asked kind less its best cosine with any
    other kind (> 0: the candidate is of the asked kind)."""
    from assay.reading.embed import default_embedder

    if not candidates:
        return []
    kinds = _kinds()
    found = default_embedder().embed(list(candidates))
    # "occupations" asks for the listed kind "occupation"
    singular = {asked.lower(), asked.lower().removesuffix("s")}
    listed = [i for i, names in enumerate(kinds.names) if singular & set(names)]
    if listed:
        wanted = kinds.centroids[listed[0]]
        rivals = np.delete(kinds.centroids, listed[0], axis=0)
    else:
        wanted, rivals = default_embedder().embed([asked])[0], kinds.centroids
    return [float(wanted @ v - (rivals @ v).max()) for v in found]
