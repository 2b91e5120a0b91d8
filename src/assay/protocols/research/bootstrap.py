"""The research harness's bootstrap rules (``ResearchHarness``'s plan-and-skills half):
the skills are read and the plan is written before the first search, whatever the policy
chose. A policy that searches first is corrected: the harness reads the missing skills
(``tool.read_skill`` with ``corrected``) and writes a plan from the question's own research
questions, each with a ``warning``. A model's plan keeps only the questions that name
something of the topic.
"""

from __future__ import annotations

from assay.events import PhaseFinished, PhaseStarted, ToolReadSkill
from assay.protocols.research.plan import Plan
from assay.protocols.research.policy import AgentState, Mode
from assay.protocols.research.skills import BOOTSTRAP, condensed, read_skill
from assay.store.runs import Run
from assay.text import content_words


class BootstrapRules:
    """The bootstrap half of ``ResearchHarness`` (agent.py), which sets these attributes."""

    run: Run
    mode: Mode
    state: AgentState
    plan: Plan | None

    def _warn(self, message: str, code: str) -> None:
        raise NotImplementedError  # the harness warns

    def _bootstrap(self) -> None:
        if self.mode == "ask":
            return
        missing = [s for s in BOOTSTRAP if s not in self.state.skills_read]
        if missing:
            self._warn(f"bootstrap: read {', '.join(missing)} before searching", "bootstrap")
            for name in missing:
                self._read_skill(name, corrected=True)
        if not self.state.plan_written:
            from assay.engines.extractive.planner import research_questions

            self._warn("bootstrap: plan.md written before searching", "bootstrap")
            self._write_plan(research_questions(self.state.topic), "Search, read, verify, report.")

    def _read_skill(self, name: str, *, corrected: bool) -> None:
        read_skill(name)  # an unknown name is a user error here, before it is recorded
        self.state.skills_read.add(name)
        self.state.notes.append(f"skill {name}: {condensed(name)}")
        self.run.events.emit(ToolReadSkill(name=name, corrected=corrected))

    def _on_topic(self, questions: list[str]) -> list[str]:
        """A model's plan questions that name something of the topic, or the topic's own.

        Each question becomes a search target and, unanswered, an open question of the
        report: the small model's "What is the evidence for this relationship?" is neither."""
        from assay.engines.extractive.planner import research_questions

        topic = set(content_words(self.state.topic))
        kept = [q for q in questions if set(content_words(q)) & topic]
        if len(kept) < len(questions):
            self._warn(
                f"plan: {len(questions) - len(kept)} of the model's questions name nothing "
                "of the topic and were left out",
                "plan_off_topic",
            )
        return kept or research_questions(self.state.topic)

    def _write_plan(self, questions: list[str], approach: str) -> None:
        self.run.events.emit(PhaseStarted(phase="plan"))
        self.plan = Plan(self.state.topic, questions, approach, done={"plan"})
        self.plan.write(self.run)
        self.state.plan = list(questions)
        self.run.events.emit(PhaseFinished(phase="plan", detail=f"{len(questions)} questions"))
