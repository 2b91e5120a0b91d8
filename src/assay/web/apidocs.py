"""docs/api.md from the app's OpenAPI schema (``python -m assay.docsgen docs/api.md``).

A test compares the checked-in page with ``api_markdown()``, so the reference cannot
drift from the routes.
"""

from __future__ import annotations

from typing import Any

from assay.config import load_settings

_HEADER = """# REST API

`assay serve` answers under `/api/v1` (the web UI is at `/`; the live schema at
`/openapi.json`, browsable at `/docs`). With a token every request needs
`Authorization: Bearer <token>` (or the `assay_token` cookie the UI sets). Errors are
`{"detail": ..., "kind": ...}` with 400 (bad input), 404 (no such run or file), 409 (not
possible in this state), 413 (a body over 1 MiB), 422 (a request that does not match the
schema) or 429 (the server's limit of concurrent runs is reached).

A run's `model`, `search`, `base_url` and `searxng_url` may only name what the server
was started with or offers (`--allow-model`, `--allow-search`, `--allow-base-url`,
`--allow-searxng-url`); anything else is a 400. To use another model endpoint, send your
own `api_key` with `model` and `base_url`: the run then uses that key and never the
server's (see docs/security.md). This page is generated from the OpenAPI schema by
`python -m assay.docsgen docs/api.md`; do not edit it by hand.
"""


def _type(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    if "anyOf" in schema:
        return " \\| ".join(_type(s) for s in schema["anyOf"])
    if "enum" in schema:
        return " \\| ".join(f"`{v}`" for v in schema["enum"])
    if schema.get("type") == "array":
        return f"list[{_type(schema.get('items', {}))}]"
    return str(schema.get("type", "any"))


def _operation(path: str, method: str, op: dict[str, Any]) -> list[str]:
    lines = [f"### `{method.upper()} {path}`", "", op.get("description") or op["summary"], ""]
    params = op.get("parameters", [])
    if params:
        lines += ["| parameter | in | type | required |", "|---|---|---|---|"]
        for p in params:
            required = "yes" if p.get("required") else "no"
            lines.append(f"| `{p['name']}` | {p['in']} | {_type(p['schema'])} | {required} |")
        lines.append("")
    body = op.get("requestBody", {}).get("content", {}).get("application/json")
    if body:
        lines += [f"Body: `{_type(body['schema'])}` (JSON).", ""]
    codes = ", ".join(f"{code}" for code in op.get("responses", {}))
    lines += [f"Answers: {codes}.", ""]
    return lines


def _model(name: str, schema: dict[str, Any]) -> list[str]:
    lines = [f"### `{name}`", ""]
    if schema.get("description"):
        lines += [schema["description"], ""]
    required = set(schema.get("required", []))
    lines += ["| field | type | required | default |", "|---|---|---|---|"]
    for field, spec in schema.get("properties", {}).items():
        default = f"`{spec['default']}`" if "default" in spec else ""
        mark = "yes" if field in required else "no"
        lines.append(f"| `{field}` | {_type(spec)} | {mark} | {default} |")
    return [*lines, ""]


def api_markdown() -> str:
    from assay.web.app import ServerConfig, create_app

    schema = create_app(ServerConfig(load_settings())).openapi()
    lines = [_HEADER, "## Operations", ""]
    for path, methods in schema["paths"].items():
        for method, op in methods.items():
            lines += _operation(path, method, op)
    lines += ["## Models", ""]
    for name, model in sorted(schema.get("components", {}).get("schemas", {}).items()):
        if name not in {"HTTPValidationError", "ValidationError"}:
            lines += _model(name, model)
    return "\n".join(lines).rstrip() + "\n"
