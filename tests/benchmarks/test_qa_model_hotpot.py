"""benchmarks/qa_model_hotpot.py: its figures from a run's files."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from types import ModuleType

import pytest

from assay.evaluation.dataset import EvalItem
from assay.store.sources import SourceLedger
from tests.paths import ROOT

BENCHMARKS = ROOT / "benchmarks"
GOLD = frozenset({"Alû", "Lilu (mythology)"})


@pytest.fixture
def script(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    return importlib.import_module("qa_model_hotpot")


def a_run(tmp_path: Path, name: str, titles: list[str], answer: dict[str, object],
          ended: str) -> Path:  # fmt: skip
    run_dir = tmp_path / name
    run_dir.mkdir()
    ledger = SourceLedger(run_dir, fsync=False)
    for n, title in enumerate(titles):
        ledger.add(url=f"http://127.0.0.1/{n}", final_url=f"http://127.0.0.1/{n}", title=title,
                   text=f"{title} is a page.", content_type="text/html",
                   accessed_at="2026-01-01T00:00:00Z")  # fmt: skip
    events = [{"type": "research.gathered", "data": {"reason": ended, "pages": 2, "rounds": 1,
                                                     "answered": ended.startswith("answered")}},
              {"type": "research.answer", "data": answer}]  # fmt: skip
    (run_dir / "run.log.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    (run_dir / "report.md").write_text("# report\n")
    return run_dir


def test_the_figures_per_question_type(script: ModuleType, tmp_path: Path) -> None:
    found = a_run(tmp_path, "a", ["Alû", "Lilu (mythology)", "Demon Dice"],
                  {"text": "a spirit", "claimIds": ["claim_001"], "method": "model:m"},
                  "answered after 2 pages")  # fmt: skip
    half = a_run(tmp_path, "b", ["Alû", "Gallu"],
                 {"text": "", "claimIds": [], "method": "model:m",
                  "flags": [{"rule": "extractive:what", "ruleAnswer": "demon", "modelAnswer": ""}]},
                 "step budget of 6 pages reached")  # fmt: skip
    items = [
        EvalItem(id="q1", text="?", answers=("spirit",), type="bridge", gold_titles=GOLD),
        EvalItem(id="q2", text="?", answers=("yes",), type="comparison", gold_titles=GOLD),
    ]
    data = {"rows": [
        {"id": "q1", "report": str(found / "report.md"), "em": 0.0, "f1": 0.67, "tokens": 3000,
         "model_calls": 6},
        {"id": "q2", "report": str(half / "report.md"), "em": 0.0, "f1": 0.0, "tokens": 5000,
         "model_calls": 10},
    ]}  # fmt: skip
    figures = script.score(script.eval_rows(data, items, "hotpot"))
    assert figures["all"]["recall"] == 3 / 4  # pages fetched / supporting pages
    assert figures["all"]["all_fetched"] == 1 / 2
    assert figures["bridge"]["recall"] == 1.0 and figures["comparison"]["recall"] == 0.5
    assert figures["all"]["f1"] == pytest.approx(0.335)
    assert figures["all"]["tokens"] == 4000 and figures["all"]["model_calls"] == 8
    assert figures["all"]["flagged"] == 0.5 and figures["comparison"]["unanswered"] == 1.0
    assert figures["all"]["endings"] == {"answered": 1, "step budget": 1}
    single = script.score(script.eval_rows(data, items, "popqa"))
    assert set(single) == {"all", "single-hop"}
