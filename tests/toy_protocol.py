"""A third-party protocol, as a plugin package would ship it: one module, one entry point.

``tests/protocols/test_registry.py`` registers ``TOY`` under the ``assay.protocols`` group
(a ``.dist-info`` folder with an ``entry_points.txt``, as installing a package writes) and
runs it through the CLI, the REST API and MCP. It starts a run like every protocol (the
runner journals it, so every interface sees it), writes a report, and answers the topic
shouted back with the number of sources it was asked for.
"""

from __future__ import annotations

from pydantic import Field

from assay import ProtocolRequest, ProtocolResult, ProtocolSpec, RunEnv
from assay.protocols.runner import execute, start_run
from assay.store.runs import REPORT_FILE


class ToyRequest(ProtocolRequest):
    sources: int = Field(default=1, ge=1, le=20)
    shout: bool = True


async def run_toy(request: ToyRequest, env: RunEnv) -> ProtocolResult:
    context = start_run(env.settings, request.topic, "toy")
    if env.listener is not None:
        context.run.events.listeners.append(env.listener)
    topic = request.topic.upper() if request.shout else request.topic
    answer = f"{topic} ({request.sources} sources)"
    report = context.run.dir / REPORT_FILE

    async def body() -> None:
        report.write_text(f"# Toy\n\n{answer}\n", encoding="utf-8")

    await execute(context, body)
    run = context.run
    return ProtocolResult(
        run_id=run.id, protocol="toy", status=run.info.effective_status(),
        reason=run.info.reason, report=report, answer=answer, summary=answer,
    )  # fmt: skip


TOY = ProtocolSpec(name="toy", request=ToyRequest, run=run_toy, description="Shout the topic.")
NOT_A_SPEC = object()
