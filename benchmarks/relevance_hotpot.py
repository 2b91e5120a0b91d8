"""Relevance methods scored on HotpotQA: gold supporting paragraphs against distractors.

Each HotpotQA question comes with ten paragraphs: the two it needs (gold) and eight
distractors chosen for looking like them. A relevance method is asked about each
paragraph (a source: its title and text) and each sentence (a claim, with and without its
page title). Figures: precision and recall of ``relevant`` at the method's threshold, and
for ranking methods the share of gold paragraphs in the top two and top four. The MiniLM
rows rank by the cosine of the question with "title. text" (the bundled embedder,
``assay.reading``), alone and fused with BM25 by reciprocal rank (k = 60), as a hybrid
index search would.

    python benchmarks/relevance_hotpot.py --limit 100
"""

from __future__ import annotations

import argparse
import json
import math
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from assay.reading.embed import default_embedder
from assay.reading.names import names_in
from assay.reading.relevance import fitted_model, relevance, word_overlap
from assay.text import content_words

RELEVANT = 0.5  # the bar lexical-v2 (word overlap alone) used


def meaning(question: str, title: str, text: str, _: list[tuple[str, str]]) -> float:
    return relevance(question, text, title=title).score


DATA = next(
    (p / "shared" / "data" for p in Path(__file__).resolve().parents if (p / "shared").is_dir()),
    Path("/work/shared/data"),
)

Scorer = Callable[[str, str, str, list[tuple[str, str]]], float]


def lexical(question: str, title: str, text: str, _: list[tuple[str, str]]) -> float:
    return word_overlap(question, text, title=title)


def lexical_text_only(question: str, title: str, text: str, _: list[tuple[str, str]]) -> float:
    return word_overlap(question, text)


def title_only(question: str, title: str, text: str, _: list[tuple[str, str]]) -> float:
    return word_overlap(question, "", title=title)


def names(question: str, title: str, text: str, _: list[tuple[str, str]]) -> float:
    """1 when the text or title names one of the question's names (all its words), else 0."""
    present = set(content_words(f"{title} {text}"))
    wanted = [set(content_words(n)) for n in names_in(question, skip_first=True)]
    return float(any(w and w <= present for w in wanted))


def names_or_lexical(question: str, title: str, text: str, pool: list[tuple[str, str]]) -> float:
    return max(names(question, title, text, pool), lexical(question, title, text, pool))


def bm25(question: str, title: str, text: str, pool: list[tuple[str, str]]) -> float:
    """BM25 of title and text against the question, the other paragraphs as the corpus
    (the picker's formula; FTS5's bm25 ranks the same way)."""
    documents = [content_words(f"{t} {x}") for t, x in pool]
    frequency = Counter(w for d in documents for w in set(d))
    average = sum(map(len, documents)) / len(documents)
    document = content_words(f"{title} {text}")
    counts = Counter(document)
    score = 0.0
    for word in set(content_words(question)) & counts.keys():
        idf = math.log(1 + (len(documents) - frequency[word] + 0.5) / (frequency[word] + 0.5))
        tf = counts[word]
        score += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len(document) / average))
    return score


def minilm(question: str, title: str, text: str, _: list[tuple[str, str]]) -> float:
    return default_embedder().similarity(question, [f"{title}. {text}"])[0]


def reciprocal_rank(question: str, title: str, text: str, pool: list[tuple[str, str]]) -> float:
    """BM25 and MiniLM fused: the sum of 1 / (60 + rank) over the two rankings of the pool."""
    fused = 0.0
    for scorer in (bm25, minilm):
        scores = [scorer(question, t, x, pool) for t, x in pool]
        mine = scorer(question, title, text, pool)
        fused += 1 / (60 + 1 + sum(s > mine for s in scores))
    return fused


METHODS: dict[str, tuple[Scorer, float | None]] = {
    "meaning-v1 (the product's relevance)": (meaning, fitted_model().threshold),
    "lexical-v2 (text + title)": (lexical, RELEVANT),
    "lexical-v2 (text only)": (lexical_text_only, RELEVANT),
    "title overlap": (title_only, RELEVANT),
    "question's names": (names, RELEVANT),
    "names or lexical-v2": (names_or_lexical, RELEVANT),
    "bm25 vs question": (bm25, None),
    "minilm cosine": (minilm, None),
    "bm25 + minilm (RRF)": (reciprocal_rank, None),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=100)
    args = parser.parse_args()
    items = json.loads((DATA / "hotpotqa-100.json").read_text())[: args.limit]
    print(f"{len(items)} questions; relevant at score >= {RELEVANT}")
    print(f"{'paragraphs':<28} {'precision':>9} {'recall':>7} {'gold@2':>7} {'gold@4':>7}")
    for name, (scorer, threshold) in METHODS.items():
        tp = fp = fn = 0
        at2 = at4 = gold_total = 0
        for item in items:
            gold = {t for t, _ in item["supporting_facts"]}
            pool = [(t, "".join(s)) for t, s in item["context"]]
            scores = [(scorer(item["question"], t, x, pool), t in gold) for t, x in pool]
            order = sorted(scores, key=lambda s: -s[0])
            at2 += sum(g for _, g in order[:2])
            at4 += sum(g for _, g in order[:4])
            gold_total += sum(g for _, g in scores)
            if threshold is not None:
                tp += sum(s >= threshold and g for s, g in scores)
                fp += sum(s >= threshold and not g for s, g in scores)
                fn += sum(s < threshold and g for s, g in scores)
        precision = f"{tp / (tp + fp):.2f}" if threshold is not None and tp + fp else "-"
        recall = f"{tp / (tp + fn):.2f}" if threshold is not None and tp + fn else "-"
        print(f"{name:<28} {precision:>9} {recall:>7} {at2 / gold_total:>7.2f} "
              f"{at4 / gold_total:>7.2f}")  # fmt: skip
    print(f"\n{'sentences (claims)':<28} {'precision':>9} {'recall':>7}")
    for name, (scorer, threshold) in METHODS.items():
        if threshold is None:
            continue
        tp = fp = fn = 0
        for item in items:
            facts = {(t, n) for t, n in item["supporting_facts"]}
            pool = [(t, "".join(s)) for t, s in item["context"]]
            for title, sentences in item["context"]:
                for number, sentence in enumerate(sentences):
                    hit = scorer(item["question"], title, sentence, pool) >= threshold
                    gold = (title, number) in facts
                    tp += hit and gold
                    fp += hit and not gold
                    fn += gold and not hit
        print(f"{name:<28} {tp / max(1, tp + fp):>9.2f} {tp / max(1, tp + fn):>7.2f}")


if __name__ == "__main__":
    main()
