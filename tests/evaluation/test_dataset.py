"""The dataset and corpus shapes `assay eval` reads besides HotpotQA's and Climate-FEVER's:
items carrying ``paragraphs`` (``paragraph_text``, ``is_supporting``) with answer aliases,
and a corpus that is a list of ``{title, text}`` records."""

from __future__ import annotations

import http.client
import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from assay.batch import ResultRow
from assay.evaluation.dataset import load_dataset
from assay.evaluation.grade import by_type, grade_rows
from assay.lab import serve_lab
from assay.lab.corpus import load_corpus
from assay.store.sources import SourceLedger

TARN = "Osric Tarn was a Vellish soldier and politician."
POLITICIAN = "A politician is a person who takes part in policy-making."
OTHER = "Bea Marlow was an English footballer."
ITEMS = [
    {"id": "41", "question": "What is Osric Tarn's occupation?", "answer": "politician",
     "answer_aliases": ["politician", "political leader", "polit."], "type": "occupation",
     "subject": "Osric Tarn", "subject_popularity": 142,
     "paragraphs": [
         {"title": "Osric Tarn", "paragraph_text": TARN, "is_supporting": True},
         {"title": "Politician", "paragraph_text": POLITICIAN, "is_supporting": True},
         {"title": "Bea Marlow", "paragraph_text": OTHER, "is_supporting": False},
     ]},
    {"id": "42", "question": "In what city was Bea Marlow born?", "answer": "Nottingham",
     "answer_aliases": ["City of Nottingham"], "type": "place of birth",
     "paragraphs": [{"title": "Bea Marlow", "paragraph_text": OTHER, "is_supporting": True}]},
]  # fmt: skip


def write_items(tmp_path: Path) -> Path:
    path = tmp_path / "popqa-like.json"
    path.write_text(json.dumps(ITEMS), encoding="utf-8")
    return path


def test_paragraph_items_load_with_aliases_gold_passages_and_inline_corpus(
    tmp_path: Path,
) -> None:
    dataset = load_dataset(write_items(tmp_path))
    tarn, tully = dataset.items
    assert (tarn.id, tarn.type, tully.type) == ("41", "occupation", "place of birth")
    # the alias list repeats the answer: each accepted answer is kept once, in order
    assert tarn.answers == ("politician", "political leader", "polit.")
    assert tully.answers == ("Nottingham", "City of Nottingham")
    assert tarn.gold_titles == {"Osric Tarn", "Politician"}  # not the distractor
    corpus = {doc.title: doc.text for doc in dataset.corpus()}
    assert corpus == {"Osric Tarn": TARN, "Politician": POLITICIAN, "Bea Marlow": OTHER}


def test_grading_accepts_any_alias_and_counts_supporting_paragraphs_read(
    tmp_path: Path,
) -> None:
    dataset = load_dataset(write_items(tmp_path))
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    SourceLedger(run_dir, fsync=False).add(
        url="http://127.0.0.1:1/pages/george-tarn", final_url="http://127.0.0.1:1/pages/george-tarn",
        title="Osric Tarn", text=TARN, content_type="text/html",
        accessed_at="2026-12-01T10:00:00.000Z",
    )  # fmt: skip
    rows = {
        "41": ResultRow(id="41", status="done", answer="Political leader", run_dir=str(run_dir)),
        "42": ResultRow(id="42", status="done", answer="Nottingham, England"),
    }
    tarn, tully = grade_rows(dataset, rows)
    assert (tarn["em"], tarn["f1"], tarn["grade"]) == (1.0, 1.0, "correct")
    assert tarn["gold_recall"] == 0.5  # the person's article read, the answer's not
    assert (
        tully["em"] == 0.0 and tully["f1"] == pytest.approx(2 / 3) and tully["grade"] == "correct"
    )
    types = by_type("questions", [tarn, tully])
    assert set(types) == {"occupation", "place of birth"}
    assert types["occupation"]["em"] == 1.0 and types["place of birth"]["em"] == 0.0


def test_a_corpus_of_title_text_records_is_served_and_searched(tmp_path: Path) -> None:
    path = tmp_path / "corpus.json"
    records = [{"title": "Osric Tarn", "text": TARN}, {"title": "Bea Marlow", "text": OTHER}]
    path.write_text(json.dumps(records), encoding="utf-8")
    docs = load_corpus(path)
    assert [(d.title, d.text) for d in docs] == [("Osric Tarn", TARN), ("Bea Marlow", OTHER)]
    with serve_lab(path, sites=2, faults=False) as lab:
        search = urlsplit(lab.search_url)
        conn = http.client.HTTPConnection(search.hostname or "", search.port, timeout=5)
        conn.request("GET", f"{search.path}?q=Tarn+soldier+politician&format=json")
        results = json.loads(conn.getresponse().read())["results"]
        conn.close()
    assert [r["title"] for r in results] == ["Osric Tarn"]
