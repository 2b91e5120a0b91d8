"""Relevance: how much a text speaks to the question (or direction) it was gathered for.

Every source and every claim carries a :class:`Relevance` in its ledger line — a score in
[0, 1], whether it clears the bar, and the method that computed it — so an off-topic line
stays in the ledger (nothing is lost) while answers, findings and summaries use only what
is relevant.

The score reads meaning: the cosine of the question's sentence embedding with the text's
and with its page title's, and the share of the question's words the text repeats, are
combined by a logistic model whose weights and bar are fitted by
``benchmarks/fit_relevance.py`` on the tune halves of the evaluation sets and stored in
``data/relevance.json`` with the split and commit they were fitted on. Word overlap is one
feature among three, never the decision: "X is a Canadian actor" shares no word with
"What is X's occupation?" beyond the name, and still speaks to it. A text about a rival
of the question's subject (the same template, another name) scores 0 (``about_a_rival``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

from assay.reading.logistic import Logistic
from assay.reading.names import names_in, same_name
from assay.text import content_words

SATURATION = 10.0
"""A long question is not asked whole of any one text: a text that matches this much
word weight (a two-word name and a few other words) overlaps as much as it gets."""


@dataclass(frozen=True)
class RelevanceModel(Logistic):
    """The fitted combination over ``features``, and the method name it records."""

    method: str
    features: tuple[str, ...]


FEATURES = ("lexical", "cosine_text", "cosine_title")


@cache
def fitted_model() -> RelevanceModel:
    """The weights in ``data/relevance.json`` (read once)."""
    data = json.loads(resources.files("assay.reading").joinpath("data/relevance.json").read_text())
    if tuple(data["features"]) != FEATURES:
        raise ValueError(f"relevance.json was fitted on {data['features']}, not {FEATURES}")
    return RelevanceModel(
        method=str(data["method"]),
        features=FEATURES,
        weights=tuple(float(w) for w in data["weights"]),
        bias=float(data["bias"]),
        threshold=float(data["threshold"]),
    )


@dataclass(frozen=True)
class Relevance:
    """A text's relevance to a question, and how it was computed."""

    score: float
    method: str
    target: str = ""
    """The question or sub-question the score is against, when there were several."""

    @property
    def relevant(self) -> bool:
        return self.score >= fitted_model().threshold

    def to_json(self) -> dict[str, object]:
        found: dict[str, object] = {
            "score": round(self.score, 3),
            "method": self.method,
            "relevant": self.relevant,
        }
        return found | ({"target": self.target} if self.target else {})


def word_overlap(question: str, text: str, *, title: str = "") -> float:
    """The weighted share of the question's content words that the text or its title
    contains (a feature of :func:`relevance`, never a decision on its own).

    A name the question gives ("Journal of Example Studies") counts twice its length, and
    only whole: a text naming another journal of other studies shares two of its words but
    not the name, and gets a quarter of their weight. The weight a text must match
    saturates at ``SATURATION``.
    """
    names, others = _parts(question)
    total = min(SATURATION, sum(2.0 * len(n) for n in names) + len(others))
    if not total:
        return 0.0
    found = set(content_words(text)) | set(content_words(title))
    score = sum(1.0 for word in others if word in found)
    for name in names:
        matched = len(name & found)
        score += 2.0 * len(name) if matched == len(name) else 0.5 * matched
    return min(1.0, score / total)


def features(question: str, texts: Sequence[str], titles: Sequence[str]) -> list[list[float]]:
    """Each text's feature values (``FEATURES``, in order) against ``question``.

    All embeddings are computed in one batch. A text without a title stands for its own
    title (the fit sees both cases).
    """
    from assay.reading.embed import default_embedder  # the model loads on first use

    unique = list(dict.fromkeys([question, *texts, *(t for t in titles if t)]))
    vectors = dict(zip(unique, default_embedder().embed(unique), strict=True))
    asked = vectors[question]
    rows = []
    for text, title in zip(texts, titles, strict=True):
        cosine_text = float(asked @ vectors[text])
        cosine_title = float(asked @ vectors[title]) if title else cosine_text
        rows.append([word_overlap(question, text, title=title), cosine_text, cosine_title])
    return rows


def about_a_rival(question: str, text: str, title: str = "") -> bool:
    """Whether the text (with its title) names none of the question's names whole but a
    rival of one: a name sharing some of its words and differing in others ("Journal of
    Coastal Research" for a question on the Journal of Example Studies, "HD 36" for one on
    HD 32). The same template about another subject embeds close to the question, so this
    is checked apart from the fitted score; a shorter mention ("Rankin" for "George
    Rankin") is no rival. benchmarks/fit_relevance.py reports what it costs on each set."""
    ordered = _ordered_names(question)
    if not ordered:
        return False
    names = [set(name) for name in ordered]
    found = set(content_words(text)) | set(content_words(title))
    if any(name <= found for name in names):
        return False
    given = [tuple(content_words(n)) for n in [*names_in(title), *names_in(text)]]
    if any(_gives(name, n) for name in ordered for n in given):
        return False
    asked = set().union(*names)
    theirs = [set(n) for n in given]
    return any(n & asked and n - asked and asked - n for n in theirs)


def _ordered_names(question: str) -> list[tuple[str, ...]]:
    """The question's names (its first word aside), each as its content words in order."""
    names = [tuple(content_words(n)) for n in names_in(question, skip_first=True)]
    return [n for n in names if n]


def _gives(asked: tuple[str, ...], name: tuple[str, ...]) -> bool:
    """Whether ``name`` is the asked name given with a middle name left out or added
    ("Ada Vell" for "Ada Marie Vell"): a text naming the subject so is about it, whatever
    other names it joins to its own ("Senator Ada Vell" beside it)."""
    return min(len(asked), len(name)) >= 2 and same_name(asked, name)


def relevances(question: str, texts: Sequence[str], titles: Sequence[str]) -> list[Relevance]:
    """The relevance of each text (with its page title, "" for none) to ``question``: the
    fitted score, or 0 for a text about a rival of the question's subject."""
    model = fitted_model()
    if not content_words(question):
        return [Relevance(0.0, model.method) for _ in texts]
    rows = features(question, texts, titles)
    return [
        Relevance(0.0 if about_a_rival(question, text, title) else model.score(row), model.method)
        for row, text, title in zip(rows, texts, titles, strict=True)
    ]


def relevance(question: str, text: str, *, title: str = "") -> Relevance:
    """How much ``text`` (a claim, or a source with its ``title``) speaks to ``question``."""
    return relevances(question, [text], [title])[0]


def best_relevance(targets: Sequence[str], text: str, *, title: str = "") -> Relevance:
    """The relevance of ``text`` to the first of ``targets`` (the question, then the plan's
    sub-questions and the follow-up searches) it speaks to most."""
    best = Relevance(0.0, fitted_model().method)
    for target in targets:
        found = relevance(target, text, title=title)
        if found.score > best.score:
            best = Relevance(found.score, found.method, target)
    return best


def _parts(question: str) -> tuple[list[set[str]], set[str]]:
    """The question's names (each a set of stems) and its other content words."""
    names = [set(name) for name in _ordered_names(question)]
    named = set().union(*names)
    return names, {w for w in content_words(question) if w not in named}
