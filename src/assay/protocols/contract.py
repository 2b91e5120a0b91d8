"""What a protocol is to every interface: a ``ProtocolSpec`` and the ``ProtocolResult`` it gives.

A spec names the protocol, the request model whose fields a request may set (pydantic:
what comes over the wire is checked there), and the ``run`` and, where the protocol can
continue an interrupted run from its files, ``resume`` callables. Each returns a
``ProtocolResult``: what every interface reads of a run (its id, status, report and
answer), with the protocol's own result object as ``detail`` (what ``--json`` prints).

Specs are registered under the ``assay.protocols`` entry-point group (``protocols.registry``);
the built-in ones are ``protocols.builtin``. A third-party protocol is one module holding a
spec and one entry point naming it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from assay.config import Settings
from assay.store.eventlog import Listener

if TYPE_CHECKING:
    from assay.models.base import Model

Echo = Callable[[str], None]


class ProtocolRequest(BaseModel):
    """The fields every protocol's request has; a protocol's own model adds its options."""

    model_config = ConfigDict(extra="forbid")

    # no length limits here: a server's wire format (``launch.StartRun``) has its own, and
    # each protocol says itself what an empty topic means to it
    topic: str = Field(description="The question or topic.")


RequestT = TypeVar("RequestT", bound=ProtocolRequest)


@dataclass(frozen=True)
class RunEnv:
    """Where a run happens: the settings, who hears its events, and the model to use
    instead of the one the settings name (None: the settings' own)."""

    settings: Settings
    listener: Listener | None = None
    model: Model | None = None
    echo: Echo | None = None
    """A line of progress for a terminal (the CLI's deep run prints its directions)."""


@dataclass(frozen=True)
class ProtocolResult:
    """What every interface reads of a finished run, whichever protocol ran it."""

    run_id: str
    protocol: str
    status: str
    reason: str | None = None
    report: Path | None = None
    """The run's report file, when the protocol wrote one."""
    answer: str | None = None
    """The protocol's own answer (research, ask); None: readers take the report's."""
    summary: str = ""
    """What the run found in a paragraph, for a tool's answer: the answer, deep's summary
    lines, web-research's output."""
    detail: Any = field(default=None, compare=False)
    """The protocol's own result object (``ResearchResult``, ``DeepResult``, …)."""

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` object: the protocol's own where it has one."""
        own = getattr(self.detail, "to_json", None)
        if callable(own):
            shown: dict[str, Any] = own()
            return shown
        return {"run_id": self.run_id, "protocol": self.protocol, "status": self.status,
                "reason": self.reason, "report": str(self.report) if self.report else None,
                "answer": self.answer, "summary": self.summary}  # fmt: skip


Run = Callable[[RequestT, RunEnv], Awaitable[ProtocolResult]]
Resume = Callable[[str, RunEnv], Awaitable[ProtocolResult]]
Default = Callable[[Settings], Any]


@dataclass(frozen=True)
class ProtocolSpec(Generic[RequestT]):
    """One protocol: its name, request model, and how to run (and resume) it."""

    name: str
    request: type[RequestT]
    run: Run[RequestT]
    resume: Resume | None = None
    """None: the protocol cannot continue an interrupted run (it starts a new one)."""
    unattended: Mapping[str, Default] = field(default_factory=dict)
    """By field: the value a run started with no one to ask (a server's, a batch's) gets
    where a user at a terminal gives a flag — where the run's files go, under the home."""
    description: str = ""

    def parse(self, fields: dict[str, Any]) -> RequestT:
        """The request from ``fields``: those the request model declares, checked by it."""
        known = {k: v for k, v in fields.items() if k in self.request.model_fields}
        return self.request.model_validate(known)

    def unattended_fields(self, settings: Settings, fields: dict[str, Any]) -> dict[str, Any]:
        """``fields`` (those not None) with the unattended defaults for the others."""
        given = {k: v for k, v in fields.items() if v is not None}
        missing = {k: make(settings) for k, make in self.unattended.items() if k not in given}
        return {**given, **missing}
