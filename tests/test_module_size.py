"""The project's limit on a module's size (small modules, one idea each): no module of
src/assay is over 360 lines (issue 24; research/agent.py was 373 before its bootstrap
rules moved to research/bootstrap.py)."""

from __future__ import annotations

from pathlib import Path

import assay

MAX_LINES = 360


def test_no_module_is_over_the_limit() -> None:
    root = Path(assay.__file__).parent
    sizes = {
        str(path.relative_to(root)): len(path.read_text(encoding="utf-8").splitlines())
        for path in root.rglob("*.py")
    }
    assert len(sizes) > 100  # the whole package was read
    assert {name: n for name, n in sizes.items() if n > MAX_LINES} == {}
