"""assay: a research engine whose every "verified" can be re-checked by code.

The public API is what ``__all__`` lists; everything else is internal. Names are imported
on first use (PEP 562), so ``import assay`` — and every CLI command — starts without
loading the protocols, the extractor or the model SDKs it does not need.

Plugins are typed against the contracts exported here: an ``assay.search`` entry point
loads a ``SearchProviderFactory`` (settings, ``http=``, ``keys=``) that builds a
``SearchProvider`` returning ``SearchResult``s; an ``assay.models`` entry point loads a
``ModelFactory`` (name, ``ModelOptions``) that builds a ``Model`` answering a
``ModelRequest`` with a ``ModelReply``, described by its ``ModelProfile``.
``ScriptedModel`` stands in for a model in tests. An ``assay.protocols`` entry point
loads a ``ProtocolSpec``: its ``ProtocolRequest`` model, and ``run`` (and ``resume``)
taking a ``RunEnv`` and giving a ``ProtocolResult``; ``run_protocol`` runs any of them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from assay.__about__ import __version__

if TYPE_CHECKING:
    from assay.config import FetchSettings, Settings, load_settings
    from assay.errors import (
        AssayError,
        BudgetExhausted,
        ConfigError,
        FetchError,
        IntegrityError,
        MissingKeyError,
        PolicyViolation,
        ProviderError,
        RunCancelled,
        RunError,
        UserError,
    )
    from assay.gather.search.base import SearchProvider, SearchProviderFactory, SearchResult
    from assay.keys import KeyStore
    from assay.models.base import Model
    from assay.models.base import Reply as ModelReply
    from assay.models.base import Request as ModelRequest
    from assay.models.profiles import ModelProfile
    from assay.models.registry import ModelFactory, ModelOptions
    from assay.models.testing import ScriptedModel
    from assay.protocols.contract import ProtocolRequest, ProtocolResult, ProtocolSpec, RunEnv
    from assay.protocols.deep import DeepResult, deep_research, deep_research_async
    from assay.protocols.registry import resume_protocol, run_protocol
    from assay.protocols.research import (
        ResearchResult,
        ask,
        ask_async,
        research,
        research_async,
        resume_async,
    )
    from assay.protocols.synth import SynthResult, synth, synth_async
    from assay.protocols.web_research import WebResearchResult, web_research, web_research_async
    from assay.store.claims import ClaimLedger, ClaimRecord, Evidence
    from assay.store.runs import Run, RunInfo, RunStore
    from assay.store.sources import SourceLedger, SourceRecord

_HOMES = {
    "assay.config": ("FetchSettings", "Settings", "load_settings"),
    "assay.errors": (
        "AssayError", "BudgetExhausted", "ConfigError", "FetchError", "IntegrityError",
        "MissingKeyError", "PolicyViolation", "ProviderError", "RunCancelled", "RunError",
        "UserError",
    ),
    "assay.gather.search.base": ("SearchProvider", "SearchProviderFactory", "SearchResult"),
    "assay.keys": ("KeyStore",),
    "assay.models.base": ("Model",),
    "assay.models.profiles": ("ModelProfile",),
    "assay.models.registry": ("ModelFactory", "ModelOptions"),
    "assay.models.testing": ("ScriptedModel",),
    "assay.protocols.contract": ("ProtocolRequest", "ProtocolResult", "ProtocolSpec", "RunEnv"),
    "assay.protocols.registry": ("resume_protocol", "run_protocol"),
    "assay.protocols.deep": ("DeepResult", "deep_research", "deep_research_async"),
    "assay.protocols.research": (
        "ResearchResult", "ask", "ask_async", "research", "research_async", "resume_async",
    ),
    "assay.protocols.synth": ("SynthResult", "synth", "synth_async"),
    "assay.protocols.web_research": ("WebResearchResult", "web_research", "web_research_async"),
    "assay.store.claims": ("ClaimLedger", "ClaimRecord", "Evidence"),
    "assay.store.runs": ("Run", "RunInfo", "RunStore"),
    "assay.store.sources": ("SourceLedger", "SourceRecord"),
}  # fmt: skip
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}
# Public names that differ from the name in their home module.
_RENAMED = {"ModelReply": ("assay.models.base", "Reply"),
            "ModelRequest": ("assay.models.base", "Request")}  # fmt: skip

__all__ = [
    "AssayError",
    "BudgetExhausted",
    "ClaimLedger",
    "ClaimRecord",
    "ConfigError",
    "DeepResult",
    "Evidence",
    "FetchError",
    "FetchSettings",
    "IntegrityError",
    "KeyStore",
    "MissingKeyError",
    "Model",
    "ModelFactory",
    "ModelOptions",
    "ModelProfile",
    "ModelReply",
    "ModelRequest",
    "PolicyViolation",
    "ProtocolRequest",
    "ProtocolResult",
    "ProtocolSpec",
    "ProviderError",
    "ResearchResult",
    "Run",
    "RunCancelled",
    "RunEnv",
    "RunError",
    "RunInfo",
    "RunStore",
    "ScriptedModel",
    "SearchProvider",
    "SearchProviderFactory",
    "SearchResult",
    "Settings",
    "SourceLedger",
    "SourceRecord",
    "SynthResult",
    "UserError",
    "WebResearchResult",
    "__version__",
    "ask",
    "ask_async",
    "deep_research",
    "deep_research_async",
    "load_settings",
    "research",
    "research_async",
    "resume_async",
    "resume_protocol",
    "run_protocol",
    "synth",
    "synth_async",
    "web_research",
    "web_research_async",
]


def __getattr__(name: str) -> Any:
    module, home_name = _RENAMED.get(name) or (_HOME_OF.get(name), name)
    if module is None:
        raise AttributeError(f"module 'assay' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), home_name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
