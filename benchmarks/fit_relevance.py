"""Fit the relevance model (``src/assay/reading/data/relevance.json``) and report it.

Each evaluation set gives sentences labelled by whether they speak to their question:
HotpotQA's supporting facts among its ten paragraphs; PopQA's subject paragraph's
sentences that state the answer, among the rest of the subject's and the answer's
paragraphs; Climate-FEVER's evidence sentences labelled SUPPORTS or REFUTES, among those
labelled NOT_ENOUGH_INFO. Each question also gets another question's positives as
negatives (``with_other_subjects``). Every sentence is scored with its page title and
without one (callers ask both ways). A text about a rival of the question's subject scores
0 as in the product (``about_a_rival``) and is left out of the fit.

The features are ``assay.reading.relevance.features`` (the product's own code) and the
model is a logistic regression: each set weighs the same and its positives and negatives
are balanced, so no set's size or base rate decides the fit. The bar maximises the mean
F2 (recall counted four times precision: an off-topic mark loses evidence, a kept
sentence is only ranked lower) over the three tune halves.

The fit uses the tune halves only (benchmarks/README.md, "Splits"); both halves of every
set are reported, with the word-overlap gate (``lexical-v2``: overlap >= 0.5) beside it.

    python benchmarks/fit_relevance.py            # fit, write the data file, report
    python benchmarks/fit_relevance.py --report   # report the stored model only
"""

from __future__ import annotations

import argparse
import json
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from assay.claims.standalone import page_subject
from assay.reading.relevance import FEATURES, about_a_rival, features, fitted_model
from assay.text import split_sentences

ROOT = Path(__file__).resolve().parents[1]
DATA = next(
    (p / "shared" / "data" for p in Path(__file__).resolve().parents if (p / "shared").is_dir()),
    Path("/work/shared/data"),
)
OUT = ROOT / "src" / "assay" / "reading" / "data" / "relevance.json"
METHOD = "meaning-v1"
LEXICAL_BAR = 0.5  # the bar lexical-v2 used
LEXICAL_NAME = "lexical-v2 (overlap >= 0.5)"


@dataclass(frozen=True)
class Example:
    tune: bool
    question: str
    title: str
    text: str
    label: int


def hotpot() -> Iterator[Example]:
    items = json.loads((DATA / "hotpotqa-100.json").read_text())
    half = (len(items) + 1) // 2
    for i, item in enumerate(items):
        gold = {(title, k) for title, k in item["supporting_facts"]}
        for title, sentences in item["context"]:
            for k, sentence in enumerate(sentences):
                yield Example(
                    i < half, item["question"], title, sentence.strip(), int((title, k) in gold)
                )


def popqa() -> Iterator[Example]:
    items = json.loads((DATA / "popqa-dev.json").read_text())
    half = (len(items) + 1) // 2
    for i, item in enumerate(items):
        answers = {a.lower() for a in [item["answer"], *item["answer_aliases"]]}
        for paragraph in item["paragraphs"]:
            about_subject = paragraph["title"] == item["subject"]
            for sentence in split_sentences(paragraph["paragraph_text"]):
                states = any(_contains_words(sentence.text.lower(), a) for a in answers)
                label = int(about_subject and states)
                yield Example(i < half, item["question"], paragraph["title"], sentence.text, label)


def climate_fever() -> Iterator[Example]:
    lines = (DATA / "climate-fever-dev.jsonl").read_text().splitlines()
    half = (len(lines) + 1) // 2
    for i, line in enumerate(lines):
        item = json.loads(line)
        for evidence in item["evidences"]:
            label = int(evidence["evidence_label"] != "NOT_ENOUGH_INFO")
            yield Example(i < half, item["claim"], evidence["article"], evidence["evidence"], label)


def _contains_words(text: str, phrase: str) -> bool:
    at = text.find(phrase)
    while at >= 0:
        before = text[at - 1] if at else " "
        after = text[at + len(phrase)] if at + len(phrase) < len(text) else " "
        if not before.isalnum() and not after.isalnum():
            return True
        at = text.find(phrase, at + 1)
    return False


def with_other_subjects(examples: list[Example]) -> list[Example]:
    """Each question also gets the next question's positives (same half) as negatives:
    a sentence that answers the same shape of question about another subject ("Y is an
    American cartoonist" for "What is X's occupation?") embeds close and is off-topic."""
    positives: dict[str, list[Example]] = {}
    for e in examples:
        positives.setdefault(e.question, [])
        if e.label:
            positives[e.question].append(e)
    extra = []
    for tune in (True, False):
        questions = [q for q, found in positives.items() if found and found[0].tune == tune]
        for question, other in zip(questions, questions[1:] + questions[:1], strict=True):
            extra += [Example(tune, question, e.title, e.text, 0) for e in positives[other]]
    return examples + extra


SETS = {"HotpotQA": hotpot, "PopQA": popqa, "Climate-FEVER": climate_fever}


@dataclass(frozen=True)
class Table:
    """One set's examples, each twice: with its page title and without."""

    x: NDArray[np.float64]
    y: NDArray[np.float64]
    tune: NDArray[np.bool_]
    rival: NDArray[np.bool_]  # about a rival of the question's subject: scored 0


def table(examples: list[Example]) -> Table:
    by_question: dict[str, list[Example]] = {}
    for example in examples:
        by_question.setdefault(example.question, []).append(example)
    rows: list[list[float]] = []
    y: list[int] = []
    tune: list[bool] = []
    rival: list[bool] = []
    for question, group in by_question.items():
        texts = [e.text for e in group]
        for titles in ([page_subject(e.title) for e in group], [""] * len(group)):
            rows += features(question, texts, titles)
            y += [e.label for e in group]
            tune += [e.tune for e in group]
            pairs = zip(texts, titles, strict=True)
            rival += [about_a_rival(question, t, title) for t, title in pairs]
    return Table(np.array(rows), np.array(y, dtype=float), np.array(tune), np.array(rival))


def fit(tables: dict[str, Table]) -> NDArray[np.float64]:
    """Weighted logistic regression by gradient descent (deterministic, small L2)."""
    xs, ys, ws = [], [], []
    for t in tables.values():
        kept = t.tune & ~t.rival  # a rival's text is scored 0 whatever the model says
        x, y = t.x[kept], t.y[kept]
        xs.append(x)
        ys.append(y)
        ws.append(np.where(y == 1, 0.5 / y.sum(), 0.5 / (1 - y).sum()) / len(tables))
    x = np.c_[np.concatenate(xs), np.ones(sum(len(v) for v in ys))]
    y, w = np.concatenate(ys), np.concatenate(ws)
    beta = np.zeros(x.shape[1])
    for _ in range(5000):
        p = 1 / (1 + np.exp(-x @ beta))
        gradient = x.T @ ((p - y) * w) + 1e-3 * np.r_[beta[:-1], 0.0]
        beta -= 2.0 * gradient
    return beta


def scores(
    beta: NDArray[np.float64], x: NDArray[np.float64], rival: NDArray[np.bool_]
) -> NDArray[np.float64]:
    """The product's scores: the model's, and 0 where the text is about a rival."""
    found = 1 / (1 + np.exp(-(np.c_[x, np.ones(len(x))] @ beta)))
    return np.asarray(np.where(rival, 0.0, found))


def recall_precision(predicted: NDArray[np.bool_], y: NDArray[np.float64]) -> tuple[float, float]:
    hits = float((predicted & (y == 1)).sum())
    return hits / max(1.0, float(y.sum())), hits / max(1.0, float(predicted.sum()))


def f2(recall: float, precision: float) -> float:
    return 5 * precision * recall / (4 * precision + recall) if precision + recall else 0.0


def choose_bar(beta: NDArray[np.float64], tables: dict[str, Table]) -> float:
    def mean_f2(bar: float) -> float:
        found = []
        for t in tables.values():
            s = scores(beta, t.x[t.tune], t.rival[t.tune])
            found.append(f2(*recall_precision(s >= bar, t.y[t.tune])))
        return float(np.mean(found))

    return max((round(b, 3) for b in np.arange(0.05, 0.95, 0.005)), key=mean_f2)


def auc(s: NDArray[np.float64], y: NDArray[np.float64]) -> float:
    order = np.argsort(s, kind="stable")
    ranks = np.empty(len(s))
    ranks[order] = np.arange(len(s))
    positive = y == 1
    n_pos, n_neg = float(positive.sum()), float((~positive).sum())
    return float((ranks[positive].sum() - n_pos * (n_pos - 1) / 2) / (n_pos * n_neg))


def report(beta: NDArray[np.float64], bar: float, tables: dict[str, Table]) -> dict[str, object]:
    columns = "AUC   recall  precision"
    print(f"{'set':14} {'half':5} {'n':>5} {'pos':>4}  {METHOD:>27}  {LEXICAL_NAME:>27}")
    print(f"{'':14} {'':5} {'':>5} {'':>4}  {columns:>27}  {columns:>27}")
    found: dict[str, object] = {}
    for name, t in tables.items():
        for half, mask in (("tune", t.tune), ("held", ~t.tune)):
            x, y = t.x[mask], t.y[mask]
            s, lexical = scores(beta, x, t.rival[mask]), x[:, FEATURES.index("lexical")]
            rec, prec = recall_precision(s >= bar, y)
            lrec, lprec = recall_precision(lexical >= LEXICAL_BAR, y)
            print(
                f"{name:14} {half:5} {len(y):5d} {int(y.sum()):4d}  "
                f"{auc(s, y):.3f}  {rec:.3f}   {prec:.3f}      "
                f"{auc(lexical, y):.3f}  {lrec:.3f}   {lprec:.3f}"
            )
            found[f"{name} {half}"] = {
                "auc": round(auc(s, y), 3), "recall": round(rec, 3), "precision": round(prec, 3),
                "lexical_auc": round(auc(lexical, y), 3), "lexical_recall": round(lrec, 3),
                "lexical_precision": round(lprec, 3),
            }  # fmt: skip
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--report", action="store_true", help="report the stored model only")
    args = parser.parse_args()
    tables = {name: table(with_other_subjects(list(make()))) for name, make in SETS.items()}
    if args.report:
        model = fitted_model()
        report(np.array([*model.weights, model.bias]), model.threshold, tables)
        return
    beta = fit(tables)
    bar = choose_bar(beta, tables)
    print(f"weights {dict(zip(FEATURES, np.round(beta[:-1], 4), strict=True))}, "
          f"bias {beta[-1]:.4f}, bar {bar}")  # fmt: skip
    figures = report(beta, bar, tables)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    OUT.write_text(
        json.dumps(
            {
                "method": METHOD,
                "features": list(FEATURES),
                "weights": [round(float(b), 4) for b in beta[:-1]],
                "bias": round(float(beta[-1]), 4),
                "threshold": bar,
                "fitted_on": {
                    "split": "tune halves: HotpotQA-100 items 0-49, PopQA-dev 0-186, "
                    "Climate-FEVER-dev lines 0-384 (benchmarks/README.md, Splits)",
                    "commit": commit,
                    "script": "benchmarks/fit_relevance.py",
                },
                "figures": figures,
            },
            indent=2,
        )
        + "\n"
    )
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
