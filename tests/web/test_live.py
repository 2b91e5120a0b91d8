"""The live page's plan tile names each deep direction's output file by its name, never by
the server's temp path (issue 26)."""

from __future__ import annotations

from pathlib import Path

from assay.config import load_settings
from assay.protocols.deep.plan import Criteria, Direction, render_plan
from assay.store.runs import PLAN_FILE, RunStore
from assay.web.app import ServerConfig, create_app
from tests.web.test_api import api_client, run_async

TEMP = Path("/tmp/deep-research-Xy12ab")


def test_the_plan_tile_shows_output_files_by_name(isolated_home: Path) -> None:
    run = RunStore(isolated_home, fsync=False).create("How tall is it?", "deep", {})
    directions = [
        Direction(n, f"D{n}", f"Direction {n}", ("q1", "q2", "q3"), Criteria("any", 1, None),
                  TEMP / f"0{n}-direction-{n}.md")
        for n in (1, 2)
    ]  # fmt: skip
    plan = f"# Deep research plan: How tall is it?\n\n{render_plan(directions)}"
    assert str(TEMP) in plan  # plan.md keeps the spec's full path
    run.write_file(PLAN_FILE, plan)
    app = create_app(ServerConfig(load_settings(home=isolated_home)))
    shown: list[tuple[int, str]] = []

    async def scenario() -> None:
        async with api_client(app) as client:
            for path in (f"/runs/{run.id}/plan", f"/api/v1/runs/{run.id}/plan", "/runs/x/plan"):
                page = await client.get(path)
                shown.append((page.status_code, page.text))

    run_async(scenario)
    (code, tile), (_, api), (missing, _) = shown
    assert code == 200 and str(TEMP) not in tile and "/tmp" not in tile
    assert "Output: 01-direction-1.md" in tile and "Output: 02-direction-2.md" in tile
    assert tile.replace("Output: 0", f"Output: {TEMP}/0") == plan  # nothing else changed
    assert api == plan  # the API serves plan.md as it is
    assert missing == 404
