"""The ``structured`` output: web-research.txt's JSON shape, checked against its schema.

The schema ships in the package (``schema/web_research.schema.json``, read with
``importlib.resources``) and every structured output is validated with ``jsonschema``
before it is returned or written; an output that does not match is an ``IntegrityError``.
Theme summaries keep a ``[URL]`` next to each claim (the JSON carries no claim markers:
report.md, written beside report.json, carries them for ``assay verify``). ``warnings``,
beside the spec's keys, carries the same warnings the markdown outputs list (a caller
that reads only the JSON must still learn that a source was skipped or the minimum not
met); the report is rendered first, so the warnings its checks found are among them.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from assay.errors import ConfigError, IntegrityError
from assay.protocols.web_research.render import warning_texts
from assay.protocols.web_research.synthesis import CLAIM_REF, Synthesis

SCHEMA_FILE = "web_research.schema.json"


@cache
def load_schema() -> dict[str, Any]:
    """The JSON Schema of the structured output, from the installed package."""
    text = resources.files(__package__).joinpath("schema", SCHEMA_FILE).read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def validate_structured(value: dict[str, Any]) -> None:
    """Raise ``IntegrityError`` unless ``value`` matches the shipped schema."""
    try:
        import jsonschema  # type: ignore[import-untyped, unused-ignore]
    except ImportError as exc:  # pragma: no cover - a dependency of assay
        raise ConfigError(
            "the structured output is validated with the jsonschema package: "
            "pip install 'jsonschema>=4.18'"
        ) from exc
    validator = jsonschema.Draft202012Validator(load_schema())
    errors = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "(root)"
        raise IntegrityError(
            f"the structured output does not match {SCHEMA_FILE} at {where}: {first.message}"
        )


def _plain(s: Synthesis, claim_id: str) -> str:
    text = " ".join(s.claims[claim_id].text.split()).rstrip(" .")
    return f"{text} " + " ".join(f"[{u}]" for u in s.urls_of(claim_id)) + "."


def _with_urls(s: Synthesis, summary: str) -> str:
    def expand(match: Any) -> str:
        ids = [i.strip() for i in match.group(1).split(",") if i.strip() in s.claims]
        urls = dict.fromkeys(u for i in ids for u in s.urls_of(i))
        return " ".join(f"[{u}]" for u in urls)

    return " ".join(CLAIM_REF.sub(expand, summary).split())


def render_structured(s: Synthesis) -> dict[str, Any]:
    sources = [
        {
            "url": f.url,
            "title": " ".join(f.title.split()),
            "key_points": [
                " ".join(s.claims[c].text.split()) for c in f.claim_ids if c in s.claims
            ][:5],
            "accessed_at": f.record.accessed_at,
        }
        for f in s.findings
        if any(c in s.claims for c in f.claim_ids)  # a source with no relevant key point
    ]
    themes = []
    for theme in s.themes:
        urls = list(dict.fromkeys(u for c in theme.claim_ids for u in s.urls_of(c)))
        if not urls:
            continue
        summary = (
            _with_urls(s, theme.summary)
            if theme.summary
            else " ".join(_plain(s, c) for c in theme.claim_ids)
        )
        themes.append({"name": theme.name, "supporting_sources": urls, "summary": summary})
    contradictions = [
        {
            "claims": [" ".join(s.claims[c].text.split()) for c in conflict.claim_ids],
            "sources": list(dict.fromkeys(u for c in conflict.claim_ids for u in s.urls_of(c))),
            "detail": conflict.detail,
        }
        for conflict in s.conflicts
    ]
    value: dict[str, Any] = {
        "topic": s.topic,
        "sources": sources,
        "themes": themes,
        "contradictions": contradictions,
        "confidence": s.confidence,
        "warnings": warning_texts(s),
    }
    validate_structured(value)
    return value
