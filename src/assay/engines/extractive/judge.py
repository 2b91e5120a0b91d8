"""The extractive judge: SUPPORTS / REFUTES / NOT_ENOUGH_INFO without a model.

With embeddings (the default), SUPPORTS is read by meaning: every sentence of the source
on the shortlist (the ones covering most of the claim's content words) is scored by the
fitted model in ``fitted.py`` (a multinomial logistic over the MiniLM pair head and the
reading's scalar signals, ``data/judge.json``), and the most probable SUPPORTS stands
when it clears the fitted bar. Code vetoes it still: a question, cancelling polarity, a
missing claim number or a visible disagreement blocks a sentence, and so does a quote
holding too few of the claim's words (``claims.vetoes``); the engine's rules then check
the quote's subject, names and numbers. The judge reads each source once, whole
(``whole_source``), so the shortlist spans the page.

REFUTES stands only on a disagreement code can see (its polarity, numbers, or another
value for the same slot) in the best-covering passage, at the hand-set coverage
``Thresholds.refutes``. Without embeddings the judge is lexical and the hand-set
``Thresholds`` decide SUPPORTS too (coverage of the claim's content words and numbers).
``ASSAY_JUDGE_DECISION=hand-set`` chooses that with embeddings as well.

The quote is always a slice of the evidence (``evidence[start:end]``), so it is verbatim by
construction; sentences that address an AI agent are never read (page text is data).
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

from assay.claims.agreement import NumberAgreement, antonym_flips, compare_numbers
from assay.claims.disagreement import partial, polarity, slot_conflict, stems_of
from assay.claims.judge import Label, Verdict
from assay.claims.mechanical import missing_names
from assay.claims.relevance import coverage
from assay.claims.vetoes import MIN_QUOTE_RELEVANCE
from assay.engines.extractive.fitted import JudgeModel, fitted_judge_model
from assay.errors import ConfigError
from assay.reading.embed import default_embedder
from assay.text import (
    Sentence,
    is_question,
    looks_like_instruction,
    split_sentences,
)

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

DECISION_VARIABLE = "ASSAY_JUDGE_DECISION"
DECISIONS = ("fitted", "hand-set")


def decision_setting() -> str:
    """Which decision the judge uses by default: ``fitted`` (the model in ``fitted.py``)
    unless ``ASSAY_JUDGE_DECISION`` says ``hand-set``."""
    value = os.environ.get(DECISION_VARIABLE, "fitted").strip() or "fitted"
    if value not in DECISIONS:
        raise ConfigError(
            f"{DECISION_VARIABLE} must be one of {', '.join(DECISIONS)}, not {value!r}"
        )
    return value


SHORTLIST = 24
"""How many best-covering sentences get a full reading (numbers, polarity, embeddings)."""


@dataclass(frozen=True)
class Thresholds:
    """Coverage (share of the claim's content words found) the hand-set labels need.

    Tuned on hand-made pairs and the first 300 claims of climate-fever-dev (see
    ``benchmarks/judge_climate_fever_pairs.py``); ``margin`` is how close to a threshold a
    decision may fall before it is marked not confident. With the fitted decision only
    ``refutes`` (and ``margin`` for it) and ``pair_gain`` remain in use.
    """

    supports: float = 0.8
    supports_with_numbers: float = 0.6
    """The coverage that suffices when every number of the claim stands in the passage too:
    agreeing slots carry much of the claim, so fewer of its words need repeating."""
    refutes: float = 0.6
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

    @property
    def blocked(self) -> bool:
        """Whether code sees a reason this passage cannot support the claim."""
        return self.question or self.mixed or self.numbers.missing or visibly_refuting(self)


class Similarity(Protocol):
    """Scores how close in meaning each of ``others`` is to ``text`` (cosine, -1 … 1)."""

    def similarity(self, text: str, others: Sequence[str]) -> list[float]: ...


@runtime_checkable
class Vectors(Protocol):
    """An embedder: unit vectors for texts (``reading.embed.Embedder``), and their cosines."""

    def similarity(self, text: str, others: Sequence[str]) -> list[float]: ...

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]: ...


class ExtractiveJudge:
    """Labels a claim against evidence by meaning (the fitted model) and what code sees.

    ``similarity`` scores sentences by meaning: ``"default"`` is the process's embedder
    (its files are checked here, so a broken install fails before a run starts, not in
    the middle of one), ``None`` keeps the judge purely lexical.

    ``model`` decides SUPPORTS: ``"fitted"`` is the model in ``data/judge.json``
    (``fitted.py``), which needs vectors (an embedder), ``None`` or ``"hand-set"`` the
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
        if model == "hand-set" or not isinstance(similarity, Vectors):
            model = None
        self.model: JudgeModel | None = fitted_judge_model() if model == "fitted" else model

    @property
    def whole_source(self) -> bool:
        """The fitted decision reads each source once, whole: its shortlist spans the page
        (``claims.judge.WholeSourceJudge``)."""
        return self.model is not None

    async def judge(self, claim: str, evidence: str) -> Verdict:
        """Lexical judging takes milliseconds and runs inline; with embeddings (which may
        load the model first) the work moves to a thread so the event loop keeps going."""
        if self._similarity is None:
            return self.decide(claim, evidence)
        return await asyncio.to_thread(self.decide, claim, evidence)

    def decide(self, claim: str, evidence: str) -> Verdict:
        """The verdict, computed synchronously (the work is CPU-only and quick)."""
        stems = stems_of(claim)
        sentences = [s for s in split_sentences(evidence) if not looks_like_instruction(s.text)]
        if not stems or not sentences:
            return Verdict("NOT_ENOUGH_INFO", "", True, "nothing to compare")
        best = self._best_reading(claim, stems, evidence, sentences)
        if self.model is None or (
            visibly_refuting(best) and best.coverage >= self.thresholds.refutes
        ):
            return self._label(best, evidence)
        return self._fitted(claim, stems, evidence, sentences, self.model)

    def read(self, claim: str, evidence: str) -> Reading | None:
        """The passage of ``evidence`` that best covers ``claim`` (``None`` when either
        side has nothing to compare)."""
        stems = stems_of(claim)
        sentences = [s for s in split_sentences(evidence) if not looks_like_instruction(s.text)]
        if not stems or not sentences:
            return None
        return self._best_reading(claim, stems, evidence, sentences)

    def _singles(
        self, claim: str, stems: set[str], evidence: str, sentences: list[Sentence]
    ) -> list[Reading]:
        """The shortlist's readings: coverage is cheap and ranks every sentence; only the
        ``SHORTLIST`` best get the full reading (numbers, polarity, embeddings), so a long
        page stays fast."""
        cover = [_coverage(stems, stems_of(s.text))[0] for s in sentences]
        shortlist = sorted(range(len(sentences)), key=lambda i: (-cover[i], i))[:SHORTLIST]
        singles = [
            _read(claim, stems, evidence, sentences[i].start, sentences[i].end) for i in shortlist
        ]
        if self._similarity is not None:
            scores = self._similarity.similarity(claim, [sentences[i].text for i in shortlist])
            singles = [_with_similarity(r, x) for r, x in zip(singles, scores, strict=True)]
        return singles

    def _best_reading(
        self, claim: str, stems: set[str], evidence: str, sentences: list[Sentence]
    ) -> Reading:
        """The best single sentence, or adjacent pair when it covers clearly more."""
        best = max(self._singles(claim, stems, evidence, sentences), key=lambda r: r.rank)
        found = [stems_of(s.text) for s in sentences]
        pairs = [(_coverage(stems, found[i] | found[i + 1])[0], i) for i in range(len(found) - 1)]
        pair_cover, i = max(pairs, key=lambda p: (p[0], -p[1]), default=(0.0, 0))
        if pair_cover >= best.coverage + self.thresholds.pair_gain:
            best = _read(claim, stems, evidence, sentences[i].start, sentences[i + 1].end)
        return best

    def _fitted(
        self,
        claim: str,
        stems: set[str],
        evidence: str,
        sentences: list[Sentence],
        model: JudgeModel,
    ) -> Verdict:
        """SUPPORTS from the shortlisted sentence the model finds most likely to entail the
        claim, when it clears the fitted bar; only sentences code does not block, that are
        no heading (a section's name, "Run files: what verify proves", states nothing), and
        that hold enough of the claim's words to pass ``claims.vetoes``' off-topic rule."""
        import numpy as np

        assert isinstance(self._similarity, Vectors)
        headings = {s.start for s in sentences if s.kind == "heading"}  # names, never states
        readings = [
            r
            for r in self._singles(claim, stems, evidence, sentences)
            if not r.blocked
            and r.start not in headings
            and coverage(claim, evidence[r.start : r.end]) >= MIN_QUOTE_RELEVANCE
        ]
        if not readings:
            return Verdict("NOT_ENOUGH_INFO", "", True, "no sentence code lets support it")
        texts = [evidence[r.start : r.end] for r in readings]
        vectors = self._similarity.embed([claim, *texts])
        values = np.array([scalars(claim, r, t) for r, t in zip(readings, texts, strict=True)])
        supports = model.probabilities(values, vectors[0], vectors[1:])[:, 0]
        top = int(np.argmax(supports))
        best, score = readings[top], float(supports[top])
        notes = f"coverage {best.coverage:.2f}; similarity {best.similarity:.2f}"
        notes += f"; supports {score:.2f} (bar {model.supports_bar:.2f})"
        if score < model.supports_bar:
            return Verdict("NOT_ENOUGH_INFO", "", True, notes)
        return Verdict("SUPPORTS", texts[top], True, notes)

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
        bar = t.supports_with_numbers if best.numbers.agree else t.supports
        close = best.coverage - bar
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


def scalars(claim: str, reading: Reading, text: str) -> list[float]:
    """A reading's scalar inputs to the fitted model (``fitted.SCALARS``, in order); the
    product and ``benchmarks/fit_judge.py`` share this one function."""
    flags = (
        reading.numbers.agree,
        reading.numbers.missing,
        reading.mixed,
        reading.flipped,
        reading.numbers.conflict,
        reading.slot_conflict,
        reading.question,
        bool(missing_names(claim, text)),
    )
    return [reading.coverage, reading.similarity, reading.density, *map(float, flags)]


def visibly_refuting(reading: Reading) -> bool:
    """A disagreement code can see (``claims.disagreement``), in a passage that states."""
    disagrees = reading.flipped or reading.numbers.conflict or reading.slot_conflict
    return disagrees and not reading.question


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
