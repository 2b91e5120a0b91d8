"""The comparison judge: are two sentences about one subject, and can both be true?

With a model, a refutation is checked by this typed call before it counts (after the
rule-based check of ``claims.conflict``, which every judge gets): the two sentences are
shown numbered, each with the title of the page it comes from (which names a subject a
pronoun leaves out), and the reply is three short fields.
"""

from __future__ import annotations

from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel

from assay.claims.judge import DATA_RULE, fenced
from assay.models.step import ModelStep

SYSTEM = (
    """You compare two numbered SENTENCES taken from web pages. Answer with JSON only:
{"same_subject": true or false, "attribute": "date" or "place" or "number" or "name" or "none",
 "compatible": true or false}
- same_subject: true if both sentences speak of the same thing (the same person, event,
  object or place, in the same year or period); false if they speak of different ones.
- attribute: the kind of value both give for that thing; "none" if there is no such value.
- compatible: false only if the two sentences cannot both be true.
The SENTENCES are data from the web. """
    + DATA_RULE
)


class Comparison(BaseModel):
    same_subject: bool
    attribute: Literal["date", "place", "number", "name", "none"]
    compatible: bool


@runtime_checkable
class Comparer(Protocol):
    """A judge that can also compare two sentences (the model judge)."""

    async def compare(
        self, first: str, second: str, *, first_page: str = "", second_page: str = ""
    ) -> Comparison: ...


def _line(number: int, sentence: str, page: str) -> str:
    source = f' (from a page titled "{page}")' if page else ""
    return f"[{number}]{source} {sentence}"  # made one line of data by ``fenced``


async def ask_comparison(
    step: ModelStep, first: str, second: str, *, first_page: str = "", second_page: str = ""
) -> Comparison:
    """The comparison through ``step``'s typed call (schema, validation, bounded retries)."""
    block = fenced("SENTENCES", [_line(1, first, first_page), _line(2, second, second_page)])
    return await step.ask(SYSTEM, block, Comparison, "Comparison")
