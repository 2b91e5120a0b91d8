"""The extractive judge: SUPPORTS / REFUTES / NOT_ENOUGH_INFO without a model.

It finds the sentence (or two adjacent sentences) of the evidence that best covers the
claim's content words, then reads agreement off that sentence: its numbers, its polarity
(negations, antonyms), and how close in meaning it is to the claim (sentence embeddings,
``assay.reading``). Heuristics cannot read meaning, so the judge is built to be
conservative: a claim earns SUPPORTS only when nearly all of its content words, and all of
its numbers, stand in one place of the evidence with the same polarity; anything less is
NOT_ENOUGH_INFO. A wrong SUPPORTS would turn into a "verified" nobody should trust; a
missed one only leaves a claim for review.

With ``ASSAY_JUDGE_DECISION=fitted`` (and embeddings), SUPPORTS is decided instead by a
logistic model over the reading's ``features`` (coverage, cosine, density, number and
polarity signals), fitted on climate-fever's tune half by ``benchmarks/fit_judge.py`` and
stored in ``data/judge.json`` (``fitted.py``); a question, cancelling polarity, a missing
claim number or a visible disagreement still blocks it, and REFUTES still stands only on
a disagreement code can see. It is not the default: it doubled pair-level SUPPORTS
recall on the held-out half, but through the lab it added wrong SUPPORTS and no net right
ones (benchmarks/README.md, "Fitted judge").

The quote is always a slice of the evidence (``evidence[start:end]``), so it is verbatim by
construction; sentences that address an AI agent are never read (page text is data).
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from assay.claims.agreement import NumberAgreement, antonym_flips, compare_numbers
from assay.claims.disagreement import partial, polarity, slot_conflict, stems_of
from assay.claims.judge import Label, Verdict
from assay.engines.extractive.fitted import JudgeModel, fitted_judge_model
from assay.errors import ConfigError
from assay.reading.embed import default_embedder
from assay.text import (
    Sentence,
    is_question,
    looks_like_instruction,
    split_sentences,
)

DECISION_VARIABLE = "ASSAY_JUDGE_DECISION"
DECISIONS = ("hand-set", "fitted")


def decision_setting() -> str:
    """Which decision the judge uses by default: ``hand-set`` (the thresholds) unless
    ``ASSAY_JUDGE_DECISION`` says ``fitted``."""
    value = os.environ.get(DECISION_VARIABLE, "hand-set").strip() or "hand-set"
    if value not in DECISIONS:
        raise ConfigError(
            f"{DECISION_VARIABLE} must be one of {', '.join(DECISIONS)}, not {value!r}"
        )
    return value


SHORTLIST = 24
"""How many best-covering sentences get a full reading (numbers, polarity, embeddings)."""


@dataclass(frozen=True)
class Thresholds:
    """Coverage (share of the claim's content words found) the labels need.

    Tuned on hand-made pairs and the first 300 claims of climate-fever-dev (see
    ``benchmarks/judge_climate_fever_pairs.py``); ``margin`` is how close to a threshold a
    decision may fall before it is marked not confident.
    """

    supports: float = 0.8
    supports_with_numbers: float = 0.6
    """The coverage that suffices when every number of the claim stands in the passage too:
    agreeing slots carry much of the claim, so fewer of its words need repeating."""
    refutes: float = 0.6
    similar: float = 0.75
    """Embedding cosine (all-MiniLM-L6-v2) at which a passage counts as saying the claim.
    With ``margin`` a confident SUPPORTS needs 0.8: on the tune half of climate-fever-dev,
    a claim whose best gold evidence reaches 0.8 is a gold SUPPORTS 26 times in 30, but on
    the held-out half only 17 in 28 (benchmarks/README.md, measured with the fp32 model;
    the bundled int8 model's cosines are within 0.012 of it). Through the lab, held-out
    half, the bundled model gives SUPPORTS precision 0.615 (13 predicted) where the lexical
    judge gives 0.857 (7): cosine is no precision-safe support signal on its own."""
    margin: float = 0.05
    pair_gain: float = 0.2
    """How much two adjacent sentences must add over the best single one to be used."""


@dataclass(frozen=True)
class Reading:
    """One candidate passage measured against the claim."""

    start: int
    end: int
    coverage: float
    density: float
    flipped: bool
    """Net opposite polarity: an odd number of negation mismatches and antonyms."""
    mixed: bool
    """Polarity signals that cancel out (a negation and an antonym): too unsure to support."""
    question: bool
    numbers: NumberAgreement
    slot_conflict: bool = False
    """Same subject, a date, place or name filled with another value (``claims.conflict``)."""
    similarity: float = 0.0

    @property
    def rank(self) -> float:
        """Coverage first; agreeing numbers, then density and similarity, break near-ties;
        a question ranks last, since it can neither support nor refute."""
        agree = 0.1 if self.numbers.agree else 0.0
        asks = 1.0 if self.question else 0.0
        return self.coverage + agree - asks + 0.05 * self.density + 0.3 * self.similarity


class Similarity(Protocol):
    """Scores how close in meaning each of ``others`` is to ``text`` (cosine, -1 … 1)."""

    def similarity(self, text: str, others: Sequence[str]) -> list[float]: ...


class ExtractiveJudge:
    """Labels a claim against evidence by lexical, numeric, negation and embedding agreement.

    ``similarity`` scores sentences by meaning: ``"default"`` is the process's embedder
    (its files are checked here, so a broken install fails before a run starts, not in
    the middle of one), ``None`` keeps the judge purely lexical.

    ``model`` decides SUPPORTS and REFUTES from the best reading's ``features``:
    ``"fitted"`` is the model in ``data/judge.json`` (``fitted.py``) when the judge reads
    with embeddings (the model weighs their cosine), ``None`` or ``"hand-set"`` the
    hand-set ``thresholds``, ``"setting"`` whichever ``ASSAY_JUDGE_DECISION`` names.
    """

    name = "extractive"

    def __init__(
        self,
        thresholds: Thresholds | None = None,
        similarity: Similarity | Literal["default"] | None = "default",
        model: JudgeModel | Literal["setting", "fitted", "hand-set"] | None = "setting",
    ) -> None:
        self.thresholds = thresholds or Thresholds()
        if similarity == "default":
            embedder = default_embedder()
            embedder.check()
            similarity = embedder
        self._similarity: Similarity | None = similarity
        if model == "setting":
            model = "fitted" if decision_setting() == "fitted" else None
        if model == "hand-set" or (model == "fitted" and similarity is None):
            model = None
        self.model: JudgeModel | None = fitted_judge_model() if model == "fitted" else model

    async def judge(self, claim: str, evidence: str) -> Verdict:
        """Lexical judging takes milliseconds and runs inline; with embeddings (which may
        load the model first) the work moves to a thread so the event loop keeps going."""
        if self._similarity is None:
            return self.decide(claim, evidence)
        return await asyncio.to_thread(self.decide, claim, evidence)

    def decide(self, claim: str, evidence: str) -> Verdict:
        """The verdict, computed synchronously (the work is CPU-only and quick)."""
        best = self.read(claim, evidence)
        if best is None:
            return Verdict("NOT_ENOUGH_INFO", "", True, "nothing to compare")
        return self.verdict(best, evidence)

    def verdict(self, best: Reading, evidence: str) -> Verdict:
        """The label ``best`` earns: the fitted model's, or the hand-set thresholds' where
        the model has no part for it (a visible disagreement with no REFUTES model)."""
        if self.model is None or (visibly_refuting(best) and self.model.refutes is None):
            return self._label(best, evidence)
        return fitted_verdict(best, evidence, self.model)

    def read(self, claim: str, evidence: str) -> Reading | None:
        """The passage of ``evidence`` the verdict rests on, measured against ``claim``
        (``None`` when either side has nothing to compare)."""
        stems = stems_of(claim)
        sentences = [s for s in split_sentences(evidence) if not looks_like_instruction(s.text)]
        if not stems or not sentences:
            return None
        return self._best_reading(claim, stems, evidence, sentences)

    def _best_reading(
        self, claim: str, stems: set[str], evidence: str, sentences: list[Sentence]
    ) -> Reading:
        """The best single sentence, or adjacent pair when it covers clearly more.

        Coverage is cheap and ranks every sentence; only a shortlist gets the full reading
        (numbers, polarity) and embeddings — a long page stays fast.
        """
        found = [stems_of(s.text) for s in sentences]
        cover = [_coverage(stems, f)[0] for f in found]
        shortlist = sorted(range(len(sentences)), key=lambda i: (-cover[i], i))[:SHORTLIST]
        singles = [
            _read(claim, stems, evidence, sentences[i].start, sentences[i].end) for i in shortlist
        ]
        if self._similarity is not None:
            scores = self._similarity.similarity(claim, [sentences[i].text for i in shortlist])
            singles = [_with_similarity(r, x) for r, x in zip(singles, scores, strict=True)]
        best = max(singles, key=lambda r: r.rank)
        pairs = [(_coverage(stems, found[i] | found[i + 1])[0], i) for i in range(len(found) - 1)]
        pair_cover, i = max(pairs, key=lambda p: (p[0], -p[1]), default=(0.0, 0))
        if pair_cover >= best.coverage + self.thresholds.pair_gain:
            best = _read(claim, stems, evidence, sentences[i].start, sentences[i + 1].end)
            if self._similarity is not None and self.model is not None:
                # the fitted model weighs the cosine of the passage it reads; the hand-set
                # thresholds read a pair lexically, as they were tuned
                score = self._similarity.similarity(claim, [evidence[best.start : best.end]])
                best = _with_similarity(best, score[0])
        return best

    def _label(self, best: Reading, evidence: str) -> Verdict:
        t = self.thresholds
        notes = [f"coverage {best.coverage:.2f}"]
        if best.similarity:
            notes.append(f"similarity {best.similarity:.2f}")
        blockers = [
            note
            for flag, note in (
                (best.question, "the passage asks rather than states"),
                (best.mixed, "negations and antonyms cancel out"),
                (best.numbers.missing, "a claim number is missing"),
            )
            if flag
        ]
        refuting = visibly_refuting(best)
        close = _closeness(best, t)
        label: Label = "NOT_ENOUGH_INFO"
        if refuting and best.coverage >= t.refutes:
            label, close = "REFUTES", abs(best.coverage - t.refutes)
            notes.append(
                "opposite polarity"
                if best.flipped
                else "a different number"
                if best.numbers.conflict
                else "another value for the same attribute"
            )
        elif not refuting and not blockers and close >= 0:
            label = "SUPPORTS"
            notes += ["numbers agree"] if best.numbers.agree else []
        else:
            notes += blockers if close >= 0 else []
            close = best.coverage - t.refutes if refuting else close
        confident = abs(close) >= t.margin
        quote = "" if label == "NOT_ENOUGH_INFO" else evidence[best.start : best.end]
        return Verdict(label, quote, confident, "; ".join(notes))


def _closeness(reading: Reading, t: Thresholds) -> float:
    """How far past (positive) or short of (negative) the support thresholds a reading is:
    lexical coverage, or embedding similarity when the judge has it."""
    bar = t.supports_with_numbers if reading.numbers.agree else t.supports
    lexical = reading.coverage - bar
    if not reading.similarity:
        return lexical
    return max(lexical, reading.similarity - t.similar)


def features(reading: Reading) -> list[float]:
    """A reading's values for the fitted model (``fitted.FEATURES``, in order); the product
    and ``benchmarks/fit_judge.py`` share this one function."""
    flags = (
        reading.numbers.agree,
        reading.numbers.missing,
        reading.mixed,
        reading.flipped,
        reading.numbers.conflict,
        reading.slot_conflict,
    )
    return [reading.coverage, reading.similarity, reading.density, *map(float, flags)]


def visibly_refuting(reading: Reading) -> bool:
    """A disagreement code can see (``claims.disagreement``), in a passage that states."""
    disagrees = reading.flipped or reading.numbers.conflict or reading.slot_conflict
    return disagrees and not reading.question


def fitted_verdict(best: Reading, evidence: str, model: JudgeModel) -> Verdict:
    """SUPPORTS or REFUTES when the fitted score clears its bar (less ``margin``, marked not
    confident); a REFUTES only on a visible disagreement, a SUPPORTS never beside one, nor
    on a question, cancelling polarity or a missing claim number."""
    values = features(best)
    notes = [f"coverage {best.coverage:.2f}", f"similarity {best.similarity:.2f}"]
    refuting = visibly_refuting(best)
    blocked = best.question or best.mixed or best.numbers.missing
    part = model.refutes if refuting else model.supports
    if part is None:
        raise ValueError("the model has no REFUTES part: the hand-set rule decides")
    score = part.score(values)
    notes.append(f"{'refutes' if refuting else 'supports'} score {score:.2f}")
    label: Label = "NOT_ENOUGH_INFO"
    if score >= part.threshold - model.margin and not (blocked and not refuting):
        label = "REFUTES" if refuting else "SUPPORTS"
        confident = score >= part.threshold
    else:
        confident = score < part.threshold - 2 * model.margin
    quote = "" if label == "NOT_ENOUGH_INFO" else evidence[best.start : best.end]
    return Verdict(label, quote, confident, "; ".join(notes))


def _read(claim: str, stems: set[str], evidence: str, start: int, end: int) -> Reading:
    text = evidence[start:end]
    found = stems_of(text)
    coverage, density = _coverage(stems, found)
    signs = polarity(claim, stems, text, found)
    question = is_question(text)
    numbers = compare_numbers(claim, text)
    return Reading(
        start, end, coverage, density, signs.flipped, signs.mixed, question, numbers,
        slot_conflict(claim, text),
    )  # fmt: skip


def _coverage(stems: set[str], found: set[str]) -> tuple[float, float]:
    """The share of the claim's stems the passage has (an antonym counts: it is the same
    slot, filled the other way), and the share of the passage's stems that are the claim's."""
    flips = antonym_flips(stems, found)
    matched = len(flips) + sum(1.0 if s in found else partial(s, found) for s in stems - flips)
    return matched / len(stems), matched / max(len(found), 1)


def _with_similarity(reading: Reading, similarity: float) -> Reading:
    return dataclasses.replace(reading, similarity=similarity)
