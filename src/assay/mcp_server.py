"""``assay mcp``: research as tools for other agents (the official MCP SDK's server).

Tools ``research``, ``ask``, ``web_research`` and ``deep`` (and one tool for each protocol a
plugin registers, named after it) run a protocol through ``protocols.launch`` and
``protocols.registry`` (the same call the CLI and the web API make) and answer with a typed
``RunOutcome``: the answer, claim counts by status and the report's path. While a run
works, each event of its log goes to the client as a progress notification (when the
client asked for progress). ``verify``, ``show`` and ``runs`` read the run store. Served
over stdio or streamable HTTP; the HTTP transport binds loopback only and answers only
loopback Host and Origin headers (``http_security``).

A tool's ``model`` and ``search`` are picked among what the server offers
(``protocols.served``): the server's keys never go where a client chose. Arguments the
run cannot take (an empty topic, too many sources) come back as one line naming them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import BaseModel, Field, ValidationError

from assay.__about__ import __version__
from assay.claims.recheck import recheck_run
from assay.config import Settings
from assay.errors import AssayError, BudgetExhausted, ConfigError
from assay.events import Event, event_record
from assay.protocols.contract import ProtocolSpec
from assay.protocols.deep.plan import MAX_DIRECTIONS
from assay.protocols.launch import PROTOCOLS, StartRun
from assay.protocols.registry import protocol_names, protocol_spec
from assay.protocols.runner import observing_runs
from assay.protocols.served import ServedChoices
from assay.report.reading import report_answer
from assay.statuses import CLAIM_STATUSES
from assay.store.claims import ClaimLedger
from assay.store.runs import REPORT_FILE, Run, RunStore
from assay.store.sources import SourceLedger
from assay.store.summary import RunSummary, run_summary
from assay.timeline import describe

logger = logging.getLogger(__name__)
REPORT_CHARS = 20_000
INSTRUCTIONS = (
    "assay researches a question on the web and answers with claims that carry verbatim "
    "quotes from saved sources; a claim is 'verified' only when two independent sources "
    "support it. Use `ask` for a quick answer, `research` or `deep` for a cited report, "
    "`verify` to re-check a run from its files."
)


class RunOutcome(BaseModel):
    """What a run produced."""

    run_id: str
    protocol: str
    status: str = Field(description="done, failed or interrupted")
    reason: str | None = Field(default=None, description="Why the run stopped early, if it did.")
    answer: str = Field(description="The answer or summary ('' when none was found).")
    claims: dict[str, int] = Field(description="Claims by status.")
    sources: int
    report_path: str | None
    run_dir: str


class VerifyOutcome(BaseModel):
    run_id: str
    ok: bool
    claims: int
    failures: list[str]
    warnings: list[str]


class RunShow(BaseModel):
    outcome: RunOutcome
    topic: str
    events: int
    report: str = Field(description=f"report.md (its first {REPORT_CHARS} characters).")


def outcome(run: Run, answer: str = "") -> RunOutcome:
    claims = ClaimLedger(run.dir).claims()
    report = run.dir / REPORT_FILE
    return RunOutcome(
        run_id=run.id,
        protocol=run.info.protocol,
        status=run.info.effective_status(),
        reason=run.info.reason,
        answer=answer,
        claims={s: sum(1 for c in claims if c.status == s) for s in CLAIM_STATUSES},
        sources=len(SourceLedger(run.dir).records()),
        report_path=str(report) if report.is_file() else None,
        run_dir=str(run.dir),
    )


class Progress:
    """Forwards a run's events to the client as progress notifications."""

    def __init__(self, context: Context[Any, Any]) -> None:
        self.context = context
        self.loop = asyncio.get_running_loop()
        self.count = 0
        self.sent: set[asyncio.Task[None]] = set()

    def __call__(self, event: Event) -> None:
        entry = describe(event_record(event))
        self.loop.call_soon_threadsafe(self._send, f"{entry.kind}: {entry.text}"[:300])

    def _send(self, message: str) -> None:
        self.count += 1
        task = self.loop.create_task(self.context.report_progress(self.count, None, message))
        self.sent.add(task)
        task.add_done_callback(self.sent.discard)

    async def flush(self) -> None:
        await asyncio.gather(*list(self.sent), return_exceptions=True)


def start_request(**fields: Any) -> StartRun:
    """The tool's arguments as a run request; a value the run cannot take is a ToolError
    naming it, in one line (not a crash with a traceback)."""
    try:
        return StartRun(**fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "arguments"
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise ToolError(f"invalid argument {where}: {first['msg']}{more}") from None


class AssayTools:
    """The tools, over one home's settings and what its requests may pick."""

    def __init__(self, settings: Settings, choices: ServedChoices | None = None) -> None:
        self.settings = settings
        self.choices = choices or ServedChoices.offered(settings)

    @property
    def store(self) -> RunStore:
        return RunStore(self.settings.home, fsync=self.settings.fsync == "always")

    async def run(self, request: StartRun, context: Context[Any, Any]) -> RunOutcome:
        progress = Progress(context)
        started: list[Run] = []
        with observing_runs(started.append):
            try:
                served = self.choices.resolve(request, self.settings)
                answer = (await served.call(request, progress)).summary
            except BudgetExhausted:
                answer = ""  # the partial report is written; the outcome says why
            except AssayError as exc:
                if not started:
                    raise ToolError(str(exc)) from None
                answer = ""
            finally:
                await progress.flush()
        return outcome(self.store.open(started[-1].id), answer)  # ask's hand-over is last

    def verify(self, run_id: str) -> VerifyOutcome:
        run = self._open(run_id)
        result = recheck_run(run.dir)
        result.record(run.events)
        return VerifyOutcome(run_id=run.id, ok=result.ok, claims=len(result.claims),
                             failures=result.failures, warnings=result.warnings)  # fmt: skip

    def show(self, run_id: str) -> RunShow:
        """A finished run as ``run`` answered it: the answer is the report's, read back
        (the run's result object is gone by now)."""
        run = self._open(run_id)
        report = run.dir / REPORT_FILE
        text = report.read_text(encoding="utf-8") if report.is_file() else ""
        return RunShow(outcome=outcome(run, report_answer(text)), topic=run.info.topic,
                       events=len(run.events.read().records),
                       report=text[:REPORT_CHARS])  # fmt: skip

    def runs(self) -> list[RunSummary]:
        store = self.store
        return [RunSummary.model_validate(run_summary(store, info)) for info in store.list()]

    def _open(self, run_id: str) -> Run:
        try:
            return self.store.open(run_id)
        except AssayError as exc:
            raise ToolError(str(exc)) from None


def plugin_protocols() -> list[ProtocolSpec[Any]]:
    """The registered protocols that are not built in: each is a tool of its own name. One
    that does not load is left out (a warning says why) rather than failing the server."""
    specs = []
    for name in protocol_names():
        if name in PROTOCOLS:
            continue
        try:
            specs.append(protocol_spec(name))
        except (ConfigError, ImportError, AttributeError) as exc:
            logger.warning("protocol plugin %r left out: %s", name, exc)
    return specs


def _plugin_tool(tools: AssayTools, name: str) -> Callable[..., Awaitable[RunOutcome]]:
    async def run_plugin(
        topic: str, ctx: Context[Any, Any], search: str | None = None, model: str | None = None
    ) -> RunOutcome:
        request = start_request(protocol=name, topic=topic, search=search, model=model)
        return await tools.run(request, ctx)

    return run_plugin


def http_security(host: str) -> TransportSecuritySettings:
    """DNS-rebinding protection for the HTTP transport on ``host`` (any loopback address,
    which the SDK guards by itself only for 127.0.0.1 and ::1): the Host header must be
    that address or localhost, the Origin, when there is one, the same."""
    bound = f"[{host}]" if ":" in host else host
    names = sorted({bound, "127.0.0.1", "localhost", "[::1]"})
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{name}:*" for name in names],
        allowed_origins=[f"http://{name}:*" for name in names],
    )


def build_server(settings: Settings, choices: ServedChoices | None = None) -> MCPServer:
    """The MCP server with assay's seven tools (and one for each plugin protocol);
    ``choices``: what tool calls may pick (default: only what ``settings`` configure)."""
    server: MCPServer = MCPServer("assay", instructions=INSTRUCTIONS, version=__version__,
                                  log_level="WARNING")  # fmt: skip
    tools = AssayTools(settings, choices)

    @server.tool()
    async def research(
        topic: str, ctx: Context[Any, Any], sources: int = 5, search: str | None = None,
        model: str | None = None, budget_time: float | None = None,
    ) -> RunOutcome:  # fmt: skip
        """Research a topic: plan, search, read sources, extract and verify claims, and
        write a cited report."""
        request = start_request(protocol="research", topic=topic, sources=sources,
                                search=search, model=model, budget_time=budget_time)  # fmt: skip
        return await tools.run(request, ctx)

    @server.tool()
    async def ask(
        question: str, ctx: Context[Any, Any], search: str | None = None, model: str | None = None
    ) -> RunOutcome:
        """Answer one question directly from a few sources (escalates to research when the
        question needs it)."""
        request = start_request(protocol="ask", topic=question, search=search, model=model)
        return await tools.run(request, ctx)

    @server.tool()
    async def web_research(
        topic: str, ctx: Context[Any, Any], urls: list[str] | None = None,
        keywords: list[str] | None = None,
        depth: Literal["shallow", "medium", "deep"] = "medium", search: str | None = None,
    ) -> RunOutcome:  # fmt: skip
        """Research a topic from given URLs and/or search keywords; key points as verified
        claims."""
        request = start_request(protocol="web-research", topic=topic, urls=urls or [],
                                keywords=keywords or [], depth=depth, search=search)  # fmt: skip
        return await tools.run(request, ctx)

    @server.tool()
    async def deep(
        topic: str, ctx: Context[Any, Any], max_directions: int = MAX_DIRECTIONS,
        search: str | None = None, model: str | None = None,
    ) -> RunOutcome:  # fmt: skip
        """Deep research: several directions researched and scored, then one report."""
        request = start_request(protocol="deep", topic=topic, max_directions=max_directions,
                                search=search, model=model)  # fmt: skip
        return await tools.run(request, ctx)

    for spec in plugin_protocols():
        server.add_tool(_plugin_tool(tools, spec.name), name=spec.name.replace("-", "_"),
                        description=spec.description or f"Run {spec.name}.")  # fmt: skip

    @server.tool()
    def verify(run_id: str) -> VerifyOutcome:
        """Re-check a run from its files: snapshots, quotes, statuses, report, hash chain."""
        return tools.verify(run_id)

    @server.tool()
    def show(run_id: str) -> RunShow:
        """A run's outcome and report (a run id or a unique prefix)."""
        return tools.show(run_id)

    @server.tool()
    def runs() -> list[RunSummary]:
        """Every run in the store."""
        return tools.runs()

    return server
