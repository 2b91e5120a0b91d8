"""``assay eval``: datasets of both shapes, metrics, integrity audit, report and compare."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay.cli import app
from assay.errors import BadInputError
from assay.evaluation.compare import compare
from assay.evaluation.dataset import load_dataset
from assay.evaluation.integrity import audit_run
from assay.evaluation.scoring import exact_match, grade, label_scores, normalize, token_f1
from assay.evaluation.stats import paired_bootstrap, sign_test
from tests.lab_fixtures import TOPICS

runner = CliRunner()


def context(topic: str) -> list[list[object]]:
    return [[topic, [" ".join(TOPICS[topic])]]]


QUESTIONS = [
    {"_id": "a", "type": "date", "question": "When was the Halvorsen Lighthouse completed?",
     "answer": "1874", "context": context("Halvorsen Lighthouse")},
    {"_id": "b", "type": "date", "question": "When did Mount Oskar last erupt?",
     "answer": "in 1911", "context": context("Mount Oskar volcano")},
    {"_id": "c", "type": "name", "question": "Who first described the Velmar honeybee?",
     "answer": "Brekke", "aliases": ["Lars Brekke"], "context": context("Velmar honeybee")},
]  # fmt: skip
CLAIMS = [
    {"claim_id": "1", "claim": "The Tarn Valley tidal plant opened in 2016.",
     "claim_label": "SUPPORTS", "evidences": [{"article": "Tarn Valley tidal plant",
     "evidence": "The Tarn Valley tidal plant opened in 2016 after six years of construction."}]},
    {"claim_id": "2", "claim": "Kessler sourdough is baked from wheat flour on Mars.",
     "claim_label": "NOT_ENOUGH_INFO", "evidences": [{"article": "Kessler sourdough",
     "evidence": "Kessler sourdough is a rye bread from the town of Kessler."}]},
]  # fmt: skip


def test_squad_normalisation_f1_aliases_and_the_three_way_grade() -> None:
    assert normalize("The  Eiffel-Tower!") == "eiffeltower"
    assert token_f1("in the year 1874", "1874") == pytest.approx(0.5)  # p 1/3, r 1
    assert exact_match("Lars Brekke", ["Brekke", "Lars Brekke"]) == 1.0
    assert grade("", ["x"]) == "not_attempted"
    assert grade("Lars Brekke, entomologist", ["Lars Brekke"]) == "correct"
    assert grade("Oslo", ["Lars Brekke"]) == "incorrect"


def test_label_scores_accuracy_macro_f1_and_confusion() -> None:
    pairs = [("SUPPORTS", "SUPPORTS"), ("SUPPORTS", "REFUTES"), ("REFUTES", "REFUTES")]
    scores = label_scores(pairs, ("SUPPORTS", "REFUTES"))
    assert scores["accuracy"] == pytest.approx(2 / 3)
    # SUPPORTS: p 1, r .5 → f1 2/3; REFUTES: p .5, r 1 → f1 2/3
    assert scores["macro_f1"] == pytest.approx(2 / 3)
    assert scores["confusion"] == {"SUPPORTS": {"SUPPORTS": 1, "REFUTES": 1},
                                   "REFUTES": {"SUPPORTS": 0, "REFUTES": 1}}  # fmt: skip


def test_sign_test_and_paired_bootstrap() -> None:
    assert sign_test(0, 0) == 1.0
    assert sign_test(10, 0) == pytest.approx(2 / 1024)
    assert sign_test(3, 3) == 1.0
    better, p = paired_bootstrap([0.0] * 20, [1.0] * 15 + [0.0] * 5)
    assert better == pytest.approx(0.75) and p < 0.01
    _, p_noise = paired_bootstrap([0.0, 1.0] * 10, [1.0, 0.0] * 10)
    assert p_noise == 1.0


def test_both_dataset_shapes_load_with_their_inline_corpus(tmp_path: Path) -> None:
    questions = tmp_path / "q.json"
    questions.write_text(json.dumps(QUESTIONS))
    claims = tmp_path / "c.jsonl"
    claims.write_text("\n".join(json.dumps(c) for c in CLAIMS))
    q = load_dataset(questions, limit=2, offset=1)
    assert q.kind == "questions" and [i.id for i in q.items] == ["b", "c"]
    assert q.items[1].answers == ("Brekke", "Lars Brekke")
    assert [d.title for d in q.corpus()] == ["Mount Oskar volcano", "Velmar honeybee"]
    c = load_dataset(claims)
    assert c.kind == "claims" and [i.label for i in c.items] == ["SUPPORTS", "NOT_ENOUGH_INFO"]
    claims.write_text(json.dumps({"claim": "x", "label": "MAYBE"}))
    with pytest.raises(BadInputError, match="label must be one of"):
        load_dataset(claims)


def test_eval_of_questions_writes_eval_json_and_report_then_compares(tmp_path: Path) -> None:
    dataset = tmp_path / "q.json"
    dataset.write_text(json.dumps(QUESTIONS))
    out = tmp_path / "ev"
    started = time.monotonic()
    result = runner.invoke(
        app, ["eval", str(dataset), "--out", str(out), "--sites", "2", "--concurrency", "3",
              "--quiet", "--home", str(tmp_path / "home")],
    )  # fmt: skip
    took = time.monotonic() - started
    assert result.exit_code == 0, result.output
    made = json.loads((out / "eval.request.json").read_text())
    assert made == {"dataset": str(dataset.resolve()), "protocol": "research",
                    "engine": "extractive"}  # fmt: skip
    data = json.loads((out / "eval.json").read_text())
    rows = {r["id"]: r for r in data["rows"]}
    assert rows["a"]["em"] == 1.0 and rows["a"]["grade"] == "correct"
    summary = data["summary"]
    # elapsed is the eval's own clock; the items' times (which overlap) are summed apart
    assert 0 < summary["elapsed_seconds"] <= took
    assert summary["item_seconds_total"] == sum(r["wall_seconds"] for r in data["rows"])
    assert f"elapsed {summary['elapsed_seconds']:.1f}s (items " in result.output
    assert summary["items"] == 3 and summary["failed"] == 0
    assert summary["fabricated_urls"] == 0 and summary["cited_urls"] > 0
    assert summary["quotes"] > 0 and summary["quotes_missing"] == 0
    assert set(data["by_type"]) == {"date", "name"}
    # A snapshot cut short: the audit no longer finds its quotes.
    run_dir = tmp_path / "home" / "runs" / rows["a"]["run_id"]
    for snapshot in (run_dir / "snapshots").iterdir():
        snapshot.write_text(snapshot.read_text()[:200])
    assert audit_run(run_dir, "").quotes_missing > 0
    html = (out / "report.html").read_text()
    assert html.count("<svg") >= 3 and "http://" not in html.split("<svg")[0].split("<h2>Plots")[0]
    # Fabricate a worse eval B; compare names the losses.
    worse = json.loads(json.dumps(data))
    for row in worse["rows"]:
        row["score"] = 0.0
    (tmp_path / "b.json").write_text(json.dumps(worse))
    compared = compare(data, worse)
    assert compared["losses"] == [i for i, r in rows.items() if r["score"] > 0]
    shown = runner.invoke(app, ["eval", "compare", str(out), str(tmp_path / "b.json")])
    assert shown.exit_code == 0, shown.output
    assert f"0 wins, {len(compared['losses'])} losses" in shown.output


def test_an_eval_folder_another_engine_made_is_refused_and_kept(tmp_path: Path) -> None:
    dataset = tmp_path / "q.json"
    dataset.write_text(json.dumps(QUESTIONS))
    out = tmp_path / "ev"
    out.mkdir()
    made = {"dataset": str(dataset.resolve()), "protocol": "research", "engine": "openai:m"}
    (out / "eval.request.json").write_text(json.dumps(made))
    (out / "results.jsonl").write_text('{"id": "a"}\n')
    result = runner.invoke(
        app, ["eval", str(dataset), "--out", str(out), "--home", str(tmp_path / "home")]
    )
    assert result.exit_code != 0
    assert "holds the runs of an eval with engine 'openai:m'" in result.output
    assert "Traceback" not in result.output
    assert (out / "results.jsonl").read_text() == '{"id": "a"}\n'  # nothing lost
    (out / "eval.request.json").write_text("{not json")
    result = runner.invoke(
        app, ["eval", str(dataset), "--out", str(out), "--home", str(tmp_path / "home")]
    )
    assert result.exit_code != 0 and "cannot be read" in result.output
    assert "Traceback" not in result.output


def test_eval_of_claims_grades_labels(tmp_path: Path) -> None:
    dataset = tmp_path / "c.jsonl"
    dataset.write_text("\n".join(json.dumps(c) for c in CLAIMS))
    result = runner.invoke(
        app, ["eval", str(dataset), "--out", str(tmp_path / "ev"), "--sites", "1", "--json",
              "--home", str(tmp_path / "home")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "ev" / "eval.json").read_text())
    assert data["protocol"] == "check"
    predicted = {r["id"]: r["predicted"] for r in data["rows"]}
    assert predicted["1"] == "SUPPORTS"
    assert data["summary"]["accuracy"] == sum(r["score"] for r in data["rows"]) / 2


def test_the_audit_finds_a_fabricated_url(tmp_path: Path) -> None:
    from tests.conftest import make_run

    run_dir = make_run(tmp_path, "audit")
    clean = audit_run(run_dir, "See <http://site.test/a>.")
    assert (clean.cited_urls, clean.fabricated_urls) == (1, 0)
    fake = audit_run(run_dir, "See <http://site.test/a> and <http://invented.test/x>.")
    assert fake.fabricated_urls == 1
