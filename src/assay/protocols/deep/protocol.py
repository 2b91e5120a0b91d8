"""The planner: runs the five phases of a deep run and owns every worker it starts.

Phase 0 detects the search method, Phase 1 plans and prints the complete plan before any
worker, Phase 2 runs the workers one at a time (never in parallel) and reviews each
direction: its facts are verified, graded (``grade``) and scored; Phase 3 escalates a
direction that fails a check or scores below 6.0, Phase 4 synthesizes, Phase 5 saves the
report and checks its integrity before the temp dir goes.

The directions (``directions.json``) and every findings record and review
(``findings.jsonl``) live in the run directory; the temp dir's Markdown files mirror them.
So ``resume`` continues an interrupted run at the first direction without a review.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from assay.claims.assessment import RunSources
from assay.claims.crosscheck import corroborate_and_verify
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
from assay.protocols.deep.findings import Findings, FindingsStore, Review, merge
from assay.protocols.deep.hop import next_hop
from assay.protocols.deep.plan import (
    Direction,
    bridge_direction,
    plan_directions,
    render_plan,
)
from assay.protocols.deep.report import write_report
from assay.protocols.deep.scoring import (
    confidence_of,
    direction_score,
    escalation_reason,
    needs_escalation,
    run_checks,
    score_parts,
)
from assay.protocols.deep.settle import settle
from assay.protocols.deep.worker import Worker, WorkerTask
from assay.protocols.runner import RunContext
from assay.store.runs import PLAN_FILE, REPORT_FILE

Echo = Callable[[str], None]
DIRECTIONS_FILE = "directions.json"


@dataclass
class DeepOutcome:
    method: SearchMethod
    reviews: list[Review]
    report: Path
    summary: list[str]
    tmp_dir: Path


class DeepPlanner:
    def __init__(
        self, context: RunContext, *, max_directions: int, output_dir: Path | None, echo: Echo
    ) -> None:
        self.context = context
        self.run = context.run
        self.topic = context.run.info.topic
        self.max_directions = max_directions
        self.output_dir = output_dir  # a folder the user asked for a copy of the report in
        self.echo = echo
        self.tmp_dir: Path | None = None
        self.tried: set[str] = set()  # every query run so far, so retries are new
        self.store = FindingsStore(self.run.dir, fsync=self.run.fsync)
        self.bridged = False  # the plan is adjusted to a next hop at most once

    def _phase(self, phase: str, detail: str | None = None, *, done: bool = False) -> None:
        event = PhaseFinished if done else PhaseStarted
        self.run.events.emit(event(phase=phase, detail=detail))

    async def run_all(self) -> DeepOutcome:
        method = await self._detect()
        directions = await self._plan()
        return await self._work(method, directions, [])

    async def resume_all(self) -> DeepOutcome:
        """Go on with an interrupted run: the directions without a review are run now (all
        of them, planned now, when it was interrupted before its plan was saved)."""
        if not (self.run.dir / DIRECTIONS_FILE).is_file():
            return await self.run_all()
        method = await self._detect()
        self.tmp_dir = Path(tempfile.mkdtemp(prefix="deep-research-"))
        data = json.loads((self.run.dir / DIRECTIONS_FILE).read_text(encoding="utf-8"))
        directions = [Direction.from_json(d, self.tmp_dir) for d in data["directions"]]
        done = self.store.reviews()
        for findings in self.store.findings():  # the temp dir's mirrors, rebuilt
            self.tried.update(findings.queries)
            path = next((d.output_file for d in directions if d.number == findings.number), None)
            if path is not None:
                findings.write(path, findings.direction)
        finished = {r.number for r in done}
        self.bridged = any(d.name.startswith("Next hop") for d in directions)
        self.echo(f"Resuming: {len(finished)} of {len(directions)} directions already reviewed")
        todo = [d for d in directions if d.number not in finished]
        return await self._work(method, todo, done)

    async def _work(
        self, method: SearchMethod, directions: list[Direction], done: list[Review]
    ) -> DeepOutcome:
        assert self.tmp_dir is not None
        settings = self.context.settings.model_copy(update={"search": method.provider})
        async with GatherSession(
            self.run, settings, keys=self.context.keys, budget=self.context.budget
        ) as session:
            worker = Worker(self.run, session, self.context.extractor)
            reviews = list(done)
            index = 0
            while index < len(directions):
                review = await self._direction(worker, directions[index], method)
                self.store.add_review(review)
                reviews.append(review)
                index += 1
                await self._adjust(directions, index)
        reviews.sort(key=lambda r: r.number)
        outcome = await self._finish(method, reviews)
        if reviews and all(r.crashed for r in reviews):  # nothing researched is no success
            first = reviews[0].crashed
            raise RunError(f"every worker crashed (first: {first}); see {outcome.report}")
        return outcome

    async def _adjust(self, directions: list[Direction], done: int) -> None:
        """Sequential workers let the planner adjust what is left: once, a name the facts
        so far tie to the question (its next hop, ``hop.next_hop``) becomes a direction —
        appended while the cap allows, else in place of the last direction not yet run."""
        if self.bridged or done >= self.max_directions:
            return
        if len(directions) >= self.max_directions and done >= len(directions):
            return
        facts = sorted(
            (f for fs in self.store.findings() for f in fs.relevant_facts()),
            key=lambda f: -f.relevance,
        )
        context = self.context
        entity = await next_hop(
            self.topic, list(dict.fromkeys(f.text for f in facts)), model=context.model,
            budget=context.budget, meter=context.meter,
        )  # fmt: skip
        if entity is None:
            return
        self.bridged = True
        if len(directions) < self.max_directions:
            number, like = len(directions) + 1, directions[-1]
        else:
            number, like = directions[-1].number, directions.pop()
        added = bridge_direction(self.topic, entity, number, like)
        directions.append(added)
        self._save_directions(directions)
        text = render_plan(directions)
        self.run.write_file(PLAN_FILE, f"# Deep research plan: {self.topic}\n\n{text}")
        self.echo(f"Direction {number} adjusted to the next hop: {added.description}")
        self.echo(render_plan([added]).removeprefix("Plan:\n\n"))
        self.run.events.emit(WarningEvent(message=f"direction {number} adjusted: {added.name}",
                                          code="plan_adjusted"))  # fmt: skip

    def _save_directions(self, directions: list[Direction]) -> None:
        payload = {"tmp_dir": str(self.tmp_dir), "directions": [d.to_json() for d in directions]}
        self.run.write_file(DIRECTIONS_FILE, json.dumps(payload, ensure_ascii=False, indent=2))

    async def _detect(self) -> SearchMethod:
        self._phase("search-method")
        try:
            method = await detect_search_method(self.context.settings, self.context.keys)
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
        self._save_directions(directions)
        self.run.events.emit(PlanWritten(path=PLAN_FILE, chars=len(text)))
        self.echo(text)
        self._phase("plan", f"{len(directions)} directions in {self.tmp_dir}", done=True)
        return directions

    def _covered(self) -> frozenset[str]:
        return frozenset(r.url for r in self.run.source_ledger.records())

    async def _direction(self, worker: Worker, d: Direction, method: SearchMethod) -> Review:
        self.context.budget.check()
        detail = f"direction {d.number}: {d.name}"
        self._phase("worker", detail)
        review = Review(d.number, d.name, list(d.queries), output_files=[str(d.output_file)])
        task = WorkerTask(
            d.number, d.description, d.queries, d.acceptance, d.output_file,
            method.name, method.instructions, self._covered(),
            question=d.question, topic=self.topic,
        )  # fmt: skip
        try:
            self.tried.update(task.queries)
            findings = await self._graded(worker, task)
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

    async def _graded(self, worker: Worker, task: WorkerTask) -> Findings:
        """The worker's findings with each fact verified and graded, recorded in the run
        (findings.jsonl) and mirrored to the task's temp-dir file."""
        findings = await worker.run(task)
        await self.grade(findings)
        self.store.add_findings(findings)
        findings.write(task.output_file, task.prompt())
        return findings

    async def grade(self, findings: Findings) -> None:
        """Verify the direction's claims, then set each fact's status and absolute confidence."""
        ids = {f.claim_id for f in findings.facts}
        await corroborate_and_verify(self.run, self.context.judge, only=ids)
        status = {c.id: c.status for c in self.run.claim_ledger.claims() if c.id in ids}
        findings.facts = [
            replace(
                f, status=status.get(f.claim_id, f.status),
                confidence=confidence_of(status.get(f.claim_id, f.status), f.relevant),
            )
            for f in findings.facts
        ]  # fmt: skip

    def _score(self, findings: Findings, review: Review) -> None:
        origins = RunSources.load(self.run.source_ledger).origins().of
        checks = run_checks(findings, origins)
        review.checks = checks.as_dict()
        review.parts = score_parts(findings, origins)
        review.score = direction_score(findings, origins)
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
        checks = run_checks(findings, RunSources.load(self.run.source_ledger).origins().of)
        if not needs_escalation(checks, review.score or 0.0):
            return findings
        reason = escalation_reason(checks, review.score or 0.0)
        alternatives = await alternative_queries(  # on the direction's own sub-question
            task.question or self.topic, review.name, sorted(self.tried | set(review.queries)),
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
        retry = replace(
            task, queries=tuple(alternatives), output_file=retry_file,
            covered_urls=self._covered(), attempt=2,
        )  # fmt: skip
        self.tried.update(alternatives)
        combined = merge(findings, await self._graded(worker, retry))
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
        await corroborate_and_verify(self.run, self.context.judge)
        settled = settle(self.run)
        self._phase("verify", f"{settled} status(es) settled against the final origins", done=True)
        self._phase("synthesize")
        shown_in = self.output_dir or self.run.dir  # the copy the summary points to
        written = await write_report(self.context, method, reviews, self.store.findings(),
                                     shown_in)  # fmt: skip
        self._phase("synthesize", f"{written.facts} findings", done=True)
        self._phase("output")
        # The report lives with its run (its sources, claims and log); a folder the user
        # named gets a copy, checked the same way.
        saved = output.save_report(written.text, self.run.dir, written.path.name)
        if self.output_dir is not None and self.output_dir.resolve() != self.run.dir.resolve():
            saved = output.save_report(written.text, self.output_dir, written.path.name)
        self.run.write_file(REPORT_FILE, written.text)
        self.run.events.emit(ReportUpdated(chars=len(written.text), path=REPORT_FILE))
        for line in written.summary:
            self.echo(line)
        self.echo(str(saved))
        shutil.rmtree(self.tmp_dir, ignore_errors=True)
        self._phase("output", str(saved), done=True)
        return DeepOutcome(method, reviews, saved, written.summary, self.tmp_dir)
