"""What the start form offers: each protocol with its own fields, the search providers and
models a run on this server can really use, and presets.

The form offers only what cannot make a doomed run: a search provider the server does
not offer, or one that still needs its key or URL, is listed but disabled with the reason,
and so is synth while fewer than two providers are set up (its pre-flight would halt on
[MISMATCH]). The server still checks every request (``protocols.served``): a form is no
boundary, and its 400 names what is known.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from assay.config import Settings
from assay.keys import KeyStore
from assay.protocols.launch import PROTOCOLS
from assay.protocols.served import ServedChoices, normalise_model
from assay.store.runs import RunInfo


@dataclass(frozen=True)
class Choice:
    """One option of a select: usable, or disabled with the reason."""

    value: str
    label: str
    why_not: str | None = None

    @property
    def ready(self) -> bool:
        return self.why_not is None


@dataclass(frozen=True)
class ProtocolInfo:
    name: str
    title: str
    summary: str
    fields: tuple[str, ...]
    why_not: str | None = None

    @property
    def ready(self) -> bool:
        return self.why_not is None


@dataclass(frozen=True)
class Preset:
    key: str
    title: str
    values: dict[str, Any] = field(default_factory=dict)


_BUDGETS = ("budget_time", "budget_tokens")
PROTOCOL_TEXT: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "research": ("Research", "Plans, searches, reads several sources, checks every claim "
                 "against its quote and writes a report.", ("sources", *_BUDGETS)),
    "ask": ("Quick answer", "A short answer from the first pages that settle it; goes on "
            "to full research when they do not.", _BUDGETS),
    "web-research": ("Read the web", "Reads the pages you name and what your keywords "
                     "find, then summarises what they say.", ("urls", "keywords", "depth",
                                                               *_BUDGETS)),
    "deep": ("Deep research", "Splits the question into directions, researches each, "
             "scores and retries the weak ones, then writes one synthesis.",
             ("max_directions", *_BUDGETS)),
    "synth": ("Panel cross-check", "Several searchers answer on their own, then check each "
              "other's statements; the verdicts are shown as a matrix.", _BUDGETS),
}  # fmt: skip
PRESETS = (
    Preset("quick", "Quick answer", {"protocol": "ask"}),
    Preset("standard", "Standard research", {"protocol": "research", "sources": 5}),
    Preset("thorough", "Thorough research",
           {"protocol": "research", "sources": 12, "budget_time": 15}),
    Preset("deep", "Deep dive", {"protocol": "deep", "max_directions": 3}),
    Preset("panel", "Panel cross-check", {"protocol": "synth"}),
)  # fmt: skip
"""``budget_time`` here is in minutes, as the form asks for it."""


def search_choices(settings: Settings, offered: ServedChoices, keys: KeyStore) -> list[Choice]:
    """The server's own provider first (value ""), then every other registered one."""
    from assay.gather.search.probe import missing_setup
    from assay.gather.search.registry import search_provider_names

    own = settings.search.strip().lower()
    choices = [Choice("", f"{own} (default)", missing_setup(own, settings, keys))]
    for name in search_provider_names():
        if name == own:
            continue
        if name not in offered.searches:
            why: str | None = f"not offered by this server (assay serve --allow-search {name})"
        else:
            why = missing_setup(name, settings, keys)
        choices.append(Choice(name, name, why))
    return choices


def model_choices(settings: Settings, offered: ServedChoices, keys: KeyStore) -> list[Choice]:
    """The server's model (or the extractive engine) first (value ""), then the others it
    offers; a model whose provider needs a key the server does not have is disabled."""
    default = settings.model or "extractive engine"
    own = normalise_model(settings.model) if settings.model else None
    first = Choice("", f"{default} (default)", _key_needed(own, settings, keys))
    others = [
        Choice(m, m, _key_needed(m, settings, keys)) for m in sorted(offered.models) if m != own
    ]
    return [first, *others]


def _key_needed(model: str | None, settings: Settings, keys: KeyStore) -> str | None:
    if model is None:
        return None
    from assay.errors import ConfigError
    from assay.models import anthropic, openai

    provider = model.partition(":")[0]
    base_url = settings.base_url if model == settings.model else None
    variable = {
        "anthropic": anthropic.KEY_VARIABLE,
        "openai": openai.KEY_VARIABLE if not base_url or openai.is_openai_service(base_url) else "",
    }.get(provider)
    if not variable:
        return None
    try:
        found = keys.get(variable)
    except ConfigError:
        found = None
    return None if found else f"needs {variable}"


def protocol_choices(settings: Settings, keys: KeyStore) -> list[ProtocolInfo]:
    from assay.gather.search.probe import configured_providers

    searchers = len(configured_providers(settings, keys))
    infos = []
    for name in PROTOCOLS:
        title, summary, fields = PROTOCOL_TEXT[name]
        why = None
        if name == "synth" and searchers < 2:
            why = (f"needs two set-up search providers for its searchers ({searchers} now): "
                   "add a key, a SearXNG URL or a local index")  # fmt: skip
        infos.append(ProtocolInfo(name, title, summary, fields, why))
    return infos


def prefill(info: RunInfo | None) -> dict[str, Any]:
    """A finished run's question and options, to run it again with other settings."""
    if info is None:
        return {}
    config = info.config
    extra = info.model_extra or {}
    values: dict[str, Any] = {"topic": info.topic, "protocol": info.protocol}
    for name in ("search", "model", "since", "until", "budget_tokens", "language"):
        if config.get(name):
            values[name] = config[name]
    if config.get("budget_time"):
        values["budget_time"] = round(float(config["budget_time"]) / 60, 1)
    for name in ("include_domains", "exclude_domains"):
        if config.get(name):
            values[name] = ", ".join(config[name])
    if isinstance(extra.get("sources"), int):
        values["sources"] = extra["sources"]
    if isinstance(extra.get("max_directions"), int):
        values["max_directions"] = extra["max_directions"]
    web = extra.get("web_research")
    if isinstance(web, dict):
        values["urls"] = "\n".join(web.get("urls") or [])
        values["keywords"] = ", ".join(web.get("keywords") or [])
        values["depth"] = web.get("depth") or "medium"
    return values
