"""The rules that set a judge's verdict aside, each with a name and a reason.

A judge (the extractive one or a model) says SUPPORTS or REFUTES of a passage; before the
verdict earns a claim anything, code checks it against what it can see. Each rule below
reads one verdict and returns why it must not stand, or ``None``; the first rule that
objects sets the verdict aside (``first_veto``). The veto is recorded in the claim's
checks (``set_aside``), in a ``claim.set_aside`` event and, when it leaves the claim for
review, in its status reason, so ``assay verify`` and a reader can tell which rule fired
and why.

A rule is ``unsure`` when its veto says the judge misread (the claim then needs review
unless other evidence decides it); a rule that is not says the passage is simply not
evidence (an instruction to an agent, another subject).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from assay.claims import conflict, subjects
from assay.claims.disagreement import disagreement
from assay.claims.judge import Verdict
from assay.claims.mechanical import key_facts_missing
from assay.claims.normalize import normalize_text
from assay.claims.relevance import coverage
from assay.text import looks_like_instruction

MIN_QUOTE_RELEVANCE = 0.34  # share of the claim's content words the quote must contain


@dataclass(frozen=True)
class Reading:
    """One verdict of the judge, and what the rules read beside it."""

    claim: str
    """The claim as judged (as its source stated it, ``stated_as``, when it was rewritten)."""
    claim_text: str
    """The claim as recorded: its key facts (years, names) are checked against the quote."""
    verdict: Verdict
    source_id: str
    title: str
    """The judged page's title: it names the subject a quote like "It was built in 1920" has."""
    subject: conflict.Reading
    """The claim's subject and slots (``conflict.read``)."""
    own_page: bool
    """Whether the claim was read from this page."""
    same_subject: Callable[[], Awaitable[bool]]
    """Whether a judge with a comparison step agrees the quote is about the claim's
    subject (asked only when a rule needs it: it may be a model call)."""
    claim_title: str = ""
    """The title of the page the claim was read from ("" when it was read from none)."""

    @cached_property
    def quoted(self) -> conflict.Reading:
        """The quote's subject and slots, read with its page's title (once: several rules
        ask)."""
        return conflict.read(self.verdict.quote, self.title)


@dataclass(frozen=True)
class Veto:
    """A verdict set aside: which rule, on which source, and why."""

    rule: str
    source_id: str
    label: str
    reason: str
    unsure: bool

    def to_json(self) -> dict[str, object]:
        return {
            "rule": self.rule,
            "source": self.source_id,
            "label": self.label,
            "reason": self.reason,
            "unsure": self.unsure,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Veto:
        return cls(
            str(data["rule"]),
            str(data["source"]),
            str(data["label"]),
            str(data["reason"]),
            bool(data["unsure"]),
        )

    def describe(self) -> str:
        return f"{self.rule} set aside {self.label} from {self.source_id}: {self.reason}"


@dataclass(frozen=True)
class Rule:
    """A named check of one verdict: ``check`` returns why it must not stand, or ``None``."""

    name: str
    unsure: bool
    check: Callable[[Reading], Awaitable[str | None]]


async def _instruction(r: Reading) -> str | None:
    # Page text that addresses an agent is never evidence, whatever a judge (or a model
    # that obeyed it) says.
    if looks_like_instruction(r.verdict.quote):
        return "the quote addresses an agent; page text is never an instruction"
    return None


async def _off_topic(r: Reading) -> str | None:
    # A quote about something else can neither support nor refute: a small model was seen
    # "refuting" claims with a page's menu items.
    share = coverage(r.claim, r.verdict.quote)
    if share < MIN_QUOTE_RELEVANCE:
        wanted = f"{MIN_QUOTE_RELEVANCE:.0%}"
        return f"the quote holds {share:.0%} of the claim's words (at least {wanted})"
    return None


async def _refuted_by_its_own_page(r: Reading) -> str | None:
    # The local model "refuted" a claim with the very sentence it came from: only another
    # origin can contradict a claim.
    if r.verdict.label == "REFUTES" and r.own_page:
        return "the claim was read from this page, which cannot refute it"
    return None


async def _refuted_by_its_own_words(r: Reading) -> str | None:
    said = normalize_text(r.claim).rstrip(".").casefold()
    if r.verdict.label == "REFUTES" and said in normalize_text(r.verdict.quote).casefold():
        return "the quote states the claim word for word"
    return None


async def _another_subject(r: Reading) -> str | None:
    # "484 people were killed" in an 1896 outbreak neither refutes nor corroborates "15
    # people died" in the 2012 one, nor does one village's page, written from the same
    # template, support what its neighbour's says, even on a page the claim cites; nor
    # does a page of a numbered series speak for its sibling (claims/subjects.py).
    if conflict.different_subjects(r.subject, r.quoted):
        return "the quote is about another subject"
    if subjects.of_a_sibling(r.subject, r.claim_title, r.quoted, r.verdict.quote, r.title):
        return f"the quote is about {r.title!r}, a sibling of {r.claim_title!r}"
    return None


async def _refutation_of_another(r: Reading) -> str | None:
    # A value contradicts the claim only when it is said of the claim's subject.
    if r.verdict.label == "REFUTES" and subjects.opens_with_another(r.subject, r.quoted):
        return f"the quote speaks of {' '.join(r.quoted.head)!r}, not of the claim's subject"
    return None


async def _refutation_not_visible(r: Reading) -> str | None:
    # The local model "refuted" claims with sentences that only shared their topic.
    if r.verdict.label == "REFUTES" and not disagreement(r.claim, r.verdict.quote):
        return "no negation, antonym, other number or other value for the same slot"
    return None


async def _refutation_not_compared(r: Reading) -> str | None:
    if r.verdict.label == "REFUTES" and not await r.same_subject():
        return "the judge's comparison step found the quote about another subject"
    return None


async def _support_missing_fact(r: Reading) -> str | None:
    # A page told a judge to say SUPPORTS of a sentence lacking the claim's year.
    if r.verdict.label == "SUPPORTS":
        missing = key_facts_missing(r.claim_text, r.verdict.quote, r.title)
        if missing:
            return f"the quote lacks the claim's {', '.join(missing)}"
    return None


async def _support_other_value(r: Reading) -> str | None:
    # "located in Paris" does not support "located in Berlin".
    if r.verdict.label == "SUPPORTS" and conflict.slot_conflicts(
        r.subject, conflict.read(r.verdict.quote, r.title)
    ):
        return "the quote gives another value for the claim's date, place, number or name"
    return None


async def _support_disagrees(r: Reading) -> str | None:
    # "not accelerating" does not support "accelerating".
    if r.verdict.label == "SUPPORTS" and disagreement(r.claim, r.verdict.quote):
        return "the quote disagrees with the claim (a negation, antonym or other number)"
    return None


RULES: tuple[Rule, ...] = (
    Rule("instruction_in_quote", False, _instruction),
    Rule("quote_off_topic", True, _off_topic),
    Rule("refuted_by_its_own_page", True, _refuted_by_its_own_page),
    Rule("refuted_by_its_own_words", True, _refuted_by_its_own_words),
    Rule("another_subject", False, _another_subject),
    Rule("refutation_of_another", False, _refutation_of_another),
    Rule("refutation_not_visible", True, _refutation_not_visible),
    Rule("refutation_not_compared", True, _refutation_not_compared),
    Rule("support_missing_fact", True, _support_missing_fact),
    Rule("support_other_value", True, _support_other_value),
    Rule("support_disagrees", True, _support_disagrees),
)
"""In order: the first that objects decides. The cheap, certain rules come first, the
model's comparison step late, so it is asked only when nothing else has objected."""


async def first_veto(reading: Reading, rules: Sequence[Rule] = RULES) -> Veto | None:
    """The veto of the first of ``rules`` that objects to the verdict, or ``None``."""
    for rule in rules:
        reason = await rule.check(reading)
        if reason is not None:
            label = reading.verdict.label
            return Veto(rule.name, reading.source_id, label, reason, rule.unsure)
    return None
