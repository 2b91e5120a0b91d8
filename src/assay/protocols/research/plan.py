"""The research plan: questions, approach and phases, ticked as phases finish.

The plan is kept as data in plan.json (what a resume reads) and rendered into plan.md (what
a reader sees); both are written, and chained, each time the plan changes. plan.md is never
parsed back, except for a run written before plan.json existed (``Plan.load`` falls back to
it; the next write of such a run adds plan.json).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ValidationError

from assay.errors import IntegrityError
from assay.events import PlanWritten
from assay.store.runs import PLAN_FILE, PLAN_STATE_FILE, Run

PHASES = ("plan", "gather", "extract claims", "verify", "synthesize")


@dataclass
class Plan:
    topic: str
    questions: list[str]
    approach: str
    done: set[str] = field(default_factory=set)
    rounds: list[str] = field(default_factory=list)
    answered: dict[str, str] = field(default_factory=dict)  # question → claim id

    def answer(self, question: str, claim_id: str) -> None:
        self.answered[question] = claim_id

    def render(self) -> str:
        lines = [f"# Plan: {self.topic}", "", "## Research questions", ""]
        for n, question in enumerate(self.questions, start=1):
            claim = self.answered.get(question)
            lines.append(
                f"{n}. [{'x' if claim else ' '}] {question}" + (f" ({claim})" if claim else "")
            )
        lines += ["", "## Approach", "", self.approach]
        if self.rounds:
            lines += ["", "## Search rounds", ""] + [f"- {r}" for r in self.rounds]
        lines += ["", "## Phases", ""]
        lines += [f"- [{'x' if p in self.done else ' '}] {p}" for p in PHASES]
        return "\n".join(lines) + "\n"

    def write(self, run: Run) -> None:
        """plan.json first: a reader that sees the new plan.md finds its data too."""
        state = PlanState(
            topic=self.topic, questions=self.questions, approach=self.approach,
            done=[p for p in PHASES if p in self.done] + sorted(self.done - set(PHASES)),
            rounds=self.rounds, answered=self.answered,
        )  # fmt: skip
        run.write_file(PLAN_STATE_FILE, state.model_dump_json(indent=2) + "\n")
        text = self.render()
        run.write_file(PLAN_FILE, text)
        run.events.emit(PlanWritten(path=PLAN_FILE, chars=len(text)))

    def tick(self, run: Run, phase: str) -> None:
        self.done.add(phase)
        self.write(run)

    @classmethod
    def load(cls, run_dir: Path) -> Plan | None:
        """The plan a run wrote (None: none yet), from plan.json; from plan.md only for a
        run older than plan.json."""
        path = run_dir / PLAN_STATE_FILE
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            legacy = run_dir / PLAN_FILE
            return cls.parse(legacy.read_text(encoding="utf-8")) if legacy.is_file() else None
        try:
            state = PlanState.model_validate_json(raw)
        except ValidationError as exc:
            raise IntegrityError(f"{path}: unreadable plan ({exc.error_count()} errors)") from None
        return cls(state.topic, list(state.questions), state.approach, set(state.done),
                   list(state.rounds), dict(state.answered))  # fmt: skip

    @classmethod
    def parse(cls, text: str) -> Plan:
        """Read a plan.md back: only for a run written before plan.json existed."""
        lines = text.splitlines()
        topic = lines[0].removeprefix("# Plan: ").strip() if lines else ""
        questions, approach, done, section = [], [], set(), ""
        rounds: list[str] = []
        answered: dict[str, str] = {}
        for line in lines[1:]:
            if line.startswith("## "):
                section = line[3:].strip().lower()
            elif section == "research questions" and line[:1].isdigit() and ". " in line:
                question, claim = _question_line(line.split(". ", 1)[1])
                questions.append(question)
                if claim:
                    answered[question] = claim
            elif section == "search rounds" and line.startswith("- "):
                rounds.append(line[2:])
            elif section == "approach" and line.strip():
                approach.append(line.strip())
            elif section == "phases" and line.startswith("- [x] "):
                done.add(line[6:].strip())
        return cls(topic, questions, " ".join(approach), done, rounds, answered)


class PlanState(BaseModel):
    """plan.json: the plan as data (``Plan`` in memory)."""

    topic: str
    questions: list[str]
    approach: str
    done: list[str] = []
    rounds: list[str] = []
    answered: dict[str, str] = {}


def _question_line(text: str) -> tuple[str, str]:
    """ "[x] question (claim_003)" → ("question", "claim_003"); a plain line is a question."""
    match = re.fullmatch(r"\[([ x])\] (.*?)(?: \((claim_\d+)\))?", text)
    if match is None:
        return text, ""
    return match.group(2), match.group(3) or ""
