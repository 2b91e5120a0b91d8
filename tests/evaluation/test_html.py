"""The eval report as a browser shows it: rendered by headless Chromium and screenshotted.

Skipped when Debian's chromium is not installed.
"""

from __future__ import annotations

import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from assay.evaluation.grade import by_type, summarize
from assay.evaluation.html import render_html

CHROMIUM = shutil.which("chromium")


def eval_data() -> dict[str, Any]:
    rows = []
    for n in range(8):
        right = n % 3 != 0
        rows.append({
            "id": f"q{n}", "type": "bridge" if n % 2 else "comparison",
            "text": f"Question number {n}?", "answer": "yes" if right else "",
            "gold": ["yes"], "em": float(right), "f1": 1.0 if right else 0.0,
            "score": 1.0 if right else 0.0, "grade": "correct" if right else "not_attempted",
            "gold_recall": 0.5, "status": "done", "reason": None, "run_id": f"r{n}",
            "report": None, "tokens": 100 * n, "model_calls": n, "wall_seconds": 2.0 + n,
            "cited_urls": 3, "fabricated_urls": 0, "quotes": 4, "quotes_missing": 0,
            "sentences": 2, "sentences_supported": 2, "fabricated_markers": 0,
        })  # fmt: skip
    return {
        "assay_version": "test", "created_at": "2026-11-30T00:00:00+00:00",
        "dataset": "questions.json", "kind": "questions", "protocol": "research",
        "engine": "extractive", "corpus": "inline", "summary": summarize("questions", rows),
        "by_type": by_type("questions", rows), "rows": rows,
    }  # fmt: skip


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")
def test_the_html_report_renders_with_its_plots_in_headless_chromium(tmp_path: Path) -> None:
    from PIL import Image

    page = tmp_path / "report.html"
    page.write_text(render_html(eval_data()), encoding="utf-8")
    shot = tmp_path / "report.png"
    subprocess.run(
        [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         f"--screenshot={shot}", "--window-size=1200,1400", page.as_uri()],
        capture_output=True, timeout=90, check=True,
    )  # fmt: skip
    image = Image.open(shot).convert("RGB")
    assert image.size == (1200, 1400)
    colours = Counter({colour: count for count, colour in image.getcolors(1 << 24) or []})
    white = colours[(255, 255, 255)] / (1200 * 1400)
    assert white < 0.95  # text, tables and plots, not a blank page
    # The plots drew: matplotlib's default blue and orange bars are on the page.
    assert any(_near(c, (31, 119, 180)) or _near(c, (76, 120, 168)) for c in colours)
    assert any(_near(c, (245, 133, 24)) or _near(c, (255, 127, 14)) for c in colours)


def _near(colour: tuple[int, int, int], target: tuple[int, int, int]) -> bool:
    return all(abs(a - b) <= 6 for a, b in zip(colour, target, strict=True))
