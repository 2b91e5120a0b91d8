"""plan.md: research questions, approach and phase checkboxes, ticked as phases finish."""

from __future__ import annotations

from dataclasses import dataclass, field

from assay.events import PlanWritten
from assay.store.runs import PLAN_FILE, Run

PHASES = ("plan", "gather", "extract claims", "verify", "synthesize")


@dataclass
class Plan:
    topic: str
    questions: list[str]
    approach: str
    done: set[str] = field(default_factory=set)

    def render(self) -> str:
        lines = [f"# Plan: {self.topic}", "", "## Research questions", ""]
        lines += [f"{n}. {q}" for n, q in enumerate(self.questions, start=1)]
        lines += ["", "## Approach", "", self.approach, "", "## Phases", ""]
        lines += [f"- [{'x' if p in self.done else ' '}] {p}" for p in PHASES]
        return "\n".join(lines) + "\n"

    def write(self, run: Run) -> None:
        text = self.render()
        run.write_file(PLAN_FILE, text)
        run.events.emit(PlanWritten(path=PLAN_FILE, chars=len(text)))

    def tick(self, run: Run, phase: str) -> None:
        self.done.add(phase)
        self.write(run)

    @classmethod
    def parse(cls, text: str) -> Plan:
        """Read a plan.md back (for resume): questions, approach and ticked phases."""
        lines = text.splitlines()
        topic = lines[0].removeprefix("# Plan: ").strip() if lines else ""
        questions, approach, done, section = [], [], set(), ""
        for line in lines[1:]:
            if line.startswith("## "):
                section = line[3:].strip().lower()
            elif section == "research questions" and line[:1].isdigit() and ". " in line:
                questions.append(line.split(". ", 1)[1])
            elif section == "approach" and line.strip():
                approach.append(line.strip())
            elif section == "phases" and line.startswith("- [x] "):
                done.add(line[6:].strip())
        return cls(topic, questions, " ".join(approach), done)
