"""An output type as a typed call sees it: its wire schema, and how to validate a reply.

The output is a pydantic model, a discriminated union (given as a ``TypeAdapter`` so it
keeps its type), or any type pydantic can validate. A schema whose top level is not an
object (a union, a list) travels as ``{"result": ...}``, because constrained-output
endpoints such as OpenAI's want an object at the top; the reply is unwrapped again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError, WithJsonSchema

from assay.models.base import OutputSchema
from assay.models.parse import JSONNotFound, extract_json

T = TypeVar("T")

ENVELOPE_KEY = "result"
_MAX_ERRORS = 6
QUERY_CHARS = 80
"""The longest search query a model may write: a query is a few words."""


def written(chars: int, items: tuple[int, int] | None = None) -> WithJsonSchema:
    """The schema a model writes a field by: a text of at most ``chars`` characters, or a
    list of (fewest, most) such texts.

    Constrained decoding follows the schema, so every text in it ends: the local model once
    ran a search query on until a reply's 300 tokens were spent, three attempts in a row.
    Validation keeps the field's own bounds, which may be wider for values code makes (a
    long question condensed to 400 characters as a query)."""
    text = {"type": "string", "maxLength": chars}
    if items is None:
        return WithJsonSchema(text)
    return WithJsonSchema(
        {"type": "array", "items": text, "minItems": items[0], "maxItems": items[1]}
    )


def unbounded(schema: dict[str, Any]) -> list[str]:
    """The paths of the texts and lists in a JSON schema that set no upper bound (a model
    decoding by it may write on until its tokens run out)."""
    found: list[str] = []
    defs = schema.get("$defs", {})

    def walk(part: dict[str, Any], path: str) -> None:
        if "$ref" in part:
            walk(defs[part["$ref"].rsplit("/", 1)[-1]], path)
        for key in ("oneOf", "anyOf", "allOf"):
            for option in part.get(key, []):
                walk(option, path)
        kind = part.get("type")
        if kind == "string" and not {"maxLength", "enum", "const"} & part.keys():
            found.append(path)
        if kind == "array":
            if "maxItems" not in part:
                found.append(path)
            walk(part.get("items", {}), f"{path}[]")
        for name, child in part.get("properties", {}).items():
            walk(child, f"{path}.{name}")

    walk(schema, schema.get("title", ""))
    return found


class OutputInvalid(ValueError):
    """A reply that cannot be used; ``feedback`` is what goes back to the model."""

    def __init__(self, feedback: str) -> None:
        super().__init__(feedback)
        self.feedback = feedback


@dataclass(frozen=True)
class OutputType(Generic[T]):
    """The validator and the wire schema of one output type."""

    adapter: TypeAdapter[T]
    schema: OutputSchema

    @classmethod
    def of(cls, output: type[T] | TypeAdapter[T], name: str | None = None) -> OutputType[T]:
        adapter: TypeAdapter[T] = output if isinstance(output, TypeAdapter) else TypeAdapter(output)
        json_schema = adapter.json_schema()
        enveloped = json_schema.get("type") != "object"
        if enveloped:
            defs = json_schema.pop("$defs", None)
            json_schema = {
                "type": "object",
                "properties": {ENVELOPE_KEY: json_schema},
                "required": [ENVELOPE_KEY],
                "additionalProperties": False,
            }
            if defs:
                json_schema["$defs"] = defs
        title = name or _type_name(output, json_schema)
        description = json_schema.get("description")
        return cls(
            adapter,
            OutputSchema(
                name=title,
                json_schema=json_schema,
                description=description if isinstance(description, str) else None,
                enveloped=enveloped,
            ),
        )

    def parse(self, text: str) -> T:
        """The validated output in ``text``; raises ``OutputInvalid`` with feedback."""
        try:
            value = extract_json(text)
        except JSONNotFound as exc:
            raise OutputInvalid(f"{exc}.") from None
        if self.schema.enveloped and isinstance(value, dict) and set(value) == {ENVELOPE_KEY}:
            value = value[ENVELOPE_KEY]
        try:
            return self.adapter.validate_python(value)
        except ValidationError as exc:
            echoed = _schema_echo(value)
            if echoed is not None:
                try:
                    return self.adapter.validate_python(echoed)
                except ValidationError:
                    pass
            raise OutputInvalid(describe_errors(exc)) from None

    def instructions(self) -> str:
        """The schema as the system prompt describes it (prompted mode, or small models)."""
        schema = json.dumps(_without_titles(self.schema.json_schema), separators=(",", ":"))
        return (
            "Reply with one JSON object and nothing else (no prose, no code fence). "
            f"It must match this JSON schema:\n{schema}"
        )


def _schema_echo(value: Any) -> Any:
    """The values of a reply that copied the schema's shape (``{"properties": {...values},
    "required": [...], "type": "object"}``), as the local 1.5B model did 3 times out of 3
    when shown a full pydantic schema; None for any other reply."""
    if (
        isinstance(value, dict)
        and isinstance(value.get("properties"), dict)
        and {"type", "required"} & set(value)
    ):
        return value["properties"]
    return None


def describe_errors(exc: ValidationError) -> str:
    """A short, model-readable list of what failed validation."""
    lines = []
    for error in exc.errors(include_url=False)[:_MAX_ERRORS]:
        where = ".".join(str(part) for part in error["loc"]) or "(top level)"
        lines.append(f"- {where}: {error['msg']}")
    more = exc.error_count() - _MAX_ERRORS
    if more > 0:
        lines.append(f"- ... and {more} more")
    return "The JSON does not match the schema:\n" + "\n".join(lines)


def _without_titles(schema: Any) -> Any:
    """The schema without pydantic's ``title`` annotations (noise to a small model)."""
    if isinstance(schema, list):
        return [_without_titles(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in ("properties", "$defs") and isinstance(value, dict):
            out[key] = {name: _without_titles(sub) for name, sub in value.items()}
        else:
            out[key] = _without_titles(value)
    return out


def _type_name(output: object, json_schema: dict[str, Any]) -> str:
    if isinstance(output, type) and issubclass(output, BaseModel):
        return output.__name__
    title = json_schema.get("title")
    if isinstance(title, str) and title.isidentifier():
        return title
    name = getattr(output, "__name__", None)
    return name if isinstance(name, str) and name.isidentifier() else "output"
