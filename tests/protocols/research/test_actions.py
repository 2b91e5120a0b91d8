"""protocols/research/actions.py: what a model writes in a decision always ends."""

from __future__ import annotations

from typing import Any

import pytest

from assay.protocols.research.actions import RequestFullResearch, WebSearch, WritePlan
from assay.protocols.research.policy import DECISION_TOKENS, _decision_type


def most_characters(schema: dict[str, Any], defs: dict[str, Any]) -> int:
    """The longest text a reply decoded by ``schema`` can hold, failing on a text or list
    the schema leaves unbounded."""
    if "$ref" in schema:
        return most_characters(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    if "oneOf" in schema:
        return max(most_characters(s, defs) for s in schema["oneOf"])
    kind = schema.get("type")
    if kind == "string":
        if "const" in schema or "enum" in schema:
            return max(len(str(v)) for v in schema.get("enum", [schema.get("const")]))
        assert "maxLength" in schema, f"an unbounded text: {schema}"
        return int(schema["maxLength"])
    if kind == "array":
        assert "maxItems" in schema, f"an unbounded list: {schema}"
        return int(schema["maxItems"]) * most_characters(schema["items"], defs)
    if kind == "object":
        return sum(most_characters(s, defs) for s in schema["properties"].values())
    return 0


@pytest.mark.parametrize("slot", [(WritePlan,), (WebSearch,), (WebSearch, RequestFullResearch)])
def test_every_text_a_model_writes_in_a_decision_is_bounded_within_its_tokens(
    slot: tuple[type[Any], ...],
) -> None:
    schema = _decision_type(slot).model_json_schema()
    # three characters a token at the least, for English words and JSON punctuation alike
    assert most_characters(schema, schema.get("$defs", {})) <= 3 * DECISION_TOKENS


def test_code_may_still_search_with_a_long_condensed_question() -> None:
    long = "Which of the two estuary towns that the Tarn ferry served " * 5
    assert WebSearch(queries=[long, "Osricby ferry", "Vell estuary"]).queries[0] == long
