"""Fit the extractive picker's ranking (``src/assay/claims/data/picker.json``) and report it.

The picker ranks a page's sentences for a question (``assay.claims.picker.candidates``:
BM25 within the page, relative to its best sentence; the fitted relevance with the page
title; whether the sentence states a value of the kind asked; whether it opens the page).
Each page that holds an answer gives labelled sentences: HotpotQA's supporting pages, a
sentence positive when it is a supporting fact; PopQA's subject paragraphs, a sentence
positive when it states the answer (or an alias). Climate-FEVER has no pages (its evidence
is single sentences), so it is not fitted here; its figures come from
``verify_climate_fever.py``.

The weights are those of a conditional logit over each page's eligible sentences (the
chance that the top pick answers: a softmax over the page, its positives pooled), the
ranking the picker makes, fitted by gradient descent on the TUNE halves only
(benchmarks/README.md "Splits"), each set weighing the same, with a small L2.
Both halves of both sets are reported: per page, whether the top pick is a positive
(hit@1) and the share of the page's positives among its top three picks (recall@3, the
picker's default ``max_claims``), for the fitted ranking, BM25 alone and relevance alone.

    python benchmarks/fit_picker.py            # fit, write the data file, report
    python benchmarks/fit_picker.py --report   # report the stored model only
"""

from __future__ import annotations

import argparse
import json
import subprocess
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from fit_relevance import DATA, _contains_words

from assay.claims.picker import FEATURES, candidates, fitted_picker
from assay.text import split_sentences

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "assay" / "claims" / "data" / "picker.json"
TOP = 3


@dataclass(frozen=True)
class Page:
    tune: bool
    question: str
    title: str
    text: str
    positive: Callable[[int, int], bool]  # (start, end) of a sentence → does it answer


def hotpot() -> Iterator[Page]:
    items = json.loads((DATA / "hotpotqa-100.json").read_text())
    half = (len(items) + 1) // 2
    for i, item in enumerate(items):
        gold: dict[str, set[int]] = {}
        for title, k in item["supporting_facts"]:
            gold.setdefault(title, set()).add(k)
        for title, sentences in item["context"]:
            if title not in gold:
                continue
            spans, text = [], ""
            for sentence in sentences:
                piece = sentence.strip()
                text += (" " if text else "") + piece
                spans.append((len(text) - len(piece), len(text)))
            wanted = [spans[k] for k in gold[title] if k < len(spans)]

            def positive(start: int, end: int, wanted: list[tuple[int, int]] = wanted) -> bool:
                return any(start < b and a < end for a, b in wanted)

            yield Page(i < half, item["question"], title, text, positive)


def popqa() -> Iterator[Page]:
    items = json.loads((DATA / "popqa-dev.json").read_text())
    half = (len(items) + 1) // 2
    for i, item in enumerate(items):
        answers = {a.lower() for a in [item["answer"], *item["answer_aliases"]]}
        for paragraph in item["paragraphs"]:
            if paragraph["title"] != item["subject"]:
                continue
            text = paragraph["paragraph_text"]
            states = {
                (s.start, s.end)
                for s in split_sentences(text)
                if any(_contains_words(s.text.lower(), a) for a in answers)
            }
            if states:
                yield Page(i < half, item["question"], paragraph["title"], text,
                           lambda a, b, states=states: (a, b) in states)  # fmt: skip


SETS = {"HotpotQA": hotpot, "PopQA": popqa}


@dataclass(frozen=True)
class Read:
    """One page's candidates: features, labels, eligibility."""

    tune: bool
    x: np.ndarray
    y: np.ndarray
    eligible: np.ndarray


def read(pages: Iterator[Page]) -> list[Read]:
    found = []
    for page in pages:
        c = candidates(page.question, page.text, page.title)
        if not c.sentences:
            continue
        y = np.array([float(page.positive(s.start, s.end)) for s in c.sentences])
        if y.sum():
            found.append(Read(page.tune, np.array(c.features), y, np.array(c.eligible)))
    return found


def ranking_figures(reads: Sequence[Read], score: Callable[[np.ndarray], np.ndarray]) -> str:
    hits, recalls = [], []
    for r in reads:
        s = np.where(r.eligible, score(r.x), -np.inf)
        order = sorted(range(len(s)), key=lambda i: (-s[i], i))
        top = [i for i in order[:TOP] if np.isfinite(s[i])]
        hits.append(float(bool(top) and r.y[top[0]] == 1))
        recalls.append(float(r.y[top].sum() / r.y.sum()) if top else 0.0)
    return f"hit@1 {np.mean(hits):.3f}  recall@{TOP} {np.mean(recalls):.3f}  ({len(reads)} pages)"


def fit(pages: Sequence[Read], sets: int, reads: dict[str, list[Read]]) -> np.ndarray:
    """The conditional logit's weights: per page, -log of the softmax mass on its
    positives among its eligible sentences, each set's pages weighing 1 / (sets × pages)."""
    count = {id(r): len([p for p in rs if p.tune]) for rs in reads.values() for r in rs}
    beta = np.zeros(len(FEATURES))
    for _ in range(3000):
        gradient = 1e-3 * beta
        for page in pages:
            x, y = page.x[page.eligible], page.y[page.eligible]
            if not y.sum():
                continue
            z = x @ beta
            p = np.exp(z - z.max())
            p /= p.sum()
            q = p * y / (p * y).sum()  # the posterior over the page's positives
            gradient += (x.T @ (p - q)) / (sets * count[id(page)])
        beta -= 1.0 * gradient
    return beta


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--report", action="store_true", help="report the stored model only")
    args = parser.parse_args()
    reads = {name: read(pages()) for name, pages in SETS.items()}
    if args.report:
        model = fitted_picker()
        weights, bias = np.array(model.weights), model.bias
    else:
        weights = fit([r for rs in reads.values() for r in rs if r.tune], len(reads), reads)
        bias = 0.0
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
        ).stdout.strip()
        data = {
            "features": list(FEATURES),
            "weights": [round(float(w), 4) for w in weights],
            "bias": round(bias, 4),
            "fitted_on": {
                "split": "tune halves: HotpotQA-100 items 0-49 (supporting pages), "
                "PopQA-dev 0-186 (subject paragraphs) (benchmarks/README.md, Splits)",
                "commit": commit,
                "script": "benchmarks/fit_picker.py",
            },
        }
        OUT.write_text(json.dumps(data, indent=2) + "\n")
        print(f"wrote {OUT.relative_to(ROOT)}")
    print("weights", dict(zip(FEATURES, np.round(weights, 3), strict=True)), f"bias {bias:.3f}")
    arms: dict[str, Callable[[np.ndarray], np.ndarray]] = {
        "fitted": lambda x: x @ weights,
        "bm25 alone": lambda x: x[:, 0],
        "relevance alone": lambda x: x[:, 1],
    }
    for name, rs in reads.items():
        for half, tune in (("tune", True), ("held", False)):
            part = [r for r in rs if r.tune == tune]
            for arm, score in arms.items():
                print(f"{name:8} {half:4} {arm:16} {ranking_figures(part, score)}")


if __name__ == "__main__":
    main()
