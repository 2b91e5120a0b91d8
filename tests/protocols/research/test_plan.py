"""The research plan is resumed from plan.json, never parsed back out of plan.md
(except for a run written before plan.json existed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.claims.integrity import audit_chain
from assay.config import load_settings
from assay.errors import IntegrityError
from assay.protocols.research.agent import ResearchHarness
from assay.protocols.research.plan import Plan
from assay.protocols.research.policy import ExtractivePolicy
from assay.protocols.runner import reopen_run, start_run
from assay.store.runs import PLAN_FILE, PLAN_STATE_FILE

TOPIC = "tidal power in estuaries"


def _written_plan(home: Path) -> str:
    context = start_run(load_settings(home=home), TOPIC, "research")
    plan = Plan(TOPIC, ["What is tidal power?", "Where is it used?"], "search, read, verify")
    plan.done = {"plan", "gather"}
    plan.rounds = ["round 2: tidal barrage costs"]
    plan.answer("What is tidal power?", "claim_001")
    plan.write(context.run)
    context.run.finish("interrupted")
    return context.run.id


def _resumed(home: Path, run_id: str) -> ResearchHarness:
    context = reopen_run(load_settings(home=home), run_id)
    return ResearchHarness(context, ExtractivePolicy(), mode="web")


def test_a_resumed_run_with_plan_md_deleted_still_resumes_its_plan(isolated_home: Path) -> None:
    run_id = _written_plan(isolated_home)
    run_dir = isolated_home / "runs" / run_id
    (run_dir / PLAN_FILE).unlink()
    harness = _resumed(isolated_home, run_id)
    assert harness.state.plan_written
    assert harness.plan is not None
    assert harness.plan.questions == ["What is tidal power?", "Where is it used?"]
    assert harness.plan.done == {"plan", "gather"}
    assert harness.plan.rounds == ["round 2: tidal barrage costs"]
    assert harness.plan.answered == {"What is tidal power?": "claim_001"}


def test_a_hand_edited_plan_md_does_not_change_the_resumed_plan(isolated_home: Path) -> None:
    run_id = _written_plan(isolated_home)
    plan_md = isolated_home / "runs" / run_id / PLAN_FILE
    plan_md.write_text(plan_md.read_text().replace("- [ ] verify", "- [x] verify"))
    harness = _resumed(isolated_home, run_id)
    assert harness.plan is not None and "verify" not in harness.plan.done


def test_a_run_older_than_plan_json_resumes_from_plan_md(isolated_home: Path) -> None:
    run_id = _written_plan(isolated_home)
    (isolated_home / "runs" / run_id / PLAN_STATE_FILE).unlink()
    harness = _resumed(isolated_home, run_id)
    assert harness.plan is not None and harness.plan.done == {"plan", "gather"}
    assert harness.plan.answered == {"What is tidal power?": "claim_001"}


def test_an_unreadable_plan_json_is_a_one_line_integrity_error(isolated_home: Path) -> None:
    run_id = _written_plan(isolated_home)
    (isolated_home / "runs" / run_id / PLAN_STATE_FILE).write_text('{"topic": 3}')
    with pytest.raises(IntegrityError, match="unreadable plan"):
        _resumed(isolated_home, run_id)


def test_the_plan_json_is_chained_and_verify_passes(isolated_home: Path) -> None:
    run_id = _written_plan(isolated_home)
    run_dir = isolated_home / "runs" / run_id
    assert audit_chain(run_dir, declared=True).failures == []
    (run_dir / PLAN_STATE_FILE).write_text((run_dir / PLAN_STATE_FILE).read_text() + " ")
    assert audit_chain(run_dir, declared=True).failures == [
        f"{PLAN_STATE_FILE} was edited after assay wrote it"
    ]
