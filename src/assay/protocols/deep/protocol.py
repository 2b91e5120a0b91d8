"""The planner: runs the five phases of a deep run and owns every worker it starts.

Phase 0 detects the search method, Phase 1 plans and prints the complete plan before any
worker, Phase 2 runs the workers one at a time (never in parallel) and reviews each file,
Phase 3 escalates a direction that fails a check or scores below 6.0, Phase 4 verifies and
synthesizes, Phase 5 saves the report and checks its integrity before the temp dir goes.
"""

from __future__ import annotations

import datetime as dt
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from assay.engines.extractive.planner import key_phrase
from assay.errors import BudgetExhausted, RunCancelled, RunError
from assay.events import (
    DeepDirectionScored,
    DeepEscalation,
    DeepSearchMethod,
    PhaseFinished,
    PhaseStarted,
    PlanWritten,
    ReportUpdated,
    WarningEvent,
)
from assay.gather.session import GatherSession
from assay.protocols.deep import output
from assay.protocols.deep.detect import NoSearchMethod, SearchMethod, detect_search_method
from assay.protocols.deep.escalate import alternative_queries
from assay.protocols.deep.findings import Findings, Review, merge
from assay.protocols.deep.plan import Direction, plan_directions, render_plan
from assay.protocols.deep.scoring import (
    direction_score,
    escalation_reason,
    needs_escalation,
    run_checks,
)
from assay.protocols.deep.synthesis import synthesize, verify_claims
from assay.protocols.deep.worker import Worker, WorkerTask
from assay.protocols.runner import RunContext
from assay.store.runs import PLAN_FILE, REPORT_FILE
from assay.store.sources import SourceLedger

Echo = Callable[[str], None]


@dataclass
class DeepOutcome:
    method: SearchMethod
    reviews: list[Review]
    report: Path
    summary: list[str]
    tmp_dir: Path


class DeepPlanner:
    def __init__(
        self, context: RunContext, *, max_directions: int, output_dir: Path, echo: Echo
    ) -> None:
        self.context = context
        self.run = context.run
        self.topic = context.run.info.topic
        self.max_directions = max_directions
        self.output_dir = output_dir
        self.echo = echo
        self.tmp_dir: Path | None = None
        self.tried: set[str] = set()  # every query run so far, so retries are new

    def _phase(self, phase: str, detail: str | None = None, *, done: bool = False) -> None:
        event = PhaseFinished if done else PhaseStarted
        self.run.events.emit(event(phase=phase, detail=detail))

    async def run_all(self) -> DeepOutcome:
        method = await self._detect()
        directions = await self._plan()
        assert self.tmp_dir is not None
        settings = self.context.settings.model_copy(update={"search": method.provider})
        async with GatherSession(
            self.run, settings, keys=self.context.keys, budget=self.context.budget
        ) as session:
            worker = Worker(self.run, session, self.context.extractor)
            reviews = [await self._direction(worker, d, method) for d in directions]
        outcome = await self._finish(method, reviews)
        if reviews and all(r.crashed for r in reviews):  # nothing researched is no success
            first = reviews[0].crashed
            raise RunError(f"every worker crashed (first: {first}); see {outcome.report}")
        return outcome

    async def _detect(self) -> SearchMethod:
        self._phase("search-method")
        try:
            method = await detect_search_method(
                self.context.settings, self.context.keys, key_phrase(self.topic)
            )
        except NoSearchMethod as exc:
            self.run.events.emit(DeepSearchMethod(method=None, evidence=str(exc)))
            self.echo(f"Search method: none — {exc}")
            raise
        self.run.events.emit(
            DeepSearchMethod(method=method.name, evidence=method.evidence, tried=method.tried)
        )
        self.echo(method.line())
        self._phase("search-method", method.name, done=True)
        return method

    async def _plan(self) -> list[Direction]:
        self._phase("plan")
        self.tmp_dir = Path(tempfile.mkdtemp(prefix="deep-research-"))
        directions, notes = await plan_directions(
            self.topic,
            self.tmp_dir,
            max_directions=self.max_directions,
            model=self.context.model,
            budget=self.context.budget,
            meter=self.context.meter,
        )
        for note in notes:
            self.run.events.emit(WarningEvent(message=note, code="plan"))
        text = render_plan(directions)
        self.run.write_file(PLAN_FILE, f"# Deep research plan: {self.topic}\n\n{text}")
        self.run.events.emit(PlanWritten(path=PLAN_FILE, chars=len(text)))
        self.echo(text)
        self._phase("plan", f"{len(directions)} directions in {self.tmp_dir}", done=True)
        return directions

    def _covered(self) -> frozenset[str]:
        return frozenset(r.url for r in SourceLedger(self.run.dir).records())

    async def _direction(self, worker: Worker, d: Direction, method: SearchMethod) -> Review:
        self.context.budget.check()
        detail = f"direction {d.number}: {d.name}"
        self._phase("worker", detail)
        review = Review(d.number, d.name, list(d.queries), output_files=[str(d.output_file)])
        task = WorkerTask(
            d.number, d.description, d.queries, d.acceptance, d.output_file,
            method.name, method.instructions, self._covered(),
        )  # fmt: skip
        try:
            self.tried.update(task.queries)
            await worker.run(task)
            findings = Findings.read(d.output_file)  # the planner reads the worker's file
            findings = await self._review(worker, task, findings, review)
        except (BudgetExhausted, RunCancelled):
            raise
        except Exception as exc:  # a crashed worker is noted; the others go on
            review.crashed = f"{type(exc).__name__}: {exc}"
            self.run.events.emit(
                WarningEvent(message=f"{detail}: worker crashed: {review.crashed}", code="worker")
            )
        self._phase("worker", f"{detail}; score {review.score or 0:.1f}", done=True)
        return review

    def _score(self, findings: Findings, review: Review) -> None:
        checks = run_checks(findings)
        review.checks = checks.as_dict()
        review.score = direction_score(findings)
        self.run.events.emit(
            DeepDirectionScored(
                direction=review.number, name=review.name, score=review.score,
                checks=review.checks, attempt=findings.attempt,
            )
        )  # fmt: skip
        self.echo(
            f"Direction {review.number} score: {review.score:.1f}"
            + (
                f" (failed: {', '.join(checks.failed())})"
                if checks.failed()
                else " (all checks pass)"
            )
        )

    async def _review(
        self, worker: Worker, task: WorkerTask, findings: Findings, review: Review
    ) -> Findings:
        self._score(findings, review)
        checks = run_checks(findings)
        if not needs_escalation(checks, review.score or 0.0):
            return findings
        reason = escalation_reason(checks, review.score or 0.0)
        alternatives = await alternative_queries(
            self.topic, review.name, sorted(self.tried | set(review.queries)),
            model=self.context.model,
            budget=self.context.budget, meter=self.context.meter,
        )  # fmt: skip
        self.run.events.emit(
            DeepEscalation(direction=review.number, name=review.name, reason=reason,
                           queries=alternatives)
        )  # fmt: skip
        self.echo(f"Direction {review.number} escalated ({reason}); retrying with 3 new queries")
        review.escalated, review.first_score = True, review.score
        review.retry_queries = alternatives
        review.queries = list(dict.fromkeys([*review.queries, *alternatives]))
        retry_file = task.output_file.with_name(task.output_file.stem + "-retry.md")
        review.output_files.append(str(retry_file))
        retry = WorkerTask(
            task.number, task.direction, tuple(alternatives), task.acceptance, retry_file,
            task.search_method, task.search_instructions, self._covered(), attempt=2,
        )  # fmt: skip
        self.tried.update(alternatives)
        await worker.run(retry)
        combined = merge(findings, Findings.read(retry_file))
        self._score(combined, review)
        if (review.score or 0.0) < 6.0:
            review.insufficient = True
            self.run.events.emit(
                WarningEvent(
                    message=f"direction {review.number} ({review.name}): "
                    f"[insufficient data — score: {review.score:.1f}]",
                    code="insufficient_data",
                )
            )
        return combined

    async def _finish(self, method: SearchMethod, reviews: list[Review]) -> DeepOutcome:
        assert self.tmp_dir is not None
        self._phase("verify")
        await verify_claims(self.run, self.context.judge)
        self._phase("verify", done=True)
        self._phase("synthesize")
        all_findings = [Findings.read(p) for p in sorted(self.tmp_dir.glob("*.md"))]
        synthesis = synthesize(self.run, all_findings)
        gap_list = output.gaps(reviews, all_findings)
        records = {r.id: r for r in SourceLedger(self.run.dir).records()}
        today = dt.datetime.now().astimezone().date()
        path = self.output_dir / output.report_name(self.topic, today)
        lines = output.summary_lines(self.topic, synthesis, reviews, gap_list, len(records), path)
        summary = "\n".join(
            [lines[0], "", "Key findings:", "", *[f"- {k}" for k in synthesis.key_findings],
             "", *lines[2:4]]
        )  # fmt: skip
        text = output.fill(
            output.template(),
            {
                "topic": self.topic,
                "engine_line": self.context.engine_line,
                "search_method": method.line().removeprefix("Search method: "),
                "run_id": self.run.id,
                "date": today.isoformat(),
                "summary": summary,
                "findings": synthesis.findings,
                "directions": output.directions_section(reviews),
                "gaps": "\n".join(f"- {g}" for g in gap_list) or "- none: every query found facts",
                "bibliography": output.bibliography(synthesis.cited, records),
            },
        )
        self._phase("synthesize", f"{synthesis.facts} findings", done=True)
        self._phase("output")
        saved = output.save_report(text, self.output_dir, path.name)  # IntegrityError: tmp kept
        self.run.write_file(REPORT_FILE, text)
        self.run.events.emit(ReportUpdated(chars=len(text), path=REPORT_FILE))
        for line in lines:
            self.echo(line)
        self.echo(str(saved))
        shutil.rmtree(self.tmp_dir, ignore_errors=True)
        self._phase("output", str(saved), done=True)
        return DeepOutcome(method, reviews, saved, lines, self.tmp_dir)
