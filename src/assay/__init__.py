"""assay: a research engine whose every "verified" can be re-checked by code.

The public API is what ``__all__`` lists; everything else is internal.
"""

from assay.__about__ import __version__
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
from assay.keys import KeyStore
from assay.protocols.deep import DeepResult, deep_research, deep_research_async
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
    "PolicyViolation",
    "ProviderError",
    "ResearchResult",
    "Run",
    "RunCancelled",
    "RunError",
    "RunInfo",
    "RunStore",
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
    "synth",
    "synth_async",
    "web_research",
    "web_research_async",
]
