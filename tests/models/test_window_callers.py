"""The steps whose prompts carry evidence fit it to the model's context window: the
lowest-ranked items are left out, the instructions never, and what the model cites is
mapped back to the items it was shown."""

from __future__ import annotations

import asyncio

from assay.claims.model_extract import ModelExtractor
from assay.models import ModelProfile
from assay.models.base import Request
from assay.models.testing import ScriptedModel
from assay.models.window import request_tokens
from assay.report.prose import Statement, write_prose

WINDOW = 1_000
REPLY = 500  # the steps' own max_tokens


def _fits(model: ScriptedModel, request: Request) -> bool:
    needed = asyncio.run(request_tokens(model, request.system, request.messages, request.output))
    return needed <= WINDOW - REPLY


def _sentences() -> str:
    lines = [
        f"The Halvorsen Lighthouse, built in {1850 + n}, was described by visitor {n} as tall, "
        "white and bright, with a lamp seen from the harbour, the cliffs, the old road and "
        f"the fishing villages along the northern coast, about {30 + n} kilometres away."
        for n in range(7)
    ]
    best = "The Halvorsen Lighthouse is 62 metres tall."
    return " ".join([*lines[:3], best, *lines[3:]])


def test_claim_extraction_drops_the_lowest_scored_sentences_to_fit() -> None:
    def cite_the_height(request: Request) -> dict[str, object]:
        line = next(line for line in request.prompt.splitlines() if "62 metres" in line)
        number = int(line[1 : line.index("]")])
        return {"claims": [{"claim": "The lighthouse is 62 metres tall.", "sentence": number}]}

    model = ScriptedModel(
        cite_the_height,
        profile=ModelProfile(output_mode="json_schema", context_window=WINDOW, max_tokens=REPLY),
    )
    extractor = ModelExtractor(model)
    drafts = asyncio.run(extractor.extract("How tall is the Halvorsen Lighthouse?", _sentences()))
    request = model.requests[0]
    assert _fits(model, request)
    assert "62 metres" in request.prompt  # the best sentence stays
    shown = [line for line in request.prompt.splitlines() if line.startswith("[")]
    assert 1 <= len(shown) < 8  # some, not all, of the page's 8 sentences
    assert request.prompt.startswith("SENTENCES:") and "QUESTION: How tall" in request.prompt
    assert [d.quote for d in drafts] == ["The Halvorsen Lighthouse is 62 metres tall."]


def test_prose_drops_the_last_statements_to_fit() -> None:
    filler = " ".join(f"detail{n}" for n in range(80))
    statements = [Statement(f"Statement {n}: {filler}.", (f"Statement {n}",)) for n in range(10)]
    model = ScriptedModel(
        [{"sentences": [{"text": "Statement 0 holds.", "statements": [1]}]}],
        profile=ModelProfile(output_mode="json_schema", context_window=WINDOW + 300),
    )
    asyncio.run(write_prose("What holds?", statements, model=model))
    request = model.requests[0]
    needed = asyncio.run(request_tokens(model, request.system, request.messages, request.output))
    assert needed <= WINDOW + 300 - 700  # prose replies get 700 tokens
    assert "Statement 0:" in request.prompt and "Statement 9:" not in request.prompt
